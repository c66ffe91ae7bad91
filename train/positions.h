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
#endif
