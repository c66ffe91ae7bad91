// rotary.c - the rotary family's shared code: the rotation (rotary_apply) and the context
// extensions, s = the scale factor (the request's, or max(1, window length / train_len)):
//   pi          positions pos / s (Chen et al. 2023)
//   ntk         base * s^(HS/(HS-2)), positions unchanged ("NTK-aware" scaling)
//   dynamic-ntk as ntk with s' = max(1, alpha T / train_len - (alpha - 1)), alpha = the factor or 1,
//               T the current window: the base follows the length being evaluated
//   yarn        per pair, r = train_len / wavelength; ramp g = clamp((r - 1) / (32 - 1), 0, 1);
//               theta' = (1 - g) theta / s + g theta; q and k scaled by 0.1 ln s + 1 (Peng et al. 2023)
//   rerope      distances beyond a window rotate as the window (rope.c builds the scores)
#include "rotary.h"

#include <stdlib.h>
#include <string.h>

static const char *const METHOD_NAMES[] = {"none", "pi", "ntk", "dynamic-ntk", "yarn", "rerope"};
#define NMETHODS ((int)(sizeof(METHOD_NAMES) / sizeof(METHOD_NAMES[0])))

void rotary_prepare(PosState *ps) { ps->cache = xcalloc(1, sizeof(RotaryExt)); }
void rotary_release(PosState *ps) { free(ps->cache); }

const RotaryExt *rotary_ext(const PosState *ps) {
    static const RotaryExt none = {0};
    return ps->cache ? (const RotaryExt *)ps->cache : &none;
}

const char *rotary_extend(PosState *ps, const PosExtension *e, char *err, size_t n) {
    RotaryExt *x = ps->cache;
    int m = -1;
    for (int i = 0; i < NMETHODS; i++)
        if (!strcmp(METHOD_NAMES[i], e->method)) m = i;
    if (m < 0) snprintf(err, n, "unknown rotary context extension '%s'", e->method);
    else if (m == ROT_REROPE && e->factor != 0) snprintf(err, n, "rerope takes a window, not a scale factor");
    else if (m != ROT_REROPE && e->window != 0) snprintf(err, n, "%s takes no window (only rerope does)", e->method);
    else if (!x) snprintf(err, n, "internal: rotary state not prepared");
    else {
        x->method = m;
        x->factor = e->factor;
        x->train_len = e->train_len;
        x->window = m == ROT_REROPE && e->window <= 0 ? e->train_len : e->window; // the default window
        return NULL;
    }
    return err;
}

static double ext_scale(const RotaryExt *e, int T) {
    double s;
    if (e->method == ROT_DYNNTK) {
        double a = e->factor > 0 ? e->factor : 1.0;
        s = e->train_len > 0 ? a * T / e->train_len - (a - 1.0) : 1.0;
    } else s = e->factor > 0 ? e->factor : (e->train_len > 0 ? (double)T / e->train_len : 1.0);
    return e->method == ROT_NONE || e->method == ROT_REROPE ? 1.0 : s < 1.0 ? 1.0 : s;
}

double rotary_scale(const PosState *ps, int T) { return ext_scale(rotary_ext(ps), T); }

double rotary_extension_value(const PosState *ps, int T) {
    const RotaryExt *e = rotary_ext(ps);
    return e->method == ROT_REROPE ? (double)e->window : ext_scale(e, T);
}

double rotary_pos_scale(const PosState *ps, int T) {
    const RotaryExt *e = rotary_ext(ps);
    return e->method == ROT_PI ? 1.0 / ext_scale(e, T) : 1.0;
}

static void rotary_plan(const PosState *ps, int T, double base, double *freq, double *pscale, double *mscale) {
    int HS = ps->HS, K = HS / 2;
    const RotaryExt *e = rotary_ext(ps);
    double s = ext_scale(e, T);
    *pscale = 1.0, *mscale = 1.0;
    if ((e->method == ROT_NTK || e->method == ROT_DYNNTK) && HS > 2) base *= pow(s, (double)HS / (HS - 2));
    for (int k = 0; k < K; k++) freq[k] = pow(base, -2.0 * k / HS);
    if (e->method == ROT_PI) *pscale = 1.0 / s;
    if (e->method == ROT_YARN) {
        const double alpha = 1.0, beta = 32.0;
        for (int k = 0; k < K; k++) {
            double r = e->train_len / (2.0 * M_PI / freq[k]);
            double g = (r - alpha) / (beta - alpha);
            g = g < 0 ? 0 : g > 1 ? 1 : g;
            freq[k] = (1.0 - g) * freq[k] / s + g * freq[k];
        }
        *mscale = 0.1 * log(s) + 1.0;
    }
}

int rotary_pair_freqs(const PosState *ps, int T, double base, double *orig, double *eff) {
    int K = ps->HS / 2;
    double pscale, mscale;
    rotary_plan(ps, T, base, eff, &pscale, &mscale);
    for (int k = 0; k < K; k++) orig[k] = pow(base, -2.0 * k / ps->HS), eff[k] *= pscale;
    return K;
}

// the cos and sin (times mscale) of the angle sign * pos * pscale * freq[k] of one position
static void rotary_row(real *row, int pos, int K, const double *freq, double pscale, double sign, double mscale) {
    double p = (double)pos * pscale;
    for (int k = 0; k < K; k++) {
        double a = sign * p * freq[k];
        row[k] = (real)(mscale * cos(a));
        row[K + k] = (real)(mscale * sin(a));
    }
}

// the rows of cos[K], then sin[K], that (b, t) reads: *at[b] + t * 2K is its row. Either one row
// per position value 0..max (when there are fewer values than distinct rows of positions: task
// rows of packed examples, random positions), or one table per distinct row of positions (a
// sequence whose positions equal the previous one's shares it: in training, all of them). Both
// compute the same numbers for a position, so the choice changes no bit.
static real *rotary_table(const int *pos, int B, int T, int K, const double *freq, double pscale, double sign,
                          double mscale, size_t *at, int *by_value) {
    int ntab = 0, maxp = 0, minp = 0;
    for (size_t i = 0; i < (size_t)B * T; i++) maxp = pos[i] > maxp ? pos[i] : maxp, minp = pos[i] < minp ? pos[i] : minp;
    int *first = xmalloc((size_t)B * sizeof(int));
    for (int b = 0; b < B; b++) {
        if (b && !memcmp(pos + (size_t)b * T, pos + (size_t)(b - 1) * T, (size_t)T * sizeof(int))) at[b] = at[b - 1];
        else first[ntab] = b, at[b] = (size_t)ntab++ * T * 2 * K;
    }
    *by_value = minp >= 0 && (long)maxp + 1 < (long)ntab * T;
    long nrows = *by_value ? maxp + 1 : (long)ntab * T;
    real *cs = xmalloc((size_t)nrows * 2 * K * sizeof(real));
    PROF_BEGIN();
    if (*by_value) {
#pragma omp parallel for schedule(static)
        for (int p = 0; p <= maxp; p++) rotary_row(cs + (size_t)p * 2 * K, p, K, freq, pscale, sign, mscale);
    } else {
#pragma omp parallel for schedule(static) collapse(2)
        for (int i = 0; i < ntab; i++)
            for (int t = 0; t < T; t++)
                rotary_row(cs + ((size_t)i * T + t) * 2 * K, pos[(size_t)first[i] * T + t], K, freq, pscale, sign, mscale);
    }
    PROF_END("rotary table", nrows, K, 0, nrows);
    free(first);
    return cs;
}

void rotary_apply(const PosState *ps, real *v, const int *pos, int B, int T, int stride, double base, int interleaved,
                  double sign) {
    int NH = ps->NH, HS = ps->HS, K = HS / 2;
    double *freq = xmalloc((size_t)K * sizeof(double)), pscale, mscale;
    rotary_plan(ps, T, base, freq, &pscale, &mscale);
    size_t *at = xmalloc((size_t)B * sizeof(size_t));
    int by_value;
    real *cs = rotary_table(pos, B, T, K, freq, pscale, sign, mscale, at, &by_value);
    PROF_BEGIN();
#pragma omp parallel for schedule(static) collapse(2)
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            const real *row = by_value ? cs + (size_t)pos[(size_t)b * T + t] * 2 * K : cs + at[b] + (size_t)t * 2 * K;
            for (int h = 0; h < NH; h++) {
                real *x = v + ((size_t)b * T + t) * stride + (size_t)h * HS;
                for (int k = 0; k < K; k++) {
                    int i0 = interleaved ? 2 * k : k, i1 = interleaved ? 2 * k + 1 : k + K;
                    real a = x[i0], bb = x[i1], c = row[k], s = row[K + k];
                    x[i0] = a * c - bb * s;
                    x[i1] = a * s + bb * c;
                }
            }
        }
    PROF_END("rotary apply", B * T, NH * HS, 0, (long)B * T);
    free(cs), free(at), free(freq);
}
