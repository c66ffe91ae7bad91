// pos_alibi.c - Attention with Linear Biases (Press et al. 2022, "Train Short, Test Long",
// Sec. 3): score(h, i, j) += -m_h * (pos_i - pos_j), not scaled by 1/sqrt(HS). The slopes
// m_h are fixed (alibi_slopes in pos.c, including the rule for head counts that are not
// powers of two). No parameters.
#include "pos.h"

#include <stdlib.h>

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
};
