// pack.c - see pack.h.
#include "pack.h"

#include "common.h"
#include "gpt.h"

#include <stdlib.h>

typedef struct {
    int len, row;
} Example;

// longest first; equal lengths in drawn order
static int longest_first(const void *x, const void *y) {
    const Example *a = x, *b = y;
    return a->len != b->len ? (a->len < b->len ? 1 : -1) : (a->row > b->row) - (a->row < b->row);
}

int pack_rows(const int *tok, const int *tgt, const int *pos, const int *len, int B, int T, int R, int max_rows, int *ptok,
              int *ptgt, int *ppos, int *pseg) {
    if (R < T) die("internal: packing rows of %d into shorter ones of %d", T, R);
    Example *order = xmalloc((size_t)B * sizeof(Example));
    int *fill = xcalloc((size_t)B, sizeof(int));
    for (int b = 0; b < B; b++) {
        if (len[b] < 0 || len[b] > T) die("internal: an example of %d tokens in rows of %d", len[b], T);
        order[b] = (Example){len[b], b};
    }
    qsort(order, (size_t)B, sizeof(Example), longest_first);
    int rows = 0;
    for (int i = 0; i < B && order[i].len > 0; i++) {
        int b = order[i].row, n = order[i].len, r = 0;
        while (r < rows && fill[r] + n > R) r++; // the first row with room (a new one if none)
        if (r == rows && ++rows > max_rows) die("internal: packing needs more than the %d rows allotted", max_rows);
        size_t src = (size_t)b * T, dst = (size_t)r * R + fill[r];
        for (int t = 0; t < n; t++) {
            ptok[dst + t] = tok[src + t];
            ptgt[dst + t] = tgt[src + t];
            ppos[dst + t] = pos ? pos[src + t] : t;
            pseg[dst + t] = fill[r];
        }
        fill[r] += n;
    }
    if (!rows) rows = 1;
    for (int r = 0; r < rows; r++) // each row's rest: padding, each token on its own (attending to itself only)
        for (int t = fill[r]; t < R; t++) {
            size_t k = (size_t)r * R + t;
            ptok[k] = 0, ptgt[k] = GPT_NO_TARGET, ppos[k] = 0, pseg[k] = t;
        }
    free(order), free(fill);
    return rows;
}
