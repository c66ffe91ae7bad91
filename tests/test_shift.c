// test_shift.c - float-build checks of position shifts and of RoPE context extension:
//  - the shift test (Sinha et al. 2022): for every registered scheme, a random model's loss at
//    every position with positions 1000..1000+T-1 against 0..T-1. Schemes that depend only on
//    distances must agree to float error (measured: at most 4e-6 nats, rope and xpos; the
//    bound is 2e-5 (1 + loss)), the others (absolute tables, FIRE's query-position
//    normaliser) must differ by more than 0.01 somewhere (measured: 0.19 to 6). Which is
//    which is the registry's flag (PosScheme.relative), so a wrong flag fails either way and
//    a new scheme is tested without naming it here.
//  - eval --rope-scaling: at or below the training length every method is the identity;
//    pi at factor s on positions s*p equals plain RoPE on p; ntk equals plain RoPE with base
//    * s^(HS/(HS-2)); dynamic-ntk follows the window length; yarn leaves high-frequency pairs
//    alone, interpolates low-frequency pairs by s and scales q and k by 0.1 ln s + 1; rerope
//    with a window >= the longest distance is plain RoPE, and beyond the window a distance
//    counts as the window (two-token windows: positions (0, 1000) under rerope w = 5 score
//    like (0, 5) under plain RoPE).
#include "check.h"
#include "gpt.h"
#include "positions.h"
#include "random_model.h"
#include "scheme_state.h"

#include <stdlib.h>
#include <string.h>

enum { B = 2, T = 32, V = 256 };

static void build(GPT *m, const char *scheme, const float *hp, int rows) {
    GPTConfig cfg = {.V = V, .C = 32, .L = 2, .NH = 4, .T = T, .pos_rows = rows};
    snprintf(cfg.scheme, sizeof cfg.scheme, "%s", scheme);
    if (hp) memcpy(cfg.scheme_hp, hp, sizeof cfg.scheme_hp);
    else pos_default_hypers(pos_find(scheme), cfg.scheme_hp);
    Rng rng;
    rng_seed(&rng, 11);
    random_model(m, &cfg, 5, &rng);
    gpt_alloc(m, B, T, 0);
}

static int tok[B * T], tgt[B * T];

static double loss_at(GPT *m, const int *pos) { return gpt_forward(m, tok, tgt, pos); }

static double loss_offset(GPT *m, int offset) {
    int pos[B * T];
    positions_draw(pos, B, T, offset, 0, NULL);
    return loss_at(m, pos);
}

static void test_shift(void) {
    // a scheme flagged relative must score every shift alike, every other one must change
    int nrel = 0;
    for (int i = 0; i < pos_count(); i++) {
        const PosScheme *s = pos_at(i);
        int expect = s->relative;
        nrel += expect;
        char name[160];
        GPT m;
        build(&m, s->name, NULL, 1000 + T);
        // every position's loss, not only the mean: a random model's mean loss hardly moves
        // when its attention changes, the losses of single positions do
        real l0s[B * T];
        double l0 = loss_offset(&m, 0), d = 0;
        memcpy(l0s, m.losses, sizeof l0s);
        double l1 = loss_offset(&m, 1000);
        for (int n = 0; n < B * T; n++) d = fmax(d, fabs((double)m.losses[n] - l0s[n]));
        if (expect) {
            snprintf(name, sizeof name, "shift test [%s]: every position's loss at offset 1000 == at offset 0 (means %.7f, %.7f)",
                     s->name, l0, l1);
            check(d <= 2e-5 * (1 + fabs(l0)), name, "largest |diff| %.3g", d);
        } else {
            snprintf(name, sizeof name, "shift test [%s]: the losses at offset 1000 differ from offset 0 (means %.5f, %.5f)", s->name,
                     l0, l1);
            check(d > 1e-2, name, "largest |diff| only %.3g", d);
        }
        gpt_free(&m);
    }
    // both kinds are exercised (the registry flags some schemes relative and some not)
    check(nrel > 0 && nrel < pos_count(), "the registry has relative and position-dependent schemes", "%d of %d relative", nrel,
          pos_count());
}

// apply a context extension ("none": the plain scheme) to every layer's state
static void extend(GPT *m, const char *method, double factor, int train_len, int window) {
    char err[256];
    if (gpt_extend(m, &(PosExtension){.method = method, .factor = factor, .train_len = train_len, .window = window}, err, sizeof err))
        die("%s", err);
}
static void set_ext(GPT *m, const char *method, double factor) { extend(m, method, factor, T / 2, 0); }

static void test_rope_scaling(void) {
    GPT m, b;
    build(&m, "rope", NULL, 1);
    char name[160];
    // a window as long as the training length (train_len = T): every method is the identity
    double plain = loss_offset(&m, 0);
    const char *methods[] = {"pi", "ntk", "dynamic-ntk", "yarn", "rerope"};
    for (int k = 0; k < 5; k++) {
        extend(&m, methods[k], 0, T, 0);
        double l = loss_offset(&m, 0);
        // rerope builds the same scores another way (from distances): equal to float error
        int rer = !strcmp(methods[k], "rerope");
        snprintf(name, sizeof name, "rope-scaling %s at the training length is the identity", methods[k]);
        check(rer ? fabs(l - plain) < 1e-5 : l == plain, name, "%.9g vs %.9g", l, plain);
    }
    // pi, s = 2: positions 2p under pi == positions p under plain rope
    int pos2[B * T], pos1[B * T];
    for (int i = 0; i < B * T; i++) pos1[i] = i % T, pos2[i] = 2 * (i % T);
    set_ext(&m, "pi", 2);
    double lpi = loss_at(&m, pos2);
    set_ext(&m, "none", 0);
    double lref = loss_at(&m, pos1);
    check(fabs(lpi - lref) < 1e-5, "rope-scaling pi, s=2: positions 2p == plain rope at p", "%.9g vs %.9g", lpi, lref);
    check(fabs(loss_offset(&m, 0) - lref) < 1e-12, "rope-scaling none restores plain rope", "");
    // ntk, s = 4 == plain rope with base 10000 * 4^(HS/(HS-2)), HS = 8
    set_ext(&m, "ntk", 4);
    double lntk = loss_offset(&m, 0);
    float hp[POS_MAX_HYPER] = {0};
    pos_default_hypers(pos_find("rope"), hp);
    hp[0] = (float)(10000.0 * pow(4.0, 8.0 / 6.0));
    build(&b, "rope", hp, 1);
    double lbase = loss_offset(&b, 0);
    check(fabs(lntk - lbase) < 1e-5, "rope-scaling ntk, s=4 == plain rope with base * s^(HS/(HS-2))", "%.9g vs %.9g", lntk, lbase);
    // dynamic-ntk (alpha 1): window T = 2 * train_len -> s = 2, like ntk at factor 2
    set_ext(&m, "dynamic-ntk", 0);
    double ldyn = loss_offset(&m, 0);
    set_ext(&m, "ntk", 2);
    double lntk2 = loss_offset(&m, 0);
    check(ldyn == lntk2, "rope-scaling dynamic-ntk at 2x the training length == ntk at s = 2", "%.9g vs %.9g", ldyn, lntk2);
    check(fabs(ldyn - plain) > 1e-4, "rope-scaling ntk changes the loss beyond the training length", "%.9g vs %.9g", ldyn, plain);
    // rerope
    set_ext(&m, "none", 0);
    double lrope = loss_offset(&m, 0);
    extend(&m, "rerope", 0, T, T);
    double lrer = loss_offset(&m, 0);
    check(fabs(lrer - lrope) < 1e-5, "rope-scaling rerope, window >= every distance == plain rope", "%.9g vs %.9g", lrer, lrope);
    extend(&m, "rerope", 0, T, 5);
    double lrer5 = loss_offset(&m, 0);
    check(fabs(lrer5 - lrope) > 1e-4, "rope-scaling rerope, window 5 < distances changes the loss", "%.9g vs %.9g", lrer5, lrope);
    gpt_alloc(&m, 2, 2, 0);
    int far[4] = {0, 1000, 7, 3000}, near[4] = {0, 5, 7, 12};
    double lfar = loss_at(&m, far);
    set_ext(&m, "none", 0);
    double lnear = loss_at(&m, near);
    check(fabs(lfar - lnear) < 1e-5, "rope-scaling rerope, window 5: distances 1000 and 2993 score as 5 (== plain rope at distance 5)",
          "%.9g vs %.9g", lfar, lnear);
    gpt_free(&b);
    gpt_free(&m);

    // yarn on the q/k transform itself: HS = 64, base 10000, train_len 1024, s = 4.
    // pair 0: theta = 1, r = 1024/(2 pi) = 163 > beta = 32: unchanged; pair 31: theta =
    // 10000^(-62/64), r = 0.02 < alpha = 1: theta / s. Both scaled by 0.1 ln 4 + 1.
    PosState ps;
    float rh[POS_MAX_HYPER] = {0};
    pos_default_hypers(pos_find("rope"), rh);
    size_t np;
    free(scheme_state(&ps, pos_find("rope"), 64, 1, 1, rh, NULL, &np));
    char why[256];
    if (pos_extend(&ps, &(PosExtension){.method = "yarn", .factor = 4, .train_len = 1024}, why, sizeof why)) die("%s", why);
    real v[64];
    for (int i = 0; i < 64; i++) v[i] = (real)(i == 0 || i == 31 ? 1 : 0); // x_0 = 1 (pair 0), x_31 = 1 (pair 31)
    int p = 300;
    ps.scheme->qk_forward(&ps, v, &p, 1, 1, 64, 0);
    double m_ = 0.1 * log(4.0) + 1, th31 = pow(10000.0, -62.0 / 64) / 4;
    // rotate-half pairing: pair k = (x_k, x_k+32); x_k' = m (x_k cos a - x_k+32 sin a), x_k+32' = m (x_k sin a + ...)
    double e0c = m_ * cos(300.0), e0s = m_ * sin(300.0), e31c = m_ * cos(300.0 * th31), e31s = m_ * sin(300.0 * th31);
    double err = fmax(fmax(fabs(v[0] - e0c), fabs(v[32] - e0s)), fmax(fabs(v[31] - e31c), fabs(v[63] - e31s)));
    check(err < 1e-5, "rope-scaling yarn: high-frequency pair kept, low-frequency pair interpolated by s, q scaled by 0.1 ln s + 1",
          "max error %.3g", err);
    pos_release(&ps);
}

int main(void) {
    Rng rng;
    rng_seed(&rng, 3);
    for (int i = 0; i < B * T; i++) tok[i] = (int)rng_below(&rng, V), tgt[i] = (int)rng_below(&rng, V);
    test_shift();
    test_rope_scaling();
    return check_done();
}
