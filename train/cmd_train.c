// cmd_train.c - `posgpt train`: AdamW with linear warmup and cosine decay, gradient
// clipping, periodic validation and checkpoints, a progress line, and a run directory with
// config.txt, log.csv and model.bin. --resume DIR continues a run from its checkpoint;
// --init-from CKPT starts a new run from a checkpoint's weights.
// cmd_train is the driver: set up a run (new, resumed or from a checkpoint), read its text,
// open its log, train, finish. Run-directory housekeeping is rundir.c, the rules for flags
// against a resumed run settings.c, the optimizer model/optim.c.
#include "ckpt.h"
#include "cli.h"
#include "dist.h"
#include "evaluate.h"
#include "fileio.h"
#include "layers.h"
#include "positions.h"
#include "progress.h"
#include "rundir.h"
#include "shards.h"
#include "summary.h"
#include "task_batch.h"
#include "task_eval.h"
#include "train.h"

#include <errno.h>
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// SIGINT, SIGTERM, SIGHUP: finish the step under way, save it, exit 128 + the signal
static volatile sig_atomic_t g_stop;
static void on_signal(int sig) { g_stop = sig; }
static const char *signame(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal"; }

// everything one training run holds
typedef struct {
    TrainArgs a;
    HyperArgs hyp;
    GPT m;
    TrainState ts;
    AdamW opt;
    Corpus corpus;    // the training text (with --task: train.txt, read for its identity)
    TaskData tasks;   // --task: the examples
    int task;
    TaskSet learn_test, learn; // --until-acc: the task's test.txt, and the sample of it scored (task_learn_sample)
    int learn_len;    // --until-acc: the training lengths 1..learn_len (task.txt's max_len)
    int learn_final;  // --until-acc: the final answers alone are scored (a scratch format; task_eval.h)
    const char *learn_file; // --until-acc: the file the sample is drawn from (val.txt, or test.txt before the split)
    uint32_t learn_crc;     // --until-acc: its CRC-32 (recorded in the checkpoint; a resumed run's must match)
    int learned_lost;       // --after-learn: a resumed run's model-learned.bin is missing or damaged
    int pending_last;       // a resumed run's pending validation is at its last step (before any --steps extension)
    int has_pending_row;    // a resumed run's pending validation: log.csv's row of that step, to write again with it
    LogRow pending_row;
    char dir[4096], ckpt_path[4200], log_path[4200];
    FILE *logf;
    long last_ckpt;   // step of the checkpoint on disk (-1: none yet)
    int log_err;      // errno of a failed log write (the loop stops, the step is saved)
    int val_cut;      // a signal cut a validation short
    int lead;         // 1 on the process that writes (rank 0 of an MPI run; the only one otherwise)
    Shards sh;        // the step's gradient, in shards (one, unless --grad-shards or MPI)
    double tokens;    // tokens trained on by this invocation (a task's: its examples' bytes, no padding)
    LogRow last;      // log.csv's last row (for summary.json)
} Run;

// the step the run ends at: --steps, or once learned (--until-acc) that step, or --after-learn
// steps after it (which may pass --steps)
static long run_end(const TrainState *ts) {
    return ts->learned_step ? ts->learned_step + ts->run.after_learn : ts->steps;
}

// --until-acc's held-out check is due at this step: an eval point, or the run's last step
static int learn_check_due(const TrainState *ts, const TrainArgs *a) {
    return a->until_acc > 0 && (ts->step % a->eval_every == 0 || ts->step == run_end(ts));
}

static double lr_at(const TrainState *ts, long step) {
    // --after-learn's steps: the schedule's floor, whatever step the run learned at
    if (ts->learned_step && ts->run.after_learn && step >= ts->learned_step) return ts->lr * ts->min_lr_frac;
    // linear warmup over `warmup` steps, then cosine decay to min_lr_frac * lr at the last step
    if (step < ts->warmup) return ts->lr * (double)(step + 1) / ts->warmup;
    double span = ts->steps - ts->warmup;
    double p = span > 0 ? (double)(step - ts->warmup) / span : 1.0;
    double lo = ts->lr * ts->min_lr_frac;
    return lo + 0.5 * (1.0 + cos(3.141592653589793 * p)) * (ts->lr - lo);
}

// windows per validation pass at length T
static int val_batch(int T) { return 8192 / T > 0 ? 8192 / T : 1; }

static int packed(const Run *r) { return r->task && (r->ts.run.pack || r->a.pack); }

// the length of a training row: T, or a packed run's TASK_PACK_ROW x T (the model's context,
// what its positions reach, stays T: the longest example by default)
static int row_len(const Run *r) { return packed(r) ? TASK_PACK_ROW * r->m.cfg.T : r->m.cfg.T; }

// the rows one shard's forward needs: its examples, or packed (--pack) with k = the row length
// / the longest example to a row at least: first fit opens a row only when every open row is
// too full for an example of up to `longest` bytes, i.e. holds k already (pack.h)
static int shard_rows(const Run *r) {
    int Bs = r->ts.batch / r->ts.grad_shards;
    if (!packed(r)) return Bs;
    int k = row_len(r) / r->tasks.longest;
    return (Bs + k - 1) / k;
}

// validation's row length: a task's longest example (its padding is never scored), or T
static int val_len(const Run *r) { return r->task ? r->tasks.longest : r->m.cfg.T; }

// training's activations (the attention maps grow as batch x layers x heads x T^2) and
// validation's, on top of the parameters, gradients and moments: refused with the estimate
// before anything is allocated or written, rather than killed part-way
static void check_train_memory(const Run *r) {
    const GPT *m = &r->m;
    const GPTConfig *c = &m->cfg;
    int nt = omp_get_max_threads(), T = row_len(r), B = shard_rows(r), Tv = val_len(r);
    double need = gpt_alloc_bytes(c, B, T, 1, nt) + gpt_alloc_bytes(c, val_batch(Tv), Tv, 0, nt) + 4.0 * sizeof(real) * m->num_params;
    char what[128];
    if (packed(r)) snprintf(what, sizeof what, "training at --batch %d --seq-len %d (packed into rows of %d)", r->ts.batch, c->T, T);
    else snprintf(what, sizeof what, "training at --batch %d --seq-len %d", r->ts.batch, T);
    require_memory(need, what, "lower --batch or --seq-len (or the model's size)");
}

// the task's directory: the one of its train.txt (--data)
static void task_dir(const Run *r, char *dir, size_t n) {
    snprintf(dir, n, "%s", r->a.data);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0; // DIR/train.txt -> DIR
    else snprintf(dir, n, ".");
}

// the resolved configuration, "key = value" lines (config.txt; summary.json's "config")
static void print_config(FILE *f, const Run *r) {
    const GPT *m = &r->m;
    const GPTConfig *c = &m->cfg;
    const TrainState *ts = &r->ts;
    const TrainArgs *a = &r->a;
    const PosScheme *s = gpt_scheme(m, 0)->scheme;
    char label[64];
    fprintf(f, "# posgpt %s resolved training configuration\n", POSGPT_VERSION);
    fprintf(f, "scheme = %s\npos = %s\npos_sharing = %s\n", run_label(c->scheme, ts->rand_max, label, sizeof label), c->scheme,
            pos_sharing_name(c->scheme_sharing));
    for (int i = 0; i < POS_MAX_HYPER && s->hypers[i].name; i++) fprintf(f, "%s = %g\n", s->hypers[i].name, c->scheme_hp[i]);
    fprintf(f, "pos_rows = %d\npositions = %s\nrand_max = %d\n", c->pos_rows, ts->rand_max ? "random" : "contiguous", ts->rand_max);
    if (c->ext_method[0])
        fprintf(f, "rope_scaling = %s\nrope_factor = %g\nrope_from_len = %d\n", c->ext_method, c->ext_factor, c->ext_train_len);
    if (r->task) {
        char dir[4200];
        task_dir(r, dir, sizeof dir); // (a resumed run has no --task: the directory of its recorded train.txt)
        fprintf(f, "data = %s\ntask = %s\nlongest_example = %d\n", a->data, a->task ? a->task : dir, r->tasks.longest);
        if (ts->run.pack)
            fprintf(f, "pack = yes (rows of %d x seq_len = %d bytes; each but a shard's last holds %d examples at least)\n",
                    TASK_PACK_ROW, row_len(r), row_len(r) / r->tasks.longest);
        else fprintf(f, "pack = no\n");
        if (r->tasks.fresh) fprintf(f, "examples = fresh (made every step from task.txt: %s, lengths 1..%d; none a test example)\n",
                                    r->tasks.spec.task->name, r->tasks.spec.max_len);
        else fprintf(f, "examples = file (drawn from the first %d of train.txt)\n", r->tasks.ntrain);
        fprintf(f, "val = (the last %d examples)\n", r->tasks.set.n - r->tasks.ntrain);
        if (ts->run.until_acc > 0)
            fprintf(f, "until_acc = %g\nuntil_acc_sample = the first %d examples of %s of each length 1..%d (%d examples, greedy)\n"
                    "after_learn = %d\n", ts->run.until_acc, TASK_LEARN_PER_LEN, r->learn_file, r->learn_len, r->learn.n,
                    ts->run.after_learn);
    }
    else fprintf(f, "data = %s\nval = %s\n", a->data, a->val ? a->val : "(last 10% of data)");
    fprintf(f, "seq_len = %d\nlayers = %d\nd_model = %d\nheads = %d\nvocab = %d\n", c->T, c->L, c->C, c->NH, c->V);
    fprintf(f, "params = %zu\nbatch = %d\nsteps = %d\nwarmup = %d\n", m->num_params, ts->batch, ts->steps, ts->warmup);
    fprintf(f, "lr = %g\nmin_lr_frac = %g\nweight_decay = %g\nbeta1 = %g\nbeta2 = %g\neps = %g\nclip = %g\nseed = %llu\n",
            ts->lr, ts->min_lr_frac, ts->wd, ts->beta1, ts->beta2, ts->eps, ts->clip, (unsigned long long)ts->seed);
    fprintf(f, "eval_every = %d\nval_tokens = %ld\nckpt_every = %d\n", a->eval_every, a->val_tokens, a->ckpt_every);
    fprintf(f, "keep_every = %d\npos_lr_mult = %g\nprecision = %s\n", a->keep_every, ts->pos_lr_mult, ts->bf16 ? "bf16" : "fp32");
    if (a->init_from)
        fprintf(f, "init_from = %s\noptimizer = %s\n", a->init_from, a->keep_optimizer ? "the checkpoint's moments" : "fresh");
}

static void write_config(const char *path, const Run *r) {
    OutFile o;
    FILE *f = out_open(&o, path, "configuration");
    print_config(f, r);
    out_commit(&o);
}

// config.txt's text in memory (summary.json's "config"; the MPI start check's first lines):
// *text is malloc'd and complete once the stream is closed
static FILE *config_stream(const Run *r, char **text, size_t *n) {
    *text = NULL;
    FILE *m = open_memstream(text, n);
    if (!m) die("out of memory");
    print_config(m, r);
    return m;
}
static char *config_text(const Run *r) {
    char *text;
    size_t n;
    if (fclose(config_stream(r, &text, &n)) != 0) die("out of memory");
    return text;
}

// DIR/summary.json (summary.h)
static void write_summary(const Run *r, const char *status, double wall) {
    char label[64], *config = config_text(r);
    RunSummary s = {.status = status, .scheme = run_label(r->m.cfg.scheme, r->ts.rand_max, label, sizeof label), .config = config,
                    .step = r->ts.step, .steps = r->ts.steps, .val_loss = r->ts.val_loss, .last = &r->last, .wall = wall,
                    .tokens = r->tokens, .until_acc = r->ts.run.until_acc, .learned_step = r->ts.learned_step,
                    .after_learn = r->ts.run.after_learn};
    summary_write(r->dir, &s);
    free(config);
}

// ---- set-up ----
// --keep-every and --pos-lr-mult: values a run can use (a resumed run's are checked once its
// own --ckpt-every is known: open_resumed)
static void check_study_flags(const TrainArgs *a) {
    if (a->pos_lr_mult <= 0) die("--pos-lr-mult must be > 0, got %g (1 = the scheme's tensors learn at --lr like the rest)", a->pos_lr_mult);
    if (!args_given("keep-every")) return;
    if (a->keep_every <= 0)
        die("--keep-every must be a positive number of steps, got %d (leave it out to keep no snapshots)", a->keep_every);
    if (!a->resume && a->keep_every > a->steps)
        die("--keep-every %d is beyond --steps %d: no copy would be kept; give at most %d (or leave it out)", a->keep_every,
            a->steps, a->steps);
    if (!a->resume && a->keep_every % a->ckpt_every)
        die("--keep-every %d is not a multiple of --ckpt-every %d: each kept model-STEP.bin is a copy of a checkpoint the run "
            "saves; give a multiple of %d (or change --ckpt-every)", a->keep_every, a->ckpt_every, a->ckpt_every);
}

// --pos-lr-mult scales the scheme's own tensors: refused where there are none
static void check_pos_lr_mult(const Run *r) {
    if (r->a.pos_lr_mult != 1 && !r->m.sizes[P_SCHEME])
        die("--pos-lr-mult %g: scheme '%s' has no parameters of its own (its positions are a fixed function of the distance "
            "or the index), so there is nothing to scale; drop the flag", r->a.pos_lr_mult, r->m.cfg.scheme);
}

// a kept snapshot's path: model-STEP.bin beside model.bin
static void kept_path(const Run *r, long step, char *path, size_t n) { snprintf(path, n, "%s/model-%ld.bin", r->dir, step); }

// the checkpoint of the step just completed: first the kept copy (--keep-every; atomic like
// model.bin), then model.bin, so a kept file is never ahead of the checkpoint a resume starts
// from (one saved before a crash is written again, the same, when the run repeats the step)
static int save_checkpoints(Run *r, char *err, size_t n) {
    int keep = r->ts.run.keep_every;
    char path[4300];
    if (keep && r->ts.step % keep == 0) {
        kept_path(r, r->ts.step, path, sizeof path);
        if (ckpt_try_save(path, &r->m, &r->ts, &r->opt, err, n)) return -1;
    }
    // --after-learn: the model that reached --until-acc (learned step 0: not learned yet)
    if (r->ts.run.after_learn && r->ts.learned_step > 0 && r->ts.learned_step == r->ts.step) {
        snprintf(path, sizeof path, "%s/model-learned.bin", r->dir);
        if (ckpt_try_save(path, &r->m, &r->ts, &r->opt, err, n)) return -1;
    }
    return ckpt_try_save(r->ckpt_path, &r->m, &r->ts, &r->opt, err, n);
}

static void parse_args(int argc, char **argv, TrainArgs *a, HyperArgs *hyp) {
    *a = (TrainArgs){.positions = "contiguous", .pos_sharing = "paper", .seq_len = 128, .layers = 4,
                     .d_model = 128, .heads = 4, .batch = 32, .steps = 2000, .warmup = -1, .eval_every = 200,
                     .ckpt_every = 500, .log_every = 10, .val_tokens = 65536, .lr = 1e-3, .min_lr_frac = 0.1, .wd = 0.1,
                     .beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .clip = 1.0, .seed = 1, .pos_lr_mult = 1, .precision = "fp32"};
    static char pos_help[600];
    snprintf(pos_help, sizeof pos_help, "position scheme (required for a new run; --resume and --init-from keep the "
             "checkpoint's): %s, or randomized (= sinusoidal --positions random)", pos_names());
    ArgDef defs[] = {
        {"data", ARG_STR, &a->data, "training text (any file; tokens are bytes)"},
        {"val", ARG_STR, &a->val, "held-out text (default: the last 10% of --data)"},
        {"task", ARG_STR, &a->task, "train on a task's examples instead (posgpt task gen): DIR/train.txt, the answers scored only; "
                                    "--seq-len defaults to the longest example"},
        {"until-acc", ARG_FLOAT, &a->until_acc, "with --task: train until learned, --steps the cap: at each validation, greedy "
                                                 "exact match on DIR/val.txt (32 examples of each training length 1..L, apart from the "
                                                 "test set; a task made before the split: test.txt's first 32 a length); the run ends "
                                                 "at the first that reaches this (0 < A <= 1)", 1, 0},
        {"after-learn", ARG_INT, &a->after_learn, "with --until-acc: train N steps more after the check that reached it, "
                                                   "at the schedule's floor lr (--lr x --min-lr-frac), past --steps if need be, keeping "
                                                   "the model of that check as model-learned.bin (default 0: stop there); the run keeps it",
                                                   0, 1 << 30},
        {"pack", ARG_FLAG, &a->pack, "with --task: pack each step's examples into rows of 4 x --seq-len, first fit, each example "
                                     "attending to its own bytes at its own positions: the gradient of one example a row, up to "
                                     "rounding, in fewer positions; the run keeps it"},
        {"task-examples", ARG_STR, &a->task_examples, "with --task: fresh (default: new examples from the generator every "
                                                       "step, none a test example) | file (drawn from DIR/train.txt); the run keeps it"},
        {"out", ARG_STR, &a->out, "run directory (default: out/<scheme>-<seq-len>, under the working directory)"},
        {"resume", ARG_STR, &a->resume, "continue the run in this directory from its model.bin"},
        {"init-from", ARG_STR, &a->init_from, "start a new run from this checkpoint's weights (same model; new --seq-len, --steps, --lr, ...)"},
        {"keep-optimizer", ARG_FLAG, &a->keep_optimizer, "with --init-from: start from its AdamW moments too (default: fresh)"},
        {"rope-scaling", ARG_STR, &a->rope_scaling, "rotary schemes: train with a context extension in force (pi | ntk | yarn), e.g. "
                                                    "fine-tuning an --init-from model at a longer --seq-len (Chen et al. 2023); "
                                                    "the checkpoint keeps it, so eval, sample and task eval apply it too"},
        {"rope-factor", ARG_FLOAT, &a->rope_factor, "its scale factor s; 0 = --seq-len / the length the model was trained at", 0, 1e6},
        {"pos", ARG_STR, &a->pos, pos_help},
        {"pos-sharing", ARG_STR, &a->pos_sharing, "the scheme's learned tensors: paper (as its paper does) | shared (one for all layers) | layer (one per layer)"},
        {"positions", ARG_STR, &a->positions, "contiguous | random (randomized positions, Ruoss et al. 2023: sorted draws from [0, --rand-max))"},
        {"rand-max", ARG_INT, &a->rand_max, "random positions: drawn from [0, N); 0 = 16 x seq-len", 0, 1 << 24},
        {"max-pos", ARG_INT, &a->max_pos, "rows of a learned table; 0 = seq-len (or rand-max)", 0, 1 << 24},
        {"seq-len", ARG_INT, &a->seq_len, "training context length T", 1, 1 << 20},
        {"layers", ARG_INT, &a->layers, "transformer blocks", 1, 1024},
        {"d-model", ARG_INT, &a->d_model, "model width", 1, 65536},
        {"heads", ARG_INT, &a->heads, "attention heads (must divide d-model)", 1, 65536},
        {"batch", ARG_INT, &a->batch, "sequences per step", 1, 1 << 20},
        {"steps", ARG_INT, &a->steps, "optimizer steps", 1, 1 << 30},
        {"lr", ARG_FLOAT, &a->lr, "peak learning rate", 0, 10},
        {"pos-lr-mult", ARG_FLOAT, &a->pos_lr_mult, "the position scheme's own tensors (T5's table, FIRE's MLP, ...) learn at this "
                                                     "times the rate; schemes with none take only 1", 0, 1e6},
        {"min-lr-frac", ARG_FLOAT, &a->min_lr_frac, "cosine decays to this fraction of --lr", 0, 1},
        {"warmup", ARG_INT, &a->warmup, "linear warmup steps; -1 = 5% of --steps", -1, 1 << 30},
        {"wd", ARG_FLOAT, &a->wd, "AdamW weight decay (matrices only)", 0, 10},
        {"beta1", ARG_FLOAT, &a->beta1, "AdamW beta1", 0, 0.999999},
        {"beta2", ARG_FLOAT, &a->beta2, "AdamW beta2", 0, 0.999999},
        {"eps", ARG_FLOAT, &a->eps, "AdamW epsilon", 1e-30, 1},
        {"clip", ARG_FLOAT, &a->clip, "clip the global gradient norm to this (0 = off)", 0, 1e9},
        {"seed", ARG_LONG, &a->seed, "seed for init, data order and random positions", 0, 9e18},
        {"eval-every", ARG_INT, &a->eval_every, "validation every N steps (and at the end)", 1, 1 << 30},
        {"val-tokens", ARG_LONG, &a->val_tokens, "validation scores the first N held-out tokens (0 = all)", 0, 1e15},
        {"ckpt-every", ARG_INT, &a->ckpt_every, "checkpoint every N steps (and at the end)", 1, 1 << 30},
        {"keep-every", ARG_INT, &a->keep_every, "also keep a copy of the checkpoint every N steps as model-STEP.bin (a multiple "
                                                "of --ckpt-every; default: none)", -(1 << 30), 1 << 30},
        {"log-every", ARG_INT, &a->log_every, "CSV log / plain progress line every N steps", 1, 1 << 30},
        {"threads", ARG_INT, &a->threads, "threads (0 = OpenMP's own count: OMP_NUM_THREADS, else one per core; per process under MPI)", 0, 4096},
        {"grad-shards", ARG_INT, &a->grad_shards, "cut each step's batch into N shards whose gradients are summed in one fixed order "
                                                  "(a power of two; 0 = 1, or the process count under MPI): the same N gives the same "
                                                  "bits on any number of processes", 0, SHARDS_MAX},
        {"precision", ARG_STR, &a->precision, "the matrix products' inputs: fp32 | bf16 (rounded to bfloat16, summed in fp32; "
                                              "weights, gradients and AdamW state stay fp32; validation runs in fp32; needs a CPU "
                                              "with AVX512-BF16 or AMX; the run keeps it)"},
        {"skip-nonfinite", ARG_FLAG, &a->skip_nonfinite, "skip a step whose loss or gradient is not finite, instead of stopping"},
        {"overwrite", ARG_FLAG, &a->overwrite, "start a new run even if --out holds one (its checkpoint and log are replaced)"},
        {"stop-at", ARG_INT, &a->stop_at, "stop after this step with a checkpoint (continue later with --resume); 0 = run to the end", 0, 1 << 30},
        {NULL}};
    *hyp = (HyperArgs){0};
    args_parse(argc, argv, 2, defs, hyp, "train", "--data FILE [flags]", NULL, 0);
    if (a->pos && !strcmp(a->pos, "randomized")) { // randomized positions (Ruoss et al. 2023) over a sinusoidal base
        if (args_given("positions") && strcmp(a->positions, "random"))
            die("--pos randomized trains at random positions; it contradicts --positions %s", a->positions);
        a->pos = "sinusoidal", a->positions = "random", a->randomized = 1;
    }
    if (strcmp(a->positions, "contiguous") && strcmp(a->positions, "random"))
        die("--positions must be contiguous or random, got '%s'", a->positions);
    if (pos_sharing_parse(a->pos_sharing) < 0) die("--pos-sharing must be paper, shared or layer, got '%s'", a->pos_sharing);
    if (args_given("rand-max") && strcmp(a->positions, "random") && !a->resume && !a->init_from)
        die("--rand-max applies only with --positions random");
    if (a->resume && (a->init_from || a->keep_optimizer))
        die("--init-from starts a new run from a checkpoint's weights; --resume continues a run: give one of them");
    if (a->keep_optimizer && !a->init_from) die("--keep-optimizer applies only with --init-from");
    if (a->pack && !a->task && !a->resume) die("--pack packs a task's examples into rows: it applies only with --task");
    if (a->task_examples && strcmp(a->task_examples, "fresh") && strcmp(a->task_examples, "file"))
        die("--task-examples must be fresh or file, got '%s'", a->task_examples);
    if (a->task_examples && !a->task && !a->resume) die("--task-examples says where a task's training examples come from: it applies only with --task");
    check_study_flags(a);
    if (args_given("until-acc") && !(a->until_acc > 0 && a->until_acc <= 1)) // (the range checked here: 0 is out)
        die("--until-acc must be in (0, 1] (an exact-match accuracy, e.g. 0.9), got %g", a->until_acc);
    if (args_given("until-acc") && !a->task && !a->resume)
        die("--until-acc stops when a task is learned (held-out exact match): it applies only with --task");
    if (args_given("after-learn") && !args_given("until-acc") && !a->resume)
        die("--after-learn N trains N steps more once --until-acc is reached: give --until-acc too");
    if (precision_parse(a->precision) && !a->resume) require_bf16_cpu("--precision bf16", "drop the flag to train in fp32");
    if (a->task) {
        static char path[4200];
        if (a->data || a->val) die("--task DIR trains on DIR/train.txt: drop --data and --val");
        snprintf(path, sizeof path, "%s/train.txt", a->task);
        a->data = path;
    }
}


// --after-learn, on resume past the learned step: model-learned.bin holds the model of that step
// (a checkpoint of it); if not (deleted, damaged, replaced), say so: it cannot be made again
static void check_learned_model(Run *r) {
    char path[4300], err[4400];
    snprintf(path, sizeof path, "%s/model-learned.bin", r->dir);
    struct stat st;
    int exists = stat(path, &st) == 0, regular = exists && S_ISREG(st.st_mode); // (a FIFO would block the open)
    FILE *f = regular ? fopen(path, "rb") : NULL;
    int open_errno = errno;
    GPT m = {0};
    TrainState ts;
    int bad = !f || ckpt_read(f, path, &m, &ts, NULL, err, sizeof err);
    if (exists && !regular) snprintf(err, sizeof err, "'%s' is not a regular file", path);
    else if (!f) snprintf(err, sizeof err, "cannot open '%s': %s", path, strerror(open_errno));
    if (f) fclose(f);
    if (!bad) { // read: the model is built (freed here whichever step it holds)
        gpt_free(&m);
        if (ts.step == r->ts.learned_step) return;
        snprintf(err, sizeof err, "'%s' is the model of step %ld, not of the learned step %ld", path, ts.step, r->ts.learned_step);
    }
    r->learned_lost = 1;
    fprintf(stderr, "warning: %s; the model of the learned step is lost (it cannot be made again); the run goes on\n", err);
}

// --until-acc: the task's val.txt (test.txt before the split) beside its train.txt, and the sample scored at eval points,
// as task eval scores it (task.txt's spec: a scratch format's final answers)
static void load_learn_sample(Run *r) {
    char dir[4200], path[4300];
    task_dir(r, dir, sizeof dir);
    TaskSpec spec;
    task_spec_read(&spec, dir);
    r->learn_len = spec.max_len, r->learn_final = task_decode_final_only(&spec);
    // with the split (task.txt: split = hash) the validation class's val.txt, never scored by
    // task eval; a task from before the split: test.txt
    r->learn_file = spec.split ? "val.txt" : "test.txt";
    snprintf(path, sizeof path, "%s/%s", dir, r->learn_file);
    taskset_read(&r->learn_test, path);
    r->learn_crc = r->learn_test.crc;
    int *which, n = task_learn_sample(&r->learn_test, r->learn_len, &which);
    if (!n) die("--until-acc: '%s' holds no example of the training lengths 1..%d", path, r->learn_len);
    TaskSet *l = &r->learn;
    *l = (TaskSet){.ex = xmalloc((size_t)n * sizeof(TaskExample)), .n = n};
    for (int i = 0; i < n; i++) {
        l->ex[i] = r->learn_test.ex[which[i]];
        int tot = l->ex[i].nprompt + l->ex[i].nanswer;
        l->max_total = tot > l->max_total ? tot : l->max_total;
    }
    free(which);
}

// --until-acc: the exact match of the sample now, greedy, at the run's positions (random ones:
// the same draws every time, from seed 1 and the example, as validation's)
static double learn_accuracy(const Run *r) {
    const TaskSet *l = &r->learn;
    int *which = xmalloc((size_t)l->n * sizeof(int)), *tok = xmalloc((size_t)l->n * sizeof(int)), right = 0;
    char *ok = xmalloc((size_t)l->n);
    for (int i = 0; i < l->n; i++) which[i] = i;
    TaskDecode how = {64, r->ts.rand_max, 1, NULL, r->learn_final};
    task_decode(&r->m, l, which, l->n, &how, ok, tok);
    for (int i = 0; i < l->n; i++) right += ok[i];
    free(which), free(tok), free(ok);
    return (double)right / l->n;
}

// --until-acc: the sample decodes within the model's positions (a learned table's rows; at random
// positions, as many distinct draws as its longest example has bytes)
static void check_learn_fits(const Run *r) {
    if (!(r->a.until_acc > 0)) return;
    int lim = gpt_max_pos(&r->m), reach = r->ts.rand_max ? r->ts.rand_max : r->learn.max_total;
    if (r->ts.rand_max && r->learn.max_total > r->ts.rand_max)
        die("--until-acc: the longest held-out example of the training lengths has %d bytes, more than the %d random positions "
            "(--rand-max)", r->learn.max_total, r->ts.rand_max);
    if (lim && reach > lim)
        die("--until-acc: the longest held-out example of the training lengths has %d bytes; the '%s' model serves %d positions "
            "(give --max-pos %d or more)", r->learn.max_total, r->m.cfg.scheme, lim, reach);
}

// --task: the examples, and the row length they need (a new run's --seq-len defaults to it)
static void load_tasks(Run *r) {
    r->task = 1;
    if (args_given("val-tokens"))
        die("--val-tokens applies to text runs; a task run validates on all of its held-out examples (drop the flag)");
    taskdata_load(&r->tasks, r->a.data);
    const RunRecord *rec = &r->ts.run;
    r->a.fresh = r->a.resume ? rec->fresh : !r->a.task_examples || !strcmp(r->a.task_examples, "fresh");
    if (r->a.resume && r->a.task_examples && r->a.fresh != !strcmp(r->a.task_examples, "fresh"))
        die("--task-examples %s: the run in '%s' %s; drop the flag", r->a.task_examples, r->dir,
            rec->fresh ? "makes fresh examples every step" : "draws its examples from train.txt");
    if (r->a.fresh) {
        char dir[4200];
        task_dir(r, dir, sizeof dir);
        taskdata_fresh(&r->tasks, dir, r->a.resume ? r->ts.seed : (uint64_t)r->a.seed);
    }
    int need = r->tasks.longest;
    if (!r->a.resume && !args_given("seq-len")) r->a.seq_len = need;
    int T = r->a.resume ? r->m.cfg.T : r->a.seq_len;
    if (need > T) die("the longest example of '%s' has %d bytes; --seq-len %d is too short for it", r->a.data, need, T);
    if (r->a.until_acc > 0) load_learn_sample(r);
}

// the gradient shards: --grad-shards, else a resumed run's own when the processes can share
// them, else one per process; a change of a resumed run's count is said (the gradient's sums
// change order, so its losses may differ in the last digits from an uninterrupted run's)
static void choose_shards(Run *r, int stored) {
    int N = dist_size(), S = r->a.grad_shards ? r->a.grad_shards : stored ? stored : N;
    char err[300];
    if (!r->a.grad_shards && stored && shards_check(S, r->ts.batch, N, err, sizeof err)) S = N;
    if (shards_check(S, r->ts.batch, N, err, sizeof err)) die("%s", err);
    if (stored && S != stored && r->lead)
        fprintf(stderr, "note: the run summed each step's gradient over %d shard%s; from step %ld on, over %d%s (the sums change "
                "order, so the losses may differ in the last digits from a run that kept %d)\n", stored, stored > 1 ? "s" : "",
                r->ts.step, S, r->a.grad_shards ? " (--grad-shards)" : N > 1 ? ", one per process at least" : "", stored);
    r->ts.grad_shards = S;
}

// the run directory's files are never one of the run's inputs (--data, --val, --init-from)
static void refuse_run_overlap(const Run *r) {
    static const char *files[] = {"model.bin", "log.csv", "config.txt"};
    char out[3][4200], what[3][4300];
    NamedPath outs[3];
    for (int i = 0; i < 3; i++) {
        snprintf(out[i], sizeof out[i], "%s/%s", r->dir, files[i]);
        snprintf(what[i], sizeof what[i], "the run's %s (in %s)", files[i], r->a.resume ? "--resume" : "--out");
        outs[i] = (NamedPath){what[i], out[i]};
    }
    const TrainArgs *a = &r->a;
    refuse_overlaps(outs, 3, (NamedPath[]){{a->task ? "the task's train.txt" : "--data", a->data}, {"--val", a->val},
                                           {"the checkpoint --init-from", a->init_from}}, 3);
}

// --resume DIR --steps N, N more than the run's steps: the run goes on to step N (finished or
// not), its schedule re-stretched: lr_at with steps = N, i.e. the warmup as it was, then the
// cosine from the peak at the end of the warmup to the floor at step N. An extended run's lr
// at step s is the one an uninterrupted N-step run has there; its steps before the extension
// kept the old schedule's. A resume without --steps changes nothing (bit-identical).
static void extend_run(Run *r) {
    TrainState *ts = &r->ts;
    int old = ts->steps;
    if (r->a.steps == old) return;
    ts->steps = r->a.steps;
    if (r->lead)
        fprintf(stderr, "extending the run in '%s' from %d to %d steps: from step %ld on, the learning rate follows the cosine "
                "re-stretched to %d steps (%.3g now, down to %.3g at the last step)\n", r->dir, old, ts->steps, ts->step,
                ts->steps, lr_at(ts, ts->step), ts->lr * ts->min_lr_frac);
}

// --resume DIR: the run's model, optimizer and settings; flags may only repeat them
static void open_resumed(Run *r) {
    TrainArgs *a = &r->a;
    snprintf(r->dir, sizeof r->dir, "%s", a->resume);
    char path[4200];
    snprintf(path, sizeof path, "%s/model.bin", r->dir);
    struct stat st;
    if (stat(r->dir, &st) != 0 || !S_ISDIR(st.st_mode)) die("--resume %s: no such run directory", r->dir);
    if (r->lead) rundir_lock(r->dir); // before reading: another process may be writing the run
    if (stat(path, &st) != 0) die("--resume %s: the directory holds no checkpoint (model.bin); nothing to resume", r->dir);
    ckpt_load(path, &r->m, &r->ts, &r->opt);
    if (!r->opt.mom) die("'%s' holds no optimizer state, so the run cannot be resumed exactly", path);
    Origin o = {r->dir, 0};
    if (args_given("until-acc") && r->ts.run.data_bytes && !r->ts.run.task)
        die("--until-acc: the run in '%s' trained on text, not on a task; it stops when a task is learned", r->dir);
    if (r->ts.learned_step && r->ts.step >= run_end(&r->ts) && !r->ts.val_pending) {
        char more[96] = "";
        if (r->ts.run.after_learn)
            snprintf(more, sizeof more, ", and it trained the %d steps after it (--after-learn) to step %ld", r->ts.run.after_learn, r->ts.step);
        die("the run in '%s' already finished: its held-out exact match reached --until-acc %g at step %ld (of at most %d)%s",
            r->dir, r->ts.run.until_acc, r->ts.learned_step, r->ts.steps, more);
    }
    settings_check_resume(&o, a, &r->hyp, &r->m, &r->ts);
    if (r->lead && r->ts.learned_step && r->ts.run.after_learn) check_learned_model(r);
    if (a->out) {
        char *x = realpath(a->out, NULL), *y = realpath(r->dir, NULL);
        int same = x && y && !strcmp(x, y);
        free(x), free(y);
        if (!same) die("--out %s: a resumed run writes into its own directory ('%s'); drop --out", a->out, r->dir);
    }
    TrainState *ts = &r->ts;
    r->pending_last = ts->val_pending && ts->step == run_end(ts);
    if (args_given("steps") && ts->learned_step && a->steps != ts->steps)
        die("--steps %d: the run in '%s' learned at step %ld and ends --after-learn's %d steps later, at step %ld, whatever its "
            "--steps; drop --steps", a->steps, r->dir, ts->learned_step, ts->run.after_learn, run_end(ts));
    if (args_given("steps")) extend_run(r);
    // (--after-learn's steps may pass --steps; a validation a signal cut short is done first)
    if (ts->step >= ts->steps && !(ts->learned_step && ts->run.after_learn) && !ts->val_pending)
        die("the run in '%s' already finished (%ld of %d steps); extend it with --resume %s --steps N (N > %d)", r->dir, ts->step,
            ts->steps, r->dir, ts->steps);
    r->opt.pos_lr_mult = a->pos_lr_mult = ts->pos_lr_mult;
    if (ts->bf16) {
        char what[4300];
        snprintf(what, sizeof what, "--resume %s: the run trains with --precision bf16, which", r->dir);
        require_bf16_cpu(what, "resume it on a machine with one (a run keeps its precision)");
    }
    choose_shards(r, ts->grad_shards);
    if (a->stop_at && a->stop_at <= ts->step)
        die("--stop-at %d is not ahead of the run in '%s': it is at step %ld of %d", a->stop_at, r->dir, ts->step, ts->steps);
    const RunRecord *rec = &ts->run;
    if (rec->data_bytes) { // the run's own text and settings, unless the flags name the same ones
        if (!a->data && !rec->data[0]) die("--resume %s: the run's data path was too long to record; pass its --data", r->dir);
        if (!a->data) a->data = rec->data;
        if (rec->val_bytes && !a->val && !rec->val[0]) die("--resume %s: the run's --val path was too long to record; pass its --val", r->dir);
        if (rec->val_bytes && !a->val) a->val = rec->val;
        if (!rec->val_bytes && a->val)
            die("--val %s conflicts with the run in '%s', which held out the last 10%% of its --data", a->val, r->dir);
        a->eval_every = rec->eval_every, a->val_tokens = rec->val_tokens, a->ckpt_every = rec->ckpt_every;
        a->log_every = rec->log_every, a->skip_nonfinite = a->skip_nonfinite || rec->skip_nonfinite;
        a->keep_every = rec->keep_every, a->until_acc = rec->until_acc, a->after_learn = rec->after_learn;
        if (rec->task) load_tasks(r);
        else if (a->task || a->pack || a->task_examples)
            die("--%s: the run in '%s' trained on text, not on a task", a->task ? "task" : a->pack ? "pack" : "task-examples", r->dir);
        if (a->pack && !rec->pack) { // the same gradient, summed in another order
            ts->run.pack = 1;
            if (r->lead)
                fprintf(stderr, "note: from step %ld on, each step's examples are packed into rows (--pack): the losses may differ in "
                        "the last digits from a run that kept one example a row\n", ts->step);
        }
    } else if (!a->data)
        die("--resume %s: this checkpoint (format v1) does not record its training text; pass the same --data (and --val, "
            "--eval-every, --val-tokens) as the original run", r->dir);
    else if (a->pack) die("--pack: the run in '%s' (a format v1 checkpoint) trained on text, not on a task", r->dir);
    refuse_run_overlap(r);
    check_train_memory(r); // (a task run's rows are known from here on)
    if (r->lead) rundir_create(r->dir);
    r->last_ckpt = ts->step;
}

// the model a new run trains: from the flags, or --init-from's at the new training length;
// *rand_max gets the run's random-position range
static void new_model_config(Run *r, GPTConfig *c, GPT *src, AdamW *src_opt, int *rand_max) {
    TrainArgs *a = &r->a;
    int random = !strcmp(a->positions, "random");
    if (a->init_from) {
        TrainState sts;
        ckpt_load(a->init_from, src, &sts, src_opt);
        Origin o = {a->init_from, 1};
        settings_check_model(&o, a, &r->hyp, src, &sts);
        if (a->keep_optimizer && !src_opt->mom) die("--keep-optimizer: '%s' holds no optimizer state", a->init_from);
        *c = src->cfg;
        c->T = args_given("seq-len") ? a->seq_len : src->cfg.T;
        a->seq_len = c->T;
        // positions: the checkpoint's way unless the flags choose
        if (!args_given("positions") && !a->randomized) random = sts.rand_max > 0;
        if (args_given("rand-max") && !random)
            die("--rand-max applies only with --positions random (the checkpoint '%s' trained at contiguous positions, which a "
                "run started from it keeps unless --positions random is given)", a->init_from);
        *rand_max = !random ? 0 : args_given("rand-max") && a->rand_max ? a->rand_max : sts.rand_max ? sts.rand_max : 16 * c->T;
        if (gpt_max_pos(src) && (*rand_max ? *rand_max : c->T) > c->pos_rows)
            die("--seq-len %d%s: the checkpoint's '%s' table has %d rows (positions 0..%d); train within them, or start from a "
                "model trained with a larger --max-pos", c->T, *rand_max ? " with random positions" : "", c->scheme, c->pos_rows,
                c->pos_rows - 1);
    } else {
        if (!a->pos)
            die("train: --pos SCHEME is required for a new run (one of %s; randomized = sinusoidal --positions random)", pos_names());
        const PosScheme *s = pos_find(a->pos);
        if (!s) die("unknown position scheme '%s'; choose one of %s", a->pos, pos_names());
        *c = (GPTConfig){.V = 256, .C = a->d_model, .L = a->layers, .NH = a->heads, .T = a->seq_len};
        snprintf(c->scheme, sizeof c->scheme, "%s", a->pos);
        pos_default_hypers(s, c->scheme_hp);
        args_apply_hypers(&r->hyp, s, c->scheme_hp);
        c->scheme_sharing = pos_sharing_parse(a->pos_sharing);
        *rand_max = random ? (a->rand_max ? a->rand_max : 16 * a->seq_len) : 0;
        int reach = *rand_max ? *rand_max : a->seq_len;
        if (args_given("max-pos") && !s->max_pos)
            die("--max-pos sizes a learned position table; scheme '%s' has none (drop --max-pos)", s->name);
        c->pos_rows = a->max_pos ? a->max_pos : reach;
        if (c->pos_rows < reach) die("--max-pos %d is smaller than the positions training uses (%d)", a->max_pos, reach);
    }
    if (*rand_max && *rand_max < c->T) die("--rand-max %d is smaller than --seq-len %d", *rand_max, c->T);
    if (a->rope_scaling && strcmp(a->rope_scaling, "none")) { // trained with a context extension, fixed from now on
        const PosScheme *s = pos_find(c->scheme);
        if (strcmp(a->rope_scaling, "pi") && strcmp(a->rope_scaling, "ntk") && strcmp(a->rope_scaling, "yarn"))
            die("--rope-scaling %s: training takes pi, ntk or yarn (dynamic-ntk and rerope are evaluation-time methods; "
                "eval --rope-scaling applies them)", a->rope_scaling);
        if (!pos_has_extension(s, a->rope_scaling))
            die("--rope-scaling %s: scheme '%s' has no such context extension (the rotary schemes have)", a->rope_scaling, c->scheme);
        // from the length the weights were trained at (an extended source: the one it scaled from)
        int from = c->ext_method[0] ? c->ext_train_len : a->init_from ? src->cfg.T : c->T;
        double s_factor = a->rope_factor > 0 ? a->rope_factor : (double)c->T / from;
        if (s_factor < 1)
            die("--rope-scaling %s: the factor is %g; it must be >= 1 (give --rope-factor, or a --seq-len longer than the %d the "
                "weights were trained at)", a->rope_scaling, s_factor, from);
        snprintf(c->ext_method, sizeof c->ext_method, "%s", a->rope_scaling);
        c->ext_factor = s_factor, c->ext_train_len = from, c->ext_window = 0;
    } else if (args_given("rope-factor") && !a->rope_scaling && c->ext_method[0])
        die("--rope-factor: the checkpoint '%s' (--init-from) brings its extension (%s, factor %g), which a run started from "
            "it keeps as it is; to train with another factor name the method again: posgpt train --init-from %s --rope-scaling "
            "%s --rope-factor %g ...", a->init_from, c->ext_method, c->ext_factor, a->init_from, c->ext_method, a->rope_factor);
    else if (args_given("rope-factor")) die("--rope-factor needs --rope-scaling pi|ntk|yarn%s", a->rope_scaling ? ", not none" : "");
    else if (a->rope_scaling) memset(c->ext_method, 0, sizeof c->ext_method), c->ext_factor = 0, c->ext_train_len = 0;
}

// a new run (from the flags or --init-from): model, trainer state, fresh or kept moments
static void start_new(Run *r) {
    TrainArgs *a = &r->a;
    if (!a->data) die("train: --data FILE (or --task DIR) is required (see posgpt train --help)");
    if (a->task) load_tasks(r);
    GPTConfig c;
    GPT src;
    AdamW src_opt = {0};
    int rand_max;
    new_model_config(r, &c, &src, &src_opt, &rand_max);
    if (r->task && c.T < r->tasks.longest) // (--init-from keeps the checkpoint's length unless --seq-len is given)
        die("the longest example of '%s' has %d bytes; the run's --seq-len %d is too short for it", a->data, r->tasks.longest, c.T);
    gpt_build(&r->m, &c);
    if (a->init_from) {
        memcpy(r->m.params, src.params, r->m.num_params * sizeof(real)); // same model: the same parameter layout
        gpt_free(&src);
    } else gpt_init(&r->m, (uint64_t)a->seed);
    TrainState *ts = &r->ts;
    memset(ts, 0, sizeof *ts);
    ts->lr = a->lr, ts->min_lr_frac = a->min_lr_frac, ts->wd = a->wd, ts->beta1 = a->beta1, ts->beta2 = a->beta2;
    ts->eps = a->eps, ts->clip = a->clip, ts->steps = a->steps, ts->batch = a->batch, ts->seed = (uint64_t)a->seed;
    ts->rand_max = rand_max;
    ts->warmup = a->warmup >= 0 ? a->warmup : a->steps / 20;
    if (ts->warmup > ts->steps) die("--warmup %d is longer than --steps %d", ts->warmup, ts->steps);
    ts->val_loss = NAN;
    ts->pos_lr_mult = a->pos_lr_mult;
    ts->bf16 = precision_parse(a->precision);
    check_pos_lr_mult(r);
    rng_seed(&ts->rng, (uint64_t)a->seed ^ 0x5eed0fda7aULL);
    choose_shards(r, 0);
    check_train_memory(r);
    if (a->keep_optimizer) { // the moments of --init-from, with this run's betas, eps and decay
        r->opt = src_opt;
        r->opt.beta1 = ts->beta1, r->opt.beta2 = ts->beta2, r->opt.eps = ts->eps, r->opt.wd = ts->wd;
    } else {
        adamw_free(&src_opt);
        adamw_init(&r->opt, r->m.num_params, ts->beta1, ts->beta2, ts->eps, ts->wd);
    }
    r->opt.pos_lr_mult = ts->pos_lr_mult;
    if (a->out) snprintf(r->dir, sizeof r->dir, "%s", a->out);
    else { // out/ (ignored by git), never runs/ beside the committed results
        char label[64];
        snprintf(r->dir, sizeof r->dir, "out/%s-%d", run_label(c.scheme, rand_max, label, sizeof label), a->seq_len);
        if (r->lead) fprintf(stderr, "no --out given: the run goes to %s\n", r->dir);
    }
    refuse_run_overlap(r);
    if (r->lead) {
        rundir_create(r->dir);
        rundir_lock(r->dir);
        rundir_refuse_existing(r->dir, a->overwrite);
    }
    r->last_ckpt = -1;
}

// the training text: a resumed run's must be the one it trained on
static void load_text(Run *r) {
    int T = r->m.cfg.T;
    Corpus *cp = &r->corpus;
    corpus_load(cp, r->a.data, r->a.val);
    if (r->a.resume && r->ts.run.data_bytes) settings_check_text(&(Origin){r->dir, 0}, &r->a, cp, &r->ts.run);
    else settings_record_run(&r->ts.run, &r->a, cp); // a new run, or a v1 run: recorded from now on
    // --until-acc: the file its check reads, the same as the run's (a file from before the
    // record has none: recorded from now on)
    RunRecord *rec = &r->ts.run;
    if (r->a.until_acc > 0 && rec->learn_crc && rec->learn_crc != r->learn_crc) {
        char dir[4200];
        task_dir(r, dir, sizeof dir);
        die("--until-acc: '%s/%s' (CRC-32 %08x) is not the file the run in '%s' checked its learning on (CRC-32 %08x); a "
            "resumed run must check on the same examples", dir, r->learn_file, r->learn_crc, r->dir, rec->learn_crc);
    }
    if (r->a.until_acc > 0) rec->learn_crc = r->learn_crc;
    if (r->task) return; // examples, not windows: load_tasks checked their length
    if (cp->ntrain < (size_t)T + 1)
        die("training text is too short: %zu bytes, a window of --seq-len %d needs at least %d", cp->ntrain, T, T + 1);
    if (cp->nval < (size_t)T + 1)
        die("held-out text is too short: %zu bytes, validation at --seq-len %d needs at least %d (give a longer file or --val)",
            cp->nval, T, T + 1);
}

// log.csv's row of step `step` (the last such), as numbers; 0 if there is none
static int read_log_row(const char *path, long step, LogRow *row) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[1024];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        long s;
        double x[6];
        char *p = line, *e;
        s = strtol(p, &e, 10);
        if (e == p || *e != ',' || s != step) continue;
        p = e + 1;
        int ok = 1;
        for (int i = 0; i < 6 && ok; i++) { // train_loss, val_loss (maybe empty), lr, grad_norm, tokens_per_s, elapsed_s
            x[i] = *p == ',' ? NAN : strtod(p, &e);
            if (*p == ',') e = p;
            if (*e != ',' && !(i == 5 && (*e == ',' || *e == '\n' || *e == '\0'))) ok = 0;
            p = e + 1;
        }
        if (ok) *row = (LogRow){s, x[0], x[1], x[2], x[3], x[4], x[5]}, found = 1;
    }
    fclose(f);
    return found;
}

// log.csv's first line (a --until-acc run adds the held-out exact match at its eval points)
static const char *log_header(const Run *r) {
    return r->a.until_acc > 0 ? "step,train_loss,val_loss,lr,grad_norm,tokens_per_s,elapsed_s,heldout_exact"
                              : "step,train_loss,val_loss,lr,grad_norm,tokens_per_s,elapsed_s";
}

// config.txt, log.csv (a resumed one's cut back to its checkpoint), the banner
static void open_outputs(Run *r) {
    char path[4200], label[64];
    snprintf(path, sizeof path, "%s/config.txt", r->dir);
    // a resumed run keeps the config.txt its start wrote (which names what the checkpoint does
    // not: --init-from, the flags as given), unless it is gone or emptied: then it is written anew
    struct stat st;
    if (r->lead && (!r->a.resume || stat(path, &st) != 0 || st.st_size == 0)) write_config(path, r);
    snprintf(r->ckpt_path, sizeof r->ckpt_path, "%s/model.bin", r->dir);
    snprintf(r->log_path, sizeof r->log_path, "%s/log.csv", r->dir);
    if (!r->lead) return; // the other processes of an MPI run write nothing
    if (r->a.resume) {
        rundir_truncate_log(r->log_path, r->ts.step, log_header(r)); // (refuses a log that is not a regular file)
        // a validation a signal cut short: its step's row (without the validation) stays until
        // pending_validation has done it, then is written again with it (cut again, or killed,
        // the row is still there for the next resume)
        if (r->ts.val_pending) r->has_pending_row = read_log_row(r->log_path, r->ts.step, &r->pending_row);
        fprintf(stderr, "resuming %s at step %ld of %d (configuration from the checkpoint)\n", r->dir, r->ts.step, r->ts.steps);
    }
    r->logf = fopen(r->log_path, r->a.resume ? "a" : "w");
    if (!r->logf) die("cannot write the log '%s': %s", r->log_path, strerror(errno));
    if (!r->a.resume) fprintf(r->logf, "%s\n", log_header(r));
    if (out_flush_check(r->logf)) die("cannot write the log '%s': %s", r->log_path, strerror(errno));
    const GPTConfig *c = &r->m.cfg;
    fprintf(stderr, "train %s: %d layers, d_model %d, %d heads, T %d, batch %d, %zu params (%zu in matmuls) -> %s\n",
            run_label(c->scheme, r->ts.rand_max, label, sizeof label), c->L, c->C, c->NH, c->T, r->ts.batch, r->m.num_params,
            gpt_flop_params(&r->m), r->dir);
    fprintf(stderr, "data: %zu training bytes, %zu held-out bytes\n", r->corpus.ntrain, r->corpus.nval);
    if (r->ts.bf16) precision_start_bf16("training's matrix products (validation: fp32)");
}

// ---- the loop ----
// B random windows of the training text and their positions (the trainer RNG: data order);
// a task's examples, one a row, with their lengths in len
static void draw_batch(Run *r, int *tok, int *tgt, int *pos, int *len) {
    int B = r->ts.batch, T = r->m.cfg.T;
    const Corpus *cp = &r->corpus;
    if (r->task) {
        if (r->tasks.fresh) task_draw_fresh(&r->tasks, r->ts.step, B, T, r->ts.rand_max, tok, tgt, pos, len);
        else task_draw(&r->tasks, &r->ts.rng, B, T, r->ts.rand_max, tok, tgt, pos, len);
        return;
    }
    for (int b = 0; b < B; b++) {
        size_t off = (size_t)rng_below(&r->ts.rng, cp->ntrain - T);
        for (int t = 0; t < T; t++) tok[b * T + t] = cp->train[off + t], tgt[b * T + t] = cp->train[off + t + 1];
    }
    positions_draw(pos, B, T, 0, r->ts.rand_max, &r->ts.rng);
}

// forward and backward; a loss or gradient that is not finite skips the step (--skip-nonfinite,
// returns 0) or ends the run naming the last good checkpoint
static int compute_gradients(Run *r, Progress *pr, long step, const int *tok, const int *tgt, const int *pos, const int *len,
                             double *loss, double *norm) {
    static long nan_step = -2; // fault injection for the tests: a NaN in the qkv_w gradient at this step
    if (nan_step == -2) nan_step = getenv("POSGPT_INJECT_NAN_STEP") ? atol(getenv("POSGPT_INJECT_NAN_STEP")) : -1;
    GPT *m = &r->m;
    gemm_set_bf16(r->ts.bf16); // (the step's products only: validation stays fp32)
    *loss = shards_gradient(&r->sh, m, r->ts.batch, r->m.cfg.T, tok, tgt, pos, packed(r) ? len : NULL);
    gemm_set_bf16(0);
    if (step + 1 == nan_step) m->grads[m->offsets[P_QKVW]] = NAN;
    *norm = gpt_grad_norm(m);
    if (isfinite(*loss) && isfinite(*norm)) return 1;
    int bad = gpt_nonfinite_grad(m);
    char what[96];
    if (!isfinite(*loss)) snprintf(what, sizeof what, "loss (%g)", *loss);
    else snprintf(what, sizeof what, "gradient of tensor '%s'", bad >= 0 ? PARAM_NAMES[bad] : "?");
    progress_clear(pr);
    if (r->a.skip_nonfinite) {
        fprintf(stderr, "step %ld: non-finite %s; step skipped (--skip-nonfinite)\n", step + 1, what);
        return 0;
    }
    if (r->last_ckpt < 0)
        die("step %ld: non-finite %s; stopping before any checkpoint was written; lower --lr or raise --warmup, or pass "
            "--skip-nonfinite", step + 1, what);
    die("step %ld: non-finite %s; stopping. The last good checkpoint is %s (step %ld); lower --lr or raise --warmup, or pass "
        "--skip-nonfinite", step + 1, what, r->ckpt_path, r->last_ckpt);
}

// the validation loss now (NaN if a signal cut it short)
static double validate(Run *r, Progress *pr) {
    // fault injection for the tests: a signal as the validation of this step starts
    static long cut_step = -2;
    if (cut_step == -2) cut_step = getenv("POSGPT_TEST_CUT_VALIDATION") ? atol(getenv("POSGPT_TEST_CUT_VALIDATION")) : -1;
    if (r->ts.step == cut_step) cut_step = -1, raise(SIGTERM);
    int T = r->m.cfg.T;
    EvalSpec vs = {.len = T, .stride = T, .max_tokens = r->a.val_tokens, .batch = val_batch(T), .stop = &g_stop};
    EvalResult res;
    progress_note(pr, "validating");
    if (r->task) { // the held-out examples' answers
        double loss = task_val_loss(&r->m, &r->tasks, val_batch(val_len(r)), val_len(r), r->ts.rand_max, &g_stop);
        if (isnan(loss) && g_stop) r->val_cut = 1;
        return isnan(loss) ? NAN : (r->ts.val_loss = loss);
    }
    evaluate(&r->m, r->corpus.val, r->corpus.nval, &vs, 0, &res);
    if (res.stopped) { // the partial loss is not logged
        r->val_cut = 1;
        return NAN;
    }
    return r->ts.val_loss = res.loss;
}

// one row of log.csv (val and acc NaN: empty), flushed; it becomes r->last (for summary.json);
// nonzero if the write failed
static int write_log_row(Run *r, const LogRow *l, double acc) {
    r->last = *l;
    fprintf(r->logf, "%ld,%.6f,", l->step, l->loss);
    if (!isnan(l->val)) fprintf(r->logf, "%.6f", l->val);
    fprintf(r->logf, ",%.6g,%.4f,%.0f,%.2f", l->lr, l->norm, l->rate, l->elapsed);
    if (r->a.until_acc > 0) fprintf(r->logf, isnan(acc) ? "," : ",%.6f", acc); // --until-acc: at the eval points
    fputc('\n', r->logf);
    return out_flush_check(r->logf);
}

// the row of the step just completed (tokens/s: the progress line's, tokens since the start over
// the time since the start as of the last progress_count); 0, or -1 when the write failed (r->log_err)
static int log_row(Run *r, const Progress *pr, double loss, double val, double lr, double norm, double acc) {
    if (!write_log_row(r, &(LogRow){r->ts.step, loss, val, lr, norm, progress_rate(pr), pr->t_tok - pr->t0}, acc)) return 0;
    r->log_err = errno;
    return -1;
}

// save the step just completed; a failed write ends the run with the old checkpoint intact
static void checkpoint(Run *r, Progress *pr) {
    char err[4400];
    if (save_checkpoints(r, err, sizeof err)) {
        progress_clear(pr);
        die("%s; stopping at step %ld. The checkpoint on disk is %s; free space and continue with --resume %s", err,
            r->ts.step, r->last_ckpt >= 0 ? "the previous one, intact" : "missing (none was saved yet)", r->dir);
    }
    r->last_ckpt = r->ts.step;
}

// a resumed run whose last validation a signal cut short: that validation, and at an eval point
// (or the run's last step) --until-acc's check, before any step; the checkpoint then records
// them (and, learned with --after-learn, model-learned.bin is the model of this step)
static void pending_validation(Run *r, Progress *pr) {
    TrainState *ts = &r->ts;
    const TrainArgs *a = &r->a;
    double val = validate(r, pr), acc = NAN;
    if (isnan(val)) return; // cut again: still pending (its row kept), and the loop ends at its top
    // (due as in the loop; or at what was the run's last step when the signal came, before a --steps extension)
    if (learn_check_due(ts, a) || (a->until_acc > 0 && r->pending_last)) {
        progress_note(pr, "scoring held-out answers");
        acc = learn_accuracy(r);
        if (acc >= a->until_acc && !ts->learned_step) ts->learned_step = ts->step;
    }
    ts->val_pending = 0;
    progress_clear(pr);
    fprintf(stderr, "note: step %ld's validation, cut short by a signal, done now: val loss %.4f", ts->step, val);
    if (!isnan(acc)) fprintf(stderr, ", held-out exact match %.4f%s", acc, ts->learned_step == ts->step ? " (learned)" : "");
    fprintf(stderr, "\n");
    if (r->has_pending_row) { // the step's row again, now with its validation (the timing columns as first written)
        LogRow *l = &r->pending_row;
        l->val = val;
        fclose(r->logf); // the row without the validation comes out (the log is rewritten whole), then in again with it
        rundir_truncate_log(r->log_path, ts->step - 1, log_header(r));
        if (!(r->logf = fopen(r->log_path, "a"))) die("cannot write the log '%s': %s", r->log_path, strerror(errno));
        if (write_log_row(r, l, acc)) die("cannot write the log '%s': %s", r->log_path, strerror(errno));
    }
    checkpoint(r, pr);
}

static void train_loop(Run *r, Progress *pr) {
    TrainState *ts = &r->ts;
    const TrainArgs *a = &r->a;
    int B = ts->batch, T = r->m.cfg.T;
    gpt_alloc(&r->m, shard_rows(r), row_len(r), 1);
    shards_init(&r->sh, ts->grad_shards, r->m.num_params);
    int *tok = xmalloc((size_t)B * T * sizeof(int)), *tgt = xmalloc((size_t)B * T * sizeof(int));
    int *pos = xmalloc((size_t)B * T * sizeof(int)), *len = xmalloc((size_t)B * sizeof(int));
    double ema_loss = NAN;
    if (getenv("POSGPT_TEST_STOP_AT_START")) g_stop = SIGTERM; // (tests only: a stop signal during set-up, every time)
    if (r->lead && ts->val_pending) pending_validation(r, pr);
    for (;;) { // a signal ends the loop between steps, never inside one
        int sig = dist_max(g_stop);   // on any process: every process stops after the same step
        if (sig) {
            g_stop = sig;
            break;
        }
        // learned (the lead decided; every process learns the step), and --after-learn steps after it
        if (a->until_acc > 0) ts->learned_step = dist_max((int)ts->learned_step);
        if (ts->step >= run_end(ts)) break;
        pr->total = run_end(ts); // (learned: the progress line counts to --after-learn's last step)
        long step = ts->step;
        double lr = lr_at(ts, step), loss, norm;
        draw_batch(r, tok, tgt, pos, len);
        if (r->task)
            for (int b = 0; b < B; b++) r->tokens += len[b];
        else r->tokens += (double)B * T;
        if (!compute_gradients(r, pr, step, tok, tgt, pos, len, &loss, &norm)) {
            ts->step = step + 1;
            continue;
        }
        adamw_step(&r->opt, &r->m, lr, step + 1, ts->clip > 0 && norm > ts->clip ? ts->clip / norm : 1.0);
        ts->step = step + 1; // the step is complete: from here on, a signal saves it
        ema_loss = isnan(ema_loss) ? loss : 0.9 * ema_loss + 0.1 * loss;
        int pause = a->stop_at && ts->step == a->stop_at, last = ts->step == run_end(ts) || pause;
        if (pause && !r->lead) break;
        if (!r->lead) continue; // the lead validates, logs and saves; the others wait in the next step's exchange
        double val = ts->step % a->eval_every == 0 || last ? validate(r, pr) : NAN, acc = NAN;
        ts->val_pending = r->val_cut; // (cut by a signal: the loop ends at its top, and a resume validates first)
        // the held-out exact match at the training lengths, at the eval points (not at a --stop-at
        // pause, which validates too: a paused and resumed run stops where an unpaused one does)
        if (!isnan(val) && learn_check_due(ts, a)) {
            progress_note(pr, "scoring held-out answers");
            acc = learn_accuracy(r);
            if (acc >= a->until_acc && !ts->learned_step) // learned: the run ends here, or --after-learn steps later
                ts->learned_step = ts->step, last = last || !a->after_learn;
        }
        progress_count(pr, r->tokens); // the log and the progress line: one count, one clock
        // (a validation cut by a signal: the row too, for the resume to complete)
        if ((ts->step % a->log_every == 0 || last || !isnan(val) || ts->val_pending) && log_row(r, pr, loss, val, lr, norm, acc))
            break; // (an MPI run ends in finish: the log error stops every process)
        if (ts->step % a->ckpt_every == 0 || last || ts->learned_step == ts->step) checkpoint(r, pr);
        progress_step(pr, ts->step, ema_loss, lr, val);
        if (!pr->tty && (ts->step % a->log_every == 0 || last || !isnan(val))) progress_line(pr, ts->step, loss, lr, val);
        if (pause) break;
    }
    progress_clear(pr);
    free(tok), free(tgt), free(pos), free(len);
}

// whatever ended the loop, the last completed step is saved before exit, and the message says
// what happened and how to continue; returns the exit status
static int finish(Run *r, Progress *pr) {
    TrainState *ts = &r->ts;
    if (!r->lead) return g_stop ? 128 + g_stop : 0;
    int saved_now = 0;
    char err[4400];
    if (r->last_ckpt != ts->step) {
        if (save_checkpoints(r, err, sizeof err)) {
            if (r->log_err)
                die("cannot write the log '%s' at step %ld: %s; and %s. The checkpoint on disk is step %ld; free space and "
                    "continue with --resume %s", r->log_path, ts->step, strerror(r->log_err), err, r->last_ckpt, r->dir);
            die("%s; the checkpoint on disk is %s; continue with --resume %s", err,
                r->last_ckpt >= 0 ? "the previous one, intact" : "missing (none was saved yet)", r->dir);
        }
        r->last_ckpt = ts->step, saved_now = 1;
    }
    if (r->log_err)
        die("cannot write the log '%s' at step %ld: %s; stopping. The checkpoint of step %ld is saved; free space and continue "
            "with --resume %s", r->log_path, ts->step, strerror(r->log_err), ts->step, r->dir);
    if (fclose(r->logf) != 0) die("cannot write the log '%s': %s", r->log_path, strerror(errno));
    int sig = g_stop, paused = r->a.stop_at && ts->step == r->a.stop_at && ts->step < run_end(ts);
    if (pr->skipped)
        fprintf(stderr, "(%ld progress lines were not printed: stderr was a pipe not being read; log.csv has every step)\n",
                pr->skipped);
    if (sig || paused) {
        char how[64];
        if (sig) snprintf(how, sizeof how, "received %s: stopped", signame(sig));
        else snprintf(how, sizeof how, "stopped (--stop-at)");
        // the run record holds the data paths unless they were too long to record
        int need_data = !ts->run.data[0], need_val = r->a.val && !ts->run.val[0];
        fprintf(stderr, "%s at step %ld of %d; %s %s; continue with: posgpt train --resume %s%s%s%s%s\n", how, ts->step,
                ts->steps, saved_now ? "its checkpoint is saved to" : "its checkpoint was already on disk:", r->ckpt_path,
                r->dir, need_data ? " --data " : "", need_data ? r->a.data : "", need_val ? " --val " : "",
                need_val ? r->a.val : "");
        if (r->val_cut) fprintf(stderr, "(the validation under way was cut short and is not logged)\n");
    }
    if (ts->learned_step)
        fprintf(stderr, "learned: the held-out exact match at lengths 1..%d reached --until-acc %g at step %ld (the cap was %d); "
                "steps_to_learn = %ld%s\n", r->learn_len, ts->run.until_acc, ts->learned_step, ts->steps, ts->learned_step,
                !ts->run.after_learn ? "" : r->learned_lost ? "; then --after-learn's steps at the floor lr (model-learned.bin is lost: above)"
                : ts->step >= run_end(ts) ? "; then --after-learn's steps at the floor lr, its model of that step kept as model-learned.bin"
                : "; --after-learn's steps are not all done yet (model-learned.bin is the model of that step)");
    else if (ts->run.until_acc > 0 && ts->step == ts->steps)
        fprintf(stderr, "not learned: the held-out exact match never reached --until-acc %g by the cap, step %d\n", ts->run.until_acc, ts->steps);
    double total = now_seconds() - pr->t0;
    long done = ts->step - pr->first;
    write_summary(r, sig ? "interrupted" : paused ? "stopped" : "done", total);
    char valtxt[96];
    if (isnan(ts->val_loss)) snprintf(valtxt, sizeof valtxt, "no validation yet");
    else if (r->task) snprintf(valtxt, sizeof valtxt, "last val loss %.4f on the held-out answers", ts->val_loss);
    else snprintf(valtxt, sizeof valtxt, "last val loss %.4f (ppl %.3f) at T=%d", ts->val_loss, exp(ts->val_loss), r->m.cfg.T);
    printf("%s: %ld steps in %.1fs wall (%.0f %stokens/s including validation), %s; checkpoint %s\n",
           sig ? "interrupted" : paused ? "stopped" : "done", done, total, total > 0 ? r->tokens / total : 0.0,
           r->task ? "example " : "", valtxt, r->ckpt_path);
    if (r->sh.pack_rows && dist_size() == 1) // (under MPI each process packs its own shards)
        printf("packed: %ld examples into %ld rows of %d, %.1f%% of their positions used (one example a row: %.1f%%)\n",
               r->sh.pack_examples, r->sh.pack_rows, row_len(r), 100.0 * r->tokens / ((double)r->sh.pack_rows * row_len(r)),
               100.0 * r->tokens / ((double)r->sh.pack_examples * r->m.cfg.T));
    if (dist_size() > 1 && r->sh.steps)
        printf("%d processes, %d gradient shards: the gradient exchange took %.2f ms a step (%.1f%% of the wall time)\n",
               dist_size(), ts->grad_shards, 1e3 * r->sh.comm_s / r->sh.steps, total > 0 ? 100 * r->sh.comm_s / total : 0.0);
    return sig ? 128 + sig : 0;
}

// every process of an MPI run starts from the same configuration, text, parameters, moments and
// trainer state (the flags were compared after parsing)
static void check_same_start(const Run *r) {
    if (dist_size() == 1) return;
    const TrainState *ts = &r->ts;
    const Corpus *cp = &r->corpus;
    uint32_t c = crc32_update(0, r->m.params, r->m.num_params * sizeof(real));
    if (r->opt.mom) c = crc32_update(c, r->opt.mom, r->opt.n * sizeof(real)), c = crc32_update(c, r->opt.vel, r->opt.n * sizeof(real));
    c = crc32_update(c, &ts->rng, sizeof ts->rng);
    char *text;
    size_t n;
    FILE *f = config_stream(r, &text, &n);
    fprintf(f, "the data = %llu bytes, CRC-32 %08x\nthe held-out text = %llu bytes, CRC-32 %08x\n",
            (unsigned long long)cp->data_bytes, cp->data_crc, (unsigned long long)cp->val_bytes, cp->val_crc);
    fprintf(f, "the state = step %ld, CRC-32 %08x (parameters, optimizer, data order)\n", ts->step, c);
    if (fclose(f) != 0) die("out of memory");
    dist_agree(text, "do not start from the same state",
               "every process must read the same run directory and data (a shared filesystem)");
    free(text);
}

int cmd_train(int argc, char **argv) {
    static Run run;
    Run *r = &run;
    r->last.step = -1;
    dist_start("train");
    r->lead = dist_rank() == 0;
    on_stop_signals(on_signal); // from the start: a signal during set-up is handled like one during training
    parse_args(argc, argv, &r->a, &r->hyp);
    dist_agree(args_values("out threads"), "were started with different flags", // (only rank 0 writes; threads are per process)
               "every process must run the same command");
    if (r->a.resume) open_resumed(r);
    else start_new(r);
    check_learn_fits(r);
    // (the last step the run can reach: not yet learned, --after-learn's steps may follow --steps)
    long last = r->ts.learned_step ? run_end(&r->ts) : (long)r->ts.steps + (r->a.until_acc > 0 ? r->a.after_learn : 0);
    if (r->a.stop_at && r->a.stop_at > last) die("--stop-at %d is beyond the run's last step (%ld)", r->a.stop_at, last);
    if (r->lead) rundir_remove_stale_tmp(r->dir);
    runtime_setup(r->a.threads);
    load_text(r);
    check_same_start(r);
    open_outputs(r);
    Progress pr;
    progress_start(&pr, r->ts.step, run_end(&r->ts));
    train_loop(r, &pr);
    int status = finish(r, &pr);
    shards_free(&r->sh);
    dist_finish();
    adamw_free(&r->opt);
    corpus_free(&r->corpus);
    if (r->task) taskdata_free(&r->tasks);
    if (r->learn.n) taskset_free(&r->learn_test), free(r->learn.ex);
    gpt_free(&r->m);
    return status;
}
