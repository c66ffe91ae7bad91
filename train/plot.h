// plot.h - a small raster plotting library for `posgpt plot`: an RGB canvas written as PNG
// (stb_image_write), anti-aliased shapes (thick polylines with round joins and dashes,
// discs, convex polygons), text through stb_truetype, and one chart type (lines with
// markers on linear or log axes, ticks, grid, legend placed where it covers no data,
// y clipping with marked points). Reading CSV files and choosing what to plot is in
// cmd_plot.c; nothing here knows about position schemes or perplexity.
//
// Anti-aliasing is by coverage: a shape is accumulated into a per-pixel coverage buffer
// (max-combined, so the capsules of a polyline overlap at the joins without darkening)
// and composited once with its colour. Coverage of a pixel is its centre's signed
// distance to the shape's edge, clamped to [0, 1] over one pixel.
#ifndef POSGPT_PLOT_H
#define POSGPT_PLOT_H

#include <stdint.h>

typedef struct {
    uint8_t r, g, b;
} Rgb;

typedef struct Svg Svg;

typedef struct {
    int w, h;
    Svg *svg;               // non-NULL: every shape and text is also recorded as SVG (canvas_svg)
    uint8_t *px;            // (h, w, 3) RGB, row-major from the top
    float *cov;             // (h, w) coverage of the shape being built, in [0, 1]
    int cx0, cy0, cx1, cy1; // clip rectangle: pixels [cx0, cx1) x [cy0, cy1)
    int bx0, by0, bx1, by1; // bounding box of the non-zero coverage (empty: bx0 >= bx1)
} Canvas;

void canvas_init(Canvas *c, int w, int h, Rgb bg);
void canvas_free(Canvas *c);
void canvas_blit(Canvas *dst, const Canvas *src, int x, int y); // src's pixels (and SVG) into dst at (x, y)
void canvas_clip(Canvas *c, int x0, int y0, int x1, int y1); // clip later shapes; canvas_clip(c, 0, 0, c->w, c->h) resets
void canvas_write_png(const Canvas *c, const char *path);      // dies with a one-line error on failure
// record from now on what is drawn as SVG too (call right after canvas_init): the same
// shapes as vectors, text as <text> in DejaVu Sans, clip rectangles as clip paths
void canvas_svg(Canvas *c, Rgb bg);
void canvas_write_svg(const Canvas *c, const char *path);      // dies with a one-line error on failure
long canvas_count_other(const Canvas *c, Rgb bg);             // pixels that differ from bg

// Build a shape into the coverage buffer (any number of calls), then composite it once.
void shape_capsule(Canvas *c, float x0, float y0, float x1, float y1, float half_width); // segment with round caps
void shape_disc(Canvas *c, float x, float y, float r);
void shape_convex(Canvas *c, const float *xy, int n); // convex polygon, n <= 16 vertices (x, y pairs)
void shape_flush(Canvas *c, Rgb col, float opacity);

enum { DASH_SOLID, DASH_DASHED, DASH_DOTTED, DASH_DASHDOT, DASH_COUNT };
enum { MARK_CIRCLE, MARK_SQUARE, MARK_TRIANGLE, MARK_DIAMOND, MARK_TRIANGLE_DOWN, MARK_HEXAGON, MARK_COUNT };

void draw_polyline(Canvas *c, const float *x, const float *y, int n, float width, int dash, Rgb col, float opacity);
void draw_rect(Canvas *c, float x0, float y0, float x1, float y1, Rgb col, float opacity); // filled
void draw_marker(Canvas *c, int shape, float x, float y, float r, Rgb fill, float edge); // edge: white rim width

// ---- text (stb_truetype) ----
typedef struct Font Font;
// path NULL: try the standard locations of DejaVu Sans (fonts-dejavu-core) and a few others.
// Dies with a one-line error naming the package when no font is found or the file is bad.
Font *font_load(const char *path);
void font_free(Font *f);
const char *font_path(const Font *f);
float text_width(const Font *f, float px, const char *s);  // UTF-8 string at px pixels per em
float text_cap(const Font *f, float px);                   // height of a capital letter
// align: 0 left, 1 centre, 2 right of x; y is the baseline. vertical: rotated 90 degrees
// counter-clockwise (reads bottom to top), x is then the baseline column and y the anchor.
void draw_text(Canvas *c, const Font *f, float px, const char *s, float x, float y, int align, int vertical, Rgb col);

// ---- chart ----
typedef struct {
    const char *label;   // legend text; NULL: not in the legend
    const double *x, *y; // (n) points in data units, x increasing; n = 0: a legend-only entry
    int n;
    Rgb color;
    float width;         // line width at 1600x1000 (scaled with the figure)
    float opacity;       // 1 = opaque; lower for light background series
    int dash;            // DASH_*
    int marker;          // MARK_*, or -1 for none
    int markers;         // draw the marker at every point (and in the legend)
    int light;           // a background curve: drawn first, no triangles for clipped points
} ChartSeries;

typedef struct {
    const char *title, *xlabel, *ylabel, *caption; // caption: a line of small text under the plot
    const ChartSeries *s;
    int ns;
    int xlog, ylog;          // logarithmic axes (x: base 2 spacing; labels come from the ticks)
    const double *xticks;    // explicit x ticks (NULL: automatic)
    int nxticks;
    const char *const *xsub; // optional second line under each explicit x tick ("2x"), or NULL
    double xtick_unit;       // automatic linear x ticks at multiples of unit*2^k when > 0
    double ymin, ymax;       // axis range when set (NaN: from the data)
    int yclip;               // ymax set: points above it are drawn at the top edge as a triangle with their value
    const double *vlines;    // dashed vertical reference lines (the training length)
    int nvlines;
    const char *vline_label;
} Chart;

typedef struct {
    double ylo, yhi;      // the y axis range drawn
    int clipped;          // points drawn as clipped triangles
    int clip_beside;      // of those, values written beside their mark
    int clip_listed;      // and values listed in the "above the axis" box (no room beside the mark)
    int legend_outside;   // 1: no free corner inside the plot, the legend is on the right
    const char *legend_at;
    long ink;             // non-background pixels
} ChartStats;

void chart_render(Canvas *c, const Font *f, const Chart *ch, ChartStats *st);

// 16 colours told apart on white: the Okabe-Ito colour-blind-safe palette first
#define PALETTE_SIZE 16
Rgb palette_color(int i);
// a round step (1, 2 or 5 times a power of 10) giving about `target` intervals over span
double nice_step(double span, int target);
// a short readable form of a value ("312", "6.89", "0.0123", "1.2e+06")
void format_value(char *buf, int n, double v);
#endif
