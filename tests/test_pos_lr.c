// test_pos_lr.c - AdamW's pos_lr_mult (train --pos-lr-mult): the position scheme's own
// tensors step at lr * mult, every other parameter exactly as without it.
//
// The first AdamW step moves parameter p by a = lr * (g / (|g| + eps) + wd_p p) (bias-corrected
// moments are g and g^2), so with the scheme's rate ten times larger its tensors move by 10 a.
// The only error is float32 rounding of the stored parameter: Delta_1 = (p - a)(1 + e1) - p,
// Delta_10 = (p - 10a)(1 + e2) - p with |e| <= 2^-24 (round to nearest), so
// |Delta_10 - 10 Delta_1| <= 2^-24 (|p - 10a| + 10 |p - a|) <= 2^-24 (11 |p| + 20 |a|): the
// bound checked element by element (a itself is computed in double: its error is far below).
// The gradients are random normals (|g| >> eps), the rate small enough that no constraint
// (kerple's, FIRE's) clamps a parameter.
#include "check.h"
#include "gpt.h"
#include "optim.h"

#include <stdlib.h>
#include <string.h>

// one AdamW step from (params, grads) at mult; returns the parameters after it (caller frees)
static real *step_once(GPT *m, const real *p0, const real *g, double mult) {
    memcpy(m->params, p0, m->num_params * sizeof(real));
    memcpy(m->grads, g, m->num_params * sizeof(real));
    AdamW o;
    adamw_init(&o, m->num_params, 0.9, 0.95, 1e-8, 0.1);
    o.pos_lr_mult = mult;
    adamw_step(&o, m, 1e-3, 1, 1.0);
    adamw_free(&o);
    real *out = xmalloc(m->num_params * sizeof(real));
    memcpy(out, m->params, m->num_params * sizeof(real));
    return out;
}

// the checks for one scheme; 0 (nothing checked) for a scheme without tensors of its own
static int test_scheme(const PosScheme *s) {
    GPTConfig c = {.V = 256, .C = 16, .L = 2, .NH = 2, .T = 8, .pos_rows = 16};
    snprintf(c.scheme, sizeof c.scheme, "%s", s->name);
    pos_default_hypers(s, c.scheme_hp);
    GPT m;
    gpt_build(&m, &c);
    if (!m.sizes[P_SCHEME]) {
        gpt_free(&m);
        return 0;
    }
    gpt_init(&m, 3);
    gpt_zero_grad(&m); // (allocates the gradients)
    size_t n = m.num_params, off = m.offsets[P_SCHEME], ns = m.sizes[P_SCHEME];
    real *p0 = xmalloc(n * sizeof(real)), *g = xmalloc(n * sizeof(real));
    memcpy(p0, m.params, n * sizeof(real));
    Rng r;
    rng_seed(&r, 7);
    for (size_t k = 0; k < n; k++) g[k] = (real)rng_normal(&r);
    real *p1 = step_once(&m, p0, g, 1.0), *p10 = step_once(&m, p0, g, 10.0);
    char name[96];
    snprintf(name, sizeof name, "pos_lr_mult %s: other parameters step exactly as at 1", s->name);
    check(!memcmp(p1, p10, off * sizeof(real)), name, "a parameter outside the scheme's tensors moved differently");
    int bad = -1;
    double s1 = 0, s10 = 0;
    for (size_t k = off; k < off + ns; k++) {
        double d1 = (double)p1[k] - p0[k], d10 = (double)p10[k] - p0[k], a = fabs(d10) / 10;
        double tol = ldexp(11 * fabs((double)p0[k]) + 20 * a, -24) + 1e-12;
        if (!(fabs(d10 - 10 * d1) <= tol) && bad < 0) bad = (int)(k - off);
        s1 += fabs(d1), s10 += fabs(d10);
    }
    snprintf(name, sizeof name, "pos_lr_mult %s: its %zu tensor values move 10x as far at 10", s->name, ns);
    check(bad < 0 && s1 > 0, name, "value %d: %.9g at 10 vs %.9g at 1 (total |moves| %.9g vs %.9g)", bad,
          bad >= 0 ? (double)p10[off + bad] - p0[off + bad] : 0.0, bad >= 0 ? (double)p1[off + bad] - p0[off + bad] : 0.0, s10, s1);
    real *pd = step_once(&m, p0, g, 0.0); // 0: unset (an optimizer read from a checkpoint), the plain rate
    snprintf(name, sizeof name, "pos_lr_mult %s: 0 (unset) and 1 step the same", s->name);
    check(!memcmp(pd, p1, n * sizeof(real)), name, "the parameters differ");
    free(p0), free(g), free(p1), free(p10), free(pd);
    gpt_free(&m);
    return 1;
}

int main(void) {
    int tested = 0;
    for (int i = 0; i < pos_count(); i++) tested += test_scheme(pos_at(i));
    check(tested >= 4, "pos_lr_mult: the schemes with tensors of their own were tested", "only %d", tested);
    return check_done();
}
