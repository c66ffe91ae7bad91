// test_fuzz_csv.c - a seeded mutation fuzzer for `posgpt plot` (its CSV reader, validation and
// rendering). Seeds are valid CSVs of the four kinds (eval, per-position, training log, task accuracy);
// each input is a seed with damage: bytes flipped, fields replaced by hostile values ("nan",
// "1e308", "-0", "", 20-digit integers, ...), lines dropped or duplicated, separators and NUL
// bytes inserted, truncation. Each input is plotted in a forked child (a small canvas) with
// a limit of 10 s of CPU time: it must draw a figure or refuse with a one-line error, never
// crash, hang or trip a sanitizer (fuzz_run.h: batches of 64 a child, any batch that fails
// replayed one input a child).   build/tests/test_fuzz_csv [iterations] [seed] [first]   (default 600; make fuzz: 100000)
// Inputs before `first` are generated (same sequence) but not run, to replay a stretch.
// Every failing input is reported (the first 20 kept as files). Do not run it under a
// tracer (strace, gdb): LeakSanitizer cannot work under ptrace and every input would fail.
#include "check.h"
#include "cli.h"

#include "fuzz_run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *SEED_EVAL =
    "scheme,train_len,eval_len,protocol,stride,tokens,loss,ppl,bpc,positions,pos_offset,windows,step\n"
    "alibi,64,64,nonoverlapping,64,4096,1.9,6.68,2.74,contiguous,0,64,600\n"
    "alibi,64,256,nonoverlapping,256,4096,1.88,6.55,2.71,contiguous,0,16,600\n"
    "alibi,64,1024,sliding,256,4096,1.87,6.49,2.70,contiguous,0,13,600\n"
    "rope,64,64,nonoverlapping,64,4096,1.79,5.99,2.58,contiguous,0,64,600\n"
    "rope,64,256,nonoverlapping,256,4096,2.30,9.97,3.32,contiguous,0,16,600\n"
    "sinusoidal,64,256,nonoverlapping,256,4096,5.9,365.0,8.5,random,0,16,600\n";
static const char *SEED_POS =
    "scheme,train_len,eval_len,protocol,stride,position,loss,count\n"
    "rope,4,8,nonoverlapping,8,0,2.5,10\nrope,4,8,nonoverlapping,8,1,2.1,10\nrope,4,8,nonoverlapping,8,2,1.9,10\n"
    "rope,4,8,nonoverlapping,8,5,3.5,10\nalibi,4,8,nonoverlapping,8,0,2.4,10\nalibi,4,8,nonoverlapping,8,7,1.8,10\n";
static const char *SEED_LOG =
    "step,train_loss,val_loss,lr,grad_norm,tokens_per_s,elapsed_s\n"
    "10,4.1,,0.0005,1.2,20000,1.0\n20,3.2,3.3,0.001,0.9,21000,2.0\n30,2.8,,0.0009,0.8,20500,3.0\n40,2.5,2.6,0.0005,0.7,20800,4.0\n";
static const char *SEED_ACC =
    "task,scheme,train_max_len,len,depth,examples,correct,accuracy\n"
    "reverse,alibi,4,1,0,10,10,1.0\nreverse,alibi,4,2,0,10,9,0.9\nreverse,alibi,4,5,0,10,3,0.3\nreverse,alibi,4,8,0,10,0,0\n"
    "passkey,nope,4,2,50,10,7,0.7\npasskey,nope,4,2,100,10,5,0.5\n";
static const char *HOSTILE[] = {"nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e-320", "0", "-0", "-1", "",
                                "99999999999999999999", "2147483648", "-2147483649", "0x10", "1e", " ", "\"x\"",
                                "random", "sliding", "nonoverlapping", "a,b", "1.5", "65536", "16777217"};
#define NHOST (sizeof HOSTILE / sizeof HOSTILE[0])

// replace field f of line l (0-based, counting from the header) with v
static void set_field(Str *s, int l, int f, const char *v) {
    size_t i = 0;
    for (int k = 0; k < l && i < s->n; i++)
        if (s->b[i] == '\n') k++;
    for (int k = 0; k < f && i < s->n && s->b[i] != '\n'; i++)
        if (s->b[i] == ',') k++;
    size_t j = i;
    while (j < s->n && s->b[j] != ',' && s->b[j] != '\n') j++;
    Str o = {0};
    put(&o, s->b, i);
    put(&o, v, strlen(v));
    put(&o, s->b + j, s->n - j);
    free(s->b);
    *s = o;
}

static Str mutate(Rng *r, int *kind) {
    const char *seeds[4] = {SEED_EVAL, SEED_POS, SEED_LOG, SEED_ACC};
    *kind = (int)rng_below(r, 4);
    Str s = {0};
    put(&s, seeds[*kind], strlen(seeds[*kind]));
    int rounds = 1 + (int)rng_below(r, 3);
    for (int k = 0; k < rounds && s.n; k++) {
        switch (rng_below(r, 7)) {
        case 0: case 1: // a hostile value in a random field
            set_field(&s, (int)rng_below(r, 8), (int)rng_below(r, 14), HOSTILE[rng_below(r, NHOST)]);
            break;
        case 2: // flip bits
            for (int i = 0, n = 1 + (int)rng_below(r, 4); i < n; i++) s.b[rng_below(r, s.n)] ^= (char)(1 << rng_below(r, 8));
            break;
        case 3: // insert a separator, newline or NUL
            {
                const char ins[] = {',', '\n', '\0', '\r', '"', ' '};
                size_t at = rng_below(r, s.n + 1);
                Str o = {0};
                put(&o, s.b, at);
                put(&o, &ins[rng_below(r, sizeof ins)], 1);
                put(&o, s.b + at, s.n - at);
                free(s.b);
                s = o;
            }
            break;
        case 4: // truncate
            s.n = rng_below(r, s.n + 1);
            s.b[s.n] = 0;
            break;
        case 5: { // duplicate the text from a random point (repeated / conflicting rows)
            size_t at = rng_below(r, s.n);
            Str o = {0};
            put(&o, s.b, s.n);
            put(&o, s.b + at, s.n - at);
            free(s.b);
            s = o;
            break;
        }
        default: // swap in a line of another kind's header
            set_field(&s, 0, (int)rng_below(r, 8), HOSTILE[rng_below(r, NHOST)]);
        }
    }
    return s;
}

static char png[64];
static int plot_file(const char *csv) {
    char *args[] = {"posgpt", "plot", "--width", "320", "--height", "240", "--out", png, (char *)csv, NULL};
    return cmd_plot(9, args);
}

int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 600;
    Rng r;
    rng_seed(&r, argc > 2 ? (uint64_t)atoll(argv[2]) : 1);
    char csv[64];
    snprintf(csv, sizeof csv, "/tmp/posgpt-fuzzcsv-%d.csv", (int)getpid());
    snprintf(png, sizeof png, "/tmp/posgpt-fuzzcsv-%d.png", (int)getpid());
    enum { BATCH = 64 };
    FuzzInput in[BATCH];
    FuzzTally t = {0};
    long first = argc > 3 ? atol(argv[3]) : 0;
    int n = 0;
    for (long it = 0; it < iters; it++) {
        int kind;
        Str s = mutate(&r, &kind);
        if (it < first) { free(s.b); continue; }
        in[n++] = (FuzzInput){(uint8_t *)s.b, s.b ? s.n : 0};
        if (n == BATCH || it == iters - 1) {
            fuzz_batch(plot_file, csv, "/tmp/posgpt-fuzzcsv-crash-", ".csv", in, n, it + 1 - n, &t);
            for (int j = 0; j < n; j++) free(in[j].b);
            n = 0;
        }
    }
    remove(csv), remove(png);
    char name[300];
    snprintf(name, sizeof name, "fuzz plot: %ld damaged CSVs (inputs %ld..%ld), %ld drawn, %ld refused with an error, no crash or hang "
             "(%ld batches, %ld replayed one input a child)", iters - first, first, iters - 1, t.drawn, t.refused, t.batches, t.replayed);
    check(t.failed == 0 && t.drawn + t.refused == iters - first, name, "%ld inputs crashed, hung or tripped a sanitizer", t.failed);
    return check_done();
}
