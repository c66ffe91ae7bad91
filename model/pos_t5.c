// pos_t5.c - T5 relative position bias, causal form (Raffel et al. 2020, Sec. 2.1):
// a learned scalar per (bucket, head) added to the logits, buckets of the distance
// D = pos_i - pos_j from t5_bucket() in pos.c (half exact, half log-spaced up to
// --t5-max-dist, beyond that all in the last bucket). One table shared by all layers,
// laid out (buckets, NH) so each head owns a column. Initialised to zero.
#include "pos.h"

#include <stdlib.h>

typedef struct {
    int nb, maxd;
    int *bucket; // bucket of D for D < maxd; D >= maxd is the last bucket
} T5Cache;

static int t5_nb(const PosState *ps) { return (int)ps->hp[0]; }

static size_t t5_num_params(const PosState *ps) { return (size_t)t5_nb(ps) * ps->NH; }
static int t5_shape(const PosState *ps, size_t *d) { return d[0] = (size_t)t5_nb(ps), d[1] = (size_t)ps->NH, 2; } // (bucket, head)

static const char *t5_validate(const PosState *ps, char *err, size_t n) {
    float b = ps->hp[0], d = ps->hp[1];
    if (!(b >= 2 && b <= 4096) || b != floorf(b)) snprintf(err, n, "--t5-buckets must be an integer in [2, 4096], got %g", b);
    else if (!(d > b / 2 && d <= (1 << 24)) || d != floorf(d))
        snprintf(err, n, "--t5-max-dist must be an integer in (t5-buckets/2, 2^24], got %g", d);
    else return NULL;
    return err;
}

static void t5_prepare(PosState *ps) {
    int nb = t5_nb(ps), maxd = (int)ps->hp[1];
    T5Cache *c = xmalloc(sizeof(T5Cache));
    c->nb = nb;
    c->maxd = maxd;
    c->bucket = xmalloc((size_t)maxd * sizeof(int));
    for (int D = 0; D < maxd; D++) c->bucket[D] = t5_bucket(D, nb, maxd);
    ps->cache = c;
}

static void t5_release(PosState *ps) {
    T5Cache *c = ps->cache;
    if (c) free(c->bucket);
    free(c);
}

static inline int t5_lookup(const T5Cache *c, int D) {
    if (D < 0) D = 0;
    return D < c->maxd ? c->bucket[D] : c->nb - 1;
}

static void t5_bias_forward(const PosState *ps, int h, int qpos, const int *kpos, int n, real *scores) {
    // scores[j] += W[bucket(qpos - kpos[j])][h], W (nb, NH)
    const T5Cache *c = ps->cache;
    const real *W = ps->params;
    int NH = ps->NH;
    for (int j = 0; j < n; j++) scores[j] += W[(size_t)t5_lookup(c, qpos - kpos[j]) * NH + h];
}

static void t5_bias_backward(const PosState *ps, real *dW, int h, int qpos, const int *kpos, int n, const real *dscores) {
    // forward: scores[j] += W[bucket][h]  =>  dW[bucket][h] += dscores[j]  (column h only)
    const T5Cache *c = ps->cache;
    int NH = ps->NH;
    for (int j = 0; j < n; j++) dW[(size_t)t5_lookup(c, qpos - kpos[j]) * NH + h] += dscores[j];
}

const PosScheme pos_t5 = {
    .name = "t5",
    .summary = "learned bucketed relative bias per head, shared by layers",
    .cite = "Raffel et al. 2020, Sec. 2.1",
    .hypers = {{"t5-buckets", 32.0f, "number of distance buckets", 1},
               {"t5-max-dist", 128.0f, "distances from buckets/2 up to this are log-spaced; all longer ones share the last bucket", 1},
               {NULL, 0, NULL}},
    .relative = 1,
    .num_params = t5_num_params,
    .param_shape = t5_shape,
    .weight_decay = 0,
    .validate = t5_validate,
    .prepare = t5_prepare,
    .release = t5_release,
    .bias_forward = t5_bias_forward,
    .bias_backward = t5_bias_backward,
};
