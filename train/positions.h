// positions.h - the positions a batch of windows is trained or evaluated at: contiguous from
// an offset, or randomized (Ruoss et al. 2023). The model takes any positions (pos/pos.h);
// choosing them is the data side's job, like choosing the windows.
#ifndef POSGPT_POSITIONS_H
#define POSGPT_POSITIONS_H

#include "common.h"

// pos (B, T):
//  lmax == 0: contiguous, pos[b][t] = offset + t
//  lmax > 0 : randomized: for each row, T distinct integers drawn from [0, lmax) without
//             replacement (Floyd's algorithm), sorted ascending (dies if T > lmax)
void positions_draw(int *pos, int B, int T, int offset, int lmax, Rng *rng);
// --positions of an evaluation: 1 for random, 0 for contiguous; anything else dies (messages
// start with `cmd`, e.g. "task eval: ", or "")
int positions_parse(const char *cmd, const char *positions);
// the range random evaluation positions are drawn from: --rand-max if given, else the one the
// checkpoint was trained with; dies if neither is set
int positions_eval_range(const char *cmd, int rand_max, int ckpt_rand_max);
#endif
