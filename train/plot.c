// plot.c - canvas, anti-aliased shapes, text and the line chart of `posgpt plot`. See plot.h.
// The stb single-file libraries (Debian libstb-dev) are compiled here, static, so no other
// file's copy can clash with them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
// stb_truetype's asserts check its rasteriser's own arithmetic (a glyph whose outline leaves
// its box, as in a damaged or sloppy font, can trip them, harmlessly for what follows) or
// mark input it does not handle, which font_check refuses first: off, as in a release build
#define STBTT_assert(x) ((void)0)
#define STBTT_STATIC
#define STB_TRUETYPE_IMPLEMENTATION
#include <stb/stb_truetype.h>
#pragma GCC diagnostic pop

#include "plot.h"

#include "common.h"
#include "fileio.h"
#include "font_check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

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

// ---------------------------------------------------------------------------------------
// text
// ---------------------------------------------------------------------------------------

struct Font {
    stbtt_fontinfo info;
    unsigned char *data;
    char path[512];
    int ascent, descent; // font units
    float cap_em;        // capital height / em
};

static const char *FONT_PATHS[] = {
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", // Debian, Ubuntu: fonts-dejavu-core
    "/usr/share/fonts/TTF/DejaVuSans.ttf",             // Arch
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",          // Fedora
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/local/share/fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    NULL};

// the glyph of a code point, 0 (.notdef) if none: a damaged cmap can name glyphs the font
// lacks, and stb_truetype looks up metrics and kerning of any glyph index unchecked
static int glyph_index(const Font *f, int cp) {
    int g = stbtt_FindGlyphIndex(&f->info, cp);
    return g > 0 && g < f->info.numGlyphs ? g : 0;
}

Font *font_load(const char *path) {
    const char *use = path;
    if (!use) {
        for (int i = 0; FONT_PATHS[i] && !use; i++) {
            FILE *t = fopen(FONT_PATHS[i], "rb");
            if (t) fclose(t), use = FONT_PATHS[i];
        }
        if (!use)
            die("plot: no TrueType font found (looked for DejaVuSans.ttf in /usr/share/fonts); install the Debian package "
                "fonts-dejavu-core (apt-get install fonts-dejavu-core) or pass --font FILE.ttf");
    }
    Font *ft = xcalloc(1, sizeof *ft);
    size_t n;
    ft->data = read_regular_file(use, "font", (size_t)64 << 20, &n);
    if (n < 12) die("plot: '%s' is not a TrueType font (%zu bytes)", use, n);
    uint32_t tag = (uint32_t)ft->data[0] << 24 | ft->data[1] << 16 | ft->data[2] << 8 | ft->data[3];
    if (tag == 0x4F54544F) // 'OTTO'
        die("plot: font '%s': CFF-outline fonts are not supported; use a TrueType .ttf (pass --font FILE.ttf or install "
            "fonts-dejavu-core)", use);
    // TrueType 1.0, 'true' or a collection 'ttcf'; anything else is not a font at all
    if (tag != 0x00010000 && tag != 0x74727565 && tag != 0x74746366)
        die("plot: '%s' is not a TrueType font; pass --font FILE.ttf or install fonts-dejavu-core", use);
    // stb_truetype trusts its input: everything it will read is checked first
    char why[200];
    if (!font_check(ft->data, n, why, sizeof why))
        die("plot: font '%s' is damaged: %s; pass --font FILE.ttf or install fonts-dejavu-core", use, why);
    int off = stbtt_GetFontOffsetForIndex(ft->data, 0);
    if (off < 0 || !stbtt_InitFont(&ft->info, ft->data, off))
        die("plot: '%s' is not a TrueType font; pass --font FILE.ttf or install fonts-dejavu-core", use);
    snprintf(ft->path, sizeof ft->path, "%s", use);
    int lg;
    stbtt_GetFontVMetrics(&ft->info, &ft->ascent, &ft->descent, &lg);
    int x0, y0, x1, y1, h = glyph_index(ft, 'H');
    float em = stbtt_ScaleForMappingEmToPixels(&ft->info, 1);
    ft->cap_em = h && stbtt_GetGlyphBox(&ft->info, h, &x0, &y0, &x1, &y1) ? y1 * em : 0.73f;
    if (!glyph_index(ft, 'A')) die("plot: the font '%s' has no Latin letters", use);
    return ft;
}

void font_free(Font *f) {
    if (!f) return;
    free(f->data), free(f);
}

const char *font_path(const Font *f) { return f->path; }

static int utf8_next(const char **s) {
    const unsigned char *p = (const unsigned char *)*s;
    int cp, len;
    if (p[0] < 0x80) cp = p[0], len = 1;
    else if ((p[0] & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80) cp = (p[0] & 0x1F) << 6 | (p[1] & 0x3F), len = 2;
    else if ((p[0] & 0xF0) == 0xE0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80)
        cp = (p[0] & 0x0F) << 12 | (p[1] & 0x3F) << 6 | (p[2] & 0x3F), len = 3;
    else if ((p[0] & 0xF8) == 0xF0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80)
        cp = (p[0] & 0x07) << 18 | (p[1] & 0x3F) << 12 | (p[2] & 0x3F) << 6 | (p[3] & 0x3F), len = 4;
    else cp = '?', len = 1; // invalid byte
    *s += len;
    return cp;
}

static int glyph_of(const Font *f, int cp) {
    int g = glyph_index(f, cp);
    return g ? g : glyph_index(f, '?');
}

float text_width(const Font *f, float px, const char *s) {
    float scale = stbtt_ScaleForMappingEmToPixels(&f->info, px), w = 0;
    int prev = -1;
    while (*s) {
        int g = glyph_of(f, utf8_next(&s)), adv, lsb;
        if (prev >= 0) w += scale * stbtt_GetGlyphKernAdvance(&f->info, prev, g);
        stbtt_GetGlyphHMetrics(&f->info, g, &adv, &lsb);
        w += scale * adv;
        prev = g;
    }
    return w;
}

float text_cap(const Font *f, float px) { return f->cap_em * px; }

// A damaged font that passed font_check can still hold absurd sizes (an em of 16 units with
// glyphs drawn for 2048, boxes of 30,000 units): a text or glyph raster is refused beyond
// 2^25 pixels rather than allocated; real text, up to 150 px high, stays far below it.
static void raster_check(const Font *f, double w, double h) {
    if (w * h > (double)(1 << 25))
        die("plot: font '%s' is damaged: its metrics ask for a %.0fx%.0f pixel raster; pass --font FILE.ttf or install "
            "fonts-dejavu-core", f->path, w, h);
}

// Rasterise a string into an alpha buffer (h, w) with one pixel of padding on the left;
// `base` is the baseline row. Glyphs are placed at sub-pixel x positions.
static uint8_t *text_raster(const Font *f, float px, const char *s, int *w, int *h, int *base) {
    float scale = stbtt_ScaleForMappingEmToPixels(&f->info, px);
    int asc = (int)ceil(f->ascent * scale), desc = (int)ceil(-f->descent * scale); // font_check: ascent > descent
    double tw = fmax(text_width(f, px, s), 0); // negative kerning of a damaged font could make it < 0
    raster_check(f, tw + 4, asc + desc + 2);
    *w = (int)ceil(tw) + 4, *h = asc + desc + 2, *base = asc + 1;
    uint8_t *a = xcalloc((size_t)*w * *h, 1), *g_buf = NULL;
    size_t g_cap = 0;
    float pen = 1;
    int prev = -1;
    while (*s) {
        int g = glyph_of(f, utf8_next(&s)), adv, lsb, x0, y0, x1, y1;
        if (prev >= 0) pen += scale * stbtt_GetGlyphKernAdvance(&f->info, prev, g);
        int ix = (int)floor(pen);
        float sx = pen - ix;
        stbtt_GetGlyphBitmapBoxSubpixel(&f->info, g, scale, scale, sx, 0, &x0, &y0, &x1, &y1);
        int gw = x1 - x0, gh = y1 - y0;
        if (gw > 0 && gh > 0) {
            raster_check(f, gw, gh);
            if ((size_t)gw * gh > g_cap) free(g_buf), g_cap = (size_t)gw * gh, g_buf = xmalloc(g_cap);
            stbtt_MakeGlyphBitmapSubpixel(&f->info, g_buf, gw, gh, gw, scale, scale, sx, 0, g);
            for (int j = 0; j < gh; j++)
                for (int i = 0; i < gw; i++) {
                    int X = ix + x0 + i, Y = *base + y0 + j;
                    if (X < 0 || X >= *w || Y < 0 || Y >= *h) continue;
                    int v = a[(size_t)Y * *w + X] + g_buf[(size_t)j * gw + i];
                    a[(size_t)Y * *w + X] = (uint8_t)(v > 255 ? 255 : v);
                }
        }
        stbtt_GetGlyphHMetrics(&f->info, g, &adv, &lsb);
        pen += scale * adv;
        prev = g;
    }
    free(g_buf);
    return a;
}

void draw_text(Canvas *c, const Font *f, float px, const char *s, float x, float y, int align, int vertical, Rgb col) {
    if (!s || !*s) return;
    if (c->svg) {
        const char *anchor = align == 1 ? "middle" : align == 2 ? "end" : "start";
        if (vertical) svg_out(c, "<text transform=\"translate(%.2f,%.2f) rotate(-90)\"", x, y);
        else svg_out(c, "<text x=\"%.2f\" y=\"%.2f\"", x, y);
        svg_out(c, " font-size=\"%.2f\" text-anchor=\"%s\" fill=\"#%02x%02x%02x\">", px, anchor, col.r, col.g, col.b);
        svg_text_escaped(c, s);
        svg_out(c, "</text>\n");
    }
    int w, h, base;
    uint8_t *a = text_raster(f, px, s, &w, &h, &base);
    float tw = text_width(f, px, s);
    if (!vertical) {
        int X0 = (int)lround(x - align * tw / 2) - 1, Y0 = (int)lround(y) - base;
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                int X = X0 + i, Y = Y0 + j;
                if (a[(size_t)j * w + i] && X >= c->cx0 && X < c->cx1 && Y >= c->cy0 && Y < c->cy1)
                    blend(c, X, Y, col, a[(size_t)j * w + i] / 255.0f);
            }
    } else { // raster (u, v) -> canvas (X0 + v, Y0 - u): text runs upwards
        int X0 = (int)lround(x) - base, Y0 = (int)lround(y + 1 + align * tw / 2);
        for (int v = 0; v < h; v++)
            for (int u = 0; u < w; u++) {
                int X = X0 + v, Y = Y0 - u;
                if (a[(size_t)v * w + u] && X >= c->cx0 && X < c->cx1 && Y >= c->cy0 && Y < c->cy1)
                    blend(c, X, Y, col, a[(size_t)v * w + u] / 255.0f);
            }
    }
    free(a);
}

// the size at which a string fits in maxw pixels (px, or smaller)
static float fit_px(const Font *f, float px, const char *s, float maxw) {
    float w = text_width(f, px, s);
    return w > maxw && w > 0 ? px * maxw / w : px;
}

// copy s into buf, cut with an ellipsis to fit maxw pixels: at the end of a word when one
// fits (a cut mid-word reads as another word), else inside the first word
static const char *ellipsize(const Font *f, float px, const char *s, float maxw, char *buf, size_t n) {
    snprintf(buf, n, "%s", s);
    if (text_width(f, px, buf) <= maxw) return buf;
    for (int words = 1; words >= 0; words--) {
        size_t len = strlen(s) < n ? strlen(s) : n - 1;
        while (len > 1) {
            do len--; while (len > 0 && (s[len] & 0xC0) == 0x80); // back to the start of a UTF-8 character
            if (words && s[len] != ' ' && s[len] != ',') continue;
            size_t keep = len;
            while (words && keep > 0 && (s[keep - 1] == ' ' || s[keep - 1] == ',')) keep--;
            if (!keep || keep + 4 > n) continue;
            memcpy(buf, s, keep), memcpy(buf + keep, "…", 4); // U+2026 and the terminator
            if (text_width(f, px, buf) <= maxw) return buf;
        }
    }
    snprintf(buf, n, "…");
    return buf;
}

// ---------------------------------------------------------------------------------------
// numbers
// ---------------------------------------------------------------------------------------

Rgb palette_color(int i) {
    // Okabe & Ito 2008, "Color Universal Design" (blue, vermillion, bluish green, reddish
    // purple, orange, sky blue, black; their yellow is too faint on white and comes last),
    // then darker colours far from those (Paul Tol's indigo, olive, wine, green, teal and rose,
    // a brown and a grey); in registry order the thirteen schemes and randomized get the first 13
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

void chart_render(Canvas *c, const Font *f, const Chart *ch, ChartStats *st) {
    memset(st, 0, sizeof *st);
    float s = fminf(c->w / 1600.0f, c->h / 1000.0f);
    if (s < 0.45f) s = 0.45f;
    float fs_title = 30 * s, fs_label = 25 * s, fs_tick = 22 * s, fs_leg = 22 * s, fs_cap = 19 * s;
    float pad = 22 * s, tick_len = 8 * s, frame_w = fmaxf(1, 1.5f * s), mr = fmaxf(3, 6.5f * s);

    // ---- data ranges ----
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

    Axis X = {xlo, xhi, ch->xlog, 0, 0}, Y = {ylo, yhi, ch->ylog, 0, 0};
    if (X.log) { // 5% of the log range on each side (at least a fifth of an octave)
        double span = fmax(log2(xhi / xlo), 0.5), m = fmax(0.05 * span, 0.2);
        X.lo = xlo / pow(2, m), X.hi = xhi * pow(2, m);
    } else {
        double span = xhi - xlo > 0 ? xhi - xlo : fmax(fabs(xhi), 1), m = 0.025 * span;
        X.lo = xlo - m, X.hi = xhi + m;
        if (xhi - xlo <= 0) X.lo = xlo - span / 2, X.hi = xhi + span / 2;
    }
    // y: pad 4%, then (linear) snap outwards to ticks, unless the user fixed that end
    int target_y = (int)clampd(c->h * 0.7 / (fs_tick * 4.5), 4, 9);
    double ystep = 0; // the tick step the linear range was snapped to
    if (Y.log) {
        double span = fmax(log(yhi / ylo), 0.1), m = 0.05 * span;
        if (isnan(ch->ymin)) Y.lo = ylo / exp(m);
        if (isnan(ch->ymax)) Y.hi = yhi * exp(m);
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
        if (isnan(ch->ymin)) Y.lo = floor((ylo - m) / step) * step, Y.lo = ylo >= 0 && Y.lo < 0 ? 0 : Y.lo;
        if (isnan(ch->ymax)) Y.hi = ceil((yhi + m) / step) * step;
        if (Y.hi <= Y.lo) Y.hi = Y.lo + step;
    }
    st->ylo = Y.lo, st->yhi = Y.hi;

    Ticks yt, xt;
    if (Y.log) ticks_log(&yt, Y.lo, Y.hi, target_y);
    else ticks_linear(&yt, Y.lo, Y.hi, target_y, ystep);
    int clip_label = 0; // label the clip value at the top edge when it is not a tick
    if (ch->yclip && !isnan(ch->ymax) && yt.n < MAXTICK && (!yt.n || fabs(yt.v[yt.n - 1] - Y.hi) > 1e-9 * fabs(Y.hi)))
        clip_label = 1;
    int target_x = (int)clampd(c->w / (fs_tick * 9.0), 4, 12);
    if (ch->xticks) {
        xt.n = 0;
        for (int k = 0; k < ch->nxticks && k < MAXTICK; k++, xt.n++) xt.v[k] = ch->xticks[k], format_value(xt.lab[k], 32, xt.v[k]);
    } else ticks_x_auto(&xt, &X, ch->xtick_unit, target_x);

    // ---- layout: margins from the text they hold ----
    float ytw = 0;
    for (int k = 0; k < yt.n; k++) ytw = fmaxf(ytw, text_width(f, fs_tick, yt.lab[k]));
    if (clip_label) {
        char b[32];
        format_value(b, 32, Y.hi);
        ytw = fmaxf(ytw, text_width(f, fs_tick, b));
    }
    float top = pad + (ch->title ? fs_title * 1.25f : 0) + pad * 0.4f;
    float bottom = tick_len + 0.6f * fs_tick + fs_tick * (ch->xsub ? 2.3f : 1.15f) + 0.6f * fs_label + fs_label +
                   (ch->caption ? 0.8f * fs_cap + fs_cap : 0) + pad * 0.8f;
    float left = pad + (ch->ylabel ? fs_label * 1.25f + 0.5f * fs_label : 0) + ytw + 0.5f * fs_tick + tick_len;
    float last_half = xt.n ? text_width(f, fs_tick, xt.lab[xt.n - 1]) / 2 : 0;
    float right = fmaxf(pad * 1.5f, last_half + pad * 0.5f);

    // legend size
    // legend: labels longer than a quarter of the figure are cut with an ellipsis
    int nleg = 0;
    float legw = 0;
    char(*leglab)[160] = xcalloc((size_t)ch->ns + 1, sizeof *leglab);
    for (int i = 0; i < ch->ns; i++)
        if (ch->s[i].label) {
            ellipsize(f, fs_leg, ch->s[i].label, 0.34f * c->w, leglab[i], sizeof leglab[i]);
            nleg++, legw = fmaxf(legw, text_width(f, fs_leg, leglab[i]));
        }
    float rows = nleg * 1.55f + 0.72f, room = c->h - top - 2 * pad; // box height in units of fs_leg
    if (rows * fs_leg > room) legw *= room / (rows * fs_leg), fs_leg = room / rows; // many series: smaller text
    float row_h = fs_leg * 1.55f, sample_w = fs_leg * 2.6f, lpad = fs_leg * 0.6f;
    float box_w = lpad + sample_w + 0.5f * fs_leg + legw + lpad, box_h = lpad * 0.6f + nleg * row_h + lpad * 0.6f;

    Obstacles ob = {0};
    ClipMark *cm = NULL;
    int ncm = 0;
    Box legend = {0};
    float vlab_x = 0, vlab_y = 0;
    float L = 0, R = 0, T = 0, B = 0;
    for (int pass = 0; pass < 2; pass++) {
        L = left, T = top, R = c->w - right - (st->legend_outside ? box_w + pad : 0), B = c->h - bottom;
        if (R - L < 50 || B - T < 50) die("plot: the figure is too small for its labels (%dx%d); use a larger --width/--height", c->w, c->h);
        X.p0 = L, X.p1 = R, Y.p0 = B, Y.p1 = T;
        // obstacles: every segment and marker, the clip marks and their labels, the reference lines
        ob.n = ob.nbox = 0;
        free(cm), cm = NULL, ncm = 0;
        size_t cap = 0;
        for (int i = 0; i < ch->ns; i++) {
            const ChartSeries *se = &ch->s[i];
            float hw = fmaxf(0.5f, se->width * s / 2);
            int run = -1; // start of the current run of clipped points (lines only)
            for (int k = 0; k < se->n; k++) {
                float px = ax_map(&X, se->x[k]), py = ax_map(&Y, se->y[k]);
                if (k + 1 < se->n) obs_add(&ob, px, py, ax_map(&X, se->x[k + 1]), ax_map(&Y, se->y[k + 1]), hw + 2);
                if (se->markers) obs_add(&ob, px, py, px, py, mr + 2);
                int above = ch->yclip && !se->light && se->y[k] > Y.hi;
                if (above && run < 0) run = k;
                if (ch->yclip && run >= 0 && (!above || k == se->n - 1 || se->markers)) {
                    int end = above ? k : k - 1, best = run;
                    for (int q = run; q <= end; q++)
                        if (se->y[q] > se->y[best]) best = q;
                    if (cap <= (size_t)ncm) cap = cap ? 2 * cap : 16, cm = realloc(cm, cap * sizeof *cm);
                    if (!cm) die("out of memory");
                    cm[ncm++] = (ClipMark){ax_map(&X, se->x[best]), T, se->y[best], se->x[best], se->color, se->label};
                    run = -1;
                }
            }
        }
        for (int k = 0; k < ch->nvlines; k++) {
            float vx = ax_map(&X, ch->vlines[k]);
            obs_add(&ob, vx, T, vx, B, 2 * s + 2);
        }
        for (int k = 0; k < ncm; k++) obs_add(&ob, cm[k].x, T + mr, cm[k].x, T + mr, mr * 1.5f + 2);
        // the reference line's label: beside the line at the bottom or the top, where no data is
        if (ch->nvlines && ch->vline_label) {
            float vx = ax_map(&X, ch->vlines[0]), tw = text_width(f, fs_tick * 0.9f, ch->vline_label), ch_ = text_cap(f, fs_tick * 0.9f);
            float top_y = T + (ncm ? mr * 2 + fs_tick * 1.4f : 0) + 10 * s + ch_;
            float spots[4][2] = {{vx + 8 * s, B - 10 * s}, {vx + 8 * s, top_y}, {vx - 8 * s - tw, B - 10 * s}, {vx - 8 * s - tw, top_y}};
            int pick = 0;
            for (int k = 3; k >= 0; k--) {
                Box b = {spots[k][0] - 4, spots[k][1] - ch_ - 4, spots[k][0] + tw + 4, spots[k][1] + 6 * s};
                if (b.x0 >= L && b.x1 <= R && !obs_hits(&ob, b)) pick = k;
            }
            vlab_x = spots[pick][0], vlab_y = spots[pick][1];
            ob.box[ob.nbox++] = (Box){vlab_x - 4, vlab_y - ch_ - 4, vlab_x + tw + 4, vlab_y + 6 * s};
        }
        // legend: the first free spot among the corners and edge midpoints, else outside
        if (pass == 1) {
            legend = (Box){R + pad, T, R + pad + box_w, T + box_h};
            st->legend_at = "outside right";
            break;
        }
        float in = 14 * s;
        float cand[8][2] = {{R - in - box_w, T + in}, {L + in, T + in}, {R - in - box_w, B - in - box_h}, {L + in, B - in - box_h},
                            {(L + R - box_w) / 2, T + in}, {(L + R - box_w) / 2, B - in - box_h},
                            {R - in - box_w, (T + B - box_h) / 2}, {L + in, (T + B - box_h) / 2}};
        const char *names[8] = {"top right", "top left", "bottom right", "bottom left", "top centre", "bottom centre", "right", "left"};
        int found = -1;
        for (int k = 0; k < 8 && found < 0 && nleg; k++) {
            Box b = {cand[k][0], cand[k][1], cand[k][0] + box_w, cand[k][1] + box_h};
            if (b.x0 < L || b.y0 < T || b.x1 > R || b.y1 > B) continue;
            Box grown = {b.x0 - 6 * s, b.y0 - 6 * s, b.x1 + 6 * s, b.y1 + 6 * s};
            // the clip labels sit beside their marks at the top
            Box cliprow = {L, T, R, T + mr * 2 + fs_tick * 1.2f};
            if (ncm && box_overlap(grown, cliprow)) {
                int near = 0;
                for (int q = 0; q < ncm; q++)
                    if (cm[q].x > grown.x0 - fs_tick * 4 && cm[q].x < grown.x1 + fs_tick) near = 1;
                if (near) continue;
            }
            if (!obs_hits(&ob, grown)) found = k, legend = b, st->legend_at = names[k];
        }
        if (found >= 0 || !nleg) break;
        st->legend_outside = 1;
    }

    // ---- draw: grid, reference lines, series, markers, clip marks, frame, labels ----
    canvas_clip(c, (int)floor(L), (int)floor(T), (int)ceil(R), (int)ceil(B));
    for (int k = 0; k < yt.n; k++) {
        float y = ax_map(&Y, yt.v[k]);
        shape_capsule(c, L, y, R, y, 0.6f * s + 0.2f);
    }
    for (int k = 0; k < xt.n; k++) {
        float x = ax_map(&X, xt.v[k]);
        shape_capsule(c, x, T, x, B, 0.6f * s + 0.2f);
    }
    shape_flush(c, GRID, 1);
    for (int k = 0; k < ch->nvlines; k++) {
        float vx = ax_map(&X, ch->vlines[k]), xs[2] = {vx, vx}, ys[2] = {T, B};
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
            for (int k = 0; k < se->n; k++) px[k] = ax_map(&X, se->x[k]), py[k] = ax_map(&Y, se->y[k]);
            draw_polyline(c, px, py, se->n, fmaxf(1, se->width * s), se->dash, se->color, se->opacity);
        }
    for (int i = 0; i < ch->ns; i++) {
        const ChartSeries *se = &ch->s[i];
        if (!se->markers || se->marker < 0) continue;
        for (int k = 0; k < se->n; k++) {
            if (ch->yclip && se->y[k] > Y.hi) continue;
            draw_marker(c, se->marker, ax_map(&X, se->x[k]), ax_map(&Y, se->y[k]), mr, se->color, 1.5f * s);
        }
    }
    // clipped points: an upward triangle touching the top edge, the value beside it; a value
    // with no free place beside its mark is listed in a box instead (never dropped)
    Box placed[256];
    int nplaced = 0, *unl = xmalloc(((size_t)ncm + 1) * sizeof(int)), nunl = 0;
    for (int k = 0; k < ncm; k++) {
        float tx = cm[k].x, r = mr * 1.25f;
        float tri[6] = {tx, T + 2 * s, tx + r, T + 2 * s + 1.6f * r, tx - r, T + 2 * s + 1.6f * r};
        float rim[6] = {tx, T, tx + r + 2 * s, T + 3 * s + 1.6f * r, tx - r - 2 * s, T + 3 * s + 1.6f * r};
        shape_convex(c, rim, 3), shape_flush(c, WHITE, 1);
        shape_convex(c, tri, 3), shape_flush(c, cm[k].col, 1);
        char b[32];
        format_value(b, 32, cm[k].v);
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
            draw_text(c, f, fs_tick * 0.9f, b, lx, by, 0, 0, cm[k].col);
        } else unl[nunl++] = k;
    }
    if (nunl) { // "above the axis:" and a line per value, in its series' colour
        float fz = fs_tick * 0.8f, lh = fz * 1.35f, bw = text_width(f, fz, "above the axis:");
        char line[256], xb[32], vb[32];
        for (int q = 0; q < nunl; q++) {
            const ClipMark *m = &cm[unl[q]];
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
        // the lowest-left free spot along the bottom, else over the data at the bottom left
        for (float x = L + 14 * s; x + bw + fz <= R - 14 * s; x += (R - L) / 16) {
            Box b = {x, by0, x + bw + fz, by0 + bh};
            if (!obs_hits(&ob, b) && !(nleg && box_overlap(b, legend))) {
                bx = x;
                break;
            }
        }
        draw_rect(c, bx, by0, bx + bw + fz, by0 + bh, (Rgb){0xcc, 0xcc, 0xcc}, 1);
        draw_rect(c, bx + 1, by0 + 1, bx + bw + fz - 1, by0 + bh - 1, WHITE, 0.92f);
        draw_text(c, f, fz, "above the axis:", bx + fz / 2, by0 + fz * 0.3f + lh * 0.8f, 0, 0, GREY);
        for (int q = 0; q < nunl; q++) {
            const ClipMark *m = &cm[unl[q]];
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

    // frame and ticks
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
    for (int k = 0; k < yt.n; k++) {
        float y = ax_map(&Y, yt.v[k]);
        if (clip_label && fabsf(y - T) < fs_tick * 1.3f) continue; // the clip value label takes this spot
        shape_capsule(c, L - tick_len, y, L, y, frame_w / 2);
        draw_text(c, f, fs_tick, yt.lab[k], L - tick_len - 0.4f * fs_tick, y + cap_t / 2, 2, 0, INK);
    }
    if (clip_label) {
        char b[32];
        format_value(b, 32, Y.hi);
        shape_capsule(c, L - tick_len, T, L, T, frame_w / 2);
        draw_text(c, f, fs_tick, b, L - tick_len - 0.4f * fs_tick, T + cap_t / 2, 2, 0, INK);
    }
    // x tick labels, skipping any that would overlap the previous one
    float last_x1 = -1e9, xlab_y = B + tick_len + 0.5f * fs_tick + cap_t;
    for (int k = 0; k < xt.n; k++) {
        float x = ax_map(&X, xt.v[k]);
        if (x < L - 1 || x > R + 1) continue;
        shape_capsule(c, x, B, x, B + tick_len, frame_w / 2);
        float tw = text_width(f, fs_tick, xt.lab[k]);
        if (ch->xsub && ch->xsub[k]) tw = fmaxf(tw, text_width(f, fs_tick * 0.85f, ch->xsub[k]));
        if (x - tw / 2 < last_x1 + 0.6f * fs_tick) continue;
        draw_text(c, f, fs_tick, xt.lab[k], x, xlab_y, 1, 0, INK);
        if (ch->xsub && ch->xsub[k]) draw_text(c, f, fs_tick * 0.85f, ch->xsub[k], x, xlab_y + fs_tick * 1.15f, 1, 0, GREY);
        last_x1 = x + tw / 2;
    }
    shape_flush(c, INK, 1);

    // axis titles, title, caption
    float xtitle_y = xlab_y + fs_tick * (ch->xsub ? 1.15f : 0) + 0.6f * fs_label + fs_label;
    // titles: centred on the plot, moved (then shrunk) to stay inside the figure
    const char *htext[2] = {ch->xlabel, ch->title};
    float hpx[2] = {fs_label, fs_title}, hy[2] = {xtitle_y, pad + text_cap(f, fs_title)};
    for (int k = 0; k < 2; k++) {
        if (!htext[k]) continue;
        float px_ = fit_px(f, hpx[k], htext[k], c->w - 2 * pad), tw = text_width(f, px_, htext[k]), x = (L + R) / 2;
        x = fmaxf(x, pad + tw / 2), x = fminf(x, c->w - pad - tw / 2);
        draw_text(c, f, px_, htext[k], x, hy[k], 1, 0, k ? (Rgb){0x11, 0x11, 0x11} : INK);
    }
    if (ch->ylabel)
        draw_text(c, f, fit_px(f, fs_label, ch->ylabel, B - T + 0.5f * (T + c->h - B)), ch->ylabel, pad + text_cap(f, fs_label) + 0.1f * fs_label,
                  (T + B) / 2, 1, 1, INK);
    if (ch->caption) {
        float cy = xtitle_y + 0.8f * fs_cap + fs_cap;
        // shrink a long caption to fit the width rather than cut it
        float fc = fs_cap, cw = text_width(f, fc, ch->caption);
        if (cw > c->w - L - pad) fc *= (c->w - L - pad) / cw;
        draw_text(c, f, fc, ch->caption, L, cy, 0, 0, GREY);
    }

    // legend
    if (nleg) {
        draw_rect(c, legend.x0, legend.y0, legend.x1, legend.y1, (Rgb){0xcc, 0xcc, 0xcc}, 1);
        draw_rect(c, legend.x0 + 1, legend.y0 + 1, legend.x1 - 1, legend.y1 - 1, WHITE, 1);
        int row = 0;
        for (int i = 0; i < ch->ns; i++) {
            const ChartSeries *se = &ch->s[i];
            if (!se->label) continue;
            float cy = legend.y0 + lpad * 0.6f + (row + 0.5f) * row_h, x0 = legend.x0 + lpad;
            float xs[2] = {x0, x0 + sample_w}, ys[2] = {cy, cy};
            draw_polyline(c, xs, ys, 2, fmaxf(1, se->width * s), se->dash, se->color, se->opacity);
            if (se->marker >= 0 && (se->markers || !se->n)) draw_marker(c, se->marker, x0 + sample_w / 2, cy, mr, se->color, 1.5f * s);
            draw_text(c, f, fs_leg, leglab[i], x0 + sample_w + 0.5f * fs_leg, cy + text_cap(f, fs_leg) / 2, 0, 0, INK);
            row++;
        }
    }
    free(px), free(py), free(cm), free(leglab);
    obs_free(&ob);
    st->ink = canvas_count_other(c, WHITE);
}
