// pack.c - see pack.h.
#include "pack.h"

#include "common.h"
#include "gpt.h"

#include <stdlib.h>

int pack_rows(const int *tok, const int *tgt, const int *pos, const int *len, int B, int T, int max_rows, int *ptok, int *ptgt,
              int *ppos, int *pseg) {
    int *order = xmalloc((size_t)B * sizeof(int)), *fill = xcalloc((size_t)B, sizeof(int));
    for (int b = 0; b < B; b++) {
        if (len[b] < 0 || len[b] > T) die("internal: an example of %d tokens in rows of %d", len[b], T);
        order[b] = b;
    }
    // longest first; equal lengths in drawn order (insertion sort: B is a batch)
    for (int i = 1; i < B; i++) {
        int b = order[i], j = i;
        for (; j > 0 && len[order[j - 1]] < len[b]; j--) order[j] = order[j - 1];
        order[j] = b;
    }
    int rows = 0;
    for (int i = 0; i < B && len[order[i]] > 0; i++) {
        int b = order[i], n = len[b], r = 0;
        while (r < rows && fill[r] + n > T) r++; // the first row with room (a new one if none)
        if (r == rows && ++rows > max_rows) die("internal: packing needs more than the %d rows allotted", max_rows);
        size_t src = (size_t)b * T, dst = (size_t)r * T + fill[r];
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
        for (int t = fill[r]; t < T; t++) {
            size_t k = (size_t)r * T + t;
            ptok[k] = 0, ptgt[k] = GPT_NO_TARGET, ppos[k] = 0, pseg[k] = t;
        }
    free(order), free(fill);
    return rows;
}
