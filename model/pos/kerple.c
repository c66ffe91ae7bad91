// kerple.c - KERPLE, kernelized relative position biases (Chi et al. 2022, "KERPLE:
// Kernelized Relative Positional Embedding for Length Extrapolation", Sec. 4):
//   kerple-log:   b(h, D) = -r1_h * log(1 + r2_h * D)
//   kerple-power: b(h, D) = -r1_h * D^r2_h,  0 < r2_h <= 2
// D = pos_i - pos_j >= 0, learned r1_h, r2_h per head, shared by the layers as in the authors'
// code (chijames/KERPLE, megatron/model/gpt2_model.py: init_specs builds one ParallelKerpleLog
// or ParallelKerplePower and hands the same module to every transformer layer as its rpe).
// pos-sharing layer gives each layer its own pair. After every optimizer step they are clamped to
// [0.01, inf) (power: r2 to [0.01, 2]), the paper's constraint. Init as the authors' code:
// r1 ~ U(0, 2), r2 ~ U(0, 1), then clamped. Parameters laid out (r1[NH], r2[NH]).
// Speed: the transcendental part of each bias, log(1 + r2 D) or D^r2 (and ln D for the
// power kernel's gradient), depends only on the head and the distance, so it is tabulated
// per head for D < ndist before each attention pass (the tabulate hook) instead of being
// computed once per score; the table holds the same values the direct formula gives, so
// results are unchanged. The table is rebuilt only when the parameters or ndist change.
#include "pos.h"

#include <stdlib.h>
#include <string.h>

#define KERPLE_EPS 0.01
#define KERPLE_PER_LAYER 0 // shared: see above

// one tensor r (2, NH): rows r1 and r2
static int kerple_tensors(const PosState *ps, PosTensor *t) {
    t[0] = (PosTensor){"r", 2, {2, (size_t)ps->NH}, KERPLE_PER_LAYER, 0};
    return 1;
}

static void kerple_init(const PosState *ps, int k, real *P, Rng *rng) {
    for (int h = 0; h < ps->NH; h++) {
        P[h] = (real)(2.0 * rng_uniform(rng));
        P[ps->NH + h] = (real)rng_uniform(rng);
    }
}

static void clamp_range(real *x, int n, double lo, double hi) {
    for (int i = 0; i < n; i++) x[i] = x[i] < lo ? (real)lo : x[i] > hi ? (real)hi : x[i];
}
static void kerple_log_constrain(const PosState *ps) { clamp_range(ps->param[0], 2 * ps->NH, KERPLE_EPS, 1e30); }
static void kerple_power_constrain(const PosState *ps) {
    real *P = ps->param[0];
    clamp_range(P, ps->NH, KERPLE_EPS, 1e30);
    clamp_range(P + ps->NH, ps->NH, KERPLE_EPS, 2.0);
}

// ps->cache: the table and the parameters and length it was built for
typedef struct {
    int n, cap;       // distances 0..n-1 tabulated; room for cap
    real *snap;       // r1[NH], r2[NH] at the last build
    real *f, *logd;   // f[h * cap + D]: log1p(r2 D) or D^r2; logd[D < cap] = ln D (power only)
} KerpleTab;

static void kerple_prepare(PosState *ps) { ps->cache = xcalloc(1, sizeof(KerpleTab)); }
static void kerple_release(PosState *ps) {
    KerpleTab *t = ps->cache;
    if (t) free(t->snap), free(t->f), free(t->logd), free(t);
}

static real log_kernel(real r2, int D) { return log1p(r2 * (real)D); }
static real power_kernel(real r2, int D) { return pow((real)D, r2); }

static void kerple_tabulate(const PosState *ps, int ndist, real (*kernel)(real, int), int with_log) {
    KerpleTab *t = ps->cache;
    int NH = ps->NH;
    size_t np = 2 * (size_t)NH * sizeof(real);
    if (ndist <= t->n && !memcmp(t->snap, ps->param[0], np)) return;
    if (ndist > t->cap) {
        free(t->f), free(t->logd);
        t->cap = ndist;
        t->f = xmalloc((size_t)NH * ndist * sizeof(real));
        t->logd = with_log ? xmalloc((size_t)ndist * sizeof(real)) : NULL;
        t->n = 0;
        for (int D = 0; with_log && D < ndist; D++) t->logd[D] = log((real)D); // no parameters: once per size
    }
    if (!t->snap) t->snap = xmalloc(np);
    memcpy(t->snap, ps->param[0], np);
    int cap = t->cap;
#pragma omp parallel for schedule(static)
    for (int D = 0; D < ndist; D++)
        for (int h = 0; h < NH; h++) t->f[(size_t)h * cap + D] = kernel(ps->param[0][NH + h], D);
    t->n = ndist;
}
static void log_tabulate(const PosState *ps, int ndist) { kerple_tabulate(ps, ndist, log_kernel, 0); }
static void power_tabulate(const PosState *ps, int ndist) { kerple_tabulate(ps, ndist, power_kernel, 1); }

// the tabulated kernel of head h at distance D, or the direct formula outside the table
static inline real kernel_at(const KerpleTab *t, int h, int D, real r2, real (*kernel)(real, int)) {
    return (unsigned)D < (unsigned)t->n ? t->f[(size_t)h * t->cap + D] : kernel(r2, D);
}

static void log_bias_forward(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores) {
    const KerpleTab *t = ps->cache;
    real r1 = ps->param[0][h], r2 = ps->param[0][ps->NH + h];
    for (int j = 0; j < n; j++) scores[j] -= r1 * kernel_at(t, h, qpos - kpos[j], r2, log_kernel);
}

static void log_bias_backward(const PosState *ps, real *const *dparam, int h, int qpos, const int *kpos, int n,
                              const real *ds) {
    // b = -r1 log(1 + r2 D): db/dr1 = -log(1 + r2 D), db/dr2 = -r1 D / (1 + r2 D)
    const KerpleTab *t = ps->cache;
    real r1 = ps->param[0][h], r2 = ps->param[0][ps->NH + h], g1 = 0, g2 = 0;
    for (int j = 0; j < n; j++) {
        real D = (real)(qpos - kpos[j]);
        g1 -= ds[j] * kernel_at(t, h, qpos - kpos[j], r2, log_kernel);
        g2 -= ds[j] * r1 * D / (1 + r2 * D);
    }
    dparam[0][h] += g1;
    dparam[0][ps->NH + h] += g2;
}

static void power_bias_forward(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores) {
    const KerpleTab *t = ps->cache;
    real r1 = ps->param[0][h], r2 = ps->param[0][ps->NH + h];
    for (int j = 0; j < n; j++) scores[j] -= r1 * kernel_at(t, h, qpos - kpos[j], r2, power_kernel);
}

static void power_bias_backward(const PosState *ps, real *const *dparam, int h, int qpos, const int *kpos, int n,
                              const real *ds) {
    // b = -r1 D^r2: db/dr1 = -D^r2, db/dr2 = -r1 D^r2 ln D (0 at D = 0)
    const KerpleTab *t = ps->cache;
    real r1 = ps->param[0][h], r2 = ps->param[0][ps->NH + h], g1 = 0, g2 = 0;
    for (int j = 0; j < n; j++) {
        int D = qpos - kpos[j];
        if (D <= 0) continue;
        real p = kernel_at(t, h, D, r2, power_kernel);
        real lnD = D < t->n ? t->logd[D] : log((real)D);
        g1 -= ds[j] * p;
        g2 -= ds[j] * r1 * p * lnD;
    }
    dparam[0][h] += g1;
    dparam[0][ps->NH + h] += g2;
}

// per score: r1 times the tabulated kernel, subtracted (2 FLOPs)
static double kerple_flops(const PosState *ps, int T, int L) { return 2.0 * L * ps->NH * T; }

const PosScheme pos_kerple_log = {
    .name = "kerple-log",
    .summary = "learned logarithmic distance penalty -r1*log(1+r2*D) per head",
    .cite = "Chi et al. 2022 (KERPLE), Sec. 4",
    .hypers = {{NULL, 0, NULL}},
    .relative = 1,
    .tensors = kerple_tensors,
    .init = kerple_init,
    .constrain = kerple_log_constrain,
    .prepare = kerple_prepare,
    .release = kerple_release,
    .tabulate = log_tabulate,
    .bias_forward = log_bias_forward,
    .bias_backward = log_bias_backward,
    .flops = kerple_flops,
};

const PosScheme pos_kerple_power = {
    .name = "kerple-power",
    .summary = "learned power distance penalty -r1*D^r2 per head (0 < r2 <= 2)",
    .cite = "Chi et al. 2022 (KERPLE), Sec. 4",
    .hypers = {{NULL, 0, NULL}},
    .relative = 1,
    .tensors = kerple_tensors,
    .init = kerple_init,
    .constrain = kerple_power_constrain,
    .prepare = kerple_prepare,
    .release = kerple_release,
    .tabulate = power_tabulate,
    .bias_forward = power_bias_forward,
    .bias_backward = power_bias_backward,
    .flops = kerple_flops,
};
