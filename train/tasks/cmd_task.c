// cmd_task.c - `posgpt task gen`: write a task's train and test files (tasks.h, docs/tasks.md),
// every flag checked before anything is written, into a new directory that appears whole or
// not at all (or, with --overwrite, over a task directory's files);
// `posgpt task eval`: exact-match and per-token accuracy of a checkpoint on a test file, by length (and by
// depth for passkey), as CSV (task_eval.c).
#include "args.h"
#include "cli.h"
#include "fileio.h"
#include "rundir.h"
#include "task_eval.h"
#include "tasks.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// ---- the output directory: written as DIR.tmp.PID beside DIR, then moved into place, so that
// no DIR is ever half-written; an error, exit or stop signal before that removes it ----
// (task.txt last: it is moved into place last; val.txt only with the split)
#define NFILES 4
static const char *const FILES[NFILES] = {"train.txt", "test.txt", "val.txt", "task.txt"};
static char g_tmp[4200], g_tmpfile[NFILES][4300]; // the temporary directory and the files written into it

static void remove_tmp(void) {
    if (!g_tmp[0]) return;
    out_remove_pending(); // an output still being written (out_open's own temporary name)
    for (int i = 0; i < NFILES; i++) unlink(g_tmpfile[i]);
    rmdir(g_tmp);
}
static void on_stop(int sig) { // unlink and rmdir are async-signal-safe
    remove_tmp();
    signal(sig, SIG_DFL);
    raise(sig);
}

// how DIR is written: a new directory renamed into place, or files moved into an existing one
enum { GEN_NEW, GEN_INTO };
// refuses a DIR that holds anything but a task (or a task, unless overwrite)
static int gen_target(const char *out, int overwrite) {
    struct stat st;
    if (stat(out, &st) != 0) {
        if (errno != ENOENT) die("task gen: cannot use --out '%s': %s", out, strerror(errno));
        return GEN_NEW;
    }
    if (!S_ISDIR(st.st_mode)) die("task gen: --out '%s' exists and is not a directory; choose another --out", out);
    DIR *d = opendir(out);
    if (!d) die("task gen: cannot read --out '%s': %s", out, strerror(errno));
    int other = 0, task = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) other++, task |= !strcmp(e->d_name, "task.txt");
    closedir(d);
    if (task && !overwrite)
        die("task gen: '%s' already holds a task (task.txt); choose another --out, or pass --overwrite to replace its train.txt, "
            "test.txt, val.txt and task.txt", out);
    if (other && !task) die("task gen: '%s' is not empty and holds no task (no task.txt); choose another --out", out);
    return GEN_INTO;
}

// the temporary directory beside out (its parents created), removed on failure
static void tmp_create(const char *out) {
    char parent[4200];
    snprintf(parent, sizeof parent, "%s", out);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) *slash = 0, rundir_create(parent);
    snprintf(g_tmp, sizeof g_tmp, "%s.tmp.%d", out, (int)getpid());
    if (mkdir(g_tmp, 0755) != 0) {
        int err = errno;
        g_tmp[0] = 0;
        die("task gen: cannot create the directory '%s.tmp.%d' beside --out: %s", out, (int)getpid(), strerror(err));
    }
    for (int i = 0; i < NFILES; i++) snprintf(g_tmpfile[i], sizeof g_tmpfile[i], "%s/%s", g_tmp, FILES[i]);
    atexit(remove_tmp);
    on_stop_signals(on_stop);
}

// the finished files into place: the directory renamed, or (into an existing one) task.txt
// removed first and moved in last, so that an interrupted replacement holds no task.txt
static void tmp_commit(const char *out, int how) {
    if (how == GEN_NEW) {
        if (rename(g_tmp, out) != 0) die("task gen: cannot rename '%s' to '%s': %s", g_tmp, out, strerror(errno));
    } else {
        char dst[4300];
        snprintf(dst, sizeof dst, "%s/task.txt", out);
        if (unlink(dst) != 0 && errno != ENOENT) die("task gen: cannot replace '%s': %s", dst, strerror(errno));
        for (int i = 0; i < NFILES; i++) {
            snprintf(dst, sizeof dst, "%s/%s", out, FILES[i]);
            if (access(g_tmpfile[i], F_OK) != 0) { // not made (val.txt without the split): an old one goes
                if (unlink(dst) != 0 && errno != ENOENT) die("task gen: cannot remove '%s': %s", dst, strerror(errno));
                continue;
            }
            if (rename(g_tmpfile[i], dst) != 0) die("task gen: cannot move '%s' to '%s': %s", g_tmpfile[i], dst, strerror(errno));
        }
        rmdir(g_tmp);
    }
    g_tmp[0] = 0;
}

// n examples into path: lengths from lens (n of them), passkey depths from depths (or random),
// of class cls (task_class; -1: any); an example whose length has none of that class in
// TASK_CLASS_TRIES draws is, with redraw, made at a new length, else left out (short[len]
// counts them, when given); refused past TASK_MAX_FILE bytes, the most the reader takes
static void write_examples(const char *path, const TaskSpec *s, int *lens, const int *depth_pct, long n, int cls, int redraw,
                           int *short_by_len, Rng *rng) {
    const Task *t = s->task;
    OutFile o;
    FILE *f = out_open(&o, path, "task file");
    char *buf = xmalloc(TASK_MAX_LINE);
    size_t bytes = 0;
    for (long i = 0; i < n; i++) {
        int d = depth_pct ? depth_pct[i] : (int)rng_below(rng, 101);
        if (cls < 0) task_make(s, buf, TASK_MAX_LINE, lens[i], d / 100.0, rng);
        else {
            int tries = 0;
            while (task_make_class(s, buf, TASK_MAX_LINE, lens[i], d / 100.0, cls, rng) < 0) {
                if (!redraw) break;
                if (++tries == 1000) die("task gen: no training example in %d lengths drawn in a row; --max-len is too small", tries);
                lens[i] = 1 + (int)rng_below(rng, (uint64_t)s->max_len);
            }
            if (!redraw && task_class(buf, strlen(buf)) != cls) {
                if (short_by_len) short_by_len[lens[i]]++;
                continue;
            }
        }
        int k = fprintf(f, "%d\t%d\t%s\n", lens[i], strcmp(t->name, "passkey") ? 0 : d, buf);
        bytes += k > 0 ? (size_t)k : 0;
        if (bytes > TASK_MAX_FILE)
            die("task gen: %s would exceed %zu MiB, the most a task file may hold; ask for fewer examples (--n, --test-per-len)",
                strrchr(path, '/') + 1, TASK_MAX_FILE >> 20);
    }
    free(buf);
    out_commit(&o);
}

// --depths: percents 0..100, digits only, separated by single commas; at least one
static int parse_depths(const char *s, int *dep) {
    int n = 0;
    for (const char *p = s;; p++) {
        long v = 0;
        const char *q = p;
        while (*q >= '0' && *q <= '9' && v <= 100) v = v * 10 + (*q++ - '0');
        if (q == p || v > 100 || (*q && *q != ',') || n == 101)
            die("task gen: --depths must be percents 0..100 separated by commas (e.g. 0,25,50,75,100), got '%s'", s);
        dep[n++] = (int)v;
        if (!*q) return n;
        p = q;
    }
}

static int task_gen(int argc, char **argv) {
    const char *name = NULL, *depths_s = NULL, *format_s = NULL, *split_s = "hash";
    char *out = NULL;
    int max_len = 20, n = 20000, per_len = 100, mult = 2, overwrite = 0, no_bos = 0;
    long seed = 1;
    ArgDef defs[] = {
        {"task", ARG_STR, &name, "the task (required)"},
        {"out", ARG_STR, &out, "directory for train.txt, test.txt, val.txt and task.txt (required; a new or empty one)"},
        {"max-len", ARG_INT, &max_len, "L: training lengths are uniform in 1..L", 1, 60000},
        {"n", ARG_INT, &n, "training examples", 1, 10000000},
        {"test-per-len", ARG_INT, &per_len, "test examples at every length", 1, 1000000},
        {"test-mult", ARG_INT, &mult, "test lengths run 1..M L", 1, 1000},
        {"depths", ARG_STR, &depths_s, "passkey: the key's depths in the test set, in percent (training: any depth; default 0,25,50,75,100)"},
        {"seed", ARG_LONG, &seed, "seed of the generator", 0, 9e18},
        {"format", ARG_STR, &format_s, "the examples' format: add msb (default) | lsb; sum and parity plain (default) | scratch "
                                       "(docs/tasks.md)"},
        {"no-bos", ARG_FLAG, &no_bos, "no BOS byte ('^') at the start of each example (default: one)"},
        {"split", ARG_STR, &split_s, "hash: every example in one class by a hash of its bytes, test (1 in 4), validation (1 in 4, "
                                     "val.txt: " "32 at each training length, the sample train --until-acc checks) or training (2 in 4: "
                                     "train.txt and fresh examples), so that every length keeps training examples | none: the test "
                                     "examples drawn from all, and fresh training examples that equal one redrawn (task files "
                                     "before the split)"},
        {"overwrite", ARG_FLAG, &overwrite, "--out may hold a task already: its train.txt, test.txt, val.txt and task.txt are replaced"},
        {NULL}};
    args_parse(argc, argv, 3, defs, NULL, "task gen", "--task NAME --out DIR [flags]", NULL, 0);
    // everything checked before anything is written
    const Task *t = name ? task_find(name) : NULL;
    if (!name) die("task gen: --task is required (%s)", task_names());
    if (!t) die("task gen: unknown task '%s'; choose one of %s", name, task_names());
    if (!out || !*out) die("task gen: --out DIR is required");
    for (size_t k = strlen(out); k > 1 && out[k - 1] == '/';) out[--k] = 0; // "dir/" is dir
    if (strcmp(split_s, "hash") && strcmp(split_s, "none")) die("task gen: --split takes hash or none, got '%s'", split_s);
    int split = !strcmp(split_s, "hash");
    int format = format_s ? task_format_find(t, format_s) : task_format_default(t);
    if (format < 0) die("task gen: --format %s: %s takes %s", format_s, t->name, task_formats(t));
    if ((long)max_len * mult > t->max_n)
        die("task gen: test lengths up to %ld exceed the %d that %s allows", (long)max_len * mult, t->max_n, t->name);
    int passkey = !strcmp(t->name, "passkey"), dep[101], ndep = 0;
    if (depths_s && !passkey) die("task gen: --depths applies only to passkey (the other tasks have no depth)");
    if (passkey && !depths_s) depths_s = "0,25,50,75,100";
    if (passkey) ndep = parse_depths(depths_s, dep);
    if (passkey && ndep > per_len)
        die("task gen: --depths lists %d depths, but --test-per-len %d gives each length only %d examples; pass --test-per-len %d "
            "or more (a multiple of %d gives each depth as many)", ndep, per_len, per_len, ndep, ndep);
    long ntest = (long)max_len * mult * per_len;
    if (ntest > 50000000) die("task gen: %ld test examples is too many (at most 50000000); lower --test-per-len", ntest);
    int how = gen_target(out, overwrite);
    tmp_create(out);
    Rng rng;
    rng_seed(&rng, (uint64_t)seed);
    int *lens = xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) lens[i] = 1 + (int)rng_below(&rng, (uint64_t)max_len);
    TaskSpec spec = {t, max_len, !no_bos, format, split};
    int *tshort = xcalloc((size_t)max_len * mult + 1, sizeof(int)), *vshort = xcalloc((size_t)max_len + 1, sizeof(int));
    write_examples(g_tmpfile[0], &spec, lens, NULL, n, split ? TASK_CLASS_TRAIN : -1, 1, NULL, &rng);
    int *tl = xmalloc((size_t)ntest * sizeof(int)), *td = xmalloc((size_t)ntest * sizeof(int));
    for (long i = 0; i < ntest; i++) tl[i] = 1 + (int)(i / per_len), td[i] = passkey ? dep[(i % per_len) % ndep] : 0;
    write_examples(g_tmpfile[1], &spec, tl, td, ntest, split ? TASK_CLASS_TEST : -1, 0, tshort, &rng);
    long missing = 0;
    for (int k = 1; k <= max_len * mult; k++) missing += tshort[k];
    if (missing == ntest) // (every length too short to hold an example of the test class)
        die("task gen: %s at lengths 1..%d has no example of the test class (the split keeps 1 prompt in 4 for the test set); "
            "raise --max-len or --test-mult", t->name, max_len * mult);
    if (split) {
        long nval = (long)max_len * TASK_VAL_PER_LEN;
        int *vl = xmalloc((size_t)nval * sizeof(int)), *vd = xmalloc((size_t)nval * sizeof(int));
        for (long i = 0; i < nval; i++)
            vl[i] = 1 + (int)(i / TASK_VAL_PER_LEN), vd[i] = passkey ? dep[(i % TASK_VAL_PER_LEN) % ndep] : 0;
        write_examples(g_tmpfile[2], &spec, vl, vd, nval, TASK_CLASS_VAL, 0, vshort, &rng);
        free(vl), free(vd);
    }
    OutFile o;
    FILE *f = out_open(&o, g_tmpfile[3], "task description");
    fprintf(f, "task = %s\nsummary = %s\nmax_len = %d\ntrain_examples = %d\ntest_lengths = 1..%d\ntest_per_len = %d\n", t->name,
            t->summary, max_len, n, max_len * mult, per_len);
    if (passkey) fprintf(f, "test_depths = %s\n", depths_s);
    fprintf(f, "bos = %s\nformat = %s\nsplit = %s\n", no_bos ? "no" : "yes", task_format_name(format), split_s);
    if (split) {
        // the lengths whose few examples held fewer of a class than asked: how many are missing
        fprintf(f, "val_per_len = %d\ntest_short =", TASK_VAL_PER_LEN);
        for (int k = 1; k <= max_len * mult; k++) if (tshort[k]) fprintf(f, " %d:%d", k, tshort[k]);
        fprintf(f, "\nval_short =");
        for (int k = 1; k <= max_len; k++) if (vshort[k]) fprintf(f, " %d:%d", k, vshort[k]);
        fprintf(f, "\n");
    }
    fprintf(f, "seed = %ld\ncommand = posgpt task gen --task %s --max-len %d --n %d --test-per-len %d --test-mult %d --seed %ld%s%s "
            "--format %s --split %s%s --out %s\n", seed, t->name, max_len, n, per_len, mult, seed, passkey ? " --depths " : "",
            passkey ? depths_s : "", task_format_name(format), split_s, no_bos ? " --no-bos" : "", out);
    out_commit(&o);
    tmp_commit(out, how);
    fprintf(stderr, "wrote %s: %d training examples (lengths 1..%d), %ld test examples (lengths 1..%d, %d each%s)%s\n", out, n,
            max_len, ntest - missing, max_len * mult, per_len, missing ? "; fewer at lengths with few examples: task.txt, test_short" : "",
            split ? ", val.txt (the validation class)" : "");
    free(lens), free(tl), free(td), free(tshort), free(vshort);
    return 0;
}

int cmd_task(int argc, char **argv) {
    const char *sub = argc > 2 ? argv[2] : "";
    if (!strcmp(sub, "gen")) return task_gen(argc, argv);
    if (!strcmp(sub, "eval")) return task_eval(argc, argv);
    const char *help = "usage: posgpt task gen|eval [flags]     (posgpt task gen --help, posgpt task eval --help)\n"
                       "  gen    write a task's training and test examples (tasks: %s)\n"
                       "  eval   exact-match and per-token accuracy of a checkpoint on a task's test examples, by length (CSV)\n";
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
        printf(help, task_names());
        return 0;
    }
    if (*sub) { // a word that is no subcommand: say so, like an unknown command
        fprintf(stderr, "posgpt: error: unknown task subcommand '%s'; try gen, eval (see posgpt task --help)\n", sub);
        return 2;
    }
    fprintf(stderr, help, task_names());
    return 2;
}
