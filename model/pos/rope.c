// rope.c - rotary position embedding (Su et al. 2021, "RoFormer", Sec. 3.4.2): rotate
// each pair of q and k channels of every head, every layer, by pos * theta_k with
// theta_k = base^(-2k/HS), k = 0..HS/2-1. Then q_m . k_n depends only on m - n.
// Pairing: rotate-half (x_k, x_{k+HS/2}) by default (GPT-NeoX); rope-interleaved 1
// pairs (x_{2k}, x_{2k+1}) (RoFormer). The two give the same scores up to a fixed
// permutation of head channels; never mix them between training and evaluation.
// A rotation is orthogonal, so the backward is the rotation by -pos * theta_k.
// The rotation and the context extensions are the rotary family's (rotary.c, shared with
// xpos.c); ReRoPE's scores are built here.
#include "rotary.h"

#include <stdlib.h>
#include <string.h>

static const char *rope_validate(const PosState *ps, char *err, size_t n) {
    if (ps->HS % 2) snprintf(err, n, "rope needs an even head size; d_model/heads = %d/%d = %d is odd", ps->C, ps->NH, ps->HS);
    else if (!(ps->hp[0] > 1.0f && ps->hp[0] < 1e30f)) snprintf(err, n, "rope-base must be > 1, got %g", ps->hp[0]);
    else if (ps->hp[1] != 0.0f && ps->hp[1] != 1.0f) snprintf(err, n, "rope-interleaved must be 0 or 1, got %g", ps->hp[1]);
    else return NULL;
    return err;
}

static void rope_qk_forward(const PosState *ps, real *v, const int *pos, int B, int T, int stride, int is_key) {
    if (rotary_ext(ps)->method == ROT_REROPE) return; // scores built from distances by rope_term
    rotary_apply(ps, v, pos, B, T, stride, ps->hp[0], ps->hp[1] != 0.0f, 1.0);
}

static void rope_qk_backward(const PosState *ps, real *dv, const int *pos, int B, int T, int stride, int is_key) {
    // forward: x' = m R(pos*theta) x  =>  dx = m R(pos*theta)^T dx' = m R(-pos*theta) dx'
    if (rotary_ext(ps)->method == ROT_REROPE) return;
    rotary_apply(ps, dv, pos, B, T, stride, ps->hp[0], ps->hp[1] != 0.0f, -1.0);
}

// ReRoPE (Su 2023), evaluation only: the rotation between q_i and k_j uses the distance
// D' = min(pos_i - pos_j, w), so distances beyond the window w all look like w. Not a q/k
// transform: q and k stay unrotated and the content-term hook turns the plain logits
// scale * q.k into scale * sum_k [(q_a k_a + q_b k_b) cos(D' theta_k) + (q_a k_b - q_b k_a) sin(D' theta_k)]
// (the rotated score, since R(a_i)q . R(a_j)k depends on a_i - a_j only), from a table of
// cos/sin for D' = 0..w.
typedef struct { int w, K; real *cs; } RerTable; // cs[(D' * K + k) * 2 + {0: cos, 1: sin}]

static void rer_free(RotaryExt *x) {
    RerTable *t = x->extra;
    if (t) free(t->cs);
    free(t);
    x->extra = NULL;
}

static void rope_release(PosState *ps) {
    if (ps->cache) rer_free(ps->cache);
    rotary_release(ps);
}

// the rotary family's extension; ReRoPE also gets its table of cos/sin for D' = 0..w
static const char *rope_extend(PosState *ps, const PosExtension *e, char *err, size_t n) {
    RotaryExt *x = ps->cache;
    rer_free(x);
    if (rotary_extend(ps, e, err, n)) return err;
    if (x->method != ROT_REROPE) return NULL;
    RerTable *t = xmalloc(sizeof *t);
    t->w = x->window;
    t->K = ps->HS / 2;
    t->cs = xmalloc((size_t)(t->w + 1) * t->K * 2 * sizeof(real));
    for (int D = 0; D <= t->w; D++)
        for (int k = 0; k < t->K; k++) {
            double a = D * pow((double)ps->hp[0], -2.0 * k / ps->HS);
            t->cs[((size_t)D * t->K + k) * 2] = (real)cos(a), t->cs[((size_t)D * t->K + k) * 2 + 1] = (real)sin(a);
        }
    x->extra = t;
    return NULL;
}

static inline const real *rer_row(const RerTable *t, int D) { return t->cs + (size_t)(D < t->w ? (D > 0 ? D : 0) : t->w) * t->K * 2; }

static void rope_term(const PosState *ps, int h, const real *q, const real *K, int kstride, int qpos, const int *kpos, int n,
                      real scale, real *scores, real *scratch) {
    (void)h, (void)scratch;
    const RerTable *t = rotary_ext(ps)->extra;
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

static void rope_term_backward(const PosState *ps, real *const *dparam, int h, const real *q, const real *K, int kstride,
                               int qpos, const int *kpos, int n, real scale, const real *ds, real *dq, real *dK,
                               real *scratch) {
    (void)h, (void)scratch;
    const RerTable *t = rotary_ext(ps)->extra;
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

// q and k rotated in every layer: 6 FLOPs a channel pair (4 multiplies, 2 adds), C / 2 pairs
// each (training; ReRoPE's score term is an evaluation-time extension)
static double rope_flops(const PosState *ps, int T, int L) { return (void)T, 6.0 * L * ps->C; }

const PosScheme pos_rope = {
    .name = "rope",
    .summary = "rotary embedding of q and k in every layer",
    .cite = "Su et al. 2021 (RoFormer), Sec. 3.4",
    .hypers = {{"rope-base", 10000.0f, "base of the rotation frequencies"},
               {"rope-interleaved", 0.0f, "1 = pair (x2k, x2k+1) (RoFormer); 0 = rotate-half (x_k, x_k+HS/2)", 1},
               {NULL, 0, NULL}},
    .relative = 1,
    .validate = rope_validate,
    .prepare = rotary_prepare,
    .release = rope_release,
    .extensions = ROTARY_EXTENSIONS,
    .extend = rope_extend,
    .extension_value = rotary_extension_value,
    .qk_forward = rope_qk_forward,
    .qk_backward = rope_qk_backward,
    .score_forward = rope_term,
    .score_backward = rope_term_backward,
    .flops = rope_flops,
};
