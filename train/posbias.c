// posbias.c - a scheme's score bias as a table per layer, head and distance. See posbias.h.
#include "posbias.h"

#include "fileio.h"

#include <stdlib.h>
#include <string.h>

int posbias_has(const PosScheme *s) { return s->bias_forward != NULL; }

const char *posbias_schemes(void) {
    static char buf[512];
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < pos_count(); i++)
        if (posbias_has(pos_at(i)) && n < sizeof buf)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? "|" : "", pos_at(i)->name);
    return buf;
}

const char *posbias_instead(const PosScheme *s) {
    if (s->qk_forward || s->qk_decay) return "it transforms q and k";
    if (s->score_forward) return "its logit term depends on the contents q and k, not on the positions alone";
    if (s->input_forward) return "it adds to the input embedding";
    return "it has no position term at all";
}

// the distances whose bias the summary shows: 1, 10, T, 16 T (those <= maxd, each once)
static int marks(int T, int maxd, int *d) {
    int want[4] = {1, 10, T, 16 * T}, n = 0;
    for (int i = 0; i < 4; i++)
        if (want[i] <= maxd && (n == 0 || want[i] > d[n - 1])) d[n++] = want[i];
    return n;
}

// the largest |bias| of a row and where: the first distance that reaches it
typedef struct {
    double peak;
    int at;
} Peak;

static Peak row_peak(const real *b, int n) {
    Peak p = {-1, 0};
    for (int d = 0; d < n; d++)
        if (fabs((double)b[d]) > p.peak) p.peak = fabs((double)b[d]), p.at = d;
    return p;
}

static void print_line(const char *layer, const char *head, Peak p, const double *at, int nm) {
    printf("  %-5s %4s %12.6g %9d", layer, head, p.peak, p.at);
    for (int i = 0; i < nm; i++) printf(" %12.6g", at[i]);
    printf("\n");
}

// the header of the summary: the distances of the columns
static void print_head(const int *mk, int nm) {
    printf("  %-5s %4s %12s %9s", "layer", "head", "max |bias|", "at d");
    char col[24];
    for (int i = 0; i < nm; i++) snprintf(col, sizeof col, "d=%d", mk[i]), printf(" %12s", col);
    printf("\n");
}

void posbias_report(const GPT *m, const char *path, int maxd, const char *what) {
    const GPTConfig *c = &m->cfg;
    const PosScheme *s = gpt_scheme(m, 0)->scheme;
    int mp = gpt_max_pos(m), n = maxd + 1, mk[4], nm = marks(c->T, maxd, mk);
    if (mp && maxd >= mp) die("info --bias-max-dist %d: scheme '%s' serves positions 0..%d; give at most %d", maxd, s->name, mp - 1, mp - 1);
    int *kpos = xmalloc((size_t)n * sizeof(int));
    real *b = xmalloc((size_t)n * sizeof(real));
    for (int d = 0; d < n; d++) kpos[d] = maxd - d;
    printf("position bias   %s (%s): a query at position %d against keys at distances d = 0..%d%s; table %s\n", s->name, what,
           maxd, maxd, s->relative ? "" : " (not relative: the bias the last query of a window of that length sees)", path);
    print_head(mk, nm);
    OutFile o;
    FILE *f = out_open(&o, path, "bias table");
    fprintf(f, "layer,head,distance,bias\n");
    Peak all = {-1, 0};
    double all_at[4] = {0};
    char layer[16], head[16], where[48] = "";
    for (int l = 0; l < m->nsch; l++) {
        const PosState *ps = &m->sch[l];
        if (s->tabulate) s->tabulate(ps, n); // as the attention does before its pass
        snprintf(layer, sizeof layer, m->nsch > 1 ? "%d" : "all", l);
        for (int h = 0; h < ps->NH; h++) {
            memset(b, 0, (size_t)n * sizeof(real));
            s->bias_forward(ps, h, maxd, kpos, n, b);
            for (int d = 0; d < n; d++) fprintf(f, "%s,%d,%d,%.9g\n", layer, h, d, (double)b[d]);
            Peak p = row_peak(b, n);
            double at[4];
            for (int i = 0; i < nm; i++) {
                at[i] = b[mk[i]];
                if (fabs(at[i]) > fabs(all_at[i])) all_at[i] = at[i];
            }
            snprintf(head, sizeof head, "%d", h);
            print_line(layer, head, p, at, nm);
            if (p.peak > all.peak) all = p, snprintf(where, sizeof where, m->nsch > 1 ? "layer %s, head %d" : "%.0shead %d", layer, h);
        }
    }
    print_line("all", "all", all, all_at, nm);
    printf("  (all: the largest |bias| of every head, at %s; at each d the bias of the largest magnitude there)\n", where);
    out_commit(&o);
    free(kpos), free(b);
}
