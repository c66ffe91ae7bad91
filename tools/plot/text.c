// text.c - TrueType text for `posgpt plot` through stb_truetype: loading a font (checked by
// font_check first), measuring and drawing UTF-8 strings. See text.h.
// stb_truetype (Debian libstb-dev) is compiled here, static, so no other file's copy can
// clash with it.
#include "stb_quiet.h"
// stb_truetype's asserts check its rasteriser's own arithmetic (a glyph whose outline leaves
// its box, as in a damaged or sloppy font, can trip them, harmlessly for what follows) or
// mark input it does not handle, which font_check refuses first: off, as in a release build
#define STBTT_assert(x) ((void)0)
#define STBTT_STATIC
#define STB_TRUETYPE_IMPLEMENTATION
#include <stb_truetype.h>
#pragma GCC diagnostic pop

#include "text.h"

#include "common.h"
#include "fileio.h"
#include "font_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    canvas_svg_text(c, px, s, x, y, align, vertical, col);
    int w, h, base;
    uint8_t *a = text_raster(f, px, s, &w, &h, &base);
    float tw = text_width(f, px, s);
    if (!vertical) {
        int X0 = (int)lround(x - align * tw / 2) - 1, Y0 = (int)lround(y) - base;
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                int X = X0 + i, Y = Y0 + j;
                if (a[(size_t)j * w + i]) canvas_blend(c, X, Y, col, a[(size_t)j * w + i] / 255.0f);
            }
    } else { // raster (u, v) -> canvas (X0 + v, Y0 - u): text runs upwards
        int X0 = (int)lround(x) - base, Y0 = (int)lround(y + 1 + align * tw / 2);
        for (int v = 0; v < h; v++)
            for (int u = 0; u < w; u++) {
                int X = X0 + v, Y = Y0 - u;
                if (a[(size_t)v * w + u]) canvas_blend(c, X, Y, col, a[(size_t)v * w + u] / 255.0f);
            }
    }
    free(a);
}

float text_fit_px(const Font *f, float px, const char *s, float maxw) {
    float w = text_width(f, px, s);
    return w > maxw && w > 0 ? px * maxw / w : px;
}

const char *text_ellipsize(const Font *f, float px, const char *s, float maxw, char *buf, size_t n) {
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

