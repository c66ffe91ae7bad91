// cope.c - CoPE, contextual position encoding (Golovneva et al. 2024, "Contextual
// Position Encoding: Learning to Count What's Important", Sec. 3). For query i and key j <= i:
//   gate  g_ij = sigmoid(a_ij),  a_ij = q_i . k_j / sqrt(HS)   (the attention logit)
//   position p_ij = sum_{t=j}^{i} g_it                          (fractional, counts "open" gates)
//   logit += (1 - w) z_i[floor p] + w z_i[ceil p],  w = p - floor p,  z_i[m] = q_i . e[m]
// p is clamped to npos - 1 (cope-npos). The position embeddings e (npos, HS) are learned, shared
// by heads (as in the paper), one table per layer (the paper's code builds a CoPE module in
// each attention layer; pos-sharing shared gives one table for all), initialised to
// zero as in the paper. The term depends only on contents, never on token indices, so CoPE is
// unchanged by shifted positions.
#include "pos.h"

#include <stdlib.h>

static int cope_npos(const PosState *ps) { return (int)ps->hp[0]; }

// the embeddings e (npos, HS), one table per layer as in the paper's code
static int cope_tensors(const PosState *ps, PosTensor *t) {
    t[0] = (PosTensor){"emb", 2, {(size_t)cope_npos(ps), (size_t)ps->HS}, 1, 0};
    return 1;
}

// floats of scratch for a row of n keys: the larger of forward's and backward's needs
static size_t cope_scratch(const PosState *ps, int n) { return (size_t)4 * n + 2 * (size_t)cope_npos(ps); }

static const char *cope_validate(const PosState *ps, char *err, size_t n) {
    float v = ps->hp[0];
    if (!(v >= 2 && v <= 65536) || v != floorf(v)) snprintf(err, n, "cope-npos must be an integer in [2, 65536], got %g", v);
    else return NULL;
    return err;
}

static real dotv(const real *a, const real *b, int n) {
    real s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

// out[r] = q . rows[r] for r < nr, rows `stride` apart: COPE_RB dot products at a time,
// vectorized across rows; each one still adds its terms in the order of dotv (a single
// dot product is a chain of dependent adds that does not vectorize)
#define COPE_RB 16
static void dots(real *out, const real *q, const real *rows, size_t stride, int nr, int HS) {
    int r0 = 0;
    for (; r0 + COPE_RB <= nr; r0 += COPE_RB) {
        real acc[COPE_RB] = {0};
        for (int i = 0; i < HS; i++)
            for (int r = 0; r < COPE_RB; r++) acc[r] += q[i] * rows[(size_t)(r0 + r) * stride + i];
        for (int r = 0; r < COPE_RB; r++) out[r0 + r] = acc[r];
    }
    for (; r0 < nr; r0++) out[r0] = dotv(q, rows + (size_t)r0 * stride, HS);
}

// p[j] = clamp(sum_{t>=j} sigmoid(a_t)), g[j] = sigmoid(a_j), z[m] = q . e[m]
static void cope_positions(const PosState *ps, const real *q, const real *a, int n, real *g, real *p, real *z) {
    int np = cope_npos(ps), HS = ps->HS;
    real acc = 0, top = (real)(np - 1);
    for (int j = 0; j < n; j++) g[j] = 1 / (1 + exp(-a[j])); // apart from the sum: vectorizes
    for (int j = n - 1; j >= 0; j--) {
        acc += g[j];
        p[j] = acc < top ? acc : top;
    }
    int mmax = (int)ceil(p[0]); // p is largest at j = 0
    dots(z, q, ps->param[0], HS, mmax + 1, HS);
}

static void cope_forward(const PosState *ps, int h, const real *q, const real *K, int kstride, int qpos, const int *kpos, int n,
                         real scale, real *scores, real *scratch) {
    (void)h, (void)K, (void)kstride, (void)scale, (void)qpos, (void)kpos; // the gates read the logits in scores
    real *g = scratch, *p = g + n, *z = p + n; // 2n + npos floats
    cope_positions(ps, q, scores, n, g, p, z);
    for (int j = 0; j < n; j++) {
        int f = (int)floor(p[j]), c = (int)ceil(p[j]);
        real w = p[j] - (real)f;
        scores[j] += (1 - w) * z[f] + w * z[c];
    }
}

static void cope_backward(const PosState *ps, real *const *dparam, int h, const real *q, const real *K, int kstride,
                          int qpos, const int *kpos, int n, real scale, const real *ds, real *dq, real *dK, real *scratch) {
    (void)h, (void)qpos, (void)kpos;
    int np = cope_npos(ps), HS = ps->HS;
    real *a = scratch, // 4n + 2 npos floats
          *g = a + n, *p = g + n, *dp = p + n, *z = dp + n, *dz = z + np;
    dots(a, q, K, kstride, n, HS);
    for (int j = 0; j < n; j++) a[j] = scale * a[j]; // the logits the gates saw
    cope_positions(ps, q, a, n, g, p, z);
    int mmax = (int)ceil(p[0]);
    for (int m = 0; m <= mmax; m++) dz[m] = 0;
    real top = (real)(np - 1);
    for (int j = 0; j < n; j++) {
        int f = (int)floor(p[j]), c = (int)ceil(p[j]);
        real w = p[j] - (real)f;
        dz[f] += ds[j] * (1 - w);
        dz[c] += ds[j] * w;
        // d(term)/dp = z[c] - z[f]; zero where p was clamped
        dp[j] = p[j] < top ? ds[j] * (z[c] - z[f]) : 0;
    }
    // p_j = sum_{t >= j} g_t  =>  dg_t = sum_{j <= t} dp_j; a_t = scale q.k_t
    real run = 0;
    for (int t = 0; t < n; t++) {
        run += dp[t];
        real da = run * g[t] * (1 - g[t]) * scale;
        if (da == 0) continue;
        const real *k = K + (size_t)t * kstride;
        real *dk = dK + (size_t)t * kstride;
        for (int i = 0; i < HS; i++) dq[i] += da * k[i], dk[i] += da * q[i];
    }
    // z[m] = q . e[m]
    for (int m = 0; m <= mmax; m++) {
        if (dz[m] == 0) continue;
        const real *e = ps->param[0] + (size_t)m * HS;
        real *de = dparam[0] + (size_t)m * HS;
        for (int i = 0; i < HS; i++) dq[i] += dz[m] * e[i], de[i] += dz[m] * q[i];
    }
}

// per layer and head: per key the gate's sigmoid (3 FLOPs: exp, add, divide), the running sum
// (1), the interpolation between two z (5) and the add to the score (1); z = q . e[m] for the
// min(npos, T) embeddings a window can reach (2 HS each)
static double cope_flops(const PosState *ps, int T, int L) {
    int nz = cope_npos(ps) < T ? cope_npos(ps) : T;
    return (double)L * (10.0 * ps->NH * T + 2.0 * ps->C * nz);
}

const PosScheme pos_cope = {
    .name = "cope",
    .summary = "contextual positions: sigmoid gates counted back from the query, interpolated embeddings",
    .cite = "Golovneva et al. 2024 (CoPE), Sec. 3",
    .hypers = {{"cope-npos", 128.0f, "number of position embeddings (positions are clamped to npos - 1)", 1},
               {NULL, 0, NULL}},
    .relative = 1, // depends on contents only
    .tensors = cope_tensors,
    .scratch_size = cope_scratch,
    .validate = cope_validate,
    .score_forward = cope_forward,
    .score_backward = cope_backward,
    .flops = cope_flops,
};
