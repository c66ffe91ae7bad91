// series.c - from posgpt's CSV rows to the series `posgpt plot` draws. See series.h.
#include "series.h"

#include "chart.h"
#include "cli.h"
#include "common.h"
#include "csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// the style of a run label: a registered scheme's registry index (its colour in every
// figure), or -1 for a name of its own (a --label, a run's directory, a context extension
// such as rope+yarn). randomized-BASE takes BASE's, drawn dashed (*dashed = 1), so
// that a base and its randomized version read as one family; the older files' "randomized"
// (over sinusoidal) and a randomized label of no known base keep the colour after the schemes'.
static int scheme_style(const char *name, int *dashed) {
    int randomized, i = run_label_scheme(name, &randomized);
    *dashed = 0;
    if (!strcmp(name, "randomized") || (randomized && (i < 0 || strchr(name, '+')))) return pos_count();
    if (i < 0 || strchr(name, '+')) return -1;
    *dashed = randomized;
    return i;
}

// ---- rows ----
static Row *rows_add(Rows *rs) {
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 1024;
        Row *p = realloc(rs->r, (size_t)rs->cap * sizeof(Row));
        if (!p) die("plot: out of memory");
        rs->r = p;
    }
    Row *r = &rs->r[rs->n];
    memset(r, 0, sizeof *r);
    r->order = rs->n++;
    return r;
}

static int cmp_row(const void *a, const void *b) {
    const Row *p = a, *q = b;
    return p->x < q->x ? -1 : p->x > q->x ? 1 : p->order - q->order;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n) {
    if (n <= 0) return NAN;
    double *t = xmalloc((size_t)n * sizeof(double));
    memcpy(t, v, (size_t)n * sizeof(double));
    qsort(t, (size_t)n, sizeof(double), cmp_double); // n log n: a per-position file has a row per position
    double m = t[(n - 1) / 2]; // the lower median: with two series, the better one
    free(t);
    return m;
}

// name of a training run: `scheme = ...` in config.txt beside the log, else the directory name
static void run_name(const char *log_path, char *out, size_t n) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", log_path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    char cfg[1100];
    snprintf(cfg, sizeof cfg, "%s/config.txt", dir);
    FILE *f = fopen(cfg, "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            char *eq = strchr(line, '=');
            if (!eq) continue;
            *eq = 0;
            char *v = csv_trim(eq + 1), *nl = strchr(v, '\n');
            if (nl) *nl = 0;
            v = csv_trim(v);
            if (!strcmp(csv_trim(line), "scheme") && *v) {
                snprintf(out, n, "%s", v);
                fclose(f);
                return;
            }
        }
        fclose(f);
    }
    // no config: the directory's name ("." and "" mean the current directory)
    char abs[1024];
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    if (!strcmp(base, ".") || !*base) base = realpath(dir, abs) && strrchr(abs, '/') ? strrchr(abs, '/') + 1 : "run";
    snprintf(out, n, "%.*s", (int)n - 1, *base ? base : "run");
}

// --metric for the kind: accuracy takes exact | token (default exact), the others ppl | loss | bpc (default ppl)
static void resolve_metric(PlotQuery *q) {
    int acc = q->kind == KIND_ACCURACY, given = q->metric != NULL;
    if (!given) q->metric = acc ? "exact" : "ppl";
    int acc_metric = !strcmp(q->metric, "exact") || !strcmp(q->metric, "token");
    if (acc && !acc_metric) die("plot: --metric %s: kind accuracy takes exact or token", q->metric);
    if (!acc && acc_metric) die("plot: --metric %s applies to kind accuracy (task eval CSVs); these files take ppl, loss or bpc", q->metric);
}

// kind accuracy: the row's accuracy column (when present) is a number in [0, 1] that agrees with
// correct / examples, which the plot uses (to 0.005: a hand-written CSV may round to 2 places);
// --metric token: the token_accuracy column and tokens_correct / tokens
static void accuracy_check(const Csv *t, int r, int c_a, double want, int tokens) {
    if (c_a < 0) return;
    double a = csv_num(t, r, c_a, 0); // nan, inf: refused there, naming the value
    if (a < 0 || a > 1) die("plot: %s line %d: %s %g is outside [0, 1]", t->path, t->line[r], tokens ? "token_accuracy" : "accuracy", a);
    if (fabs(a - want) > 0.005)
        die("plot: %s line %d: %s %g disagrees with %s = %g; fix the row", t->path, t->line[r], tokens ? "token_accuracy" : "accuracy", a,
            tokens ? "tokens_correct / tokens" : "correct / examples", want);
}

void plot_rows_read(Rows *rs, PlotQuery *q) {
    char (*names)[96] = xcalloc((size_t)q->nfiles, sizeof *names);
    for (int fi = 0; fi < q->nfiles; fi++) {
        Csv t;
        csv_read(&t, q->files[fi]);
        if (q->kind < 0) { // auto: what the first file's header says
            q->kind = csv_col(&t, "train_loss", 0, "") >= 0 ? KIND_TRAINING : csv_col(&t, "position", 0, "") >= 0 ? KIND_POSITION
                 : csv_col(&t, "eval_len", 0, "") >= 0 ? KIND_PPL : csv_col(&t, "accuracy", 0, "") >= 0 ? KIND_ACCURACY : -1;
            if (q->kind < 0)
                die("plot: cannot tell what %s is from its header (%s); pass --kind ppl|position|training|accuracy", t.path, t.header);
        }
        if (fi == 0) resolve_metric(q);
        if (!t.nrow) die("plot: %s has a header but no rows", t.path);
        if (q->kind == KIND_TRAINING) {
            const char *what = "training log (posgpt train log.csv)";
            int c_step = csv_col(&t, "step", 1, what), c_tr = csv_col(&t, "train_loss", 1, what), c_va = csv_col(&t, "val_loss", 1, what);
            if (q->labels) snprintf(names[fi], 96, "%s", q->labels[fi]);
            else run_name(q->files[fi], names[fi], 96);
            for (int r = 0; r < t.nrow; r++) {
                double step = csv_num(&t, r, c_step, 0), tr = csv_num(&t, r, c_tr, 0), va = csv_num(&t, r, c_va, 1);
                for (int role = 0; role < 2; role++) {
                    if (role == 1 && isnan(va)) continue; // no validation on this row
                    Row *w = rows_add(rs);
                    snprintf(w->name, sizeof w->name, "%s", names[fi]);
                    w->role = role, w->x = step, w->y = role ? va : tr, w->file = fi, w->line = t.line[r];
                }
            }
        } else if (q->kind == KIND_ACCURACY) {
            const char *what = "posgpt task eval CSV";
            int c_t = csv_col(&t, "task", 1, what), c_s = csv_col(&t, "scheme", 1, what), c_tl = csv_col(&t, "train_max_len", 1, what);
            int tokens = !strcmp(q->metric, "token"); // per-token: the answer bytes right of the answer bytes
            int c_l = csv_col(&t, "len", 1, what), c_e = csv_col(&t, tokens ? "tokens" : "examples", 1, tokens ? "task eval CSV with per-token counts (--metric token)" : what);
            int c_c = csv_col(&t, tokens ? "tokens_correct" : "correct", 1, tokens ? "task eval CSV with per-token counts (--metric token)" : what);
            int c_a = csv_col(&t, tokens ? "token_accuracy" : "accuracy", 0, what);
            for (int r = 0; r < t.nrow; r++) {
                Row *w = rows_add(rs);
                const char *sch = csv_str(&t, r, c_s);
                if (!*sch || !*csv_str(&t, r, c_t)) die("plot: %s line %d: column 'scheme' or 'task' is empty", t.path, t.line[r]);
                snprintf(w->name, sizeof w->name, "%s", q->labels ? q->labels[fi] : sch);
                snprintf(w->protocol, sizeof w->protocol, "%s", csv_str(&t, r, c_t));
                double tl = csv_num(&t, r, c_tl, 0), len = csv_num(&t, r, c_l, 0), e = csv_num(&t, r, c_e, 0), c = csv_num(&t, r, c_c, 0);
                if (tl < 1 || tl > 1e9 || len < 1 || len > 1e9 || e < 1 || c < 0 || c > e || e > 1e15 || tl != floor(tl) || len != floor(len) ||
                    e != floor(e) || c != floor(c))
                    die("plot: %s line %d: train_max_len %g, len %g, %s %g, %s %g: out of range (lengths and counts are whole, lengths 1 "
                        "or more, 0 <= %s <= %s)",
                        t.path, t.line[r], tl, len, tokens ? "tokens" : "examples", e, tokens ? "tokens_correct" : "correct", c,
                        tokens ? "tokens_correct" : "correct", tokens ? "tokens" : "examples");
                accuracy_check(&t, r, c_a, c / e, tokens);
                w->train_len = (int)tl, w->x = len, w->y = c, w->count = e; // counts: pooled over depths, then divided
                w->file = fi, w->line = t.line[r];
            }
        } else {
            const char *what = q->kind != KIND_POSITION ? "posgpt eval CSV" : "posgpt eval --per-position CSV";
            int c_s = csv_col(&t, "scheme", 1, what), c_tl = csv_col(&t, "train_len", 1, what), c_el = csv_col(&t, "eval_len", 1, what);
            int c_pr = csv_col(&t, "protocol", 1, what);
            int c_y = csv_col(&t, q->kind != KIND_POSITION ? q->metric : "loss", 1, what);
            int c_x = q->kind == KIND_POSITION ? csv_col(&t, "position", 1, what)
                    : q->kind == KIND_OFFSET ? csv_col(&t, "pos_offset", 1, "posgpt eval CSV with --pos-offset") : c_el;
            int c_pos = csv_col(&t, "positions", 0, what), c_off = csv_col(&t, "pos_offset", 0, what), c_cnt = csv_col(&t, "count", 0, what);
            // a --label names the file's scheme; a file with several schemes keeps them apart
            int several = 0;
            for (int r = 1; r < t.nrow; r++) several |= strcmp(csv_str(&t, r, c_s), csv_str(&t, 0, c_s)) != 0;
            for (int r = 0; r < t.nrow; r++) {
                Row *w = rows_add(rs);
                const char *sch = csv_str(&t, r, c_s);
                if (!*sch) die("plot: %s line %d: column 'scheme' is empty", t.path, t.line[r]);
                if (q->labels && several) snprintf(w->name, sizeof w->name, "%s %s", q->labels[fi], sch);
                else snprintf(w->name, sizeof w->name, "%s", q->labels ? q->labels[fi] : sch);
                snprintf(w->protocol, sizeof w->protocol, "%s", csv_str(&t, r, c_pr));
                snprintf(w->positions, sizeof w->positions, "%s", c_pos >= 0 ? csv_str(&t, r, c_pos) : "contiguous");
                double tl = csv_num(&t, r, c_tl, 0), el = csv_num(&t, r, c_el, 0);
                if (tl < 1 || el < 1 || tl > 1e9 || el > 1e9)
                    die("plot: %s line %d: train_len %g / eval_len %g out of range", t.path, t.line[r], tl, el);
                w->train_len = (int)tl, w->eval_len = (int)el;
                w->offset = c_off >= 0 ? (int)csv_num(&t, r, c_off, 0) : 0;
                w->x = csv_num(&t, r, c_x, 0), w->y = csv_num(&t, r, c_y, 0);
                w->count = c_cnt >= 0 ? csv_num(&t, r, c_cnt, 0) : 1;
                if (w->count < 0) die("plot: %s line %d: count %g is negative", t.path, t.line[r], w->count);
                if (q->kind == KIND_POSITION && (w->x < 0 || w->x >= w->eval_len))
                    die("plot: %s line %d: position %g is outside the window [0, %d)", t.path, t.line[r], w->x, w->eval_len);
                if (q->kind == KIND_POSITION && q->xlog) w->x += 1;
                if (q->kind != KIND_POSITION && w->y <= 0) die("plot: %s line %d: %s = %g is not positive", t.path, t.line[r], q->metric, w->y);
                w->file = fi, w->line = t.line[r];
            }
        }
        csv_free(&t);
    }
    // training: two logs with the same name are told apart by their directories
    if (q->kind == KIND_TRAINING && !q->labels)
        for (int i = 0; i < q->nfiles; i++)
            for (int j = i + 1; j < q->nfiles; j++)
                if (!strcmp(names[i], names[j]))
                    die("plot: %s and %s are both runs named '%s'; name them with --label A,B,...", q->files[i], q->files[j], names[i]);
    free(names);
}

void plot_rows_filter(Rows *rs, PlotQuery *q) {
    const char *proto = q->protocol;
    if (q->kind != KIND_TRAINING && q->kind != KIND_ACCURACY && !strcmp(q->protocol, "auto")) {
        proto = "sliding";
        for (int i = 0; i < rs->n; i++)
            if (!strcmp(rs->r[i].protocol, "nonoverlapping")) proto = "nonoverlapping";
    }
    char seen_proto[64] = "";
    int kept = 0;
    for (int i = 0; i < rs->n; i++) {
        Row *w = &rs->r[i];
        if (q->kind != KIND_TRAINING && q->kind != KIND_ACCURACY) {
            if (!strstr(seen_proto, w->protocol) && strlen(seen_proto) + strlen(w->protocol) + 2 < sizeof seen_proto)
                strcat(seen_proto, *seen_proto ? ", " : ""), strcat(seen_proto, w->protocol);
            if (strcmp(proto, "both") && strcmp(w->protocol, proto)) continue;
            if (q->kind == KIND_PPL && strcmp(q->positions, "all") && strcmp(w->positions, q->positions)) continue;
        }
        if (q->ylog && w->y <= 0) die("plot: --ylog: %s line %d has a value %g; a log axis needs positive values", q->files[w->file], w->line, w->y);
        rs->r[kept++] = *w;
    }
    if (!kept)
        die("plot: no rows left after filtering (--protocol %s%s%s); the files have protocol %s", proto,
            q->kind == KIND_PPL ? ", --positions " : "", q->kind == KIND_PPL ? q->positions : "", seen_proto);
    rs->n = kept;
    q->protocol = proto;
}

// ---- series ----
// The files at one x of a series (seeds) become their mean, with their lowest and highest as
// a band. Kind accuracy first turns each file's point (its depths pooled) into correct / examples.
static void seeds_band(Series *s, int ratio) {
    int m = 0;
    s->ylo = xmalloc(((size_t)s->n + 1) * sizeof(double)), s->yhi = xmalloc(((size_t)s->n + 1) * sizeof(double));
    for (int k = 0; k < s->n;) {
        int k1 = k;
        double sum = 0, lo = INFINITY, hi = -INFINITY, ex = 0;
        for (; k1 < s->n && s->x[k1] == s->x[k]; k1++) {
            double a = ratio ? s->y[k1] / s->count[k1] : s->y[k1];
            sum += a, lo = fmin(lo, a), hi = fmax(hi, a), ex += s->count[k1];
        }
        s->seeds = k1 - k > s->seeds ? k1 - k : s->seeds;
        s->x[m] = s->x[k], s->y[m] = sum / (k1 - k), s->ylo[m] = lo, s->yhi[m] = hi, s->count[m] = ex;
        s->file[m] = s->file[k], s->line[m] = s->line[k], m++;
        k = k1;
    }
    s->n = m;
    if (s->seeds < 2) free(s->ylo), free(s->yhi), s->ylo = s->yhi = NULL;
}

void series_build(SeriesSet *ss, Rows *rs, const PlotQuery *q) {
    memset(ss, 0, sizeof *ss);
    int vary_proto = 0, vary_pos = 0, vary_tl = 0, vary_el = 0, vary_off = 0;
    for (int i = 1; i < rs->n; i++) {
        vary_proto |= strcmp(rs->r[i].protocol, rs->r[0].protocol) != 0;
        vary_pos |= strcmp(rs->r[i].positions, rs->r[0].positions) != 0;
        vary_tl |= rs->r[i].train_len != rs->r[0].train_len;
        vary_el |= rs->r[i].eval_len != rs->r[0].eval_len;
        vary_off |= rs->r[i].offset != rs->r[0].offset;
    }
    if (q->kind == KIND_PPL) vary_el = 0;    // eval_len is the x axis
    if (q->kind == KIND_OFFSET) vary_off = 0; // pos_offset is the x axis
    // a --label names its series whole, unless one name covers several training lengths:
    // then each keeps its length, as without labels (never two models drawn as one line)
    char(*tl_name)[96] = NULL;
    int *tl_first = NULL, *tl_multi = NULL, ntl = 0;
    if (vary_tl && q->labels) {
        tl_name = xmalloc((size_t)rs->n * sizeof *tl_name), tl_first = xmalloc((size_t)rs->n * sizeof(int));
        tl_multi = xmalloc((size_t)rs->n * sizeof(int));
        for (int i = 0; i < rs->n; i++) {
            int k = 0;
            while (k < ntl && strcmp(tl_name[k], rs->r[i].name)) k++;
            if (k == ntl) snprintf(tl_name[ntl], sizeof tl_name[ntl], "%s", rs->r[i].name), tl_first[ntl] = rs->r[i].train_len, tl_multi[ntl++] = 0;
            else tl_multi[k] |= rs->r[i].train_len != tl_first[k];
        }
    }
    // series in the order of their first row in the files; a colour per name
    Series *se = NULL;
    int ns = 0, scap = 0, nnames = 0;
    char(*name_of)[160] = NULL;
    for (int i = 0; i < rs->n; i++) {
        Row *w = &rs->r[i];
        char key[160];
        int o = snprintf(key, sizeof key, "%s", w->name);
        if (vary_pos && strcmp(w->positions, "contiguous") && o < 150) // contiguous is the default: not repeated on every label
            o += snprintf(key + o, sizeof key - o, ", %s positions", w->positions);
        if (vary_off && w->offset && o < 150) o += snprintf(key + o, sizeof key - o, ", offset %d", w->offset);
        int tl_suffix = vary_tl;
        if (vary_tl && q->labels) {
            int k = 0;
            while (k < ntl && strcmp(tl_name[k], w->name)) k++;
            tl_suffix = k < ntl && tl_multi[k];
        }
        if (tl_suffix && o < 150) o += snprintf(key + o, sizeof key - o, ", trained at %d", w->train_len);
        if (vary_el && o < 150) o += snprintf(key + o, sizeof key - o, ", L = %d", w->eval_len);
        if (vary_proto && o < 150) o += snprintf(key + o, sizeof key - o, ", %s", w->protocol);
        char full[170];
        snprintf(full, sizeof full, "%s#%d", key, w->role);
        int k = 0;
        while (k < ns && strcmp(se[k].key, full)) k++;
        if (k == ns) {
            if (ns >= 64) die("plot: more than 64 series; filter the files or plot fewer");
            if (ns == scap) {
                scap = scap ? 2 * scap : 16;
                Series *p = realloc(se, (size_t)scap * sizeof *se);
                char(*nq)[160] = realloc(name_of, (size_t)scap * sizeof *name_of);
                if (!p || !nq) die("plot: out of memory");
                se = p, name_of = nq;
            }
            memset(&se[ns], 0, sizeof *se);
            snprintf(se[ns].key, sizeof se[ns].key, "%s", full);
            snprintf(se[ns].label, sizeof se[ns].label, "%s", key);
            se[ns].role = w->role, se[ns].train_len = w->train_len;
            int nid = 0; // a training run's two curves share the colour of its name
            while (nid < nnames && strcmp(name_of[nid], key)) nid++;
            if (nid == nnames) snprintf(name_of[nnames++], 160, "%s", key);
            // a registered scheme keeps one colour in every figure (its registry index);
            // other names follow, in order of appearance
            int style = scheme_style(w->name, &se[ns].dashed);
            se[ns].name_id = style >= 0 ? style : pos_count() + 1 + nid;
            ns++;
        }
        w->sid = k;
    }
    // a second series of the same scheme and role gets another dash (its variant: the earlier
    // ones); a randomized one comes after all of its base's, dashed even where the base is absent
    for (int i = 0; i < ns; i++) {
        int before = 0, plain = 0;
        for (int j = 0; j < ns; j++)
            if (j != i && se[j].name_id == se[i].name_id && se[j].role == se[i].role) {
                plain += !se[j].dashed;
                before += j < i && se[j].dashed == se[i].dashed;
            }
        se[i].variant = se[i].dashed ? (plain > 1 ? plain : 1) + before : before;
    }
    qsort(rs->r, (size_t)rs->n, sizeof(Row), cmp_row);
    for (int i = 0; i < rs->n; i++) {
        Row *w = &rs->r[i];
        Series *s = &se[w->sid];
        if (s->n && s->x[s->n - 1] == w->x) { // the same point twice
            if (q->kind == KIND_ACCURACY && s->file[s->n - 1] == w->file) { // another depth of the same file: pooled
                s->y[s->n - 1] += w->y, s->count[s->n - 1] += w->count;
                continue;
            }
            int seeded = q->kind == KIND_ACCURACY || (q->seeds && (q->kind == KIND_PPL || q->kind == KIND_OFFSET));
            if (seeded && s->file[s->n - 1] != w->file) goto append; // another file: a seed, averaged below
            if (q->kind == KIND_TRAINING) { // a resumed run logs some steps again: the later row wins
                s->y[s->n - 1] = w->y, s->file[s->n - 1] = w->file, s->line[s->n - 1] = w->line;
                continue;
            }
            if (s->y[s->n - 1] == w->y) continue; // an identical row in two files
            die("plot: %s line %d and %s line %d both give '%s' at %s %g with different values; "
                "name the files with --label A,B,...%s", q->files[s->file[s->n - 1]], s->line[s->n - 1], q->files[w->file], w->line, s->label,
                q->kind == KIND_PPL ? "length" : q->kind == KIND_OFFSET ? "offset" : "position", w->x - (q->kind == KIND_POSITION && q->xlog ? 1 : 0),
                s->file[s->n - 1] != w->file && (q->kind == KIND_PPL || q->kind == KIND_OFFSET)
                    ? ", or, if they are seeds of one run, pass --seeds (their mean, with a band from the lowest to the highest)" : "");
        }
    append:
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 64;
            s->x = realloc(s->x, s->cap * sizeof(double)), s->y = realloc(s->y, s->cap * sizeof(double));
            s->count = realloc(s->count, s->cap * sizeof(double));
            s->file = realloc(s->file, s->cap * sizeof(int)), s->line = realloc(s->line, s->cap * sizeof(int));
            if (!s->x || !s->y || !s->count || !s->file || !s->line) die("plot: out of memory");
        }
        s->x[s->n] = w->x, s->y[s->n] = w->y, s->count[s->n] = w->count, s->file[s->n] = w->file, s->line[s->n] = w->line;
        s->n++;
    }

    // training: a run's train loss is a light background curve when it has validation points
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns && q->kind == KIND_TRAINING; j++)
            if (se[i].role == 0 && se[j].role == 1 && se[j].name_id == se[i].name_id) se[i].light = 1;
    free(name_of), free(tl_name), free(tl_first), free(tl_multi);
    ss->s = se, ss->n = ns;
    if (q->kind == KIND_ACCURACY || (q->seeds && (q->kind == KIND_PPL || q->kind == KIND_OFFSET)))
        for (int i = 0; i < ns; i++) seeds_band(&se[i], q->kind == KIND_ACCURACY);
    ss->vary_pos = vary_pos, ss->vary_tl = vary_tl, ss->vary_el = vary_el;
}

int series_smooth(SeriesSet *ss, const PlotQuery *q, int smooth) {
    Series *se = ss->s;
    int ns = ss->n;
    // kind position: moving average over --smooth positions, weighted by the window counts;
    // auto: n/64 positions, at most a quarter of the training length (the transition stays sharp)
    if (q->kind == KIND_POSITION && smooth == 0) {
        int nmax = 0, tmin = 1 << 30;
        for (int i = 0; i < ns; i++) nmax = nmax > se[i].n ? nmax : se[i].n, tmin = tmin < se[i].train_len ? tmin : se[i].train_len;
        smooth = nmax / 64 < tmin / 4 ? nmax / 64 : tmin / 4;
        if (smooth < 1) smooth = 1;
    }
    if (q->kind == KIND_POSITION && smooth > 1)
        for (int i = 0; i < ns; i++) {
            Series *s = &se[i];
            // prefix sums of the counts and of count * y: each window's sums in O(1), so the
            // whole smoothing is O(n) at any width (a loop per window was O(n * smooth))
            double *y = xmalloc((size_t)s->n * sizeof(double)), *cw = xmalloc(2 * ((size_t)s->n + 1) * sizeof(double));
            double *cy = cw + s->n + 1;
            cw[0] = cy[0] = 0;
            for (int k = 0; k < s->n; k++) cw[k + 1] = cw[k] + s->count[k], cy[k + 1] = cy[k] + s->count[k] * s->y[k];
            for (int k = 0; k < s->n; k++) {
                // 2h+1 positions around k; narrower at the start, where the loss falls fast
                // (a wide window there would lift the curve); cut off at the end of the window
                int h = smooth / 2, hk = (int)((s->x[k] - s->x[0]) / 8 < h ? (s->x[k] - s->x[0]) / 8 : h);
                h = h < hk ? h : hk, h = h < k ? h : k;
                int hi = k + h + 1 < s->n ? k + h + 1 : s->n;
                double sw = cw[hi] - cw[k - h], sy = cy[hi] - cy[k - h];
                y[k] = sw > 0 ? sy / sw : s->y[k];
            }
            free(cw);
            // the raw values go light beneath the averages when there are few series; with
            // more, a dozen ribbons hide every curve, so only the averages are drawn
            if (ns <= 4) s->raw = s->y;
            else free(s->y);
            s->y = y;
        }

    return q->kind == KIND_POSITION && smooth > 1 ? smooth : 1;
}

// ---- styles ----
// Every series gets a (colour, marker, dash) that no other series of the figure has. A
// registered scheme (and randomized, after them) prefers its registry colour, so a scheme
// looks the same in every figure; a colour already taken in this figure passes to the next
// free one (names that are not schemes start after the schemes' colours). Series of one
// name (a scheme's contiguous and random positions, a run's train and validation loss)
// share its colour and marker and differ in dash. Past PALETTE_SIZE names colours repeat
// with another dash.
void series_styles(SeriesSet *ss) {
    Series *se = ss->s;
    int ns = ss->n;
    int used[PALETTE_SIZE] = {0}, nnames = 0, *first = xmalloc(((size_t)ns + 1) * sizeof(int));
    for (int i = 0; i < ns; i++) { // first[i]: the series of i's name that picks the colour (the least variant, then the first), or i itself if a new colour is due
        first[i] = i;
        if (se[i].variant < DASH_COUNT)
            for (int j = 0; j < ns; j++)
                if (se[j].name_id == se[i].name_id && se[j].variant < DASH_COUNT &&
                    (se[j].variant < se[first[i]].variant || (se[j].variant == se[first[i]].variant && j < first[i])))
                    first[i] = j;
        se[i].color = -1;
    }
    // schemes first, in their registry colours; then other names in the free colours, in
    // palette order (the faint yellow last); more names than colours: colours again, dashed
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ns; i++) {
            if (first[i] != i || se[i].color >= 0) continue;
            int pref = se[i].variant < DASH_COUNT && se[i].name_id <= pos_count() ? se[i].name_id : -1, c = -1, dash = DASH_SOLID;
            if (pass == 0) {
                if (pref < 0 || pref >= PALETTE_SIZE || used[pref]) continue;
                c = pref;
            }
            for (int k = 0; k < PALETTE_SIZE && c < 0; k++)
                if (!used[k]) c = k;
            if (c < 0) c = nnames % PALETTE_SIZE, dash = (nnames / PALETTE_SIZE) % DASH_COUNT;
            used[c] = 1, nnames++;
            se[i].color = c, se[i].marker = c % MARK_COUNT, se[i].dash = (dash + (se[i].variant < DASH_COUNT ? se[i].variant : 0)) % DASH_COUNT;
        }
    for (int i = 0; i < ns; i++) // a second series of a name: its colour and marker, the dash of its variant
        if (first[i] != i) {
            const Series *f = &se[first[i]];
            int base = ((f->dash - f->variant) % DASH_COUNT + DASH_COUNT) % DASH_COUNT;
            se[i].color = f->color, se[i].marker = f->marker, se[i].dash = (base + se[i].variant) % DASH_COUNT;
        }
    free(first);
}

void series_free(SeriesSet *ss) {
    for (int i = 0; i < ss->n; i++) {
        Series *s = &ss->s[i];
        free(s->x), free(s->y), free(s->raw), free(s->count), free(s->file), free(s->line), free(s->ylo), free(s->yhi);
    }
    free(ss->s);
    memset(ss, 0, sizeof *ss);
}

// ---- y range: a robust clip so one exploding series does not flatten the others ----
// reference level: per series, the value at the training length (ppl), the median before
// the training length (position), the lowest validation loss (training); limit = factor x
// the (lower) median reference. Perplexity is exp(loss), so its factor is larger.
YClip series_yclip(const SeriesSet *ss, const PlotQuery *q, double ymin, double ymax, int no_clip) {
    const Series *se = ss->s;
    int ns = ss->n;
    double *ref = xmalloc((size_t)ns * sizeof(double)), dmin = INFINITY, dmax = -INFINITY;
    int nref = 0, npts = 0;
    for (int i = 0; i < ns; i++) {
        const Series *s = &se[i];
        for (int k = 0; k < s->n; k++) dmin = fmin(dmin, s->y[k]), dmax = fmax(dmax, s->y[k]), npts++;
        for (int k = 0; k < s->n && s->raw; k++) dmin = fmin(dmin, s->raw[k]), dmax = fmax(dmax, s->raw[k]);
        if (q->kind == KIND_PPL || q->kind == KIND_OFFSET) { // at the training length / offset 0
            double r = INFINITY;
            for (int k = 0; k < s->n; k++) r = fmin(r, s->y[k]);
            for (int k = 0; k < s->n; k++)
                if (s->x[k] == (q->kind == KIND_PPL ? s->train_len : 0)) r = s->y[k];
            ref[nref++] = r;
        } else if (q->kind == KIND_POSITION) {
            int m = 0;
            while (m < s->n && s->x[m] - (q->xlog ? 1 : 0) < s->train_len) m++;
            ref[nref++] = median(s->y, m ? m : s->n);
        } else {
            int has_val = 0;
            for (int j = 0; j < ns; j++) has_val |= se[j].name_id == s->name_id && se[j].role == 1;
            double best = INFINITY; // the lowest loss the run reached (a diverging run ends high)
            for (int k = 0; k < s->n; k++) best = fmin(best, s->y[k]);
            if (s->role == 1 || !has_val) ref[nref++] = best;
        }
    }
    double factor = q->kind != KIND_POSITION && q->kind != KIND_TRAINING && !strcmp(q->metric, "ppl") ? 5 : 3, base = median(ref, nref), limit = factor * base;
    if (q->kind == KIND_ACCURACY) limit = INFINITY; // accuracy lives in [0, 1]: never clipped
    double clip = NAN;
    int yclip = 0, nabove = 0;
    const char *clip_why = NULL;
    if (!isnan(ymax)) clip = ymax, yclip = 1, clip_why = "--ymax";
    else if (!q->ylog && !no_clip && dmax > limit) {
        double kept_max = -INFINITY;
        for (int i = 0; i < ns; i++)
            for (int k = 0; k < se[i].n; k++) {
                if (se[i].y[k] <= limit) kept_max = fmax(kept_max, se[i].y[k]);
                if (se[i].raw && se[i].raw[k] <= limit) kept_max = fmax(kept_max, se[i].raw[k]);
            }
        double lo = isnan(ymin) ? dmin : ymin, span = kept_max - lo > 0 ? kept_max - lo : fabs(kept_max) * 0.2 + 1e-9;
        double step = nice_step(span * 1.08, 6);
        clip = ceil((kept_max + 0.04 * span) / step) * step, yclip = 1, clip_why = "robust";
        if (!(clip > lo)) clip = kept_max + step;
    }
    if (yclip)
        for (int i = 0; i < ns; i++)
            for (int k = 0; k < se[i].n && !se[i].light; k++) nabove += se[i].y[k] > clip; // what gets a mark
    free(ref);
    return (YClip){.dmin = dmin, .dmax = dmax, .npts = npts, .clip = yclip, .top = clip, .why = clip_why, .nabove = nabove};
}
