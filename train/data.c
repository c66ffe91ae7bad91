// data.c - corpus loading. Any file is a corpus: tokens are its bytes (vocabulary 256).
#include "data.h"

#include "common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

uint8_t *read_file(const char *path, size_t *n) {
    struct stat st;
    if (stat(path, &st) != 0) die("cannot read data file '%s': %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) die("data file '%s' is a directory", path);
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open data file '%s': %s", path, strerror(errno));
    size_t cap = st.st_size > 0 ? (size_t)st.st_size : 1 << 16, len = 0;
    uint8_t *buf = xmalloc(cap);
    for (;;) { // read until EOF (the size from stat may be 0 for pipes)
        if (len == cap) {
            cap *= 2;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) die("out of memory reading '%s'", path);
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) die("error reading data file '%s': %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (len == 0) die("data file '%s' is empty", path);
    *n = len;
    return buf;
}

void corpus_load(Corpus *c, const char *path, const char *val_path) {
    memset(c, 0, sizeof *c);
    size_t n;
    uint8_t *all = read_file(path, &n);
    if (val_path) {
        size_t nv;
        uint8_t *v = read_file(val_path, &nv);
        uint8_t *both = xmalloc(n + nv);
        memcpy(both, all, n);
        memcpy(both + n, v, nv);
        free(all), free(v);
        c->bytes = both;
        c->train = both, c->ntrain = n;
        c->val = both + n, c->nval = nv;
    } else {
        c->bytes = all;
        size_t ntr = n - n / 10; // last 10% held out
        c->train = all, c->ntrain = ntr;
        c->val = all + ntr, c->nval = n - ntr;
    }
}

void corpus_free(Corpus *c) {
    free(c->bytes);
    memset(c, 0, sizeof *c);
}
