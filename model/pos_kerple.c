// pos_kerple.c - KERPLE, kernelized relative position biases (Chi et al. 2022, "KERPLE:
// Kernelized Relative Positional Embedding for Length Extrapolation", Sec. 4):
//   kerple-log:   b(h, D) = -r1_h * log(1 + r2_h * D)
//   kerple-power: b(h, D) = -r1_h * D^r2_h,  0 < r2_h <= 2
// D = pos_i - pos_j >= 0, learned r1_h, r2_h per head, shared by the layers (as posgpt's T5
// table; the paper learns them per layer). After every optimizer step they are clamped to
// [0.01, inf) (power: r2 to [0.01, 2]), the paper's constraint. Init as the authors' code:
// r1 ~ U(0, 2), r2 ~ U(0, 1), then clamped. Parameters laid out (r1[NH], r2[NH]).
#include "pos.h"

#define KERPLE_EPS 0.01

static size_t kerple_num_params(const PosState *ps) { return 2 * (size_t)ps->NH; }

static void kerple_init(const PosState *ps, real *P, Rng *rng) {
    for (int h = 0; h < ps->NH; h++) {
        P[h] = (real)(2.0 * rng_uniform(rng));
        P[ps->NH + h] = (real)rng_uniform(rng);
    }
}

static void clamp_range(real *x, int n, double lo, double hi) {
    for (int i = 0; i < n; i++) x[i] = x[i] < lo ? (real)lo : x[i] > hi ? (real)hi : x[i];
}
static void kerple_log_constrain(const PosState *ps, real *P) { clamp_range(P, 2 * ps->NH, KERPLE_EPS, 1e30); }
static void kerple_power_constrain(const PosState *ps, real *P) {
    clamp_range(P, ps->NH, KERPLE_EPS, 1e30);
    clamp_range(P + ps->NH, ps->NH, KERPLE_EPS, 2.0);
}

static void log_bias_forward(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores) {
    real r1 = ps->params[h], r2 = ps->params[ps->NH + h];
    for (int j = 0; j < n; j++) scores[j] -= r1 * log1p(r2 * (real)(qpos - kpos[j]));
}

static void log_bias_backward(const PosState *ps, real *dP, int h, int qpos, const int *kpos, int n, const real *ds) {
    // b = -r1 log(1 + r2 D): db/dr1 = -log(1 + r2 D), db/dr2 = -r1 D / (1 + r2 D)
    real r1 = ps->params[h], r2 = ps->params[ps->NH + h], g1 = 0, g2 = 0;
    for (int j = 0; j < n; j++) {
        real D = (real)(qpos - kpos[j]);
        g1 -= ds[j] * log1p(r2 * D);
        g2 -= ds[j] * r1 * D / (1 + r2 * D);
    }
    dP[h] += g1;
    dP[ps->NH + h] += g2;
}

static void power_bias_forward(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores) {
    real r1 = ps->params[h], r2 = ps->params[ps->NH + h];
    for (int j = 0; j < n; j++) scores[j] -= r1 * pow((real)(qpos - kpos[j]), r2);
}

static void power_bias_backward(const PosState *ps, real *dP, int h, int qpos, const int *kpos, int n, const real *ds) {
    // b = -r1 D^r2: db/dr1 = -D^r2, db/dr2 = -r1 D^r2 ln D (0 at D = 0)
    real r1 = ps->params[h], r2 = ps->params[ps->NH + h], g1 = 0, g2 = 0;
    for (int j = 0; j < n; j++) {
        int D = qpos - kpos[j];
        if (D <= 0) continue;
        real p = pow((real)D, r2);
        g1 -= ds[j] * p;
        g2 -= ds[j] * r1 * p * log((real)D);
    }
    dP[h] += g1;
    dP[ps->NH + h] += g2;
}

const PosScheme pos_kerple_log = {
    .name = "kerple-log",
    .summary = "learned logarithmic distance penalty -r1*log(1+r2*D) per head",
    .cite = "Chi et al. 2022 (KERPLE), Sec. 4",
    .hypers = {{NULL, 0, NULL}},
    .relative = 1,
    .num_params = kerple_num_params,
    .init = kerple_init,
    .constrain = kerple_log_constrain,
    .bias_forward = log_bias_forward,
    .bias_backward = log_bias_backward,
};

const PosScheme pos_kerple_power = {
    .name = "kerple-power",
    .summary = "learned power distance penalty -r1*D^r2 per head (0 < r2 <= 2)",
    .cite = "Chi et al. 2022 (KERPLE), Sec. 4",
    .hypers = {{NULL, 0, NULL}},
    .relative = 1,
    .num_params = kerple_num_params,
    .init = kerple_init,
    .constrain = kerple_power_constrain,
    .bias_forward = power_bias_forward,
    .bias_backward = power_bias_backward,
};
