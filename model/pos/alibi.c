// alibi.c - Attention with Linear Biases (Press et al. 2022, "Train Short, Test Long",
// Sec. 3): score(h, i, j) += -m_h * (pos_i - pos_j), not scaled by 1/sqrt(HS). The slopes
// m_h are fixed (alibi_slopes below, including the rule for head counts that are not
// powers of two). No parameters.
#include "schemes.h"

#include <stdlib.h>

void alibi_slopes(int H, double *slopes) {
    // Press et al. 2022, Sec. 3: for H a power of two, geometric sequence starting at
    // 2^(-8/H) with that ratio. Otherwise: the slopes of the largest power of two P < H,
    // then every other slope of the 2P sequence until H are chosen.
    int P = 1;
    while (P * 2 <= H) P *= 2;
    for (int h = 0; h < P; h++) slopes[h] = pow(2.0, -8.0 * (h + 1) / P);
    for (int k = 0; P + k < H; k++) slopes[P + k] = pow(2.0, -8.0 * (2 * k + 1) / (2 * P));
}

static void alibi_prepare(PosState *ps) {
    double *m = xmalloc((size_t)ps->NH * sizeof(double));
    alibi_slopes(ps->NH, m);
    ps->cache = m;
}

static void alibi_release(PosState *ps) { free(ps->cache); }

static void alibi_bias_forward(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores) {
    real m = (real)((const double *)ps->cache)[h];
    for (int j = 0; j < n; j++) scores[j] -= m * (real)(qpos - kpos[j]);
}

// per score: the slope times the distance, subtracted (2 FLOPs) for every head and key
static double alibi_flops(const PosState *ps, int T, int L) { return 2.0 * L * ps->NH * T; }

const PosScheme pos_alibi = {
    .name = "alibi",
    .summary = "linear distance penalty -m_h*(i-j) on the logits, fixed slopes",
    .cite = "Press et al. 2022, Sec. 3",
    .hypers = {{NULL, 0, NULL}},
    .relative = 1,
    .prepare = alibi_prepare,
    .release = alibi_release,
    .bias_forward = alibi_bias_forward,
    // no parameters: the bias has no gradient to keep
    .flops = alibi_flops,
};
