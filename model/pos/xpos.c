// xpos.c - xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer", Sec. 3.2):
// RoPE plus an exponential decay per channel pair. Pair k has zeta_k = (2k + 0.4 HS)/(1.4 HS)
// in (0, 1); queries are scaled by zeta_k^(i/B) and keys by zeta_k^(-j/B), B = xpos-base
// (512), so q_i . k_j carries zeta_k^((i-j)/B): far keys count less, and only i - j matters.
// The q/k hooks only rotate (interleaved pairs, as in the paper's code); the decay is the
// qk_decay hook, which the model applies relative to a centre of its choosing (pos.h): the
// training pass centres each window, the evaluation pass each block of queries, so that no
// evaluation length can overflow float.
#include "rotary.h"

#include <math.h>

static const char *xpos_validate(const PosState *ps, char *err, size_t n) {
    if (ps->HS % 2) snprintf(err, n, "xpos needs an even head size; d_model/heads = %d/%d = %d is odd", ps->C, ps->NH, ps->HS);
    else if (!(ps->hp[0] > 1.0f && ps->hp[0] < 1e30f)) snprintf(err, n, "xpos-rope-base must be > 1, got %g", ps->hp[0]);
    else if (!(ps->hp[1] >= 1.0f && ps->hp[1] < 1e30f))
        snprintf(err, n, "xpos-base must be >= 1, got %g (the decay's length scale, in positions)", ps->hp[1]);
    else {
        // training centres each window (pos.h, qk_decay): factors reach zeta_0^(-+spread/2B),
        // which must stay within e^POS_DECAY_EXP_MAX; training positions spread up to rows - 1
        double lz0 = log(1.4 / 0.4), spread = ps->rows - 1.0;
        if (spread * lz0 / (2.0 * ps->hp[1]) <= POS_DECAY_EXP_MAX) return NULL;
        snprintf(err, n, "xpos-base %g is too small for training positions 0..%d: the decay zeta^(distance/B) would "
                 "overflow float; use xpos-base >= %g or a shorter training length", ps->hp[1], ps->rows - 1,
                 ceil(spread * lz0 / (2.0 * POS_DECAY_EXP_MAX)));
    }
    return err;
}

static void xpos_qk_forward(const PosState *ps, real *v, const int *pos, int B, int T, int stride, int is_key) {
    (void)is_key;
    rotary_apply(ps, v, pos, B, T, stride, ps->hp[0], 1, 1.0);
}

static void xpos_qk_backward(const PosState *ps, real *dv, const int *pos, int B, int T, int stride, int is_key) {
    (void)is_key;
    rotary_apply(ps, dv, pos, B, T, stride, ps->hp[0], 1, -1.0);
}

// channels 2k and 2k+1 decay at log(zeta_k) per B positions; position interpolation (eval
// extension pi) divides positions by s, so the decay too
static void xpos_qk_decay(const PosState *ps, int T, double *rate) {
    int HS = ps->HS;
    double f = rotary_pos_scale(ps, T) / ps->hp[1];
    for (int k = 0; k < HS / 2; k++) rate[2 * k] = rate[2 * k + 1] = log((2.0 * k + 0.4 * HS) / (1.4 * HS)) * f;
}

// rope's rotation of q and k (6 FLOPs a channel pair) and the decay's factor on each of their
// channels (1 FLOP each) in every layer
static double xpos_flops(const PosState *ps, int T, int L) { return (void)T, 8.0 * L * ps->C; }

const PosScheme pos_xpos = {
    .name = "xpos",
    .summary = "rotary embedding with a per-pair exponential decay of q.k with distance",
    .cite = "Sun et al. 2022 (xPos), Sec. 3.2",
    .hypers = {{"xpos-rope-base", 10000.0f, "base of the rotation frequencies"},
               {"xpos-base", 512.0f, "scale base B of the decay zeta^(distance/B)"},
               {NULL, 0, NULL}},
    .relative = 1,
    .validate = xpos_validate,
    .prepare = rotary_prepare,
    .release = rotary_release,
    .extensions = "pi|ntk|dynamic-ntk|yarn", // not rerope: its scores would lose the decay
    .extend = rotary_extend,
    .extension_value = rotary_extension_value,
    .qk_forward = xpos_qk_forward,
    .qk_backward = xpos_qk_backward,
    .qk_decay = xpos_qk_decay,
    .flops = xpos_flops,
};
