// task_batch.h - training on a task's examples (`train --task DIR`): a batch is B examples,
// one per row from position 0, right-padded to T; the loss scores the answer's bytes only (the
// prompt and the padding have no target: GPT_NO_TARGET). The examples are fresh ones, made by
// the generator at every step (task_draw_fresh: example b of step s from (seed, s, b) alone, so
// any process of an MPI run makes the same, and a resumed run the same as an uninterrupted
// one; never one of test.txt's), or (train --task-examples file, and runs from before fresh
// examples) drawn at random from train.txt's (task_draw). The last 5% of train.txt's examples
// (at least 1, at most 2000) are held out for validation, scored the same way.
#ifndef POSGPT_TASK_BATCH_H
#define POSGPT_TASK_BATCH_H

#include "gpt.h"
#include "tasks.h"

#include <signal.h>

#define TASK_PAD '\n' // the byte padding a row after its example (never scored, never attended to)
#define TASK_PACK_ROW 4 // train --pack: rows default to this many times the longest example

typedef struct {
    TaskSet set;
    int ntrain;       // examples [0, ntrain) train (task_draw), [ntrain, set.n) validate
    int longest;      // the longest example training and validation can give, in bytes (a row's least length)
    // fresh examples (taskdata_fresh):
    int fresh;
    TaskSpec spec;    // how they are made (DIR/task.txt)
    uint64_t seed;    // the run's seed
    uint64_t *test_hash; // test.txt's examples' hashes, sorted: a fresh example with one of them is redrawn
    long ntest;
    char *buf;        // one example being made
} TaskData;

#define TASK_FRESH_TRIES 1000 // draws in a row that may all be test examples before training gives up

void taskdata_load(TaskData *d, const char *train_path);
// training examples made fresh at every step, from the directory's task.txt, none equal to one
// of its test.txt (dies naming the file for a missing or unreadable one); seed: the run's
void taskdata_fresh(TaskData *d, const char *dir, uint64_t seed);
void taskdata_free(TaskData *d);
// one example into row tok/tgt (T each): its bytes, padding, targets on the answer only
void task_row(const TaskExample *x, int T, int *tok, int *tgt);
// B random training examples and their positions (rng: the trainer's data order): positions
// 0..T-1, or with rand_max > 0 each example at sorted distinct draws from [0, rand_max) as many
// as its own bytes (Ruoss et al. 2023: an n-token example gets n draws, as `task eval
// --positions random` gives a test example), the padding after it at its last position;
// len (B, NULL for none) gets each row's example length, for packing (pack.h)
void task_draw(const TaskData *d, Rng *rng, int B, int T, int rand_max, int *tok, int *tgt, int *pos, int *len);
// B fresh training examples of step `step` into rows as task_draw does: example b from the
// stream of (seed, step, b) alone: a length uniform in 1..max_len (passkey: a depth uniform in
// 0..100%), the example, then its random positions (rand_max > 0); while it is a test example,
// a new length and example from the same stream (TASK_FRESH_TRIES at most, then a one-line error)
void task_draw_fresh(const TaskData *d, long step, int B, int T, int rand_max, int *tok, int *tgt, int *pos, int *len);
// example x (number idx of its file) at random positions, into p (T): sorted distinct draws from
// [0, rand_max), as many as its bytes, the padding at the last; drawn from (seed, idx) alone, so
// an example gets the same positions whatever the batch it is scored in, its row, or the order
void task_example_positions(const TaskExample *x, long idx, uint64_t seed, int rand_max, int T, int *p);
// mean answer loss over the validation examples, in batches of B (NaN if *stop was set); a
// model trained at random positions (rand_max > 0) is scored at random positions too, the same
// draws every time (task_example_positions, seed 1), so its curve is comparable from one
// validation to the next and does not depend on B
double task_val_loss(const GPT *m, const TaskData *d, int B, int T, int rand_max, volatile sig_atomic_t *stop);
#endif
