// nope.c - no position information (Haviv et al. 2022, "Transformer Language Models
// without Positional Encodings Still Learn Positional Information"). A causal decoder can
// still infer position from the mask. Every hook stays NULL.
#include "pos.h"

const PosScheme pos_nope = {
    .name = "nope",
    .summary = "no position encoding (causal mask only)",
    .cite = "Haviv et al. 2022",
    .hypers = {{NULL, 0, NULL}},
    .relative = 1,
};
