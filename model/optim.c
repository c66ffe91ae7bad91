// optim.c - AdamW: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
// p -= lr (mhat / (sqrt(vhat) + eps) + wd p), mhat = m / (1 - b1^t), vhat = v / (1 - b2^t).
// Element-wise, so the result does not depend on the thread count.
#include "optim.h"

#include <stdlib.h>

void adamw_init(AdamW *o, size_t n, double beta1, double beta2, double eps, double wd) {
    *o = (AdamW){beta1, beta2, eps, wd, n, xcalloc(n ? n : 1, sizeof(real)), xcalloc(n ? n : 1, sizeof(real)), 1.0};
}

void adamw_free(AdamW *o) {
    free(o->mom), free(o->vel);
    o->mom = o->vel = NULL;
    o->n = 0;
}

// the rate of one range: the scheme's tensors (the last slice, P_SCHEME) at lr * pos_lr_mult
static double lr_of(const AdamW *o, const GPT *m, const ParamRange *r, double lr) {
    int scheme = m->sizes[P_SCHEME] && r->off >= m->offsets[P_SCHEME];
    return scheme && o->pos_lr_mult > 0 ? lr * o->pos_lr_mult : lr;
}

void adamw_step(AdamW *o, GPT *m, double lr, long t, double grad_scale) {
    if (o->n != m->num_params || !o->mom) die("internal: optimizer sized for %zu parameters, model has %zu", o->n, m->num_params);
    double b1 = o->beta1, b2 = o->beta2, eps = o->eps;
    double c1 = 1.0 - pow(b1, (double)t), c2 = 1.0 - pow(b2, (double)t);
    ParamRange r[GPT_MAX_RANGES];
    int nr = gpt_param_ranges(m, r);
    real *mom = o->mom, *vel = o->vel;
    for (int i = 0; i < nr; i++) {
        size_t a = r[i].off, e = r[i].off + r[i].n;
        double wdi = r[i].decay ? o->wd : 0.0, lri = lr_of(o, m, &r[i], lr);
#pragma omp parallel for schedule(static)
        for (size_t k = a; k < e; k++) {
            double g = (double)m->grads[k] * grad_scale;
            double mk = b1 * mom[k] + (1.0 - b1) * g, vk = b2 * vel[k] + (1.0 - b2) * g * g;
            mom[k] = (real)mk;
            vel[k] = (real)vk;
            double p = m->params[k];
            m->params[k] = (real)(p - lri * ((mk / c1) / (sqrt(vk / c2) + eps) + wdi * p));
        }
    }
    gpt_constrain(m);
}
