// task_eval.c - `posgpt task eval`: exact-match accuracy of a checkpoint on a task's test
// examples, by length (and by the key's depth for passkey). The prompts are fed through the
// key/value cache in batches of equal prompt length, then the answer is decoded greedily one
// byte at a time; an example counts as correct when every byte up to and including the end
// mark ';' is the expected one.
#include "args.h"
#include "ckpt.h"
#include "cli.h"
#include "decode.h"
#include "fileio.h"
#include "positions.h"
#include "recorded.h"
#include "tasks.h"

#include <stdlib.h>
#include <string.h>

// "key = value" of a task.txt, or NULL
static const char *meta(const char *text, const char *key, char *buf, size_t n) {
    size_t k = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, key, k) && !strncmp(p + k, " = ", 3)) {
            const char *v = p + k + 3, *e = strchr(v, '\n');
            snprintf(buf, n, "%.*s", (int)(e ? e - v : (long)strlen(v)), v);
            return buf;
        }
    return NULL;
}

static const TaskSet *g_set; // for the sort
static int by_prompt(const void *a, const void *b) {
    const TaskExample *x = &g_set->ex[*(const int *)a], *y = &g_set->ex[*(const int *)b];
    return x->nprompt != y->nprompt ? x->nprompt - y->nprompt : *(const int *)a - *(const int *)b;
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

int task_eval(int argc, char **argv) {
    const char *ckpt = NULL, *dir = NULL, *csv = NULL, *outputs = NULL, *positions = "contiguous";
    int batch = 64, threads = 0, clamp = 0, rand_max = 0;
    long seed = 1;
    ArgDef defs[] = {{"ckpt", ARG_STR, &ckpt, "checkpoint (required)"},
                     {"task", ARG_STR, &dir, "task directory (posgpt task gen): its test.txt is scored (default: the run's own, as its "
                                                            "checkpoint records it, CRC-checked)"},
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
    if (!dir) dir = default_task(ckpt, &ts);
    char path[4200], name[64] = "?", maxlen[32] = "0", label[64];
    snprintf(path, sizeof path, "%s/task.txt", dir);
    size_t n;
    char *desc = (char *)read_regular_file(path, "task description", 1 << 20, &n);
    if (!meta(desc, "task", name, sizeof name) || !task_find(name)) die("task eval: '%s' names no task (posgpt task gen writes it)", path);
    meta(desc, "max_len", maxlen, sizeof maxlen);
    free(desc);
    snprintf(path, sizeof path, "%s/test.txt", dir);
    TaskSet set;
    taskset_read(&set, path);
    m.clamp_pos = clamp;
    runtime_setup(threads);
    if (rand_pos) rand_max = positions_eval_range("task eval: ", rand_max, ts.rand_max);
    if (rand_pos && set.max_total > rand_max)
        die("task eval: the longest test example has %d bytes, more than --rand-max %d distinct positions", set.max_total, rand_max);
    int lim = gpt_max_pos(&m);
    if (rand_pos && lim && rand_max > lim && !clamp)
        die("task eval: random positions reach %d; the '%s' checkpoint serves %d positions (pass a smaller --rand-max)", rand_max - 1,
            m.cfg.scheme, lim);
    if (!rand_pos && lim && set.max_total > lim && !clamp)
        die("task eval: the longest test example has %d bytes; the '%s' checkpoint serves %d positions (pass --clamp-pos to "
            "use its last row beyond them)", set.max_total, m.cfg.scheme, lim);
    // examples in order of prompt length; a batch holds one prompt length
    int *order = xmalloc((size_t)set.n * sizeof(int)), maxp = 0, maxlen_ex = 0, maxdep = 0;
    for (int i = 0; i < set.n; i++) {
        order[i] = i;
        maxp = set.ex[i].nprompt > maxp ? set.ex[i].nprompt : maxp;
        maxlen_ex = set.ex[i].len > maxlen_ex ? set.ex[i].len : maxlen_ex;
        maxdep = set.ex[i].depth_pct > maxdep ? set.ex[i].depth_pct : maxdep;
    }
    g_set = &set;
    qsort(order, (size_t)set.n, sizeof(int), by_prompt);
    // tallies by (length, depth)
    long *total = xcalloc((size_t)(maxlen_ex + 1) * 101, sizeof(long)), *right = xcalloc((size_t)(maxlen_ex + 1) * 101, sizeof(long));
    Decoder d;
    decoder_init(&d, &m, batch, set.max_total, maxp);
    int *tok = xmalloc((size_t)batch * maxp * sizeof(int)), *next = xmalloc((size_t)batch * sizeof(int));
    int *ok = xmalloc((size_t)batch * sizeof(int)), *done = xmalloc((size_t)batch * sizeof(int));
    char *gen = xmalloc((size_t)batch * (set.max_total + 1)); // each row's answer so far
    // random positions: each row's whole example (prompt and answer) drawn at once, then fed
    // by column: the prompt's (B, np), then one (B, 1) a decoded byte
    int *rpos = rand_pos ? xmalloc((size_t)batch * set.max_total * sizeof(int)) : NULL;
    int *fpos = rand_pos ? xmalloc((size_t)batch * maxp * sizeof(int)) : NULL;
    Rng rng;
    rng_seed(&rng, (uint64_t)seed);
    OutFile oo;
    FILE *fo = outputs ? out_open(&oo, outputs, "outputs file") : NULL;
    int V = m.cfg.V;
    // the run's label; a model trained at random positions evaluated at contiguous ones says so
    run_label(m.cfg.scheme, ts.rand_max, label, sizeof label);
    if (ts.rand_max && !rand_pos) snprintf(label + strlen(label), sizeof label - strlen(label), " (contiguous eval)");
    double t0 = now_seconds();
    for (int i = 0; i < set.n;) {
        int np = set.ex[order[i]].nprompt, nb = 0, maxa = 0;
        while (i + nb < set.n && nb < batch && set.ex[order[i + nb]].nprompt == np) nb++;
        for (int b = 0; b < batch; b++) { // rows past nb repeat the last example (not counted)
            const TaskExample *x = &set.ex[order[i + (b < nb ? b : nb - 1)]];
            for (int t = 0; t < np; t++) tok[b * np + t] = (unsigned char)x->prompt[t];
            maxa = x->nanswer > maxa ? x->nanswer : maxa;
            ok[b] = 1, done[b] = 0;
        }
        decoder_reset(&d);
        int ntot = set.max_total; // a row's stride in rpos
        for (int b = 0; b < batch && rand_pos; b++) { // each example: as many draws as its own bytes
            const TaskExample *x = &set.ex[order[i + (b < nb ? b : nb - 1)]];
            positions_draw(rpos + (size_t)b * ntot, 1, np + x->nanswer, 0, rand_max, &rng);
            memcpy(fpos + (size_t)b * np, rpos + (size_t)b * ntot, (size_t)np * sizeof(int));
        }
        const real *lg = decoder_feed(&d, tok, fpos, np);
        // greedy, up to the end mark or the expected answer's length (a longer one is wrong anyway)
        for (int k = 0; k < maxa; k++) {
            int live = 0;
            for (int b = 0; b < batch; b++) {
                const TaskExample *x = &set.ex[order[i + (b < nb ? b : nb - 1)]];
                int best = 0;
                for (int v = 1; v < V; v++)
                    if (lg[(size_t)b * V + v] > lg[(size_t)b * V + best]) best = v;
                next[b] = best;
                if (done[b]) continue;
                gen[(size_t)b * (set.max_total + 1) + k] = (char)best, gen[(size_t)b * (set.max_total + 1) + k + 1] = 0;
                if (best != (unsigned char)x->answer[k]) ok[b] = 0;
                done[b] = best == TASK_END || k + 1 >= x->nanswer;
                live += !done[b] && (ok[b] || fo);
            }
            if (!live) break; // every example decided (and, for --outputs, written out)
            if (rand_pos) // a row past its answer's end is not scored: its last position again
                for (int b = 0; b < batch; b++) {
                    int na = set.ex[order[i + (b < nb ? b : nb - 1)]].nanswer;
                    fpos[b] = rpos[(size_t)b * ntot + np + (k < na ? k : na - 1)];
                }
            lg = decoder_feed(&d, next, fpos, 1);
        }
        for (int b = 0; b < nb; b++) {
            const TaskExample *x = &set.ex[order[i + b]];
            total[(size_t)x->len * 101 + x->depth_pct]++, right[(size_t)x->len * 101 + x->depth_pct] += ok[b];
            if (fo) fprintf(fo, "%d\t%d\t%.*s%s\n", x->len, x->depth_pct, x->nprompt, x->prompt, gen + (size_t)b * (set.max_total + 1));
        }
        i += nb;
    }
    double secs = now_seconds() - t0;
    OutFile o;
    FILE *f = csv ? out_open(&o, csv, "accuracy CSV") : stdout;
    fprintf(f, "task,scheme,train_max_len,len,depth,examples,correct,accuracy\n");
    long all = 0, allr = 0;
    for (int L = 1; L <= maxlen_ex; L++)
        for (int dp = 0; dp <= 100; dp++) {
            long t = total[(size_t)L * 101 + dp], r = right[(size_t)L * 101 + dp];
            if (!t) continue;
            fprintf(f, "%s,%s,%s,%d,%d,%ld,%ld,%.6f\n", name, label, maxlen, L, dp,
                    t, r, (double)r / t);
            all += t, allr += r;
        }
    if (csv) out_commit(&o);
    if (fo) out_commit(&oo);
    fprintf(stderr, "%s on %s: %ld of %ld test examples exactly right (%.1f%%), %.1f s\n", label, name, allr, all, 100.0 * allr / all,
            secs);
    decoder_free(&d);
    free(order), free(total), free(right), free(tok), free(next), free(ok), free(done), free(gen), free(rpos), free(fpos);
    taskset_free(&set);
    gpt_free(&m);
    return 0;
}
