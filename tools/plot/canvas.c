// canvas.c - the RGB canvas of `posgpt plot`: anti-aliased shapes by coverage, dashed
// polylines, markers, PNG output (stb_image_write) and the SVG recording. See canvas.h.
// stb_image_write (Debian libstb-dev) is compiled here, static, so no other file's copy can
// clash with it.
#include "stb_quiet.h"
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h> // (the include path: STB_CFLAGS, Makefile)
#pragma GCC diagnostic pop

#include "canvas.h"

#include "common.h"
#include "fileio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------
// canvas
// ---------------------------------------------------------------------------------------

// ---- SVG recording: shapes built between two shape_flush calls become one group with the
// colour and opacity of the flush (group opacity composites the union once, as the coverage
// buffer does); a polyline is one <polyline>; the clip rectangle is a clip path ----
struct Svg {
    char *body, *pend;       // the document so far; the shapes of the open flush
    size_t n, cap, pn, pcap;
    int clip_open, mute;     // a clip group is open; shapes of a polyline drawn as one element
};
static int g_clip_id; // clip path ids, unique across the canvases of one figure

static void sv_add(char **b, size_t *n, size_t *cap, const char *fmt, va_list ap) {
    for (;;) {
        va_list aq;
        va_copy(aq, ap);
        int k = vsnprintf(*b ? *b + *n : NULL, *b ? *cap - *n : 0, fmt, aq);
        va_end(aq);
        if (k < 0) die("plot: SVG formatting failed");
        if (*b && (size_t)k < *cap - *n) {
            *n += (size_t)k;
            return;
        }
        *cap = 2 * *cap + (size_t)k + 4096;
        *b = realloc(*b, *cap);
        if (!*b) die("plot: out of memory");
    }
}
static void svg_out(Canvas *c, const char *fmt, ...) POSGPT_PRINTF(2, 3);
static void svg_out(Canvas *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sv_add(&c->svg->body, &c->svg->n, &c->svg->cap, fmt, ap);
    va_end(ap);
}
static void sv_add_str(Canvas *c, const char *s, size_t n) {
    Svg *v = c->svg;
    if (v->n + n + 1 > v->cap) {
        v->cap = 2 * v->cap + n + 4096;
        v->body = realloc(v->body, v->cap);
        if (!v->body) die("plot: out of memory");
    }
    memcpy(v->body + v->n, s, n), v->n += n, v->body[v->n] = 0;
}
static void svg_shape(Canvas *c, const char *fmt, ...) POSGPT_PRINTF(2, 3);
static void svg_shape(Canvas *c, const char *fmt, ...) {
    if (!c->svg || c->svg->mute) return;
    va_list ap;
    va_start(ap, fmt);
    sv_add(&c->svg->pend, &c->svg->pn, &c->svg->pcap, fmt, ap);
    va_end(ap);
}
static void svg_text_escaped(Canvas *c, const char *s) {
    for (; *s; s++)
        if (*s == '&') svg_out(c, "&amp;");
        else if (*s == '<') svg_out(c, "&lt;");
        else if (*s == '>') svg_out(c, "&gt;");
        else if ((unsigned char)*s >= 0x20) svg_out(c, "%c", *s);
}

void canvas_svg(Canvas *c, Rgb bg) {
    c->svg = xcalloc(1, sizeof *c->svg);
    svg_out(c, "<rect width=\"%d\" height=\"%d\" fill=\"#%02x%02x%02x\"/>\n", c->w, c->h, bg.r, bg.g, bg.b);
}

static void svg_close_clip(Canvas *c) {
    if (c->svg && c->svg->clip_open) svg_out(c, "</g>\n"), c->svg->clip_open = 0;
}

void canvas_write_svg(const Canvas *c, const char *path) {
    if (!c->svg) die("internal: canvas_write_svg without canvas_svg");
    OutFile o;
    FILE *f = out_open(&o, path, "figure");
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n", c->w, c->h, c->w, c->h);
    fwrite(c->svg->body, 1, c->svg->n, f);
    fprintf(f, "%s</svg>\n", c->svg->clip_open ? "</g>\n" : "");
    out_commit(&o);
}

void canvas_init(Canvas *c, int w, int h, Rgb bg) {
    c->w = w, c->h = h, c->svg = NULL;
    c->px = xmalloc((size_t)w * h * 3);
    c->cov = xcalloc((size_t)w * h, sizeof(float));
    for (size_t i = 0; i < (size_t)w * h; i++) c->px[3 * i] = bg.r, c->px[3 * i + 1] = bg.g, c->px[3 * i + 2] = bg.b;
    canvas_clip(c, 0, 0, w, h);
    c->bx0 = c->by0 = 1 << 30, c->bx1 = c->by1 = -1;
}

void canvas_blit(Canvas *dst, const Canvas *src, int x, int y) {
    if (dst->svg && src->svg) {
        svg_out(dst, "<g transform=\"translate(%d,%d)\">\n", x, y);
        sv_add_str(dst, src->svg->body, src->svg->n);
        svg_out(dst, "%s</g>\n", src->svg->clip_open ? "</g>\n" : "");
    }
    for (int r = 0; r < src->h; r++)
        for (int k = 0; k < src->w; k++)
            if (r + y >= 0 && r + y < dst->h && k + x >= 0 && k + x < dst->w)
                memcpy(dst->px + ((size_t)(r + y) * dst->w + k + x) * 3, src->px + ((size_t)r * src->w + k) * 3, 3);
}

void canvas_free(Canvas *c) {
    free(c->px), free(c->cov);
    if (c->svg) free(c->svg->body), free(c->svg->pend), free(c->svg);
    c->px = NULL, c->cov = NULL, c->svg = NULL;
}

void canvas_clip(Canvas *c, int x0, int y0, int x1, int y1) {
    c->cx0 = x0 < 0 ? 0 : x0, c->cy0 = y0 < 0 ? 0 : y0;
    c->cx1 = x1 > c->w ? c->w : x1, c->cy1 = y1 > c->h ? c->h : y1;
    if (!c->svg) return;
    svg_close_clip(c);
    if (c->cx0 > 0 || c->cy0 > 0 || c->cx1 < c->w || c->cy1 < c->h) {
        int id = ++g_clip_id;
        svg_out(c, "<clipPath id=\"c%d\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></clipPath>\n<g clip-path=\"url(#c%d)\">\n",
                id, c->cx0, c->cy0, c->cx1 - c->cx0, c->cy1 - c->cy0, id);
        c->svg->clip_open = 1;
    }
}

typedef struct {
    FILE *f;
    int failed;
} PngSink;

static void png_write_cb(void *ctx, void *data, int size) {
    PngSink *s = ctx;
    if (!s->failed && fwrite(data, 1, (size_t)size, s->f) != (size_t)size) s->failed = errno ? errno : EIO;
}

void canvas_write_png(const Canvas *c, const char *path) {
    OutFile o;
    PngSink s = {out_open(&o, path, "figure"), 0};
    errno = 0;
    if (!stbi_write_png_to_func(png_write_cb, &s, c->w, c->h, 3, c->px, c->w * 3) || s.failed) {
        out_abandon(&o);
        die("cannot write the figure '%s': %s", path, s.failed ? strerror(s.failed) : "PNG encoder failed");
    }
    out_commit(&o);
}

long canvas_count_other(const Canvas *c, Rgb bg) {
    long n = 0;
    for (size_t i = 0; i < (size_t)c->w * c->h; i++)
        n += c->px[3 * i] != bg.r || c->px[3 * i + 1] != bg.g || c->px[3 * i + 2] != bg.b;
    return n;
}

static inline void blend(Canvas *c, int x, int y, Rgb col, float a) {
    if (a <= 0) return;
    if (a > 1) a = 1;
    uint8_t *p = c->px + 3 * ((size_t)y * c->w + x);
    p[0] = (uint8_t)(p[0] + (col.r - p[0]) * a + 0.5f);
    p[1] = (uint8_t)(p[1] + (col.g - p[1]) * a + 0.5f);
    p[2] = (uint8_t)(p[2] + (col.b - p[2]) * a + 0.5f);
}

void canvas_blend(Canvas *c, int x, int y, Rgb col, float a) {
    if (x >= c->cx0 && x < c->cx1 && y >= c->cy0 && y < c->cy1) blend(c, x, y, col, a);
}

void canvas_svg_text(Canvas *c, float px, const char *s, float x, float y, int align, int vertical, Rgb col) {
    if (!c->svg) return;
    const char *anchor = align == 1 ? "middle" : align == 2 ? "end" : "start";
    if (vertical) svg_out(c, "<text transform=\"translate(%.2f,%.2f) rotate(-90)\"", x, y);
    else svg_out(c, "<text x=\"%.2f\" y=\"%.2f\"", x, y);
    svg_out(c, " font-size=\"%.2f\" text-anchor=\"%s\" fill=\"#%02x%02x%02x\">", px, anchor, col.r, col.g, col.b);
    svg_text_escaped(c, s);
    svg_out(c, "</text>\n");
}

// clip a box to the clip rectangle; returns 0 when empty
static int clip_box(const Canvas *c, double fx0, double fy0, double fx1, double fy1, int *x0, int *y0, int *x1, int *y1) {
    *x0 = (int)clampd(floor(fx0), c->cx0, c->cx1), *x1 = (int)clampd(ceil(fx1) + 1, c->cx0, c->cx1);
    *y0 = (int)clampd(floor(fy0), c->cy0, c->cy1), *y1 = (int)clampd(ceil(fy1) + 1, c->cy0, c->cy1);
    return *x0 < *x1 && *y0 < *y1;
}

static void touch(Canvas *c, int x0, int y0, int x1, int y1) {
    if (x0 < c->bx0) c->bx0 = x0;
    if (y0 < c->by0) c->by0 = y0;
    if (x1 > c->bx1) c->bx1 = x1;
    if (y1 > c->by1) c->by1 = y1;
}

static inline void cov_max(Canvas *c, int x, int y, float a) {
    float *p = c->cov + (size_t)y * c->w + x;
    if (a > *p) *p = a > 1 ? 1 : a;
}

// Capsule: all points within hw of the segment. Coverage = hw + 0.5 - distance, clamped.
// Rows are scanned only over the x span of the band |n.(p - p0)| <= hw + 1 around the line,
// so a long diagonal segment costs its length, not its bounding box.
void shape_capsule(Canvas *c, float fx0, float fy0, float fx1, float fy1, float half_width) {
    double x0 = clampd(fx0, -1e8, 1e8), y0 = clampd(fy0, -1e8, 1e8), x1 = clampd(fx1, -1e8, 1e8), y1 = clampd(fy1, -1e8, 1e8);
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1)) return;
    svg_shape(c, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke-width=\"%.2f\"/>", x0, y0, x1, y1, 2 * half_width);
    double hw = half_width, scale = 1;
    if (hw < 0.5) scale = 2 * hw, hw = 0.5; // thinner than a pixel: lighter instead
    double R = hw + 1;
    int bx0, by0, bx1, by1;
    if (!clip_box(c, fmin(x0, x1) - R, fmin(y0, y1) - R, fmax(x0, x1) + R, fmax(y0, y1) + R, &bx0, &by0, &bx1, &by1)) return;
    double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy, len = sqrt(len2);
    int any = 0;
    for (int j = by0; j < by1; j++) {
        double py = j + 0.5;
        int i0 = bx0, i1 = bx1;
        if (fabs(dy) > 1e-9 && len > 0) { // x range of the band on this row
            double xa = x0 + (dx * (py - y0) - R * len) / dy, xb = x0 + (dx * (py - y0) + R * len) / dy;
            if (xa > xb) { double t = xa; xa = xb; xb = t; }
            i0 = (int)clampd(floor(xa - 1), bx0, bx1), i1 = (int)clampd(ceil(xb + 1), bx0, bx1);
        }
        for (int i = i0; i < i1; i++) {
            double px = i + 0.5, t = len2 > 0 ? ((px - x0) * dx + (py - y0) * dy) / len2 : 0;
            t = clampd(t, 0, 1);
            double ex = x0 + t * dx - px, ey = y0 + t * dy - py;
            double a = (hw + 0.5 - sqrt(ex * ex + ey * ey)) * scale;
            if (a > 0) cov_max(c, i, j, (float)a), any = 1;
        }
    }
    if (any) touch(c, bx0, by0, bx1, by1);
}

void shape_disc(Canvas *c, float x, float y, float r) {
    svg_shape(c, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" stroke=\"none\"/>", x, y, r);
    int bx0, by0, bx1, by1;
    if (!clip_box(c, x - r - 1, y - r - 1, x + r + 1, y + r + 1, &bx0, &by0, &bx1, &by1)) return;
    for (int j = by0; j < by1; j++)
        for (int i = bx0; i < bx1; i++) {
            double d = hypot(i + 0.5 - x, j + 0.5 - y);
            cov_max(c, i, j, (float)clampd(r + 0.5 - d, 0, 1));
        }
    touch(c, bx0, by0, bx1, by1);
}

// Convex polygon: signed distance approximated by the largest distance to an edge line
// (exact inside and along edges; corners come out slightly sharp, which is fine here).
void shape_convex(Canvas *c, const float *xy, int n) {
    if (n < 3 || n > 16) return;
    if (c->svg && !c->svg->mute) {
        svg_shape(c, "<polygon stroke=\"none\" points=\"");
        for (int k = 0; k < n; k++) svg_shape(c, "%s%.2f,%.2f", k ? " " : "", xy[2 * k], xy[2 * k + 1]);
        svg_shape(c, "\"/>");
    }
    double nx[16], ny[16], off[16], cx = 0, cy = 0, lo_x = 1e30, lo_y = 1e30, hi_x = -1e30, hi_y = -1e30;
    for (int k = 0; k < n; k++) {
        cx += xy[2 * k] / n, cy += xy[2 * k + 1] / n;
        lo_x = fmin(lo_x, xy[2 * k]), hi_x = fmax(hi_x, xy[2 * k]);
        lo_y = fmin(lo_y, xy[2 * k + 1]), hi_y = fmax(hi_y, xy[2 * k + 1]);
    }
    for (int k = 0; k < n; k++) {
        int k2 = (k + 1) % n;
        double ex = xy[2 * k2] - xy[2 * k], ey = xy[2 * k2 + 1] - xy[2 * k + 1], l = hypot(ex, ey);
        if (l <= 0) return;
        nx[k] = ey / l, ny[k] = -ex / l;
        off[k] = nx[k] * xy[2 * k] + ny[k] * xy[2 * k + 1];
        if (nx[k] * cx + ny[k] * cy - off[k] > 0) nx[k] = -nx[k], ny[k] = -ny[k], off[k] = -off[k]; // point outward
    }
    int bx0, by0, bx1, by1;
    if (!clip_box(c, lo_x - 1, lo_y - 1, hi_x + 1, hi_y + 1, &bx0, &by0, &bx1, &by1)) return;
    for (int j = by0; j < by1; j++)
        for (int i = bx0; i < bx1; i++) {
            double sd = -1e30;
            for (int k = 0; k < n; k++) sd = fmax(sd, nx[k] * (i + 0.5) + ny[k] * (j + 0.5) - off[k]);
            cov_max(c, i, j, (float)clampd(0.5 - sd, 0, 1));
        }
    touch(c, bx0, by0, bx1, by1);
}

void shape_flush(Canvas *c, Rgb col, float opacity) {
    if (c->svg && c->svg->pn) {
        svg_out(c, "<g fill=\"#%02x%02x%02x\" stroke=\"#%02x%02x%02x\" stroke-linecap=\"round\"", col.r, col.g, col.b, col.r, col.g, col.b);
        if (opacity < 1) svg_out(c, " opacity=\"%.3f\"", opacity);
        svg_out(c, ">");
        sv_add_str(c, c->svg->pend, c->svg->pn);
        svg_out(c, "</g>\n");
        c->svg->pn = 0;
    }
    for (int j = c->by0; j < c->by1; j++)
        for (int i = c->bx0; i < c->bx1; i++) {
            float *p = c->cov + (size_t)j * c->w + i;
            if (*p > 0) blend(c, i, j, col, *p * opacity), *p = 0;
        }
    c->bx0 = c->by0 = 1 << 30, c->bx1 = c->by1 = -1;
}

// ---------------------------------------------------------------------------------------
// lines, rectangles, markers
// ---------------------------------------------------------------------------------------

// dash patterns in units of the line width: on, off, on, off ... (round caps make a
// near-zero "on" a dot)
static const float DASHES[DASH_COUNT][4] = {{0}, {3.5f, 2.5f, 3.5f, 2.5f}, {0.01f, 2.2f, 0.01f, 2.2f}, {4, 2, 0.01f, 2}};

void draw_polyline(Canvas *c, const float *x, const float *y, int n, float width, int dash, Rgb col, float opacity) {
    float hw = width / 2, unit = width < 2 ? 2 : width;
    if (c->svg) { // one <polyline> per unbroken run, the dashes as a dash array; the raster below records nothing
        for (int i = 0; i < n;) {
            while (i < n && !(isfinite(x[i]) && isfinite(y[i]))) i++;
            int j = i;
            while (j < n && isfinite(x[j]) && isfinite(y[j])) j++;
            if (j > i) {
                svg_out(c, "<polyline fill=\"none\" stroke=\"#%02x%02x%02x\" stroke-width=\"%.2f\" stroke-linecap=\"round\" "
                        "stroke-linejoin=\"round\"", col.r, col.g, col.b, j - i > 1 ? width : 0);
                if (dash) svg_out(c, " stroke-dasharray=\"%.2f %.2f %.2f %.2f\"", DASHES[dash][0] * unit, DASHES[dash][1] * unit,
                                  DASHES[dash][2] * unit, DASHES[dash][3] * unit);
                if (opacity < 1) svg_out(c, " stroke-opacity=\"%.3f\"", opacity);
                svg_out(c, " points=\"");
                for (int k = i; k < j; k++) svg_out(c, "%s%.2f,%.2f", k > i ? " " : "", clampd(x[k], -1e6, 1e6), clampd(y[k], -1e6, 1e6));
                svg_out(c, "\"/>\n");
                if (j - i == 1) svg_out(c, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"#%02x%02x%02x\"/>\n", x[i], y[i], hw, col.r,
                                        col.g, col.b);
            }
            i = j;
        }
        c->svg->mute = 1;
    }
    int k = 0;
    float left = dash ? DASHES[dash][0] * unit : 0; // what remains of the current dash piece
    for (int i = 0; i + 1 < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]) || !isfinite(x[i + 1]) || !isfinite(y[i + 1])) continue; // a gap
        if (!dash) {
            shape_capsule(c, x[i], y[i], x[i + 1], y[i + 1], hw);
            continue;
        }
        double dx = x[i + 1] - x[i], dy = y[i + 1] - y[i], len = hypot(dx, dy), pos = 0;
        if (len > 1e7) len = 1e7; // far off-canvas: the pattern does not matter there
        while (pos < len) {
            double step = fmin(left, len - pos);
            if (k % 2 == 0) {
                double a = pos / len, b = (pos + step) / len;
                shape_capsule(c, (float)(x[i] + a * dx), (float)(y[i] + a * dy), (float)(x[i] + b * dx), (float)(y[i] + b * dy), hw);
            }
            pos += step, left -= (float)step;
            if (left <= 1e-6f) k = (k + 1) % 4, left = DASHES[dash][k] * unit;
        }
    }
    if (n == 1 && isfinite(x[0]) && isfinite(y[0])) shape_disc(c, x[0], y[0], hw);
    shape_flush(c, col, opacity);
    if (c->svg) c->svg->mute = 0;
}

void draw_rect(Canvas *c, float x0, float y0, float x1, float y1, Rgb col, float opacity) {
    float xy[8] = {x0, y0, x1, y0, x1, y1, x0, y1};
    shape_convex(c, xy, 4);
    shape_flush(c, col, opacity);
}

static void marker_shape(Canvas *c, int shape, float x, float y, float r) {
    float xy[32];
    int n = 0;
    const double PI = 3.14159265358979;
    switch (shape) {
    case MARK_CIRCLE: shape_disc(c, x, y, r); return;
    case MARK_SQUARE: r *= 0.88f; n = 4; for (int k = 0; k < 4; k++) xy[2 * k] = x + (k == 1 || k == 2 ? r : -r), xy[2 * k + 1] = y + (k >= 2 ? r : -r); break;
    case MARK_DIAMOND: r *= 1.22f; n = 4; for (int k = 0; k < 4; k++) xy[2 * k] = x + r * (float)cos(k * PI / 2), xy[2 * k + 1] = y + r * (float)sin(k * PI / 2); break;
    case MARK_TRIANGLE:
    case MARK_TRIANGLE_DOWN:
        r *= 1.3f, n = 3;
        for (int k = 0; k < 3; k++) {
            double ang = -PI / 2 + k * 2 * PI / 3;
            xy[2 * k] = x + r * (float)cos(ang), xy[2 * k + 1] = y + 0.2f * r * (shape == MARK_TRIANGLE ? 1 : -1) + r * (float)sin(ang) * (shape == MARK_TRIANGLE ? 1 : -1);
        }
        break;
    default: r *= 1.08f; n = 6; for (int k = 0; k < 6; k++) xy[2 * k] = x + r * (float)cos(k * PI / 3 + PI / 6), xy[2 * k + 1] = y + r * (float)sin(k * PI / 3 + PI / 6); break;
    }
    shape_convex(c, xy, n);
}

void draw_marker(Canvas *c, int shape, float x, float y, float r, Rgb fill, float edge) {
    if (edge > 0) {
        marker_shape(c, shape, x, y, r + edge);
        shape_flush(c, (Rgb){255, 255, 255}, 1);
    }
    marker_shape(c, shape, x, y, r);
    shape_flush(c, fill, 1);
}

