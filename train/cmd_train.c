// cmd_train.c - `posgpt train`: AdamW with linear warmup and cosine decay, gradient
// clipping, periodic validation and checkpoints, a progress line, and a run directory with
// config.txt, log.csv and model.bin. --resume DIR continues a run from its checkpoint.
#include "args.h"
#include "ckpt.h"
#include "cli.h"
#include "data.h"
#include "evaluate.h"
#include "fileio.h"
#include "progress.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

// SIGINT, SIGTERM, SIGHUP: finish the step under way, save it, exit 128 + the signal
static volatile sig_atomic_t g_stop;
static void on_signal(int sig) { g_stop = sig; }
static const char *signame(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal"; }

// An exclusive lock on the run directory for as long as this process may write it: a second
// posgpt on the same directory gets an error naming this one's PID. flock is released when
// the process ends, however it ends, so a killed run leaves no stale lock.
static void lock_run_dir(const char *dir) {
    char p[4200];
    snprintf(p, sizeof p, "%s/.lock", dir);
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) die("cannot create the lock file '%s': %s", p, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK) die("cannot lock the run directory '%s': %s", dir, strerror(errno));
        char buf[32] = {0};
        long pid = pread(fd, buf, sizeof buf - 1, 0) > 0 ? atol(buf) : 0;
        char who[64] = "another posgpt process";
        if (pid > 0) snprintf(who, sizeof who, "another posgpt process (PID %ld)", pid);
        die("the run directory '%s' is in use by %s; wait for it to finish, stop it, or choose another --out", dir, who);
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%d\n", (int)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n) die("cannot write the lock file '%s': %s", p, strerror(errno));
    // fd stays open: the lock lasts until exit
}

// a new run must not silently replace one that can be resumed
static void refuse_existing_run(const char *dir, int overwrite) {
    char ck[4200], lg[4200];
    snprintf(ck, sizeof ck, "%s/model.bin", dir);
    snprintf(lg, sizeof lg, "%s/log.csv", dir);
    struct stat st;
    int has_ck = stat(ck, &st) == 0, has_log = stat(lg, &st) == 0;
    if (!has_ck && !has_log) return;
    if (overwrite) { // the old checkpoint goes first: a crash before the new one is saved leaves no mix
        if (has_ck && unlink(ck) != 0) die("cannot remove '%s': %s", ck, strerror(errno));
        return;
    }
    char what[160] = "a log.csv";
    int finished = 0;
    if (has_ck) {
        FILE *f = fopen(ck, "rb");
        GPT m;
        TrainState ts;
        char err[512];
        if (f && ckpt_read(f, ck, &m, &ts, NULL, NULL, err, sizeof err) == 0) {
            snprintf(what, sizeof what, "a %s run (step %ld of %d)", ts.step >= ts.steps ? "finished" : "resumable", ts.step, ts.steps);
            finished = ts.step >= ts.steps;
            gpt_free(&m);
        } else snprintf(what, sizeof what, "a checkpoint");
        if (f) fclose(f);
    }
    if (finished) die("'%s' already holds %s; choose another --out, or pass --overwrite to replace it", dir, what);
    die("'%s' already holds %s; continue it with --resume %s, choose another --out, or pass --overwrite to replace it", dir,
        what, dir);
}

typedef struct {
    const char *data, *val, *out, *pos, *rand_base, *resume, *init_from;
    int seq_len, layers, d_model, heads, batch, steps, warmup, rand_max, max_pos;
    int eval_every, ckpt_every, log_every, threads, stop_at, skip_nonfinite, overwrite, keep_optimizer;
    long val_tokens;
    double lr, min_lr_frac, wd, beta1, beta2, eps, clip;
    long seed;
} TrainArgs;

static double lr_at(const TrainState *ts, long step) {
    // linear warmup over `warmup` steps, then cosine decay to min_lr_frac * lr at the last step
    if (step < ts->warmup) return ts->lr * (double)(step + 1) / ts->warmup;
    double span = ts->steps - ts->warmup;
    double p = span > 0 ? (double)(step - ts->warmup) / span : 1.0;
    double lo = ts->lr * ts->min_lr_frac;
    return lo + 0.5 * (1.0 + cos(3.141592653589793 * p)) * (ts->lr - lo);
}

static void make_dir(const char *dir) {
    // mkdir -p
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) die("cannot create directory '%s': %s", buf, strerror(errno));
            *p = '/';
        }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) die("cannot create output directory '%s': %s", buf, strerror(errno));
    // writable? checked now, not after hours of training
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.write-test.%d", buf, (int)getpid());
    FILE *f = fopen(probe, "w");
    if (!f) die("output directory '%s' is not writable: %s", buf, strerror(errno));
    fclose(f);
    unlink(probe);
}

// remove temporary files a killed run left behind (never read, only clutter; the directory
// is locked, so no other process is writing them)
static void remove_stale_tmp(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp.") && (!strncmp(e->d_name, "model.bin.", 10) || !strncmp(e->d_name, "log.csv.", 8) ||
                                            !strncmp(e->d_name, "config.txt.", 11))) {
            char p[4400];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
}

// on resume: keep the header and the complete rows up to the checkpoint's step (a killed run
// may have logged steps whose checkpoint never landed, or half a row), so the resumed log
// has each step once
static void truncate_log(const char *path, long step) {
    size_t n;
    struct stat st;
    if (stat(path, &st) != 0) return;
    char *text = (char *)read_regular_file(path, "log", (size_t)1 << 32, &n);
    OutFile o;
    FILE *f = out_open(&o, path, "log");
    int first = 1;
    for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) { // a last line with no newline is dropped
        *nl = 0;
        if (first || (line[0] >= '0' && line[0] <= '9' && atol(line) <= step)) fprintf(f, "%s\n", line);
        first = 0;
    }
    free(text);
    out_commit(&o);
}

static void write_config(const char *path, const GPT *m, const TrainState *ts, const TrainArgs *a) {
    OutFile o;
    FILE *f = out_open(&o, path, "configuration");
    const GPTConfig *c = &m->cfg;
    const PosScheme *s = m->ps.scheme;
    char label[64];
    fprintf(f, "# posgpt %s resolved training configuration\n", POSGPT_VERSION);
    fprintf(f, "scheme = %s\npos = %s\n", scheme_label(c, label, sizeof label), c->pos);
    for (int i = 0; i < POS_MAX_HYPER && s->hypers[i].name; i++) fprintf(f, "%s = %g\n", s->hypers[i].name, c->pos_hp[i]);
    fprintf(f, "pos_rows = %d\nrand_max = %d\n", c->pos_rows, c->rand_max);
    fprintf(f, "data = %s\nval = %s\n", a->data, a->val ? a->val : "(last 10% of data)");
    fprintf(f, "seq_len = %d\nlayers = %d\nd_model = %d\nheads = %d\nvocab = %d\n", c->T, c->L, c->C, c->NH, c->V);
    fprintf(f, "params = %zu\nbatch = %d\nsteps = %d\nwarmup = %d\n", m->num_params, ts->batch, ts->steps, ts->warmup);
    fprintf(f, "lr = %g\nmin_lr_frac = %g\nweight_decay = %g\nbeta1 = %g\nbeta2 = %g\neps = %g\nclip = %g\nseed = %llu\n",
            ts->lr, ts->min_lr_frac, ts->wd, ts->beta1, ts->beta2, ts->eps, ts->clip, (unsigned long long)ts->seed);
    fprintf(f, "eval_every = %d\nval_tokens = %ld\nckpt_every = %d\n", a->eval_every, a->val_tokens, a->ckpt_every);
    if (a->init_from)
        fprintf(f, "init_from = %s\noptimizer = %s\n", a->init_from, a->keep_optimizer ? "the checkpoint's moments" : "fresh");
    out_commit(&o);
}

// ---- resuming, or starting from a checkpoint: the settings it fixes, and flags that
// would change them ----
static const char *g_dir;  // the run directory being resumed (or the --init-from checkpoint), for messages
static int g_init;         // 1: --init-from (the model is fixed, the training settings are new)

static void conflict(const char *flag, const char *given, const char *run) {
    if (g_init)
        die("--%s %s conflicts with the checkpoint '%s' (--init-from), which has --%s %s; a run started from a checkpoint "
            "keeps its model (drop the flag)", flag, given, g_dir, flag, run);
    die("--%s %s conflicts with the run in '%s', which has --%s %s; a resumed run keeps its settings (drop the flag to "
        "continue it as it was, or start a new run with another --out)", flag, given, g_dir, flag, run);
}
static void same_int(const char *flag, long given, long run) {
    char a[32], b[32];
    if (!args_given(flag) || given == run) return;
    snprintf(a, sizeof a, "%ld", given), snprintf(b, sizeof b, "%ld", run);
    conflict(flag, a, b);
}
static void same_num(const char *flag, double given, double run) {
    char a[40], b[40];
    if (!args_given(flag) || given == run) return;
    snprintf(a, sizeof a, "%g", given), snprintf(b, sizeof b, "%g", run);
    if (!strcmp(a, b)) snprintf(a, sizeof a, "%.17g", given), snprintf(b, sizeof b, "%.17g", run); // 0.1 vs 0.1000001
    conflict(flag, a, b);
}
static void same_str(const char *flag, const char *given, const char *run) {
    if (args_given(flag) && strcmp(given, run)) conflict(flag, given, run);
}

// model flags given with --resume or --init-from must agree with the checkpoint's model
static void check_model_flags(const TrainArgs *a, const HyperArgs *hyp, const GPT *m) {
    const GPTConfig *c = &m->cfg;
    same_str("pos", a->pos, c->rand_max ? "randomized" : c->pos);
    same_str("rand-base", a->rand_base, c->rand_max ? c->pos : "(none: not randomized)");
    same_int("rand-max", a->rand_max, c->rand_max);
    if (a->max_pos) same_int("max-pos", a->max_pos, c->pos_rows);
    same_int("layers", a->layers, c->L), same_int("d-model", a->d_model, c->C), same_int("heads", a->heads, c->NH);
    for (int i = 0; i < hyp->n; i++) {
        char name[128];
        size_t len = strcspn(hyp->name[i], "=");
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), hyp->name[i]);
        int k = pos_hyper_index(m->ps.scheme, name);
        if (k < 0) die("--%s is not a hyperparameter of the run's scheme '%s' (in '%s')", name, m->ps.scheme->name, g_dir);
        if (hyp->value[i] != c->pos_hp[k]) {
            char x[40], y[40];
            snprintf(x, sizeof x, "%g", hyp->value[i]), snprintf(y, sizeof y, "%g", c->pos_hp[k]);
            conflict(name, x, y);
        }
    }
}

// every flag given on resume that names a setting of the run must agree with it
static void check_resume_flags(const TrainArgs *a, const HyperArgs *hyp, const GPT *m, const TrainState *ts) {
    check_model_flags(a, hyp, m);
    same_int("seq-len", a->seq_len, m->cfg.T);
    same_int("batch", a->batch, ts->batch), same_int("steps", a->steps, ts->steps);
    same_int("warmup", a->warmup >= 0 ? a->warmup : a->steps / 20, ts->warmup);
    same_num("lr", a->lr, ts->lr), same_num("min-lr-frac", a->min_lr_frac, ts->min_lr_frac), same_num("wd", a->wd, ts->wd);
    same_num("beta1", a->beta1, ts->beta1), same_num("beta2", a->beta2, ts->beta2), same_num("eps", a->eps, ts->eps);
    same_num("clip", a->clip, ts->clip);
    if (args_given("seed") && (uint64_t)a->seed != ts->seed) {
        char x[32], y[32];
        snprintf(x, sizeof x, "%ld", a->seed), snprintf(y, sizeof y, "%llu", (unsigned long long)ts->seed);
        conflict("seed", x, y);
    }
    const RunRecord *r = &ts->run;
    if (r->data_bytes) { // recorded (format v2); a v1 checkpoint takes these from the flags
        same_int("eval-every", a->eval_every, r->eval_every), same_int("val-tokens", a->val_tokens, r->val_tokens);
        same_int("ckpt-every", a->ckpt_every, r->ckpt_every), same_int("log-every", a->log_every, r->log_every);
    }
    if (args_given("overwrite")) die("--overwrite and --resume contradict each other: --resume continues the run in '%s'", g_dir);
}

// the run record of a new run (or of a v1 run being resumed): absolute paths where they fit
static void record_run(RunRecord *r, const TrainArgs *a, const Corpus *corpus) {
    memset(r, 0, sizeof *r);
    for (int k = 0; k < 2; k++) {
        const char *p = k ? a->val : a->data;
        char *dst = k ? r->val : r->data, *abs = p ? realpath(p, NULL) : NULL;
        if (abs && strlen(abs) < CKPT_PATH_BYTES) snprintf(dst, CKPT_PATH_BYTES, "%s", abs);
        free(abs);
    }
    r->data_bytes = corpus->data_bytes, r->data_crc = corpus->data_crc;
    r->val_bytes = corpus->val_bytes, r->val_crc = corpus->val_crc;
    r->eval_every = a->eval_every, r->ckpt_every = a->ckpt_every, r->log_every = a->log_every;
    r->skip_nonfinite = a->skip_nonfinite, r->val_tokens = a->val_tokens;
}

// a resumed run reads the text it trained on: same size and CRC-32 as recorded
static void check_same_text(const char *what, const char *path, uint64_t bytes, uint32_t crc, uint64_t rbytes, uint32_t rcrc,
                            const char *rpath) {
    if (bytes == rbytes && crc == rcrc) return;
    die("%s '%s' (%llu bytes, CRC-32 %08x) is not the text the run in '%s' trained on ('%s', %llu bytes, CRC-32 %08x); "
        "a resumed run must read the same text", what, path, (unsigned long long)bytes, crc, g_dir, rpath[0] ? rpath : "?",
        (unsigned long long)rbytes, rcrc);
}

// windows per validation pass at length T
static int val_batch(int T) { return 8192 / T > 0 ? 8192 / T : 1; }

// training's activations (the attention maps grow as batch x layers x heads x T^2) and
// validation's, on top of the parameters, gradients and moments: refused with the estimate
// before anything is allocated or written, rather than killed part-way
static void check_train_memory(const GPT *m, int B) {
    const GPTConfig *c = &m->cfg;
    int nt = omp_get_max_threads(), T = c->T;
    double need = gpt_alloc_bytes(c, B, T, 1, nt) + gpt_alloc_bytes(c, val_batch(T), T, 0, nt) + 4.0 * sizeof(real) * m->num_params;
    char what[96];
    snprintf(what, sizeof what, "training at --batch %d --seq-len %d", B, T);
    require_memory(need, what, "lower --batch or --seq-len (or the model's size)");
}

int cmd_train(int argc, char **argv) {
    on_stop_signals(on_signal); // from the start: a signal during set-up is handled like one during training
    TrainArgs a = {.pos = "alibi", .rand_base = "sinusoidal", .seq_len = 128, .layers = 4, .d_model = 128,
                   .heads = 4, .batch = 32, .steps = 2000, .warmup = -1, .eval_every = 200, .ckpt_every = 500,
                   .log_every = 10, .val_tokens = 65536, .lr = 1e-3, .min_lr_frac = 0.1, .wd = 0.1,
                   .beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .clip = 1.0, .seed = 1};
    char pos_help[600];
    snprintf(pos_help, sizeof pos_help, "position scheme: %s|randomized", pos_names());
    ArgDef defs[] = {
        {"data", ARG_STR, &a.data, "training text (any file; tokens are bytes)"},
        {"val", ARG_STR, &a.val, "held-out text (default: the last 10% of --data)"},
        {"out", ARG_STR, &a.out, "run directory (default: runs/<scheme>-<seq-len>)"},
        {"resume", ARG_STR, &a.resume, "continue the run in this directory from its model.bin"},
        {"init-from", ARG_STR, &a.init_from, "start a new run from this checkpoint's weights (same model; new --seq-len, --steps, --lr, ...)"},
        {"keep-optimizer", ARG_FLAG, &a.keep_optimizer, "with --init-from: start from its AdamW moments too (default: fresh)"},
        {"pos", ARG_STR, &a.pos, pos_help},
        {"rand-base", ARG_STR, &a.rand_base, "base scheme for --pos randomized"},
        {"rand-max", ARG_INT, &a.rand_max, "randomized: positions drawn from [0, N); 0 = 16 x seq-len", 0, 1 << 24},
        {"max-pos", ARG_INT, &a.max_pos, "rows of a learned table; 0 = seq-len (or rand-max)", 0, 1 << 24},
        {"seq-len", ARG_INT, &a.seq_len, "training context length T", 1, 1 << 20},
        {"layers", ARG_INT, &a.layers, "transformer blocks", 1, 1024},
        {"d-model", ARG_INT, &a.d_model, "model width", 1, 65536},
        {"heads", ARG_INT, &a.heads, "attention heads (must divide d-model)", 1, 65536},
        {"batch", ARG_INT, &a.batch, "sequences per step", 1, 1 << 20},
        {"steps", ARG_INT, &a.steps, "optimizer steps", 1, 1 << 30},
        {"lr", ARG_FLOAT, &a.lr, "peak learning rate", 0, 10},
        {"min-lr-frac", ARG_FLOAT, &a.min_lr_frac, "cosine decays to this fraction of --lr", 0, 1},
        {"warmup", ARG_INT, &a.warmup, "linear warmup steps; -1 = 5% of --steps", -1, 1 << 30},
        {"wd", ARG_FLOAT, &a.wd, "AdamW weight decay (matrices only)", 0, 10},
        {"beta1", ARG_FLOAT, &a.beta1, "AdamW beta1", 0, 0.999999},
        {"beta2", ARG_FLOAT, &a.beta2, "AdamW beta2", 0, 0.999999},
        {"eps", ARG_FLOAT, &a.eps, "AdamW epsilon", 1e-30, 1},
        {"clip", ARG_FLOAT, &a.clip, "clip the global gradient norm to this (0 = off)", 0, 1e9},
        {"seed", ARG_LONG, &a.seed, "seed for init, data order and random positions", 0, 9e18},
        {"eval-every", ARG_INT, &a.eval_every, "validation every N steps (and at the end)", 1, 1 << 30},
        {"val-tokens", ARG_LONG, &a.val_tokens, "validation scores the first N held-out tokens (0 = all)", 0, 1e15},
        {"ckpt-every", ARG_INT, &a.ckpt_every, "checkpoint every N steps (and at the end)", 1, 1 << 30},
        {"log-every", ARG_INT, &a.log_every, "CSV log / plain progress line every N steps", 1, 1 << 30},
        {"threads", ARG_INT, &a.threads, "threads (0 = OpenMP default)", 0, 4096},
        {"skip-nonfinite", ARG_FLAG, &a.skip_nonfinite, "skip a step whose loss or gradient is not finite, instead of stopping"},
        {"overwrite", ARG_FLAG, &a.overwrite, "start a new run even if --out holds one (its checkpoint and log are replaced)"},
        {"stop-at", ARG_INT, &a.stop_at, "stop after this step with a checkpoint (continue later with --resume); 0 = run to the end", 0, 1 << 30},
        {NULL}};
    HyperArgs hyp = {0};
    args_parse(argc, argv, 2, defs, &hyp, "train", "--data FILE [flags]", NULL, 0);

    GPT m;
    TrainState ts;
    real *mom = NULL, *vel = NULL;
    char dir[4096], path[4200];
    if (a.resume && (a.init_from || a.keep_optimizer))
        die("--init-from starts a new run from a checkpoint's weights; --resume continues a run: give one of them");
    if (a.resume) {
        snprintf(dir, sizeof dir, "%s", a.resume);
        snprintf(path, sizeof path, "%s/model.bin", dir);
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) die("--resume %s: no such run directory", dir);
        lock_run_dir(dir); // before reading: another process may be writing the run
        if (stat(path, &st) != 0) die("--resume %s: the directory holds no checkpoint (model.bin); nothing to resume", dir);
        ckpt_load(path, &m, &ts, &mom, &vel);
        if (!mom) die("'%s' holds no optimizer state, so the run cannot be resumed exactly", path);
        g_dir = dir;
        check_resume_flags(&a, &hyp, &m, &ts);
        if (a.out) {
            char *x = realpath(a.out, NULL), *y = realpath(dir, NULL);
            int same = x && y && !strcmp(x, y);
            free(x), free(y);
            if (!same) die("--out %s: a resumed run writes into its own directory ('%s'); drop --out", a.out, dir);
        }
        if (ts.step >= ts.steps) die("the run in '%s' already finished (%ld of %d steps)", dir, ts.step, ts.steps);
        check_train_memory(&m, ts.batch);
        if (a.stop_at && a.stop_at <= ts.step)
            die("--stop-at %d is not ahead of the run in '%s': it is at step %ld of %d", a.stop_at, dir, ts.step, ts.steps);
        RunRecord *r = &ts.run;
        if (r->data_bytes) { // the run's own text and settings, unless the flags name the same ones
            if (!a.data && !r->data[0]) die("--resume %s: the run's data path was too long to record; pass its --data", dir);
            if (!a.data) a.data = r->data;
            if (r->val_bytes && !a.val && !r->val[0]) die("--resume %s: the run's --val path was too long to record; pass its --val", dir);
            if (r->val_bytes && !a.val) a.val = r->val;
            if (!r->val_bytes && a.val)
                die("--val %s conflicts with the run in '%s', which held out the last 10%% of its --data", a.val, dir);
            a.eval_every = r->eval_every, a.val_tokens = r->val_tokens, a.ckpt_every = r->ckpt_every, a.log_every = r->log_every;
            a.skip_nonfinite = a.skip_nonfinite || r->skip_nonfinite;
        } else if (!a.data)
            die("--resume %s: this checkpoint (format v1) does not record its training text; pass the same --data (and --val, "
                "--eval-every, --val-tokens) as the original run", dir);
        make_dir(dir);
    } else {
        if (!a.data) die("train: --data FILE is required (see posgpt train --help)");
        if (a.keep_optimizer && !a.init_from) die("--keep-optimizer applies only with --init-from");
        GPTConfig c;
        GPT src;
        real *src_mom = NULL, *src_vel = NULL;
        if (a.init_from) { // the checkpoint's model, at the new training length
            TrainState sts;
            ckpt_load(a.init_from, &src, &sts, &src_mom, &src_vel);
            g_dir = a.init_from, g_init = 1;
            check_model_flags(&a, &hyp, &src);
            if (a.keep_optimizer && !src_mom) die("--keep-optimizer: '%s' holds no optimizer state", a.init_from);
            c = src.cfg;
            c.T = args_given("seq-len") ? a.seq_len : src.cfg.T;
            int reach = c.rand_max ? c.rand_max : c.T;
            if (src.ps.scheme->max_pos && c.T > c.pos_rows)
                die("--seq-len %d: the checkpoint's '%s' table has %d rows (positions 0..%d); train at most at %d, or start from a "
                    "model trained with a larger --max-pos", c.T, c.pos, c.pos_rows, c.pos_rows - 1, c.pos_rows);
            if (c.rand_max && reach < c.T) die("--seq-len %d is longer than the checkpoint's --rand-max %d", c.T, c.rand_max);
            a.seq_len = c.T;
        } else {
            const char *base = a.pos;
            int randomized = !strcmp(a.pos, "randomized");
            if (randomized) base = a.rand_base;
            const PosScheme *s = pos_find(base);
            if (!s) die("unknown position scheme '%s'; choose one of %s|randomized", base, pos_names());
            if (!randomized && a.rand_max) die("--rand-max applies only to --pos randomized");
            c = (GPTConfig){.V = 256, .C = a.d_model, .L = a.layers, .NH = a.heads, .T = a.seq_len};
            snprintf(c.pos, sizeof c.pos, "%s", base);
            pos_default_hypers(s, c.pos_hp);
            args_apply_hypers(&hyp, s, c.pos_hp);
            c.rand_max = randomized ? (a.rand_max ? a.rand_max : 16 * a.seq_len) : 0;
            if (randomized && c.rand_max < a.seq_len) die("--rand-max %d is smaller than --seq-len %d", c.rand_max, a.seq_len);
            c.pos_rows = a.max_pos ? a.max_pos : (c.rand_max ? c.rand_max : a.seq_len);
            if (c.pos_rows < (c.rand_max ? c.rand_max : a.seq_len))
                die("--max-pos %d is smaller than the positions training uses (%d)", a.max_pos, c.rand_max ? c.rand_max : a.seq_len);
        }
        gpt_build(&m, &c);
        check_train_memory(&m, a.batch);
        if (a.init_from) {
            memcpy(m.params, src.params, m.num_params * sizeof(real)); // same model: the same parameter layout
            gpt_free(&src);
        } else gpt_init(&m, (uint64_t)a.seed);
        memset(&ts, 0, sizeof ts);
        ts.lr = a.lr, ts.min_lr_frac = a.min_lr_frac, ts.wd = a.wd, ts.beta1 = a.beta1, ts.beta2 = a.beta2;
        ts.eps = a.eps, ts.clip = a.clip, ts.steps = a.steps, ts.batch = a.batch, ts.seed = (uint64_t)a.seed;
        ts.warmup = a.warmup >= 0 ? a.warmup : a.steps / 20;
        if (ts.warmup > ts.steps) die("--warmup %d is longer than --steps %d", ts.warmup, ts.steps);
        ts.val_loss = NAN;
        rng_seed(&ts.rng, (uint64_t)a.seed ^ 0x5eed0fda7aULL);
        if (a.keep_optimizer) mom = src_mom, vel = src_vel;
        else {
            free(src_mom), free(src_vel);
            mom = xcalloc(m.num_params, sizeof(real));
            vel = xcalloc(m.num_params, sizeof(real));
        }
        if (a.out) snprintf(dir, sizeof dir, "%s", a.out);
        else {
            char label[64];
            snprintf(dir, sizeof dir, "runs/%s-%d", scheme_label(&c, label, sizeof label), a.seq_len);
        }
        make_dir(dir);
        lock_run_dir(dir);
        refuse_existing_run(dir, a.overwrite);
    }
    if (a.stop_at && a.stop_at > ts.steps) die("--stop-at %d is beyond the run's last step (%d)", a.stop_at, ts.steps);
    remove_stale_tmp(dir);
    runtime_setup(a.threads);
    const GPTConfig *c = &m.cfg;
    int B = ts.batch, T = c->T;
    Corpus corpus;
    corpus_load(&corpus, a.data, a.val);
    if (a.resume && ts.run.data_bytes) {
        const RunRecord *r = &ts.run;
        check_same_text("--data", a.data, corpus.data_bytes, corpus.data_crc, r->data_bytes, r->data_crc, r->data);
        if (a.val) check_same_text("--val", a.val, corpus.val_bytes, corpus.val_crc, r->val_bytes, r->val_crc, r->val);
    } else record_run(&ts.run, &a, &corpus); // a new run, or a v1 run: recorded from now on
    if (corpus.ntrain < (size_t)T + 1)
        die("training text is too short: %zu bytes, a window of --seq-len %d needs at least %d", corpus.ntrain, T, T + 1);
    if (corpus.nval < (size_t)T + 1)
        die("held-out text is too short: %zu bytes, validation at --seq-len %d needs at least %d (give a longer file or --val)",
            corpus.nval, T, T + 1);

    snprintf(path, sizeof path, "%s/config.txt", dir);
    if (!a.resume) write_config(path, &m, &ts, &a);
    char ckpt_path[4200], log_path[4200], label[64];
    snprintf(ckpt_path, sizeof ckpt_path, "%s/model.bin", dir);
    snprintf(log_path, sizeof log_path, "%s/log.csv", dir);
    if (a.resume) {
        truncate_log(log_path, ts.step);
        fprintf(stderr, "resuming %s at step %ld of %d (configuration from the checkpoint)\n", dir, ts.step, ts.steps);
    }
    FILE *logf = fopen(log_path, a.resume ? "a" : "w");
    if (!logf) die("cannot write the log '%s': %s", log_path, strerror(errno));
    if (!a.resume) fprintf(logf, "step,train_loss,val_loss,lr,grad_norm,tokens_per_s,elapsed_s\n");
    if (out_flush_check(logf)) die("cannot write the log '%s': %s", log_path, strerror(errno));
    fprintf(stderr, "train %s: %d layers, d_model %d, %d heads, T %d, batch %d, %zu params (%zu in matmuls) -> %s\n",
            scheme_label(c, label, sizeof label), c->L, c->C, c->NH, T, B, m.num_params, gpt_flop_params(&m), dir);
    fprintf(stderr, "data: %zu training bytes, %zu held-out bytes\n", corpus.ntrain, corpus.nval);

    EvalSpec vs = {.len = T, .stride = T, .max_tokens = a.val_tokens, .batch = val_batch(T), .stop = &g_stop};
    gpt_alloc(&m, B, T, 1);
    int *tok = xmalloc((size_t)B * T * sizeof(int)), *tgt = xmalloc((size_t)B * T * sizeof(int));
    int *pos = xmalloc((size_t)B * T * sizeof(int));
    Progress pr;
    progress_start(&pr, ts.step, ts.steps, (double)B * T);
    // fault injection for the tests: a NaN in the qkv_w gradient at this step
    long nan_step = getenv("POSGPT_INJECT_NAN_STEP") ? atol(getenv("POSGPT_INJECT_NAN_STEP")) : -1;
    double ema_loss = NAN;
    long last_ckpt = a.resume ? ts.step : -1, log_step = ts.step;
    double log_t = now_seconds();
    int log_err = 0, val_cut = 0;
    char err[4400];
    while (ts.step < ts.steps && !g_stop) { // a signal ends the loop between steps, never inside one
        long step = ts.step;
        double lr = lr_at(&ts, step);
        for (int b = 0; b < B; b++) {
            size_t off = (size_t)rng_below(&ts.rng, corpus.ntrain - T);
            for (int t = 0; t < T; t++) tok[b * T + t] = corpus.train[off + t], tgt[b * T + t] = corpus.train[off + t + 1];
        }
        pos_fill(pos, B, T, 0, c->rand_max, &ts.rng);
        double loss = gpt_forward(&m, tok, tgt, pos);
        gpt_zero_grad(&m);
        gpt_backward(&m);
        if (step + 1 == nan_step) m.grads[m.offsets[P_QKVW]] = NAN;
        double norm = gpt_grad_norm(&m);
        if (!isfinite(loss) || !isfinite(norm)) {
            int bad = gpt_nonfinite_grad(&m);
            char what[96];
            if (!isfinite(loss)) snprintf(what, sizeof what, "loss (%g)", loss);
            else snprintf(what, sizeof what, "gradient of tensor '%s'", bad >= 0 ? PARAM_NAMES[bad] : "?");
            if (a.skip_nonfinite) {
                progress_clear(&pr);
                fprintf(stderr, "step %ld: non-finite %s; step skipped (--skip-nonfinite)\n", step + 1, what);
                ts.step = step + 1;
                continue;
            }
            progress_clear(&pr);
            if (last_ckpt < 0) die("step %ld: non-finite %s; stopping before any checkpoint was written; lower --lr or raise --warmup, "
                                   "or pass --skip-nonfinite", step + 1, what);
            die("step %ld: non-finite %s; stopping. The last good checkpoint is %s (step %ld); lower --lr or raise --warmup, "
                "or pass --skip-nonfinite", step + 1, what, ckpt_path, last_ckpt);
        }
        double scale = (ts.clip > 0 && norm > ts.clip) ? ts.clip / norm : 1.0;
        gpt_adamw(&m, mom, vel, lr, ts.beta1, ts.beta2, ts.eps, ts.wd, step + 1, scale);
        ts.step = step + 1; // the step is complete: from here on, a signal saves it
        ema_loss = isnan(ema_loss) ? loss : 0.9 * ema_loss + 0.1 * loss;

        int pause = a.stop_at && ts.step == a.stop_at;
        int last = ts.step == ts.steps || pause;
        double val = NAN;
        if (ts.step % a.eval_every == 0 || last) {
            EvalResult r;
            progress_note(&pr, "validating");
            evaluate(&m, corpus.val, corpus.nval, &vs, 0, &r);
            if (r.stopped) val_cut = 1; // a signal: the partial loss is not logged
            else val = ts.val_loss = r.loss;
        }
        double now = now_seconds();
        if (ts.step % a.log_every == 0 || last || !isnan(val)) {
            // tokens/s over the interval since the previous row, validation included
            double rate = (ts.step - log_step) * (double)B * T / (now - log_t > 1e-9 ? now - log_t : 1e-9);
            fprintf(logf, "%ld,%.6f,", ts.step, loss);
            if (!isnan(val)) fprintf(logf, "%.6f", val);
            fprintf(logf, ",%.6g,%.4f,%.0f,%.2f\n", lr, norm, rate, now - pr.t0);
            log_step = ts.step, log_t = now;
            if (out_flush_check(logf)) {
                log_err = errno;
                break;
            }
        }
        if (ts.step % a.ckpt_every == 0 || last) {
            if (ckpt_try_save(ckpt_path, &m, &ts, mom, vel, err, sizeof err)) {
                progress_clear(&pr);
                die("%s; stopping at step %ld. The checkpoint on disk is %s; free space and continue with --resume %s",
                    err, ts.step, last_ckpt >= 0 ? "the previous one, intact" : "missing (none was saved yet)", dir);
            }
            last_ckpt = ts.step;
        }
        progress_step(&pr, ts.step, ema_loss, lr, val);
        if (!pr.tty && (ts.step % a.log_every == 0 || last || !isnan(val)))
            progress_line(&pr, ts.step, loss, lr, val);
        if (pause) break;
    }
    progress_clear(&pr);
    // whatever ended the loop, the last completed step is saved before exit
    int saved_now = 0;
    if (last_ckpt != ts.step) {
        if (ckpt_try_save(ckpt_path, &m, &ts, mom, vel, err, sizeof err)) {
            if (log_err)
                die("cannot write the log '%s' at step %ld: %s; and %s. The checkpoint on disk is step %ld; free space and continue "
                    "with --resume %s", log_path, ts.step, strerror(log_err), err, last_ckpt, dir);
            die("%s; the checkpoint on disk is %s; continue with --resume %s", err,
                last_ckpt >= 0 ? "the previous one, intact" : "missing (none was saved yet)", dir);
        }
        last_ckpt = ts.step, saved_now = 1;
    }
    if (log_err)
        die("cannot write the log '%s' at step %ld: %s; stopping. The checkpoint of step %ld is saved; free space and continue "
            "with --resume %s", log_path, ts.step, strerror(log_err), ts.step, dir);
    if (fclose(logf) != 0) die("cannot write the log '%s': %s", log_path, strerror(errno));
    int sig = g_stop, paused = a.stop_at && ts.step == a.stop_at && ts.step < ts.steps;
    if (sig || paused) {
        char how[64];
        if (sig) snprintf(how, sizeof how, "received %s: stopped", signame(sig));
        else snprintf(how, sizeof how, "stopped (--stop-at)");
        // the run record holds the data paths unless they were too long to record
        int need_data = !ts.run.data[0], need_val = a.val && !ts.run.val[0];
        fprintf(stderr, "%s at step %ld of %d; %s %s; continue with: posgpt train --resume %s%s%s%s%s\n", how, ts.step,
                ts.steps, saved_now ? "its checkpoint is saved to" : "its checkpoint was already on disk:", ckpt_path, dir,
                need_data ? " --data " : "", need_data ? a.data : "", need_val ? " --val " : "", need_val ? a.val : "");
        if (val_cut) fprintf(stderr, "(the validation under way was cut short and is not logged)\n");
    }
    double total = now_seconds() - pr.t0;
    long done = ts.step - pr.first;
    char valtxt[96];
    if (isnan(ts.val_loss)) snprintf(valtxt, sizeof valtxt, "no validation yet");
    else snprintf(valtxt, sizeof valtxt, "last val loss %.4f (ppl %.3f) at T=%d", ts.val_loss, exp(ts.val_loss), T);
    printf("%s: %ld steps in %.1fs wall (%.0f tokens/s including validation), %s; checkpoint %s\n",
           sig ? "interrupted" : paused ? "stopped" : "done", done, total, total > 0 ? done * (double)B * T / total : 0.0, valtxt,
           ckpt_path);
    free(tok), free(tgt), free(pos), free(mom), free(vel);
    corpus_free(&corpus);
    gpt_free(&m);
    return sig ? 128 + sig : 0;
}
