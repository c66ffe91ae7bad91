// bench.c - the project's own benchmark (no Python): training steps and long-context
// evaluation of the real model code, and the sgemm peak of this machine. tools/bench.sh runs
// it over configs and schemes (one process per measurement, for clean peak-RSS figures) and
// prints the tables; `make bench` calls that.
//
//   build/bench train  CONFIG SCHEME [warmup steps]    median tokens/s of full training steps
//   build/bench eval   CONFIG SCHEME T [reps]          forward-only tokens/s + peak RSS at length T, batch 1
//   build/bench decode CONFIG SCHEME CTX [tokens]      greedy decoding tokens/s at a CTX-token context, batch 1,
//                                                       with the key/value cache and recomputing the window
//   build/bench sgemm                                   sgemm GFLOP/s at 2048^3 and at the step's shapes
//   build/bench gemm CONFIG [reps]                    per product shape of a training step: GFLOP/s of gemm
//                                                       (our work units, this thread count) with OpenBLAS
//                                                       and, in a BLAS=onednn build, oneDNN; and of one
//                                                       whole call that the library threads itself
//   build/bench scaling CONFIG [steps]                 per-op work units and one-thread times of a training
//                                                       step (sinusoidal), and the step time they predict on
//                                                       4 to 64 threads (docs/performance.md, "Scaling model")
// CONFIG: S (4 layers, d 128, 4 heads, T 128, batch 32) or M (6, 256, 8, T 256, batch 16).
// Output lines start with RESULT and are key=value pairs.
#include "bf16.h"
#include "cli.h"
#include "decode.h"
#include "gpt.h"
#include "layers.h"
#include "sgemm.h"
#include "optim.h"
#include "positions.h"

#include <cblas.h>
#ifdef POSGPT_ONEDNN
#include <dnnl.h>
#endif
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

typedef struct { int L, C, NH, T, B; } Cfg;

static Cfg config(const char *name) {
    if (!strcmp(name, "S")) return (Cfg){4, 128, 4, 128, 32};
    if (!strcmp(name, "M")) return (Cfg){6, 256, 8, 256, 16};
    die("bench: config must be S or M, got '%s'", name);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
static double peak_rss_mib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
#ifdef __APPLE__
    return ru.ru_maxrss / 1048576.0; // bytes there
#else
    return ru.ru_maxrss / 1024.0; // KiB
#endif
}

// a model of config c with scheme s (randomized: sinusoidal base, positions from [0, 16T))
// (*rand_max: the range of the training positions, 0 = contiguous)
static void build(GPT *m, Cfg c, const char *scheme, int T_eval, int *rand_max) {
    int randomized = !strcmp(scheme, "randomized");
    const char *base = randomized ? "sinusoidal" : scheme;
    const PosScheme *ps = pos_find(base);
    if (!ps) die("bench: unknown scheme '%s' (%s|randomized)", scheme, pos_names());
    GPTConfig g = {.V = 256, .C = c.C, .L = c.L, .NH = c.NH, .T = c.T};
    *rand_max = randomized ? 16 * c.T : 0;
    snprintf(g.scheme, sizeof g.scheme, "%s", base);
    pos_default_hypers(ps, g.scheme_hp);
    int need = T_eval > c.T ? T_eval : c.T;
    g.pos_rows = randomized ? (*rand_max > need ? *rand_max : need) : need;
    gpt_build(m, &g);
    gpt_init(m, 1);
}

// FLOPs per token (torch_ref's convention): 6 N + 12 L T C, N = parameters in matmuls
static double flops_per_token(const GPT *m, int T) { return 6.0 * gpt_flop_params(m) + 12.0 * m->cfg.L * T * m->cfg.C; }

// ---- per-op timing: the model's PROF_BEGIN/PROF_END hooks (model/common.h), on for bench scaling ----
typedef struct { const char *op; int M, N, K; long units, calls; double s; } ProfRec;
#define PROF_MAX 256
static ProfRec prof_rec[PROF_MAX];
static int prof_n, prof_on, prof_depth;
// an op's start time, or -1: not counted (profiling off, or inside a parallel region), -2:
// inside another op (its time is that op's)
double prof_enter(void) {
    if (!prof_on || omp_in_parallel()) return -1;
    return prof_depth++ ? -2 : now_seconds();
}
void prof_leave(double t0, const char *op, int M, int N, int K, long units) {
    if (t0 == -1 || --prof_depth || t0 < 0) return;
    double dt = now_seconds() - t0;
    int i = 0;
    while (i < prof_n && !(!strcmp(prof_rec[i].op, op) && prof_rec[i].M == M && prof_rec[i].N == N && prof_rec[i].K == K))
        i++;
    if (i == PROF_MAX) die("bench scaling: more than %d distinct ops", PROF_MAX);
    if (i == prof_n) prof_rec[prof_n++] = (ProfRec){op, M, N, K, units, 0, 0};
    prof_rec[i].calls++, prof_rec[i].s += dt;
}

// one training step (forward, backward, gradient norm, AdamW) on fresh random tokens and
// positions (drawn before the timer starts); its seconds
typedef struct { GPT m; AdamW opt; int *tok, *tgt, *pos, rand_max; Rng rng; double loss; } Trainer;
static void trainer_init(Trainer *tr, Cfg c, const char *scheme) {
    build(&tr->m, c, scheme, 0, &tr->rand_max);
    int N = c.B * c.T;
    gpt_alloc(&tr->m, c.B, c.T, 1);
    adamw_init(&tr->opt, tr->m.num_params, 0.9, 0.95, 1e-8, 0.0);
    tr->tok = xmalloc(N * sizeof(int)), tr->tgt = xmalloc(N * sizeof(int)), tr->pos = xmalloc(N * sizeof(int));
    rng_seed(&tr->rng, 42);
}
static double train_step(Trainer *tr, Cfg c, int it) {
    int N = c.B * c.T;
    for (int i = 0; i < N; i++) tr->tok[i] = (int)rng_below(&tr->rng, 256), tr->tgt[i] = (int)rng_below(&tr->rng, 256);
    positions_draw(tr->pos, c.B, c.T, 0, tr->rand_max, &tr->rng);
    double t0 = now_seconds();
    tr->loss = gpt_forward(&tr->m, tr->tok, tr->tgt, tr->pos);
    gpt_zero_grad(&tr->m);
    gpt_backward(&tr->m);
    double norm = gpt_grad_norm(&tr->m);
    double p0 = prof_enter(); // AdamW: element-wise over every parameter
    adamw_step(&tr->opt, &tr->m, 3e-4, it + 1, norm > 1 ? 1 / norm : 1);
    prof_leave(p0, "adamw_step", (int)tr->m.num_params, 0, 0, (long)tr->m.num_params);
    return now_seconds() - t0;
}
static void trainer_free(Trainer *tr) {
    adamw_free(&tr->opt);
    free(tr->tok), free(tr->tgt), free(tr->pos);
    gpt_free(&tr->m);
}

// BENCH_PRECISION=bf16: the products in bf16 (train --precision bf16), refused like train
// refuses it where the CPU has no bf16 products
static const char *bench_precision(void) {
    const char *p = getenv("BENCH_PRECISION");
    char why[160];
    if (!p || !strcmp(p, "fp32")) return "fp32";
    if (strcmp(p, "bf16")) die("BENCH_PRECISION must be fp32 or bf16, got '%s'", p);
    if (!cpu_has_bf16(why, sizeof why)) die("BENCH_PRECISION=bf16 needs a CPU with %s", why);
    gemm_set_bf16(1);
    return "bf16";
}

static void bench_train(Cfg c, const char *scheme, int warmup, int steps) {
    Trainer tr;
    const char *prec = bench_precision();
    trainer_init(&tr, c, scheme);
    int T = c.T, B = c.B, N = B * T;
    double *dt = xmalloc(steps * sizeof(double));
    for (int it = 0; it < warmup + steps; it++) {
        double s = train_step(&tr, c, it);
        if (it >= warmup) dt[it - warmup] = s;
    }
    double med = median(dt, steps), tps = N / med, fpt = flops_per_token(&tr.m, T), loss = tr.loss;
    printf("RESULT kind=train scheme=%s L=%d d=%d H=%d T=%d B=%d threads=%d tokens_per_s=%.1f step_s=%.4f min_s=%.4f max_s=%.4f "
           "gflops=%.2f flops_per_token=%.0f loss=%.4f peak_rss_mib=%.0f precision=%s bf16_by=%s\n",
           scheme, c.L, c.C, c.NH, T, B, omp_get_max_threads(), tps, med, dt[0], dt[steps - 1], tps * fpt / 1e9, fpt, loss,
           peak_rss_mib(), prec, strcmp(prec, "bf16") ? "-" : gemm_bf16_kernel_in_use() ? "posgpt-avx512bf16" : gemm_sbgemm_in_use() ? "sbgemm" : "sgemm-on-rounded-inputs");
    free(dt);
    trainer_free(&tr);
}

// The scaling model (docs/performance.md): on one thread, each op of a training step is timed
// with its work units; an op of u units taking t seconds is taken as u equal units of t / u,
// run by p threads in ceil(u / p) rounds, so the step takes sum over ops of ceil(u / p) t / u,
// plus the step's time outside the timed ops (run serially). A lower bound on the critical
// path: it leaves out unequal units, memory bandwidth shared by the cores, and the fork/join of
// each op's team. With `profile` (bench profile), the same per-op times at the current thread
// count, no prediction: set beside the one-thread times, each op's own speedup.
static void bench_scaling(Cfg c, int steps, int profile, const char *scheme) {
    if (!profile) omp_set_num_threads(1);
    const char *prec = bench_precision(); // (BENCH_PRECISION=bf16: the per-op times of a bf16 step)
    Trainer tr;
    trainer_init(&tr, c, scheme);
    train_step(&tr, c, 0); // warm-up
    prof_on = 1;
    double step = 0;
    for (int it = 1; it <= steps; it++) step += train_step(&tr, c, it);
    prof_on = 0;
    step /= steps;
    double ops = 0;
    for (int i = 0; i < prof_n; i++) {
        ProfRec *r = &prof_rec[i];
        ops += r->s / steps;
        printf("OP config=%s threads=%d op=%s shape=%dx%dx%d calls=%ld units=%ld ms=%.3f\n", c.L == 4 ? "S" : "M",
               omp_get_max_threads(), r->op, r->M, r->N, r->K, r->calls / steps, r->units, 1e3 * r->s / steps);
    }
    if (profile) {
        printf("RESULT kind=profile scheme=%s L=%d d=%d H=%d T=%d B=%d threads=%d step_ms=%.2f untimed_ms=%.2f precision=%s\n", scheme,
               c.L, c.C, c.NH, c.T, c.B, omp_get_max_threads(), 1e3 * step, 1e3 * (step - ops), prec);
        trainer_free(&tr);
        return;
    }
    printf("RESULT kind=scaling scheme=%s L=%d d=%d H=%d T=%d B=%d step_ms=%.2f untimed_ms=%.2f", scheme, c.L, c.C, c.NH, c.T, c.B, 1e3 * step,
           1e3 * (step - ops));
    for (int p = 2; p <= 64; p *= 2) {
        double t = step - ops;
        for (int i = 0; i < prof_n; i++)
            t += (double)((prof_rec[i].units + p - 1) / p) * (prof_rec[i].s / steps / prof_rec[i].units);
        printf(" pred_ms_%d=%.2f speedup_%d=%.1f", p, 1e3 * t, p, step / t);
    }
    printf("\n");
    trainer_free(&tr);
}

static void bench_eval(Cfg c, const char *scheme, int T, int reps) {
    GPT m;
    int rand_max;
    build(&m, c, scheme, T, &rand_max);
    gpt_alloc(&m, 1, T, 0);
    int *tok = xmalloc(T * sizeof(int)), *tgt = xmalloc(T * sizeof(int));
    Rng rng;
    rng_seed(&rng, 7);
    for (int i = 0; i < T; i++) tok[i] = (int)rng_below(&rng, 256), tgt[i] = (int)rng_below(&rng, 256);
    double *dt = xmalloc((reps + 1) * sizeof(double)), loss = 0;
    for (int it = 0; it < reps + 1; it++) { // one warm-up pass
        double t0 = now_seconds();
        loss = gpt_forward(&m, tok, tgt, NULL);
        if (it) dt[it - 1] = now_seconds() - t0;
    }
    double med = median(dt, reps);
    printf("RESULT kind=eval scheme=%s L=%d d=%d H=%d T=%d B=1 threads=%d tokens_per_s=%.1f fwd_s=%.4f loss=%.4f peak_rss_mib=%.0f\n",
           scheme, c.L, c.C, c.NH, T, omp_get_max_threads(), T / med, med, loss, peak_rss_mib());
    free(tok), free(tgt), free(dt);
    gpt_free(&m);
}

// Decoding the last `gen` tokens of a CTX-token context, one at a time: with the cache (after
// a prefill of CTX - gen tokens) and by recomputing the forward pass over every token so far
// (what the cache saves; fewer steps, as each costs a whole pass). Median time per token.
static void bench_decode(Cfg c, const char *scheme, int ctx, int gen) {
    GPT m;
    int rand_max;
    build(&m, c, scheme, ctx, &rand_max);
    if (gen < 1 || gen >= ctx) die("bench decode: need 1 <= tokens < context");
    int *tok = xmalloc(ctx * sizeof(int));
    Rng rng;
    rng_seed(&rng, 9);
    for (int i = 0; i < ctx; i++) tok[i] = (int)rng_below(&rng, 256);
    Decoder d;
    decoder_init(&d, &m, 1, ctx, ctx - gen);
    double *dt = xmalloc(gen * sizeof(double)), t0 = now_seconds();
    decoder_feed(&d, tok, NULL, ctx - gen);
    double prefill = now_seconds() - t0;
    for (int i = 0; i < gen; i++) {
        t0 = now_seconds();
        decoder_feed(&d, tok + ctx - gen + i, NULL, 1);
        dt[i] = now_seconds() - t0;
    }
    double cached = median(dt, gen);
    int nfull = gen < 8 ? gen : 8;
    for (int i = 0; i < nfull; i++) { // the window grows by one token per step, as in decoding
        int T = ctx - nfull + 1 + i;
        gpt_alloc(&m, 1, T, 0);
        t0 = now_seconds();
        gpt_forward(&m, tok, NULL, NULL);
        dt[i] = now_seconds() - t0;
    }
    double full = median(dt, nfull);
    printf("RESULT kind=decode scheme=%s L=%d d=%d H=%d ctx=%d threads=%d cached_tokens_per_s=%.1f uncached_tokens_per_s=%.2f "
           "speedup=%.1f prefill_tokens_per_s=%.1f peak_rss_mib=%.0f\n",
           scheme, c.L, c.C, c.NH, ctx, omp_get_max_threads(), 1 / cached, 1 / full, full / cached, (ctx - gen) / prefill,
           peak_rss_mib());
    decoder_free(&d);
    free(tok), free(dt);
    gpt_free(&m);
}

static double sgemm_gflops(int M, int N, int K, int ta, int tb, double min_s) {
    float *A = xmalloc((size_t)M * K * 4), *Bm = xmalloc((size_t)K * N * 4), *C = xmalloc((size_t)M * N * 4);
    for (size_t i = 0; i < (size_t)M * K; i++) A[i] = (float)(i % 7) * 0.1f;
    for (size_t i = 0; i < (size_t)K * N; i++) Bm[i] = (float)(i % 5) * 0.1f;
    double best[64];
    int n = 0;
    double t_all = now_seconds();
    for (int it = 0; n < 64 && (it < 5 || now_seconds() - t_all < min_s); it++) {
        double t0 = now_seconds();
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, 1.0f, A,
                    ta ? M : K, Bm, tb ? K : N, 0.0f, C, N);
        double d = now_seconds() - t0;
        if (it >= 2) best[n++] = d; // two warm-up calls
    }
    double med = median(best, n);
    free(A), free(Bm), free(C);
    return 2.0 * M * N * K / med / 1e9;
}

static void bench_sgemm(void) {
    printf("RESULT kind=sgemm shape=2048x2048x2048 threads=%d gflops=%.1f core=%s\n", omp_get_max_threads(),
           sgemm_gflops(2048, 2048, 2048, 0, 0, 1.0), openblas_get_corename());
    // the largest linear of config S: (4096 x 128) x (128 x 512), forward
    printf("RESULT kind=sgemm shape=4096x512x128 threads=%d gflops=%.1f\n", omp_get_max_threads(),
           sgemm_gflops(4096, 512, 128, 0, 1, 0.5));
    printf("LIB %s\n", gemm_lib_name()); // what a training step's products run
}

// The products of a config's training step (model/gpt.c, model/layers.c): each linear (and the
// tied head) forward, input gradient and weight gradient over the step's N = B T rows; the
// attention's per-(batch, head) products over T x T, as B NH calls in one parallel loop (each
// then runs on one thread, as in the model; the model cuts them into query blocks besides).
typedef struct { const char *op; int ta, tb, M, N, K, per_head; } GemmShape;
static int step_shapes(Cfg c, GemmShape *s) {
    int N = c.B * c.T, C = c.C, HS = c.C / c.NH, n = 0;
    struct { const char *name; int OC, IC; } lin[] = {{"qkv", 3 * C, C}, {"attn_proj", C, C}, {"fc", 4 * C, C},
                                                      {"fc_proj", C, 4 * C}, {"head", 256, C}};
    static char names[5][3][32];
    for (int i = 0; i < 5; i++) {
        snprintf(names[i][0], 32, "%s.fwd", lin[i].name);
        snprintf(names[i][1], 32, "%s.dinp", lin[i].name);
        snprintf(names[i][2], 32, "%s.dW", lin[i].name);
        s[n++] = (GemmShape){names[i][0], 0, 1, N, lin[i].OC, lin[i].IC, 0};
        s[n++] = (GemmShape){names[i][1], 0, 0, N, lin[i].IC, lin[i].OC, 0};
        s[n++] = (GemmShape){names[i][2], 1, 0, lin[i].OC, lin[i].IC, N, 0};
    }
    s[n++] = (GemmShape){"attn.QKt|dP", 0, 1, c.T, c.T, HS, 1};
    s[n++] = (GemmShape){"attn.PV|dQ", 0, 0, c.T, HS, c.T, 1};
    s[n++] = (GemmShape){"attn.dK|dV", 1, 0, c.T, HS, c.T, 1};
    return n;
}
// one timed run of shape g: way 0 gemm (work units), 1 one whole call of the library
static double gemm_once(const GemmShape *g, int heads, int way, float *A, float *Bm, float *Cm) {
    int lda = g->ta ? g->M : g->K, ldb = g->tb ? g->K : g->N;
    size_t sa = (size_t)g->M * g->K, sb = (size_t)g->K * g->N, sc = (size_t)g->M * g->N;
    double t0 = now_seconds();
    if (g->per_head) {
#pragma omp parallel for schedule(static)
        for (int h = 0; h < heads; h++) gemm(g->ta, g->tb, g->M, g->N, g->K, 1, A + h * sa, lda, Bm + h * sb, ldb, 0, Cm + h * sc, g->N);
    } else if (way == 0) gemm(g->ta, g->tb, g->M, g->N, g->K, 1, A, lda, Bm, ldb, 0, Cm, g->N);
#ifdef POSGPT_ONEDNN
    else if (gemm_get_lib() == GEMM_ONEDNN)
        dnnl_sgemm(g->ta ? 'T' : 'N', g->tb ? 'T' : 'N', g->M, g->N, g->K, 1, A, lda, Bm, ldb, 0, Cm, g->N);
#endif
    else cblas_sgemm(CblasRowMajor, g->ta ? CblasTrans : CblasNoTrans, g->tb ? CblasTrans : CblasNoTrans, g->M, g->N, g->K, 1,
                     A, lda, Bm, ldb, 0, Cm, g->N);
    return now_seconds() - t0;
}
// per shape: the median GFLOP/s over reps of each library (alternating, so a slow spell of a
// shared machine hits both) and way; "-" where this build has no oneDNN, where the CPU has no
// AVX-512 for posgpt's sgemm kernel, or where the way does not apply (posgpt's sgemm has no
// "whole" call: it is one product over the team either way)
static void bench_gemm(Cfg c, int reps) {
    GemmShape sh[32];
    int n = step_shapes(c, sh), heads = c.B * c.NH, nlib = 0;
    GemmLib libs[3];
    const char *key[3][2];
    libs[nlib] = GEMM_OPENBLAS, key[nlib][0] = "openblas", key[nlib][1] = "openblas_whole", nlib++;
#ifdef POSGPT_ONEDNN
    libs[nlib] = GEMM_ONEDNN, key[nlib][0] = "onednn", key[nlib][1] = "onednn_whole", nlib++;
#endif
    GemmLib lib0 = gemm_get_lib();
    SgKernel k0 = sgemm_get_kernel();
    if (sgemm_kernel_ok(SG_AVX512)) {
        sgemm_set_kernel(SG_AVX512);
        libs[nlib] = GEMM_POSGPT, key[nlib][0] = "posgpt", key[nlib][1] = NULL, nlib++;
    }
    for (int l = 0; l < nlib; l++) {
        gemm_set_lib(libs[l]);
        printf("LIB %s\n", gemm_lib_name());
    }
    for (int i = 0; i < n; i++) {
        const GemmShape *g = &sh[i];
        int copies = g->per_head ? heads : 1;
        size_t sa = (size_t)g->M * g->K * copies, sb = (size_t)g->K * g->N * copies, sc = (size_t)g->M * g->N * copies;
        float *A = xmalloc(sa * 4), *Bm = xmalloc(sb * 4), *Cm = xmalloc(sc * 4);
        for (size_t k = 0; k < sa; k++) A[k] = (float)(k % 7) * 0.1f - 0.3f;
        for (size_t k = 0; k < sb; k++) Bm[k] = (float)(k % 5) * 0.1f - 0.2f;
        double flops = 2.0 * g->M * g->N * g->K * copies, gf[3][2] = {{0, 0}, {0, 0}, {0, 0}};
        for (int way = 0; way < (g->per_head ? 1 : 2); way++) {
            double dt[3][64];
            int m = reps < 64 ? reps : 64;
            for (int r = -2; r < m; r++) // two warm-up rounds
                for (int l = 0; l < nlib; l++) {
                    if (way && !key[l][1]) continue;
                    gemm_set_lib(libs[l]);
                    double d = gemm_once(g, heads, way, A, Bm, Cm);
                    if (r >= 0) dt[l][r] = d;
                }
            for (int l = 0; l < nlib; l++)
                if (!way || key[l][1]) gf[l][way] = flops / median(dt[l], m) / 1e9;
        }
        gemm_set_lib(GEMM_OPENBLAS);
        printf("RESULT kind=gemm config=%s op=%s shape=%dx%dx%d ta=%d tb=%d calls=%d units=%d", c.L == 4 ? "S" : "M", g->op, g->M,
               g->N, g->K, g->ta, g->tb, copies, gemm_units(g->M, g->N, g->K));
        if (sgemm_kernel_ok(SG_AVX512)) {
            gemm_set_lib(GEMM_POSGPT);
            printf(" posgpt_units=%d", gemm_units(g->M, g->N, g->K));
        }
        printf(" threads=%d", omp_get_max_threads());
        const char *all[5] = {"openblas", "openblas_whole", "onednn", "onednn_whole", "posgpt"};
        for (int a = 0; a < 5; a++) {
            double v = 0;
            for (int l = 0; l < nlib; l++)
                for (int way = 0; way < 2; way++)
                    if (key[l][way] && !strcmp(key[l][way], all[a])) v = gf[l][way];
            if (v > 0) printf(" %s=%.1f", all[a], v);
            else printf(" %s=-", all[a]);
        }
        printf("\n");
        free(A), free(Bm), free(Cm);
    }
    gemm_set_lib(lib0), sgemm_set_kernel(k0);
}

int main(int argc, char **argv) {
    ensure_fast_blas(argv);
    if (argc >= 4 && !strcmp(argv[1], "train")) bench_train(config(argv[2]), argv[3], argc > 4 ? atoi(argv[4]) : 3, argc > 5 ? atoi(argv[5]) : 15);
    else if (argc >= 5 && !strcmp(argv[1], "eval")) bench_eval(config(argv[2]), argv[3], atoi(argv[4]), argc > 5 ? atoi(argv[5]) : 3);
    else if (argc >= 5 && !strcmp(argv[1], "decode")) bench_decode(config(argv[2]), argv[3], atoi(argv[4]), argc > 5 ? atoi(argv[5]) : 64);
    else if (argc >= 2 && !strcmp(argv[1], "sgemm")) bench_sgemm();
    else if (argc >= 3 && !strcmp(argv[1], "gemm")) bench_gemm(config(argv[2]), argc > 3 ? atoi(argv[3]) : 9);
    else if (argc >= 3 && !strcmp(argv[1], "scaling")) bench_scaling(config(argv[2]), argc > 3 ? atoi(argv[3]) : 2, 0, argc > 4 ? argv[4] : "rope");
    else if (argc >= 3 && !strcmp(argv[1], "profile")) bench_scaling(config(argv[2]), argc > 3 ? atoi(argv[3]) : 2, 1, argc > 4 ? argv[4] : "rope");
    else {
        fprintf(stderr, "usage: bench train S|M SCHEME [warmup] [steps] | bench eval S|M SCHEME T [reps] | "
                        "bench decode S|M SCHEME CTX [tokens] | bench sgemm | bench gemm S|M [reps] | bench scaling S|M [steps] [scheme] | "
                        "bench profile S|M [steps] [scheme] (scheme: rope)\n");
        return 2;
    }
    return 0;
}
