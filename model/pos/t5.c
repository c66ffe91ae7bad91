// t5.c - T5 relative position bias, causal form (Raffel et al. 2020, Sec. 2.1):
// a learned scalar per (bucket, head) added to the logits, buckets of the distance
// D = pos_i - pos_j from t5_bucket() below (half exact, half log-spaced up to
// t5-max-dist, beyond that all in the last bucket). One table shared by all layers,
// laid out (buckets, NH) so each head owns a column. Initialised to zero.
#include "schemes.h"

#include <stdlib.h>

int t5_bucket(int D, int num_buckets, int max_distance) {
    // Raffel et al. 2020 (T5), causal form: half the buckets exact, the rest log-spaced
    // up to max_distance, all longer distances in the last bucket.
    if (D < 0) D = 0;
    int exact = num_buckets / 2;
    if (D < exact) return D;
    int b = exact + (int)floor(log((double)D / exact) / log((double)max_distance / exact) * (num_buckets - exact));
    return b < num_buckets - 1 ? b : num_buckets - 1;
}

typedef struct {
    int nb, maxd;
    int *bucket; // bucket of D for D < maxd; D >= maxd is the last bucket
} T5Cache;

static int t5_nb(const PosState *ps) { return (int)ps->hp[0]; }

// one table (bucket, head), shared by the layers as in T5
static int t5_tensors(const PosState *ps, PosTensor *t) {
    t[0] = (PosTensor){"table", 2, {(size_t)t5_nb(ps), (size_t)ps->NH}, 0, 0};
    return 1;
}

static const char *t5_validate(const PosState *ps, char *err, size_t n) {
    float b = ps->hp[0], d = ps->hp[1];
    if (!(b >= 2 && b <= 4096) || b != floorf(b)) snprintf(err, n, "t5-buckets must be an integer in [2, 4096], got %g", b);
    else if (!(d > b / 2 && d <= (1 << 24)) || d != floorf(d))
        snprintf(err, n, "t5-max-dist must be an integer in (t5-buckets/2, 2^24], got %g", d);
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
    const real *W = ps->param[0];
    int NH = ps->NH;
    for (int j = 0; j < n; j++) scores[j] += W[(size_t)t5_lookup(c, qpos - kpos[j]) * NH + h];
}

static void t5_bias_backward(const PosState *ps, real *const *dparam, int h, int qpos, const int *kpos, int n,
                             const real *dscores) {
    // forward: scores[j] += W[bucket][h]  =>  dW[bucket][h] += dscores[j]  (column h only)
    const T5Cache *c = ps->cache;
    real *dW = dparam[0];
    int NH = ps->NH;
    for (int j = 0; j < n; j++) dW[(size_t)t5_lookup(c, qpos - kpos[j]) * NH + h] += dscores[j];
}

// per score: the bucket's bias added (1 FLOP; the bucket is an integer lookup)
static double t5_flops(const PosState *ps, int T, int L) { return (double)L * ps->NH * T; }

const PosScheme pos_t5 = {
    .name = "t5",
    .summary = "learned bucketed relative bias per head, shared by layers",
    .cite = "Raffel et al. 2020, Sec. 2.1",
    .hypers = {{"t5-buckets", 32.0f, "number of distance buckets", 1},
               {"t5-max-dist", 128.0f, "distances from buckets/2 up to this are log-spaced; all longer ones share the last bucket", 1},
               {NULL, 0, NULL}},
    .relative = 1,
    .tensors = t5_tensors,
    .validate = t5_validate,
    .prepare = t5_prepare,
    .release = t5_release,
    .bias_forward = t5_bias_forward,
    .bias_backward = t5_bias_backward,
    .flops = t5_flops,
};
