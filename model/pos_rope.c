// pos_rope.c - rotary position embedding (Su et al. 2021, "RoFormer", Sec. 3.4.2): rotate
// each pair of q and k channels of every head, every layer, by pos * theta_k with
// theta_k = base^(-2k/HS), k = 0..HS/2-1. Then q_m . k_n depends only on m - n.
// Pairing: rotate-half (x_k, x_{k+HS/2}) by default (GPT-NeoX); --rope-interleaved 1
// pairs (x_{2k}, x_{2k+1}) (RoFormer). The two give the same scores up to a fixed
// permutation of head channels; never mix them between training and evaluation.
// A rotation is orthogonal, so the backward is the rotation by -pos * theta_k.
// rotary_apply (shared with pos_xpos.c) also carries the evaluation-time context extensions.
#include "pos.h"

#include <stdlib.h>
#include <string.h>

static const char *rope_validate(const PosState *ps, char *err, size_t n) {
    if (ps->HS % 2) snprintf(err, n, "rope needs an even head size; d_model/heads = %d/%d = %d is odd", ps->C, ps->NH, ps->HS);
    else if (!(ps->hp[0] > 1.0f && ps->hp[0] < 1e30f)) snprintf(err, n, "--rope-base must be > 1, got %g", ps->hp[0]);
    else if (ps->hp[1] != 0.0f && ps->hp[1] != 1.0f) snprintf(err, n, "--rope-interleaved must be 0 or 1, got %g", ps->hp[1]);
    else return NULL;
    return err;
}

// Context extension (eval --rope-scaling; docs/schemes.md), s = ext.factor
// or max(1, T / train_len):
//   pi          positions pos / s (Chen et al. 2023)
//   ntk         base * s^(HS/(HS-2)), positions unchanged ("NTK-aware" scaling)
//   dynamic-ntk as ntk with s' = max(1, alpha T / train_len - (alpha - 1)), alpha = ext.factor or 1,
//               T the current window: the base follows the length being evaluated
//   yarn        per pair, r = train_len / wavelength; ramp g = clamp((r - 1) / (32 - 1), 0, 1);
//               theta' = (1 - g) theta / s + g theta; q and k scaled by 0.1 ln s + 1 (Peng et al. 2023)
double pos_ext_scale(const PosExt *e, int T) {
    double s;
    if (e->method == POS_EXT_DYNNTK) {
        double a = e->factor > 0 ? e->factor : 1.0;
        s = e->train_len > 0 ? a * T / e->train_len - (a - 1.0) : 1.0;
    } else s = e->factor > 0 ? e->factor : (e->train_len > 0 ? (double)T / e->train_len : 1.0);
    return e->method == POS_EXT_NONE || e->method == POS_EXT_REROPE ? 1.0 : s < 1.0 ? 1.0 : s;
}

static void rotary_plan(const PosState *ps, int T, double base, double *freq, double *pscale, double *mscale) {
    int HS = ps->HS, K = HS / 2;
    const PosExt *e = &ps->ext;
    double s = pos_ext_scale(e, T);
    *pscale = 1.0, *mscale = 1.0;
    if ((e->method == POS_EXT_NTK || e->method == POS_EXT_DYNNTK) && HS > 2) base *= pow(s, (double)HS / (HS - 2));
    for (int k = 0; k < K; k++) freq[k] = pow(base, -2.0 * k / HS);
    if (e->method == POS_EXT_PI) *pscale = 1.0 / s;
    if (e->method == POS_EXT_YARN) {
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

double rotary_pos_scale(const PosState *ps, int T) {
    return ps->ext.method == POS_EXT_PI ? 1.0 / pos_ext_scale(&ps->ext, T) : 1.0;
}

void rotary_apply(const PosState *ps, real *v, const int *pos, int B, int T, int stride, double base, int interleaved,
                  double sign) {
    int NH = ps->NH, HS = ps->HS, K = HS / 2;
    double *freq = xmalloc((size_t)K * sizeof(double)), pscale, mscale;
    rotary_plan(ps, T, base, freq, &pscale, &mscale);
    // one table of cos and sin (times the scale) per distinct row of positions: a sequence
    // whose positions equal the previous one's shares its table (in training, all of them)
    int *tab = xmalloc((size_t)B * sizeof(int)), *first = xmalloc((size_t)B * sizeof(int)), ntab = 0;
    for (int b = 0; b < B; b++) {
        if (b && !memcmp(pos + (size_t)b * T, pos + (size_t)(b - 1) * T, (size_t)T * sizeof(int))) tab[b] = tab[b - 1];
        else first[ntab] = b, tab[b] = ntab++;
    }
    real *cs = xmalloc((size_t)ntab * T * 2 * K * sizeof(real)); // row (i, t): cos[K], sin[K]
#pragma omp parallel for schedule(static) collapse(2)
    for (int i = 0; i < ntab; i++)
        for (int t = 0; t < T; t++) {
            double p = (double)pos[(size_t)first[i] * T + t] * pscale;
            real *row = cs + ((size_t)i * T + t) * 2 * K;
            for (int k = 0; k < K; k++) {
                double a = sign * p * freq[k];
                row[k] = (real)(mscale * cos(a));
                row[K + k] = (real)(mscale * sin(a));
            }
        }
#pragma omp parallel for schedule(static) collapse(2)
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            const real *row = cs + ((size_t)tab[b] * T + t) * 2 * K;
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
    free(cs), free(tab), free(first), free(freq);
}

static void rope_qk_forward(const PosState *ps, real *v, const int *pos, int B, int T, int stride, int is_key) {
    if (ps->ext.method == POS_EXT_REROPE) return; // scores built from distances by rope_term
    rotary_apply(ps, v, pos, B, T, stride, ps->hp[0], ps->hp[1] != 0.0f, 1.0);
}

static void rope_qk_backward(const PosState *ps, real *dv, const int *pos, int B, int T, int stride, int is_key) {
    // forward: x' = m R(pos*theta) x  =>  dx = m R(pos*theta)^T dx' = m R(-pos*theta) dx'
    if (ps->ext.method == POS_EXT_REROPE) return;
    rotary_apply(ps, dv, pos, B, T, stride, ps->hp[0], ps->hp[1] != 0.0f, -1.0);
}

// ReRoPE (Su 2023), evaluation only: the rotation between q_i and k_j uses the distance
// D' = min(pos_i - pos_j, w), so distances beyond the window w all look like w. Not a q/k
// transform: q and k stay unrotated and the content-term hook turns the plain logits
// scale * q.k into scale * sum_k [(q_a k_a + q_b k_b) cos(D' theta_k) + (q_a k_b - q_b k_a) sin(D' theta_k)]
// (the rotated score, since R(a_i)q . R(a_j)k depends on a_i - a_j only), from a table of
// cos/sin for D' = 0..w.
typedef struct { int w, K; real *cs; } RerTable; // cs[(D' * K + k) * 2 + {0: cos, 1: sin}]

static void rope_prepare(PosState *ps) {
    if (ps->ext.method != POS_EXT_REROPE) return;
    RerTable *t = xmalloc(sizeof *t);
    t->w = ps->ext.window; // pos_set_ext resolved the default
    t->K = ps->HS / 2;
    t->cs = xmalloc((size_t)(t->w + 1) * t->K * 2 * sizeof(real));
    for (int D = 0; D <= t->w; D++)
        for (int k = 0; k < t->K; k++) {
            double a = D * pow((double)ps->hp[0], -2.0 * k / ps->HS);
            t->cs[((size_t)D * t->K + k) * 2] = (real)cos(a), t->cs[((size_t)D * t->K + k) * 2 + 1] = (real)sin(a);
        }
    ps->cache = t;
}

static void rope_release(PosState *ps) {
    RerTable *t = ps->cache;
    if (t) free(t->cs);
    free(t);
}

static inline const real *rer_row(const RerTable *t, int D) { return t->cs + (size_t)(D < t->w ? (D > 0 ? D : 0) : t->w) * t->K * 2; }

static void rope_term(const PosState *ps, int h, const real *q, const real *K, int kstride, int qpos, const int *kpos, int n,
                      real scale, real *scores) {
    (void)h;
    const RerTable *t = ps->cache;
    if (!t) return; // plain rope: the rotation was done on q and k
    int inter = ps->hp[1] != 0.0f, Kp = t->K;
    for (int j = 0; j < n; j++) {
        const real *k = K + (size_t)j * kstride, *cs = rer_row(t, qpos - kpos[j]);
        real acc = 0, plain = 0;
        for (int p = 0; p < Kp; p++) {
            int a = inter ? 2 * p : p, b = inter ? 2 * p + 1 : p + Kp;
            real even = q[a] * k[a] + q[b] * k[b];
            acc += even * cs[2 * p] + (q[a] * k[b] - q[b] * k[a]) * cs[2 * p + 1];
            plain += even;
        }
        scores[j] += scale * (acc - plain);
    }
}

static void rope_term_backward(const PosState *ps, real *dP, int h, const real *q, const real *K, int kstride, int qpos,
                               const int *kpos, int n, real scale, const real *ds, real *dq, real *dK) {
    (void)dP, (void)h;
    const RerTable *t = ps->cache;
    if (!t) return;
    int inter = ps->hp[1] != 0.0f, Kp = t->K;
    for (int j = 0; j < n; j++) {
        const real *k = K + (size_t)j * kstride, *cs = rer_row(t, qpos - kpos[j]);
        real *dk = dK + (size_t)j * kstride, g = ds[j] * scale;
        for (int p = 0; p < Kp; p++) {
            int a = inter ? 2 * p : p, b = inter ? 2 * p + 1 : p + Kp;
            real c = cs[2 * p] - 1, s = cs[2 * p + 1]; // minus the plain q.k already in the logits
            dq[a] += g * (c * k[a] + s * k[b]), dq[b] += g * (c * k[b] - s * k[a]);
            dk[a] += g * (c * q[a] - s * q[b]), dk[b] += g * (c * q[b] + s * q[a]);
        }
    }
}

const PosScheme pos_rope = {
    .name = "rope",
    .summary = "rotary embedding of q and k in every layer",
    .cite = "Su et al. 2021 (RoFormer), Sec. 3.4",
    .hypers = {{"rope-base", 10000.0f, "base of the rotation frequencies"},
               {"rope-interleaved", 0.0f, "1 = pair (x2k, x2k+1) (RoFormer); 0 = rotate-half (x_k, x_k+HS/2)", 1},
               {NULL, 0, NULL}},
    .relative = 1,
    .ext_methods = (1u << POS_EXT_COUNT) - 2, // every method but none
    .validate = rope_validate,
    .prepare = rope_prepare,
    .release = rope_release,
    .qk_forward = rope_qk_forward,
    .qk_backward = rope_qk_backward,
    .score_forward = rope_term,
    .score_backward = rope_term_backward,
};
