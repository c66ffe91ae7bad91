// train.h - what `posgpt train` was asked (TrainArgs), and the rules that reconcile the flags
// with a run being resumed or a checkpoint being started from (settings.c).
#ifndef POSGPT_TRAIN_H
#define POSGPT_TRAIN_H

#include "args.h"
#include "ckpt.h"
#include "data.h"

typedef struct {
    const char *data, *val, *task, *out, *pos, *positions, *pos_sharing, *resume, *init_from, *rope_scaling;
    const char *precision; // fp32 | bf16 (the products' inputs)
    int seq_len, layers, d_model, heads, batch, steps, warmup, rand_max, max_pos;
    int eval_every, ckpt_every, log_every, threads, stop_at, skip_nonfinite, overwrite, keep_optimizer, grad_shards, pack;
    int keep_every;     // 0, or keep model-STEP.bin every N steps
    const char *task_examples; // --task-examples fresh|file (NULL: fresh for a new run, the run's own on resume)
    int fresh;          // the task's training examples are made fresh each step (resolved from task_examples)
    double pos_lr_mult; // the position scheme's tensors learn at this times --lr
    double until_acc;   // with --task: 0, or stop at the eval point whose held-out exact match reaches it
    int after_learn;    // with until_acc: train this many steps more after that eval point (0: stop there)
    int randomized; // --pos randomized (sinusoidal at random positions)
    long val_tokens;
    double lr, min_lr_frac, wd, beta1, beta2, eps, clip, rope_factor;
    long seed;
} TrainArgs;

// where fixed settings come from, for messages: a run directory being resumed, or a
// checkpoint a new run starts from (--init-from: the model is fixed, training settings new)
typedef struct {
    const char *where;
    int init_from;
} Origin;

// model flags given with --resume or --init-from must agree with the checkpoint's model
void settings_check_model(const Origin *o, const TrainArgs *a, const HyperArgs *hyp, const GPT *m, const TrainState *ts);
// every flag given on resume that names a setting of the run must agree with it
void settings_check_resume(const Origin *o, const TrainArgs *a, const HyperArgs *hyp, const GPT *m, const TrainState *ts);
// the run record of a new run (or of a v1 run being resumed): absolute paths where they fit
void settings_record_run(RunRecord *r, const TrainArgs *a, const Corpus *corpus);
// a resumed run reads the text it trained on: same size and CRC-32 as recorded
void settings_check_text(const Origin *o, const TrainArgs *a, const Corpus *corpus, const RunRecord *r);
#endif
