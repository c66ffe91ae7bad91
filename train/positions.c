// positions.c - contiguous and randomized positions for a batch (positions.h).
#include "positions.h"

#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void positions_draw(int *pos, int B, int T, int offset, int lmax, Rng *rng) {
    if (lmax <= 0) {
        for (int b = 0; b < B; b++)
            for (int t = 0; t < T; t++) pos[b * T + t] = offset + t;
        return;
    }
    if (T > lmax) die("randomized positions: cannot draw %d distinct positions from [0, %d); raise --rand-max", T, lmax);
    // Floyd's algorithm: T distinct values from [0, lmax) in O(T^2) worst case membership
    // tests, done with a small open-addressing set so it stays O(T) expected.
    int cap = 1;
    while (cap < 2 * T) cap <<= 1;
    int *set = xmalloc((size_t)cap * sizeof(int));
    for (int b = 0; b < B; b++) {
        int *row = pos + (size_t)b * T;
        for (int i = 0; i < cap; i++) set[i] = -1;
        int n = 0;
        for (int j = lmax - T; j < lmax; j++) {
            int v = (int)rng_below(rng, (uint64_t)j + 1);
            // insert v, or j if v is already present
            for (int pass = 0; pass < 2; pass++) {
                unsigned h = ((unsigned)v * 2654435761u) & (unsigned)(cap - 1);
                int found = 0;
                while (set[h] != -1) {
                    if (set[h] == v) { found = 1; break; }
                    h = (h + 1) & (unsigned)(cap - 1);
                }
                if (!found) { set[h] = v; row[n++] = v; break; }
                v = j; // j cannot be present yet
            }
        }
        qsort(row, (size_t)T, sizeof(int), cmp_int);
    }
    free(set);
}

int positions_parse(const char *cmd, const char *positions) {
    if (!strcmp(positions, "random")) return 1;
    if (strcmp(positions, "contiguous")) die("%s--positions must be contiguous or random, got '%s'", cmd, positions);
    return 0;
}

int positions_eval_range(const char *cmd, int rand_max, int ckpt_rand_max) {
    if (!rand_max) rand_max = ckpt_rand_max;
    if (!rand_max) die("%s--positions random needs --rand-max (the checkpoint was not trained with random positions)", cmd);
    return rand_max;
}
