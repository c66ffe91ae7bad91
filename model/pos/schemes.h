// schemes.h - what single schemes export, for each other and for the tests.
#ifndef POSGPT_SCHEMES_H
#define POSGPT_SCHEMES_H

#include "pos.h"

// ALiBi's slopes (Press et al. 2022, Sec. 3; alibi.c): slopes[h] for H heads
void alibi_slopes(int H, double *slopes);
// the causal T5 bucket of a distance D >= 0 (Raffel et al. 2020; t5.c)
int t5_bucket(int D, int num_buckets, int max_distance);
#endif
