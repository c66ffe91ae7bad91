// xl.c - Transformer-XL relative attention (Dai et al. 2019, "Transformer-XL: Attentive
// Language Models Beyond a Fixed-Length Context", Sec. 3.3), without the segment memory:
//   score(h, i, j) = [ q_i.k_j + u_h.k_j + q_i.r_h(D) + v_h.r_h(D) ] / sqrt(HS),  D = pos_i - pos_j
//   r_h(D) = W_R^h R(D): fixed sinusoids R(D) of dimension dR projected by a learned W_R,
// R(D) = [sin(D f_0) .. sin(D f_{dR/2-1}), cos(D f_0) .. cos(D f_{dR/2-1})], f_m = 10000^(-2m/dR)
// (the authors' code concatenates the sines and the cosines). The model computes q_i.k_j; this
// content term adds the other three. Tensors: w_r (NH HS, dR), one per layer (the paper's
// W_{k,R}^n); u and v (NH, HS), shared by the layers: the paper's u, v carry no layer index,
// and the authors' code (kimiyoung/transformer-xl) unties them per layer only with the
// untie_r option, off by default.
// Init (ours, as the other learned tensors): N(0, 0.02). xl-dim sets dR (0 = d_model).
// Speed: r_h(D) for every head and distance of the pass is tabulated once per attention pass
// (tabulate); its gradient is gathered per distance by the row hooks and turned into W_R's by
// untabulate, one product per pass instead of one per score.
#include "pos.h"

#include <stdlib.h>
#include <string.h>

enum { XL_WR, XL_U, XL_V };

static int xl_dim(const PosState *ps) { return ps->hp[0] > 0 ? (int)ps->hp[0] : ps->C; }

static const char *xl_validate(const PosState *ps, char *err, size_t n) {
    float d = ps->hp[0];
    if (!(d >= 0 && d <= 65536) || d != floorf(d) || ((int)d) % 2)
        snprintf(err, n, "xl-dim must be an even integer in [0, 65536] (0 = d_model), got %g", d);
    else if (xl_dim(ps) % 2) snprintf(err, n, "xl needs an even xl-dim; d_model %d is odd (set xl-dim)", ps->C);
    else return NULL;
    return err;
}

static int xl_tensors(const PosState *ps, PosTensor *t) {
    t[XL_WR] = (PosTensor){"w_r", 2, {(size_t)ps->C, (size_t)xl_dim(ps)}, 1, 0};
    t[XL_U] = (PosTensor){"u", 2, {(size_t)ps->NH, (size_t)ps->HS}, 0, 0};
    t[XL_V] = (PosTensor){"v", 2, {(size_t)ps->NH, (size_t)ps->HS}, 0, 0};
    return 3;
}

static void xl_init(const PosState *ps, int k, real *p, Rng *rng) {
    size_t n = ps->size[k];
    for (size_t i = 0; i < n; i++) p[i] = (real)(0.02 * rng_normal(rng));
}

// cache: R(D) for D < nR (parameter-free), and r_h(D) = W_R^h R(D) for D < n, rows of (NH, cap,
// HS), built from W_R as in snap; nd: the distances the current pass asked for (tabulate's
// ndist), the stride of its table gradient (table_grad), which may be fewer than n
typedef struct {
    int nR, capR, n, cap, nd;
    real *R, *r, *snap;
} XlTab;

static void xl_prepare(PosState *ps) { ps->cache = xcalloc(1, sizeof(XlTab)); }
static void xl_release(PosState *ps) {
    XlTab *t = ps->cache;
    if (t) free(t->R), free(t->r), free(t->snap), free(t);
}

// a table grown to ndist keeps its rows and at least doubles, so that decoding (one more
// distance per token) adds rows instead of rebuilding the table
static int xl_grow(int have, int ndist) { return ndist > 2 * have ? ndist : 2 * have; }

static void xl_tabulate(const PosState *ps, int ndist) {
    XlTab *t = ps->cache;
    int dR = xl_dim(ps), NH = ps->NH, HS = ps->HS, half = dR / 2;
    t->nd = ndist;
    if (ndist > t->capR) {
        t->capR = xl_grow(t->capR, ndist);
        t->R = xrealloc(t->R, (size_t)t->capR * dR * sizeof(real)); // rows D < nR are kept
    }
    if (ndist > t->nR) {
#pragma omp parallel for schedule(static)
        for (int D = t->nR; D < ndist; D++)
            for (int m = 0; m < half; m++) {
                double a = D * pow(10000.0, -2.0 * m / dR);
                t->R[(size_t)D * dR + m] = (real)sin(a), t->R[(size_t)D * dR + half + m] = (real)cos(a);
            }
        t->nR = ndist;
    }
    // the projection is redone when W_R has changed (every training step); with W_R fixed
    // (evaluation, decoding) only the distances not yet projected are added
    const real *W = ps->param[XL_WR];
    size_t nw = (size_t)ps->C * dR * sizeof(real);
    int same = t->snap && !memcmp(t->snap, W, nw), from = same ? t->n : 0;
    if (same && ndist <= t->n) return;
    if (ndist > t->cap) { // (NH, cap, HS): the rows of each head move to the new stride
        int cap = xl_grow(t->cap, ndist);
        real *r = xmalloc((size_t)NH * cap * HS * sizeof(real));
        for (int h = 0; h < NH && from > 0; h++)
            memcpy(r + (size_t)h * cap * HS, t->r + (size_t)h * t->cap * HS, (size_t)from * HS * sizeof(real));
        free(t->r);
        t->r = r, t->cap = cap;
    }
    if (!t->snap) t->snap = xmalloc(nw);
    memcpy(t->snap, W, nw);
#pragma omp parallel for schedule(static) collapse(2)
    for (int h = 0; h < NH; h++)
        for (int D = from; D < ndist; D++)
            for (int e = 0; e < HS; e++) {
                const real *w = W + (size_t)(h * HS + e) * dR, *R = t->R + (size_t)D * dR;
                real s = 0;
                for (int m = 0; m < dR; m++) s += w[m] * R[m];
                t->r[((size_t)h * t->cap + D) * HS + e] = s;
            }
    t->n = ndist;
}

static inline const real *xl_r(const XlTab *t, int h, int D, int HS) {
    if ((unsigned)D >= (unsigned)t->n) die("internal: xl distance %d beyond its table (%d)", D, t->n);
    return t->r + ((size_t)h * t->cap + D) * HS;
}

// scratch: q + v_h (HS floats)
static size_t xl_scratch(const PosState *ps, int n) { return (size_t)ps->HS; }

static void xl_forward(const PosState *ps, int h, const real *q, const real *K, int kstride, int qpos, const int *kpos, int n,
                       real scale, real *scores, real *qv) {
    const XlTab *t = ps->cache;
    int HS = ps->HS;
    const real *u = ps->param[XL_U] + (size_t)h * HS, *v = ps->param[XL_V] + (size_t)h * HS;
    for (int e = 0; e < HS; e++) qv[e] = q[e] + v[e];
    for (int j = 0; j < n; j++) {
        const real *k = K + (size_t)j * kstride, *r = xl_r(t, h, qpos - kpos[j], HS);
        real s = 0;
        for (int e = 0; e < HS; e++) s += u[e] * k[e] + qv[e] * r[e];
        scores[j] += scale * s;
    }
}

static void xl_backward(const PosState *ps, real *const *dparam, int h, const real *q, const real *K, int kstride, int qpos,
                        const int *kpos, int n, real scale, const real *ds, real *dq, real *dK, real *qv) {
    const XlTab *t = ps->cache;
    int HS = ps->HS;
    const real *u = ps->param[XL_U] + (size_t)h * HS, *v = ps->param[XL_V] + (size_t)h * HS;
    real *du = dparam[XL_U] ? dparam[XL_U] + (size_t)h * HS : NULL, *dv = dparam[XL_V] ? dparam[XL_V] + (size_t)h * HS : NULL;
    real *dtab = dparam[ps->ntensors]; // the table's gradient, (NH, nd, HS) (table_grad)
    for (int e = 0; e < HS; e++) qv[e] = q[e] + v[e];
    for (int j = 0; j < n; j++) {
        real g = ds[j] * scale;
        if (g == 0) continue;
        int D = qpos - kpos[j];
        const real *k = K + (size_t)j * kstride, *r = xl_r(t, h, D, HS);
        if (dtab && D >= t->nd) die("internal: xl distance %d beyond the pass's %d", D, t->nd);
        real *dk = dK + (size_t)j * kstride, *dr = dtab ? dtab + ((size_t)h * t->nd + D) * HS : NULL;
        for (int e = 0; e < HS; e++) {
            dq[e] += g * r[e];
            dk[e] += g * u[e];
            if (du) du[e] += g * k[e], dv[e] += g * r[e];
            if (dr) dr[e] += g * qv[e];
        }
    }
}

static size_t xl_table_grad(const PosState *ps, int ndist) { return (size_t)ps->NH * ndist * ps->HS; }

// r_h(D) = W_R^h R(D)  =>  dW_R[h HS + e][m] += sum_D dr_h(D)[e] R(D)[m]
static void xl_untabulate(const PosState *ps, int ndist, const real *dtab, real *const *dparam) {
    const XlTab *t = ps->cache;
    int dR = xl_dim(ps), NH = ps->NH, HS = ps->HS;
    real *dW = dparam[XL_WR];
#pragma omp parallel for schedule(static) collapse(2)
    for (int h = 0; h < NH; h++)
        for (int e = 0; e < HS; e++) {
            real *dw = dW + (size_t)(h * HS + e) * dR;
            for (int D = 0; D < ndist; D++) {
                real g = dtab[((size_t)h * ndist + D) * HS + e];
                if (g == 0) continue;
                const real *R = t->R + (size_t)D * dR;
                for (int m = 0; m < dR; m++) dw[m] += g * R[m];
            }
        }
}

// per layer: q_i . r_h(D) for every head and key (2 HS FLOPs), the three terms summed, scaled and
// added to the score (3), u_h . k_j once per key (2 HS a head: shared by the queries);
// r_h(D) and v_h . r_h(D) are per distance, once per pass
static double xl_flops(const PosState *ps, int T, int L) {
    return (double)L * (2.0 * ps->C * T + 3.0 * ps->NH * T + 2.0 * ps->C);
}

const PosScheme pos_xl = {
    .name = "xl",
    .summary = "Transformer-XL relative attention: sinusoids of the distance through a learned W_R, global u and v",
    .cite = "Dai et al. 2019 (Transformer-XL), Sec. 3.3",
    .hypers = {{"xl-dim", 0.0f, "dimension of the sinusoids R(D) (even; 0 = d_model)", 1}, {NULL, 0, NULL}},
    .relative = 1,
    .tensors = xl_tensors,
    .init = xl_init,
    .validate = xl_validate,
    .prepare = xl_prepare,
    .release = xl_release,
    .tabulate = xl_tabulate,
    .table_grad = xl_table_grad,
    .untabulate = xl_untabulate,
    .score_forward = xl_forward,
    .score_backward = xl_backward,
    .scratch_size = xl_scratch,
    .flops = xl_flops,
};
