// cmd_plot.c - `posgpt plot`: PNG figures from posgpt's CSV files.
//   --kind ppl       perplexity (or loss, bpc) vs evaluation length, from `posgpt eval` CSVs
//   --kind position  loss by position in the window, from `posgpt eval --per-position` CSVs
//   --kind training  train and validation loss vs step, from `posgpt train` log.csv files
//   --kind offset    loss (or ppl, bpc) vs the first position of the window (eval --pos-offset),
//                    from `posgpt eval` CSVs: the shift test of Sinha et al. 2022
// Here: reading and checking the CSV files (columns found by name; every bad value is a
// one-line error naming the file and line), grouping rows into series, the y range policy
// (a robust clip so one exploding scheme does not flatten the others) and the captions.
// Not here: drawing (plot.c).
#include "args.h"
#include "cli.h"
#include "fileio.h"
#include "plot.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { KIND_PPL, KIND_POSITION, KIND_TRAINING, KIND_OFFSET };

// ---- CSV: a header row, comma-separated cells, no quoting ----
// registry index of a scheme name ("randomized-*" after the registry), or -1
static int scheme_style(const char *name) {
    for (int i = 0; i < pos_count(); i++)
        if (!strcmp(name, pos_at(i)->name)) return i;
    return strncmp(name, "randomized", 10) ? -1 : pos_count();
}

typedef struct {
    const char *path;
    char *text;     // the file, cut into cells in place
    char header[512];
    int ncol;
    char *col[64];  // (ncol) column names
    int nrow;
    char **cell;    // (nrow, ncol)
    int *line;      // (nrow) line number of each row in the file
} Csv;

// append printf-style to a string buffer, truncating at its size
static void append(char *buf, size_t n, const char *fmt, ...) POSGPT_PRINTF(3, 4);
static void append(char *buf, size_t n, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) *--e = 0;
    return s;
}

// a field in double quotes loses them ("" inside stands for "); commas inside quotes are
// not special here: posgpt's own CSVs never quote, and a quoted comma splits the field (the
// field count then disagrees with the header, which is an error naming the line)
static char *unquote(char *f) {
    size_t len = strlen(f);
    if (len < 2 || f[0] != '"' || f[len - 1] != '"') return f;
    f[len - 1] = 0, f++;
    char *w = f;
    for (char *r = f; *r; r++) {
        *w++ = *r;
        if (r[0] == '"' && r[1] == '"') r++;
    }
    *w = 0;
    return trim(f);
}

static int split(char *s, char **out, int max) {
    int n = 0;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma) *comma = 0;
        if (n < max) out[n] = unquote(trim(s));
        n++;
        if (!comma) break;
        s = comma + 1;
    }
    return n;
}

static void csv_read(Csv *t, const char *path) {
    memset(t, 0, sizeof *t);
    t->path = path;
    size_t n;
    t->text = (char *)read_regular_file(path, "plot input", (size_t)1 << 30, &n);
    // what spreadsheets write: a UTF-8 byte-order mark (skipped), CRLF line endings and
    // spaces around fields (trimmed), quoted fields (unquoted in split); UTF-16, old Mac CR
    // line endings and ';' separators get an error that names them
    const unsigned char *u = (const unsigned char *)t->text;
    if (n >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF)))
        die("plot: '%s' is UTF-16 text; save it as UTF-8 (or plain) CSV", path);
    if (memchr(t->text, 0, n)) die("plot: '%s' is not a text CSV file (it contains NUL bytes)", path);
    if (n >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) memmove(t->text, t->text + 3, n - 2), n -= 3;
    if (!memchr(t->text, '\n', n) && memchr(t->text, '\r', n)) // CR only: one line to us
        for (size_t i = 0; i < n; i++) t->text[i] = t->text[i] == '\r' ? '\n' : t->text[i];
    // lines
    int nlines = 1;
    for (size_t i = 0; i < n; i++) nlines += t->text[i] == '\n';
    char **lines = xmalloc((size_t)nlines * sizeof(char *));
    int nl = 0;
    for (char *p = t->text; p;) {
        char *e = strchr(p, '\n');
        if (e) *e = 0;
        lines[nl++] = p;
        p = e ? e + 1 : NULL;
    }
    int h = 0;
    while (h < nl && !*trim(lines[h])) h++;
    if (h == nl) die("plot: '%s' is empty (no header row)", path);
    snprintf(t->header, sizeof t->header, "%s", trim(lines[h]));
    if (!strchr(t->header, ',') && strchr(t->header, ';'))
        die("plot: '%s' separates its fields with ';'; posgpt reads comma-separated files (the header is: %s)", path, t->header);
    t->ncol = split(lines[h], t->col, 64);
    if (t->ncol > 64) die("plot: '%s' has %d columns; at most 64", path, t->ncol);
    t->cell = xmalloc((size_t)nl * t->ncol * sizeof(char *) + 1);
    t->line = xmalloc((size_t)nl * sizeof(int) + 1);
    for (int i = h + 1; i < nl; i++) {
        if (!*trim(lines[i])) continue; // blank lines (a trailing newline) are fine
        int k = split(lines[i], t->cell + (size_t)t->nrow * t->ncol, t->ncol);
        if (k != t->ncol) die("plot: %s line %d: %d fields, but the header has %d", path, i + 1, k, t->ncol);
        t->line[t->nrow++] = i + 1;
    }
    free(lines);
}

static void csv_free(Csv *t) { free(t->text), free(t->cell), free(t->line); }

// index of a column; required columns missing are an error naming the file and the header
static int csv_col(const Csv *t, const char *name, int required, const char *what) {
    for (int k = 0; k < t->ncol; k++)
        if (!strcmp(t->col[k], name)) return k;
    if (required) die("plot: %s has no column '%s' (a %s has it; the header is: %s)", t->path, name, what, t->header);
    return -1;
}

static const char *csv_str(const Csv *t, int r, int c) { return t->cell[(size_t)r * t->ncol + c]; }

// a finite number, or an error naming the file, line and column; empty cells give NAN when allowed
static double csv_num(const Csv *t, int r, int c, int allow_empty) {
    const char *s = csv_str(t, r, c);
    if (!*s) {
        if (allow_empty) return NAN;
        die("plot: %s line %d: column '%s' is empty", t->path, t->line[r], t->col[c]);
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end) die("plot: %s line %d: column '%s' is '%s', not a number", t->path, t->line[r], t->col[c], s);
    if (!isfinite(v)) die("plot: %s line %d: column '%s' is '%s', not a finite number", t->path, t->line[r], t->col[c], s);
    return v;
}

// ---- styles ----
// Every series gets a (colour, marker, dash) that no other series of the figure has. A
// registered scheme (and randomized, after them) prefers its registry colour, so a scheme
// looks the same in every figure; a colour already taken in this figure passes to the next
// free one (names that are not schemes start after the schemes' colours). Series of one
// name (a scheme's contiguous and random positions, a run's train and validation loss)
// share its colour and marker and differ in dash. Past PALETTE_SIZE names colours repeat
// with another dash.
typedef struct Series Series;
static void assign_styles(Series *se, int ns);

// ---- rows and series ----
typedef struct {
    char name[96];      // scheme, --label, or the run's name
    char protocol[16];
    char positions[16];
    int train_len, eval_len, offset, role; // role (training): 0 train loss, 1 validation loss
    double x, y, count;
    int file, line, order;
    int sid;            // the series it belongs to
} Row;

struct Series {
    char key[176], label[160];
    int name_id, variant, role, train_len, n, cap; // variant: earlier series of the same scheme and role
    int color, marker, dash;                       // the style, unique in the figure (assign_styles)
    double *x, *y, *count; // (n) y is smoothed for kind position with --smooth > 1
    double *raw;           // (n) the unsmoothed y, or NULL
    int *file, *line;
    int light;             // a background curve (a training run's train loss): no clip marks
};

static void assign_styles(Series *se, int ns) {
    int used[PALETTE_SIZE] = {0}, nnames = 0, *first = xmalloc(((size_t)ns + 1) * sizeof(int));
    for (int i = 0; i < ns; i++) { // first[i]: the first series of i's name, or i itself if a new colour is due
        int j = 0;
        while (j < i && se[j].name_id != se[i].name_id) j++;
        first[i] = j < i && se[i].variant < DASH_COUNT ? j : i; // past the dashes: a colour of its own
        se[i].color = -1;
    }
    // schemes first, in their registry colours; then other names in the free colours, in
    // palette order (the faint yellow last); more names than colours: colours again, dashed
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ns; i++) {
            if (first[i] != i || se[i].color >= 0) continue;
            int pref = se[i].variant == 0 && se[i].name_id <= pos_count() ? se[i].name_id : -1, c = -1, dash = DASH_SOLID;
            if (pass == 0) {
                if (pref < 0 || pref >= PALETTE_SIZE || used[pref]) continue;
                c = pref;
            }
            for (int k = 0; k < PALETTE_SIZE && c < 0; k++)
                if (!used[k]) c = k;
            if (c < 0) c = nnames % PALETTE_SIZE, dash = (nnames / PALETTE_SIZE) % DASH_COUNT;
            used[c] = 1, nnames++;
            se[i].color = c, se[i].marker = c % MARK_COUNT, se[i].dash = dash;
        }
    for (int i = 0; i < ns; i++) // a second series of a name: its colour and marker, the next dash
        if (first[i] != i) {
            const Series *f = &se[first[i]];
            se[i].color = f->color, se[i].marker = f->marker, se[i].dash = (f->dash + se[i].variant) % DASH_COUNT;
        }
    free(first);
}

typedef struct {
    Row *r;
    int n, cap;
} Rows;

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
            char *v = trim(eq + 1), *nl = strchr(v, '\n');
            if (nl) *nl = 0;
            v = trim(v);
            if (!strcmp(trim(line), "scheme") && *v) {
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

int cmd_plot(int argc, char **argv) {
    const char *kind_s = "auto", *out = NULL, *title = NULL, *protocol = "auto", *positions = "all", *labels = NULL;
    const char *font_file = NULL, *metric = "ppl";
    int width = 1600, height = 1000, ylog = 0, xlog = 0, no_clip = 0, stats = 0, smooth = 0;
    double ymax = NAN, ymin = NAN, zoom = 0;
    ArgDef defs[] = {
        {"kind", ARG_STR, &kind_s, "ppl | position | training | offset; auto: from the first file's header (never offset)"},
        {"out", ARG_STR, &out, "the figure: .png, or .svg for vectors with text as text (required)"},
        {"title", ARG_STR, &title, "figure title; none: made from the data; \"\": no title"},
        {"width", ARG_INT, &width, "image width in pixels", 320, 8000},
        {"height", ARG_INT, &height, "image height in pixels", 240, 8000},
        {"metric", ARG_STR, &metric, "kinds ppl, offset: the y value: ppl | loss | bpc"},
        {"protocol", ARG_STR, &protocol, "nonoverlapping | sliding | both; auto: nonoverlapping if present, else sliding"},
        {"positions", ARG_STR, &positions, "kind ppl: contiguous | random | all"},
        {"label", ARG_STR, &labels, "comma-separated names, one per file, replacing the scheme/run names"},
        {"ylog", ARG_FLAG, &ylog, "logarithmic y axis (shows every point; no clipping)"},
        {"zoom", ARG_FLOAT, &zoom, "two panels: every point on a log y axis, and a close-up of y from the lowest value to F times it "
                                   "(the close race); 0: one panel", 0, 1000},
        {"xlog", ARG_FLAG, &xlog, "kind position: logarithmic x axis (plots position + 1)"},
        {"ymax", ARG_FLOAT, &ymax, "top of the y axis, points above drawn at the edge with their value; nan: a robust limit", 1, 0},
        {"ymin", ARG_FLOAT, &ymin, "bottom of the y axis; nan: from the data", 1, 0},
        {"no-clip", ARG_FLAG, &no_clip, "linear y axis up to the largest value (no robust clip)"},
        {"smooth", ARG_INT, &smooth, "kind position: moving average over N positions, raw values light beneath; 0: auto, 1: raw only", 0, 100000},
        {"font", ARG_STR, &font_file, "TrueType font file; none: DejaVu Sans (Debian fonts-dejavu-core)"},
        {"stats", ARG_FLAG, &stats, "(internal) print the y range, clip, legend place, labels and inked pixels, for the tests"},
        {NULL}};
    const char *files[256];
    int nf = args_parse(argc, argv, 2, defs, NULL, "plot", "--out FILE.png [flags] FILE.csv...", files, 256);
    if (!nf) die("plot: no input files (give one or more CSV files; see posgpt plot --help)");
    if (!out) die("plot: --out FILE.png is required");
    int kind = !strcmp(kind_s, "ppl") ? KIND_PPL : !strcmp(kind_s, "position") ? KIND_POSITION
             : !strcmp(kind_s, "training") ? KIND_TRAINING : !strcmp(kind_s, "offset") ? KIND_OFFSET
             : !strcmp(kind_s, "auto") ? -1 : -2;
    if (kind == -2) die("plot: --kind must be ppl, position, training or offset, got '%s'", kind_s);
    if (strcmp(protocol, "auto") && strcmp(protocol, "nonoverlapping") && strcmp(protocol, "sliding") && strcmp(protocol, "both"))
        die("plot: --protocol must be nonoverlapping, sliding, both or auto, got '%s'", protocol);
    if (strcmp(positions, "all") && strcmp(positions, "contiguous") && strcmp(positions, "random"))
        die("plot: --positions must be contiguous, random or all, got '%s'", positions);
    if (strcmp(metric, "ppl") && strcmp(metric, "loss") && strcmp(metric, "bpc"))
        die("plot: --metric must be ppl, loss or bpc, got '%s'", metric);
    if (!isnan(ymin) && !isnan(ymax) && ymax <= ymin) die("plot: --ymax %g must be above --ymin %g", ymax, ymin);
    if (ylog && ((!isnan(ymin) && ymin <= 0) || (!isnan(ymax) && ymax <= 0))) die("plot: --ylog needs positive --ymin/--ymax");
    char *label_buf = NULL, *lab[256];
    if (labels) {
        label_buf = xmalloc(strlen(labels) + 1);
        strcpy(label_buf, labels);
        int nl = split(label_buf, lab, 256);
        if (nl != nf) die("plot: --label has %d name%s for %d file%s; give one per file", nl, nl == 1 ? "" : "s", nf, nf == 1 ? "" : "s");
        for (int i = 0; i < nl; i++)
            if (!*lab[i]) die("plot: --label: name %d is empty", i + 1);
    }
    Font *font = font_load(font_file); // before the data, so a missing font is reported first

    // ---- read every file into rows ----
    Rows rs = {0};
    char (*names)[96] = xcalloc((size_t)nf, sizeof *names);
    for (int fi = 0; fi < nf; fi++) {
        Csv t;
        csv_read(&t, files[fi]);
        if (kind < 0) { // auto: what the first file's header says
            kind = csv_col(&t, "train_loss", 0, "") >= 0 ? KIND_TRAINING : csv_col(&t, "position", 0, "") >= 0 ? KIND_POSITION
                 : csv_col(&t, "eval_len", 0, "") >= 0 ? KIND_PPL : -1;
            if (kind < 0) die("plot: cannot tell what %s is from its header (%s); pass --kind ppl|position|training", t.path, t.header);
        }
        if (!t.nrow) die("plot: %s has a header but no rows", t.path);
        if (kind == KIND_TRAINING) {
            const char *what = "training log (posgpt train log.csv)";
            int c_step = csv_col(&t, "step", 1, what), c_tr = csv_col(&t, "train_loss", 1, what), c_va = csv_col(&t, "val_loss", 1, what);
            if (labels) snprintf(names[fi], 96, "%s", lab[fi]);
            else run_name(files[fi], names[fi], 96);
            for (int r = 0; r < t.nrow; r++) {
                double step = csv_num(&t, r, c_step, 0), tr = csv_num(&t, r, c_tr, 0), va = csv_num(&t, r, c_va, 1);
                for (int role = 0; role < 2; role++) {
                    if (role == 1 && isnan(va)) continue; // no validation on this row
                    Row *w = rows_add(&rs);
                    snprintf(w->name, sizeof w->name, "%s", names[fi]);
                    w->role = role, w->x = step, w->y = role ? va : tr, w->file = fi, w->line = t.line[r];
                }
            }
        } else {
            const char *what = kind != KIND_POSITION ? "posgpt eval CSV" : "posgpt eval --per-position CSV";
            int c_s = csv_col(&t, "scheme", 1, what), c_tl = csv_col(&t, "train_len", 1, what), c_el = csv_col(&t, "eval_len", 1, what);
            int c_pr = csv_col(&t, "protocol", 1, what);
            int c_y = csv_col(&t, kind != KIND_POSITION ? metric : "loss", 1, what);
            int c_x = kind == KIND_POSITION ? csv_col(&t, "position", 1, what)
                    : kind == KIND_OFFSET ? csv_col(&t, "pos_offset", 1, "posgpt eval CSV with --pos-offset") : c_el;
            int c_pos = csv_col(&t, "positions", 0, what), c_off = csv_col(&t, "pos_offset", 0, what), c_cnt = csv_col(&t, "count", 0, what);
            // a --label names the file's scheme; a file with several schemes keeps them apart
            int several = 0;
            for (int r = 1; r < t.nrow; r++) several |= strcmp(csv_str(&t, r, c_s), csv_str(&t, 0, c_s)) != 0;
            for (int r = 0; r < t.nrow; r++) {
                Row *w = rows_add(&rs);
                const char *sch = csv_str(&t, r, c_s);
                if (!*sch) die("plot: %s line %d: column 'scheme' is empty", t.path, t.line[r]);
                if (labels && several) snprintf(w->name, sizeof w->name, "%s %s", lab[fi], sch);
                else snprintf(w->name, sizeof w->name, "%s", labels ? lab[fi] : sch);
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
                if (kind == KIND_POSITION && (w->x < 0 || w->x >= w->eval_len))
                    die("plot: %s line %d: position %g is outside the window [0, %d)", t.path, t.line[r], w->x, w->eval_len);
                if (kind == KIND_POSITION && xlog) w->x += 1;
                if (kind != KIND_POSITION && w->y <= 0) die("plot: %s line %d: %s = %g is not positive", t.path, t.line[r], metric, w->y);
                w->file = fi, w->line = t.line[r];
            }
        }
        csv_free(&t);
    }
    // training: two logs with the same name are told apart by their directories
    if (kind == KIND_TRAINING && !labels)
        for (int i = 0; i < nf; i++)
            for (int j = i + 1; j < nf; j++)
                if (!strcmp(names[i], names[j]))
                    die("plot: %s and %s are both runs named '%s'; name them with --label A,B,...", files[i], files[j], names[i]);

    // ---- filter ----
    const char *proto = protocol;
    if (kind != KIND_TRAINING && !strcmp(protocol, "auto")) {
        proto = "sliding";
        for (int i = 0; i < rs.n; i++)
            if (!strcmp(rs.r[i].protocol, "nonoverlapping")) proto = "nonoverlapping";
    }
    char seen_proto[64] = "";
    int kept = 0;
    for (int i = 0; i < rs.n; i++) {
        Row *w = &rs.r[i];
        if (kind != KIND_TRAINING) {
            if (!strstr(seen_proto, w->protocol) && strlen(seen_proto) + strlen(w->protocol) + 2 < sizeof seen_proto)
                strcat(seen_proto, *seen_proto ? ", " : ""), strcat(seen_proto, w->protocol);
            if (strcmp(proto, "both") && strcmp(w->protocol, proto)) continue;
            if (kind == KIND_PPL && strcmp(positions, "all") && strcmp(w->positions, positions)) continue;
        }
        if (ylog && w->y <= 0) die("plot: --ylog: %s line %d has a value %g; a log axis needs positive values", files[w->file], w->line, w->y);
        rs.r[kept++] = *w;
    }
    if (!kept)
        die("plot: no rows left after filtering (--protocol %s%s%s); the files have protocol %s", proto,
            kind == KIND_PPL ? ", --positions " : "", kind == KIND_PPL ? positions : "", seen_proto);
    rs.n = kept;

    // ---- series keys: the name, plus whatever else varies between the rows ----
    int vary_proto = 0, vary_pos = 0, vary_tl = 0, vary_el = 0, vary_off = 0;
    for (int i = 1; i < rs.n; i++) {
        vary_proto |= strcmp(rs.r[i].protocol, rs.r[0].protocol) != 0;
        vary_pos |= strcmp(rs.r[i].positions, rs.r[0].positions) != 0;
        vary_tl |= rs.r[i].train_len != rs.r[0].train_len;
        vary_el |= rs.r[i].eval_len != rs.r[0].eval_len;
        vary_off |= rs.r[i].offset != rs.r[0].offset;
    }
    if (kind == KIND_PPL) vary_el = 0;    // eval_len is the x axis
    if (kind == KIND_OFFSET) vary_off = 0; // pos_offset is the x axis
    // series in the order of their first row in the files; a colour per name
    Series *se = NULL;
    int ns = 0, scap = 0, nnames = 0;
    char(*name_of)[160] = NULL;
    for (int i = 0; i < rs.n; i++) {
        Row *w = &rs.r[i];
        char key[160];
        int o = snprintf(key, sizeof key, "%s", w->name);
        if (vary_pos && strcmp(w->positions, "contiguous") && o < 150) // contiguous is the default: not repeated on every label
            o += snprintf(key + o, sizeof key - o, ", %s positions", w->positions);
        if (vary_off && w->offset && o < 150) o += snprintf(key + o, sizeof key - o, ", offset %d", w->offset);
        if (vary_tl && o < 150) o += snprintf(key + o, sizeof key - o, ", trained at %d", w->train_len);
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
                char(*q)[160] = realloc(name_of, (size_t)scap * sizeof *name_of);
                if (!p || !q) die("plot: out of memory");
                se = p, name_of = q;
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
            int style = scheme_style(w->name);
            se[ns].name_id = style >= 0 ? style : pos_count() + 1 + nid;
            for (int j = 0; j < ns; j++) // a second series of the same scheme: another dash
                if (se[j].name_id == se[ns].name_id && se[j].role == w->role) se[ns].variant++;
            ns++;
        }
        w->sid = k;
    }
    qsort(rs.r, (size_t)rs.n, sizeof(Row), cmp_row);
    for (int i = 0; i < rs.n; i++) {
        Row *w = &rs.r[i];
        Series *s = &se[w->sid];
        if (s->n && s->x[s->n - 1] == w->x) { // the same point twice
            if (kind == KIND_TRAINING) { // a resumed run logs some steps again: the later row wins
                s->y[s->n - 1] = w->y, s->file[s->n - 1] = w->file, s->line[s->n - 1] = w->line;
                continue;
            }
            if (s->y[s->n - 1] == w->y) continue; // an identical row in two files
            die("plot: %s line %d and %s line %d both give '%s' at %s %g with different values; "
                "name the files with --label A,B,...", files[s->file[s->n - 1]], s->line[s->n - 1], files[w->file], w->line, s->label,
                kind == KIND_PPL ? "length" : kind == KIND_OFFSET ? "offset" : "position", w->x - (kind == KIND_POSITION && xlog ? 1 : 0));
        }
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
        for (int j = 0; j < ns && kind == KIND_TRAINING; j++)
            if (se[i].role == 0 && se[j].role == 1 && se[j].name_id == se[i].name_id) se[i].light = 1;
    // kind position: moving average over --smooth positions, weighted by the window counts;
    // auto: n/64 positions, at most a quarter of the training length (the transition stays sharp)
    if (kind == KIND_POSITION && smooth == 0) {
        int nmax = 0, tmin = 1 << 30;
        for (int i = 0; i < ns; i++) nmax = nmax > se[i].n ? nmax : se[i].n, tmin = tmin < se[i].train_len ? tmin : se[i].train_len;
        smooth = nmax / 64 < tmin / 4 ? nmax / 64 : tmin / 4;
        if (smooth < 1) smooth = 1;
    }
    if (kind == KIND_POSITION && smooth > 1)
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

    // ---- y range: a robust clip so one exploding series does not flatten the others ----
    // reference level: per series, the value at the training length (ppl), the median before
    // the training length (position), the lowest validation loss (training); limit = factor x
    // the (lower) median reference. Perplexity is exp(loss), so its factor is larger.
    double *ref = xmalloc((size_t)ns * sizeof(double)), dmin = INFINITY, dmax = -INFINITY;
    int nref = 0, npts = 0;
    for (int i = 0; i < ns; i++) {
        Series *s = &se[i];
        for (int k = 0; k < s->n; k++) dmin = fmin(dmin, s->y[k]), dmax = fmax(dmax, s->y[k]), npts++;
        for (int k = 0; k < s->n && s->raw; k++) dmin = fmin(dmin, s->raw[k]), dmax = fmax(dmax, s->raw[k]);
        if (kind == KIND_PPL || kind == KIND_OFFSET) { // at the training length / offset 0
            double r = INFINITY;
            for (int k = 0; k < s->n; k++) r = fmin(r, s->y[k]);
            for (int k = 0; k < s->n; k++)
                if (s->x[k] == (kind == KIND_PPL ? s->train_len : 0)) r = s->y[k];
            ref[nref++] = r;
        } else if (kind == KIND_POSITION) {
            int m = 0;
            while (m < s->n && s->x[m] - (xlog ? 1 : 0) < s->train_len) m++;
            ref[nref++] = median(s->y, m ? m : s->n);
        } else {
            int has_val = 0;
            for (int j = 0; j < ns; j++) has_val |= se[j].name_id == s->name_id && se[j].role == 1;
            double best = INFINITY; // the lowest loss the run reached (a diverging run ends high)
            for (int k = 0; k < s->n; k++) best = fmin(best, s->y[k]);
            if (s->role == 1 || !has_val) ref[nref++] = best;
        }
    }
    double factor = kind != KIND_POSITION && kind != KIND_TRAINING && !strcmp(metric, "ppl") ? 5 : 3, base = median(ref, nref), limit = factor * base;
    double clip = NAN;
    int yclip = 0, nabove = 0;
    const char *clip_why = NULL;
    if (!isnan(ymax)) clip = ymax, yclip = 1, clip_why = "--ymax";
    else if (!ylog && !no_clip && dmax > limit) {
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

    // ---- the chart ----
    assign_styles(se, ns);
    ChartSeries cs[2 * 64 + 2];
    int ncs = 0;
    int single_tl = !vary_tl;
    for (int i = 0; i < ns; i++) {
        Series *s = &se[i];
        ChartSeries c = {.x = s->x, .y = s->y, .n = s->n, .color = palette_color(s->color), .dash = s->dash,
                         .marker = s->marker, .opacity = 1, .label = s->label};
        if (kind == KIND_PPL || kind == KIND_OFFSET) c.width = 3, c.markers = 1;
        else if (kind == KIND_POSITION) {
            c.width = s->n > 200 ? 2.5f : 3, c.markers = s->n <= 40;
            if (s->raw) // the raw values beneath, light
                cs[ncs++] = (ChartSeries){.x = s->x, .y = s->raw, .n = s->n, .color = c.color, .width = 1.2f, .opacity = 0.22f,
                                          .dash = DASH_SOLID, .marker = -1, .light = 1};
        } else if (s->light) c.width = 1.6f, c.opacity = 0.45f, c.markers = 0, c.label = NULL, c.light = 1;
        else c.width = 3, c.markers = s->n <= 60;
        cs[ncs++] = c;
    }
    int has_train_style = 0;
    for (int i = 0; i < ns; i++) has_train_style |= se[i].light;
    if (kind == KIND_TRAINING && has_train_style) { // legend-only entries explaining the two line styles
        cs[ncs++] = (ChartSeries){.label = "train loss", .color = {0x44, 0x44, 0x44}, .width = 1.6f, .opacity = 0.45f, .marker = -1, .light = 1};
        cs[ncs++] = (ChartSeries){.label = "validation loss", .color = {0x44, 0x44, 0x44}, .width = 3, .opacity = 1, .marker = MARK_CIRCLE};
    }
    // training lengths: dashed reference lines (kinds ppl and position)
    double vl[16];
    int nvl = 0;
    if (kind == KIND_PPL || kind == KIND_POSITION)
        for (int i = 0; i < ns && nvl < 16; i++) {
            double v = se[i].train_len + (kind == KIND_POSITION && xlog ? 1 : 0);
            int dup = 0;
            for (int k = 0; k < nvl; k++) dup |= vl[k] == v;
            if (!dup) vl[nvl++] = v;
        }
    // x ticks for ppl: the measured lengths, with the multiple of the training length below
    double xt[64];
    char subbuf[64][16];
    const char *sub[64];
    int nxt = 0;
    if (kind == KIND_PPL) {
        for (int i = 0; i < ns; i++)
            for (int k = 0; k < se[i].n; k++) {
                int dup = 0;
                for (int q = 0; q < nxt; q++) dup |= xt[q] == se[i].x[k];
                if (!dup && nxt < 64) xt[nxt++] = se[i].x[k];
            }
        for (int i = 1; i < nxt; i++)
            for (int j = i; j > 0 && xt[j - 1] > xt[j]; j--) {
                double u = xt[j];
                xt[j] = xt[j - 1], xt[j - 1] = u;
            }
        for (int k = 0; k < nxt; k++) {
            snprintf(subbuf[k], 16, "%g×", xt[k] / se[0].train_len);
            sub[k] = subbuf[k];
        }
    }

    char title_buf[256], cap[512] = "", ylab[64], cv[32];
    const char *pname = !strcmp(proto, "both") ? "nonoverlapping and sliding" : proto, *why = "";
    // kinds ppl and offset plot --metric: its name in the title and on the y axis
    int is_ppl = !strcmp(metric, "ppl"), is_bpc = !strcmp(metric, "bpc");
    const char *what = is_ppl ? "Perplexity" : is_bpc ? "Bits per byte" : "Loss";
    snprintf(ylab, sizeof ylab, "%s", is_ppl ? "perplexity" : is_bpc ? "bits per byte" : "loss (nats per byte)");
    if (kind == KIND_PPL) {
        if (single_tl) snprintf(title_buf, sizeof title_buf, "%s vs. evaluation length (trained at %d tokens)", what, se[0].train_len);
        else snprintf(title_buf, sizeof title_buf, "%s vs. evaluation length", what);
        append(cap, sizeof cap, "%s windows, %s positions", pname,
               !strcmp(positions, "all") ? (vary_pos ? "contiguous and random" : rs.r[0].positions) : positions);
        why = is_ppl ? "5× the median at the training length" : "3× the median at the training length";
    } else if (kind == KIND_POSITION) {
        if (!vary_el && single_tl)
            snprintf(title_buf, sizeof title_buf, "Loss by position in the window (windows of %d, trained at %d)", rs.r[0].eval_len, se[0].train_len);
        else snprintf(title_buf, sizeof title_buf, "Loss by position in the window");
        snprintf(ylab, sizeof ylab, "loss (nats per byte)");
        double cmin = INFINITY, cmax = -INFINITY;
        for (int i = 0; i < rs.n; i++) cmin = fmin(cmin, rs.r[i].count), cmax = fmax(cmax, rs.r[i].count);
        if (cmin == cmax) append(cap, sizeof cap, "%s windows, %.0f per position", pname, cmin);
        else append(cap, sizeof cap, "%s windows, %.0f to %.0f per position", pname, cmin, cmax);
        if (smooth > 1)
            append(cap, sizeof cap, "; lines: moving average over up to %d positions%s", smooth / 2 * 2 + 1, se[0].raw ? ", raw values light" : "");
        why = "3× the median before the training length";
    } else if (kind == KIND_OFFSET) {
        if (!vary_el && single_tl)
            snprintf(title_buf, sizeof title_buf, "%s vs. position offset (windows of %d, trained at %d)", what, rs.r[0].eval_len, se[0].train_len);
        else snprintf(title_buf, sizeof title_buf, "%s vs. position offset", what);
        append(cap, sizeof cap, "%s windows; positions K..K+L-1", pname);
        why = is_ppl ? "5× the median at offset 0" : "3× the median at offset 0";
    } else {
        snprintf(title_buf, sizeof title_buf, "Training and validation loss");
        snprintf(ylab, sizeof ylab, "loss (nats per byte)");
        append(cap, sizeof cap, "%s", has_train_style ? "thin light lines: train loss; thick lines with markers: validation loss" : "train loss");
        why = "3× the median lowest loss";
    }
    char base_cap[512]; // what the rows are, before the y-axis policy (the zoom panels state their own)
    snprintf(base_cap, sizeof base_cap, "%s", cap);
    format_value(cv, sizeof cv, clip);
    if (ylog) append(cap, sizeof cap, "; log y axis");
    if (yclip && nabove)
        append(cap, sizeof cap, "; y clipped at %s (%s): %d point%s above, shown as ▲ with %s value", cv,
               !strcmp(clip_why, "--ymax") ? "--ymax" : why, nabove, nabove == 1 ? "" : "s", nabove == 1 ? "its" : "their");
    else if (!ylog) append(cap, sizeof cap, "; linear y, all points shown");

    Chart ch = {.title = title ? title : title_buf, .ylabel = ylab, .caption = cap, .s = cs, .ns = ncs, .ylog = ylog,
                .ymin = ymin, .ymax = yclip ? clip : NAN, .yclip = yclip, .vlines = vl, .nvlines = nvl,
                .vline_label = nvl == 1 ? "train length" : nvl > 1 ? "train lengths" : NULL};
    if (kind == KIND_PPL) {
        ch.xlabel = "evaluation length (tokens = bytes)", ch.xlog = 1, ch.xticks = xt, ch.nxticks = nxt;
        ch.xsub = single_tl ? sub : NULL;
    } else if (kind == KIND_POSITION) {
        ch.xlabel = xlog ? "position in the window + 1" : "position in the window", ch.xlog = xlog;
        ch.xtick_unit = single_tl ? se[0].train_len : 0;
    } else if (kind == KIND_OFFSET) ch.xlabel = "position offset K (first position of every window)";
    else ch.xlabel = "step";
    if (title && !*title) ch.title = NULL;

    size_t olen = strlen(out);
    int svg = olen >= 4 && !strcasecmp(out + olen - 4, ".svg");
    const Rgb bg = {255, 255, 255};
    Canvas cv_;
    canvas_init(&cv_, width, height, bg);
    if (svg) canvas_svg(&cv_, bg);
    ChartStats st;
    if (zoom > 1) {
        // left: everything on a log axis, no legend; right: the close race, with the legend
        if (!(dmin > 0)) die("plot: --zoom needs positive values (the left panel is logarithmic); the lowest is %g", dmin);
        ChartSeries *nolab = xmalloc((size_t)ncs * sizeof *nolab);
        for (int i = 0; i < ncs; i++) nolab[i] = cs[i], nolab[i].label = NULL;
        char zt[128], zcap[600], fcap[160];
        format_value(cv, sizeof cv, zoom * dmin);
        snprintf(zt, sizeof zt, "Close-up: up to %s (%g× the lowest value)", cv, zoom);
        snprintf(zcap, sizeof zcap, "%s; curves above the top are in the left panel", base_cap);
        snprintf(fcap, sizeof fcap, "every point; log y axis");
        Chart full = ch, close = ch;
        full.s = nolab, full.ylog = 1, full.yclip = 0, full.ymin = NAN, full.ymax = NAN, full.caption = fcap;
        close.title = zt, close.ylog = 0, close.yclip = 0, close.ymin = floor(dmin * 10) / 10, close.ymax = zoom * dmin;
        close.caption = zcap, close.ylabel = NULL;
        Canvas pl, pr;
        int wl = width / 2;
        canvas_init(&pl, wl, height, bg), canvas_init(&pr, width - wl, height, bg);
        if (svg) canvas_svg(&pl, bg), canvas_svg(&pr, bg);
        ChartStats stl;
        chart_render(&pl, font, &full, &stl);
        chart_render(&pr, font, &close, &st);
        canvas_blit(&cv_, &pl, 0, 0), canvas_blit(&cv_, &pr, wl, 0);
        canvas_free(&pl), canvas_free(&pr), free(nolab);
    } else chart_render(&cv_, font, &ch, &st);
    if (svg) canvas_write_svg(&cv_, out);
    else canvas_write_png(&cv_, out);
    if (stats) {
        printf("kind %s\nsize %d %d\nseries %d\npoints %d\n", kind == KIND_PPL ? "ppl" : kind == KIND_POSITION ? "position"
               : kind == KIND_OFFSET ? "offset" : "training",
               width, height, ns, npts);
        printf("data_range %g %g\ny_axis %g %g\n", dmin, dmax, st.ylo, st.yhi);
        if (yclip) printf("clip %g\n", clip);
        else printf("clip none\n");
        printf("above %d\nclip_marks %d\nclip_beside %d\nclip_listed %d\nlegend %s\nink %ld\nfont %s\n", nabove, st.clipped, st.clip_beside, st.clip_listed, st.legend_at ? st.legend_at : "none", st.ink,
               font_path(font));
        for (int i = 0; i < ncs; i++)
            if (cs[i].label) printf("label %s\n", cs[i].label);
        for (int i = 0; i < ns; i++) printf("style %d %d %d %s\n", se[i].color, se[i].marker, se[i].dash, se[i].label);
    }
    fprintf(stderr, "wrote %s (%dx%d, %d series, %d points)\n", out, width, height, ns, npts);
    canvas_free(&cv_);
    for (int i = 0; i < ns; i++) free(se[i].x), free(se[i].y), free(se[i].raw), free(se[i].count), free(se[i].file), free(se[i].line);
    free(se), free(name_of), free(names), free(rs.r), free(label_buf);
    font_free(font);
    return 0;
}
