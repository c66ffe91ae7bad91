// dist.h - the processes of one training run under MPI (mpirun, srun): who is who, and the few
// collective operations data-parallel training needs. The only file that includes <mpi.h> is
// dist.c, and only in the MPI build (make MPI=1 -> ./posgpt-mpi); in the plain build these are
// the one-process versions (rank 0 of 1), so the trainer has one code path.
//
// The gradient sum is the one a single process computes over the same shards: the shards of
// the global batch are the leaves of one fixed binary tree (leaf s = shard s), each rank sums
// its consecutive leaves, and the ranks combine their sums pairwise at distance 1, 2, 4, ...
// (recursive doubling). Float addition is commutative, so both sides of a pair get the same
// bits, and the association is the tree's whatever the number of ranks (a power of two).
#ifndef POSGPT_DIST_H
#define POSGPT_DIST_H

#include "common.h"

#include <stddef.h>

// Start MPI when this process was launched by an MPI launcher with more than one process (the
// plain build refuses such a launch: it would train N separate copies). Returns the process
// count. Call before anything else in `train`; other commands call dist_refuse first.
int dist_start(const char *cmd);
// other commands run in one process: refuse a multi-process launch with a message saying so
void dist_refuse(const char *cmd);
int dist_rank(void);
int dist_size(void);
// leave MPI (all ranks, at a normal end)
void dist_finish(void);
// the largest of every rank's v (the stop decision: a signal on any rank stops all at one step)
int dist_max(int v);
// every rank's n doubles, rank-major, into all (size x n)
void dist_allgather(const double *mine, int n, double *all);
// sum every rank's buf into every rank's buf as described above; scratch holds n floats.
// Returns the seconds spent (communication plus the additions).
double dist_tree_sum(real *buf, size_t n, real *scratch);
// Every rank holds the same text, or the run ends (every process) with rank 0 reporting the
// first line that differs and the lowest rank where it does: "the N processes WHAT: KEY is X on
// rank 0 but Y on rank k; ADVICE" (lines "KEY = VALUE"). A start-up check: the flags
// (args_values), the resolved configuration and the identity of the data and state.
void dist_agree(const char *text, const char *what, const char *advice);
// a short label for messages from ranks other than 0 ("rank 1: "), "" on rank 0
const char *dist_tag(void);
#endif
