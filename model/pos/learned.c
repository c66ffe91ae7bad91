// learned.c - a learned absolute position table added at the input (GPT-2; Radford et
// al. 2019). The table has `rows` rows (the positions training can reach, or more if asked).
// It has nothing to say about a position >= rows: the model refuses such positions with an
// error naming the limit, or, when the model's clamp_pos is set, maps them to the last row
// (a documented policy of the evaluator).
#include "pos.h"

// one table (rows, C), decayed like the token embedding; at the input, so never per layer
static int learned_tensors(const PosState *ps, PosTensor *t) {
    t[0] = (PosTensor){"table", 2, {(size_t)ps->rows, (size_t)ps->C}, 0, 1};
    return 1;
}

static void learned_init(const PosState *ps, int k, real *P, Rng *rng) {
    size_t n = (size_t)ps->rows * ps->C;
    for (size_t i = 0; i < n; i++) P[i] = (real)(0.02 * rng_normal(rng));
}

static int learned_max_pos(const PosState *ps) { return ps->rows; }

static void learned_input_forward(const PosState *ps, real *x, const int *pos, int N) {
    // x (N, C) += P[pos[n]], P (rows, C)
    int C = ps->C;
    const real *P = ps->param[0];
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *p_n = P + (size_t)pos[n] * C;
        real *x_n = x + (size_t)n * C;
        for (int c = 0; c < C; c++) x_n[c] += p_n[c];
    }
}

static void learned_input_backward(const PosState *ps, real *const *dparam, const real *dx, const int *pos, int N) {
    // forward: x[n] += P[pos[n]]  =>  dP[pos[n]] += dx[n]. Rows repeat across n, so the
    // parallel loop runs over channels (disjoint writes).
    int C = ps->C;
    real *dP = dparam[0];
#pragma omp parallel for schedule(static)
    for (int c = 0; c < C; c++)
        for (int n = 0; n < N; n++) dP[(size_t)pos[n] * C + c] += dx[(size_t)n * C + c];
}

// the table's row added to each token's input: C adds
static double learned_flops(const PosState *ps, int T, int L) { return (void)T, (void)L, (double)ps->C; }

const PosScheme pos_learned = {
    .name = "learned",
    .summary = "learned absolute table added at the input, one row per position training can reach",
    .cite = "Radford et al. 2019 (GPT-2)",
    .hypers = {{NULL, 0, NULL}},
    .relative = 0,
    .tensors = learned_tensors,
    .init = learned_init,
    .max_pos = learned_max_pos,
    .input_forward = learned_input_forward,
    .input_backward = learned_input_backward,
    .flops = learned_flops,
};
