// font_check.c - see font_check.h. Positions are 64-bit throughout, so an offset plus a
// length, or a count times a record size, cannot wrap; every field is read only after the
// bytes holding it are known to lie inside its table, and every table inside the file.
#include "font_check.h"

#include "common.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 16           // composites inside composites, which stb_truetype recurses into (FreeMono: 5)
#define MAX_VERTICES (1 << 16) // vertices of one glyph with its components (DejaVu Sans: 904, FreeSerif: 1,720)

typedef struct {
    uint64_t off, len; // in the file; off 0: absent (as stb_truetype sees it)
} Span;

typedef struct {
    const uint8_t *d;
    uint64_t n;
    char *why;
    size_t why_size;
    Span glyf;
    unsigned nglyphs;
    uint64_t *loca;    // (nglyphs + 1) glyph offsets in glyf
    uint8_t *state;    // per glyph: 0 unchecked, 1 being checked, 2 + its composite nesting depth when checked
    uint32_t *verts;   // per checked glyph: the vertices stb_truetype builds for it
} Check;

static unsigned u16(const Check *c, uint64_t at) { return (unsigned)c->d[at] << 8 | c->d[at + 1]; }
static int s16(const Check *c, uint64_t at) { return (int)u16(c, at) - (u16(c, at) >= 0x8000 ? 0x10000 : 0); }
static uint32_t u32(const Check *c, uint64_t at) {
    return (uint32_t)c->d[at] << 24 | (uint32_t)c->d[at + 1] << 16 | (uint32_t)c->d[at + 2] << 8 | c->d[at + 3];
}
// size bytes at rel inside the table
static int fits(Span t, uint64_t rel, uint64_t size) { return rel <= t.len && size <= t.len - rel; }

static int bad(Check *c, const char *fmt, ...) POSGPT_PRINTF(2, 3);
static int bad(Check *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, c->why_size, fmt, ap);
    va_end(ap);
    return 0;
}

// a table tag for messages: a damaged one may hold any bytes
static const char *tag_text(const uint8_t *p, char out[5]) {
    for (int i = 0; i < 4; i++) out[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
    out[4] = 0;
    return out;
}

// ---- cmap ----

// the subtable stbtt_FindGlyphIndex searches, for every code point it may be asked
static int check_cmap_subtable(Check *c, Span t, uint64_t sub) {
    if (t.len - sub < 4) return bad(c, "the 'cmap' subtable at %llu runs past the table", (unsigned long long)sub);
    uint64_t at = t.off + sub, room = t.len - sub;
    unsigned format = u16(c, at);
    if (format == 12 || format == 13) {
        if (room < 16 || u32(c, at + 4) > room || u32(c, at + 4) < 16)
            return bad(c, "the 'cmap' format %u subtable's length does not fit the table", format);
        uint64_t len = u32(c, at + 4), ngroups = u32(c, at + 12);
        if (16 + 12 * ngroups > len)
            return bad(c, "the %llu groups of the 'cmap' format %u subtable run past it", (unsigned long long)ngroups, format);
        // stb_truetype reads 32-bit fields as signed shifts: a value of 2^31 or more is undefined
        for (uint64_t i = 0; i < ngroups; i++) {
            uint32_t start = u32(c, at + 16 + 12 * i), end = u32(c, at + 20 + 12 * i), glyph = u32(c, at + 24 + 12 * i);
            if (start > end || end > 0x10FFFF || glyph >= 0x80000000u)
                return bad(c, "'cmap' format %u group %llu (U+%X..U+%X, glyph %u) is not a range of Unicode code points", format,
                           (unsigned long long)i, start, end, glyph);
        }
        return 1;
    }
    if (format != 0 && format != 4 && format != 6) return bad(c, "'cmap' subtable format %u is not supported (0, 4, 6, 12 or 13)", format);
    uint64_t len = u16(c, at + 2), header = format == 0 ? 6 : format == 6 ? 10 : 16;
    if (len > room || len < header)
        return bad(c, "the 'cmap' format %u subtable's length (%llu) does not fit the table", format, (unsigned long long)len);
    if (format == 6 && 10 + 2 * (uint64_t)u16(c, at + 8) > len) return bad(c, "the 'cmap' format 6 glyph array runs past the subtable");
    if (format != 4) return 1; // format 0 reads only below its length

    unsigned nseg = u16(c, at + 6) >> 1;
    if (!nseg || 16 + 8 * (uint64_t)nseg > len) return bad(c, "the %u segments of the 'cmap' format 4 subtable do not fit it", nseg);
    // the binary search starts at rangeShift and moves by ever halved searchRange, entrySelector
    // times: the furthest it can go must still be a segment
    unsigned reach = u16(c, at + 12) >> 1, step = u16(c, at + 8) >> 1;
    for (unsigned k = u16(c, at + 10); k && step; k--) step >>= 1, reach += step;
    if (reach >= nseg) return bad(c, "the 'cmap' format 4 search fields reach segment %u of %u", reach, nseg);
    // a non-zero idRangeOffset points from its own position into the glyph index array
    for (unsigned i = 0; i < nseg; i++) {
        unsigned end = u16(c, at + 14 + 2 * i), start = u16(c, at + 16 + 2 * nseg + 2 * i), ro = u16(c, at + 16 + 6 * nseg + 2 * i);
        if (ro && start <= end && 16 + 6 * (uint64_t)nseg + 2 * i + ro + 2 * (uint64_t)(end - start) + 2 > len)
            return bad(c, "'cmap' format 4 segment %u (U+%04X..U+%04X) points past the subtable", i, start, end);
    }
    return 1;
}

static int check_cmap(Check *c, Span t) {
    if (t.len < 4) return bad(c, "table 'cmap' is %llu bytes", (unsigned long long)t.len);
    unsigned n = u16(c, t.off + 2);
    if (4 + 8 * (uint64_t)n > t.len) return bad(c, "the %u 'cmap' encoding records run past the table", n);
    // stb_truetype takes the last Unicode subtable: platform 0, or 3 with encoding 1 or 10
    int found = 0;
    uint64_t sub = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t r = t.off + 4 + 8 * (uint64_t)i;
        unsigned platform = u16(c, r), encoding = u16(c, r + 2);
        if (platform != 0 && !(platform == 3 && (encoding == 1 || encoding == 10))) continue;
        found = 1, sub = u32(c, r + 4);
        if (sub >= t.len) return bad(c, "'cmap' encoding record %u points outside the table", i); // read for every such record
    }
    if (!found) return bad(c, "'cmap' has no Unicode subtable");
    return check_cmap_subtable(c, t, sub);
}

// ---- glyphs ----

static int check_glyph(Check *c, unsigned g, int depth);

// a simple glyph's contour ends, instructions, flags and coordinates, as stb_truetype walks them
static int check_simple(Check *c, unsigned g, uint64_t at, uint64_t len, unsigned ncont) {
    uint64_t p = 10 + 2 * (uint64_t)ncont; // the instruction length
    if (p + 2 > len) return bad(c, "glyph %u: its %u contour ends run past its data", g, ncont);
    unsigned end = 0, last_start = 0; // the last contour's first point
    for (unsigned k = 0; k < ncont; k++) {
        unsigned e = u16(c, at + 10 + 2 * k);
        if (k && e <= end) return bad(c, "glyph %u: its contour ends do not increase", g);
        if (k) last_start = end + 1;
        end = e;
    }
    uint64_t npoints = (uint64_t)end + 1, xbytes = 0, ybytes = 0;
    unsigned last_start_flags = 0;
    p += 2 + u16(c, at + p);
    // a flag byte holds for 1 + its repeat count (the next byte, when bit 3 is set) points
    for (uint64_t i = 0; i < npoints;) {
        if (p >= len) return bad(c, "glyph %u: its point flags run past its data", g);
        unsigned f = c->d[at + p++], rep = 0;
        if (f & 8) {
            if (p >= len) return bad(c, "glyph %u: its point flags run past its data", g);
            rep = c->d[at + p++];
        }
        uint64_t k = rep + 1 < npoints - i ? rep + 1 : npoints - i;
        if (last_start >= i && last_start < i + k) last_start_flags = f;
        xbytes += k * (f & 2 ? 1 : f & 16 ? 0 : 2);
        ybytes += k * (f & 4 ? 1 : f & 32 ? 0 : 2);
        i += k;
    }
    if (p + xbytes + ybytes > len) return bad(c, "glyph %u: its coordinates run past its data", g);
    // a contour that starts off the curve makes stb_truetype read the point after its first:
    // past the end when the last contour is that one point
    if (last_start == npoints - 1 && !(last_start_flags & 1)) return bad(c, "glyph %u ends with a one-point contour off the curve", g);
    if (npoints + 2 * (uint64_t)ncont > MAX_VERTICES) return bad(c, "glyph %u has more than %d points", g, MAX_VERTICES);
    c->verts[g] = (uint32_t)(npoints + 2 * (uint64_t)ncont); // what stb_truetype allocates
    return 1;
}

// a composite glyph's component records; each component is checked first
static int check_composite(Check *c, unsigned g, uint64_t at, uint64_t len, int depth) {
    uint64_t p = 10, verts = 0;
    unsigned flags, height = 0;
    do {
        if (p + 4 > len) return bad(c, "glyph %u: its component records run past its data", g);
        flags = u16(c, at + p);
        unsigned sub = u16(c, at + p + 2);
        // components placed by matching points (bit 1 clear) make stb_truetype assert
        if (!(flags & 2)) return bad(c, "glyph %u: a component is placed by matching points, which is not supported", g);
        p += 4 + (flags & 1 ? 4 : 2) + (flags & 8 ? 2 : flags & 64 ? 4 : flags & 128 ? 8 : 0);
        if (p > len) return bad(c, "glyph %u: its component records run past its data", g);
        if (sub >= c->nglyphs) return bad(c, "glyph %u: a component is glyph %u of %u", g, sub, c->nglyphs);
        if (!check_glyph(c, sub, depth + 1)) return 0;
        if (c->state[sub] - 1u > height) height = c->state[sub] - 1u; // its depth + 1
        if (height > MAX_DEPTH) return bad(c, "glyph %u: composite glyphs nested more than %d deep", g, MAX_DEPTH);
        verts += c->verts[sub];
        if (verts > MAX_VERTICES) return bad(c, "glyph %u has more than %d points with its components", g, MAX_VERTICES);
    } while (flags & 32); // more components
    c->verts[g] = (uint32_t)verts;
    c->state[g] = (uint8_t)(2 + height);
    return 1;
}

// glyph g as stbtt_GetGlyphBox and stbtt_GetGlyphShape read it; depth: the composites
// being checked around it (bounds this recursion before the nesting depth is known)
static int check_glyph(Check *c, unsigned g, int depth) {
    if (c->state[g] >= 2) return 1;
    if (c->state[g] == 1) return bad(c, "glyph %u contains itself through its components", g);
    if (depth > MAX_DEPTH) return bad(c, "glyph %u: composite glyphs nested more than %d deep", g, MAX_DEPTH);
    uint64_t at = c->glyf.off + c->loca[g], len = c->loca[g + 1] - c->loca[g];
    if (len && len < 10) return bad(c, "glyph %u is %llu bytes, shorter than its header", g, (unsigned long long)len);
    int ncont = len ? s16(c, at) : 0; // an empty glyph: stb_truetype reads nothing of it
    c->state[g] = 1;
    if (ncont < 0) return check_composite(c, g, at, len, depth);
    c->state[g] = 2;
    return !ncont || check_simple(c, g, at, len, (unsigned)ncont);
}

// ---- kerning ----

// the first kern subtable, whose pairs stb_truetype searches when it is horizontal (coverage 1)
static int check_kern(Check *c, Span t) {
    if (t.len < 4) return bad(c, "table 'kern' is %llu bytes", (unsigned long long)t.len);
    if (!u16(c, t.off + 2)) return 1;
    if (t.len < 10 || (u16(c, t.off + 8) == 1 && t.len < 12)) return bad(c, "table 'kern' is %llu bytes", (unsigned long long)t.len);
    if (u16(c, t.off + 8) != 1) return 1;
    unsigned npairs = u16(c, t.off + 10);
    if (npairs && 18 + 6 * (uint64_t)npairs > t.len) return bad(c, "the %u pairs of table 'kern' run past it", npairs);
    // stb_truetype shifts the left glyph into the sign bit of a 32-bit int: below 2^15 only
    if (npairs && c->nglyphs > 0x8000) return bad(c, "table 'kern' is used with %u glyphs (at most 32768)", c->nglyphs);
    for (unsigned i = 0; i < npairs; i++) {
        unsigned left = u16(c, t.off + 18 + 6 * (uint64_t)i);
        if (left >= 0x8000) return bad(c, "'kern' pair %u names glyph %u", i, left);
    }
    return 1;
}

// the largest coverage index a glyph below nglyphs can get from a coverage table (-1: none)
static int check_coverage(Check *c, Span t, uint64_t cov, int64_t *maxcov) {
    *maxcov = -1;
    if (!fits(t, cov, 4)) return 0;
    unsigned format = u16(c, t.off + cov), n = u16(c, t.off + cov + 2);
    if (format == 1) {
        if (!fits(t, cov + 4, 2 * (uint64_t)n)) return 0;
        *maxcov = (int64_t)n - 1;
    } else if (format == 2) {
        if (!fits(t, cov + 4, 6 * (uint64_t)n)) return 0;
        for (unsigned r = 0; r < n; r++) {
            uint64_t rec = t.off + cov + 4 + 6 * (uint64_t)r;
            int64_t start = u16(c, rec), end = u16(c, rec + 2), first = u16(c, rec + 4);
            if (end > (int64_t)c->nglyphs - 1) end = (int64_t)c->nglyphs - 1;
            if (start <= end && first + end - start > *maxcov) *maxcov = first + end - start;
        }
    }
    return 1;
}

static int check_classdef(Check *c, Span t, uint64_t cd) {
    if (!fits(t, cd, 2)) return 0;
    unsigned format = u16(c, t.off + cd);
    if (format == 1) return fits(t, cd, 6) && fits(t, cd + 6, 2 * (uint64_t)u16(c, t.off + cd + 4));
    if (format == 2) return fits(t, cd, 4) && fits(t, cd + 4, 6 * (uint64_t)u16(c, t.off + cd + 2));
    return 1;
}

// a pair adjustment subtable at st (relative to GPOS): its coverage, and in the one value
// format stb_truetype applies (an x advance on the first glyph), its pair sets or classes
static int check_pair_pos(Check *c, Span t, uint64_t st) {
    int64_t maxcov;
    if (!fits(t, st, 4) || !check_coverage(c, t, st + u16(c, t.off + st + 2), &maxcov)) return 0;
    unsigned format = u16(c, t.off + st);
    if (maxcov < 0 || (format != 1 && format != 2)) return 1;
    if (!fits(t, st, 8)) return 0;
    if (u16(c, t.off + st + 4) != 4 || u16(c, t.off + st + 6) != 0) return 1;
    if (format == 1) {
        // the pair set offset, and the count it points at, are read before the coverage index
        // is compared with the number of pair sets
        if (!fits(t, st, 10) || !fits(t, st + 10, 2 * (uint64_t)(maxcov + 1))) return 0;
        unsigned nsets = u16(c, t.off + st + 8);
        for (int64_t k = 0; k <= maxcov; k++) {
            uint64_t set = st + u16(c, t.off + st + 10 + 2 * (uint64_t)k);
            if (!fits(t, set, 2) || (k < nsets && !fits(t, set + 2, 4 * (uint64_t)u16(c, t.off + set)))) return 0;
        }
        return 1;
    }
    if (!fits(t, st, 16)) return 0;
    uint64_t nrecords = (uint64_t)u16(c, t.off + st + 12) * u16(c, t.off + st + 14);
    return check_classdef(c, t, st + u16(c, t.off + st + 8)) && check_classdef(c, t, st + u16(c, t.off + st + 10)) &&
           fits(t, st + 16, 2 * nrecords);
}

// GPOS version 1.0 as stb_truetype reads it for kerning: the lookup list, every lookup's
// header, and the subtables of pair adjustment (type 2) lookups
static int check_gpos(Check *c, Span t) {
    if (t.len < 4) return bad(c, "table 'GPOS' is %llu bytes", (unsigned long long)t.len);
    if (u16(c, t.off) != 1 || u16(c, t.off + 2) != 0) return 1;
    if (t.len < 10) return bad(c, "table 'GPOS' is %llu bytes", (unsigned long long)t.len);
    uint64_t list = u16(c, t.off + 8);
    if (!fits(t, list, 2) || !fits(t, list + 2, 2 * (uint64_t)u16(c, t.off + list)))
        return bad(c, "the lookup list of table 'GPOS' runs past the table");
    for (unsigned i = 0, n = u16(c, t.off + list); i < n; i++) {
        uint64_t lookup = list + u16(c, t.off + list + 2 + 2 * (uint64_t)i);
        if (!fits(t, lookup, 6)) return bad(c, "table 'GPOS': lookup %u lies outside the table", i);
        if (u16(c, t.off + lookup) != 2) continue;
        unsigned nsub = u16(c, t.off + lookup + 4);
        if (!fits(t, lookup + 6, 2 * (uint64_t)nsub)) return bad(c, "table 'GPOS': lookup %u's subtable list runs past the table", i);
        for (unsigned s = 0; s < nsub; s++)
            if (!check_pair_pos(c, t, lookup + u16(c, t.off + lookup + 6 + 2 * (uint64_t)s)))
                return bad(c, "table 'GPOS': subtable %u of lookup %u runs past the table", s, i);
    }
    return 1;
}

// ---- the font ----

// the first table record with this tag, as stb_truetype's lookup finds it
static Span find_table(const Check *c, uint64_t font, unsigned ntables, const char *tag) {
    for (unsigned i = 0; i < ntables; i++) {
        uint64_t r = font + 12 + 16 * (uint64_t)i;
        if (!memcmp(c->d + r, tag, 4)) return (Span){u32(c, r + 8), u32(c, r + 12)};
    }
    return (Span){0, 0};
}

static int check_font(Check *c) {
    if (c->n < 12) return bad(c, "it is only %llu bytes", (unsigned long long)c->n);
    uint64_t font = 0;
    uint32_t tag = u32(c, 0);
    if (tag == 0x74746366) { // 'ttcf': a collection; plot uses its first font
        uint32_t version = u32(c, 4);
        if (version != 0x00010000 && version != 0x00020000) return bad(c, "collection version 0x%08x (1.0 or 2.0 expected)", version);
        if (c->n < 16 || u32(c, 8) - 1 >= 0x7fffffff) return bad(c, "the collection holds no fonts");
        font = u32(c, 12);
        if (font + 12 > c->n) return bad(c, "the collection's first font (offset %llu) lies outside the file", (unsigned long long)font);
        tag = u32(c, font);
    }
    if (tag == 0x4F54544F) return bad(c, "CFF-outline fonts are not supported; use a TrueType .ttf");
    if (tag != 0x00010000 && tag != 0x74727565) return bad(c, "unknown font version 0x%08x", tag);

    unsigned ntables = u16(c, font + 4);
    uint64_t dir_end = font + 12 + 16 * (uint64_t)ntables;
    if (dir_end > c->n) return bad(c, "its table directory (%u tables) runs past the end of the file", ntables);
    for (unsigned i = 0; i < ntables; i++) {
        uint64_t r = font + 12 + 16 * (uint64_t)i, off = u32(c, r + 8), len = u32(c, r + 12);
        char name[5];
        // stb_truetype takes a table at offset 0 for a missing one
        if (!off) return bad(c, "table '%s' is at offset 0", tag_text(c->d + r, name));
        if (off + len > c->n)
            return bad(c, "table '%s' (offset %llu, %llu bytes) lies outside the file (%llu bytes)", tag_text(c->d + r, name),
                       (unsigned long long)off, (unsigned long long)len, (unsigned long long)c->n);
    }
    static const char *REQUIRED[] = {"cmap", "head", "hhea", "hmtx", "maxp", "loca", "glyf"};
    Span req[7];
    for (int i = 0; i < 7; i++) {
        req[i] = find_table(c, font, ntables, REQUIRED[i]);
        if (!req[i].off) return bad(c, "it has no '%s' table%s", REQUIRED[i], i == 6 ? " (CFF outlines are not supported)" : "");
    }
    Span cmap = req[0], head = req[1], hhea = req[2], hmtx = req[3], maxp = req[4], loca = req[5];
    c->glyf = req[6];

    if (head.len < 54) return bad(c, "table 'head' is %llu bytes (54 expected)", (unsigned long long)head.len);
    unsigned upem = u16(c, head.off + 18), long_loca = u16(c, head.off + 50);
    if (upem < 16 || upem > 16384) return bad(c, "unitsPerEm is %u (16 to 16384)", upem);
    if (long_loca > 1) return bad(c, "indexToLocFormat is %u (0 or 1)", long_loca);
    if (maxp.len < 6 || !u16(c, maxp.off + 4)) return bad(c, "table 'maxp' gives no glyph count");
    c->nglyphs = u16(c, maxp.off + 4);
    if (hhea.len < 36) return bad(c, "table 'hhea' is %llu bytes (36 expected)", (unsigned long long)hhea.len);
    unsigned nmetrics = u16(c, hhea.off + 34);
    int ascender = s16(c, hhea.off + 4), descender = s16(c, hhea.off + 6);
    if (ascender <= descender) return bad(c, "the ascender (%d) is not above the descender (%d)", ascender, descender);
    if (!nmetrics || nmetrics > c->nglyphs) return bad(c, "numberOfHMetrics is %u (1 to the %u glyphs)", nmetrics, c->nglyphs);
    if (4 * (uint64_t)nmetrics + 2 * (uint64_t)(c->nglyphs - nmetrics) > hmtx.len)
        return bad(c, "table 'hmtx' is %llu bytes, too short for %u metrics of %u glyphs", (unsigned long long)hmtx.len, nmetrics,
                   c->nglyphs);
    if (!check_cmap(c, cmap)) return 0;

    if ((uint64_t)(c->nglyphs + 1) * (long_loca ? 4 : 2) > loca.len)
        return bad(c, "table 'loca' is %llu bytes, too short for %u glyphs", (unsigned long long)loca.len, c->nglyphs);
    c->loca = xmalloc((c->nglyphs + 1) * sizeof *c->loca);
    for (unsigned g = 0; g <= c->nglyphs; g++) {
        c->loca[g] = long_loca ? u32(c, loca.off + 4 * (uint64_t)g) : 2 * (uint64_t)u16(c, loca.off + 2 * (uint64_t)g);
        if (c->loca[g] > c->glyf.len)
            return bad(c, "'loca' entry %u (%llu) lies past the end of 'glyf' (%llu bytes)", g, (unsigned long long)c->loca[g],
                       (unsigned long long)c->glyf.len);
        if (g && c->loca[g] < c->loca[g - 1]) return bad(c, "'loca' entry %u is below the one before it", g);
    }
    c->state = xcalloc(c->nglyphs, 1);
    c->verts = xcalloc(c->nglyphs, sizeof *c->verts);
    for (unsigned g = 0; g < c->nglyphs; g++)
        if (!check_glyph(c, g, 0)) return 0;

    // stb_truetype kerns from GPOS when the font has one, else from kern
    Span gpos = find_table(c, font, ntables, "GPOS"), kern = find_table(c, font, ntables, "kern");
    if (gpos.off) return check_gpos(c, gpos);
    return !kern.off || check_kern(c, kern);
}

int font_check(const unsigned char *data, size_t n, char *why, size_t why_size) {
    Check c = {.d = data, .n = n, .why = why, .why_size = why_size};
    int ok = check_font(&c);
    free(c.loca), free(c.state), free(c.verts);
    return ok;
}
