// cmd_eval.c - `posgpt eval`: score a checkpoint on held-out text at several lengths with
// the nonoverlapping and/or sliding-window protocols; one CSV row per (length, protocol);
// optionally the mean loss at each index of the window (--per-position FILE).
#include "args.h"
#include "ckpt.h"
#include "cli.h"
#include "data.h"
#include "evaluate.h"
#include "fileio.h"
#include "positions.h"
#include "recorded.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>

// comma-separated integers in [lo, hi] for flag --name
static int parse_list(const char *name, const char *s, int *out, int max, long lo, long hi) {
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',')) die("--%s: '%s' is not a comma-separated list of integers", name, s);
        if (v < lo || v > hi) die("--%s: %ld is out of range [%ld, %ld]", name, v, lo, hi);
        if (n >= max) die("--%s: at most %d values", name, max);
        out[n++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (!n) die("--%s is empty", name);
    return n;
}

// flags about what the checkpoint brings (its extension, its random positions, its table) are
// refused when they would be ignored, naming what the checkpoint has and the command that works
static void check_inherited(const char *ckpt, const GPT *m, const TrainState *ts, int extend, int rand_pos, int rand_max) {
    const char *ext = m->cfg.ext_method;
    for (int k = 0; k < 2; k++) {
        const char *flag = k ? "rope-window" : "rope-factor", *method = k ? "rerope" : "pi|ntk|dynamic-ntk|yarn";
        if (!args_given(flag) || extend) continue; // the method checks its own settings
        if (args_given("rope-scaling")) die("--%s: --rope-scaling none applies no extension (drop --%s)", flag, flag);
        if (!ext[0]) die("--%s needs --rope-scaling %s", flag, method);
        die("--%s: the checkpoint '%s' applies the extension it was trained with (%s, factor %g), which takes no flags; to "
            "evaluate with another setting name the method again: posgpt eval --ckpt %s --rope-scaling %s --%s ...", flag, ckpt,
            ext, m->cfg.ext_factor, ckpt, k ? "rerope" : ext, flag);
    }
    if (!rand_pos && args_given("rand-max") && ts->rand_max)
        die("--rand-max %d: eval scores at contiguous positions unless --positions random (the checkpoint '%s' was trained at "
            "random positions from [0, %d), which eval uses only when asked); to score at random positions: posgpt eval --ckpt "
            "%s --positions random --rand-max %d ...", rand_max, ckpt, ts->rand_max, ckpt, rand_max);
    if (!rand_pos && args_given("rand-max"))
        die("--rand-max applies only with --positions random (the checkpoint '%s' was trained at contiguous positions)", ckpt);
    if (args_given("clamp-pos") && !gpt_max_pos(m))
        die("--clamp-pos applies to a learned position table; the '%s' checkpoint '%s' has none (it serves every position)",
            m->cfg.scheme, ckpt);
}

// --ci: the 95% bootstrap interval of the loss (and so of ppl = exp(loss)), as CSV columns
#define CI_RESAMPLES_DEFAULT 1000
#define CI_SEED 0xc1b007ULL // fixed: the same interval on every run
// A resample of blocks of b windows out of K has about K / b blocks: with fewer than 2 (b > K /
// 2) every resample is nearly the whole text in order and the interval collapses towards zero
// width, so none is given (nan). Few blocks narrow it too (docs/usage.md); the default keeps
// K^(2/3) of them.
#define CI_MIN_BLOCKS 2
// and the block of windows it resampled by (ci_block: block 0 = eval_ci_block's default)
static long ci_columns(FILE *out, const EvalResult *r, int resamples, long block, double ci[2]) {
    if (!resamples) return 0;
    if (!block) block = eval_ci_block(r->windows);
    if (r->windows / block >= CI_MIN_BLOCKS) eval_bootstrap_ci(r, resamples, block, CI_SEED, &ci[0], &ci[1]);
    else ci[0] = ci[1] = NAN;
    fprintf(out, ",%.6f,%.6f,%.4f,%.4f,%ld", ci[0], ci[1], exp(ci[0]), exp(ci[1]), block);
    return block;
}

// --per-window: each window's mean loss over the targets it scores, keyed so that two
// checkpoints evaluated on the same text and lengths pair up (tools/paired.sh)
static FILE *per_window_open(OutFile *o, const char *path) {
    if (!path) return NULL;
    FILE *f = out_open(o, path, "per-window CSV");
    fprintf(f, "scheme,train_len,eval_len,protocol,stride,pos_offset,window,tokens,loss\n");
    return f;
}
static void per_window_rows(FILE *f, const char *label, int T, int L, const char *pname, int S, int offset, const EvalResult *r) {
    if (!f) return;
    for (long k = 0; k < r->windows; k++)
        fprintf(f, "%s,%d,%d,%s,%d,%d,%ld,%ld,%.6f\n", label, T, L, pname, S, offset, k, r->win_tokens[k],
                r->win_loss[k] / r->win_tokens[k]);
}

// --lengths: comma-separated window lengths, each a number of tokens or a whole multiple of
// the training length T ("2x"); every length in [1, 2^24]
static int parse_lengths(const char *s, int T, int *out, int max) {
    int n = 0;
    for (const char *p = s; *p;) {
        char *end;
        int w = (int)strcspn(p, ","); // the element, for messages
        errno = 0;
        long v = strtol(p, &end, 10);
        int mult = end > p && *end == 'x';
        if (end == p || end + mult != p + w)
            die("--lengths: '%.*s' is not a length (a comma-separated list of N tokens or Kx: K times the training length %d, "
                "K a whole number)", w, p, T);
        if (mult && v < 1) die("--lengths: '%.*s' is not a multiple of the training length: K in Kx must be 1 or more", w, p);
        double len = mult ? (double)v * T : (double)v;
        if (errno || len < 1 || len > (1 << 24)) die("--lengths: '%.*s' is out of range: lengths are 1 to %d", w, p, 1 << 24);
        if (n >= max) die("--lengths: at most %d values", max);
        for (int i = 0; i < n; i++)
            if (out[i] == (int)len) die("--lengths: %d is given twice ('%.*s'); give each length once", (int)len, w, p);
        out[n++] = (int)len;
        end += mult;
        if (*end && !end[1]) die("--lengths: '%s' ends with a comma; give a length after each comma", s);
        p = *end ? end + 1 : end;
    }
    if (!n) die("--lengths is empty");
    return n;
}

// no --data or --val: the text the run validated on, from its record, CRC-checked (recorded.h):
// its --val, or the last 10% of its --data (--all: the whole of its --data)
static void default_text(const char *ckpt, const TrainState *ts, int all, const char **data, const char **val) {
    if (*data || *val) return;
    if (ts->run.task)
        die("eval: '%s' trained on a task's examples; give --data FILE or --val FILE (or score it with posgpt task eval)", ckpt);
    if (ts->run.val_bytes && !all) *val = recorded_text(ckpt, &ts->run, 1, "eval", "--val FILE");
    else *data = recorded_text(ckpt, &ts->run, 0, "eval", "--data FILE");
    fprintf(stderr, "eval: scoring %s%s (the run's own, size and CRC-32 as recorded)\n", *val ? *val : *data,
            *val ? "" : all ? "" : ", its last 10%");
}

int cmd_eval(int argc, char **argv) {
    const char *ckpt = NULL, *data = NULL, *val = NULL, *lengths = NULL, *protocol = "nonoverlapping", *csv = NULL;
    const char *per_pos = NULL, *per_win = NULL, *positions = "contiguous", *offsets = "0", *scaling = "none";
    const char *precision = "fp32";
    int stride = 0, batch_tokens = 8192, threads = 0, clamp = 0, rand_max = 0, all = 0, ci = 0, resamples = CI_RESAMPLES_DEFAULT;
    long max_tokens = 65536, seed = 1, ci_block = 0;
    double factor = 0;
    int window = 0;
    ArgDef defs[] = {
        {"ckpt", ARG_STR, &ckpt, "checkpoint (model.bin) to evaluate"},
        {"data", ARG_STR, &data, "text file; its last 10% is scored (the training split). Without --data and --val: the "
                                 "text the run validated on, as its checkpoint records it (CRC-checked)"},
        {"val", ARG_STR, &val, "score this file instead (all of it)"},
        {"all", ARG_FLAG, &all, "score the whole --data file, not its last 10%"},
        {"lengths", ARG_STR, &lengths, "comma-separated window lengths, in tokens or as Kx = K times the training length, e.g. "
                                       "64,1x,2x,16x (default: the training length)"},
        {"protocol", ARG_STR, &protocol, "nonoverlapping | sliding | both"},
        {"stride", ARG_INT, &stride, "sliding: tokens scored per window; 0 = length/4", 0, 1 << 24},
        {"max-tokens", ARG_LONG, &max_tokens, "score the first N targets of the text, in consecutive windows from its start "
                                              "(0 = all: the whole held-out split)", 0, 1e15},
        {"batch-tokens", ARG_INT, &batch_tokens, "tokens per forward pass (windows batched up to this)", 1, 1 << 28},
        {"positions", ARG_STR, &positions, "contiguous | random (sorted draws from [0, --rand-max))"},
        {"rand-max", ARG_INT, &rand_max, "random positions: range; 0 = the checkpoint's rand-max", 0, 1 << 24},
        {"pos-offset", ARG_STR, &offsets, "contiguous positions start at K instead of 0; a list K1,K2,... gives a row each (the shift test)"},
        {"rope-scaling", ARG_STR, &scaling, "rotary checkpoints: none | pi | ntk | dynamic-ntk | yarn | rerope (context extension, no retraining)"},
        {"rope-factor", ARG_FLOAT, &factor, "scale s of pi/ntk/yarn (0 = eval length / train length); dynamic-ntk: alpha (0 = 1)", 0, 1e6},
        {"rope-window", ARG_INT, &window, "rerope: distances >= W rotate as W (0 = the training length); the CSV's scale column holds W", 0, 1 << 24},
        {"clamp-pos", ARG_FLAG, &clamp, "positions past a learned table reuse its last row (default: error)"},
        {"seed", ARG_LONG, &seed, "seed for random positions", 0, 9e18},
        {"csv", ARG_STR, &csv, "write results here (default: print CSV to stdout)"},
        {"per-position", ARG_STR, &per_pos, "write mean loss by window index to this CSV"},
        {"ci", ARG_FLAG, &ci, "add a 95% bootstrap interval over the windows (fixed seed) of loss and ppl, resampled by "
                              "blocks of neighbouring windows: columns loss_ci_low,loss_ci_high,ppl_ci_low,ppl_ci_high,ci_block"},
        {"ci-block", ARG_LONG, &ci_block, "--ci: resample blocks of N consecutive windows, which keeps the text's correlation "
                                          "between neighbours (0 = the cube root of the windows' count, rounded; 1 = windows as "
                                          "independent; a length with fewer than 2 blocks of N gets no interval: nan)", 0, 1e15},
        {"ci-resamples", ARG_INT, &resamples, "--ci: bootstrap resamples (at least 100: the interval's ends are the 2.5th and 97.5th percentiles of them)", 100, 1 << 24},
        {"per-window", ARG_STR, &per_win, "write each window's mean loss to this CSV (compare two checkpoints: tools/paired.sh)"},
        {"threads", ARG_INT, &threads, "threads (0 = OpenMP's own count: OMP_NUM_THREADS, else one per core)", 0, 4096},
        {"precision", ARG_STR, &precision, "the matrix products' inputs: fp32 | bf16 (rounded to bfloat16, summed in fp32; "
                                           "needs a CPU with AVX512-BF16 or AMX); whatever the model trained in"},
        {NULL}};
    args_parse(argc, argv, 2, defs, NULL, "eval", "--ckpt FILE [--data FILE] [flags]", NULL, 0);
    if (!ckpt) die("eval: --ckpt FILE is required (see posgpt eval --help)");
    if (data && val) die("eval: --val FILE is scored instead of --data's held-out part: give one of them");
    if (all && val) die("eval: --all scores the whole --data file; --val is scored whole already (drop --all)");
    int nonov = !strcmp(protocol, "nonoverlapping") || !strcmp(protocol, "both");
    int slide = !strcmp(protocol, "sliding") || !strcmp(protocol, "both");
    if (!nonov && !slide) die("--protocol must be nonoverlapping, sliding or both, got '%s'", protocol);
    if (!slide && args_given("stride")) die("--stride applies to the sliding protocol: give --protocol sliding or both");
    int rand_pos = positions_parse("", positions);
    if (!rand_pos && args_given("seed")) die("--seed draws random positions: it applies only with --positions random");
    int offs[64];
    int noff = parse_list("pos-offset", offsets, offs, 64, 0, 1 << 28);
    if (rand_pos && (noff > 1 || offs[0])) die("--pos-offset applies to contiguous positions only");
    // a context extension by name; the scheme checks that it knows it and its settings
    int extend = strcmp(scaling, "none") != 0;
    if (extend && !pos_extension_known(scaling)) {
        char list[160] = "none";
        const char *names = pos_extension_names();
        for (const char *p = names, *e; p; p = e ? e + 1 : NULL) { // "none, a, b or c"
            e = strchr(p, '|');
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%.*s", e ? ", " : " or ", e ? (int)(e - p) : (int)strlen(p), p);
        }
        die("--rope-scaling must be %s, got '%s'", list, scaling);
    }
    if (factor != 0 && factor < 1) die("--rope-factor must be 0 (from the length) or >= 1, got %g", factor);
    if (args_given("ci-resamples") && !ci) die("--ci-resamples applies only with --ci");
    if (args_given("ci-block") && !ci) die("--ci-block applies only with --ci");
    if (!ci) resamples = 0;
    int bf16 = precision_parse(precision);
    if (bf16) require_bf16_cpu("eval --precision bf16", "drop the flag to evaluate in fp32");

    GPT m;
    TrainState ts;
    ckpt_load(ckpt, &m, &ts, NULL);
    check_inherited(ckpt, &m, &ts, extend, rand_pos, rand_max);
    default_text(ckpt, &ts, all, &data, &val);
    refuse_overlaps((NamedPath[]){{"--csv", csv}, {"--per-position", per_pos}, {"--per-window", per_win}}, 3,
                    (NamedPath[]){{"the checkpoint --ckpt", ckpt}, {"--data", data}, {"--val", val}}, 3);
    m.clamp_pos = clamp;
    runtime_setup(threads);
    if (bf16) precision_start_bf16("evaluation's matrix products");
    const GPTConfig *c = &m.cfg;
    const PosState *ps = gpt_scheme(&m, 0);
    char why[256];
    // a model trained with an extension (train --rope-scaling) has it in force; --rope-scaling
    // replaces it (none: removes it)
    int given = args_given("rope-scaling");
    if (given && (extend || c->ext_method[0]) &&
        gpt_extend(&m, &(PosExtension){.method = scaling, .factor = factor, .train_len = c->T, .window = window}, why, sizeof why))
        die("--rope-scaling %s: %s", scaling, why);
    if (!given && c->ext_method[0]) scaling = c->ext_method, extend = 1;
    if (rand_pos) rand_max = positions_eval_range("", rand_max, ts.rand_max);
    int lens[64];
    int nlen = lengths ? parse_lengths(lengths, c->T, lens, 64) : (lens[0] = c->T, 1);

    // the text to score: by default the training run's held-out split
    const uint8_t *text;
    size_t n;
    Corpus corpus = {0};
    uint8_t *whole = NULL;
    if (val) whole = read_file(val, &n), text = whole;
    else if (all) whole = read_file(data, &n), text = whole;
    else {
        corpus_load(&corpus, data, NULL);
        text = corpus.val, n = corpus.nval;
    }
    // check every length before spending time on any
    int lim = gpt_max_pos(&m);
    int maxoff = 0;
    for (int k = 0; k < noff; k++) maxoff = offs[k] > maxoff ? offs[k] : maxoff;
    for (int i = 0; i < nlen; i++) {
        int maxp = rand_pos ? rand_max - 1 : maxoff + lens[i] - 1;
        if (rand_pos && lens[i] > rand_max) die("length %d exceeds --rand-max %d: cannot draw distinct random positions", lens[i], rand_max);
        if (lim && maxp >= lim && !clamp)
            die("length %d needs position %d but this '%s' checkpoint serves positions 0..%d (its table has %d rows); "
                "evaluate at <= %d or pass --clamp-pos", lens[i], maxp, c->scheme, lim - 1, lim, lim);
    }
    OutFile oc, op;
    FILE *out = csv ? out_open(&oc, csv, "CSV") : stdout;
    FILE *pp = per_pos ? out_open(&op, per_pos, "per-position CSV") : NULL;
    OutFile ow;
    FILE *pw = per_window_open(&ow, per_win);
    char label[64];
    run_label(c->scheme, ts.rand_max, label, sizeof label);
    if (extend) run_label_extension(label, sizeof label, scaling);
    // (a bf16 evaluation's rows name it: beside the fp32 rows of the same checkpoint they are
    // another series, e.g. rope+bf16, not more points of rope's)
    if (bf16) run_label_extension(label, sizeof label, "bf16");
    fprintf(out, "scheme,train_len,eval_len,protocol,stride,tokens,loss,ppl,bpc,positions,pos_offset,windows,step,scaling,scale%s\n",
            ci ? ",loss_ci_low,loss_ci_high,ppl_ci_low,ppl_ci_high,ci_block" : "");
    if (pp) fprintf(pp, "scheme,train_len,eval_len,protocol,stride,position,loss,count\n");
    for (int oi = 0; oi < noff; oi++)
    for (int i = 0; i < nlen; i++)
        for (int pr = 0; pr < 2; pr++) {
            int offset = offs[oi];
            if ((pr == 0 && !nonov) || (pr == 1 && !slide)) continue;
            int L = lens[i];
            int S = pr == 0 ? L : (stride ? stride : (L / 4 > 0 ? L / 4 : 1));
            if (S > L) S = L;
            EvalSpec sp = {.len = L, .stride = S, .max_tokens = max_tokens,
                           .batch = batch_tokens / L > 0 ? batch_tokens / L : 1, .rand_max = rand_pos ? rand_max : 0,
                           .offset = offset, .seed = (uint64_t)seed, .progress = 1, .per_window = ci || pw};
            EvalResult r;
            evaluate(&m, text, n, &sp, pp != NULL, &r);
            if (!isfinite(r.loss))
                die("the loss at length %d is not finite (%g): the model overflows there, so no number is written%s", L,
                    r.loss, csv ? "" : " for it");
            const char *pname = pr == 0 ? "nonoverlapping" : "sliding";
            fprintf(out, "%s,%d,%d,%s,%d,%ld,%.6f,%.4f,%.5f,%s,%d,%ld,%ld,%s,%g", label, c->T, L, pname, S, r.tokens, r.loss,
                    exp(r.loss), r.loss / log(2.0), positions, offset, r.windows, ts.step, scaling,
                    extend ? ps->scheme->extension_value(ps, L) : 1.0);
            double cib[2] = {NAN, NAN};
            long blk = ci_columns(out, &r, resamples, ci_block, cib);
            fprintf(out, "\n");
            per_window_rows(pw, label, c->T, L, pname, S, offset, &r);
            free(r.win_loss), free(r.win_tokens);
            if (out_flush_check(out)) die("cannot write %s: %s", csv ? csv : "to standard output", strerror(errno));
            fprintf(stderr, "  %-22s L=%-6d %-14s stride %-6d offset %-6d tokens %-8ld loss %.4f ppl %.3f", label, L, pname,
                    S, offset, r.tokens, r.loss, exp(r.loss));
            if (resamples && isnan(cib[0]) && r.windows >= 2) // (a --ci-block too long for this length's windows)
                fprintf(stderr, " (no 95%% CI: blocks of %ld leave fewer than %d blocks in %ld windows; a smaller --ci-block, or "
                        "more --max-tokens)", blk, CI_MIN_BLOCKS, r.windows);
            else if (resamples && isnan(cib[0])) // (more targets help only where the text has them)
                fprintf(stderr, " (no 95%% CI: one window; %s)", max_tokens && (size_t)max_tokens + 1 < n
                        ? "raise --max-tokens" : "the held-out text holds no second one: a longer --val or --data");
            else if (resamples) fprintf(stderr, " (95%% CI %.3f to %.3f, blocks of %ld window%s)", exp(cib[0]), exp(cib[1]), blk, blk == 1 ? "" : "s");
            fprintf(stderr, "\n");
            if (pp) {
                for (int t = 0; t < L; t++)
                    if (r.pos_count[t]) fprintf(pp, "%s,%d,%d,%s,%d,%d,%.6f,%ld\n", label, c->T, L, pname, S, t, r.pos_loss[t], r.pos_count[t]);
                free(r.pos_loss), free(r.pos_count);
            }
        }
    OutFile *outs[3] = {csv ? &oc : NULL, pp ? &op : NULL, pw ? &ow : NULL};
    out_commit_all(outs, 3); // (together: a per-window file that cannot be written replaces no --csv)
    free(whole);
    corpus_free(&corpus);
    gpt_free(&m);
    return 0;
}
