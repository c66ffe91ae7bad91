// task_eval.h - greedy decoding of a task's test examples (`posgpt task eval`, and `train
// --until-acc`'s held-out accuracy at eval points), scored two ways (docs/tasks.md), both over
// the answer's scored bytes: the whole answer, or with a scratch format (task gen --format
// scratch) its final answer alone, the bytes after the answer's last '=' through its ';'
// (task_scored_from); the running values before it are decoded but not scored:
//   exact match: every scored byte is the expected one;
//   per-token accuracy: of the scored bytes, the fraction the model wrote at the same place;
//   the model's k-th byte is compared with the answer's k-th, decoding stops at the model's own
//   ';' or after as many bytes as the answer has, and the answer's bytes past a stop the model
//   made early count as wrong.
#ifndef POSGPT_TASK_EVAL_H
#define POSGPT_TASK_EVAL_H

#include "gpt.h"
#include "tasks.h"

#include <stdint.h>
#include <stdio.h>

typedef struct {
    int batch;        // examples decoded together (the answers do not depend on it)
    int rand_max;     // > 0: each example at sorted random positions from [0, rand_max)
    uint64_t seed;    // their draws: from (seed, the example's line) alone
    FILE *outputs;    // NULL, or every example with the model's answer (test.txt's format)
    int final_only;   // score the final answer alone (task_decode_final_only)
} TaskDecode;

// where x's scored bytes start in its answer: 0, or with final_only the byte after its last '='
int task_scored_from(const TaskExample *x, int final_only);
// 1 when a task directory's answers are scored by their final answer alone (its format is scratch)
int task_decode_final_only(const TaskSpec *spec);

// decodes the examples which[0..n) of set (indices into set->ex; reordered in place by prompt
// length); right[k] gets 1 when example k is exactly right, tok_right[k] its scored bytes right
void task_decode(const GPT *m, const TaskSet *set, int *which, int n, const TaskDecode *o, char *right, int *tok_right);
// train --until-acc: the fixed held-out sample, the first TASK_LEARN_PER_LEN examples of each
// length 1..max_len in test.txt's order; *which gets their indices (malloc'd), returns how many
#define TASK_LEARN_PER_LEN 32
int task_learn_sample(const TaskSet *test, int max_len, int **which);
int task_eval(int argc, char **argv);
#endif
