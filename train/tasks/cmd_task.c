// cmd_task.c - `posgpt task gen`: write a task's train and test files (tasks.h, docs/tasks.md);
// `posgpt task eval`: exact-match accuracy of a checkpoint on a test file, by length (and by
// depth for passkey), as CSV (task_eval.c).
#include "args.h"
#include "cli.h"
#include "fileio.h"
#include "rundir.h"
#include "tasks.h"

#include <stdlib.h>
#include <string.h>

// n examples into path: lengths from lens (n of them), passkey depths from depths (or random)
static void write_examples(const char *path, const Task *t, const int *lens, const int *depth_pct, int n, Rng *rng) {
    OutFile o;
    FILE *f = out_open(&o, path, "task file");
    char *buf = xmalloc(TASK_MAX_LINE);
    for (int i = 0; i < n; i++) {
        int d = depth_pct ? depth_pct[i] : (int)rng_below(rng, 101);
        t->make(buf, TASK_MAX_LINE, lens[i], d / 100.0, rng);
        fprintf(f, "%d\t%d\t%s\n", lens[i], strcmp(t->name, "passkey") ? 0 : d, buf);
    }
    free(buf);
    out_commit(&o);
}

static int task_gen(int argc, char **argv) {
    const char *name = NULL, *out = NULL, *depths_s = "0,25,50,75,100";
    int max_len = 20, n = 20000, per_len = 100, mult = 2;
    long seed = 1;
    ArgDef defs[] = {
        {"task", ARG_STR, &name, "the task (required)"},
        {"out", ARG_STR, &out, "directory for train.txt, test.txt and task.txt (required)"},
        {"max-len", ARG_INT, &max_len, "L: training lengths are uniform in 1..L", 1, 60000},
        {"n", ARG_INT, &n, "training examples", 1, 10000000},
        {"test-per-len", ARG_INT, &per_len, "test examples at every length", 1, 1000000},
        {"test-mult", ARG_INT, &mult, "test lengths run 1..M L", 1, 1000},
        {"depths", ARG_STR, &depths_s, "passkey: the key's depths in the test set, in percent (training: any depth)"},
        {"seed", ARG_LONG, &seed, "seed of the generator", 0, 9e18},
        {NULL}};
    args_parse(argc, argv, 3, defs, NULL, "task gen", "--task NAME --out DIR [flags]", NULL, 0);
    const Task *t = name ? task_find(name) : NULL;
    if (!name) die("task gen: --task is required (%s)", task_names());
    if (!t) die("task gen: unknown task '%s'; choose one of %s", name, task_names());
    if (!out) die("task gen: --out DIR is required");
    if ((long)max_len * mult > t->max_n)
        die("task gen: test lengths up to %ld exceed the %d that %s allows", (long)max_len * mult, t->max_n, t->name);
    int dep[101], ndep = 0;
    for (const char *p = depths_s; *p;) {
        char *e;
        long v = strtol(p, &e, 10);
        if (e == p || v < 0 || v > 100 || ndep == 101 || (*e && *e != ',')) die("task gen: --depths must be percents 0..100 separated by commas, got '%s'", depths_s);
        dep[ndep++] = (int)v;
        p = *e ? e + 1 : e;
    }
    rundir_create(out);
    Rng rng;
    rng_seed(&rng, (uint64_t)seed);
    int *lens = xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) lens[i] = 1 + (int)rng_below(&rng, (uint64_t)max_len);
    char path[4096];
    snprintf(path, sizeof path, "%s/train.txt", out);
    write_examples(path, t, lens, NULL, n, &rng);
    long ntest = (long)max_len * mult * per_len;
    if (ntest > 50000000) die("task gen: %ld test examples is too many; lower --test-per-len", ntest);
    int *tl = xmalloc((size_t)ntest * sizeof(int)), *td = xmalloc((size_t)ntest * sizeof(int));
    for (long i = 0; i < ntest; i++) tl[i] = 1 + (int)(i / per_len), td[i] = dep[(i % per_len) % ndep];
    snprintf(path, sizeof path, "%s/test.txt", out);
    write_examples(path, t, tl, td, (int)ntest, &rng);
    snprintf(path, sizeof path, "%s/task.txt", out);
    OutFile o;
    FILE *f = out_open(&o, path, "task description");
    fprintf(f, "task = %s\nsummary = %s\nmax_len = %d\ntrain_examples = %d\ntest_lengths = 1..%d\ntest_per_len = %d\n", t->name,
            t->summary, max_len, n, max_len * mult, per_len);
    if (!strcmp(t->name, "passkey")) fprintf(f, "test_depths = %s\n", depths_s);
    fprintf(f, "seed = %ld\ncommand = posgpt task gen --task %s --max-len %d --n %d --test-per-len %d --test-mult %d --seed %ld%s%s --out %s\n",
            seed, t->name, max_len, n, per_len, mult, seed, strcmp(t->name, "passkey") ? "" : " --depths ",
            strcmp(t->name, "passkey") ? "" : depths_s, out);
    out_commit(&o);
    fprintf(stderr, "wrote %s: %d training examples (lengths 1..%d), %ld test examples (lengths 1..%d, %d each)\n", out, n,
            max_len, ntest, max_len * mult, per_len);
    free(lens), free(tl), free(td);
    return 0;
}

int task_eval(int argc, char **argv); // task_eval.c

int cmd_task(int argc, char **argv) {
    const char *sub = argc > 2 ? argv[2] : "";
    if (!strcmp(sub, "gen")) return task_gen(argc, argv);
    if (!strcmp(sub, "eval")) return task_eval(argc, argv);
    const char *help = "usage: posgpt task gen|eval [flags]     (posgpt task gen --help, posgpt task eval --help)\n"
                       "  gen    write a task's training and test examples (tasks: %s)\n"
                       "  eval   exact-match accuracy of a checkpoint on a task's test examples, by length (CSV)\n";
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
        printf(help, task_names());
        return 0;
    }
    fprintf(stderr, help, task_names());
    return 2;
}
