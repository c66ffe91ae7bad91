// sinusoidal.c - fixed sinusoidal position vectors added at the input.
// Vaswani et al. 2017, "Attention Is All You Need", Sec. 3.5:
//   p[pos][2i] = sin(pos / 10000^(2i/C)),  p[pos][2i+1] = cos(pos / 10000^(2i/C))
// (sin on even channels, cos on odd: the interleaved layout).
// Amplitude: the table's entries are O(1) while token embeddings start at N(0, 0.02), so an
// unscaled table drowns the tokens (docs/schemes.md). posgpt multiplies the
// table by sin-scale; the default 0 means C^-0.5 (the scale x-transformers initialises its
// learned scalar to). sin-scale 1 gives the unscaled original. Defined at every position.
#include "pos.h"

#include <stdlib.h>

static double sin_scale(const PosState *ps) {
    return ps->hp[0] > 0 ? (double)ps->hp[0] : 1.0 / sqrt((double)ps->C);
}

static void sinusoidal_input_forward(const PosState *ps, real *x, const int *pos, int N) {
    // x (N, C) += scale * p[pos[n]]
    int C = ps->C, half = (C + 1) / 2;
    double s = sin_scale(ps);
    double *freq = xmalloc((size_t)half * sizeof(double)); // the same doubles as pow() per element
    for (int i = 0; i < half; i++) freq[i] = pow(10000.0, -2.0 * i / C);
    PROF_BEGIN();
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        real *x_n = x + (size_t)n * C;
        for (int i = 0; i < half; i++) {
            double ang = (double)pos[n] * freq[i];
            x_n[2 * i] += (real)(s * sin(ang));
            if (2 * i + 1 < C) x_n[2 * i + 1] += (real)(s * cos(ang));
        }
    }
    PROF_END("sinusoidal input_forward", N, C, 0, N);
    free(freq);
}

static const char *sinusoidal_validate(const PosState *ps, char *err, size_t n) {
    if (ps->hp[0] >= 0 && ps->hp[0] < 1e30f) return NULL;
    snprintf(err, n, "sin-scale must be >= 0 (0 = 1/sqrt(d_model)), got %g", ps->hp[0]);
    return err;
}

// the table's row added to each token's input: C adds (the sines computed once per position)
static double sinusoidal_flops(const PosState *ps, int T, int L) { return (void)T, (void)L, (double)ps->C; }

const PosScheme pos_sinusoidal = {
    .name = "sinusoidal",
    .summary = "fixed sin/cos vectors added at the input, scaled by sin-scale",
    .cite = "Vaswani et al. 2017, Sec. 3.5",
    .hypers = {{"sin-scale", 0.0f, "multiplier on the table; 0 = 1/sqrt(d_model), 1 = unscaled"}, {NULL, 0, NULL}},
    .relative = 0,
    .validate = sinusoidal_validate,
    .input_forward = sinusoidal_input_forward,
    // no parameters: nothing to backpropagate into
    .flops = sinusoidal_flops,
};
