// cmd_plot.c - `posgpt plot`: PNG (or SVG) figures from posgpt's CSV files.
//   --kind ppl       perplexity (or loss, bpc) vs evaluation length, from `posgpt eval` CSVs
//   --kind position  loss by position in the window, from `posgpt eval --per-position` CSVs
//   --kind training  train and validation loss vs step, from `posgpt train` log.csv files
//   --kind offset    loss (or ppl, bpc) vs the first position of the window (eval --pos-offset),
//                    from `posgpt eval` CSVs: the shift test of Sinha et al. 2022
//   --kind accuracy  exact-match (--metric exact) or per-token (--metric token) accuracy vs length,
//                    from `posgpt task eval` CSVs; the training lengths shaded; files of one
//                    scheme (seeds) averaged, with a min-max band
// The driver: the flags; the rows, series and y range (series.h); the chart's titles,
// captions, ticks and reference lines (here); rendering in one panel or two (chart.h).
#include "args.h"
#include "chart.h"
#include "common.h"
#include "series.h"
#include "csv.h"
#include "fileio.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    PlotQuery q;
    const char *out, *title, *font, *xlabel, *ylabel, *caption;
    int width, height, no_clip, stats, smooth;
    double ymax, ymin, zoom;
    char *label_buf, *lab[256];
    const char *files[256];
} PlotArgs;

// what the chart shows and says, composed from the series
typedef struct {
    ChartSeries cs[2 * 64 + 2];
    int ncs;
    double vl[16];  // the training lengths: dashed reference lines
    int nvl;
    double xt[64];  // kind ppl: the measured lengths as x ticks, the multiple of the training length below
    char subbuf[64][16];
    const char *sub[64];
    int nxt;
    char title[256], cap[512], base_cap[512], ylab[64]; // base_cap: what the rows are, without the y-axis policy
    Chart ch;
} Figure;

static void parse_args(int argc, char **argv, PlotArgs *a) {
    memset(a, 0, sizeof *a);
    const char *kind_s = "auto", *labels = NULL;
    a->q.protocol = "auto", a->q.positions = "all", a->q.metric = NULL;
    a->width = 1600, a->height = 1000, a->ymax = NAN, a->ymin = NAN;
    ArgDef defs[] = {
        {"kind", ARG_STR, &kind_s, "ppl | position | training | offset | accuracy; auto: from the first file's header (never offset)"},
        {"out", ARG_STR, &a->out, "the figure: .png, or .svg for vectors with text as text (required)"},
        {"title", ARG_STR, &a->title, "figure title; none: made from the data; \"\": no title"},
        {"xlabel", ARG_STR, &a->xlabel, "x axis label; none: the kind's (e.g. a CSV whose pos_offset column holds training steps)"},
        {"ylabel", ARG_STR, &a->ylabel, "y axis label; none: the metric's"},
        {"caption", ARG_STR, &a->caption, "the line under the plot; none: made from the data and the y axis policy"},
        {"width", ARG_INT, &a->width, "image width in pixels", 320, 8000},
        {"height", ARG_INT, &a->height, "image height in pixels", 240, 8000},
        {"metric", ARG_STR, &a->q.metric, "the y value: kinds ppl, offset: ppl | loss | bpc (default ppl); kind accuracy: exact | "
                                           "token (exact match, or the fraction of answer bytes right; default exact)"},
        {"protocol", ARG_STR, &a->q.protocol, "nonoverlapping | sliding | both; auto: nonoverlapping if present, else sliding"},
        {"positions", ARG_STR, &a->q.positions, "kind ppl: contiguous | random | all"},
        {"label", ARG_STR, &labels, "comma-separated names, one per file, replacing the scheme/run names (and the training length a name would carry)"},
        {"seeds", ARG_FLAG, &a->q.seeds, "kinds ppl, offset: files that give one series the same point are seeds of one run: draw "
                                         "their mean, with a band from the lowest to the highest (kind accuracy always does)"},
        {"ylog", ARG_FLAG, &a->q.ylog, "logarithmic y axis (shows every point; no clipping)"},
        {"zoom", ARG_FLOAT, &a->zoom, "two panels: every point on a log y axis, and a close-up of y from the lowest value to F times it "
                                   "(the close race); 0: one panel", 0, 1000},
        {"xlog", ARG_FLAG, &a->q.xlog, "kind position: logarithmic x axis (plots position + 1)"},
        {"ymax", ARG_FLOAT, &a->ymax, "top of the y axis, points above drawn at the edge with their value; nan: a robust limit", 1, 0},
        {"ymin", ARG_FLOAT, &a->ymin, "bottom of the y axis; nan: from the data", 1, 0},
        {"no-clip", ARG_FLAG, &a->no_clip, "linear y axis up to the largest value (no robust clip)"},
        {"smooth", ARG_INT, &a->smooth, "kind position: moving average over N positions, raw values light beneath; 0: auto, 1: raw only", 0, 100000},
        {"font", ARG_STR, &a->font, "TrueType font file; none: DejaVu Sans (Debian fonts-dejavu-core)"},
        {"stats", ARG_FLAG, &a->stats, "(internal) print the y range, clip, legend place, labels and inked pixels, for the tests"},
        {NULL}};
    int nf = args_parse(argc, argv, 2, defs, NULL, "plot", "--out FILE.png [flags] FILE.csv...", a->files, 256);
    if (!nf) die("plot: no input files (give one or more CSV files; see posgpt plot --help)");
    if (!a->out) die("plot: --out FILE.png is required");
    const char *protocol = a->q.protocol, *positions = a->q.positions, *metric = a->q.metric;
    int kind = !strcmp(kind_s, "ppl") ? KIND_PPL : !strcmp(kind_s, "position") ? KIND_POSITION
             : !strcmp(kind_s, "training") ? KIND_TRAINING : !strcmp(kind_s, "offset") ? KIND_OFFSET
             : !strcmp(kind_s, "accuracy") ? KIND_ACCURACY : !strcmp(kind_s, "auto") ? -1 : -2;
    if (kind == -2) die("plot: --kind must be ppl, position, training, offset or accuracy, got '%s'", kind_s);
    if (strcmp(protocol, "auto") && strcmp(protocol, "nonoverlapping") && strcmp(protocol, "sliding") && strcmp(protocol, "both"))
        die("plot: --protocol must be nonoverlapping, sliding, both or auto, got '%s'", protocol);
    if (strcmp(positions, "all") && strcmp(positions, "contiguous") && strcmp(positions, "random"))
        die("plot: --positions must be contiguous, random or all, got '%s'", positions);
    if (metric && strcmp(metric, "ppl") && strcmp(metric, "loss") && strcmp(metric, "bpc") && strcmp(metric, "exact") && strcmp(metric, "token"))
        die("plot: --metric must be ppl, loss or bpc (kinds ppl, offset), or exact or token (kind accuracy), got '%s'", metric);
    if (!isnan(a->ymin) && !isnan(a->ymax) && a->ymax <= a->ymin) die("plot: --ymax %g must be above --ymin %g", a->ymax, a->ymin);
    if (a->q.ylog && ((!isnan(a->ymin) && a->ymin <= 0) || (!isnan(a->ymax) && a->ymax <= 0)))
        die("plot: --ylog needs positive --ymin/--ymax");
    if (labels) {
        a->label_buf = xmalloc(strlen(labels) + 1);
        strcpy(a->label_buf, labels);
        int nl = csv_split(a->label_buf, a->lab, 256);
        if (nl != nf) die("plot: --label has %d name%s for %d file%s; give one per file", nl, nl == 1 ? "" : "s", nf, nf == 1 ? "" : "s");
        for (int i = 0; i < nl; i++)
            if (!*a->lab[i]) die("plot: --label: name %d is empty", i + 1);
        a->q.labels = a->lab;
    }
    a->q.kind = kind, a->q.files = a->files, a->q.nfiles = nf;
    refuse_overlap("plot --out", a->out, "the font --font", a->font);
    for (int i = 0; i < nf; i++) refuse_overlap("plot --out", a->out, "the input CSV", a->files[i]);
    const char *ext = strrchr(a->out, '.'); // the format comes from the name: never PNG bytes under another one
    if (!ext || strchr(ext, '/') || (strcasecmp(ext, ".png") && strcasecmp(ext, ".svg")))
        die("plot: --out '%s': the figure is written as .png or .svg; name it FILE.png or FILE.svg", a->out);
}

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

static int has_light(const SeriesSet *ss) {
    int light = 0;
    for (int i = 0; i < ss->n; i++) light |= ss->s[i].light;
    return light;
}

// each series as the chart draws it: line width, markers, the raw values light beneath
static void chart_series(Figure *fg, const SeriesSet *ss, int kind) {
    for (int i = 0; i < ss->n; i++) {
        const Series *s = &ss->s[i];
        ChartSeries c = {.x = s->x, .y = s->y, .n = s->n, .color = palette_color(s->color), .dash = s->dash,
                         .marker = s->marker, .opacity = 1, .label = s->label};
        if (kind == KIND_PPL || kind == KIND_OFFSET) c.width = 3, c.markers = 1, c.ylo = s->ylo, c.yhi = s->yhi;
        else if (kind == KIND_ACCURACY) c.width = 3, c.markers = s->n <= 60, c.ylo = s->ylo, c.yhi = s->yhi;
        else if (kind == KIND_POSITION) {
            c.width = s->n > 200 ? 2.5f : 3, c.markers = s->n <= 40;
            if (s->raw) // the raw values beneath, light
                fg->cs[fg->ncs++] = (ChartSeries){.x = s->x, .y = s->raw, .n = s->n, .color = c.color, .width = 1.2f, .opacity = 0.22f,
                                                  .dash = DASH_SOLID, .marker = -1, .light = 1};
        } else if (s->light) c.width = 1.6f, c.opacity = 0.45f, c.markers = 0, c.label = NULL, c.light = 1;
        else c.width = 3, c.markers = s->n <= 60;
        fg->cs[fg->ncs++] = c;
    }
    if (kind == KIND_TRAINING && has_light(ss)) { // legend-only entries explaining the two line styles
        fg->cs[fg->ncs++] = (ChartSeries){.label = "train loss", .color = {0x44, 0x44, 0x44}, .width = 1.6f, .opacity = 0.45f, .marker = -1, .light = 1};
        fg->cs[fg->ncs++] = (ChartSeries){.label = "validation loss", .color = {0x44, 0x44, 0x44}, .width = 3, .opacity = 1, .marker = MARK_CIRCLE};
    }
}

// the training lengths (kinds ppl and position) as dashed lines; kind ppl: x ticks at the
// measured lengths, with the multiple of the training length beneath
static void reference_lines_and_ticks(Figure *fg, const SeriesSet *ss, const PlotQuery *q) {
    if (q->kind == KIND_PPL || q->kind == KIND_POSITION)
        for (int i = 0; i < ss->n && fg->nvl < 16; i++) {
            double v = ss->s[i].train_len + (q->kind == KIND_POSITION && q->xlog ? 1 : 0);
            int dup = 0;
            for (int k = 0; k < fg->nvl; k++) dup |= fg->vl[k] == v;
            if (!dup) fg->vl[fg->nvl++] = v;
        }
    if (q->kind != KIND_PPL) return;
    for (int i = 0; i < ss->n; i++)
        for (int k = 0; k < ss->s[i].n; k++) {
            int dup = 0;
            for (int p = 0; p < fg->nxt; p++) dup |= fg->xt[p] == ss->s[i].x[k];
            if (!dup && fg->nxt < 64) fg->xt[fg->nxt++] = ss->s[i].x[k];
        }
    for (int i = 1; i < fg->nxt; i++)
        for (int j = i; j > 0 && fg->xt[j - 1] > fg->xt[j]; j--) {
            double u = fg->xt[j];
            fg->xt[j] = fg->xt[j - 1], fg->xt[j - 1] = u;
        }
    for (int k = 0; k < fg->nxt; k++) {
        snprintf(fg->subbuf[k], 16, "%g×", fg->xt[k] / ss->s[0].train_len);
        fg->sub[k] = fg->subbuf[k];
    }
}

// kind accuracy: the tasks the rows hold (each row's protocol field), for the title: one or a few
// named ("copy, reverse"), more counted ("5 tasks")
static void task_names_of(const Rows *rs, char *buf, size_t n) {
    int nt = 0;
    buf[0] = 0;
    for (int i = 0; i < rs->n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = !strcmp(rs->r[j].protocol, rs->r[i].protocol);
        if (seen) continue;
        if (nt < 3) append(buf, n, "%s%s", nt ? ", " : "", rs->r[i].protocol);
        nt++;
    }
    if (nt > 3) snprintf(buf, n, "%d tasks", nt);
}

// the title, the axis titles and the caption: what the rows are, then the y-axis policy
static void titles(Figure *fg, const PlotArgs *a, const SeriesSet *ss, const Rows *rs, const YClip *yc, int smooth) {
    const PlotQuery *q = &a->q;
    const Series *se = ss->s;
    int single_tl = !ss->vary_tl;
    char *title_buf = fg->title, *cap = fg->cap, *ylab = fg->ylab, cv[32];
    size_t tn = sizeof fg->title, cn = sizeof fg->cap, yn = sizeof fg->ylab;
    const char *pname = !strcmp(q->protocol, "both") ? "nonoverlapping and sliding" : q->protocol, *why = "";
    // kinds ppl and offset plot --metric: its name in the title and on the y axis
    int is_ppl = !strcmp(q->metric, "ppl"), is_bpc = !strcmp(q->metric, "bpc");
    const char *what = is_ppl ? "Perplexity" : is_bpc ? "Bits per byte" : "Loss";
    snprintf(ylab, yn, "%s", is_ppl ? "perplexity" : is_bpc ? "bits per byte" : "loss (nats per byte)");
    if (q->kind == KIND_PPL) {
        if (single_tl) snprintf(title_buf, tn, "%s vs. evaluation length (trained at %d tokens)", what, se[0].train_len);
        else snprintf(title_buf, tn, "%s vs. evaluation length", what);
        append(cap, cn, "%s windows, %s positions", pname,
               !strcmp(q->positions, "all") ? (ss->vary_pos ? "contiguous and random" : rs->r[0].positions) : q->positions);
        why = is_ppl ? "5× the median at the training length" : "3× the median at the training length";
    } else if (q->kind == KIND_POSITION) {
        if (!ss->vary_el && single_tl)
            snprintf(title_buf, tn, "Loss by position in the window (windows of %d, trained at %d)", rs->r[0].eval_len, se[0].train_len);
        else snprintf(title_buf, tn, "Loss by position in the window");
        snprintf(ylab, yn, "loss (nats per byte)");
        double cmin = INFINITY, cmax = -INFINITY;
        for (int i = 0; i < rs->n; i++) cmin = fmin(cmin, rs->r[i].count), cmax = fmax(cmax, rs->r[i].count);
        if (cmin == cmax) append(cap, cn, "%s windows, %.0f per position", pname, cmin);
        else append(cap, cn, "%s windows, %.0f to %.0f per position", pname, cmin, cmax);
        if (smooth > 1)
            append(cap, cn, "; lines: moving average over up to %d positions%s", smooth / 2 * 2 + 1, se[0].raw ? ", raw values light" : "");
        why = "3× the median before the training length";
    } else if (q->kind == KIND_OFFSET) {
        if (!ss->vary_el && single_tl)
            snprintf(title_buf, tn, "%s vs. position offset (windows of %d, trained at %d)", what, rs->r[0].eval_len, se[0].train_len);
        else snprintf(title_buf, tn, "%s vs. position offset", what);
        append(cap, cn, "%s windows; positions K..K+L-1", pname);
        why = is_ppl ? "5× the median at offset 0" : "3× the median at offset 0";
    } else if (q->kind == KIND_ACCURACY) {
        const char *acc = !strcmp(q->metric, "token") ? "Per-token" : "Exact-match";
        char tasks[128];
        task_names_of(rs, tasks, sizeof tasks);
        if (single_tl) snprintf(title_buf, tn, "%s accuracy vs length (%s; trained on lengths 1..%d)", acc, tasks, se[0].train_len);
        else snprintf(title_buf, tn, "%s accuracy vs length (%s)", acc, tasks);
        snprintf(ylab, yn, "%s", !strcmp(q->metric, "token") ? "per-token accuracy (answer bytes right)" : "exact-match accuracy");
        append(cap, cn, "%s", single_tl ? "shaded: the training lengths" : "training lengths differ: not shaded");
    } else {
        snprintf(title_buf, tn, "Training and validation loss");
        snprintf(ylab, yn, "loss (nats per byte)");
        append(cap, cn, "%s", has_light(ss) ? "thin light lines: train loss; thick lines with markers: validation loss" : "train loss");
        why = "3× the median lowest loss";
    }
    int seeds = 0;
    for (int i = 0; i < ss->n; i++) seeds = se[i].seeds > seeds ? se[i].seeds : seeds;
    if (seeds > 1) append(cap, cn, "; lines: the mean over up to %d files (seeds), bands: the lowest to the highest", seeds);
    snprintf(fg->base_cap, sizeof fg->base_cap, "%s", cap);
    format_value(cv, sizeof cv, yc->top);
    if (q->ylog) append(cap, cn, "; log y axis");
    if (yc->clip && yc->nabove)
        append(cap, cn, "; y clipped at %s (%s): %d point%s above, shown as ▲ with %s value", cv,
               !strcmp(yc->why, "--ymax") ? "--ymax" : why, yc->nabove, yc->nabove == 1 ? "" : "s", yc->nabove == 1 ? "its" : "their");
    else if (!q->ylog && q->kind != KIND_ACCURACY) append(cap, cn, "; linear y, all points shown");
}

static void compose(Figure *fg, const PlotArgs *a, const SeriesSet *ss, const Rows *rs, const YClip *yc, int smooth) {
    const PlotQuery *q = &a->q;
    chart_series(fg, ss, q->kind);
    reference_lines_and_ticks(fg, ss, q);
    titles(fg, a, ss, rs, yc, smooth);
    int single_tl = !ss->vary_tl;
    Chart ch = {.title = a->title ? a->title : fg->title, .ylabel = fg->ylab, .caption = fg->cap, .s = fg->cs, .ns = fg->ncs,
                .ylog = q->ylog, .ymin = a->ymin, .ymax = yc->clip ? yc->top : NAN, .yclip = yc->clip, .vlines = fg->vl,
                .nvlines = fg->nvl, .vline_label = fg->nvl == 1 ? "train length" : fg->nvl > 1 ? "train lengths" : NULL};
    if (q->kind == KIND_PPL) {
        ch.xlabel = "evaluation length (tokens = bytes)", ch.xlog = 1, ch.xticks = fg->xt, ch.nxticks = fg->nxt;
        ch.xsub = single_tl ? fg->sub : NULL;
    } else if (q->kind == KIND_POSITION) {
        ch.xlabel = q->xlog ? "position in the window + 1" : "position in the window", ch.xlog = q->xlog;
        ch.xtick_unit = single_tl ? ss->s[0].train_len : 0;
    } else if (q->kind == KIND_OFFSET) ch.xlabel = "position offset K (first position of every window)";
    else if (q->kind == KIND_ACCURACY) {
        ch.xlabel = "length n (input symbols; passkey: filler sentences)", ch.ymin = 0, ch.ymax = 1, ch.yclip = 0;
        if (single_tl) ch.shade_x0 = 0.5, ch.shade_x1 = ss->s[0].train_len + 0.5;
    }
    else ch.xlabel = "step";
    if (a->title && !*a->title) ch.title = NULL;
    if (a->xlabel) ch.xlabel = a->xlabel;
    if (a->ylabel) ch.ylabel = a->ylabel;
    if (a->caption) ch.caption = a->caption;
    fg->ch = ch;
}

// one panel; or (--zoom) two: every point on a log axis without a legend on the left, the
// close race from the lowest value to zoom times it, with the legend, on the right
static void render(Canvas *cv, const Figure *fg, const PlotArgs *a, const Font *font, double dmin, ChartStats *st) {
    int svg = cv->svg != NULL;
    const Rgb bg = {255, 255, 255};
    if (!(a->zoom > 1)) {
        chart_render(cv, font, &fg->ch, st);
        return;
    }
    if (!(dmin > 0)) die("plot: --zoom needs positive values (the left panel is logarithmic); the lowest is %g", dmin);
    ChartSeries *nolab = xmalloc((size_t)fg->ncs * sizeof *nolab);
    for (int i = 0; i < fg->ncs; i++) nolab[i] = fg->cs[i], nolab[i].label = NULL;
    char zt[128], zcap[1024], fcap[160], v[32];
    format_value(v, sizeof v, a->zoom * dmin);
    snprintf(zt, sizeof zt, "Close-up: up to %s (%g× the lowest value)", v, a->zoom);
    // (a --caption replaces the description of the rows, in the close-up's caption as alone)
    snprintf(zcap, sizeof zcap, "%s; curves above the top are in the left panel", a->caption ? a->caption : fg->base_cap);
    snprintf(fcap, sizeof fcap, "every point; log y axis");
    Chart full = fg->ch, close = fg->ch;
    full.s = nolab, full.ylog = 1, full.yclip = 0, full.ymin = NAN, full.ymax = NAN, full.caption = fcap;
    close.title = zt, close.ylog = 0, close.yclip = 0, close.ymin = floor(dmin * 10) / 10, close.ymax = a->zoom * dmin;
    close.caption = zcap, close.ylabel = NULL;
    Canvas pl, pr;
    int wl = a->width / 2;
    canvas_init(&pl, wl, a->height, bg), canvas_init(&pr, a->width - wl, a->height, bg);
    if (svg) canvas_svg(&pl, bg), canvas_svg(&pr, bg);
    ChartStats stl;
    chart_render(&pl, font, &full, &stl);
    chart_render(&pr, font, &close, st);
    canvas_blit(cv, &pl, 0, 0), canvas_blit(cv, &pr, wl, 0);
    canvas_free(&pl), canvas_free(&pr), free(nolab);
}

// --stats: what the tests check (the y range, clip, legend place, labels, styles, ink)
static void print_stats(const PlotArgs *a, const SeriesSet *ss, const YClip *yc, const Figure *fg, const ChartStats *st, const Font *font) {
    int kind = a->q.kind;
    printf("kind %s\nsize %d %d\nseries %d\npoints %d\n", kind == KIND_PPL ? "ppl" : kind == KIND_POSITION ? "position"
           : kind == KIND_OFFSET ? "offset" : kind == KIND_ACCURACY ? "accuracy" : "training", a->width, a->height, ss->n, yc->npts);
    printf("data_range %g %g\ny_axis %g %g\n", yc->dmin, yc->dmax, st->ylo, st->yhi);
    if (yc->clip) printf("clip %g\n", yc->top);
    else printf("clip none\n");
    printf("above %d\nclip_marks %d\nclip_beside %d\nclip_listed %d\nclip_box %s\nlegend %s\nink %ld\nfont %s\n", yc->nabove,
           st->clipped, st->clip_beside, st->clip_listed, st->clip_box ? st->clip_box : "none", st->legend_at ? st->legend_at : "none",
           st->ink, font_path(font));
    for (int i = 0; i < fg->ncs; i++)
        if (fg->cs[i].label) printf("label %s\n", fg->cs[i].label);
    for (int i = 0; i < ss->n; i++) printf("style %d %d %d %s\n", ss->s[i].color, ss->s[i].marker, ss->s[i].dash, ss->s[i].label);
    for (int i = 0; i < ss->n && (kind == KIND_ACCURACY || ss->s[i].ylo); i++) // every point: x, y (the mean), the band
        for (int k = 0; k < ss->s[i].n; k++)
            printf("point %d %g %.9g %.9g %.9g\n", i, ss->s[i].x[k], ss->s[i].y[k], ss->s[i].ylo ? ss->s[i].ylo[k] : ss->s[i].y[k],
                   ss->s[i].yhi ? ss->s[i].yhi[k] : ss->s[i].y[k]);
}

// a flag given for another kind of figure is an error, not ignored (the kind is known once the
// first file is read)
static void check_kind_flags(const PlotQuery *q) {
    static const char *names[] = {[KIND_PPL] = "ppl", [KIND_POSITION] = "position", [KIND_TRAINING] = "training",
                                  [KIND_OFFSET] = "offset", [KIND_ACCURACY] = "accuracy"};
    int k = q->kind, ppl_like = k == KIND_PPL || k == KIND_OFFSET;
    struct { const char *flag, *kinds; int applies; } f[] = {
        {"metric", "ppl, offset and accuracy (position plots the loss)", ppl_like || k == KIND_ACCURACY},
        {"protocol", "ppl, offset and position", ppl_like || k == KIND_POSITION},
        {"positions", "ppl", k == KIND_PPL},
        {"xlog", "position", k == KIND_POSITION},
        {"smooth", "position", k == KIND_POSITION}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!f[i].applies && args_given(f[i].flag))
            die("plot: --%s applies to kind%s %s; these files are kind %s (drop --%s)", f[i].flag, strchr(f[i].kinds, ' ') ? "s" : "",
                f[i].kinds, names[k], f[i].flag);
}

int cmd_plot(int argc, char **argv) {
    PlotArgs a;
    parse_args(argc, argv, &a);
    Font *font = font_load(a.font); // before the data, so a missing font is reported first
    Rows rs = {0};
    plot_rows_read(&rs, &a.q);
    check_kind_flags(&a.q);
    if (a.q.seeds && a.q.kind != KIND_PPL && a.q.kind != KIND_OFFSET && a.q.kind != KIND_ACCURACY)
        die("plot: --seeds applies to kinds ppl and offset (accuracy averages seeds anyway); these files are kind %s",
            a.q.kind == KIND_TRAINING ? "training" : "position");
    plot_rows_filter(&rs, &a.q);
    SeriesSet ss;
    series_build(&ss, &rs, &a.q);
    int smooth = series_smooth(&ss, &a.q, a.smooth);
    YClip yc = series_yclip(&ss, &a.q, a.ymin, a.ymax, a.no_clip);
    series_styles(&ss);
    Figure *fg = xcalloc(1, sizeof *fg);
    compose(fg, &a, &ss, &rs, &yc, smooth);

    size_t olen = strlen(a.out);
    int svg = olen >= 4 && !strcasecmp(a.out + olen - 4, ".svg");
    const Rgb bg = {255, 255, 255};
    Canvas cv;
    canvas_init(&cv, a.width, a.height, bg);
    if (svg) canvas_svg(&cv, bg);
    ChartStats st;
    render(&cv, fg, &a, font, yc.dmin, &st);
    if (svg) canvas_write_svg(&cv, a.out);
    else canvas_write_png(&cv, a.out);
    if (a.stats) print_stats(&a, &ss, &yc, fg, &st, font);
    fprintf(stderr, "wrote %s (%dx%d, %d series, %d points)\n", a.out, a.width, a.height, ss.n, yc.npts);
    canvas_free(&cv), free(fg), series_free(&ss), free(rs.r), free(a.label_buf), font_free(font);
    return 0;
}
