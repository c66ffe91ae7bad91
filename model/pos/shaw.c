// shaw.c - relative position representations (Shaw et al. 2018, "Self-Attention with
// Relative Position Representations", Sec. 3): learned vectors per clipped distance, added to
// the keys and to the values,
//   score(h, i, j) = q_i . (k_j + a^K(D)) / sqrt(HS),   out_i = sum_j p_ij (v_j + a^V(D)),
//   D = min(pos_i - pos_j, k)  (causal: distances are >= 0, so k + 1 vectors each),
// k = shaw-clip. The model computes q_i.k_j and p_ij v_j; the content term adds
// q_i.a^K(D) / sqrt(HS) and the value term adds sum_j p_ij a^V(D). Tensors: key and value
// (k + 1, HS), shared by the heads (Sec. 3.1) and one pair per layer, as the authors'
// tensor2tensor code has them (common_attention.py: one "embeddings" table of (2k + 1, depth)
// per attention layer's variable scope). Init (ours, as the other learned tables): N(0, 0.02).
// Speed: a row's term needs q . a^K(D) for the k + 1 distances only, so those are computed once
// per row; the value term gathers the weights per distance first, then adds k + 1 vectors.
#include "pos.h"

#include <stdlib.h>

#define SHAW_MAX_CLIP 4096
#define SHAW_PER_LAYER 1
enum { SHAW_KEY, SHAW_VALUE };

static int shaw_clip(const PosState *ps) { return (int)ps->hp[0]; }

static const char *shaw_validate(const PosState *ps, char *err, size_t n) {
    float k = ps->hp[0];
    if (!(k >= 1 && k <= SHAW_MAX_CLIP) || k != floorf(k))
        snprintf(err, n, "shaw-clip must be an integer in [1, %d], got %g", SHAW_MAX_CLIP, k);
    else return NULL;
    return err;
}

static int shaw_tensors(const PosState *ps, PosTensor *t) {
    size_t rows = (size_t)shaw_clip(ps) + 1;
    t[SHAW_KEY] = (PosTensor){"key", 2, {rows, (size_t)ps->HS}, SHAW_PER_LAYER, 0};
    t[SHAW_VALUE] = (PosTensor){"value", 2, {rows, (size_t)ps->HS}, SHAW_PER_LAYER, 0};
    return 2;
}

static void shaw_init(const PosState *ps, int k, real *p, Rng *rng) {
    for (size_t i = 0; i < ps->size[k]; i++) p[i] = (real)(0.02 * rng_normal(rng));
}

static inline int clipd(int D, int k) { return D < k ? (D > 0 ? D : 0) : k; }

// the largest clipped distance of a row
static int row_top(int k, int qpos, const int *kpos, int n) {
    int top = 0;
    for (int j = 0; j < n && top < k; j++) {
        int d = clipd(qpos - kpos[j], k);
        top = d > top ? d : top;
    }
    return top;
}

// scratch: z (k + 1) for the scores' dot products, or the value term's per-distance sums
static size_t shaw_scratch(const PosState *ps, int n) { return (size_t)shaw_clip(ps) + 1; }

// z[d] = q . a^K(d) for d = 0..min(k, farthest distance of the row)
static int key_dots(const PosState *ps, const real *q, int qpos, const int *kpos, int n, real *z) {
    int k = shaw_clip(ps), HS = ps->HS, top = row_top(k, qpos, kpos, n);
    const real *A = ps->param[SHAW_KEY];
    for (int d = 0; d <= top; d++) {
        real s = 0;
        for (int e = 0; e < HS; e++) s += q[e] * A[(size_t)d * HS + e];
        z[d] = s;
    }
    return top;
}

static void shaw_score(const PosState *ps, int h, const real *q, const real *K, int kstride, int qpos, const int *kpos, int n,
                       real scale, real *scores, real *z) {
    (void)h, (void)K, (void)kstride;
    int k = shaw_clip(ps);
    key_dots(ps, q, qpos, kpos, n, z);
    for (int j = 0; j < n; j++) scores[j] += scale * z[clipd(qpos - kpos[j], k)];
}

static void shaw_score_backward(const PosState *ps, real *const *dparam, int h, const real *q, const real *K, int kstride,
                                int qpos, const int *kpos, int n, real scale, const real *ds, real *dq, real *dK, real *dz) {
    (void)h, (void)K, (void)kstride, (void)dK; // the term has no key in it
    int k = shaw_clip(ps), HS = ps->HS, top = row_top(k, qpos, kpos, n);
    for (int d = 0; d <= top; d++) dz[d] = 0;
    for (int j = 0; j < n; j++) dz[clipd(qpos - kpos[j], k)] += ds[j] * scale;
    const real *A = ps->param[SHAW_KEY];
    real *dA = dparam[SHAW_KEY];
    for (int d = 0; d <= top; d++) {
        if (dz[d] == 0) continue;
        for (int e = 0; e < HS; e++) {
            dq[e] += dz[d] * A[(size_t)d * HS + e];
            if (dA) dA[(size_t)d * HS + e] += dz[d] * q[e];
        }
    }
}

// w[d] = sum of the row's weights at clipped distance d, for d = 0..top (row_top)
static void value_weights(int k, int top, int qpos, const int *kpos, int n, const real *probs, real *w) {
    for (int d = 0; d <= top; d++) w[d] = 0;
    for (int j = 0; j < n; j++) w[clipd(qpos - kpos[j], k)] += probs[j];
}

static void shaw_value(const PosState *ps, int h, int qpos, const int *kpos, int n, const real *probs, real *out) {
    (void)h;
    int k = shaw_clip(ps), HS = ps->HS;
    real w[SHAW_MAX_CLIP + 1];
    int top = row_top(k, qpos, kpos, n);
    value_weights(k, top, qpos, kpos, n, probs, w);
    const real *A = ps->param[SHAW_VALUE];
    for (int d = 0; d <= top; d++)
        for (int e = 0; e < HS; e++) out[e] += w[d] * A[(size_t)d * HS + e];
}

static void shaw_value_backward(const PosState *ps, real *const *dparam, int h, int qpos, const int *kpos, int n,
                                const real *probs, const real *dout, real *dprobs) {
    (void)h;
    int k = shaw_clip(ps), HS = ps->HS, top = row_top(k, qpos, kpos, n);
    const real *A = ps->param[SHAW_VALUE];
    real *dA = dparam[SHAW_VALUE], g[SHAW_MAX_CLIP + 1];
    for (int d = 0; d <= top; d++) { // g[d] = dout . a^V(d)
        real s = 0;
        for (int e = 0; e < HS; e++) s += dout[e] * A[(size_t)d * HS + e];
        g[d] = s;
    }
    for (int j = 0; j < n; j++) dprobs[j] += g[clipd(qpos - kpos[j], k)];
    if (!dA) return;
    real w[SHAW_MAX_CLIP + 1];
    value_weights(k, top, qpos, kpos, n, probs, w);
    for (int d = 0; d <= top; d++)
        for (int e = 0; e < HS; e++) dA[(size_t)d * HS + e] += w[d] * dout[e];
}

// per layer: q . a^K(D) for the min(k, T - 1) + 1 distances a window has (2 HS FLOPs each, per
// head), added to each score (1); the attention weights summed per distance (1 per score) and
// the value vectors a^V(D) weighted by them (2 HS each, per head)
static double shaw_flops(const PosState *ps, int T, int L) {
    int nd = (shaw_clip(ps) < T - 1 ? shaw_clip(ps) : T - 1) + 1;
    return (double)L * (4.0 * ps->C * nd + 2.0 * ps->NH * T);
}

const PosScheme pos_shaw = {
    .name = "shaw",
    .summary = "learned vectors per clipped distance added to the keys and to the values",
    .cite = "Shaw et al. 2018, Sec. 3",
    .hypers = {{"shaw-clip", 16.0f, "clipping distance k: distances beyond k share the last vectors", 1}, {NULL, 0, NULL}},
    .relative = 1,
    .tensors = shaw_tensors,
    .init = shaw_init,
    .validate = shaw_validate,
    .score_forward = shaw_score,
    .score_backward = shaw_score_backward,
    .scratch_size = shaw_scratch,
    .value_forward = shaw_value,
    .value_backward = shaw_value_backward,
    .flops = shaw_flops,
};
