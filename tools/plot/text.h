// text.h - TrueType text for `posgpt plot` (stb_truetype): a font checked before use
// (font_check.h), UTF-8 strings measured and drawn onto a canvas.
#ifndef POSGPT_TEXT_H
#define POSGPT_TEXT_H

#include "canvas.h"

#include <stddef.h>

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
// the size at which s fits in maxw pixels (px, or smaller)
float text_fit_px(const Font *f, float px, const char *s, float maxw);
// s copied into buf, cut with an ellipsis to fit maxw pixels: at the end of a word when one
// fits (a cut mid-word reads as another word), else inside the first word
const char *text_ellipsize(const Font *f, float px, const char *s, float maxw, char *buf, size_t n);
#endif
