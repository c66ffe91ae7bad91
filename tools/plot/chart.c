// chart.c - the line chart of `posgpt plot`: axes and ticks, layout, the legend placed where
// it covers no data, clipped points marked at the top edge, captions. See chart.h.
#include "chart.h"

#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------
// numbers
// ---------------------------------------------------------------------------------------

Rgb palette_color(int i) {
    // Okabe & Ito 2008, "Color Universal Design" (blue, vermillion, bluish green, reddish
    // purple, orange, sky blue, black; their yellow is too faint on white and comes last),
    // then darker colours far from those (Paul Tol's indigo, olive, wine, green, teal and rose,
    // a brown and a grey); in registry order the schemes and randomized get the first ones
    static const Rgb P[PALETTE_SIZE] = {
        {0x00, 0x72, 0xB2}, {0xD5, 0x5E, 0x00}, {0x00, 0x9E, 0x73}, {0xCC, 0x79, 0xA7}, {0xE6, 0x9F, 0x00}, {0x56, 0xB4, 0xE9},
        {0x00, 0x00, 0x00}, {0x33, 0x22, 0x88}, {0x99, 0x99, 0x33}, {0x88, 0x22, 0x55}, {0x8C, 0x51, 0x0A}, {0x77, 0x77, 0x77},
        {0x11, 0x77, 0x33}, {0x44, 0xAA, 0x99}, {0xCC, 0x66, 0x77}, {0xF0, 0xE4, 0x42}};
    return P[((i % PALETTE_SIZE) + PALETTE_SIZE) % PALETTE_SIZE];
}

double nice_step(double span, int target) {
    if (!(span > 0) || !isfinite(span)) return 1;
    double raw = span / (target > 0 ? target : 1), mag = pow(10, floor(log10(raw))), r = raw / mag;
    return (r < 1.42 ? 1 : r < 3.17 ? 2 : r < 7.1 ? 5 : 10) * mag; // 1-2-5: the geometric midpoints
}

void format_value(char *buf, int n, double v) {
    double a = fabs(v);
    if (a == 0) snprintf(buf, n, "0");
    else if (a < 1e6 && v == round(v)) snprintf(buf, n, "%.0f", v);
    else if (a >= 1e6 || a < 1e-3) snprintf(buf, n, "%.2g", v);
    else if (a >= 100) snprintf(buf, n, "%.0f", v);
    else if (a >= 10) snprintf(buf, n, "%.1f", v);
    else if (a >= 1) snprintf(buf, n, "%.2f", v);
    else snprintf(buf, n, "%.3g", v);
}

// tick label with the decimals the step needs ("0.25", "2.5", "40")
static void format_tick(char *buf, int n, double v, double step) {
    if (fabs(v) < step * 1e-9) v = 0;
    if (fabs(v) >= 1e6 || (step < 1e-4 && v != 0)) {
        snprintf(buf, n, "%.3g", v);
        return;
    }
    int d = 0;
    while (d < 8 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6 * step * pow(10, d)) d++;
    snprintf(buf, n, "%.*f", d, v);
}

// ---------------------------------------------------------------------------------------
// chart
// ---------------------------------------------------------------------------------------

#define MAXTICK 64

typedef struct {
    double lo, hi; // axis range, data units
    int log;
    float p0, p1;  // pixel positions of lo and hi
} Axis;

static double ax_t(const Axis *a, double v) { return a->log ? log(v) : v; }
static float ax_map(const Axis *a, double v) {
    if (a->log && !(v > 0)) return NAN;
    double t = (ax_t(a, v) - ax_t(a, a->lo)) / (ax_t(a, a->hi) - ax_t(a, a->lo));
    return (float)clampd(a->p0 + t * (a->p1 - a->p0), -1e8, 1e8);
}

typedef struct {
    float x0, y0, x1, y1;
} Box;

static int box_overlap(Box a, Box b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

// does the segment come within r of the box? (Liang-Barsky clip against the grown box)
static int seg_hits_box(float x0, float y0, float x1, float y1, float r, Box b) {
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1)) return 0;
    double t0 = 0, t1 = 1, dx = x1 - x0, dy = y1 - y0;
    double p[4] = {-dx, dx, -dy, dy}, q[4] = {x0 - (b.x0 - r), (b.x1 + r) - x0, y0 - (b.y0 - r), (b.y1 + r) - y0};
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0) {
            if (q[k] < 0) return 0;
        } else {
            double t = q[k] / p[k];
            if (p[k] < 0) t0 = fmax(t0, t);
            else t1 = fmin(t1, t);
            if (t0 > t1) return 0;
        }
    }
    return 1;
}

// everything drawn inside the plot area, in pixels, for placing the legend
typedef struct {
    float *x0, *y0, *x1, *y1, *r; // segments (a marker is a zero-length segment of radius r)
    int n, cap;
    Box box[256];                 // text labels
    int nbox;
} Obstacles;

static void obs_add(Obstacles *o, float x0, float y0, float x1, float y1, float r) {
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 1024;
        float **arr[5] = {&o->x0, &o->y0, &o->x1, &o->y1, &o->r};
        for (int k = 0; k < 5; k++) {
            float *p = xmalloc((size_t)o->cap * sizeof(float));
            if (o->n) memcpy(p, *arr[k], (size_t)o->n * sizeof(float));
            free(*arr[k]), *arr[k] = p;
        }
    }
    o->x0[o->n] = x0, o->y0[o->n] = y0, o->x1[o->n] = x1, o->y1[o->n] = y1, o->r[o->n] = r, o->n++;
}

static int obs_hits(const Obstacles *o, Box b) {
    for (int k = 0; k < o->nbox; k++)
        if (box_overlap(o->box[k], b)) return 1;
    for (int k = 0; k < o->n; k++)
        if (seg_hits_box(o->x0[k], o->y0[k], o->x1[k], o->y1[k], o->r[k], b)) return 1;
    return 0;
}

static void obs_free(Obstacles *o) { free(o->x0), free(o->y0), free(o->x1), free(o->y1), free(o->r); }

// axis ticks: positions in data units, and labels
typedef struct {
    double v[MAXTICK];
    char lab[MAXTICK][32];
    int n;
    double step;
} Ticks;

static void ticks_linear(Ticks *t, double lo, double hi, int target, double step) {
    t->step = step > 0 ? step : nice_step(hi - lo, target), t->n = 0;
    for (double k = ceil(lo / t->step - 1e-9); k * t->step <= hi + 1e-9 * t->step && t->n < MAXTICK; k++) {
        t->v[t->n] = k * t->step;
        format_tick(t->lab[t->n], 32, t->v[t->n], t->step);
        t->n++;
    }
}

// log axis: 1-2-5 per decade, thinned to decades when crowded; under a decade, linear ticks
static void ticks_log(Ticks *t, double lo, double hi, int target) {
    t->n = 0;
    if (hi / lo < 1.5) { // less than half an octave: log and linear look alike
        ticks_linear(t, lo, hi, target, 0);
        return;
    }
    // round values per decade, from dense to sparse: the densest set that gives at most
    // target + 1 ticks, so a range of a few units still gets several labelled ticks
    static const double M[6][8] = {{1, 1.5, 2, 3, 4, 5, 6, 8}, {1, 2, 3, 4, 5, 7}, {1, 2, 3, 5}, {1, 2, 5}, {1, 3}, {1}};
    for (int set = 0; set < 6; set++) {
        t->n = 0;
        for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)) && t->n < MAXTICK; e++)
            for (int k = 0; k < 8 && M[set][k] > 0 && t->n < MAXTICK; k++) {
                double v = M[set][k] * pow(10, e);
                if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9)) continue;
                t->v[t->n] = v;
                format_value(t->lab[t->n], 32, v);
                t->n++;
            }
        if (t->n <= target + 1) break;
    }
}

// the automatic x ticks: multiples of unit*2^k (positions: multiples of the training length)
// or round numbers; on a log axis, powers of two
static void ticks_x_auto(Ticks *t, const Axis *a, double unit, int target) {
    if (a->log) {
        t->n = 0;
        double lo = ceil(log2(a->lo) - 1e-9), hi = floor(log2(a->hi) + 1e-9), every = 1;
        while ((hi - lo) / every > target + 2) every *= 2;
        for (double e = lo; e <= hi && t->n < MAXTICK; e += every) {
            t->v[t->n] = pow(2, e);
            format_value(t->lab[t->n], 32, t->v[t->n]);
            t->n++;
        }
        return;
    }
    if (unit > 0) {
        double step = unit;
        while ((a->hi - a->lo) / step > target + 2) step *= 2;
        if ((a->hi - a->lo) / step >= 2) {
            t->n = 0, t->step = step;
            for (double k = ceil(a->lo / step - 1e-9); k * step <= a->hi + 1e-9 && t->n < MAXTICK; k++) {
                t->v[t->n] = k * step;
                format_tick(t->lab[t->n], 32, t->v[t->n], step);
                t->n++;
            }
            return;
        }
    }
    ticks_linear(t, a->lo, a->hi, target, 0);
}

typedef struct {
    float x, y;
    double v, xv;      // the value, and its x in data units
    Rgb col;
    const char *label; // the series' legend label (or NULL)
} ClipMark;

static const Rgb INK = {0x22, 0x22, 0x22}, GREY = {0x55, 0x55, 0x55}, GRID = {0xe4, 0xe4, 0xe4}, WHITE = {255, 255, 255};

// the chart being laid out and drawn: sizes in pixels (scaled with the figure), the axes and
// their ticks, the plot rectangle, the legend, and what lies in the plot (for the legend's place)
typedef struct {
    float s;                                             // scale: 1 at 1600x1000
    float fs_title, fs_label, fs_tick, fs_leg, fs_cap;   // font sizes
    float pad, tick_len, frame_w, mr;                    // padding, tick length, frame width, marker radius
    Axis X, Y;
    Ticks xt, yt;
    int clip_label;                                      // the clip value labelled at the top edge (not a tick)
    float top, bottom, left, right;                      // margins
    float L, R, T, B;                                    // the plot rectangle
    int nleg;                                            // legend entries
    char (*leglab)[160];                                 // (ns) their labels, cut to fit
    float row_h, sample_w, lpad, box_w, box_h;           // legend geometry
    Box legend;
    Obstacles ob;                                        // what is drawn inside the plot
    ClipMark *cm;                                        // points above the axis
    int ncm;
    float vlab_x, vlab_y;                                // the reference line's label
    float xlab_y;                                        // baseline of the x tick labels
} Plan;

// sizes scaled with the figure
static void chart_sizes(Canvas *c, const Font *f, const Chart *ch, Plan *p, ChartStats *st) {
    p->s = fminf(c->w / 1600.0f, c->h / 1000.0f);
    if (p->s < 0.45f) p->s = 0.45f;
    p->fs_title = 30 * p->s, p->fs_label = 25 * p->s, p->fs_tick = 22 * p->s, p->fs_leg = 22 * p->s, p->fs_cap = 19 * p->s;
    p->pad = 22 * p->s, p->tick_len = 8 * p->s, p->frame_w = fmaxf(1, 1.5f * p->s), p->mr = fmaxf(3, 6.5f * p->s);
}
// the data ranges, the axes (padded; linear y snapped outwards to ticks) and their ticks
static void chart_axes(Canvas *c, const Font *f, const Chart *ch, Plan *p, ChartStats *st) {
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (int i = 0; i < ch->ns; i++)
        for (int k = 0; k < ch->s[i].n; k++) {
            double x = ch->s[i].x[k], y = ch->s[i].y[k];
            if (!isfinite(x) || !isfinite(y) || (ch->xlog && x <= 0) || (ch->ylog && y <= 0)) continue;
            xlo = fmin(xlo, x), xhi = fmax(xhi, x);
            if (!isnan(ch->ymin) && y < ch->ymin) continue;
            if (ch->yclip && !isnan(ch->ymax) && y > ch->ymax) continue;
            ylo = fmin(ylo, y), yhi = fmax(yhi, y);
        }
    for (int k = 0; k < ch->nxticks; k++) xlo = fmin(xlo, ch->xticks[k]), xhi = fmax(xhi, ch->xticks[k]);
    for (int k = 0; k < ch->nvlines; k++) xlo = fmin(xlo, ch->vlines[k]), xhi = fmax(xhi, ch->vlines[k]);
    if (!isfinite(xlo)) xlo = ch->xlog ? 1 : 0, xhi = ch->xlog ? 2 : 1;
    if (!isfinite(ylo)) ylo = !isnan(ch->ymin) ? ch->ymin : ch->ylog ? 1 : 0, yhi = !isnan(ch->ymax) ? ch->ymax : ylo + 1;
    if (!isnan(ch->ymin)) ylo = ch->ymin;
    if (!isnan(ch->ymax)) yhi = ch->ymax;
    if (!isnan(ch->ymin) && !isnan(ch->ymax) && ch->ymax <= ch->ymin) ylo = ch->ymin, yhi = ch->ymin + 1;

    p->X = (Axis){xlo, xhi, ch->xlog, 0, 0}, p->Y = (Axis){ylo, yhi, ch->ylog, 0, 0};
    if (p->X.log) { // 5% of the log range on each side (at least a fifth of an octave)
        double span = fmax(log2(xhi / xlo), 0.5), m = fmax(0.05 * span, 0.2);
        p->X.lo = xlo / pow(2, m), p->X.hi = xhi * pow(2, m);
    } else {
        double span = xhi - xlo > 0 ? xhi - xlo : fmax(fabs(xhi), 1), m = 0.025 * span;
        p->X.lo = xlo - m, p->X.hi = xhi + m;
        if (xhi - xlo <= 0) p->X.lo = xlo - span / 2, p->X.hi = xhi + span / 2;
    }
    // y: pad 4%, then (linear) snap outwards to ticks, unless the user fixed that end
    int target_y = (int)clampd(c->h * 0.7 / (p->fs_tick * 4.5), 4, 9);
    double ystep = 0; // the tick step the linear range was snapped to
    if (p->Y.log) {
        double span = fmax(log(yhi / ylo), 0.1), m = 0.05 * span;
        if (isnan(ch->ymin)) p->Y.lo = ylo / exp(m);
        if (isnan(ch->ymax)) p->Y.hi = yhi * exp(m);
    } else {
        // a nearly flat series keeps a sensible range (at least 4% of its level), so rounding
        // noise is not drawn as a dramatic swing
        double level = fmax(fabs(ylo), fabs(yhi));
        if (yhi - ylo < 0.04 * level && isnan(ch->ymin) && isnan(ch->ymax)) {
            double mid = (ylo + yhi) / 2;
            ylo = mid - 0.02 * level, yhi = mid + 0.02 * level;
        }
        double span = yhi - ylo > 0 ? yhi - ylo : fmax(fabs(yhi) * 0.2, 1), m = 0.04 * span;
        double step = nice_step(span + 2 * m, target_y);
        ystep = isnan(ch->ymin) && isnan(ch->ymax) ? step : 0;
        if (isnan(ch->ymin)) p->Y.lo = floor((ylo - m) / step) * step, p->Y.lo = ylo >= 0 && p->Y.lo < 0 ? 0 : p->Y.lo;
        if (isnan(ch->ymax)) p->Y.hi = ceil((yhi + m) / step) * step;
        if (p->Y.hi <= p->Y.lo) p->Y.hi = p->Y.lo + step;
    }
    st->ylo = p->Y.lo, st->yhi = p->Y.hi;

    if (p->Y.log) ticks_log(&p->yt, p->Y.lo, p->Y.hi, target_y);
    else ticks_linear(&p->yt, p->Y.lo, p->Y.hi, target_y, ystep);
    p->clip_label = 0; // label the clip value at the top edge when it is not a tick
    if (ch->yclip && !isnan(ch->ymax) && p->yt.n < MAXTICK && (!p->yt.n || fabs(p->yt.v[p->yt.n - 1] - p->Y.hi) > 1e-9 * fabs(p->Y.hi)))
        p->clip_label = 1;
    int target_x = (int)clampd(c->w / (p->fs_tick * 9.0), 4, 12);
    if (ch->xticks) {
        p->xt.n = 0;
        for (int k = 0; k < ch->nxticks && k < MAXTICK; k++, p->xt.n++) p->xt.v[k] = ch->xticks[k], format_value(p->xt.lab[k], 32, p->xt.v[k]);
    } else ticks_x_auto(&p->xt, &p->X, ch->xtick_unit, target_x);
}
// margins from the text they hold; the legend's size
static void chart_margins(Canvas *c, const Font *f, const Chart *ch, Plan *p, ChartStats *st) {
    const float fs_title = p->fs_title, fs_label = p->fs_label, fs_tick = p->fs_tick, fs_cap = p->fs_cap, pad = p->pad,
                tick_len = p->tick_len;
    const int clip_label = p->clip_label;
    float ytw = 0;
    for (int k = 0; k < p->yt.n; k++) ytw = fmaxf(ytw, text_width(f, fs_tick, p->yt.lab[k]));
    if (clip_label) {
        char b[32];
        format_value(b, 32, p->Y.hi);
        ytw = fmaxf(ytw, text_width(f, fs_tick, b));
    }
    p->top = pad + (ch->title ? fs_title * 1.25f : 0) + pad * 0.4f;
    p->bottom = tick_len + 0.6f * fs_tick + fs_tick * (ch->xsub ? 2.3f : 1.15f) + 0.6f * fs_label + fs_label +
                   (ch->caption ? 0.8f * fs_cap + fs_cap : 0) + pad * 0.8f;
    p->left = pad + (ch->ylabel ? fs_label * 1.25f + 0.5f * fs_label : 0) + ytw + 0.5f * fs_tick + tick_len;
    float last_half = p->xt.n ? text_width(f, fs_tick, p->xt.lab[p->xt.n - 1]) / 2 : 0;
    p->right = fmaxf(pad * 1.5f, last_half + pad * 0.5f);

    // legend size
    // legend: labels longer than a quarter of the figure are cut with an ellipsis
    p->nleg = 0;
    float legw = 0;
    p->leglab = xcalloc((size_t)ch->ns + 1, sizeof *p->leglab);
    for (int i = 0; i < ch->ns; i++)
        if (ch->s[i].label) {
            text_ellipsize(f, p->fs_leg, ch->s[i].label, 0.34f * c->w, p->leglab[i], sizeof p->leglab[i]);
            p->nleg++, legw = fmaxf(legw, text_width(f, p->fs_leg, p->leglab[i]));
        }
    float rows = p->nleg * 1.55f + 0.72f, room = c->h - p->top - 2 * pad; // box height in units of fs_leg
    if (rows * p->fs_leg > room) legw *= room / (rows * p->fs_leg), p->fs_leg = room / rows; // many series: smaller text
    p->row_h = p->fs_leg * 1.55f, p->sample_w = p->fs_leg * 2.6f, p->lpad = p->fs_leg * 0.6f;
    p->box_w = p->lpad + p->sample_w + 0.5f * p->fs_leg + legw + p->lpad, p->box_h = p->lpad * 0.6f + p->nleg * p->row_h + p->lpad * 0.6f;
}
// the plot rectangle, what lies in it (segments, markers, clip marks, the reference line's
// label) and the legend: the first free spot among the corners and edge midpoints, else
// outside on the right (a second pass with a narrower plot)
static void chart_place(Canvas *c, const Font *f, const Chart *ch, Plan *p, ChartStats *st) {
    const float s = p->s, fs_tick = p->fs_tick, pad = p->pad, mr = p->mr, box_w = p->box_w, box_h = p->box_h,
                top = p->top, bottom = p->bottom, left = p->left, right = p->right;
    const int nleg = p->nleg;
    for (int pass = 0; pass < 2; pass++) {
        p->L = left, p->T = top, p->R = c->w - right - (st->legend_outside ? box_w + pad : 0), p->B = c->h - bottom;
        if (p->R - p->L < 50 || p->B - p->T < 50) die("plot: the figure is too small for its labels (%dx%d); use a larger --width/--height", c->w, c->h);
        p->X.p0 = p->L, p->X.p1 = p->R, p->Y.p0 = p->B, p->Y.p1 = p->T;
        // obstacles: every segment and marker, the clip marks and their labels, the reference lines
        p->ob.n = p->ob.nbox = 0;
        free(p->cm), p->cm = NULL, p->ncm = 0;
        size_t cap = 0;
        for (int i = 0; i < ch->ns; i++) {
            const ChartSeries *se = &ch->s[i];
            float hw = fmaxf(0.5f, se->width * s / 2);
            int run = -1; // start of the current run of clipped points (lines only)
            for (int k = 0; k < se->n; k++) {
                float px = ax_map(&p->X, se->x[k]), py = ax_map(&p->Y, se->y[k]);
                if (k + 1 < se->n) obs_add(&p->ob, px, py, ax_map(&p->X, se->x[k + 1]), ax_map(&p->Y, se->y[k + 1]), hw + 2);
                if (se->markers) obs_add(&p->ob, px, py, px, py, mr + 2);
                int above = ch->yclip && !se->light && se->y[k] > p->Y.hi;
                if (above && run < 0) run = k;
                if (ch->yclip && run >= 0 && (!above || k == se->n - 1 || se->markers)) {
                    int end = above ? k : k - 1, best = run;
                    for (int q = run; q <= end; q++)
                        if (se->y[q] > se->y[best]) best = q;
                    if (cap <= (size_t)p->ncm) cap = cap ? 2 * cap : 16, p->cm = realloc(p->cm, cap * sizeof *p->cm);
                    if (!p->cm) die("out of memory");
                    p->cm[p->ncm++] = (ClipMark){ax_map(&p->X, se->x[best]), p->T, se->y[best], se->x[best], se->color, se->label};
                    run = -1;
                }
            }
        }
        for (int k = 0; k < ch->nvlines; k++) {
            float vx = ax_map(&p->X, ch->vlines[k]);
            obs_add(&p->ob, vx, p->T, vx, p->B, 2 * s + 2);
        }
        for (int k = 0; k < p->ncm; k++) obs_add(&p->ob, p->cm[k].x, p->T + mr, p->cm[k].x, p->T + mr, mr * 1.5f + 2);
        // the reference line's label: beside the line at the bottom or the top, where no data is
        if (ch->nvlines && ch->vline_label) {
            float vx = ax_map(&p->X, ch->vlines[0]), tw = text_width(f, fs_tick * 0.9f, ch->vline_label), ch_ = text_cap(f, fs_tick * 0.9f);
            float top_y = p->T + (p->ncm ? mr * 2 + fs_tick * 1.4f : 0) + 10 * s + ch_;
            float spots[4][2] = {{vx + 8 * s, p->B - 10 * s}, {vx + 8 * s, top_y}, {vx - 8 * s - tw, p->B - 10 * s}, {vx - 8 * s - tw, top_y}};
            int pick = 0;
            for (int k = 3; k >= 0; k--) {
                Box b = {spots[k][0] - 4, spots[k][1] - ch_ - 4, spots[k][0] + tw + 4, spots[k][1] + 6 * s};
                if (b.x0 >= p->L && b.x1 <= p->R && !obs_hits(&p->ob, b)) pick = k;
            }
            p->vlab_x = spots[pick][0], p->vlab_y = spots[pick][1];
            p->ob.box[p->ob.nbox++] = (Box){p->vlab_x - 4, p->vlab_y - ch_ - 4, p->vlab_x + tw + 4, p->vlab_y + 6 * s};
        }
        // legend: the first free spot among the corners and edge midpoints, else outside
        if (pass == 1) {
            p->legend = (Box){p->R + pad, p->T, p->R + pad + box_w, p->T + box_h};
            st->legend_at = "outside right";
            break;
        }
        float in = 14 * s;
        float cand[8][2] = {{p->R - in - box_w, p->T + in}, {p->L + in, p->T + in}, {p->R - in - box_w, p->B - in - box_h}, {p->L + in, p->B - in - box_h},
                            {(p->L + p->R - box_w) / 2, p->T + in}, {(p->L + p->R - box_w) / 2, p->B - in - box_h},
                            {p->R - in - box_w, (p->T + p->B - box_h) / 2}, {p->L + in, (p->T + p->B - box_h) / 2}};
        const char *names[8] = {"top right", "top left", "bottom right", "bottom left", "top centre", "bottom centre", "right", "left"};
        int found = -1;
        for (int k = 0; k < 8 && found < 0 && nleg; k++) {
            Box b = {cand[k][0], cand[k][1], cand[k][0] + box_w, cand[k][1] + box_h};
            if (b.x0 < p->L || b.y0 < p->T || b.x1 > p->R || b.y1 > p->B) continue;
            Box grown = {b.x0 - 6 * s, b.y0 - 6 * s, b.x1 + 6 * s, b.y1 + 6 * s};
            // the clip labels sit beside their marks at the top
            Box cliprow = {p->L, p->T, p->R, p->T + mr * 2 + fs_tick * 1.2f};
            if (p->ncm && box_overlap(grown, cliprow)) {
                int near = 0;
                for (int q = 0; q < p->ncm; q++)
                    if (p->cm[q].x > grown.x0 - fs_tick * 4 && p->cm[q].x < grown.x1 + fs_tick) near = 1;
                if (near) continue;
            }
            if (!obs_hits(&p->ob, grown)) found = k, p->legend = b, st->legend_at = names[k];
        }
        if (found >= 0 || !nleg) break;
        st->legend_outside = 1;
    }
}
// grid, reference lines, series (light ones first), then all markers on top
static void draw_data(Canvas *c, const Font *f, const Chart *ch, Plan *p, ChartStats *st) {
    const float s = p->s, mr = p->mr, L = p->L, R = p->R, T = p->T, B = p->B;
    canvas_clip(c, (int)floor(L), (int)floor(T), (int)ceil(R), (int)ceil(B));
    if (ch->shade_x1 > ch->shade_x0) // a shaded x range (the training lengths) beneath everything
        draw_rect(c, ax_map(&p->X, ch->shade_x0), T, ax_map(&p->X, ch->shade_x1), B, (Rgb){0xee, 0xee, 0xee}, 1);
    for (int i = 0; i < ch->ns; i++) { // bands: a trapezoid per segment, composited once per series
        const ChartSeries *se = &ch->s[i];
        if (!se->ylo || !se->yhi || se->n < 2) continue;
        for (int k = 0; k + 1 < se->n; k++) {
            float x0 = ax_map(&p->X, se->x[k]), x1 = ax_map(&p->X, se->x[k + 1]);
            float q[8] = {x0, ax_map(&p->Y, se->ylo[k]), x1, ax_map(&p->Y, se->ylo[k + 1]), x1, ax_map(&p->Y, se->yhi[k + 1]),
                          x0, ax_map(&p->Y, se->yhi[k])};
            if (q[7] > q[1] - 0.5f) q[7] = q[1] - 0.5f; // keep every trapezoid a polygon (a band of width 0 at an end)
            if (q[5] > q[3] - 0.5f) q[5] = q[3] - 0.5f;
            shape_convex(c, q, 4);
        }
        shape_flush(c, se->color, 0.18f);
    }
    for (int k = 0; k < p->yt.n; k++) {
        float y = ax_map(&p->Y, p->yt.v[k]);
        shape_capsule(c, L, y, R, y, 0.6f * s + 0.2f);
    }
    for (int k = 0; k < p->xt.n; k++) {
        float x = ax_map(&p->X, p->xt.v[k]);
        shape_capsule(c, x, T, x, B, 0.6f * s + 0.2f);
    }
    shape_flush(c, GRID, 1);
    for (int k = 0; k < ch->nvlines; k++) {
        float vx = ax_map(&p->X, ch->vlines[k]), xs[2] = {vx, vx}, ys[2] = {T, B};
        draw_polyline(c, xs, ys, 2, 2 * s, DASH_DASHED, GREY, 0.9f);
    }
    int maxn = 0;
    for (int i = 0; i < ch->ns; i++) maxn = maxn > ch->s[i].n ? maxn : ch->s[i].n;
    float *px = xmalloc((size_t)(maxn + 1) * sizeof(float)), *py = xmalloc((size_t)(maxn + 1) * sizeof(float));
    // lines first (light series underneath), then all markers on top
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ch->ns; i++) {
            const ChartSeries *se = &ch->s[i];
            if (se->light != (pass == 0) || se->n == 0) continue;
            for (int k = 0; k < se->n; k++) px[k] = ax_map(&p->X, se->x[k]), py[k] = ax_map(&p->Y, se->y[k]);
            draw_polyline(c, px, py, se->n, fmaxf(1, se->width * s), se->dash, se->color, se->opacity);
        }
    for (int i = 0; i < ch->ns; i++) {
        const ChartSeries *se = &ch->s[i];
        if (!se->markers || se->marker < 0) continue;
        for (int k = 0; k < se->n; k++) {
            if (ch->yclip && se->y[k] > p->Y.hi) continue;
            draw_marker(c, se->marker, ax_map(&p->X, se->x[k]), ax_map(&p->Y, se->y[k]), mr, se->color, 1.5f * s);
        }
    }
    free(px), free(py);
}
// clipped points: an upward triangle touching the top edge, the value beside it; a value
// with no free place beside its mark is listed in a box instead (never dropped)
static void draw_clip_marks(Canvas *c, const Font *f, const Chart *ch, Plan *p, ChartStats *st) {
    const float s = p->s, fs_tick = p->fs_tick, mr = p->mr, vlab_x = p->vlab_x, vlab_y = p->vlab_y, L = p->L, R = p->R,
                T = p->T, B = p->B;
    const int nleg = p->nleg, ncm = p->ncm;
    Box placed[256];
    int nplaced = 0, *unl = xmalloc(((size_t)ncm + 1) * sizeof(int)), nunl = 0;
    for (int k = 0; k < ncm; k++) {
        float tx = p->cm[k].x, r = mr * 1.25f;
        float tri[6] = {tx, T + 2 * s, tx + r, T + 2 * s + 1.6f * r, tx - r, T + 2 * s + 1.6f * r};
        float rim[6] = {tx, T, tx + r + 2 * s, T + 3 * s + 1.6f * r, tx - r - 2 * s, T + 3 * s + 1.6f * r};
        shape_convex(c, rim, 3), shape_flush(c, WHITE, 1);
        shape_convex(c, tri, 3), shape_flush(c, p->cm[k].col, 1);
        char b[32];
        format_value(b, 32, p->cm[k].v);
        float tw = text_width(f, fs_tick * 0.9f, b), lx = tx + r + 5 * s, by = T + 2 * s + 1.6f * r;
        if (lx + tw > R - 4) lx = tx - r - 5 * s - tw;
        Box bb = {lx - 2, by - text_cap(f, fs_tick * 0.9f) - 2, lx + tw + 2, by + 4};
        int clash = 1;
        for (int row = 0; row < 2 && clash; row++) { // beside the mark, or one row lower
            if (row) bb.y0 += fs_tick * 1.1f, bb.y1 += fs_tick * 1.1f, by += fs_tick * 1.1f;
            clash = nplaced >= 256;
            for (int q = 0; q < nplaced; q++) clash |= box_overlap(bb, placed[q]);
        }
        if (!clash) {
            placed[nplaced++] = bb;
            draw_rect(c, bb.x0, bb.y0, bb.x1, bb.y1, WHITE, 0.8f);
            draw_text(c, f, fs_tick * 0.9f, b, lx, by, 0, 0, p->cm[k].col);
        } else unl[nunl++] = k;
    }
    if (nunl) { // "above the axis:" and a line per value, in its series' colour
        float fz = fs_tick * 0.8f, lh = fz * 1.35f, bw = text_width(f, fz, "above the axis:");
        char line[256], xb[32], vb[32];
        for (int q = 0; q < nunl; q++) {
            const ClipMark *m = &p->cm[unl[q]];
            format_value(xb, 32, m->xv), format_value(vb, 32, m->v);
            snprintf(line, sizeof line, "%.60s at %s: %s", m->label ? m->label : "", xb, vb);
            bw = fmaxf(bw, text_width(f, fz, line));
        }
        // as many columns as the plot's height needs
        int per_col = (int)fmaxf(1, (B - T - 28 * s - fz * 0.6f) / lh - 1), ncol = (nunl + per_col - 1) / per_col;
        int nrow = (nunl + ncol - 1) / ncol;
        float colw = bw + fz;
        bw = colw * ncol - fz;
        float bh = lh * (nrow + 1) + fz * 0.6f, bx = L + 14 * s, by0 = B - 14 * s - bh;
        // where the box goes: the lowest, then leftmost, spot in the plot (below the clip row and
        // its labels) that no line, marker, label or legend touches (seed bands are not counted);
        // else beneath a legend that sits outside on the right; else over the data at the bottom
        // left (ChartStats says which)
        float ytop = T + 2 * s + 1.6f * mr * 1.25f + fs_tick * 2.4f;
        st->clip_box = "over the data";
        Box lg = {p->legend.x0 - 6 * s, p->legend.y0 - 6 * s, p->legend.x1 + 6 * s, p->legend.y1 + 6 * s};
        for (float y = by0; y >= ytop && !strcmp(st->clip_box, "over the data"); y -= (B - T) / 32)
            for (float x = L + 14 * s; x + bw + fz <= R - 14 * s; x += (R - L) / 32) {
                Box b = {x, y, x + bw + fz, y + bh};
                int hit = obs_hits(&p->ob, b) || (nleg && box_overlap(b, lg));
                for (int q = 0; q < nplaced && !hit; q++) hit = box_overlap(b, placed[q]);
                if (!hit) {
                    bx = x, by0 = y, st->clip_box = "in the plot";
                    break;
                }
            }
        float ux = fminf(p->legend.x0, c->w - 4 - bw - fz); // beneath the legend, moved left if wider
        if (!strcmp(st->clip_box, "over the data") && nleg && p->legend.x0 > R && ux > R + 4 && p->legend.y1 + 14 * s + bh <= B) {
            bx = ux, by0 = p->legend.y1 + 14 * s, st->clip_box = "beneath the legend";
            canvas_clip(c, 0, 0, c->w, c->h);
        }
        draw_rect(c, bx, by0, bx + bw + fz, by0 + bh, (Rgb){0xcc, 0xcc, 0xcc}, 1);
        draw_rect(c, bx + 1, by0 + 1, bx + bw + fz - 1, by0 + bh - 1, WHITE, 0.92f);
        draw_text(c, f, fz, "above the axis:", bx + fz / 2, by0 + fz * 0.3f + lh * 0.8f, 0, 0, GREY);
        for (int q = 0; q < nunl; q++) {
            const ClipMark *m = &p->cm[unl[q]];
            format_value(xb, 32, m->xv), format_value(vb, 32, m->v);
            snprintf(line, sizeof line, "%.60s at %s: %s", m->label ? m->label : "", xb, vb);
            draw_text(c, f, fz, line, bx + fz / 2 + colw * (q / nrow), by0 + fz * 0.3f + lh * (q % nrow + 1.8f), 0, 0, m->col);
        }
    }
    free(unl);
    st->clipped = ncm;
    st->clip_listed = nunl, st->clip_beside = nplaced;
    if (ch->nvlines && ch->vline_label) draw_text(c, f, fs_tick * 0.9f, ch->vline_label, vlab_x, vlab_y, 0, 0, GREY);
    canvas_clip(c, 0, 0, c->w, c->h);
}
// the frame, the axis break when points are clipped, ticks and their labels
static void draw_frame(Canvas *c, const Font *f, const Chart *ch, Plan *p, ChartStats *st) {
    const float s = p->s, fs_tick = p->fs_tick, tick_len = p->tick_len, frame_w = p->frame_w, L = p->L, R = p->R,
                T = p->T, B = p->B;
    const int clip_label = p->clip_label, ncm = p->ncm;
    draw_rect(c, L - frame_w / 2, T - frame_w / 2, R + frame_w / 2, T + frame_w / 2, INK, 1);
    draw_rect(c, L - frame_w / 2, B - frame_w / 2, R + frame_w / 2, B + frame_w / 2, INK, 1);
    draw_rect(c, L - frame_w / 2, T - frame_w / 2, L + frame_w / 2, B + frame_w / 2, INK, 1);
    draw_rect(c, R - frame_w / 2, T - frame_w / 2, R + frame_w / 2, B + frame_w / 2, INK, 1);
    if (ncm) { // axis break: a gap in the left spine near the top crossed by two slanted strokes
        float y0 = T + 16 * s, g = 4 * s, d = 9 * s;
        draw_rect(c, L - 3 * s, y0 - g, L + 3 * s, y0 + g, WHITE, 1);
        shape_capsule(c, L - d, y0 - g + d * 0.45f, L + d, y0 - g - d * 0.45f, 0.75f * s + 0.3f);
        shape_capsule(c, L - d, y0 + g + d * 0.45f, L + d, y0 + g - d * 0.45f, 0.75f * s + 0.3f);
        shape_flush(c, INK, 1);
    }
    float cap_t = text_cap(f, fs_tick);
    for (int k = 0; k < p->yt.n; k++) {
        float y = ax_map(&p->Y, p->yt.v[k]);
        if (clip_label && fabsf(y - T) < fs_tick * 1.3f) continue; // the clip value label takes this spot
        shape_capsule(c, L - tick_len, y, L, y, frame_w / 2);
        draw_text(c, f, fs_tick, p->yt.lab[k], L - tick_len - 0.4f * fs_tick, y + cap_t / 2, 2, 0, INK);
    }
    if (clip_label) {
        char b[32];
        format_value(b, 32, p->Y.hi);
        shape_capsule(c, L - tick_len, T, L, T, frame_w / 2);
        draw_text(c, f, fs_tick, b, L - tick_len - 0.4f * fs_tick, T + cap_t / 2, 2, 0, INK);
    }
    // x tick labels, skipping any that would overlap the previous one
    float last_x1 = -1e9;
    p->xlab_y = B + tick_len + 0.5f * fs_tick + cap_t;
    for (int k = 0; k < p->xt.n; k++) {
        float x = ax_map(&p->X, p->xt.v[k]);
        if (x < L - 1 || x > R + 1) continue;
        shape_capsule(c, x, B, x, B + tick_len, frame_w / 2);
        float tw = text_width(f, fs_tick, p->xt.lab[k]);
        if (ch->xsub && ch->xsub[k]) tw = fmaxf(tw, text_width(f, fs_tick * 0.85f, ch->xsub[k]));
        if (x - tw / 2 < last_x1 + 0.6f * fs_tick) continue;
        draw_text(c, f, fs_tick, p->xt.lab[k], x, p->xlab_y, 1, 0, INK);
        if (ch->xsub && ch->xsub[k]) draw_text(c, f, fs_tick * 0.85f, ch->xsub[k], x, p->xlab_y + fs_tick * 1.15f, 1, 0, GREY);
        last_x1 = x + tw / 2;
    }
    shape_flush(c, INK, 1);
}
// axis titles, title, caption
static void draw_titles(Canvas *c, const Font *f, const Chart *ch, Plan *p, ChartStats *st) {
    const float fs_title = p->fs_title, fs_label = p->fs_label, fs_tick = p->fs_tick, fs_cap = p->fs_cap, pad = p->pad,
                L = p->L, R = p->R, T = p->T, B = p->B, xlab_y = p->xlab_y;
    float xtitle_y = xlab_y + fs_tick * (ch->xsub ? 1.15f : 0) + 0.6f * fs_label + fs_label;
    // titles: centred on the plot, moved (then shrunk) to stay inside the figure
    const char *htext[2] = {ch->xlabel, ch->title};
    float hpx[2] = {fs_label, fs_title}, hy[2] = {xtitle_y, pad + text_cap(f, fs_title)};
    for (int k = 0; k < 2; k++) {
        if (!htext[k]) continue;
        float px_ = text_fit_px(f, hpx[k], htext[k], c->w - 2 * pad), tw = text_width(f, px_, htext[k]), x = (L + R) / 2;
        x = fmaxf(x, pad + tw / 2), x = fminf(x, c->w - pad - tw / 2);
        draw_text(c, f, px_, htext[k], x, hy[k], 1, 0, k ? (Rgb){0x11, 0x11, 0x11} : INK);
    }
    if (ch->ylabel)
        draw_text(c, f, text_fit_px(f, fs_label, ch->ylabel, B - T + 0.5f * (T + c->h - B)), ch->ylabel, pad + text_cap(f, fs_label) + 0.1f * fs_label,
                  (T + B) / 2, 1, 1, INK);
    if (ch->caption) {
        float cy = xtitle_y + 0.8f * fs_cap + fs_cap;
        // shrink a long caption to fit the width rather than cut it
        float fc = fs_cap, cw = text_width(f, fc, ch->caption);
        if (cw > c->w - L - pad) fc *= (c->w - L - pad) / cw;
        draw_text(c, f, fc, ch->caption, L, cy, 0, 0, GREY);
    }
}
// the legend box: a line sample, marker and label per entry
static void draw_legend(Canvas *c, const Font *f, const Chart *ch, Plan *p, ChartStats *st) {
    const float s = p->s, fs_leg = p->fs_leg, mr = p->mr, row_h = p->row_h, sample_w = p->sample_w, lpad = p->lpad;
    const int nleg = p->nleg;
    if (nleg) {
        draw_rect(c, p->legend.x0, p->legend.y0, p->legend.x1, p->legend.y1, (Rgb){0xcc, 0xcc, 0xcc}, 1);
        draw_rect(c, p->legend.x0 + 1, p->legend.y0 + 1, p->legend.x1 - 1, p->legend.y1 - 1, WHITE, 1);
        int row = 0;
        for (int i = 0; i < ch->ns; i++) {
            const ChartSeries *se = &ch->s[i];
            if (!se->label) continue;
            float cy = p->legend.y0 + lpad * 0.6f + (row + 0.5f) * row_h, x0 = p->legend.x0 + lpad;
            float xs[2] = {x0, x0 + sample_w}, ys[2] = {cy, cy};
            draw_polyline(c, xs, ys, 2, fmaxf(1, se->width * s), se->dash, se->color, se->opacity);
            if (se->marker >= 0 && (se->markers || !se->n)) draw_marker(c, se->marker, x0 + sample_w / 2, cy, mr, se->color, 1.5f * s);
            draw_text(c, f, fs_leg, p->leglab[i], x0 + sample_w + 0.5f * fs_leg, cy + text_cap(f, fs_leg) / 2, 0, 0, INK);
            row++;
        }
    }
}
void chart_render(Canvas *c, const Font *f, const Chart *ch, ChartStats *st) {
    memset(st, 0, sizeof *st);
    Plan p = {0};
    chart_sizes(c, f, ch, &p, st);
    chart_axes(c, f, ch, &p, st);
    chart_margins(c, f, ch, &p, st);
    chart_place(c, f, ch, &p, st);
    draw_data(c, f, ch, &p, st);
    draw_clip_marks(c, f, ch, &p, st);
    draw_frame(c, f, ch, &p, st);
    draw_titles(c, f, ch, &p, st);
    draw_legend(c, f, ch, &p, st);
    free(p.cm), free(p.leglab);
    obs_free(&p.ob);
    st->ink = canvas_count_other(c, WHITE);
}
