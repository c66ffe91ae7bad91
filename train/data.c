// data.c - corpus loading. Any file is a corpus: tokens are its bytes (vocabulary 256).
#include "data.h"

#include "common.h"
#include "fileio.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// the most a corpus may take: half the machine's memory (the model and its activations
// need the rest); a larger file is refused with its size, not read until memory runs out
static size_t corpus_cap(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz / 2 : (size_t)1 << 34;
}

uint8_t *read_file(const char *path, size_t *n) {
    uint8_t *buf = read_regular_file(path, "data file", corpus_cap(), n);
    if (*n == 0) {
        free(buf);
        die("data file '%s' is empty", path);
    }
    return buf;
}

void corpus_load(Corpus *c, const char *path, const char *val_path) {
    memset(c, 0, sizeof *c);
    size_t n;
    uint8_t *all = read_file(path, &n);
    c->data_bytes = n, c->data_crc = crc32_update(0, all, n);
    if (val_path) {
        size_t nv;
        uint8_t *v = read_file(val_path, &nv);
        c->val_bytes = nv, c->val_crc = crc32_update(0, v, nv);
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
