// task_batch.h - training on a task's examples (`train --task DIR`): a batch is B examples
// drawn at random, one per row from position 0, right-padded to T; the loss scores the
// answer's bytes only (the prompt and the padding have no target: GPT_NO_TARGET). The last
// 5% of train.txt's examples (at least 1, at most 2000) are held out for validation, scored
// the same way.
#ifndef POSGPT_TASK_BATCH_H
#define POSGPT_TASK_BATCH_H

#include "gpt.h"
#include "tasks.h"

#include <signal.h>

#define TASK_PAD '\n' // the byte padding a row after its example (never scored, never attended to)
#define TASK_PACK_ROW 4 // train --pack: rows default to this many times the longest example

typedef struct {
    TaskSet set;
    int ntrain;       // examples [0, ntrain) train, [ntrain, set.n) validate
} TaskData;

void taskdata_load(TaskData *d, const char *train_path);
void taskdata_free(TaskData *d);
// one example into row tok/tgt (T each): its bytes, padding, targets on the answer only
void task_row(const TaskExample *x, int T, int *tok, int *tgt);
// B random training examples and their positions (rng: the trainer's data order): positions
// 0..T-1, or with rand_max > 0 each example at sorted distinct draws from [0, rand_max) as many
// as its own bytes (Ruoss et al. 2023: an n-token example gets n draws, as `task eval
// --positions random` gives a test example), the padding after it at its last position;
// len (B, NULL for none) gets each row's example length, for packing (pack.h)
void task_draw(const TaskData *d, Rng *rng, int B, int T, int rand_max, int *tok, int *tgt, int *pos, int *len);
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
