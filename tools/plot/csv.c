// csv.c - reading posgpt's CSV files for `posgpt plot`. See csv.h.
#include "csv.h"

#include "common.h"
#include "fileio.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

char *csv_trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) *--e = 0;
    return s;
}

// a field in double quotes loses them ("" inside stands for "); commas inside quotes are
// not special here: posgpt's own CSVs never quote, and a quoted comma splits the field (the
// field count then disagrees with the header, which is an error naming the line)
static char *unquote(char *f) {
    size_t len = strlen(f);
    if (len < 2 || f[0] != '"' || f[len - 1] != '"') return f;
    f[len - 1] = 0, f++;
    char *w = f;
    for (char *r = f; *r; r++) {
        *w++ = *r;
        if (r[0] == '"' && r[1] == '"') r++;
    }
    *w = 0;
    return csv_trim(f);
}

int csv_split(char *s, char **out, int max) {
    int n = 0;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma) *comma = 0;
        if (n < max) out[n] = unquote(csv_trim(s));
        n++;
        if (!comma) break;
        s = comma + 1;
    }
    return n;
}

void csv_read(Csv *t, const char *path) {
    memset(t, 0, sizeof *t);
    t->path = path;
    size_t n;
    t->text = (char *)read_regular_file(path, "plot input", (size_t)1 << 30, &n);
    // what spreadsheets write: a UTF-8 byte-order mark (skipped), CRLF line endings and
    // spaces around fields (trimmed), quoted fields (unquoted in split); UTF-16, old Mac CR
    // line endings and ';' separators get an error that names them
    const unsigned char *u = (const unsigned char *)t->text;
    if (n >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF)))
        die("plot: '%s' is UTF-16 text; save it as UTF-8 (or plain) CSV", path);
    if (memchr(t->text, 0, n)) die("plot: '%s' is not a text CSV file (it contains NUL bytes)", path);
    if (n >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) memmove(t->text, t->text + 3, n - 2), n -= 3;
    if (!memchr(t->text, '\n', n) && memchr(t->text, '\r', n)) // CR only: one line to us
        for (size_t i = 0; i < n; i++) t->text[i] = t->text[i] == '\r' ? '\n' : t->text[i];
    // lines
    int nlines = 1;
    for (size_t i = 0; i < n; i++) nlines += t->text[i] == '\n';
    char **lines = xmalloc((size_t)nlines * sizeof(char *));
    int nl = 0;
    for (char *p = t->text; p;) {
        char *e = strchr(p, '\n');
        if (e) *e = 0;
        lines[nl++] = p;
        p = e ? e + 1 : NULL;
    }
    int h = 0;
    while (h < nl && !*csv_trim(lines[h])) h++;
    if (h == nl) free(lines), die("plot: '%s' is empty (no header row)", path);
    snprintf(t->header, sizeof t->header, "%s", csv_trim(lines[h]));
    if (!strchr(t->header, ',') && strchr(t->header, ';'))
        free(lines), die("plot: '%s' separates its fields with ';'; posgpt reads comma-separated files (the header is: %s)", path, t->header);
    t->ncol = csv_split(lines[h], t->col, 64);
    if (t->ncol > 64) free(lines), die("plot: '%s' has %d columns; at most 64", path, t->ncol);
    t->cell = xmalloc((size_t)nl * t->ncol * sizeof(char *) + 1);
    t->line = xmalloc((size_t)nl * sizeof(int) + 1);
    for (int i = h + 1; i < nl; i++) {
        if (!*csv_trim(lines[i])) continue; // blank lines (a trailing newline) are fine
        int k = csv_split(lines[i], t->cell + (size_t)t->nrow * t->ncol, t->ncol);
        if (k != t->ncol) free(lines), die("plot: %s line %d: %d fields, but the header has %d", path, i + 1, k, t->ncol);
        t->line[t->nrow++] = i + 1;
    }
    free(lines);
}

void csv_free(Csv *t) { free(t->text), free(t->cell), free(t->line); }

// index of a column; required columns missing are an error naming the file and the header
int csv_col(const Csv *t, const char *name, int required, const char *what) {
    for (int k = 0; k < t->ncol; k++)
        if (!strcmp(t->col[k], name)) return k;
    if (required) die("plot: %s has no column '%s' (a %s has it; the header is: %s)", t->path, name, what, t->header);
    return -1;
}

const char *csv_str(const Csv *t, int r, int c) { return t->cell[(size_t)r * t->ncol + c]; }

// a finite number, or an error naming the file, line and column; empty cells give NAN when allowed
double csv_num(const Csv *t, int r, int c, int allow_empty) {
    const char *s = csv_str(t, r, c);
    if (!*s) {
        if (allow_empty) return NAN;
        die("plot: %s line %d: column '%s' is empty", t->path, t->line[r], t->col[c]);
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end) die("plot: %s line %d: column '%s' is '%s', not a number", t->path, t->line[r], t->col[c], s);
    if (!isfinite(v)) die("plot: %s line %d: column '%s' is '%s', not a finite number", t->path, t->line[r], t->col[c], s);
    return v;
}
