// shards.h - one training step's gradient, computed in shards: the global batch of B examples is
// cut into S shards of B/S (S a power of two), each shard's gradient is taken with the global
// batch's loss denominator, and the S gradients are summed in one fixed binary tree. The tree
// does not depend on how many processes share the shards (dist.h), so `mpirun -np N` trains
// bit for bit like one process with the same S. S = 1 is the plain step (no copies, no tree).
#ifndef POSGPT_SHARDS_H
#define POSGPT_SHARDS_H

#include "gpt.h"

#define SHARDS_MAX 4096

typedef struct {
    int S, first, count;  // shards of the global batch; this process computes first .. first+count-1
    size_t n;             // parameters
    real *buf[16];        // count > 1: the partial sums of the local tree, one per level (+1)
    real *scratch;        // the exchange's receive buffer (several processes)
    double comm_s;        // seconds spent in the exchange between processes, summed over steps
    long steps;
    int *ptok, *ptgt, *ppos, *pseg; // packed shards (len given): a shard's rows repacked (pack.h)
    long pack_rows, pack_examples; // packed shards: rows computed, and the examples in them, summed over steps
} Shards;

// NULL if S shards of a batch of B across `procs` processes can be made, else a one-line reason
const char *shards_check(int S, int B, int procs, char *err, size_t n);
// this process's share (dist_rank of dist_size) of S shards of a model with n parameters
void shards_init(Shards *sh, int S, size_t n);
void shards_free(Shards *sh);
// Forward and backward of the global batch tok, tgt, pos (B, T) in shards; m's activations
// must be allocated for (B/S, T). Leaves the summed gradient in m->grads (the same on every
// process) and returns the mean loss over the global batch's scored positions. len (B), NULL
// for none: row b holds one example of len[b] tokens, padded after; each shard's rows are then
// packed (pack.h) into as many of m's rows (of m->T, which may be longer than T) as they need
// before its forward, which gives the same gradient in fewer positions. A shard packs its own
// rows only, so the bits still do not depend on the number of processes.
double shards_gradient(Shards *sh, GPT *m, int B, int T, const int *tok, const int *tgt, const int *pos, const int *len);
#endif
