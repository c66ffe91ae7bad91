// pos_rope.c - rotary position embedding (Su et al. 2021, "RoFormer", Sec. 3.4.2): rotate
// each pair of q and k channels of every head, every layer, by pos * theta_k with
// theta_k = base^(-2k/HS), k = 0..HS/2-1. Then q_m . k_n depends only on m - n.
// Pairing: rotate-half (x_k, x_{k+HS/2}) by default (GPT-NeoX); --rope-interleaved 1
// pairs (x_{2k}, x_{2k+1}) (RoFormer). The two give the same scores up to a fixed
// permutation of head channels; never mix them between training and evaluation.
// A rotation is orthogonal, so the backward is the rotation by -pos * theta_k.
#include "pos.h"

#include <stdlib.h>

static const char *rope_validate(const PosState *ps, char *err, size_t n) {
    if (ps->HS % 2) snprintf(err, n, "rope needs an even head size; d_model/heads = %d/%d = %d is odd", ps->C, ps->NH, ps->HS);
    else if (!(ps->hp[0] > 1.0f && ps->hp[0] < 1e30f)) snprintf(err, n, "--rope-base must be > 1, got %g", ps->hp[0]);
    else if (ps->hp[1] != 0.0f && ps->hp[1] != 1.0f) snprintf(err, n, "--rope-interleaved must be 0 or 1, got %g", ps->hp[1]);
    else return NULL;
    return err;
}

static void rope_prepare(PosState *ps) {
    int K = ps->HS / 2;
    double *inv_freq = xmalloc((size_t)K * sizeof(double));
    for (int k = 0; k < K; k++) inv_freq[k] = pow((double)ps->hp[0], -2.0 * k / ps->HS);
    ps->cache = inv_freq;
}

static void rope_release(PosState *ps) { free(ps->cache); }

// rotate v (T, NH, HS), row stride `stride`, by sign * pos * theta
static void rope_apply(const PosState *ps, real *v, const int *pos, int T, int stride, double sign) {
    int NH = ps->NH, HS = ps->HS, K = HS / 2;
    int inter = ps->hp[1] != 0.0f;
    const double *inv_freq = ps->cache;
#pragma omp parallel
    {
        real *cs = xmalloc((size_t)HS * sizeof(real)); // cos[0..K), sin[K..2K)
#pragma omp for schedule(static)
        for (int t = 0; t < T; t++) {
            for (int k = 0; k < K; k++) {
                double a = sign * (double)pos[t] * inv_freq[k];
                cs[k] = (real)cos(a);
                cs[K + k] = (real)sin(a);
            }
            for (int h = 0; h < NH; h++) {
                real *x = v + (size_t)t * stride + (size_t)h * HS;
                for (int k = 0; k < K; k++) {
                    int i0 = inter ? 2 * k : k, i1 = inter ? 2 * k + 1 : k + K;
                    real a = x[i0], b = x[i1], c = cs[k], s = cs[K + k];
                    x[i0] = a * c - b * s;
                    x[i1] = a * s + b * c;
                }
            }
        }
        free(cs);
    }
}

static void rope_qk_forward(const PosState *ps, real *v, const int *pos, int T, int stride, int is_key) {
    (void)is_key; // q and k rotate alike
    rope_apply(ps, v, pos, T, stride, 1.0);
}

static void rope_qk_backward(const PosState *ps, real *dv, const int *pos, int T, int stride, int is_key) {
    // forward: x' = R(pos*theta) x  =>  dx = R(pos*theta)^T dx' = R(-pos*theta) dx'
    (void)is_key;
    rope_apply(ps, dv, pos, T, stride, -1.0);
}

const PosScheme pos_rope = {
    .name = "rope",
    .summary = "rotary embedding of q and k in every layer",
    .cite = "Su et al. 2021 (RoFormer), Sec. 3.4",
    .hypers = {{"rope-base", 10000.0f, "base of the rotation frequencies"},
               {"rope-interleaved", 0.0f, "1 = pair (x2k, x2k+1) (RoFormer); 0 = rotate-half (x_k, x_k+HS/2)"},
               {NULL, 0, NULL}},
    .relative = 1,
    .validate = rope_validate,
    .prepare = rope_prepare,
    .release = rope_release,
    .qk_forward = rope_qk_forward,
    .qk_backward = rope_qk_backward,
};
