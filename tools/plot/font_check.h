// font_check.h - checks a TrueType font before stb_truetype reads it. stb_truetype trusts
// its input: every offset, count and length in the file is followed without a bounds check,
// so a damaged font makes it read outside the file, recurse without end or assert. The
// check walks exactly the structures that the calls in text.c make stb_truetype read
// (stbtt_InitFont, FindGlyphIndex, GetFontVMetrics, ScaleForMappingEmToPixels,
// GetGlyphHMetrics, GetGlyphKernAdvance, GetGlyphBox and the glyph outlines the rasteriser
// reads) and refuses the font unless all of them lie inside their tables and the file:
//   - the offset table (of the first font of a 'ttcf' collection) and every table record;
//   - cmap: its encoding records and the subtable stb_truetype picks (formats 0, 4, 6, 12,
//     13), including the reach of the format 4 binary search and its glyph index array;
//   - head (unitsPerEm 16..16384, indexToLocFormat 0 or 1), hhea (ascender above descender),
//     maxp, hmtx (numberOfHMetrics 1..numGlyphs and all their entries);
//   - loca (numGlyphs + 1 entries, non-decreasing, inside glyf) and every glyph: simple
//     glyphs' contour ends, instructions, flags and coordinates; composite glyphs' component
//     records, their glyph indices and a nesting depth of at most 16 without cycles;
//   - GPOS pair adjustment lookups as stb_truetype reads them when the font has GPOS, else
//     the first kern subtable's pairs.
// Fonts with CFF outlines ('OTTO', or no glyf table) are refused: stb_truetype's CFF reader
// is not checked. Glyph indices that cmap yields are not checked here (the caller keeps
// them below numGlyphs), nor values that only size the output (the caller bounds them).
#ifndef POSGPT_FONT_CHECK_H
#define POSGPT_FONT_CHECK_H

#include <stddef.h>

// 1 if stb_truetype can read the font in data[0..n) safely; else 0 with the first problem
// found written to why (one line, without the file name)
int font_check(const unsigned char *data, size_t n, char *why, size_t why_size);

#endif
