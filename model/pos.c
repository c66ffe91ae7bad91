// pos.c - the position-scheme registry, scheme state, and the position sampler.
// Adding a scheme: write model/pos_NAME.c defining `const PosScheme pos_NAME`, then add one
// line to REGISTRY below. Nothing else in the model, trainer or tests names a scheme.
#include "pos.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const PosScheme pos_sinusoidal, pos_learned, pos_t5, pos_alibi, pos_rope, pos_nope, pos_kerple_log,
    pos_kerple_power, pos_sandwich, pos_xpos, pos_fire, pos_cope;

static const PosScheme *const REGISTRY[] = {
    &pos_sinusoidal,
    &pos_learned,
    &pos_t5,
    &pos_alibi,
    &pos_rope,
    &pos_nope,
    &pos_kerple_log,
    &pos_kerple_power,
    &pos_sandwich,
    &pos_xpos,
    &pos_fire,
    &pos_cope,
};
#define NREG ((int)(sizeof(REGISTRY) / sizeof(REGISTRY[0])))

int pos_count(void) { return NREG; }
const PosScheme *pos_at(int i) { return (i >= 0 && i < NREG) ? REGISTRY[i] : NULL; }

const PosScheme *pos_find(const char *name) {
    for (int i = 0; i < NREG; i++)
        if (strcmp(REGISTRY[i]->name, name) == 0) return REGISTRY[i];
    return NULL;
}

const char *pos_names(void) {
    static char buf[512];
    if (!buf[0]) {
        for (int i = 0; i < NREG; i++) {
            if (i) strcat(buf, "|");
            strcat(buf, REGISTRY[i]->name);
        }
    }
    return buf;
}

int pos_hyper_index(const PosScheme *s, const char *name) {
    for (int i = 0; i < POS_MAX_HYPER && s->hypers[i].name; i++)
        if (strcmp(s->hypers[i].name, name) == 0) return i;
    return -1;
}

void pos_default_hypers(const PosScheme *s, float *hp) {
    for (int i = 0; i < POS_MAX_HYPER; i++) hp[i] = (s->hypers[i].name && i < POS_MAX_HYPER) ? s->hypers[i].def : 0.0f;
}

static void state_fill(PosState *ps, const PosScheme *s, int C, int NH, int rows, const float *hp) {
    memset(ps, 0, sizeof(*ps));
    ps->scheme = s;
    ps->C = C;
    ps->NH = NH;
    ps->HS = NH > 0 ? C / NH : 0;
    ps->rows = rows;
    if (hp) memcpy(ps->hp, hp, sizeof(ps->hp));
    else pos_default_hypers(s, ps->hp);
}

const char *pos_check(const PosScheme *s, int C, int NH, int rows, const float *hp, char *err, size_t n) {
    PosState ps;
    state_fill(&ps, s, C, NH, rows, hp);
    return s->validate ? s->validate(&ps, err, n) : NULL;
}

size_t pos_param_count(const PosScheme *s, int C, int NH, int rows, const float *hp) {
    PosState ps;
    state_fill(&ps, s, C, NH, rows, hp);
    return pos_num_params(&ps);
}

void pos_state_init(PosState *ps, const PosScheme *s, int C, int NH, int rows, const float *hp) {
    state_fill(ps, s, C, NH, rows, hp);
    char err[256];
    if (s->validate && s->validate(ps, err, sizeof err)) die("%s", err);
    if (s->prepare) s->prepare(ps);
}

void pos_state_free(PosState *ps) {
    if (ps->scheme && ps->scheme->release) ps->scheme->release(ps);
    ps->cache = NULL;
}

// the fastest decay rate of a scheme at window length T (0: no decay)
static double decay_max_rate(const PosState *ps, int T) {
    if (!ps->scheme->qk_decay) return 0.0;
    double *rate = xmalloc((size_t)ps->HS * sizeof(double)), m = 0.0;
    ps->scheme->qk_decay(ps, T, rate);
    for (int d = 0; d < ps->HS; d++) m = fabs(rate[d]) > m ? fabs(rate[d]) : m;
    free(rate);
    return m;
}

int pos_decay_max_span(const PosState *ps, int T) {
    double m = decay_max_rate(ps, T), span = m > 0 ? floor(2.0 * POS_DECAY_EXP_MAX / m) : INT_MAX;
    return span >= INT_MAX ? INT_MAX : (int)span;
}

void pos_decay_apply(const PosState *ps, real *v, const int *pos, int B, int T, int stride, int is_key) {
    int NH = ps->NH, HS = ps->HS, lim = pos_decay_max_span(ps, T);
    double *rate = xmalloc(((size_t)HS + B) * sizeof(double)), *centre = rate + HS, sign = is_key ? -1.0 : 1.0;
    ps->scheme->qk_decay(ps, T, rate);
    for (int b = 0; b < B; b++) {
        const int *p = pos + (size_t)b * T;
        int lo = p[0], hi = p[0];
        for (int t = 1; t < T; t++) lo = p[t] < lo ? p[t] : lo, hi = p[t] > hi ? p[t] : hi;
        if ((double)hi - lo > lim) die("internal: q/k decay over a spread of %.0f positions overflows float (limit %d)", (double)hi - lo, lim);
        centre[b] = 0.5 * ((double)lo + (double)hi);
    }
#pragma omp parallel for schedule(static) collapse(2)
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            double x = sign * ((double)pos[(size_t)b * T + t] - centre[b]);
            real *row = v + ((size_t)b * T + t) * stride;
            for (int d = 0; d < HS; d++) {
                real f = (real)exp(rate[d] * x);
                for (int h = 0; h < NH; h++) row[(size_t)h * HS + d] *= f;
            }
        }
    free(rate);
}

size_t pos_num_params(const PosState *ps) { return ps->scheme->num_params ? ps->scheme->num_params(ps) : 0; }

static const char *const EXT_NAMES[POS_EXT_COUNT] = {"none", "pi", "ntk", "dynamic-ntk", "yarn", "rerope"};

const char *pos_ext_name(int method) { return method >= 0 && method < POS_EXT_COUNT ? EXT_NAMES[method] : "?"; }

int pos_ext_parse(const char *name) {
    for (int i = 0; i < POS_EXT_COUNT; i++)
        if (strcmp(EXT_NAMES[i], name) == 0) return i;
    return -1;
}

void pos_set_ext(PosState *ps, const PosExt *ext) {
    if (ext->method != POS_EXT_NONE && !(ps->scheme->ext_methods & (1u << ext->method))) {
        char ok[128] = "";
        for (int i = 0; i < pos_count(); i++)
            if (pos_at(i)->ext_methods & (1u << ext->method)) snprintf(ok + strlen(ok), sizeof ok - strlen(ok), "%s%s", *ok ? ", " : "", pos_at(i)->name);
        die("--rope-scaling %s applies to %s checkpoints; this one uses '%s'", pos_ext_name(ext->method), ok, ps->scheme->name);
    }
    if (ps->scheme->release) ps->scheme->release(ps);
    ps->cache = NULL;
    ps->ext = *ext;
    if (ps->ext.method == POS_EXT_REROPE && ps->ext.window <= 0) ps->ext.window = ps->ext.train_len; // the default
    if (ps->scheme->prepare) ps->scheme->prepare(ps);
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void pos_fill(int *pos, int B, int T, int offset, int lmax, Rng *rng) {
    if (lmax <= 0) {
        for (int b = 0; b < B; b++)
            for (int t = 0; t < T; t++) pos[b * T + t] = offset + t;
        return;
    }
    if (T > lmax) die("randomized positions: cannot draw %d distinct positions from [0, %d); raise --rand-max", T, lmax);
    // Floyd's algorithm: T distinct values from [0, lmax) in O(T^2) worst case membership
    // tests, done with a small open-addressing set so it stays O(T) expected.
    int cap = 1;
    while (cap < 2 * T) cap <<= 1;
    int *set = xmalloc((size_t)cap * sizeof(int));
    for (int b = 0; b < B; b++) {
        int *row = pos + (size_t)b * T;
        for (int i = 0; i < cap; i++) set[i] = -1;
        int n = 0;
        for (int j = lmax - T; j < lmax; j++) {
            int v = (int)rng_below(rng, (uint64_t)j + 1);
            // insert v, or j if v is already present
            for (int pass = 0; pass < 2; pass++) {
                unsigned h = ((unsigned)v * 2654435761u) & (unsigned)(cap - 1);
                int found = 0;
                while (set[h] != -1) {
                    if (set[h] == v) { found = 1; break; }
                    h = (h + 1) & (unsigned)(cap - 1);
                }
                if (!found) { set[h] = v; row[n++] = v; break; }
                v = j; // j cannot be present yet
            }
        }
        qsort(row, (size_t)T, sizeof(int), cmp_int);
    }
    free(set);
}

void alibi_slopes(int H, double *slopes) {
    // Press et al. 2022, Sec. 3: for H a power of two, geometric sequence starting at
    // 2^(-8/H) with that ratio. Otherwise: the slopes of the largest power of two P < H,
    // then every other slope of the 2P sequence until H are chosen.
    int P = 1;
    while (P * 2 <= H) P *= 2;
    for (int h = 0; h < P; h++) slopes[h] = pow(2.0, -8.0 * (h + 1) / P);
    for (int k = 0; P + k < H; k++) slopes[P + k] = pow(2.0, -8.0 * (2 * k + 1) / (2 * P));
}

int t5_bucket(int D, int num_buckets, int max_distance) {
    // Raffel et al. 2020 (T5), causal form: half the buckets exact, the rest log-spaced
    // up to max_distance, all longer distances in the last bucket.
    if (D < 0) D = 0;
    int exact = num_buckets / 2;
    if (D < exact) return D;
    int b = exact + (int)floor(log((double)D / exact) / log((double)max_distance / exact) * (num_buckets - exact));
    return b < num_buckets - 1 ? b : num_buckets - 1;
}
