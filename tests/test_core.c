// test_core.c - float-build checks: the fast exp/tanh/GELU against libm in double, ALiBi slopes
// and T5 buckets against the values in the papers, the random position sampler, and the
// checkpoint round trip (parameters and optimizer state bit-identical, re-save byte-identical);
// the causal-blocked training attention agrees with the one-block form, and the banded gemm's
// floats do not depend on the thread count.
#include "check.h"
#include "ckpt.h"
#include "layers.h"
#include "pack.h"
#include "positions.h"
#include "scheme_state.h"
#include "schemes.h"
#include "sgemm.h"
#include "task_batch.h"
#include "task_eval.h"
#include "evaluate.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_fast_math(void) {
    double worst = 0, wx = 0;
    for (double x = -87.0; x <= 88.0; x += 0.0137) {
        double e = exp(x), got = layer_exp((float)x), ref = exp((double)(float)x);
        double rel = fabs(got - ref) / ref;
        (void)e;
        if (rel > worst) worst = rel, wx = x;
    }
    check(worst < 5e-7, "layer_exp within 5e-7 relative of libm exp on [-87, 88]", "rel err %.3g at x=%g", worst, wx);
    float xs[2001], ys[2001];
    for (int i = 0; i <= 2000; i++) xs[i] = (float)(-10.0 + i * 0.01);
    gelu_forward(ys, xs, 2001);
    double gw = 0;
    for (int i = 0; i <= 2000; i++) {
        double x = xs[i], ref = 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
        gw = fmax(gw, fabs(ys[i] - ref));
    }
    check(gw < 2e-6, "float GELU (fast tanh) within 2e-6 of the double-precision formula", "max abs err %.3g", gw);
    // gelu' (gelu_backward with dout = 1) against the derivative in double
    float ones[2001], gs[2001];
    for (int i = 0; i <= 2000; i++) ones[i] = 1;
    gelu_backward(gs, ones, xs, 2001);
    double dw = 0;
    for (int i = 0; i <= 2000; i++) {
        double x = xs[i], t = tanh(0.7978845608028654 * (x + 0.044715 * x * x * x));
        double ref = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * 0.7978845608028654 * (1 + 3 * 0.044715 * x * x);
        dw = fmax(dw, fabs(gs[i] - ref));
    }
    check(dw < 1e-5, "float GELU derivative within 1e-5 of the double-precision formula", "max abs err %.3g", dw);
}

// The GELU's tanh (layer_tanh, 1 - 2 / (1 + e^2u) on layer_exp): absolute error below 2.5e-7
// against libm's tanh in double for every float: a dense grid over [-20, 20] (tanh is +-1 in
// float beyond 9.01), then |u| growing by factors of 1.01 up to FLT_MAX; and its edges: +-1
// at +-inf, NaN at NaN, so the GELU gives +inf at +inf, NaN at NaN and (0 * -inf) at -inf.
static void test_fast_tanh(void) {
    double worst = 0, wu = 0;
    for (double u = -20.0; u <= 20.0; u += 0x1p-14) {
        double e = fabs(layer_tanh((float)u) - tanh((double)(float)u));
        if (e > worst) worst = e, wu = u;
    }
    for (double a = 20.0; a <= FLT_MAX; a *= 1.01)
        for (int sg = -1; sg <= 1; sg += 2) {
            float u = (float)(sg * a);
            double e = fabs(layer_tanh(u) - tanh((double)u));
            if (e > worst) worst = e, wu = u;
        }
    check(worst < 2.5e-7, "layer_tanh within 2.5e-7 (absolute) of libm tanh over [-20, 20] and out to FLT_MAX",
          "abs err %.3g at u=%.9g", worst, wu);
    float ins[3] = {INFINITY, -INFINITY, NAN}, g[3];
    check(layer_tanh(ins[0]) == 1 && layer_tanh(ins[1]) == -1 && isnan(layer_tanh(ins[2])) && layer_tanh(FLT_MAX) == 1 &&
              layer_tanh(-FLT_MAX) == -1,
          "layer_tanh: +-1 at +-inf and +-FLT_MAX, NaN at NaN", "%g %g %g", layer_tanh(ins[0]), layer_tanh(ins[1]),
          layer_tanh(ins[2]));
    gelu_forward(g, ins, 3);
    check(g[0] == INFINITY && isnan(g[1]) && isnan(g[2]), "GELU at +inf, -inf, NaN: +inf, NaN (0 * -inf), NaN", "%g %g %g",
          g[0], g[1], g[2]);
}

static void test_alibi_slopes(void) {
    // Press et al. 2022 and the notes: H=4 -> 2^-2, 2^-4, 2^-6, 2^-8; H=8 -> 2^-1..2^-8;
    // H=6 -> 2^-2,2^-4,2^-6,2^-8,2^-1,2^-3; H=12 -> 2^-1..2^-8, 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5
    double e4[] = {-2, -4, -6, -8}, e6[] = {-2, -4, -6, -8, -1, -3};
    double e8[] = {-1, -2, -3, -4, -5, -6, -7, -8}, e12[] = {-1, -2, -3, -4, -5, -6, -7, -8, -0.5, -1.5, -2.5, -3.5};
    struct { int H; double *e; } cases[] = {{4, e4}, {6, e6}, {8, e8}, {12, e12}};
    for (int c = 0; c < 4; c++) {
        double got[16], ref[16];
        alibi_slopes(cases[c].H, got);
        for (int h = 0; h < cases[c].H; h++) ref[h] = pow(2.0, cases[c].e[h]);
        char name[64];
        snprintf(name, sizeof name, "alibi slopes for %d heads", cases[c].H);
        check_close(name, got, ref, (size_t)cases[c].H, 0, 1e-12);
    }
}

static void test_t5_buckets(void) {
    // causal T5, 32 buckets, max distance 128: exact below 16, then 16 + floor(ln(D/16)/ln(8)*16), capped at 31
    int D[] = {0, 1, 15, 16, 17, 20, 32, 45, 64, 100, 127, 128, 129, 1000, 100000};
    int want[] = {0, 1, 15, 16, 16, 17, 21, 23, 26, 30, 31, 31, 31, 31, 31};
    int ok = 1, bad = -1;
    for (int i = 0; i < 15; i++)
        if (t5_bucket(D[i], 32, 128) != want[i]) ok = 0, bad = i;
    check(ok, "t5 buckets match the formula's values", "D=%d -> %d, expected %d", bad >= 0 ? D[bad] : 0,
          bad >= 0 ? t5_bucket(D[bad], 32, 128) : 0, bad >= 0 ? want[bad] : 0);
    int mono = 1;
    for (int d = 1; d < 3000; d++)
        if (t5_bucket(d, 32, 128) < t5_bucket(d - 1, 32, 128)) mono = 0;
    check(mono, "t5 bucket is non-decreasing in distance", "not monotone");
}

static void test_positions(void) {
    int B = 50, T = 64, L = 200;
    int *p = malloc(sizeof(int) * B * T), *q = malloc(sizeof(int) * B * T);
    Rng r1, r2;
    rng_seed(&r1, 3), rng_seed(&r2, 3);
    positions_draw(p, B, T, 0, L, &r1);
    positions_draw(q, B, T, 0, L, &r2);
    int ok = 1;
    long hist[4] = {0};
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            int v = p[b * T + t];
            if (v < 0 || v >= L || (t && v <= p[b * T + t - 1])) ok = 0;
            hist[v * 4 / L]++;
        }
    check(ok, "random positions: strictly increasing, in [0, Lmax)", "a row is unsorted, repeated or out of range");
    check(!memcmp(p, q, sizeof(int) * B * T), "random positions: same seed, same draw", "draws differ");
    // T/L of all values land in each quarter on average: 800 each; allow wide noise
    int flat = 1;
    for (int k = 0; k < 4; k++) flat &= hist[k] > 650 && hist[k] < 950;
    check(flat, "random positions: spread evenly over [0, Lmax)", "quarters %ld %ld %ld %ld", hist[0], hist[1], hist[2], hist[3]);
    positions_draw(p, 2, 5, 7, 0, NULL);
    check(p[0] == 7 && p[4] == 11 && p[5] == 7 && p[9] == 11, "contiguous positions start at the offset", "got %d..%d", p[0], p[4]);
    free(p), free(q);
}

// a task file of n copy-like examples of lengths 1..maxlen in turn (maxlen <= 9), loaded into d
static void tiny_tasks(TaskData *d, const char *tag, int n, int maxlen) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/posgpt-%s-%d.txt", tag, (int)getpid());
    FILE *f = fopen(path, "w");
    for (int i = 0; i < n; i++) fprintf(f, "%d\t0\t%.*s>%.*s;\n", 1 + i % maxlen, 1 + i % maxlen, "abcdefghi", 1 + i % maxlen, "abcdefghi");
    fclose(f);
    taskdata_load(d, path);
    remove(path);
}

// a model built by hand to write the chain of bytes chain[1], chain[2], ... after chain[0]:
// no attention (its weights zero), one MLP that maps each byte chain[i] to chain[i + 1], the
// embedding one-hot (byte chain[i] is unit vector i; chain holds distinct bytes, at most 16)
static void chain_model(GPT *m, const char *chain) {
    GPTConfig c = {.V = 256, .C = 16, .L = 1, .NH = 1, .T = 16, .pos_rows = 16};
    snprintf(c.scheme, sizeof c.scheme, "nope");
    gpt_build(m, &c);
    memset(m->params, 0, m->num_params * sizeof(real));
    int n = (int)strlen(chain);
    for (int i = 0; i < c.C; i++) m->params[m->offsets[P_LN1W] + i] = m->params[m->offsets[P_LN2W] + i] = m->params[m->offsets[P_LNFW] + i] = 1;
    for (int i = 0; i < n; i++) m->params[m->offsets[P_WTE] + (size_t)(unsigned char)chain[i] * c.C + i] = 1;
    for (int i = 0; i + 1 < n; i++) { // hidden unit i fires on byte chain[i] and writes byte chain[i + 1] over it
        m->params[m->offsets[P_FCW] + (size_t)i * c.C + i] = 1;
        m->params[m->offsets[P_FCPW] + (size_t)(i + 1) * 4 * c.C + i] = 10;
        m->params[m->offsets[P_FCPW] + (size_t)i * 4 * c.C + i] = -10;
    }
}

// DIR/task.txt and DIR/test.txt written (DIR made)
static void task_dir_write(const char *dir, const char *task_txt, const char *test_txt) {
    char path[128];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/task.txt", dir);
    FILE *f = fopen(path, "w");
    fputs(task_txt, f), fclose(f);
    snprintf(path, sizeof path, "%s/test.txt", dir);
    f = fopen(path, "w");
    fputs(test_txt, f), fclose(f);
}

// `task eval` of m (saved to DIR/model.bin) on DIR, its CSV into got (n bytes); DIR removed after
static void task_eval_csv(const GPT *m, const char *dir, char *got, size_t n) {
    char ck[128], csv[128], path[128];
    snprintf(ck, sizeof ck, "%s/model.bin", dir), snprintf(csv, sizeof csv, "%s/acc.csv", dir);
    TrainState ts = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .steps = 1, .batch = 1, .grad_shards = 1, .val_loss = NAN,
                     .pos_lr_mult = 1};
    ckpt_save(ck, m, &ts, NULL);
    char *argv[] = {"posgpt", "task", "eval", "--ckpt", ck, "--task", (char *)dir, "--csv", csv, "--threads", "1", NULL};
    task_eval(11, argv);
    FILE *f = fopen(csv, "r");
    size_t k = f ? fread(got, 1, n - 1, f) : 0;
    got[k] = 0;
    if (f) fclose(f);
    remove(ck), remove(csv);
    snprintf(path, sizeof path, "%s/task.txt", dir), remove(path);
    snprintf(path, sizeof path, "%s/test.txt", dir), remove(path);
    rmdir(dir);
}

// the hand-built model that writes `answer` after every prompt (chain_model), and a task
// directory /tmp/posgpt-TAG-PID (its name into dir) holding task.txt and test.txt, read into *set
static void hand_task(GPT *m, const char *answer, const char *tag, const char *desc, const char *lines, char *dir, size_t n,
                      TaskSet *set) {
    char path[160];
    chain_model(m, answer);
    snprintf(dir, n, "/tmp/posgpt-%s-%d", tag, (int)getpid());
    task_dir_write(dir, desc, lines);
    snprintf(path, sizeof path, "%s/test.txt", dir);
    taskset_read(set, path);
}

// per-token accuracy beside exact match (task_eval.h), on a model built by hand to answer every
// copy prompt "abc;" (chain_model ">abc;"). So the answers, and both accuracies, are known:
// "abc>abc;" all 4 bytes right; "abd>abd;" 3 of 4 (the 'c'); "ab>ab;" 2 of 3 (the ';' comes a
// byte late); "b>b;" 0 of 2 ("ab" is written). Exact match 1 of 4 examples, per-token 9 of 13
// answer bytes.
static void test_task_token_accuracy(void) {
    GPT m;
    char dir[64];
    TaskSet set;
    hand_task(&m, ">abc;", "tokacc", "task = copy\nmax_len = 3\n", "3\t0\tabc>abc;\n3\t0\tabd>abd;\n2\t0\tab>ab;\n1\t0\tb>b;\n",
              dir, sizeof dir, &set);
    int which[4] = {0, 1, 2, 3}, tok[4];
    char right[4];
    for (int batch = 1; batch <= 4; batch += 3) {
        TaskDecode how = {batch, 0, 1, NULL, 0};
        task_decode(&m, &set, which, 4, &how, right, tok);
        check(right[0] == 1 && right[1] == 0 && right[2] == 0 && right[3] == 0 && tok[0] == 4 && tok[1] == 3 && tok[2] == 2 && tok[3] == 0,
              "task_decode: exact match 1 0 0 0 and answer bytes right 4 3 2 0 on the hand-built copy model", "batch %d: right %d %d %d %d, "
              "bytes %d %d %d %d", batch, right[0], right[1], right[2], right[3], tok[0], tok[1], tok[2], tok[3]);
    }
    taskset_free(&set);
    // the CSV of `task eval`: a row per length, exact and per-token side by side
    char got[1024];
    task_eval_csv(&m, dir, got, sizeof got);
    const char *want = "task,scheme,train_max_len,len,depth,examples,correct,accuracy,tokens,tokens_correct,token_accuracy\n"
                       "copy,nope,3,1,0,1,0,0.000000,2,0,0.000000\n"
                       "copy,nope,3,2,0,1,0,0.000000,3,2,0.666667\n"
                       "copy,nope,3,3,0,2,1,0.500000,8,7,0.875000\n";
    check(!strcmp(got, want), "task eval CSV: exact match and per-token accuracy per length on the hand-built model", "got\n%s", got);
    gpt_free(&m);
}

// a scratch format scores the final answer alone (the bytes after the answer's last '=', its
// ';' included): a model built to write "0=1;" after every parity prompt (chain_model ">0=1;").
// "1>1=1;": a wrong running parity, the right final answer: exact under final-only, not whole
// (3 of 4 bytes whole, 2 of 2 final); "0>0=0;": wrong either way (3 of 4, 1 of 2); "11>10=0;":
// the model's ';' comes early, the final answer's places unreached or wrong (0 of 5, 0 of 2)
static void test_task_final_answer(void) {
    GPT m;
    char dir[64];
    TaskSet set;
    hand_task(&m, ">0=1;", "final", "task = parity\nmax_len = 2\nformat = scratch\n", "1\t0\t1>1=1;\n1\t0\t0>0=0;\n2\t0\t11>10=0;\n",
              dir, sizeof dir, &set);
    check(task_scored_from(&set.ex[2], 1) == 3 && task_scored_from(&set.ex[2], 0) == 0, "task_scored_from: after the last '=', or 0",
          "%d %d", task_scored_from(&set.ex[2], 1), task_scored_from(&set.ex[2], 0));
    for (int final = 0; final < 2; final++) {
        int which[3] = {0, 1, 2}, tok[3];
        char right[3];
        TaskDecode how = {2, 0, 1, NULL, final};
        task_decode(&m, &set, which, 3, &how, right, tok);
        int want_r0 = final, want_t0 = final ? 2 : 3, want_t1 = final ? 1 : 3;
        check(right[0] == want_r0 && right[1] == 0 && right[2] == 0 && tok[0] == want_t0 && tok[1] == want_t1 && tok[2] == 0,
              final ? "task_decode final-only: the right final answer after a wrong running value is exact"
                    : "task_decode whole answer: a wrong running value makes the answer wrong",
              "right %d %d %d, bytes %d %d %d", right[0], right[1], right[2], tok[0], tok[1], tok[2]);
    }
    taskset_free(&set);
    char got[1024];
    task_eval_csv(&m, dir, got, sizeof got); // task.txt says scratch: final answers scored
    const char *want = "task,scheme,train_max_len,len,depth,examples,correct,accuracy,tokens,tokens_correct,token_accuracy\n"
                       "parity,nope,2,1,0,2,1,0.500000,4,3,0.750000\n"
                       "parity,nope,2,2,0,1,0,0.000000,2,0,0.000000\n";
    check(!strcmp(got, want), "task eval CSV, format scratch: the final answers scored (exact and per-token)", "got\n%s", got);
    gpt_free(&m);
}

// task training at random positions: each row's example gets as many sorted distinct draws
// from [0, Lmax) as its own bytes, the padding after it the example's last position; the
// draws cover [0, Lmax), not only the first T positions of a padded row
static void test_task_positions(void) {
    TaskData d;
    tiny_tasks(&d, "taskpos", 40, 5);
    int B = 64, T = d.set.max_total, L = 200;
    int *tok = malloc(sizeof(int) * B * T), *tgt = malloc(sizeof(int) * B * T), *pos = malloc(sizeof(int) * B * T);
    Rng r;
    rng_seed(&r, 5);
    int ok = 1, top = 0;
    for (int rep = 0; rep < 20; rep++) {
        task_draw(&d, &r, B, T, L, tok, tgt, pos, NULL);
        for (int b = 0; b < B; b++) {
            int len = 0;
            while (len < T && tok[b * T + len] != TASK_PAD) len++;
            for (int t = 0; t < T; t++) {
                int v = pos[b * T + t];
                if (v < 0 || v >= L || (t && t < len && v <= pos[b * T + t - 1]) || (t >= len && v != pos[b * T + len - 1])) ok = 0;
                top = v > top ? v : top;
            }
        }
    }
    check(ok, "task rows at random positions: the example's bytes strictly increasing in [0, Lmax), its padding at its last position",
          "a row breaks it");
    check(top > L / 2, "task rows at random positions: the draws reach past the middle of [0, Lmax)", "highest position %d of %d", top, L);
    task_draw(&d, &r, 2, T, 0, tok, tgt, pos, NULL);
    check(pos[0] == 0 && pos[T - 1] == T - 1 && pos[T] == 0, "task rows at contiguous positions: 0..T-1", "got %d..%d", pos[0], pos[T - 1]);
    // validation of a model trained at random positions scores it at random positions, the same
    // draws each time: the loss repeats exactly and differs from the contiguous one
    GPTConfig c = {.V = 256, .C = 16, .L = 1, .NH = 2, .T = T, .pos_rows = L};
    snprintf(c.scheme, sizeof c.scheme, "sinusoidal");
    pos_default_hypers(pos_find("sinusoidal"), c.scheme_hp);
    GPT m;
    gpt_build(&m, &c);
    gpt_init(&m, 3);
    double v1 = task_val_loss(&m, &d, 4, T, L, NULL), v2 = task_val_loss(&m, &d, 4, T, L, NULL), v0 = task_val_loss(&m, &d, 4, T, 0, NULL);
    check(isfinite(v1) && v1 == v2, "task validation at random positions: the same draws every time", "%.9g then %.9g", v1, v2);
    check(isfinite(v0) && fabs(v1 - v0) > 1e-6, "task validation at random positions: not the contiguous loss", "random %.9g, contiguous %.9g", v1, v0);
    gpt_free(&m);
    free(tok), free(tgt), free(pos);
    taskdata_free(&d);
}

// row b of a batch as text (its bytes up to the padding)
static void row_text(const int *tok, int b, int T, char *out) {
    int n = 0;
    while (n < T && tok[b * T + n] != TASK_PAD) out[n] = (char)tok[b * T + n], n++;
    out[n] = 0;
}

// fresh task examples (train --task): example b of step s from (seed, s, b) alone: the same in
// a batch of 4 as in one of 16 (the rows an MPI process draws do not change it), the same when
// drawn again (a resumed run), other ones at the next step or another seed; each a right parity
// example of length 1..4 after the BOS byte task.txt asks for, and never one of test.txt's,
// which holds every example of lengths 1 and 2: only lengths 3 and 4 are trained on
// a task directory /tmp/posgpt-NAME-PID (its path into dir) holding task.txt, test.txt and
// train.txt with these contents; the path of its train.txt into path
static void task_dir_make(char *dir, size_t ndir, char *path, size_t npath, const char *name, const char *const text[3]) {
    const char *files[] = {"task.txt", "test.txt", "train.txt"};
    snprintf(dir, ndir, "/tmp/posgpt-%s-%d", name, (int)getpid());
    mkdir(dir, 0755);
    for (int i = 0; i < 3; i++) {
        snprintf(path, npath, "%s/%s", dir, files[i]);
        FILE *f = fopen(path, "w");
        fputs(text[i], f);
        fclose(f);
    }
}
static void task_dir_remove(const char *dir) {
    const char *files[] = {"task.txt", "test.txt", "train.txt"};
    char path[96];
    for (int i = 0; i < 3; i++) snprintf(path, sizeof path, "%s/%s", dir, files[i]), remove(path);
    rmdir(dir);
}

static void test_task_fresh(void) {
    char dir[64], path[96];
    task_dir_make(dir, sizeof dir, path, sizeof path, "fresh",
                   (const char *const[3]){"task = parity\nsummary = x\nmax_len = 4\nbos = yes\n",
                                          "1\t0\t^0>0;\n1\t0\t^1>1;\n2\t0\t^00>0;\n2\t0\t^01>1;\n2\t0\t^10>1;\n2\t0\t^11>0;\n3\t0\t^101>0;\n",
                                          "2\t0\t^11>0;\n3\t0\t^111>1;\n"});
    TaskData d, e;
    taskdata_load(&d, path), taskdata_load(&e, path);
    taskdata_fresh(&d, dir, 7), taskdata_fresh(&e, dir, 8);
    int T = d.longest, B = 16;
    int *tok = malloc(sizeof(int) * B * T), *tgt = malloc(sizeof(int) * B * T), *pos = malloc(sizeof(int) * B * T);
    int *tok2 = malloc(sizeof(int) * B * T), len[16], seen[5] = {0}, right = 1, apart = 1, same = 1, moved = 0, seeded = 0;
    char s2[64];
    for (long step = 0; step < 40; step++) {
        task_draw_fresh(&d, step, B, T, 0, tok, tgt, pos, len);
        task_draw_fresh(&d, step, 4, T, 0, tok2, tgt, pos, NULL);
        for (int b = 0; b < 4; b++) same &= !memcmp(tok + b * T, tok2 + b * T, sizeof(int) * T);
        task_draw_fresh(&d, step + 1, 4, T, 0, tok2, tgt, pos, NULL);
        moved += memcmp(tok, tok2, sizeof(int) * 4 * T) != 0;
        task_draw_fresh(&e, step, 4, T, 0, tok2, tgt, pos, NULL);
        seeded += memcmp(tok, tok2, sizeof(int) * 4 * T) != 0;
        for (int b = 0; b < B; b++) {
            row_text(tok, b, T, s2);
            const char *s = s2 + 1; // after the BOS byte
            int n = (int)strcspn(s, ">"), par = 0;
            for (int i = 0; i < n; i++) par ^= s[i] == '1';
            right &= s2[0] == TASK_BOS && n >= 1 && n <= 4 && s[n + 1] == '0' + par && !strcmp(s + n + 2, ";") && len[b] == n + 4;
            seen[n >= 1 && n <= 4 ? n : 0]++;
            apart &= n > 2 && strcmp(s, "101>0;") != 0;
        }
    }
    check(right, "fresh task examples: each the BOS byte and a right parity example of length 1..4, its length given", "a row breaks it");
    check(apart && !seen[1] && !seen[2] && seen[3] && seen[4], "fresh task examples: never one of test.txt's (lengths 1 and 2 all in it)",
          "lengths seen 1:%d 2:%d 3:%d 4:%d", seen[1], seen[2], seen[3], seen[4]);
    check(same, "fresh task examples: example b of a step is the same in a batch of 4 as in one of 16", "a row differs");
    check(moved == 40 && seeded == 40, "fresh task examples: other ones at the next step and with another seed", "%d and %d of 40", moved, seeded);
    task_draw_fresh(&d, 3, B, T, 0, tok, tgt, pos, NULL);
    task_draw_fresh(&d, 3, B, T, 0, tok2, tgt, pos, NULL);
    check(!memcmp(tok, tok2, sizeof(int) * B * T), "fresh task examples: a step drawn again gives the same batch", "it differs");
    free(tok), free(tgt), free(pos), free(tok2);
    taskdata_free(&d), taskdata_free(&e);
    task_dir_remove(dir);
}

// the split (task.txt: split = hash): every fresh example is of the training class, at every
// length 1..6 of copy (each has training-class prompts); task_class ignores the BOS byte and the
// answer (scratch and plain, with and without BOS: one class) and splits random prompts about
// 1 : 1 : 2 (test, validation, training): 8000 prompts, each share within 5 standard deviations
static void test_task_split(void) {
    char dir[64], path[96];
    task_dir_make(dir, sizeof dir, path, sizeof path, "split",
                   (const char *const[3]){"task = copy\nsummary = x\nmax_len = 6\nbos = yes\nsplit = hash\n", "1\t0\t^a>a;\n",
                                          "2\t0\t^ab>ab;\n3\t0\t^abc>abc;\n"});
    TaskData d;
    taskdata_load(&d, path);
    taskdata_fresh(&d, dir, 5);
    int T = d.longest, B = 16, seen[7] = {0}, train = 1;
    int *tok = malloc(sizeof(int) * B * T), *tgt = malloc(sizeof(int) * B * T), *pos = malloc(sizeof(int) * B * T);
    char s2[64];
    for (long step = 0; step < 60; step++) {
        task_draw_fresh(&d, step, B, T, 0, tok, tgt, pos, NULL);
        for (int b = 0; b < B; b++) {
            row_text(tok, b, T, s2);
            int n = (int)strcspn(s2 + 1, ">");
            train &= task_class(s2, strlen(s2)) == TASK_CLASS_TRAIN;
            seen[n >= 1 && n <= 6 ? n : 0]++;
        }
    }
    check(train && !seen[0] && seen[1] && seen[2] && seen[3] && seen[4] && seen[5] && seen[6],
          "the split: every fresh example of the training class, every length 1..6 trained", "train %d, lengths 1:%d 2:%d 3:%d 6:%d", train,
          seen[1], seen[2], seen[3], seen[6]);
    free(tok), free(tgt), free(pos);
    taskdata_free(&d);
    task_dir_remove(dir);
    int same = task_class("^0110>0110=0;", 13) == task_class("0110>0;", 7) && task_class("^ab>ab;", 7) == task_class("ab>ba;", 6);
    Rng rng;
    rng_seed(&rng, 11);
    int cnt[3] = {0};
    char p[16];
    for (int i = 0; i < 8000; i++) {
        for (int k = 0; k < 8; k++) p[k] = (char)('a' + rng_below(&rng, 10));
        p[8] = '>';
        cnt[task_class(p, 9)]++;
    }
    // binomial sd: sqrt(8000 * 0.25 * 0.75) = 38.7 for each quarter, 44.7 for the half
    int fair = abs(cnt[TASK_CLASS_TEST] - 2000) < 5 * 39 && abs(cnt[TASK_CLASS_VAL] - 2000) < 5 * 39 && abs(cnt[TASK_CLASS_TRAIN] - 4000) < 5 * 45;
    check(same && fair, "task_class: the prompt alone decides (no BOS, no answer); shares about 1:1:2", "same %d; %d %d %d", same,
          cnt[0], cnt[1], cnt[2]);
}

// a task.txt's format and BOS byte (task_spec_read): one without them (an older task gen's)
// means the old examples, msb for add and no BOS; the ones it names shape task_make's examples,
// at most as long as task_max_bytes says, and some that long (add: those with a carry)
static void test_task_spec(void) {
    char dir[64], path[96];
    snprintf(dir, sizeof dir, "/tmp/posgpt-spec-%d", (int)getpid());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/task.txt", dir);
    const char *txt[] = {"task = add\nmax_len = 3\n", "task = add\nmax_len = 3\nformat = lsb\nbos = yes\n",
                         "task = sum\nmax_len = 3\nformat = scratch\nbos = yes\n", "task = parity\nmax_len = 3\n"};
    int want_fmt[] = {TASK_FMT_MSB, TASK_FMT_LSB, TASK_FMT_SCRATCH, TASK_FMT_PLAIN}, want_bos[] = {0, 1, 1, 0}, ok = 1, fits = 1;
    char got[4][64];
    for (int i = 0; i < 4; i++) {
        FILE *f = fopen(path, "w");
        fputs(txt[i], f);
        fclose(f);
        TaskSpec s;
        task_spec_read(&s, dir);
        ok &= s.format == want_fmt[i] && s.bos == want_bos[i] && s.max_len == 3;
        Rng r;
        int reach = 0;
        for (int k = 0; k < 200; k++) {
            rng_seed(&r, (uint64_t)k);
            int n = task_make(&s, got[i], sizeof got[i], 3, 0, &r);
            fits &= n <= task_max_bytes(&s), reach |= n == task_max_bytes(&s);
        }
        fits &= reach;
        rng_seed(&r, 11);
        task_make(&s, got[i], sizeof got[i], 3, 0, &r);
    }
    check(ok, "task.txt: format and bos as named; without them msb (add), plain, no BOS", "a field read wrong");
    check(fits, "task_make: every example within task_max_bytes, some that long", "one is longer, or none reaches it");
    // the same draws in every format: add lsb is msb's numbers reversed, sum scratch ends in the plain answer
    int lsb_ok = strlen(got[0]) + 1 == strlen(got[1]) && got[1][0] == TASK_BOS && got[1][1] == got[0][2] && got[1][3] == got[0][0];
    check(lsb_ok, "task_make add: lsb writes msb's operands reversed after the BOS byte", "msb '%s', lsb '%s'", got[0], got[1]);
    const char *eq = strchr(got[2], TASK_SCRATCH_END), *gt = strchr(got[2], TASK_SEP);
    int run = 0, scratch_ok = eq && gt && eq - gt == 4 && strlen(got[2]) == 11;
    for (int i = 0; scratch_ok && i < 3; i++) run = (run + got[2][1 + i] - '0') % 10, scratch_ok = gt[1 + i] == '0' + run;
    check(scratch_ok && eq[1] == '0' + run, "task_make sum scratch: the running sums mod 10, '=', the answer", "got '%s'", got[2]);
    remove(path), rmdir(dir);
}

static int files_equal(const char *a, const char *b) {
    size_t na, nb;
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    if (!fa || !fb) return 0;
    char x[8192], y[8192];
    int same = 1;
    do {
        na = fread(x, 1, sizeof x, fa), nb = fread(y, 1, sizeof y, fb);
        if (na != nb || memcmp(x, y, na)) same = 0;
    } while (same && na);
    fclose(fa), fclose(fb);
    return same;
}

// pack_rows (train --pack): a hand-worked first-fit-decreasing case; on drawn task batches every
// example lands whole, once, with its targets and positions, in a run of its own segment, the
// rows' rest is unscored padding, and the rows are few; the packed forward gives the padded
// loss and gradient norm (float32 sums in another order: 1e-5 relative, loss sums of ~1e3
// terms; 1e-4 for the norm, a sum of ~1e5 squares of gradients themselves summed differently)
static void test_pack(void) {
    enum { T0 = 10, B0 = 5 };
    int len0[B0] = {3, 6, 2, 5, 4}, tok0[B0 * T0], tgt0[B0 * T0], pt[B0 * T0], pg[B0 * T0], pp[B0 * T0], ps[B0 * T0];
    for (int b = 0; b < B0; b++)
        for (int t = 0; t < T0; t++) tok0[b * T0 + t] = 10 * b + t, tgt0[b * T0 + t] = t < len0[b] ? 1 : GPT_NO_TARGET;
    int rows = pack_rows(tok0, tgt0, NULL, len0, B0, T0, T0, B0, pt, pg, pp, ps);
    // longest first into the first row with room: 6 -> row 0, 5 -> row 1, 4 -> row 0, 3 -> row 1, 2 -> row 1
    int want_tok[2 * T0] = {10, 11, 12, 13, 14, 15, 40, 41, 42, 43, 30, 31, 32, 33, 34, 0, 1, 2, 20, 21};
    int want_seg[2 * T0] = {0, 0, 0, 0, 0, 0, 6, 6, 6, 6, 0, 0, 0, 0, 0, 5, 5, 5, 8, 8};
    check(rows == 2 && !memcmp(pt, want_tok, sizeof want_tok) && !memcmp(ps, want_seg, sizeof want_seg) && pp[6] == 0 &&
              pp[9] == 3 && pp[18] == 0, "pack_rows: lengths 3 6 2 5 4 in rows of 10 pack first-fit decreasing into 2 rows",
          "%d rows", rows);
    int none[3] = {0, 0, 0};
    rows = pack_rows(tok0, tgt0, NULL, none, 3, T0, T0, 3, pt, pg, pp, ps);
    int pad_ok = rows == 1;
    for (int t = 0; t < T0; t++) pad_ok &= pg[t] == GPT_NO_TARGET && ps[t] == t && pp[t] == 0;
    check(pad_ok, "pack_rows: a batch of empty examples is one row of padding", "%d rows", rows);

    TaskData d;
    tiny_tasks(&d, "pack", 60, 9);
    int B = 32, T = d.set.max_total, T3 = 3 * T;
    size_t n = (size_t)B * T3;
    int *tok = malloc(sizeof(int) * n), *tgt = malloc(sizeof(int) * n), *pos = malloc(sizeof(int) * n), *len = malloc(sizeof(int) * B);
    int *ptok = malloc(sizeof(int) * n), *ptgt = malloc(sizeof(int) * n), *ppos = malloc(sizeof(int) * n), *pseg = malloc(sizeof(int) * n);
    Rng r;
    rng_seed(&r, 9);
    int whole = 1, few = 1, rows_sum = 0;
    for (int rep = 0; rep < 40; rep++) { // rows of T packed into rows of T, and of 3T (3 examples a row at least)
        int Tr = rep % 4 < 2 ? T : T3, per = Tr / T;
        task_draw(&d, &r, B, T, rep % 2 ? 4 * T : 0, tok, tgt, pos, len);
        rows = pack_rows(tok, tgt, pos, len, B, T, Tr, B, ptok, ptgt, ppos, pseg);
        few &= rows <= (B + per - 1) / per;
        rows_sum += rows;
        // each drawn example: found whole at a segment start, matched to one row each
        char *used = calloc((size_t)rows * Tr, 1);
        for (int b = 0; b < B && whole; b++) {
            int found = 0;
            for (int k = 0; k + len[b] <= rows * Tr && !found; k++) {
                if (used[k] || pseg[k] != k % Tr || k % Tr + len[b] > Tr) continue;
                int same = 1;
                for (int t = 0; t < len[b] && same; t++)
                    same = ptok[k + t] == tok[b * T + t] && ptgt[k + t] == tgt[b * T + t] && ppos[k + t] == pos[b * T + t] &&
                           pseg[k + t] == k % Tr;
                if (same && (k % Tr + len[b] == Tr || pseg[k + len[b]] != k % Tr)) {
                    found = 1;
                    memset(used + k, 1, len[b]);
                }
            }
            whole &= found;
        }
        for (int k = 0; k < rows * Tr; k++) // the rest: padding at a row's end, unscored, each token on its own at position 0
            if (!used[k]) whole &= ptgt[k] == GPT_NO_TARGET && pseg[k] == k % Tr && ppos[k] == 0 && (k % Tr == Tr - 1 || !used[k + 1]);
        // first fit never leaves two rows half empty (the later one's examples would have fit the earlier)
        int half = 0;
        for (int q = 0; q < rows; q++) {
            int fill = 0;
            for (int t = 0; t < Tr; t++) fill += used[q * Tr + t];
            half += 2 * fill <= Tr;
        }
        few &= rows >= 1 && rows <= B && half <= 1;
        free(used);
    }
    check(whole, "pack_rows on drawn task batches: every example whole, once, with its targets and positions; the rest unscored padding",
          "a batch breaks it");
    check(few, "pack_rows: never more rows than ceil(batch / examples a row surely holds), never two rows half empty", "a batch broke it");
    printf("  (pack_rows: %.1f rows on average for batches of %d)\n", rows_sum / 40.0, B);
    // the packed forward and backward: the padded loss and gradient
    const char *schemes[] = {"alibi", "rope", "fire", "learned"};
    for (int i = 0; i < 4; i++) {
        int Tm = i % 2 ? T3 : T; // packed rows of one example's room, and of three
        GPTConfig c = {.V = 256, .C = 16, .L = 2, .NH = 2, .T = T, .pos_rows = T};
        snprintf(c.scheme, sizeof c.scheme, "%s", schemes[i]);
        pos_default_hypers(pos_find(schemes[i]), c.scheme_hp);
        GPT m;
        gpt_build(&m, &c);
        gpt_init(&m, 4);
        gpt_alloc(&m, B, T, 1);
        task_draw(&d, &r, B, T, 0, tok, tgt, pos, len);
        rows = pack_rows(tok, tgt, pos, len, B, T, Tm, B, ptok, ptgt, ppos, pseg);
        gpt_zero_grad(&m);
        gpt_forward(&m, tok, tgt, pos);
        double l0 = m.loss_sum;
        gpt_backward(&m);
        double g0 = gpt_grad_norm(&m);
        gpt_alloc(&m, rows, Tm, 1);
        gpt_zero_grad(&m);
        gpt_forward_packed(&m, ptok, ptgt, ppos, pseg, rows);
        double l1 = m.loss_sum;
        gpt_backward(&m);
        double g1 = gpt_grad_norm(&m);
        char name[160];
        snprintf(name, sizeof name, "%s: %d examples packed into %d rows of %d give the padded loss sum and gradient norm", schemes[i], B,
                 rows, Tm);
        check(rows < B && fabs(l1 - l0) <= 1e-5 * fabs(l0) && fabs(g1 - g0) <= 1e-4 * g0, name, "loss %.9g vs %.9g, norm %.9g vs %.9g",
              l1, l0, g1, g0);
        gpt_free(&m);
    }
    taskdata_free(&d);
    free(tok), free(tgt), free(pos), free(len), free(ptok), free(ptgt), free(ppos), free(pseg);
}

static void test_checkpoint(void) {
    for (int i = 0; i < pos_count(); i++) {
        const PosScheme *s = pos_at(i);
        GPTConfig c = {.V = 256, .C = 16, .L = 2, .NH = 2, .T = 8, .pos_rows = 40};
        snprintf(c.scheme, sizeof c.scheme, "%s", s->name);
        pos_default_hypers(s, c.scheme_hp);
        GPT m;
        gpt_build(&m, &c);
        gpt_init(&m, 11);
        AdamW o;
        adamw_init(&o, m.num_params, 0.9, 0.95, 1e-8, 0.1);
        real *mo = o.mom, *ve = o.vel;
        Rng r;
        rng_seed(&r, 5);
        for (size_t k = 0; k < m.num_params; k++) mo[k] = (real)rng_normal(&r), ve[k] = (real)rng_uniform(&r);
        TrainState ts = {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .wd = 0.1, .steps = 100, .batch = 4, .step = 42,
                         .val_loss = 1.5, .seed = 9, .rand_max = 40};
        rng_seed(&ts.rng, 77);
        char p1[64], p2[64];
        snprintf(p1, sizeof p1, "/tmp/posgpt-test-%d-a.bin", (int)getpid());
        snprintf(p2, sizeof p2, "/tmp/posgpt-test-%d-b.bin", (int)getpid());
        ckpt_save(p1, &m, &ts, &o);
        GPT m2;
        TrainState ts2;
        AdamW o2;
        ckpt_load(p1, &m2, &ts2, &o2);
        real *mo2 = o2.mom, *ve2 = o2.vel;
        int same = m2.num_params == m.num_params && !memcmp(m.params, m2.params, m.num_params * sizeof(real)) && mo2 &&
                   !memcmp(mo, mo2, m.num_params * sizeof(real)) && !memcmp(ve, ve2, m.num_params * sizeof(real)) &&
                   !memcmp(&m.cfg, &m2.cfg, sizeof m.cfg) && ts2.step == 42 && ts2.rand_max == 40 &&
                   !memcmp(&ts.rng, &ts2.rng, sizeof ts.rng) && o2.beta2 == 0.95 && o2.wd == 0.1;
        char name[96];
        snprintf(name, sizeof name, "checkpoint [%s]: params, config, optimizer and RNG load back bit-identical", s->name);
        check(same, name, "loaded state differs");
        ckpt_save(p2, &m2, &ts2, &o2);
        snprintf(name, sizeof name, "checkpoint [%s]: re-saving the loaded model gives a byte-identical file", s->name);
        check(files_equal(p1, p2), name, "%s and %s differ", p1, p2);
        remove(p1), remove(p2);
        adamw_free(&o), adamw_free(&o2);
        gpt_free(&m2);
        gpt_free(&m);
    }
}

// Blocking skips only exact zeros, at the end of a sum over keys or at the start of a sum over
// queries: the blocked attention (forward and backward, with a bias scheme and a content-term
// scheme) computes the same sums as the one-block form. Whether the floats are equal depends
// on the BLAS kernel: some kernels (Haswell's) order an element's products differently for
// products of different heights, and blocks make products of different heights. So the test
// asks for agreement within rounding: every array, as max |blocked - one block| / max |one
// block|, within ATT_BLOCK_RTOL. The longest sum here has T = 150 products; the worst-case
// rounding bound of a float sum of n terms is n u (u = 2^-24) relative to the sum of their
// magnitudes, 9e-6 at n = 150, and the backward chains three products (dP, dS, dQ/dK), so
// 1e-4 has room for the bound and still catches any wrong term (a missing or repeated key
// moves a value by about its own size).
#define ATT_BLOCK_RTOL 1e-4
static double max_rel_diff(const real *x, const real *y, size_t n) {
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)x[i] - (double)y[i]);
        d = e > d || isnan(e) ? e : d;
        m = fabs((double)y[i]) > m ? fabs((double)y[i]) : m;
    }
    return m > 0 ? d / m : d;
}
static void test_attention_blocks(void) {
    const char *schemes[] = {"nope", "alibi", "cope"};
    for (int si = 0; si < 3; si++) {
        int B = 2, T = 150, C = 32, NH = 2; // T: two full blocks of 64 and a partial one
        size_t nq = (size_t)B * T * 3 * C, no = (size_t)B * T * C, na = (size_t)B * NH * T * T;
        Rng rng;
        rng_seed(&rng, 11);
        real *qkv = malloc(nq * sizeof(real)), *dout = malloc(no * sizeof(real));
        for (size_t i = 0; i < nq; i++) qkv[i] = (real)rng_normal(&rng);
        for (size_t i = 0; i < no; i++) dout[i] = (real)rng_normal(&rng);
        int *pos = malloc((size_t)B * T * sizeof(int));
        for (int i = 0; i < B * T; i++) pos[i] = i % T;
        PosState ps;
        const PosScheme *s = pos_find(schemes[si]);
        size_t np;
        real *params = scheme_state(&ps, s, C, NH, T, NULL, NULL, &np);
        for (size_t i = 0; i < np; i++) params[i] = (real)(0.1 * rng_normal(&rng));
        real *out[2], *att[2], *dqkv[2], *dpos[2];
        int qb[2] = {0, ATT_QBLOCK};
        for (int r = 0; r < 2; r++) {
            out[r] = malloc(no * sizeof(real)), att[r] = malloc(na * sizeof(real)), dqkv[r] = malloc(nq * sizeof(real));
            dpos[r] = calloc(np + 1, sizeof(real));
            real *dview[POS_MAX_TENSORS];
            scheme_views(&ps, dpos[r], dview);
            attention_forward(out[r], att[r], qkv, pos, NULL, &ps, B, T, C, NH, qb[r]);
            attention_backward(dqkv[r], dview, dout, att[r], qkv, pos, NULL, &ps, B, T, C, NH, qb[r]);
        }
        char name[128];
        double eo = max_rel_diff(out[1], out[0], no), eq = max_rel_diff(dqkv[1], dqkv[0], nq),
               ep = np ? max_rel_diff(dpos[1], dpos[0], np) : 0;
        printf("# blocked attention [%s]: relative differences out %.3g dqkv %.3g dpos %.3g\n", schemes[si], eo, eq, ep);
        snprintf(name, sizeof name, "blocked training attention == one block within rounding [%s]", schemes[si]);
        check(eo <= ATT_BLOCK_RTOL && eq <= ATT_BLOCK_RTOL && ep <= ATT_BLOCK_RTOL, name,
              "max relative differences out %.3g, dqkv %.3g, dpos %.3g > %g", eo, eq, ep, ATT_BLOCK_RTOL);
        for (int r = 0; r < 2; r++) free(out[r]), free(att[r]), free(dqkv[r]), free(dpos[r]);
        free(qkv), free(dout), free(pos), free(params);
        pos_release(&ps);
    }
}

// Large products are cut into bands of rows or columns (gemm in model/layers.c) by the shape
// alone, each band one single-threaded BLAS call, so the floats must not depend on the thread
// count: 1, 2 and 3 threads, and a call from inside a parallel region, give the same floats
// bit for bit, on any kernel. And the product must be right: every element within the
// rounding bound of a float product against a double-precision loop, |c - ref| <= (K + 2) u
// (|alpha| sum_k |a_ik b_kj| + |beta c_ij|), u = 2^-24 (Higham's bound for a sum of K
// products in any order, plus the scaling and the beta term).
// A product whose K is cut into chunks (the weight gradients) is still a sum of the same K
// products and the beta term, in another order, with alpha applied once per chunk: the same
// bound holds: each product meets one rounding of its own, one of the alpha scaling (exact
// here: alpha = 0.5) and at most K additions (a tree of additions over the K + 1 terms, K
// products and beta c, is at most K deep), within the K + 2 of the bound.
// Shapes: cut by rows (M >= N) and by columns (M < N), rows left over after whole tiles, one
// band above the size where products are cut, K cut into chunks (128x96x2048: 2 bands x 8
// chunks; 48x40x3000: 1 band x 8 chunks, the last with the remainder; 100x90x1000: 2 chunks);
// all four transposes; beta 0 and 1.
static void gemm_bound(int ta, int tb, int M, int N, int K, double alpha, const real *A, int lda, const real *B,
                       int ldb, double beta, const real *C0, double *ref, double *bound) {
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0, a = 0;
            for (int k = 0; k < K; k++) {
                double x = ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
                double y = tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j];
                s += x * y, a += fabs(x * y);
            }
            double c = C0[(size_t)i * N + j];
            ref[(size_t)i * N + j] = alpha * s + beta * c;
            bound[(size_t)i * N + j] = (K + 2) * 0x1p-24 * (fabs(alpha) * a + fabs(beta * c));
        }
}
static void test_gemm_bands_lib(const char *lib, int few) {
    int shapes[][3] = {{1031, 67, 300}, {67, 1031, 300}, {100, 90, 1000}, {4096, 128, 128}, {128, 512, 1024}, {161, 390, 513},
                       {128, 96, 2048}, {48, 40, 3000}};
    int first = few ? 2 : 0, nshape = few ? 3 : (int)(sizeof shapes / sizeof *shapes);
    int saved = omp_get_max_threads();
    for (int si = first; si < nshape; si++)
        for (int tr = 0; tr < 4; tr++) {
            int M = shapes[si][0], N = shapes[si][1], K = shapes[si][2], ta = tr >> 1, tb = tr & 1;
            int lda = ta ? M : K, ldb = tb ? K : N;
            size_t nc = (size_t)M * N;
            Rng rng;
            rng_seed(&rng, 5 + si);
            real *A = malloc((size_t)M * K * sizeof(real)), *Bm = malloc((size_t)K * N * sizeof(real));
            real *C0 = malloc(nc * sizeof(real)), *C[4];
            double *ref = malloc(nc * sizeof(double)), *bound = malloc(nc * sizeof(double));
            for (size_t i = 0; i < (size_t)M * K; i++) A[i] = (real)rng_normal(&rng);
            for (size_t i = 0; i < (size_t)K * N; i++) Bm[i] = (real)rng_normal(&rng);
            for (size_t i = 0; i < nc; i++) C0[i] = (real)rng_normal(&rng);
            int same = 1;
            double worst = 0; // largest |c - ref| / bound
            for (int beta = 0; beta < 2; beta++) {
                for (int t = 0; t < 4; t++) {
                    C[t] = malloc(nc * sizeof(real));
                    memcpy(C[t], C0, nc * sizeof(real));
                    if (t < 3) {
                        omp_set_num_threads(t == 2 ? 5 : t + 1);
                        gemm(ta, tb, M, N, K, 0.5f, A, lda, Bm, ldb, (real)beta, C[t], N);
                    } else { // from inside a parallel region of 2 threads
                        omp_set_num_threads(2);
#pragma omp parallel
#pragma omp single
                        gemm(ta, tb, M, N, K, 0.5f, A, lda, Bm, ldb, (real)beta, C[t], N);
                    }
                    if (t && memcmp(C[t], C[0], nc * sizeof(real))) same = 0;
                }
                gemm_bound(ta, tb, M, N, K, 0.5, A, lda, Bm, ldb, beta, C0, ref, bound);
                for (size_t i = 0; i < nc; i++) {
                    double e = fabs(C[0][i] - ref[i]) / bound[i];
                    worst = e > worst || isnan(e) ? e : worst;
                }
                for (int t = 0; t < 4; t++) free(C[t]);
            }
            omp_set_num_threads(saved);
            char name[160];
            snprintf(name, sizeof name, "gemm (%s) on 2 and 5 threads and inside a parallel region == 1 thread, bit for bit [%dx%dx%d ta=%d tb=%d]",
                     lib, M, N, K, ta, tb);
            check(same, name, "the floats depend on the thread count");
            snprintf(name, sizeof name, "gemm (%s) within the rounding bound of a double-precision loop [%dx%dx%d ta=%d tb=%d]", lib, M,
                     N, K, ta, tb);
            check(worst <= 1, name, "an element is %.3g times the bound away", worst);
            free(A), free(Bm), free(C0), free(ref), free(bound);
        }
}

// the cut above under each library: OpenBLAS (its bands and K chunks), posgpt's sgemm with its
// AVX-512 kernel where the CPU has it, and with its portable kernel on the third shape (cut
// into row blocks and column ranges on 2 and 5 threads, four K blocks; test_sgemm_direct
// covers its edges, and the portable kernel is slow under qemu, where make test-arm64 runs
// this: about 0.07 GFLOP/s)
static void test_gemm_bands(void) {
    GemmLib saved = gemm_get_lib();
    SgKernel k = sgemm_get_kernel();
    const char *libs[] = {"openblas", "posgpt", "posgpt-portable"};
    for (int i = 0; i < 3; i++) {
        if (i == 1 && !sgemm_kernel_ok(SG_AVX512)) continue; // (posgpt would be the portable kernel again)
        gemm_select_lib(libs[i]);
        test_gemm_bands_lib(libs[i], i == 2);
    }
    gemm_set_lib(saved), sgemm_set_kernel(k);
}

// posgpt's sgemm called directly, at the shapes its packing and micro-kernel treat apart: one
// element; rows and columns short of a tile (12 x 32) and one past it; K of 1, short of the 16
// the AVX-512 transpose takes at a time, one past a K block (256) and several blocks; leading
// dimensions wider than the matrices (the padding must be neither read into the sum nor
// written); all four transposes; alpha 1, -1.5; beta 0 (C not read: it holds NaN), 1, 0.25.
// Each within the rounding bound of gemm_bound (the same argument: a sum of the K products and
// beta c in some order, fused or not), the same bits on 1, 3 threads and inside a region, and
// the AVX-512 kernel's bits equal to the portable kernel's (the same operations in the same
// order: sgemm.h), where the CPU has AVX-512.
static void test_sgemm_direct(void) {
    int shapes[][3] = {{1, 1, 1}, {11, 31, 15}, {13, 33, 17}, {12, 32, 256}, {25, 65, 257}, {7, 70, 600}, {70, 7, 40}};
    int nshape = sizeof shapes / sizeof *shapes, saved = omp_get_max_threads(), pad = 5;
    float alphas[] = {1, -1.5f}, betas[] = {0, 1, 0.25f};
    SgKernel k0 = sgemm_get_kernel();
    int same_threads = 1, same_kernels = 1, pad_kept = 1, same_solo = 1;
    double worst = 0, solo0 = sgemm_get_solo_mflops();
    for (int si = 0; si < nshape; si++)
        for (int tr = 0; tr < 4; tr++)
            for (int ab = 0; ab < 6; ab++) {
                int M = shapes[si][0], N = shapes[si][1], K = shapes[si][2], ta = tr >> 1, tb = tr & 1;
                int lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
                float alpha = alphas[ab / 3], beta = betas[ab % 3];
                size_t na = (size_t)(ta ? K : M) * lda, nb = (size_t)(tb ? N : K) * ldb, nc = (size_t)M * ldc;
                Rng rng;
                rng_seed(&rng, 100 + si * 8 + tr);
                real *A = malloc(na * sizeof(real)), *Bm = malloc(nb * sizeof(real)), *C0 = malloc(nc * sizeof(real));
                real *C[6];
                for (size_t i = 0; i < na; i++) A[i] = (real)rng_normal(&rng);
                for (size_t i = 0; i < nb; i++) Bm[i] = (real)rng_normal(&rng);
                for (size_t i = 0; i < nc; i++) C0[i] = (real)rng_normal(&rng);
                if (beta == 0)
                    for (int i = 0; i < M; i++)
                        for (int j = 0; j < N; j++) C0[(size_t)i * ldc + j] = NAN;
                // C[1]: 3 threads as a team; C[5]: 3 threads solo (sgemm_set_solo_mflops)
                for (int t = 0; t < 6; t++) {
                    C[t] = malloc(nc * sizeof(real));
                    memcpy(C[t], C0, nc * sizeof(real));
                    if (t == 4 && !sgemm_kernel_ok(SG_AVX512)) continue;
                    sgemm_set_kernel(t == 4 ? SG_AVX512 : SG_PORTABLE);
                    sgemm_set_solo_mflops(t == 5 ? 1e12 : 0);
                    if (t == 2) {
                        omp_set_num_threads(2);
#pragma omp parallel
#pragma omp single
                        sgemm(ta, tb, M, N, K, alpha, A, lda, Bm, ldb, beta, C[t], ldc);
                    } else {
                        omp_set_num_threads(t == 1 || t == 5 ? 3 : 1);
                        sgemm(ta, tb, M, N, K, alpha, A, lda, Bm, ldb, beta, C[t], ldc);
                    }
                }
                sgemm_set_solo_mflops(solo0);
                omp_set_num_threads(saved);
                if (memcmp(C[5], C[0], nc * sizeof(real))) same_solo = 0;
                for (int t = 1; t < 3; t++)
                    if (memcmp(C[t], C[0], nc * sizeof(real))) same_threads = 0;
                if (sgemm_kernel_ok(SG_AVX512) && memcmp(C[4], C[0], nc * sizeof(real))) same_kernels = 0;
                for (int i = 0; i < M; i++)
                    for (int j = N; j < ldc; j++)
                        if (memcmp(&C[0][(size_t)i * ldc + j], &C0[(size_t)i * ldc + j], sizeof(real))) pad_kept = 0;
                // the reference on the packed-width copies gemm_bound expects
                size_t ncc = (size_t)M * N;
                real *Cc = malloc(ncc * sizeof(real));
                double *ref = malloc(ncc * sizeof(double)), *bound = malloc(ncc * sizeof(double));
                for (int i = 0; i < M; i++)
                    for (int j = 0; j < N; j++) Cc[(size_t)i * N + j] = beta == 0 ? 0 : C0[(size_t)i * ldc + j];
                gemm_bound(ta, tb, M, N, K, alpha, A, lda, Bm, ldb, beta, Cc, ref, bound);
                for (int i = 0; i < M; i++)
                    for (int j = 0; j < N; j++) {
                        double e = fabs(C[0][(size_t)i * ldc + j] - ref[(size_t)i * N + j]) / bound[(size_t)i * N + j];
                        worst = e > worst || isnan(e) ? e : worst;
                    }
                for (int t = 0; t < 6; t++) free(C[t]);
                free(A), free(Bm), free(C0), free(Cc), free(ref), free(bound);
            }
    sgemm_set_kernel(k0);
    check(same_threads, "sgemm: the same floats on 1 and 3 threads and inside a parallel region (odd shapes, strides, alpha, beta)",
          "the floats depend on the thread count");
    check(same_solo, "sgemm: the same floats on 3 threads solo (each thread its units through every K block) as on 1",
          "the solo run differs");
    check(worst <= 1, "sgemm within the rounding bound of a double-precision loop (odd shapes, strides, alpha, beta; beta 0 reads no C)",
          "an element is %.3g times the bound away", worst);
    check(pad_kept, "sgemm writes no element past N in a row of C", "the padding of C changed");
    if (sgemm_kernel_ok(SG_AVX512))
        check(same_kernels, "sgemm: the AVX-512 kernel gives the portable kernel's floats, bit for bit", "they differ");
    else printf("# sgemm: this CPU has no AVX-512F: the AVX-512 kernel is not compared\n");
}

// Enough parallel work (docs/performance.md): every product of a config S training step (4096
// tokens, d_model 128, vocabulary 256), the weight gradients included (few rows, K = the
// tokens), is cut into at least 32 units, whatever the thread count.
static void test_gemm_units(void) {
    int C = 128, N = 4096, V = 256;
    int shapes[][3] = {{N, 3 * C, C}, {N, C, C}, {N, 4 * C, C}, {N, C, 4 * C}, {N, V, C},   // forward, input gradients
                       {3 * C, C, N}, {C, C, N}, {4 * C, C, N}, {C, 4 * C, N}, {V, C, N}}; // weight gradients
    for (int i = 0; i < (int)(sizeof shapes / sizeof *shapes); i++) {
        int u = gemm_units(shapes[i][0], shapes[i][1], shapes[i][2]);
        char name[96];
        snprintf(name, sizeof name, "gemm cuts config S's %dx%dx%d product into >= 32 units", shapes[i][0], shapes[i][1], shapes[i][2]);
        check(u >= 32, name, "%d units", u);
    }
}

// layernorm_backward (rows through per-thread scratch and dsum's lanes; the parameter
// gradients by column blocks x row chunks) against a naive double-precision loop: each
// element within 1e-5 of the sum of the magnitudes of its terms (the float roundings of a few
// operations per term; the loop's sums are over C = 100 or N = 300 terms), and the floats the
// same on 1, 2 and 3 threads. C and N are not multiples of the lanes, blocks or chunks.
// (GCC 12 for aarch64 stops with an internal compiler error, in vect_transform_reduction, when it
// vectorizes this function: the test's own loops need no vectorizing)
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
static void test_layernorm_backward_ref(void) {
    int N = 300, C = 100, saved = omp_get_max_threads();
    size_t n = (size_t)N * C;
    Rng rng;
    rng_seed(&rng, 23);
    real *x = malloc(n * sizeof(real)), *dy = malloc(n * sizeof(real)), *dx0 = malloc(n * sizeof(real)),
         *ln = malloc(n * sizeof(real)), *w = malloc(C * sizeof(real)), *b = malloc(C * sizeof(real)),
         *st = malloc(2 * (size_t)N * sizeof(real)), *pg0 = malloc(2 * (size_t)C * sizeof(real));
    for (size_t i = 0; i < n; i++) x[i] = (real)(rng_normal(&rng) * 2 + 0.5), dy[i] = (real)rng_normal(&rng), dx0[i] = (real)rng_normal(&rng);
    for (int c = 0; c < C; c++) w[c] = (real)(1 + 0.3 * rng_normal(&rng)), b[c] = 0, pg0[c] = pg0[C + c] = (real)rng_normal(&rng);
    layernorm_forward(ln, st, st + N, x, w, b, N, C);
    real *dx[3], *pg[3];
    int same = 1;
    for (int t = 0; t < 3; t++) {
        dx[t] = malloc(n * sizeof(real)), pg[t] = malloc(2 * (size_t)C * sizeof(real));
        memcpy(dx[t], dx0, n * sizeof(real)), memcpy(pg[t], pg0, 2 * (size_t)C * sizeof(real));
        omp_set_num_threads(t + 1);
        layernorm_backward(dx[t], pg[t], pg[t] + C, dy, x, w, st, st + N, N, C);
        if (t && (memcmp(dx[t], dx[0], n * sizeof(real)) || memcmp(pg[t], pg[0], 2 * (size_t)C * sizeof(real)))) same = 0;
    }
    omp_set_num_threads(saved);
    double worst = 0, *dw = calloc(2 * (size_t)C, sizeof(double)), *aw = calloc(2 * (size_t)C, sizeof(double));
    for (int r = 0; r < N; r++) {
        const real *xr = x + (size_t)r * C, *g = dy + (size_t)r * C;
        double m = st[r], s = st[N + r], ma = 0, mb = 0, am = 0, ab = 0;
        for (int c = 0; c < C; c++) {
            double dn = (double)g[c] * w[c], nm = (xr[c] - m) * s;
            ma += dn / C, mb += dn * nm / C, am += fabs(dn) / C, ab += fabs(dn * nm) / C;
            dw[c] += g[c] * nm, aw[c] += fabs(g[c] * nm), dw[C + c] += g[c], aw[C + c] += fabs(g[c]);
        }
        for (int c = 0; c < C; c++) {
            double dn = (double)g[c] * w[c], nm = (xr[c] - m) * s, i0 = dx0[(size_t)r * C + c];
            double ref = i0 + s * (dn - ma - nm * mb), mag = fabs(i0) + s * (fabs(dn) + am + fabs(nm) * ab);
            worst = fmax(worst, fabs(dx[0][(size_t)r * C + c] - ref) / mag);
        }
    }
    for (int c = 0; c < 2 * C; c++) worst = fmax(worst, fabs(pg[0][c] - (pg0[c] + dw[c])) / (fabs(pg0[c]) + aw[c]));
    check(worst < 1e-5, "layernorm_backward (d(inp), d(w), d(b)) within 1e-5 relative of a naive double loop", "worst %.3g", worst);
    check(same, "layernorm_backward on 2 and 3 threads == 1 thread, bit for bit", "the floats depend on the thread count");
    for (int t = 0; t < 3; t++) free(dx[t]), free(pg[t]);
    free(x), free(dy), free(dx0), free(ln), free(w), free(b), free(st), free(pg0), free(dw), free(aw);
}

// The fused passes do the same float operations as the unfused pairs they replace
static void test_fused_exact(void) {
    int N = 37, C = 96;
    size_t n = (size_t)N * C;
    Rng rng;
    rng_seed(&rng, 3);
    real *x = malloc(n * sizeof(real)), *a = malloc(n * sizeof(real)), *b = malloc(C * sizeof(real));
    real *x1 = malloc(n * sizeof(real)), *y1 = malloc(n * sizeof(real)), *x2 = malloc(n * sizeof(real));
    real *y2 = malloc(n * sizeof(real));
    for (size_t i = 0; i < n; i++) x[i] = (real)(3 * rng_normal(&rng)), a[i] = (real)rng_normal(&rng);
    for (int c = 0; c < C; c++) b[c] = (real)rng_normal(&rng);
    // bias + GELU keeping gelu' (in place over its input, as gpt.c calls it), and its backward
    real *g2 = malloc(n * sizeof(real)), *one = malloc(n * sizeof(real)), *d1 = malloc(n * sizeof(real));
    memcpy(x1, x, n * sizeof(real));
    bias_gelu_forward(y1, x1, x1, b, N, C);
    for (size_t i = 0; i < n; i++) x2[i] = x[i] + b[i % C], one[i] = 1;
    gelu_forward(y2, x2, n);
    gelu_backward(g2, one, x2, n); // gelu'(x + b)
    check(!memcmp(y1, y2, n * sizeof(real)) && !memcmp(x1, g2, n * sizeof(real)),
          "bias_gelu_forward == bias add, gelu_forward and gelu_backward's factor, bit for bit", "differs");
    bias_gelu_forward(y1, NULL, x, b, N, C);
    check(!memcmp(y1, y2, n * sizeof(real)), "bias_gelu_forward without gelu' (inference) == with it, bit for bit", "differs");
    bias_gelu_backward(d1, a, x1, n);
    gelu_backward(g2, a, x2, n);
    check(!memcmp(d1, g2, n * sizeof(real)), "bias_gelu_backward == gelu_backward, bit for bit", "differs");
    free(g2), free(one), free(d1);
    real *lw = malloc(C * sizeof(real)), *lb = malloc(C * sizeof(real)), *l1 = malloc(n * sizeof(real)), *l2 = malloc(n * sizeof(real));
    real *st1 = malloc(2 * N * sizeof(real)), *st2 = malloc(2 * N * sizeof(real));
    for (int c = 0; c < C; c++) lw[c] = (real)(1 + 0.1 * rng_normal(&rng)), lb[c] = (real)(0.1 * rng_normal(&rng));
    residual_layernorm_forward(y1, l1, st1, st1 + N, a, x, b, lw, lb, N, C);
    residual_forward(y2, a, x2, n);
    layernorm_forward(l2, st2, st2 + N, y2, lw, lb, N, C);
    check(!memcmp(y1, y2, n * sizeof(real)) && !memcmp(l1, l2, n * sizeof(real)) && !memcmp(st1, st2, 2 * N * sizeof(real)),
          "residual_layernorm_forward == bias add, residual_forward, layernorm_forward, bit for bit", "differs");
    free(lw), free(lb), free(l1), free(l2), free(st1), free(st2);
    free(x), free(a), free(b), free(x1), free(y1), free(x2), free(y2);
}

// A scheme's tables (the tabulate hook) must hold what the direct formula gives: every
// scheme with the hook, bias rows and parameter gradients before any table (direct) and
// after tabulating, bit for bit; and the table follows a change of the parameters.
static void test_tables_exact(void) {
    for (int si = 0; si < pos_count(); si++) {
        const PosScheme *s = pos_at(si);
        if (!s->tabulate || !s->bias_forward) continue; // a content term's table (xl) is checked by the gradient and blocking tests
        int NH = 4, T = 300, C = 32;
        PosState ps;
        size_t np;
        Rng rng;
        rng_seed(&rng, 9);
        real *params = scheme_state(&ps, s, C, NH, T, NULL, &rng, &np), *row[3], *dp[3];
        int *pos = malloc(T * sizeof(int));
        for (int i = 0; i < T; i++) pos[i] = 3 * i; // distances up to 3 (T - 1)
        real *ds = malloc(T * sizeof(real));
        for (int i = 0; i < T; i++) ds[i] = (real)rng_normal(&rng);
        int same;
        for (int r = 0; r < 3; r++) {
            if (r == 1) s->tabulate(&ps, 3 * T);        // table over every distance
            if (r == 2) { // every parameter changed (FIRE's table follows c, KERPLE's r1, r2), part table
                for (size_t i = 0; i < np; i++) params[i] *= 0.75f;
                if (s->constrain) s->constrain(&ps);
                s->tabulate(&ps, 2 * T);
            }
            row[r] = calloc(T, sizeof(real)), dp[r] = calloc(np, sizeof(real));
            real *dview[POS_MAX_TENSORS];
            scheme_views(&ps, dp[r], dview);
            for (int h = 0; h < NH; h++) {
                s->bias_forward(&ps, h, pos[T - 1], pos, T, row[r]);
                if (s->bias_backward) s->bias_backward(&ps, dview, h, pos[T - 1], pos, T, ds);
            }
        }
        // the third pass had other parameters: compare it with the direct formula at those
        pos_release(&ps);
        pos_prepare(&ps); // a fresh cache: nothing tabulated
        real *row3 = calloc(T, sizeof(real)), *dp3 = calloc(np, sizeof(real)), *dview3[POS_MAX_TENSORS];
        scheme_views(&ps, dp3, dview3);
        for (int h = 0; h < NH; h++) {
            s->bias_forward(&ps, h, pos[T - 1], pos, T, row3);
            if (s->bias_backward) s->bias_backward(&ps, dview3, h, pos[T - 1], pos, T, ds);
        }
        same = !memcmp(row[0], row[1], T * sizeof(real)) && !memcmp(dp[0], dp[1], np * sizeof(real)) &&
               !memcmp(row3, row[2], T * sizeof(real)) && !memcmp(dp3, dp[2], np * sizeof(real)) &&
               memcmp(row[1], row[2], T * sizeof(real));
        char name[128];
        snprintf(name, sizeof name, "tabulated bias == direct formula, bit for bit, and follows new parameters [%s]", s->name);
        check(same, name, "bias or parameter gradient differs");
        for (int r = 0; r < 3; r++) free(row[r]), free(dp[r]);
        free(row3), free(dp3), free(params), free(pos), free(ds);
        pos_release(&ps);
    }
}

// A scheme's own FLOPs (the flops hook, posgpt info's "pos flops/token") follow from the hooks it
// fills: a scheme that does any work counts it and one that does none (nope) has no hook; work
// per score grows with the window (a bias alone exactly in proportion: the same arithmetic per
// score), work per token does not; work in every layer doubles with the layers, an input add
// does not; training counts 3 x the forward. xl's q_i . r(D) term is at least the model's own
// q . k count, 2 L C T (the "about twice the score compute").
static void test_pos_flops(void) {
    int C = 128, NH = 4, T = 128, L = 4, nxl = 0;
    for (int si = 0; si < pos_count(); si++) {
        const PosScheme *s = pos_at(si);
        PosState ps;
        pos_state_fill(&ps, s, C, NH, 8 * T, NULL, POS_SHARING_PAPER);
        int works = s->input_forward || s->qk_forward || s->bias_forward || s->score_forward || s->value_forward;
        int per_score = s->bias_forward || s->value_forward || (s->score_forward && !s->extensions); // rope's: an extension's
        int bias_only = s->bias_forward && !s->score_forward && !s->value_forward && !s->qk_forward && !s->input_forward;
        double f = s->flops ? s->flops(&ps, T, L) : 0, f2T = s->flops ? s->flops(&ps, 2 * T, L) : 0,
               f2L = s->flops ? s->flops(&ps, T, 2 * L) : 0;
        char name[160];
        snprintf(name, sizeof name, "scheme flops: counted iff the scheme does work, > 0, finite [%s]", s->name);
        check(works == (s->flops != NULL) && (!works || (f > 0 && isfinite(f) && isfinite(f2T) && isfinite(f2L))), name,
              "works %d, hook %d, f %g", works, s->flops != NULL, f);
        snprintf(name, sizeof name, "scheme flops: per-score work grows with T (a bias alone in proportion), per-token does not [%s]",
                 s->name);
        check(bias_only ? f2T == 2 * f : per_score ? f2T > f : f2T == f, name, "f(T) %g, f(2T) %g", f, f2T);
        snprintf(name, sizeof name, "scheme flops: per-layer work doubles with the layers, an input add does not [%s]", s->name);
        check(s->input_forward ? f2L == f : f2L == 2 * f, name, "f(L) %g, f(2L) %g", f, f2L);
        snprintf(name, sizeof name, "scheme flops: training = 3 x forward [%s]", s->name);
        check(pos_train_flops(&ps, T, L) == 3 * f, name, "%g against 3 x %g", pos_train_flops(&ps, T, L), f);
        if (!strcmp(s->name, "xl")) {
            nxl++;
            check(f >= 2.0 * L * C * T, "scheme flops: xl's score term at least the model's q.k count (2 L C T)", "%g < %g", f,
                  2.0 * L * C * T);
        }
    }
    check(nxl == 1 || !pos_find("xl"), "scheme flops: xl checked", "%d", nxl);
}

// The rotary schemes transform all sequences in one call, sharing one cos/sin table among
// sequences with equal positions: the result must equal one call per sequence, bit for bit
static void test_rotary_batch_exact(void) {
    const char *names[] = {"rope", "xpos"};
    for (int si = 0; si < 2; si++) {
        const PosScheme *s = pos_find(names[si]);
        int C = 16, NH = 2, B = 3, T = 7, stride = 3 * C;
        PosState ps;
        size_t np;
        free(scheme_state(&ps, s, C, NH, 64, NULL, NULL, &np));
        int pos[21];
        for (int t = 0; t < T; t++) pos[t] = pos[T + t] = t, pos[2 * T + t] = 5 + 3 * t; // rows 0, 1 equal
        size_t n = (size_t)B * T * stride;
        real *v1 = malloc(n * sizeof(real)), *v2 = malloc(n * sizeof(real));
        Rng rng;
        rng_seed(&rng, 4);
        for (size_t i = 0; i < n; i++) v1[i] = v2[i] = (real)rng_normal(&rng);
        int same = 1;
        for (int dir = 0; dir < 2; dir++) {
            void (*f)(const PosState *, real *, const int *, int, int, int, int) = dir ? s->qk_backward : s->qk_forward;
            f(&ps, v1, pos, B, T, stride, 1);
            for (int b = 0; b < B; b++) f(&ps, v2 + (size_t)b * T * stride, pos + b * T, 1, T, stride, 1);
            same = same && !memcmp(v1, v2, n * sizeof(real));
        }
        char name[96];
        snprintf(name, sizeof name, "%s: q/k transform of 3 sequences in one call == one call each, bit for bit", s->name);
        check(same, name, "differs");
        free(v1), free(v2);
        pos_release(&ps);
    }
}

// xPos's decay in evaluation (attention_forward_infer) is centred per block of queries, so a
// window far longer than a float can span with one centre still gives the exact attention.
// Here --xpos-base 1 at T = 1000: one centre would need factors up to zeta_0^(-500) = e^626.
// Reference: softmax_j<=i(scale sum_d q_id k_jd exp(rate_d (p_i - p_j))) in double, positions
// shifted by 10^6 (only distances may matter). Rounding: the float scores are sums of HS = 8
// products, the softmax and output sums over up to 1000 terms, so n u ~ 6e-5 relative to
// the terms' magnitudes; 2e-4 of the largest output allows that and catches a wrong factor.
static void test_xpos_long_infer(void) {
    const PosScheme *s = pos_find("xpos");
    int C = 16, NH = 2, HS = C / NH, B = 2, T = 1000, C3 = 3 * C;
    float hp[POS_MAX_HYPER] = {0};
    pos_default_hypers(s, hp);
    hp[pos_hyper_index(s, "xpos-base")] = 1.0f;
    PosState ps;
    size_t np;
    free(scheme_state(&ps, s, C, NH, 64, hp, NULL, &np));
    size_t nq = (size_t)B * T * C3, no = (size_t)B * T * C;
    real *qkv = malloc(nq * sizeof(real)), *out = malloc(no * sizeof(real));
    double *ref = malloc(no * sizeof(double)), *w = malloc((size_t)T * sizeof(double)), rate[8];
    int *pos = malloc((size_t)B * T * sizeof(int));
    Rng rng;
    rng_seed(&rng, 21);
    for (size_t i = 0; i < nq; i++) qkv[i] = (real)rng_normal(&rng);
    for (int i = 0; i < B * T; i++) pos[i] = 1000000 * (i / T) + i % T;
    s->qk_decay(&ps, T, rate);
    attention_forward_infer(out, qkv, pos, &ps, B, T, C, NH, ATT_QBLOCK);
    double scale = 1.0 / sqrt((double)HS), err = 0, big = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++)
            for (int i = 0; i < T; i++) {
                const real *q = qkv + ((size_t)b * T + i) * C3 + h * HS;
                double mx = -INFINITY, z = 0;
                for (int j = 0; j <= i; j++) {
                    const real *k = qkv + ((size_t)b * T + j) * C3 + C + h * HS;
                    double sc = 0;
                    for (int d = 0; d < HS; d++) sc += (double)q[d] * k[d] * exp(rate[d] * (pos[b * T + i] - pos[b * T + j]));
                    w[j] = sc * scale, mx = w[j] > mx ? w[j] : mx;
                }
                for (int j = 0; j <= i; j++) w[j] = exp(w[j] - mx), z += w[j];
                for (int d = 0; d < HS; d++) {
                    double o = 0;
                    for (int j = 0; j <= i; j++) o += w[j] / z * qkv[((size_t)b * T + j) * C3 + 2 * C + h * HS + d];
                    size_t at = ((size_t)b * T + i) * C + h * HS + d;
                    ref[at] = o, big = fabs(o) > big ? fabs(o) : big;
                    double e = fabs(o - out[at]);
                    err = e > err || isnan(e) ? e : err;
                }
            }
    check(err <= 2e-4 * big, "xpos --xpos-base 1: inference attention at T = 1000 (far beyond one centre's float range) == double reference",
          "max |difference| %.3g, largest output %.3g", err, big);
    free(qkv), free(out), free(ref), free(w), free(pos);
    pos_release(&ps);
}

// A checkpoint whose CRC is consistent but whose trainer state is impossible (written by a
// buggy tool, or edited and re-checksummed) is refused, naming the field.
static void test_checkpoint_ranges(void) {
    GPTConfig c = {.V = 256, .C = 8, .L = 1, .NH = 2, .T = 8, .pos_rows = 8};
    snprintf(c.scheme, sizeof c.scheme, "alibi");
    pos_default_hypers(pos_find("alibi"), c.scheme_hp);
    GPT m;
    gpt_build(&m, &c);
    gpt_init(&m, 1);
    struct { const char *field; TrainState ts; } cases[] = {
        {"lr", {.lr = -1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 2, .step = 5, .val_loss = NAN}},
        {"beta2", {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 1.0, .steps = 10, .batch = 2, .step = 5, .val_loss = NAN}},
        {"step", {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 2, .step = 1L << 40, .val_loss = NAN}},
        {"eps", {.lr = 1e-3, .eps = 0, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 2, .step = 5, .val_loss = NAN}},
        {"warmup", {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .warmup = 11, .steps = 10, .batch = 2, .step = 5, .val_loss = NAN}},
        {"val_loss", {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 2, .step = 5, .val_loss = -2}},
        {"gradient shards", {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 6, .step = 5, .val_loss = NAN,
                             .grad_shards = 3}}, // not a power of two
        {"gradient shards", {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 2, .step = 5, .val_loss = NAN,
                             .grad_shards = 4}}, // more shards than examples
    };
    char path[64], err[512], name[128];
    snprintf(path, sizeof path, "/tmp/posgpt-test-%d-r.bin", (int)getpid());
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ckpt_save(path, &m, &cases[i].ts, NULL);
        FILE *f = fopen(path, "rb");
        GPT m2;
        TrainState ts;
        int rc = ckpt_read(f, path, &m2, &ts, NULL, err, sizeof err);
        fclose(f);
        if (rc == 0) gpt_free(&m2);
        char want[64];
        snprintf(want, sizeof want, "impossible trainer state: %s ", cases[i].field);
        snprintf(name, sizeof name, "checkpoint with an impossible %s (CRC consistent) is refused, naming it", cases[i].field);
        check(rc != 0 && strstr(err, want), name, "rc %d, message: %s", rc, rc ? err : "(none)");
    }
    // the run record (format v2): an impossible one is refused too
    TrainState rs = {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 2, .step = 5, .val_loss = NAN};
    rs.run.data_bytes = 100, rs.run.eval_every = 0, rs.run.ckpt_every = 1, rs.run.log_every = 1;
    ckpt_save(path, &m, &rs, NULL);
    FILE *f = fopen(path, "rb");
    GPT m2;
    TrainState ts;
    int rc = ckpt_read(f, path, &m2, &ts, NULL, err, sizeof err);
    fclose(f);
    if (rc == 0) gpt_free(&m2);
    check(rc != 0 && strstr(err, "impossible run record: eval_every"), "checkpoint with eval_every 0 in its run record is refused, naming it",
          "rc %d, message: %s", rc, rc ? err : "(none)");
    // a learned step past the run's steps (--until-acc learns within them; --after-learn's
    // steps after it may pass them): at step 20 of 10, learned at 15 with 30 steps after, refused
    TrainState ls = {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 2, .step = 20, .val_loss = NAN,
                     .learned_step = 15};
    ls.run.data_bytes = 100, ls.run.eval_every = 1, ls.run.ckpt_every = 1, ls.run.log_every = 1, ls.run.task = 1;
    ls.run.until_acc = 0.5, ls.run.after_learn = 30;
    for (int k = 0; k < 2; k++) { // (k = 1: learned at 10, the last step: accepted)
        ls.learned_step = k ? 10 : 15;
        ckpt_save(path, &m, &ls, NULL);
        f = fopen(path, "rb");
        rc = ckpt_read(f, path, &m2, &ts, NULL, err, sizeof err);
        fclose(f);
        if (rc == 0) gpt_free(&m2);
        if (k) check(rc == 0 && ts.learned_step == 10 && ts.step == 20, "checkpoint learned at its last step, 10 --after-learn steps on, is read",
                     "rc %d, message: %s", rc, rc ? err : "(none)");
        else check(rc != 0 && strstr(err, "impossible run record: learned step"), "checkpoint with a learned step past its steps is refused, naming it",
                   "rc %d, message: %s", rc, rc ? err : "(none)");
    }
    remove(path);
    gpt_free(&m);
}

// The checkpoint CRC is zlib's CRC-32 (IEEE 802.3): the standard check value of "123456789"
// is 0xCBF43926, and a CRC continued over pieces equals the CRC of the whole.
// same_file: one file by any spelling (./x, d/../x, a symlink, a hard link), also before it
// exists; out_open refuses a second output onto a file the command is writing already (the
// second commit would replace the first, and then say nothing was replaced)
static void test_same_file(void) {
    char dir[] = "/tmp/posgpt-same.XXXXXX", a[128], b[128], l[128], h[128], up[160], dot[160], nx[160];
    if (!mkdtemp(dir)) die("mkdtemp");
    snprintf(a, sizeof a, "%s/a", dir), snprintf(b, sizeof b, "%s/b", dir), snprintf(l, sizeof l, "%s/l", dir);
    snprintf(h, sizeof h, "%s/h", dir), snprintf(up, sizeof up, "%s/../%s/a", dir, strrchr(dir, '/') + 1);
    snprintf(dot, sizeof dot, "%s/./a", dir), snprintf(nx, sizeof nx, "%s/./new", dir);
    FILE *f = fopen(a, "w");
    fputs("x", f), fclose(f);
    f = fopen(b, "w"), fputs("x", f), fclose(f);
    int ok = !symlink(a, l) && !link(a, h);
    ok = ok && same_file(a, l) && same_file(a, h) && same_file(a, up) && same_file(a, dot) && !same_file(a, b);
    char nx2[160];
    snprintf(nx2, sizeof nx2, "%s/new", dir);
    ok = ok && same_file(nx, nx2) && !same_file(nx, a);
    check(ok, "same_file: a symlink, a hard link, d/../x, ./x (and a file not yet written) are the same file", "no");
    // two files not yet written: the base names decide (the resolved path once read its base
    // name from freed memory: two new outputs in one directory aborted the command)
    char other[160];
    snprintf(other, sizeof other, "%s/other", dir);
    int apart = !same_file(nx2, other) && !same_file("/posgpt-none-x", "/posgpt-none-y") && same_file("/posgpt-none-x", "//posgpt-none-x") &&
                same_file("posgpt-none-z", "./posgpt-none-z") && !same_file("posgpt-none-z", "posgpt-none-w") && !same_file("", "x");
    check(apart, "same_file: two new files in one directory (or at /, or relative) are told apart by name", "no");
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        OutFile o1, o2;
        out_open(&o1, nx2, "first"), out_open(&o2, nx, "second");
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    check(WIFEXITED(st) && WEXITSTATUS(st) == 1 && access(nx2, F_OK) != 0, "out_open: a second output onto one file is refused",
          "status %d", st);
    unlink(l), unlink(h), unlink(a), unlink(b), rmdir(dir);
}

static void test_crc32(void) {
    const char *s = "123456789";
    uint32_t whole = crc32_update(0, s, 9), parts = crc32_update(crc32_update(0, s, 4), s + 4, 5);
    check(whole == 0xCBF43926u && parts == whole, "CRC-32 check value of \"123456789\" is cbf43926, also in two pieces",
          "%08x, pieces %08x", whole, parts);
}

// rewrite a checkpoint as an older version would have written it: bytes 256..1023 cleared
// (no run record) when asked, the version, sharing (304) and layout (308) set, CRC redone
static void rewrite_header(const char *path, int version, int sharing, int layout, int clear_record) {
    FILE *f = fopen(path, "r+b");
    unsigned char h[CKPT_HEADER_BYTES];
    if (!f || fread(h, 1, sizeof h, f) != sizeof h) die("cannot reread %s", path);
    if (clear_record) memset(h + 256, 0, CKPT_HEADER_BYTES - 256);
    uint32_t v[3] = {(uint32_t)version, (uint32_t)sharing, (uint32_t)layout};
    int at[3] = {8, 304, 308};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 4; i++) h[at[k] + i] = (unsigned char)(v[k] >> (8 * i));
    memset(h + 248, 0, 4);
    uint32_t crc = crc32_update(0, h, sizeof h);
    float buf[256];
    size_t n;
    while ((n = fread(buf, sizeof(float), 256, f)) > 0) crc = crc32_update(crc, buf, n * sizeof(float));
    for (int i = 0; i < 4; i++) h[248 + i] = (unsigned char)(crc >> (8 * i));
    fseek(f, 0, SEEK_SET);
    if (fwrite(h, 1, sizeof h, f) != sizeof h || fclose(f)) die("cannot rewrite %s", path);
}

// Where a scheme's tensors live: format 4 stores the layout (which tensors are per layer) as
// well as the sharing asked for, so a file keeps loading as it was trained when a scheme's
// default changes. Versions 2 and 3 have no layout: a v2 file is all shared; a v3 file's
// "paper" means the defaults of format 3, under which FIRE's MLP was shared.
static void test_checkpoint_layout(void) {
    struct { const char *scheme; int built, version, stored, layout, want, ok; const char *what; } cases[] = {
        {"cope", POS_SHARING_SHARED, 2, 0, 0, POS_SHARING_SHARED, 1, "a v2 cope file (no sharing field) loads shared"},
        {"fire", POS_SHARING_SHARED, 3, POS_SHARING_PAPER, 0, POS_SHARING_SHARED, 1,
         "a v3 fire file with sharing 'paper' loads with the MLP shared, as format 3 meant"},
        {"cope", POS_SHARING_PAPER, 3, POS_SHARING_PAPER, 0, POS_SHARING_PAPER, 1, "a v3 cope file with sharing 'paper' loads per layer"},
        {"fire", POS_SHARING_SHARED, 4, POS_SHARING_PAPER, 0, POS_SHARING_SHARED, 1,
         "a v4 file whose stored layout 'paper' no longer gives (a changed default) loads as stored"},
        {"xl", POS_SHARING_PAPER, 4, POS_SHARING_PAPER, 1, POS_SHARING_PAPER, 1, "a v4 xl file (w_r per layer, u and v shared) loads as saved"},
        {"xl", POS_SHARING_PAPER, 4, POS_SHARING_PAPER, 2, -1, 0, "a v4 file with a layout no sharing gives is refused, naming it"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        GPTConfig c = {.V = 256, .C = 8, .L = 2, .NH = 2, .T = 8, .pos_rows = 8, .scheme_sharing = cases[i].built};
        snprintf(c.scheme, sizeof c.scheme, "%s", cases[i].scheme);
        pos_default_hypers(pos_find(cases[i].scheme), c.scheme_hp);
        GPT m, m2;
        gpt_build(&m, &c);
        gpt_init(&m, 3);
        TrainState ts = {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 2, .step = 1, .val_loss = NAN}, t2;
        char path[64], err[512] = "";
        snprintf(path, sizeof path, "/tmp/posgpt-test-%d-layout.bin", (int)getpid());
        ckpt_save(path, &m, &ts, NULL);
        unsigned saved = gpt_scheme_layout(&c);
        rewrite_header(path, cases[i].version, cases[i].stored, cases[i].version >= 4 ? cases[i].layout : 0, 0);
        FILE *f = fopen(path, "rb");
        int rc = ckpt_read(f, path, &m2, &t2, NULL, err, sizeof err);
        fclose(f);
        if (cases[i].ok)
            check(rc == 0 && m2.cfg.scheme_sharing == cases[i].want && gpt_scheme_layout(&m2.cfg) == saved &&
                      m2.num_params == m.num_params && !memcmp(m.params, m2.params, m.num_params * sizeof(real)),
                  cases[i].what, "rc %d %s; sharing %d (want %d), layout 0x%x (saved 0x%x)", rc, err, rc ? -1 : m2.cfg.scheme_sharing,
                  cases[i].want, rc ? 0 : gpt_scheme_layout(&m2.cfg), saved);
        else check(rc != 0 && strstr(err, "scheme layout 0x2"), cases[i].what, "rc %d: %s", rc, err);
        if (rc == 0) gpt_free(&m2);
        remove(path);
        gpt_free(&m);
    }
}

// Format v2 adds the run record (data identity, validation and logging settings) in bytes
// 256..1023 of the header, which v1 left zero: the record loads back as saved, and a v1 file
// (version 1, those bytes zero, CRC recomputed) still loads, with no record.
static void test_checkpoint_v1(void) {
    GPTConfig c = {.V = 256, .C = 8, .L = 1, .NH = 2, .T = 8, .pos_rows = 8};
    snprintf(c.scheme, sizeof c.scheme, "alibi");
    pos_default_hypers(pos_find("alibi"), c.scheme_hp);
    GPT m, m2;
    gpt_build(&m, &c);
    gpt_init(&m, 1);
    TrainState ts = {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 2, .step = 5, .val_loss = NAN}, t2;
    RunRecord *r = &ts.run;
    snprintf(r->data, sizeof r->data, "/data/corpus.txt"), snprintf(r->val, sizeof r->val, "/data/held.txt");
    r->data_bytes = 123456, r->val_bytes = 789, r->data_crc = 0xdeadbeef, r->val_crc = 0x12345678;
    r->eval_every = 7, r->ckpt_every = 9, r->log_every = 3, r->skip_nonfinite = 1, r->val_tokens = 4096;
    char path[64], err[512];
    snprintf(path, sizeof path, "/tmp/posgpt-test-%d-v.bin", (int)getpid());
    ckpt_save(path, &m, &ts, NULL);
    FILE *f = fopen(path, "rb");
    int rc = ckpt_read(f, path, &m2, &t2, NULL, err, sizeof err);
    fclose(f);
    check(rc == 0 && t2.version == CKPT_VERSION && !memcmp(&t2.run, &ts.run, sizeof ts.run), "checkpoint v2: the run record loads back as saved",
          "rc %d %s", rc, rc ? err : "(record differs)");
    if (rc == 0) gpt_free(&m2);
    rewrite_header(path, 1, 0, 0, 1); // as version 1
    f = fopen(path, "rb");
    rc = ckpt_read(f, path, &m2, &t2, NULL, err, sizeof err);
    fclose(f);
    check(rc == 0 && t2.version == 1 && t2.run.data_bytes == 0 && t2.step == 5 &&
              !memcmp(m.params, m2.params, m.num_params * sizeof(real)),
          "checkpoint v1 (no run record) still loads, parameters intact, no record", "rc %d %s", rc, rc ? err : "");
    if (rc == 0) gpt_free(&m2);
    remove(path);
    gpt_free(&m);
}

// Transformer-XL's table gradient has the stride of the pass's own distances (table_grad(ndist)),
// also when the cache still holds more distances from an earlier pass with the same weights
// (gradient shards, random positions, a skipped step): the gradients equal a fresh cache's
static void test_xl_table_stride(void) {
    const PosScheme *s = pos_find("xl");
    int NH = 2, C = 16, HS = C / NH, n = 10;
    PosState ps;
    size_t np;
    Rng rng;
    rng_seed(&rng, 5);
    real *params = scheme_state(&ps, s, C, NH, 64, NULL, &rng, &np);
    real *q = malloc(HS * sizeof(real)), *K = malloc((size_t)n * C * sizeof(real)), *ds = malloc(n * sizeof(real));
    int kpos[10];
    for (int e = 0; e < HS; e++) q[e] = (real)rng_normal(&rng);
    for (int i = 0; i < n * C; i++) K[i] = (real)rng_normal(&rng);
    for (int j = 0; j < n; j++) kpos[j] = j, ds[j] = (real)rng_normal(&rng);
    size_t ntab = s->table_grad(&ps, n);
    real *dp[2], *dtab[2], *dq = calloc(HS, sizeof(real)), *dK = calloc((size_t)n * C, sizeof(real)), scratch[64];
    for (int r = 0; r < 2; r++) {
        if (r == 1) { pos_release(&ps); pos_prepare(&ps); } // a fresh cache
        else s->tabulate(&ps, 4 * n);                     // an earlier pass over more distances
        s->tabulate(&ps, n);
        dp[r] = calloc(np, sizeof(real)), dtab[r] = calloc(ntab, sizeof(real));
        real *view[POS_MAX_TENSORS + 1];
        scheme_views(&ps, dp[r], view);
        view[ps.ntensors] = dtab[r];
        for (int h = 0; h < NH; h++)
            s->score_backward(&ps, view, h, q, K, C, n - 1, kpos, n, 0.5f, ds, dq, dK, scratch);
        s->untabulate(&ps, n, dtab[r], view);
    }
    check(!memcmp(dtab[0], dtab[1], ntab * sizeof(real)) && !memcmp(dp[0], dp[1], np * sizeof(real)),
          "xl: the table gradient's stride is the pass's distances, also after a pass over more [xl]",
          "gradient differs from a fresh cache's");
    for (int r = 0; r < 2; r++) free(dp[r]), free(dtab[r]);
    free(params), free(q), free(K), free(ds), free(dq), free(dK);
    pos_release(&ps);
}

// eval --ci's block bootstrap (train/evaluate.c), on constructed windows, so every number is
// exact arithmetic on fixed draws (no model, no BLAS):
// - block 1 equals a plain reference: one uniform draw a window, as the interval was before blocks;
// - block K: every resample is the whole series rotated, so both ends are the mean (up to the
//   order of the sum, 1e-12);
// - windows in regimes of 50 (loss 1 or 3 a token): the blocks of K^(1/3) = 10 keep the
//   regimes, and the interval is more than twice the independent one (the effective count is
//   about K / block = 100 blocks, not K = 1000 windows: about 3x, sqrt(1000 / 100));
// - independent windows (drawn from the Rng): the block interval is within 25% of the
//   independent one (both estimate the same spread; the block estimate's own relative error is
//   about sqrt(block / K) = 0.1 here, so 25% is 2.5 of them)
static void ref_iid_ci(const EvalResult *r, int resamples, uint64_t seed, double *lo, double *hi) {
    long K = r->windows;
    double *m = malloc((size_t)resamples * sizeof(double));
    Rng rng;
    rng_seed(&rng, seed);
    for (int b = 0; b < resamples; b++) {
        double s = 0, t = 0;
        for (long k = 0; k < K; k++) {
            long w = (long)rng_below(&rng, (uint64_t)K);
            s += r->win_loss[w], t += r->win_tokens[w];
        }
        m[b] = s / t;
    }
    for (int i = 1; i < resamples; i++) // (insertion sort: the reference stays plain)
        for (int j = i; j > 0 && m[j] < m[j - 1]; j--) { double x = m[j]; m[j] = m[j - 1]; m[j - 1] = x; }
    *lo = m[(int)floor(0.025 * resamples)], *hi = m[(int)ceil(0.975 * resamples) - 1];
    free(m);
}
static void test_block_bootstrap(void) {
    enum { K = 1000 };
    static double loss[K];
    static long tok[K];
    EvalResult r = {.windows = K, .win_loss = loss, .win_tokens = tok};
    Rng g;
    rng_seed(&g, 7);
    double total = 0, tt = 0;
    for (long k = 0; k < K; k++) {
        tok[k] = 10 + (long)rng_below(&g, 5);
        loss[k] = tok[k] * (((k / 50) % 2 ? 3.0 : 1.0) + 0.1 * rng_uniform(&g));
        total += loss[k], tt += tok[k];
    }
    double lo1, hi1, rlo, rhi, lob, hib, loK, hiK;
    eval_bootstrap_ci(&r, 1000, 1, 99, &lo1, &hi1);
    ref_iid_ci(&r, 1000, 99, &rlo, &rhi);
    check(lo1 == rlo && hi1 == rhi, "eval --ci block 1: the same draws and ends as the plain one-window-a-draw reference",
          "%.9f %.9f against %.9f %.9f", lo1, hi1, rlo, rhi);
    check(eval_ci_block(K) == 10 && eval_ci_block(2845) == 14 && eval_ci_block(1) == 1 && eval_ci_block(2) == 1 && eval_ci_block(64) == 4,
          "eval --ci's default block: the cube root of the windows, rounded, at least 1", "%ld %ld %ld %ld %ld",
          eval_ci_block(K), eval_ci_block(2845), eval_ci_block(1), eval_ci_block(2), eval_ci_block(64));
    eval_bootstrap_ci(&r, 1000, K, 99, &loK, &hiK);
    check(fabs(loK - total / tt) < 1e-12 && fabs(hiK - total / tt) < 1e-12,
          "eval --ci block K: each resample is the series rotated (wrapping past the last window), both ends the mean",
          "%.15f %.15f, mean %.15f", loK, hiK, total / tt);
    eval_bootstrap_ci(&r, 1000, eval_ci_block(K), 99, &lob, &hib);
    printf("# block bootstrap, regimes of 50 windows: width %.5f in blocks of %ld, %.5f independent (%.2fx)\n", hib - lob,
           eval_ci_block(K), hi1 - lo1, (hib - lob) / (hi1 - lo1));
    check(hib - lob > 2 * (hi1 - lo1) && lob < total / tt && total / tt < hib,
          "eval --ci blocks keep neighbours' correlation: regimes of 50 windows give an interval over twice the independent one",
          "block width %.5f, independent %.5f", hib - lob, hi1 - lo1);
    for (long k = 0; k < K; k++) loss[k] = tok[k] * (1.0 + 2.0 * rng_uniform(&g));
    eval_bootstrap_ci(&r, 1000, 1, 99, &lo1, &hi1);
    eval_bootstrap_ci(&r, 1000, eval_ci_block(K), 99, &lob, &hib);
    double q = (hib - lob) / (hi1 - lo1);
    printf("# block bootstrap, independent windows: width %.5f in blocks, %.5f independent (%.3fx)\n", hib - lob, hi1 - lo1, q);
    check(q > 0.75 && q < 1.25, "eval --ci on independent windows: blocks give about the independent interval (within 25%)",
          "block width / independent width %.3f", q);
    r.windows = 1;
    eval_bootstrap_ci(&r, 1000, 10, 99, &lob, &hib);
    check(isnan(lob) && isnan(hib), "eval --ci over one window: no interval (nan), whatever the block", "%g %g", lob, hib);
}

int main(void) {
    test_fast_math();
    test_fast_tanh();
    test_layernorm_backward_ref();
    test_checkpoint_ranges();
    test_checkpoint_v1();
    test_checkpoint_layout();
    test_crc32();
    test_same_file();
    test_rotary_batch_exact();
    test_xpos_long_infer();
    test_tables_exact();
    test_xl_table_stride();
    test_fused_exact();
    test_gemm_bands();
    test_sgemm_direct();
    test_gemm_units();
    test_attention_blocks();
    test_alibi_slopes();
    test_t5_buckets();
    test_positions();
    test_task_positions();
    test_task_token_accuracy();
    test_task_final_answer();
    test_task_fresh();
    test_task_split();
    test_task_spec();
    test_pack();
    test_checkpoint();
    test_block_bootstrap();
    test_pos_flops();
    return check_done();
}
