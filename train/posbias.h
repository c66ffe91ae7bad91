// posbias.h - `posgpt info --bias FILE.csv`: the score bias a position scheme adds (its
// bias_forward hook: T5's table, ALiBi's slopes, KERPLE, FIRE, Sandwich), per layer, head and
// distance, computed by the scheme's own hook, as a CSV table and a summary on stdout.
//
// What is computed: one query at position D (the largest distance asked for) against keys at
// positions D - d for d = 0..D, so the row for distance d is b(h, D, D - d). For a relative
// scheme (PosScheme.relative) that is the bias at distance d for any query; for one whose bias
// also depends on the query's own position (FIRE's normaliser psi(max(L, i))) it is what the
// last query of a window of D + 1 positions sees. The table is refreshed first (the tabulate
// hook) as the attention does, so the floats are those the model adds.
// CSV columns: layer,head,distance,bias; layer is "all" when one state serves every layer
// (the scheme's tensors shared, or none), else 0..L-1.
#ifndef POSGPT_POSBIAS_H
#define POSGPT_POSBIAS_H

#include "gpt.h"

// 1 if the scheme adds a bias of the positions alone to the scores
int posbias_has(const PosScheme *s);
// "a|b|c": the registry's schemes that do
const char *posbias_schemes(void);
// a short phrase saying what a scheme without a bias does instead ("it rotates q and k"), for refusals
const char *posbias_instead(const PosScheme *s);
// writes the table for distances 0..maxd to path (atomically) and prints the summary on stdout:
// per (layer, head) the largest |bias| and its distance and the bias at distances 1, 10, T and
// 16 T (those <= maxd), then an overall line; `what` says which parameters ("trained, step
// 1200"). Dies if maxd reaches past the positions the scheme serves.
void posbias_report(const GPT *m, const char *path, int maxd, const char *what);
#endif
