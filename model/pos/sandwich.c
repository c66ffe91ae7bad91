// sandwich.c - Sandwich (Chi et al. 2023, "Dissecting Transformer Length Extrapolation
// via the Lens of Receptive Field Analysis", Sec. 5): the inner product of two sinusoidal
// embeddings of dimension d' depends only on the distance D,
//   p_i . p_j = sum_{k=1}^{d'/2} cos(D / 10000^(2k/d')),
// and is added to the logits as a parameter-free bias, shifted to 0 at D = 0 and compressed
// per head like ALiBi's slopes: b(h, D) = (sum - d'/2) / (8 (h+1) / H), h = 0..H-1.
// sandwich-dim sets d' (default 128). The sums for D < 65536 are tabulated once.
#include "pos.h"

#include <stdlib.h>

#define SANDWICH_TABLE 65536

static const char *sandwich_validate(const PosState *ps, char *err, size_t n) {
    float d = ps->hp[0];
    if (!(d >= 2 && d <= 65536) || d != floorf(d) || ((int)d) % 2)
        snprintf(err, n, "sandwich-dim must be an even integer in [2, 65536], got %g", d);
    else return NULL;
    return err;
}

static double sandwich_sum(int D, int dp) {
    double s = 0.0;
    for (int k = 1; k <= dp / 2; k++) s += cos((double)D / pow(10000.0, 2.0 * k / dp));
    return s - dp / 2;
}

static void sandwich_prepare(PosState *ps) {
    int dp = (int)ps->hp[0];
    real *tab = xmalloc(SANDWICH_TABLE * sizeof(real));
#pragma omp parallel for schedule(static)
    for (int D = 0; D < SANDWICH_TABLE; D++) tab[D] = (real)sandwich_sum(D, dp);
    ps->cache = tab;
}

static void sandwich_release(PosState *ps) { free(ps->cache); }

static void sandwich_bias_forward(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores) {
    const real *tab = ps->cache;
    int dp = (int)ps->hp[0];
    real inv = (real)(ps->NH / (8.0 * (h + 1)));
    for (int j = 0; j < n; j++) {
        int D = qpos - kpos[j];
        real v = (unsigned)D < SANDWICH_TABLE ? tab[D] : (real)sandwich_sum(D, dp);
        scores[j] += v * inv;
    }
}

// per score: the tabulated sum of cosines times the head's factor, added (2 FLOPs)
static double sandwich_flops(const PosState *ps, int T, int L) { return 2.0 * L * ps->NH * T; }

const PosScheme pos_sandwich = {
    .name = "sandwich",
    .summary = "parameter-free bias: sinusoid inner product of the distance, per-head compression",
    .cite = "Chi et al. 2023 (Sandwich), Sec. 5",
    .hypers = {{"sandwich-dim", 128.0f, "dimension d' of the sinusoids whose inner product is the bias", 1},
               {NULL, 0, NULL}},
    .relative = 1,
    .validate = sandwich_validate,
    .prepare = sandwich_prepare,
    .release = sandwich_release,
    .bias_forward = sandwich_bias_forward,
    .flops = sandwich_flops,
};
