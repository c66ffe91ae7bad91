// core.c - the position-scheme registry and what the model needs of any scheme: its state,
// its tensors under the model's sharing, context extensions by name, the q/k decay helpers.
// Adding a scheme: write model/pos/NAME.c defining `const PosScheme pos_NAME`, then add one
// line X(NAME) to SCHEMES below. Nothing else in the model, trainer or tests names a scheme.
#include "pos.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// the registry: one line per scheme, in the order lists show them
#define SCHEMES(X)                                                                                                     \
    X(sinusoidal)                                                                                                      \
    X(learned)                                                                                                         \
    X(t5)                                                                                                              \
    X(alibi)                                                                                                           \
    X(rope)                                                                                                            \
    X(nope)                                                                                                            \
    X(kerple_log)                                                                                                      \
    X(kerple_power)                                                                                                    \
    X(sandwich)                                                                                                        \
    X(xpos)                                                                                                            \
    X(fire)                                                                                                            \
    X(cope)                                                                                                            \
    X(shaw)                                                                                                            \
    X(xl)

#define DECLARE(name) extern const PosScheme pos_##name;
#define ADDRESS(name) &pos_##name,
SCHEMES(DECLARE)
static const PosScheme *const REGISTRY[] = {SCHEMES(ADDRESS)};
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
    int end = 0;
    for (int i = 0; i < POS_MAX_HYPER; i++) {
        end = end || !s->hypers[i].name;
        hp[i] = end ? 0.0f : s->hypers[i].def;
    }
}

static const char *const SHARING_NAMES[POS_SHARING_COUNT] = {"paper", "shared", "layer"};

const char *pos_sharing_name(int sharing) {
    return sharing >= 0 && sharing < POS_SHARING_COUNT ? SHARING_NAMES[sharing] : "?";
}

int pos_sharing_parse(const char *name) {
    for (int i = 0; i < POS_SHARING_COUNT; i++)
        if (strcmp(SHARING_NAMES[i], name) == 0) return i;
    return -1;
}

// ---- state ----
void pos_state_fill(PosState *ps, const PosScheme *s, int C, int NH, int rows, const float *hp, int sharing) {
    memset(ps, 0, sizeof(*ps));
    ps->scheme = s;
    ps->C = C;
    ps->NH = NH;
    ps->HS = NH > 0 ? C / NH : 0;
    ps->rows = rows;
    ps->sharing = sharing;
    if (hp) memcpy(ps->hp, hp, sizeof(ps->hp));
    else pos_default_hypers(s, ps->hp);
}

const char *pos_check(const PosState *ps, char *err, size_t n) {
    if (ps->sharing < 0 || ps->sharing >= POS_SHARING_COUNT) {
        snprintf(err, n, "unknown parameter sharing %d", ps->sharing);
        return err;
    }
    return ps->scheme->validate ? ps->scheme->validate(ps, err, n) : NULL;
}

int pos_tensors(const PosState *ps, PosTensor *t) {
    const PosScheme *s = ps->scheme;
    int n = s->tensors ? s->tensors(ps, t) : 0;
    for (int k = 0; k < n; k++) {
        if (ps->sharing == POS_SHARING_SHARED) t[k].per_layer = 0;
        if (ps->sharing == POS_SHARING_LAYER) t[k].per_layer = 1;
        if (s->input_forward) t[k].per_layer = 0; // the input has no layers
    }
    return n;
}

size_t pos_tensor_size(const PosTensor *t) {
    size_t n = 1;
    for (int d = 0; d < t->ndim; d++) n *= t->dims[d];
    return n;
}

size_t pos_param_count(const PosState *ps, int L) {
    PosTensor t[POS_MAX_TENSORS];
    int nt = pos_tensors(ps, t);
    size_t total = 0;
    for (int k = 0; k < nt; k++) total += pos_tensor_size(&t[k]) * (t[k].per_layer ? (size_t)L : 1);
    return total;
}

double pos_train_flops(const PosState *ps, int T, int L) {
    // the backward taken as twice the forward, the convention of the model's 6 N (docs/usage.md)
    return ps->scheme->flops ? 3.0 * ps->scheme->flops(ps, T, L) : 0.0;
}

int pos_per_layer(const PosState *ps) {
    PosTensor t[POS_MAX_TENSORS];
    int nt = pos_tensors(ps, t), any = 0;
    for (int k = 0; k < nt; k++) any |= t[k].per_layer;
    return any;
}

void pos_prepare(PosState *ps) {
    if (ps->scheme->prepare) ps->scheme->prepare(ps);
}

void pos_release(PosState *ps) {
    if (ps->scheme && ps->scheme->release) ps->scheme->release(ps);
    ps->cache = NULL;
}

// ---- context extensions ----
// 1 if `name` is one of the '|'-separated words of `list`
static int listed(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

int pos_has_extension(const PosScheme *s, const char *method) { return listed(s->extensions, method); }

const char *pos_extension_names(void) {
    static char buf[256];
    if (!buf[0])
        for (int i = 0; i < NREG; i++)
            for (const char *p = REGISTRY[i]->extensions; p && *p;) {
                const char *e = strchr(p, '|');
                char word[32];
                snprintf(word, sizeof word, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
                if (!listed(buf, word)) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", *buf ? "|" : "", word);
                p = e ? e + 1 : NULL;
            }
    return buf;
}

int pos_extension_known(const char *method) { return listed(pos_extension_names(), method); }

const char *pos_extend(PosState *ps, const PosExtension *e, char *err, size_t n) {
    const PosScheme *s = ps->scheme;
    if (!strcmp(e->method, "none")) // back to the plain scheme
        return s->extend ? s->extend(ps, &(PosExtension){.method = "none", .train_len = e->train_len}, err, n) : NULL;
    if (!s->extend || !listed(s->extensions, e->method)) {
        char ok[160] = "";
        for (int i = 0; i < NREG; i++)
            if (REGISTRY[i]->extend && listed(REGISTRY[i]->extensions, e->method))
                snprintf(ok + strlen(ok), sizeof ok - strlen(ok), "%s%s", *ok ? ", " : "", REGISTRY[i]->name);
        if (*ok) snprintf(err, n, "%s applies to %s checkpoints; this one uses '%s'", e->method, ok, s->name);
        else snprintf(err, n, "unknown context extension '%s'", e->method);
        return err;
    }
    if (!(e->factor == 0 || (e->factor >= 1 && e->factor < 1e30))) {
        snprintf(err, n, "the scale factor must be >= 1 (or 0: from the window length), got %g", e->factor);
        return err;
    }
    return s->extend(ps, e, err, n);
}

// ---- q/k decay ----
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
