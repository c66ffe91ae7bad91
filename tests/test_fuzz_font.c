// test_fuzz_font.c - a seeded mutation fuzzer for `posgpt plot --font`: font_check
// (tools/plot/font_check.c) and the stb_truetype calls of text.c behind it. The seed is DejaVu
// Sans; each input is the seed with structural damage: table records (offset, length, tag)
// changed or two tables swapped, numTables, the cmap header, encoding records and subtable
// fields, the loca entries, headers, contour ends, instruction lengths, flags and component
// records of the glyphs the text uses, numberOfHMetrics, numGlyphs, indexToLocFormat,
// unitsPerEm, the ascender, hmtx entries, the GPOS lookup structure, the kern header and pairs,
// truncation, bytes flipped. Each input is written to a file and, in a forked child with a
// limit of 10 s of CPU time, loaded with font_load, measured and drawn (printable ASCII, composite Latin-1
// letters, a letter past U+FFFF, a stray byte; across and upwards, at two sizes): it must
// draw or refuse with a one-line error, never crash, hang or trip a sanitizer (fuzz_run.h:
// batches of 64 a child, any batch that fails replayed one input a child).
//   build/tests/test_fuzz_font [iterations] [seed] [first]   (default 1000; make fuzz: 100000)
// Inputs before `first` are generated (same sequence) but not run, to replay a stretch.
// Every failing input is reported (the first 20 kept as files). Do not run it under a
// tracer (strace, gdb): LeakSanitizer cannot work under ptrace and every input would fail.
#include "check.h"
#include "common.h"
#include "chart.h"

#include "fuzz_run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *SEED = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
// printable ASCII, then é ç ñ ü (composite glyphs), Å × – …, U+1D400 (past U+FFFF) and a stray byte
static const char TEXT[] = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
                           "\xc3\xa9\xc3\xa7\xc3\xb1\xc3\xbc\xc3\x85\xc3\x97\xe2\x80\x93\xe2\x80\xa6\xf0\x9d\x90\x80\xff";

typedef struct {
    char tag[5];
    uint32_t rec, off, len; // rec: where its record in the table directory is
} Table;

// the seed and where its structures are
static uint8_t *seed;
static size_t seed_n;
static Table tabs[64];
static int ntabs;
static unsigned nglyphs, targets[128], ntargets;
static uint32_t fields[4096]; // GPOS fields (16-bit) that stb_truetype reads
static unsigned nfields;

static unsigned s_u16(uint64_t at) { return at + 2 <= seed_n ? (unsigned)seed[at] << 8 | seed[at + 1] : 0; }
static uint32_t s_u32(uint64_t at) { return (uint32_t)s_u16(at) << 16 | s_u16(at + 2); }
static const Table *tab(const char *tag) {
    for (int i = 0; i < ntabs; i++)
        if (!strcmp(tabs[i].tag, tag)) return &tabs[i];
    return NULL;
}
// glyph g's data in the seed (its offset in the file; *len 0: empty)
static uint32_t glyph_at(unsigned g, uint32_t *len) {
    const Table *loca = tab("loca"), *head = tab("head");
    uint32_t a, b;
    if (s_u16(head->off + 50)) a = s_u32(loca->off + 4 * g), b = s_u32(loca->off + 4 * g + 4);
    else a = 2 * s_u16(loca->off + 2 * g), b = 2 * s_u16(loca->off + 2 * g + 2);
    *len = b - a;
    return tab("glyf")->off + a;
}

// the seed's glyph for a code point below U+10000, through its (3, 1) format 4 subtable
static unsigned seed_glyph(unsigned cp) {
    uint32_t cmap = tab("cmap")->off, sub = 0;
    for (unsigned i = 0, n = s_u16(cmap + 2); i < n; i++)
        if (s_u16(cmap + 4 + 8 * i) == 3 && s_u16(cmap + 6 + 8 * i) == 1) sub = cmap + s_u32(cmap + 8 + 8 * i);
    if (!sub || s_u16(sub) != 4) return 0;
    unsigned nseg = s_u16(sub + 6) / 2;
    for (unsigned i = 0; i < nseg; i++) {
        unsigned end = s_u16(sub + 14 + 2 * i), start = s_u16(sub + 16 + 2 * nseg + 2 * i);
        unsigned delta = s_u16(sub + 16 + 4 * nseg + 2 * i), ro = s_u16(sub + 16 + 6 * nseg + 2 * i);
        if (cp < start || cp > end) continue;
        if (!ro) return (cp + delta) & 0xFFFF;
        unsigned g = s_u16(sub + 16 + 6 * nseg + 2 * i + ro + 2 * (cp - start));
        return g ? (g + delta) & 0xFFFF : 0;
    }
    return 0;
}

static void add_field(uint32_t at) {
    if (nfields < sizeof fields / sizeof fields[0]) fields[nfields++] = at;
}

// the 16-bit fields of GPOS that stb_truetype's kerning reads (the seed is valid: no checks)
static void gpos_fields(uint32_t gpos) {
    uint32_t list = gpos + s_u16(gpos + 8);
    add_field(gpos), add_field(gpos + 8), add_field(list);
    for (unsigned i = 0, nl = s_u16(list); i < nl; i++) {
        uint32_t lk = list + s_u16(list + 2 + 2 * i);
        add_field(list + 2 + 2 * i), add_field(lk), add_field(lk + 4);
        if (s_u16(lk) != 2) continue;
        for (unsigned s = 0, ns = s_u16(lk + 4); s < ns; s++) {
            uint32_t st = lk + s_u16(lk + 6 + 2 * s), cov = st + s_u16(st + 2);
            add_field(lk + 6 + 2 * s);
            for (int k = 0; k < 8; k++) add_field(st + 2 * k);
            add_field(cov), add_field(cov + 2), add_field(cov + 4);
            if (s_u16(st) == 1)
                for (unsigned k = 0; k < 4 && k < s_u16(st + 8); k++) add_field(st + 10 + 2 * k), add_field(st + s_u16(st + 10 + 2 * k));
            else
                for (int k = 0; k < 2; k++) {
                    uint32_t cd = st + s_u16(st + 8 + 2 * k);
                    add_field(cd), add_field(cd + 2), add_field(cd + 4);
                }
        }
    }
}

static int load_seed(void) {
    FILE *f = fopen(SEED, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    seed_n = (size_t)ftell(f);
    rewind(f);
    seed = xmalloc(seed_n);
    if (fread(seed, 1, seed_n, f) != seed_n) { perror("fuzz: read the seed"); exit(2); }
    fclose(f);
    for (unsigned i = 0, n = s_u16(4); i < n && ntabs < 64; i++, ntabs++) {
        Table *t = &tabs[ntabs];
        t->rec = 12 + 16 * i, memcpy(t->tag, seed + t->rec, 4), t->off = s_u32(t->rec + 8), t->len = s_u32(t->rec + 12);
    }
    nglyphs = s_u16(tab("maxp")->off + 4);
    // the glyphs drawn: .notdef, then those of TEXT below U+10000
    static const unsigned MORE[] = {0xE9, 0xE7, 0xF1, 0xFC, 0xC5, 0xD7, 0x2013, 0x2026};
    targets[ntargets++] = 0;
    for (unsigned cp = ' '; cp <= '~'; cp++) targets[ntargets++] = seed_glyph(cp);
    for (size_t i = 0; i < sizeof MORE / sizeof MORE[0]; i++) targets[ntargets++] = seed_glyph(MORE[i]);
    if (tab("GPOS")) gpos_fields(tab("GPOS")->off);
    return 1;
}

typedef struct {
    uint8_t *b;
    size_t n;
} Buf;

static unsigned get(const Buf *f, uint64_t at, int bytes) {
    unsigned v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | (at + i < f->n ? f->b[at + i] : 0);
    return v;
}
static void set(Buf *f, uint64_t at, int bytes, uint32_t v) {
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        if (at + i < f->n) f->b[at + i] = (uint8_t)v;
}
// a field given a value likely to break something: its limits, the sign bit, off by one, doubled, random
static void poke(Rng *r, Buf *f, uint64_t at, int bytes) {
    uint32_t v = get(f, at, bytes), max = bytes == 1 ? 0xFF : bytes == 2 ? 0xFFFF : 0xFFFFFFFF;
    switch (rng_below(r, 9)) {
    case 0: v = 0; break;
    case 1: v = max; break;
    case 2: v = max / 2 + 1; break;
    case 3: v = max / 2; break;
    case 4: v += 1; break;
    case 5: v -= 1; break;
    case 6: v = 2 * v + 1; break;
    case 7: v ^= 1u << rng_below(r, 8 * bytes); break;
    default: v = (uint32_t)rng_below(r, (uint64_t)max + 1);
    }
    set(f, at, bytes, v & max);
}

// inside glyph g: contour ends, instruction length, flags; or a component record's flags or glyph
static void damage_glyph(Rng *r, Buf *f, unsigned g) {
    uint32_t len, at = glyph_at(g, &len);
    if (len < 10) return;
    int nc = (int16_t)s_u16(at);
    if (nc > 0) {
        uint32_t ins = at + 10 + 2 * nc, flags = ins + 2 + s_u16(ins), npts = s_u16(ins - 2) + 1;
        switch (rng_below(r, 4)) {
        case 0: poke(r, f, at + 10 + 2 * rng_below(r, nc), 2); break;
        case 1: poke(r, f, ins, 2); break;
        case 2: set(f, flags + rng_below(r, npts), 1, (uint32_t)rng_below(r, 256)); break; // repeats (bit 3), short/same bits
        default: f->b[at + 10 + rng_below(r, len - 10)] ^= (uint8_t)(1 << rng_below(r, 8));
        }
        return;
    }
    uint32_t p = at + 10, recs[64];
    int n = 0;
    for (unsigned fl = 0x20; (fl & 0x20) && n < 64 && p + 4 <= at + len;) { // the seed's component records
        fl = s_u16(p), recs[n++] = p;
        p += 4 + (fl & 1 ? 4 : 2) + (fl & 8 ? 2 : fl & 64 ? 4 : fl & 128 ? 8 : 0);
    }
    if (!n) return;
    uint32_t rec = recs[rng_below(r, n)];
    switch (rng_below(r, 4)) {
    case 0: poke(r, f, rec, 2); break;                                               // flags
    case 1: set(f, rec + 1, 1, get(f, rec + 1, 1) ^ (1u << rng_below(r, 8))); break; // one flag
    case 2: set(f, rec + 2, 2, rng_below(r, 2) ? g : targets[rng_below(r, ntargets)]); break; // itself, or another drawn glyph
    default: poke(r, f, rec + 2, 2);
    }
}

static void mutate(Rng *r, Buf *f) {
    memcpy(f->b, seed, seed_n);
    f->n = seed_n;
    const Table *cmap = tab("cmap"), *head = tab("head"), *hhea = tab("hhea"), *maxp = tab("maxp"), *hmtx = tab("hmtx");
    int rounds = 1 + (int)rng_below(r, 3);
    for (int k = 0; k < rounds; k++) {
        const Table *t = &tabs[rng_below(r, ntabs)], *u = &tabs[rng_below(r, ntabs)];
        unsigned g = rng_below(r, 4) ? targets[rng_below(r, ntargets)] : (unsigned)rng_below(r, nglyphs);
        uint32_t glen, gat = glyph_at(g, &glen);
        switch (rng_below(r, 14)) {
        case 0: // a table record's offset or length
            poke(r, f, t->rec + 8 + 4 * rng_below(r, 2), 4);
            break;
        case 1: // a table record's tag: another table's (a duplicate) or one byte changed
            if (rng_below(r, 2)) set(f, t->rec, 4, s_u32(u->rec));
            else f->b[t->rec + rng_below(r, 4)] ^= (uint8_t)(1 << rng_below(r, 8));
            break;
        case 2: // two tables swapped
            set(f, t->rec + 8, 4, u->off), set(f, t->rec + 12, 4, u->len), set(f, u->rec + 8, 4, t->off), set(f, u->rec + 12, 4, t->len);
            break;
        case 3: // numTables
            poke(r, f, 4, 2);
            break;
        case 4: { // cmap: its record count, an encoding record, a subtable's header or arrays
            unsigned n = s_u16(cmap->off + 2), i = (unsigned)rng_below(r, n);
            if (n > 1 && rng_below(r, 2)) { // the last record retired: stb_truetype reads the one before (format 4)
                set(f, cmap->off + 4 + 8 * (n - 1), 2, 0xFFFF);
                i = n - 2;
            }
            unsigned rec = cmap->off + 4 + 8 * i;
            uint32_t sub = cmap->off + s_u32(rec + 4);
            unsigned fmt = s_u16(sub), nseg = s_u16(sub + 6) / 2;
            switch (rng_below(r, 4)) {
            case 0: poke(r, f, cmap->off + 2, 2); break;
            case 1: poke(r, f, rec + 2 * rng_below(r, 3), rng_below(r, 3) == 2 ? 4 : 2); break;
            case 2: // the header: length, segCountX2, searchRange, entrySelector, rangeShift; or nGroups
                if (fmt == 12) poke(r, f, sub + 4 * (1 + rng_below(r, 3)), 4);
                else poke(r, f, sub + 2 * (1 + rng_below(r, 6)), 2);
                break;
            default: // an entry: a group's start, end or glyph; a segment's end, start, delta or range offset
                if (fmt == 12) poke(r, f, sub + 16 + 12 * rng_below(r, s_u32(sub + 12)) + 4 * rng_below(r, 3), 4);
                else if (fmt == 4) { // endCount, startCount, idDelta, idRangeOffset
                    unsigned array = (unsigned)rng_below(r, 4);
                    poke(r, f, sub + 14 + 2 * rng_below(r, nseg) + 2 * nseg * array + (array ? 2 : 0), 2);
                }
                else poke(r, f, sub + 6 + rng_below(r, 256), 1);
            }
            break;
        }
        case 5: { // a loca entry of the glyph
            const Table *loca = tab("loca");
            int w = s_u16(head->off + 50) ? 4 : 2;
            uint32_t at = loca->off + (g + (unsigned)rng_below(r, 2)) * w;
            if (rng_below(r, 3)) poke(r, f, at, w);
            else set(f, at, w, get(f, at + (rng_below(r, 2) ? w : -w), w)); // equal to a neighbour
            break;
        }
        case 6: // the glyph's header: numberOfContours or its box
            if (glen) poke(r, f, gat + 2 * rng_below(r, 5), 2);
            break;
        case 7:
            damage_glyph(r, f, g);
            break;
        case 8: { // numberOfHMetrics, numGlyphs, indexToLocFormat, unitsPerEm, ascender, descender
            uint32_t at[6] = {hhea->off + 34, maxp->off + 4, head->off + 50, head->off + 18, hhea->off + 4, hhea->off + 6};
            poke(r, f, at[rng_below(r, 6)], 2);
            break;
        }
        case 9: // the glyph's advance or side bearing
            poke(r, f, hmtx->off + 4 * g + 2 * rng_below(r, 2), 2);
            break;
        case 10: { // kerning: a GPOS lookup field; or, GPOS renamed so that kern is read, a kern field
            const Table *gpos = tab("GPOS"), *kern = tab("kern");
            if (!kern || !gpos || rng_below(r, 3)) {
                if (nfields) poke(r, f, fields[rng_below(r, nfields)], 2);
                break;
            }
            set(f, gpos->rec + 3, 1, 'X');
            uint32_t pair = kern->off + 18 + 6 * (uint32_t)rng_below(r, s_u16(kern->off + 10) + 1);
            uint32_t at[4] = {kern->off + 2, kern->off + 8, kern->off + 10, pair}; // nTables, coverage, nPairs, a pair's left glyph
            poke(r, f, at[rng_below(r, 4)], 2);
            break;
        }
        case 11: // truncated: anywhere, or inside a table
            f->n = rng_below(r, 2) ? rng_below(r, f->n + 1) : t->off + rng_below(r, t->len + 1);
            if (f->n > seed_n) f->n = seed_n;
            break;
        case 12: // bytes flipped: anywhere, or inside a table
            for (int i = 0, n = 1 + (int)rng_below(r, 8); i < n; i++) {
                uint64_t at = rng_below(r, 2) ? rng_below(r, seed_n) : t->off + rng_below(r, t->len ? t->len : 1);
                if (at < f->n) f->b[at] ^= (uint8_t)(1 << rng_below(r, 8));
            }
            break;
        default: // a table moved: its offset into another table, or its length to the end of the file
            if (rng_below(r, 2)) set(f, t->rec + 8, 4, u->off + (uint32_t)rng_below(r, u->len + 1));
            else set(f, t->rec + 12, 4, (uint32_t)(seed_n - t->off + rng_below(r, 3)));
        }
    }
}

// the child: the real font path of plot (font_load, then text measured and drawn)
static int render(const char *path) {
    Font *font = font_load(path);
    Canvas c;
    canvas_init(&c, 160, 120, (Rgb){255, 255, 255});
    float px[2] = {9, 34};
    for (int k = 0; k < 2; k++) {
        draw_text(&c, font, px[k], TEXT, 80, 60, k, 0, (Rgb){0, 0, 0});
        draw_text(&c, font, px[k], TEXT, 60, 110, 2 * k, 1, (Rgb){0, 0, 0});
    }
    text_width(font, 12, TEXT), text_cap(font, 12);
    canvas_free(&c);
    font_free(font);
    return 0;
}

int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 1000;
    Rng r;
    rng_seed(&r, argc > 2 ? (uint64_t)atoll(argv[2]) : 1);
    if (!load_seed()) {
        check(1, "fuzz font: skipped, the seed font is absent (install fonts-dejavu-core)", "");
        return check_done();
    }
    // a file in memory when there is /dev/shm: each input is written whole
    char path[80];
    snprintf(path, sizeof path, "%s/posgpt-fuzzfont-%d.ttf", access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", (int)getpid());
    Buf f = {xmalloc(seed_n), 0};
    enum { BATCH = 64 };
    FuzzInput in[BATCH];
    for (int j = 0; j < BATCH; j++) in[j].b = xmalloc(seed_n);
    FuzzTally t = {0};
    long first = argc > 3 ? atol(argv[3]) : 0;
    int n = 0;
    for (long it = 0; it < iters; it++) {
        mutate(&r, &f);
        if (it < first) continue;
        memcpy(in[n].b, f.b, f.n), in[n].n = f.n;
        if (++n == BATCH || it == iters - 1) {
            fuzz_batch(render, path, "/tmp/posgpt-fuzzfont-crash-", ".ttf", in, n, it + 1 - n, &t);
            n = 0;
        }
    }
    for (int j = 0; j < BATCH; j++) free(in[j].b);
    remove(path);
    free(f.b), free(seed);
    char name[300];
    snprintf(name, sizeof name, "fuzz font: %ld damaged fonts (inputs %ld..%ld), %ld drawn, %ld refused with an error, no crash or hang "
             "(%ld batches, %ld replayed one input a child)", iters - first, first, iters - 1, t.drawn, t.refused, t.batches, t.replayed);
    check(t.failed == 0 && t.drawn + t.refused == iters - first, name, "%ld inputs crashed, hung or tripped a sanitizer", t.failed);
    return check_done();
}
