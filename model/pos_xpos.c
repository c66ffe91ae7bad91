// pos_xpos.c - xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer", Sec. 3.2):
// RoPE plus an exponential decay per channel pair. Pair k has zeta_k = (2k + 0.4 HS)/(1.4 HS)
// in (0, 1); queries are scaled by zeta_k^(i/B) and keys by zeta_k^(-j/B), B = --xpos-base
// (512), so q_i . k_j carries zeta_k^((i-j)/B): far keys count less, and only i - j matters.
// Exponents are taken relative to the window's middle position (rotary_apply in pos_rope.c):
// the scores are unchanged and long windows cannot overflow float.
#include "pos.h"

static const char *xpos_validate(const PosState *ps, char *err, size_t n) {
    if (ps->HS % 2) snprintf(err, n, "xpos needs an even head size; d_model/heads = %d/%d = %d is odd", ps->C, ps->NH, ps->HS);
    else if (!(ps->hp[0] > 1.0f && ps->hp[0] < 1e30f)) snprintf(err, n, "--xpos-rope-base must be > 1, got %g", ps->hp[0]);
    else if (!(ps->hp[1] >= 1.0f && ps->hp[1] < 1e30f)) snprintf(err, n, "--xpos-base must be >= 1, got %g", ps->hp[1]);
    else return NULL;
    return err;
}

static void xpos_qk_forward(const PosState *ps, real *v, const int *pos, int B, int T, int stride, int is_key) {
    rotary_apply(ps, v, pos, B, T, stride, ps->hp[0], 1, ps->hp[1], is_key, 1.0);
}

static void xpos_qk_backward(const PosState *ps, real *dv, const int *pos, int B, int T, int stride, int is_key) {
    // forward: x' = z R x with z = zeta^(+-(pos-c)/B) per pair  =>  dx = z R^T dx'
    rotary_apply(ps, dv, pos, B, T, stride, ps->hp[0], 1, ps->hp[1], is_key, -1.0);
}

const PosScheme pos_xpos = {
    .name = "xpos",
    .summary = "rotary embedding with a per-pair exponential decay of q.k with distance",
    .cite = "Sun et al. 2022 (xPos), Sec. 3.2",
    .hypers = {{"xpos-rope-base", 10000.0f, "base of the rotation frequencies"},
               {"xpos-base", 512.0f, "scale base B of the decay zeta^(distance/B)"},
               {NULL, 0, NULL}},
    .relative = 1,
    .ext_methods = 1u << POS_EXT_PI | 1u << POS_EXT_NTK | 1u << POS_EXT_DYNNTK | 1u << POS_EXT_YARN,
    .validate = xpos_validate,
    .qk_forward = xpos_qk_forward,
    .qk_backward = xpos_qk_backward,
};
