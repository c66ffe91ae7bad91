// ckpt.h - checkpoint files: header (magic, version, full model and scheme config, training
// state), then float32 parameters and optionally the AdamW moments. Layout byte by byte:
// docs/checkpoint.md. Writes are atomic (temp file, fsync, rename); reads check magic,
// version, sizes and a CRC32 of the payload, and say which check failed.
#ifndef POSGPT_CKPT_H
#define POSGPT_CKPT_H

#include "fileio.h"
#include "gpt.h"
#include "optim.h"

#define CKPT_MAGIC "POSGPTCK"
#define CKPT_VERSION 5 // reads 1 (no run record), 2 (scheme tensors shared by all layers), 3 (no layout) and 4
                       // (no gradient shards: 1) too
#define CKPT_PATH_BYTES 320
#define CKPT_HEADER_BYTES 1024

// What a run trains on and how it validates and logs, so that `train --resume DIR` alone
// continues it as it was (format v2; a v1 checkpoint has none: data_bytes == 0).
typedef struct {
    char data[CKPT_PATH_BYTES], val[CKPT_PATH_BYTES]; // absolute paths; "" = too long to record / no --val
    uint64_t data_bytes, val_bytes; // file sizes; val_bytes 0 = held out from --data
    uint32_t data_crc, val_crc;     // CRC-32 of the contents
    int eval_every, ckpt_every, log_every, skip_nonfinite;
    int task;                       // the data is a task's train.txt (train --task): answers scored only
    int pack;                       // with task: each step's examples packed into rows (train --pack; pack.h)
    int fresh;                      // with task: the training examples are made fresh each step (task_batch.h)
    int keep_every;                 // 0, or model-STEP.bin kept every N steps (train --keep-every)
    double until_acc;               // with task: 0, or stop once the held-out exact match reaches it (train --until-acc)
    uint32_t learn_crc;             // with until_acc: CRC-32 of the file its check reads (the task's val.txt, or test.txt
                                    // before the split); 0 = not recorded (a file written before it; a CRC of 0 goes unchecked)
    int after_learn;                // with until_acc: go on this many steps after it is reached (train --after-learn; 0: stop there)
    long val_tokens;
} RunRecord;

typedef struct {
    double lr, min_lr_frac, wd, beta1, beta2, eps, clip;
    int warmup, steps, batch;
    uint64_t seed;
    int rand_max;   // > 0: training positions are sorted random draws from [0, rand_max)
                    // (Ruoss et al. 2023); 0: contiguous 0..T-1
    int grad_shards; // the steps' gradients are summed over this many shards of the batch (train/shards.h)
    long step;      // optimizer steps done
    Rng rng;        // trainer RNG (data order, random positions) after `step` steps
    double val_loss; // last validation loss (NaN if none)
    double pos_lr_mult; // the position scheme's tensors learn at this times the rate (train --pos-lr-mult; 1: as the rest)
    long learned_step;  // train --until-acc: the step whose held-out exact match first reached it (the run ends there, or
                        // --after-learn steps later); 0: not yet
    int bf16;       // the products' inputs are bfloat16 (train --precision bf16); 0: float32
    int val_pending; // a signal cut the validation (and --until-acc's check) of this step short: a resume does it first
    RunRecord run;
    int version;     // format of the file it was read from (set by ckpt_read)
} TrainState;

// Write atomically (temporary file, fsync, rename). opt may be NULL (no optimizer state
// stored). ckpt_try_save returns -1 with a one-line reason in err (the file on disk is
// then the old one, untouched); ckpt_save dies with it.
int ckpt_try_save(const char *path, const GPT *m, const TrainState *ts, const AdamW *opt, char *err, size_t errlen);
void ckpt_save(const char *path, const GPT *m, const TrainState *ts, const AdamW *opt);
// Read the header, build m (gpt_build) and load its parameters; if opt is non-NULL and the
// file has optimizer state, fill it (with the file's betas, eps and weight decay), else
// leave opt->mom NULL.
// Exits with a one-line error if the file cannot be used.
void ckpt_load(const char *path, GPT *m, TrainState *ts, AdamW *opt);
// The same from an open stream, returning -1 with a one-line reason in err instead of exiting
// (everything allocated is freed); `name` is used in messages. For tools and the fuzz test.
int ckpt_read(FILE *f, const char *name, GPT *m, TrainState *ts, AdamW *opt, char *err, size_t errlen);
#endif
