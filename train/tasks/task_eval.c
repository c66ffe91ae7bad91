// task_eval.c - `posgpt task eval`: exact-match and per-token accuracy of a checkpoint on a
// task's test examples, by length (and by the key's depth for passkey). The prompts are fed
// through the key/value cache in batches of equal prompt length, then the answer is decoded
// greedily one byte at a time (task_decode, task_eval.h says how each is scored). At random positions each example's draws come from (--seed,
// its line number) alone (task_example_positions), so the answers do not depend on --batch.
// A checkpoint trained with a context extension (train --rope-scaling) decodes with it in
// force (a fixed factor: the cache holds it).
#include "args.h"
#include "ckpt.h"
#include "cli.h"
#include "decode.h"
#include "fileio.h"
#include "positions.h"
#include "task_batch.h"
#include "recorded.h"
#include "task_eval.h"
#include "tasks.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const TaskSet *g_set; // for the sorts
static int by_prompt(const void *a, const void *b) {
    const TaskExample *x = &g_set->ex[*(const int *)a], *y = &g_set->ex[*(const int *)b];
    return x->nprompt != y->nprompt ? x->nprompt - y->nprompt : *(const int *)a - *(const int *)b;
}
static int by_len_depth(const void *a, const void *b) {
    const TaskExample *x = &g_set->ex[*(const int *)a], *y = &g_set->ex[*(const int *)b];
    return x->len != y->len ? x->len - y->len : x->depth_pct != y->depth_pct ? x->depth_pct - y->depth_pct : *(const int *)a - *(const int *)b;
}

// the tallies by (length, depth), a CSV row each, from every example's results (right[i], its
// scored bytes right tok_right[i]; final_only as task_decode's)
static void write_accuracies(FILE *f, const TaskSet *set, const char *right, const int *tok_right, int final_only, const char *name,
                             const char *label, int maxlen, long *all, long *allr) {
    int *by = xmalloc((size_t)set->n * sizeof(int));
    for (int i = 0; i < set->n; i++) by[i] = i;
    g_set = set;
    qsort(by, (size_t)set->n, sizeof(int), by_len_depth);
    fprintf(f, "task,scheme,train_max_len,len,depth,examples,correct,accuracy,tokens,tokens_correct,token_accuracy\n");
    *all = *allr = 0;
    for (int i = 0, j; i < set->n; i = j) {
        const TaskExample *x = &set->ex[by[i]];
        long r = 0, nt = 0, tr = 0;
        for (j = i; j < set->n && set->ex[by[j]].len == x->len && set->ex[by[j]].depth_pct == x->depth_pct; j++)
            r += right[by[j]], tr += tok_right[by[j]], nt += set->ex[by[j]].nanswer - task_scored_from(&set->ex[by[j]], final_only);
        fprintf(f, "%s,%s,%d,%d,%d,%d,%ld,%.6f,%ld,%ld,%.6f\n", name, label, maxlen, x->len, x->depth_pct, j - i, r, (double)r / (j - i),
                nt, tr, (double)tr / nt);
        *all += j - i, *allr += r;
    }
    free(by);
}

// flags that would be ignored are refused: the random-position ones without --positions random,
// --clamp-pos for a scheme without a learned table (an output that is an input or the other output:
// refuse_overlaps in task_eval)
static void refuse_ignored(int rand_pos, int clamp, int lim, const char *scheme) {
    if (!rand_pos && (args_given("rand-max") || args_given("seed")))
        die("task eval: --%s applies only with --positions random (these are contiguous positions; a checkpoint trained at "
            "random positions is evaluated at them only when asked)", args_given("rand-max") ? "rand-max" : "seed");
    if (clamp && !lim)
        die("task eval: --clamp-pos applies to a learned position table; the '%s' checkpoint has none (it serves any position)", scheme);
}

// no --task: the task directory the run trained on (its train.txt as recorded, CRC-checked)
static const char *default_task(const char *ckpt, const TrainState *ts) {
    static char dir[CKPT_PATH_BYTES];
    if (ts->run.data_bytes && !ts->run.task)
        die("task eval: '%s' trained on text, not on a task's examples; give --task DIR", ckpt);
    snprintf(dir, sizeof dir, "%s", recorded_text(ckpt, &ts->run, 0, "task eval", "--task DIR"));
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0; // DIR/train.txt -> DIR
    fprintf(stderr, "task eval: scoring %s/test.txt (the run's task; its train.txt's size and CRC-32 as recorded)\n", dir);
    return dir;
}

// --task DIR given: DIR's task.txt must describe the task the checkpoint trained on (the task.txt
// beside its recorded train.txt): the same task, format, BOS and training lengths, so that a model
// is not scored on another task's or format's examples without a word (an lsb model on msb
// sums); --other-task scores it anyway. A text model, or a run whose training folder is gone,
// is scored with a note (hand-made test sets and decoding checks do so on purpose).
static void check_task(const char *ckpt, const TrainState *ts, const char *dir, const TaskSpec *spec, int other) {
    const RunRecord *r = &ts->run;
    if (other || !r->data_bytes) return; // (a v1 checkpoint records nothing to compare)
    if (!r->task) {
        fprintf(stderr, "task eval: note: '%s' trained on text, not on a task's examples; scoring it on %s\n", ckpt, dir);
        return;
    }
    char tdir[CKPT_PATH_BYTES + 16], tt[CKPT_PATH_BYTES + 32];
    snprintf(tdir, sizeof tdir, "%s", r->data);
    char *slash = strrchr(tdir, '/');
    if (slash) *slash = 0; else snprintf(tdir, sizeof tdir, ".");
    snprintf(tt, sizeof tt, "%s/task.txt", tdir);
    if (!r->data[0] || access(tt, R_OK) != 0) {
        fprintf(stderr, "task eval: note: the task the checkpoint trained on (%s) cannot be read now: %s is not compared with it\n",
                r->data[0] ? tt : "its path too long to record", dir);
        return;
    }
    TaskSpec was;
    task_spec_read(&was, tdir);
    if (was.task != spec->task || was.format != spec->format || was.bos != spec->bos || was.max_len != spec->max_len)
        die("task eval: '%s' trained on %s (%s, format %s, BOS %s, lengths 1..%d); %s/task.txt is %s, format %s, BOS %s, lengths "
            "1..%d; --other-task scores it there anyway", ckpt, tdir, was.task->name, task_format_name(was.format),
            was.bos ? "yes" : "no", was.max_len, dir, spec->task->name, task_format_name(spec->format), spec->bos ? "yes" : "no",
            spec->max_len);
}

int task_scored_from(const TaskExample *x, int final_only) {
    int from = 0;
    for (int k = 0; final_only && k < x->nanswer; k++)
        if (x->answer[k] == TASK_SCRATCH_END) from = k + 1;
    return from;
}

int task_decode_final_only(const TaskSpec *spec) { return spec->format == TASK_FMT_SCRATCH; }

// the examples which[0..n), in order of prompt length: a batch holds one prompt length
void task_decode(const GPT *m, const TaskSet *set, int *which, int n, const TaskDecode *o, char *right, int *tok_right) {
    int batch = o->batch, rand_pos = o->rand_max > 0, maxp = 0, ntot = set->max_total; // ntot: a row's stride in rpos
    for (int i = 0; i < n; i++) maxp = set->ex[which[i]].nprompt > maxp ? set->ex[which[i]].nprompt : maxp;
    g_set = set;
    qsort(which, (size_t)n, sizeof(int), by_prompt);
    Decoder d;
    decoder_init(&d, m, batch, ntot, maxp);
    int *tok = xmalloc((size_t)batch * maxp * sizeof(int)), *next = xmalloc((size_t)batch * sizeof(int));
    int *from = xmalloc((size_t)batch * sizeof(int)), *done = xmalloc((size_t)batch * sizeof(int)), *tr = xmalloc((size_t)batch * sizeof(int));
    char *gen = xmalloc((size_t)batch * (ntot + 1)); // each row's answer so far
    // random positions: each row's whole example (prompt and answer) drawn at once, then fed
    // by column: the prompt's (B, np), then one (B, 1) a decoded byte
    int *rpos = rand_pos ? xmalloc((size_t)batch * ntot * sizeof(int)) : NULL;
    int *fpos = rand_pos ? xmalloc((size_t)batch * maxp * sizeof(int)) : NULL;
    int V = m->cfg.V;
    for (int i = 0; i < n;) {
        int np = set->ex[which[i]].nprompt, nb = 0, maxa = 0;
        while (i + nb < n && nb < batch && set->ex[which[i + nb]].nprompt == np) nb++;
        const TaskExample *row[4096]; // (batch <= 4096) rows past nb repeat the last example (not counted)
        for (int b = 0; b < batch; b++) {
            const TaskExample *x = row[b] = &set->ex[which[i + (b < nb ? b : nb - 1)]];
            for (int t = 0; t < np; t++) tok[b * np + t] = (unsigned char)x->prompt[t];
            maxa = x->nanswer > maxa ? x->nanswer : maxa;
            from[b] = task_scored_from(x, o->final_only), done[b] = 0, tr[b] = 0, gen[(size_t)b * (ntot + 1)] = 0;
        }
        decoder_reset(&d);
        for (int b = 0; b < batch && rand_pos; b++) { // each example: its own draws, from (seed, its line) alone
            int k = which[i + (b < nb ? b : nb - 1)];
            task_example_positions(&set->ex[k], k, o->seed, o->rand_max, ntot, rpos + (size_t)b * ntot);
            memcpy(fpos + (size_t)b * np, rpos + (size_t)b * ntot, (size_t)np * sizeof(int));
        }
        const real *lg = decoder_feed(&d, tok, fpos, np);
        // greedy, up to the end mark or the expected answer's length (a longer one is wrong anyway)
        for (int k = 0; k < maxa; k++) {
            int live = 0;
            for (int b = 0; b < batch; b++) {
                const TaskExample *x = row[b];
                int best = 0;
                for (int v = 1; v < V; v++)
                    if (lg[(size_t)b * V + v] > lg[(size_t)b * V + best]) best = v;
                next[b] = best;
                if (done[b]) continue;
                gen[(size_t)b * (ntot + 1) + k] = (char)best, gen[(size_t)b * (ntot + 1) + k + 1] = 0;
                tr[b] += k >= from[b] && best == (unsigned char)x->answer[k]; // (bytes before from[b]: decoded, not scored)
                done[b] = best == TASK_END || k + 1 >= x->nanswer;
                live += !done[b]; // (a wrong answer is decoded on: its later bytes count for per-token accuracy)
            }
            if (!live) break; // every example decoded
            if (rand_pos) // a row past its answer's end is not scored: its last position again
                for (int b = 0; b < batch; b++) {
                    int na = row[b]->nanswer;
                    fpos[b] = rpos[(size_t)b * ntot + np + (k < na ? k : na - 1)];
                }
            lg = decoder_feed(&d, next, fpos, 1);
        }
        for (int b = 0; b < nb; b++) {
            const TaskExample *x = row[b];
            right[which[i + b]] = (char)(tr[b] == x->nanswer - from[b]), tok_right[which[i + b]] = tr[b]; // every scored byte right
            if (o->outputs) fprintf(o->outputs, "%d\t%d\t%.*s%s\n", x->len, x->depth_pct, x->nprompt, x->prompt, gen + (size_t)b * (ntot + 1));
        }
        i += nb;
    }
    decoder_free(&d);
    free(tok), free(next), free(from), free(done), free(tr), free(gen), free(rpos), free(fpos);
}

int task_learn_sample(const TaskSet *test, int max_len, int **which) {
    int *w = xmalloc(((size_t)test->n + 1) * sizeof(int)), n = 0;
    int *seen = xcalloc((size_t)max_len + 1, sizeof(int));
    for (int i = 0; i < test->n; i++) {
        int len = test->ex[i].len;
        if (len >= 1 && len <= max_len && seen[len] < TASK_LEARN_PER_LEN) seen[len]++, w[n++] = i;
    }
    free(seen);
    *which = w;
    return n;
}

int task_eval(int argc, char **argv) {
    const char *ckpt = NULL, *dir = NULL, *csv = NULL, *outputs = NULL, *positions = "contiguous";
    int batch = 64, threads = 0, clamp = 0, rand_max = 0, other = 0;
    long seed = 1;
    ArgDef defs[] = {{"ckpt", ARG_STR, &ckpt, "checkpoint (required)"},
                     {"task", ARG_STR, &dir, "task directory (posgpt task gen): its test.txt is scored (default: the run's own, as its "
                                                            "checkpoint records it, CRC-checked)"},
                     {"other-task", ARG_FLAG, &other, "with --task: score it though it is not the task the checkpoint trained on "
                                                      "(another task, format, BOS or training lengths, else refused)"},
                     {"csv", ARG_STR, &csv, "write the accuracies here (default: standard output)"},
                     {"outputs", ARG_STR, &outputs, "write every example with the answer the model gave (test.txt's format)"},
                     {"batch", ARG_INT, &batch, "examples decoded together", 1, 4096},
                     {"clamp-pos", ARG_FLAG, &clamp, "learned tables: positions past the last row use the last row"},
                     {"positions", ARG_STR, &positions, "contiguous | random (each example at sorted draws from [0, --rand-max), Ruoss et al. 2023)"},
                     {"rand-max", ARG_INT, &rand_max, "random positions: range; 0 = the checkpoint's rand-max", 0, 1 << 24},
                     {"seed", ARG_LONG, &seed, "seed for random positions", 0, 9e18},
                     {"threads", ARG_INT, &threads, "threads (0 = OpenMP's own count: OMP_NUM_THREADS, else one per core)", 0, 4096},
                     {NULL}};
    args_parse(argc, argv, 3, defs, NULL, "task eval", "--ckpt FILE [--task DIR] [flags]", NULL, 0);
    if (!ckpt) die("task eval: --ckpt FILE is required (see posgpt task eval --help)");
    int rand_pos = positions_parse("task eval: ", positions);
    GPT m;
    TrainState ts;
    ckpt_load(ckpt, &m, &ts, NULL);
    if (args_given("other-task") && !dir) die("task eval: --other-task applies only with --task DIR");
    int given = dir != NULL;
    if (!dir) dir = default_task(ckpt, &ts);
    char path[4200], label[64];
    char test_txt[4200], task_txt[4200], train_txt[4200]; // the task's training set is no output either
    snprintf(test_txt, sizeof test_txt, "%s/test.txt", dir), snprintf(task_txt, sizeof task_txt, "%s/task.txt", dir);
    snprintf(train_txt, sizeof train_txt, "%s/train.txt", dir);
    refuse_overlaps((NamedPath[]){{"--csv", csv}, {"--outputs", outputs}}, 2,
                    (NamedPath[]){{"the checkpoint --ckpt", ckpt}, {"the task's test set", test_txt}, {"the task's description", task_txt},
                                  {"the task's training set", train_txt}}, 4);
    TaskSpec spec; // the task, its training lengths and its format (a scratch one: final answers scored)
    task_spec_read(&spec, dir);
    if (given) check_task(ckpt, &ts, dir, &spec, other);
    const char *name = spec.task->name;
    snprintf(path, sizeof path, "%s/test.txt", dir);
    TaskSet set;
    taskset_read(&set, path);
    m.clamp_pos = clamp;
    int lim = gpt_max_pos(&m);
    refuse_ignored(rand_pos, clamp, lim, m.cfg.scheme);
    runtime_setup(threads);
    if (rand_pos) rand_max = positions_eval_range("task eval: ", rand_max, ts.rand_max);
    if (rand_pos && set.max_total > rand_max)
        die("task eval: the longest test example has %d bytes, more than --rand-max %d distinct positions", set.max_total, rand_max);
    if (rand_pos && lim && rand_max > lim && !clamp && set.max_total <= lim)
        die("task eval: random positions reach %d; the '%s' checkpoint serves %d positions (pass --rand-max %d to %d, or --clamp-pos)",
            rand_max - 1, m.cfg.scheme, lim, set.max_total, lim);
    if (rand_pos && lim && rand_max > lim && !clamp) // no range both fits the table and holds the longest example
        die("task eval: random positions reach %d; the '%s' checkpoint serves %d positions, fewer than the longest test example's "
            "%d bytes (pass --clamp-pos to use its last row beyond them)", rand_max - 1, m.cfg.scheme, lim, set.max_total);
    if (!rand_pos && lim && set.max_total > lim && !clamp)
        die("task eval: the longest test example has %d bytes; the '%s' checkpoint serves %d positions (pass --clamp-pos to "
            "use its last row beyond them)", set.max_total, m.cfg.scheme, lim);
    int *order = xmalloc((size_t)set.n * sizeof(int));
    for (int i = 0; i < set.n; i++) order[i] = i;
    char *right = xcalloc((size_t)set.n, 1);                    // each example's result
    int *tok_right = xcalloc((size_t)set.n, sizeof(int));       // and its answer bytes right
    OutFile oo, o;
    FILE *fo = outputs ? out_open(&oo, outputs, "outputs file") : NULL;
    FILE *f = csv ? out_open(&o, csv, "accuracy CSV") : stdout; // opened now: a path that cannot be written fails before the work
    // the run's label (+ the context extension it was trained with, as eval's rows: rope+pi); a
    // model trained at random positions evaluated at contiguous ones says so
    run_label(m.cfg.scheme, ts.rand_max, label, sizeof label);
    run_label_extension(label, sizeof label, m.cfg.ext_method);
    if (ts.rand_max && !rand_pos) snprintf(label + strlen(label), sizeof label - strlen(label), " (contiguous eval)");
    double t0 = now_seconds();
    TaskDecode how = {batch, rand_pos ? rand_max : 0, (uint64_t)seed, fo, task_decode_final_only(&spec)};
    task_decode(&m, &set, order, set.n, &how, right, tok_right);
    double secs = now_seconds() - t0;
    long all, allr;
    write_accuracies(f, &set, right, tok_right, how.final_only, name, label, spec.max_len, &all, &allr);
    if (csv) out_commit(&o);
    if (fo) out_commit(&oo);
    fprintf(stderr, "%s on %s: %ld of %ld test examples exactly right (%.1f%%), %.1f s\n", label, name, allr, all, 100.0 * allr / all,
            secs);
    free(order), free(right), free(tok_right);
    taskset_free(&set);
    gpt_free(&m);
    return 0;
}
