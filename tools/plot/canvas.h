// canvas.h - the RGB canvas of `posgpt plot`, written as PNG (stb_image_write) or recorded
// as SVG too: anti-aliased shapes (thick polylines with round joins and dashes, discs,
// convex polygons) and markers. Text is in text.h, the chart in chart.h.
//
// Anti-aliasing is by coverage: a shape is accumulated into a per-pixel coverage buffer
// (max-combined, so the capsules of a polyline overlap at the joins without darkening)
// and composited once with its colour. Coverage of a pixel is its centre's signed
// distance to the shape's edge, clamped to [0, 1] over one pixel.
#ifndef POSGPT_CANVAS_H
#define POSGPT_CANVAS_H

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

// for text.c: the text as an SVG <text> element (nothing without canvas_svg); one pixel
// blended with colour col at alpha a, if inside the clip rectangle
void canvas_svg_text(Canvas *c, float px, const char *s, float x, float y, int align, int vertical, Rgb col);
void canvas_blend(Canvas *c, int x, int y, Rgb col, float a);

static inline double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
#endif
