// layers.c - the GPT block's layers, forward and backward, plus the gemm wrapper.
// Parallelism: OpenMP over rows (n) or (b, h); weight-gradient reductions are split so
// each thread writes disjoint memory. Everything is correct with OpenMP off.
#include "layers.h"

#include "bf16.h"
#include "sgemm.h"

#include <omp.h>

#include <cblas.h>
#ifdef POSGPT_ONEDNN
#include <dnnl.h>
#include <dnnl_debug.h>
#endif
#include <stdio.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// column-sum reductions (bias and LayerNorm parameter gradients) run over blocks of COLBLK
// columns, one block per thread at a time, summed over all rows in a local array
#define COLBLK 64

// The library the float products call: posgpt's own packed sgemm (model/sgemm.c; the default
// on a CPU with AVX-512F, unless OPENBLAS_CORETYPE names an older kernel), OpenBLAS, or in a
// BLAS=onednn build oneDNN's dnnl_sgemm (the default there). POSGPT_BLAS picks one
// (gemm_select_lib). The double build (the gradient checks) always calls OpenBLAS.
static int gemm_lib = -1; // unset: gemm_default_lib() at the first use
static GemmLib gemm_default_lib(void) {
#ifdef POSGPT_ONEDNN
    return GEMM_ONEDNN;
#else
    const char *core = getenv("OPENBLAS_CORETYPE");
    int avx512_core = !core || !*core || !strcasecmp(core, "SkylakeX") || !strcasecmp(core, "Cooperlake") ||
                      !strcasecmp(core, "SapphireRapids");
    return avx512_core && sgemm_kernel_ok(SG_AVX512) ? GEMM_POSGPT : GEMM_OPENBLAS;
#endif
}
int gemm_set_lib(GemmLib lib) {
#ifndef POSGPT_ONEDNN
    if (lib == GEMM_ONEDNN) return 0;
#endif
    gemm_lib = lib;
    return 1;
}
GemmLib gemm_get_lib(void) {
    if (gemm_lib < 0) gemm_lib = gemm_default_lib();
    return (GemmLib)gemm_lib;
}
void gemm_select_lib(const char *name) {
    if (!name || !*name) return;
    if (!strcmp(name, "openblas")) gemm_set_lib(GEMM_OPENBLAS);
    else if (!strcmp(name, "posgpt")) {
        gemm_set_lib(GEMM_POSGPT);
        sgemm_set_kernel(sgemm_best_kernel());
    } else if (!strcmp(name, "posgpt-portable")) {
        gemm_set_lib(GEMM_POSGPT);
        sgemm_set_kernel(SG_PORTABLE);
    } else if (strcmp(name, "onednn"))
        die("POSGPT_BLAS=%s: unknown library; give posgpt, posgpt-portable, openblas or onednn", name);
    else if (!gemm_set_lib(GEMM_ONEDNN))
        die("POSGPT_BLAS=onednn: this posgpt was built without oneDNN; build it with make BLAS=onednn (docs/install.md)");
}
const char *gemm_lib_name(void) {
    static char buf[128];
#ifdef POSGPT_ONEDNN
    if (gemm_get_lib() == GEMM_ONEDNN) {
        const dnnl_version_t *v = dnnl_version();
        const char *isa = dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa());
        if (!strncmp(isa, "cpu_isa_", 8)) isa += 8;
        snprintf(buf, sizeof buf, "oneDNN %d.%d.%d sgemm, %s", v->major, v->minor, v->patch, isa);
        return buf;
    }
#endif
    if (gemm_get_lib() == GEMM_POSGPT)
        snprintf(buf, sizeof buf, "posgpt sgemm %s, OpenBLAS %s kernels", sgemm_kernel_name(), openblas_get_corename());
    else snprintf(buf, sizeof buf, "OpenBLAS %s kernels", openblas_get_corename());
    return buf;
}

// The products' inputs (gemm_set_bf16): float32, or bfloat16 copies of both factors made
// before the cut (bf16_pack: op(A) and op(B) packed, rounded to nearest even), summed in
// float32 by OpenBLAS's cblas_sbgemm where the library has it (looked up at run time: Debian's
// OpenBLAS 0.3.21 is built without it), else by cblas_sgemm on the rounded values kept in
// float32: the same numbers (a product of two bfloat16 values is exact in float32), none of
// the speed. POSGPT_BF16_NO_SBGEMM=1 takes the second way even where the first exists.
typedef void (*SbgemmFn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint, blasint, blasint, float,
                         const uint16_t *, blasint, const uint16_t *, blasint, float, float *, blasint);
static int gemm_bf16;
static SbgemmFn gemm_sbgemm;

void gemm_set_bf16(int on) {
    static int looked;
    if (on && !looked) {
        const char *no = getenv("POSGPT_BF16_NO_SBGEMM");
        void *self = dlopen(NULL, RTLD_LAZY);
        if (self && !(no && *no && strcmp(no, "0"))) *(void **)&gemm_sbgemm = dlsym(self, "cblas_sbgemm");
        looked = 1;
    }
#ifndef POSGPT_DOUBLE
    gemm_bf16 = on != 0;
#endif
}
int gemm_get_bf16(void) { return gemm_bf16; }
int gemm_sbgemm_in_use(void) { return gemm_sbgemm != NULL; }
// posgpt's bf16 kernel (sgemm_bf16: AVX512-BF16) for the products posgpt's sgemm would run
int gemm_bf16_kernel_in_use(void) {
#ifdef POSGPT_DOUBLE
    return 0;
#else
    return gemm_get_lib() == GEMM_POSGPT && sgemm_bf16_ok();
#endif
}
const char *gemm_bf16_backend(void) {
    if (gemm_bf16_kernel_in_use())
        return "posgpt's AVX512-BF16 kernel (vdpbf16ps)";
    return gemm_sbgemm ? "OpenBLAS cblas_sbgemm" : "cblas_sgemm on the bf16-rounded inputs (no cblas_sbgemm in this OpenBLAS)";
}

// a product's inputs: A and B as given (float32), or their packed bfloat16 copies A16 and B16
// (leading dimensions lda, ldb of the packed matrices) for cblas_sbgemm
typedef struct {
    const real *A, *B;
    const uint16_t *A16, *B16;
    int lda, ldb;
} GemmIn;

// one BLAS call, as is (OpenBLAS threads it itself outside a parallel region), on the inputs'
// elements from ia (of A) and ib (of B) on
static void blas_gemm(int ta, int tb, int M, int N, int K, real alpha, const GemmIn *in, size_t ia, size_t ib, real beta,
                      real *C, int ldc) {
    enum CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
#ifdef POSGPT_DOUBLE
    cblas_dgemm(CblasRowMajor, opa, opb, M, N, K, alpha, in->A + ia, in->lda, in->B + ib, in->ldb, beta, C, ldc);
#else
#ifdef POSGPT_ONEDNN
    if (gemm_get_lib() == GEMM_ONEDNN && !in->A16) { // (bf16 through cblas_sbgemm stays with OpenBLAS)
        dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, in->A + ia, in->lda, in->B + ib, in->ldb,
                                      beta, C, ldc);
        if (st != dnnl_success) die("dnnl_sgemm failed (status %d) on a %dx%dx%d product", (int)st, M, N, K);
        return;
    }
#endif
    if (in->A16) gemm_sbgemm(CblasRowMajor, opa, opb, M, N, K, alpha, in->A16 + ia, in->lda, in->B16 + ib, in->ldb, beta, C, ldc);
    else cblas_sgemm(CblasRowMajor, opa, opb, M, N, K, alpha, in->A + ia, in->lda, in->B + ib, in->ldb, beta, C, ldc);
#endif
}

// Large products are cut into work units: bands of C, and for a long sum (K) chunks of K.
// Bands are of rows, or of columns when C has fewer rows than columns (each band then packs
// all of A, the smaller factor, and only its part of B, e.g. the fc-projection weight
// gradient (C, 4C)). The weight gradients (dW += dout^T inp: few rows, K = the step's tokens)
// have few bands, so their K is cut into chunks as well: chunk k's partial product goes into
// a scratch matrix, and the chunks are then added into C in chunk order, element by element:
// c = beta c (0 when beta is 0), then c += chunk 0, c += chunk 1, ... Each unit is one
// single-threaded BLAS call, and the OpenMP threads share the units out.
// Determinism: the cut depends only on the shape (M, N, K), never on the thread count, every
// BLAS call is single-threaded (neither OpenBLAS nor oneDNN threads inside an active parallel
// region: oneDNN counts one thread there, and uses the same OpenMP runtime, GNU's),
// and the chunk sums run in a fixed order, so each element of C comes from the same calls and
// the same additions whether 1, 2 or 64 threads run, or whether the caller is itself inside a
// parallel region: the floats do not depend on the thread count. They do depend on the library
// and its kernel (OpenBLAS's Haswell, SkylakeX, ...; oneDNN's ISA, DNNL_MAX_CPU_ISA): a kernel may sum an element's K products in a
// different order, and some kernels (Haswell's) even order them differently for different M
// within one call, so a band's floats may differ from the same rows of one whole-matrix call;
// tests/test_core.c checks the product against a double-precision loop within the rounding
// bound instead (a K-split product is still a sum of the same terms, in another order).
// Why units: faster than OpenBLAS's own threading at this model's sizes (no hand-off between
// threads inside the product, and the zeroing for beta = 0 runs in each band), and enough of
// them for many threads: GEMM_UNITS per product where the shape allows (docs/performance.md).
// The band count is a power of two (so 2, 4, 8 threads divide it) and a band has at least
// GEMM_MIN_BAND rows or columns, a K chunk at least GEMM_MIN_KCHUNK: each band re-packs the
// other factor, and each chunk costs a pass over its scratch matrix.
// One flat team: a product called outside a parallel region opens one (no nested teams, so
// thread binding (OMP_PROC_BIND, OMP_PLACES) places its threads as it places every other
// op's); called inside one (attention over (b, h)) it runs its units in order on the calling
// thread.
#define GEMM_TILE 16       // band and chunk edges are multiples of this (the kernels' register tile)
#define GEMM_MIN_BAND 64   // rows (or columns) per band, at least
#define GEMM_MIN_KCHUNK 256 // products summed per chunk of K, at least
#define GEMM_UNITS 64      // bands x chunks per product, at most
#define GEMM_SPLIT_FLOPS (1 << 22) // smaller products are one call

// the cut of a product: which dimension (cols), its length D, the number of bands, and the
// number of chunks of K
typedef struct { int cols, D, bands, kchunks; } GemmPlan;
static GemmPlan gemm_plan(int M, int N, int K) {
    GemmPlan p = {N > M, N > M ? N : M, 1, 1};
    if (2.0 * M * N * K < GEMM_SPLIT_FLOPS) return p;
    while (p.bands * 2 <= GEMM_UNITS && p.D / (p.bands * 2) >= GEMM_MIN_BAND) p.bands *= 2;
    while (p.bands * p.kchunks * 2 <= GEMM_UNITS && K / (p.kchunks * 2) >= GEMM_MIN_KCHUNK) p.kchunks *= 2;
    return p;
}
// does posgpt's sgemm run this product? The ones the OpenBLAS path cuts into units (smaller
// ones, e.g. the attention's per-head products, stay one library call); bf16 products stay
// with OpenBLAS; never in the double build
static int use_sgemm(int M, int N, int K) {
#ifdef POSGPT_DOUBLE
    (void)M, (void)N, (void)K;
    return 0;
#else
    // (bf16 on posgpt's AVX512-BF16 kernel: every product, which saves the small ones, e.g.
    // attention's per head, a rounding pass of their own)
    if (gemm_get_lib() != GEMM_POSGPT) return 0;
    return gemm_bf16 ? sgemm_bf16_ok() : 2.0 * M * N * K >= GEMM_SPLIT_FLOPS;
#endif
}
int gemm_units(int M, int N, int K) {
    if (use_sgemm(M, N, K)) return sgemm_units(M, N, 64);
    GemmPlan p = gemm_plan(M, N, K);
    return p.bands * p.kchunks;
}
// edges [*d0, *d1) of part i of n parts of a length D: whole tiles, the last takes the remainder
static void gemm_part(int D, int n, int i, int *d0, int *d1) {
    int tiles = D / GEMM_TILE;
    *d0 = (int)((long)tiles * i / n) * GEMM_TILE;
    *d1 = i == n - 1 ? D : (int)((long)tiles * (i + 1) / n) * GEMM_TILE;
}

// Scratch for the chunks: one (M, N) matrix per chunk for a product run by a team (grown,
// never shrunk; a team's product is only ever started by the one thread outside parallel
// regions), and one matrix per thread for a product run in order inside a parallel region
// (a chunk at a time).
static real *gemm_scratch;
static size_t gemm_scratch_n;
static _Thread_local real *gemm_tscratch;
static _Thread_local size_t gemm_tscratch_n;
static real *grow(real **buf, size_t *cap, size_t n) {
    if (n > *cap) *buf = xrealloc(*buf, n * sizeof(real)), *cap = n;
    return *buf;
}

// unit u of plan p: band u / kchunks, chunk u % kchunks; alpha op(A) op(B) of the band's part
// of C and the chunk's part of K into Cu (ldc), with beta (the chunks: 0)
static void gemm_unit(const GemmPlan *p, int u, int ta, int tb, int M, int N, int K, real alpha, const GemmIn *in,
                      real beta, real *Cu, int ldc) {
    int d0, d1, k0, k1;
    gemm_part(p->D, p->bands, u / p->kchunks, &d0, &d1);
    gemm_part(K, p->kchunks, u % p->kchunks, &k0, &k1);
    if (d1 <= d0 || k1 <= k0) return;
    size_t ia = ta ? (size_t)k0 * in->lda : (size_t)k0, ib = tb ? (size_t)k0 : (size_t)k0 * in->ldb;
    if (p->cols)
        blas_gemm(ta, tb, M, d1 - d0, k1 - k0, alpha, in, ia, ib + (tb ? (size_t)d0 * in->ldb : (size_t)d0), beta, Cu + d0, ldc);
    else
        blas_gemm(ta, tb, d1 - d0, N, k1 - k0, alpha, in, ia + (ta ? (size_t)d0 : (size_t)d0 * in->lda), ib, beta,
                  Cu + (size_t)d0 * ldc, ldc);
}
// row i of C, columns [j0, j1): add chunk S (row stride lds); the first chunk starts from beta C
static inline void gemm_add_chunk(real *c, const real *s, int n, int first, real beta) {
    if (!first) for (int j = 0; j < n; j++) c[j] += s[j];
    else if (beta == 0) for (int j = 0; j < n; j++) c[j] = 0 + s[j];
    else for (int j = 0; j < n; j++) c[j] = beta * c[j] + s[j];
}
// the units of p in order on this thread (chunks through this thread's scratch)
static void gemm_serial(const GemmPlan *p, int ta, int tb, int M, int N, int K, real alpha, const GemmIn *in, real beta,
                        real *C, int ldc) {
    if (p->kchunks == 1) {
        for (int u = 0; u < p->bands; u++) gemm_unit(p, u, ta, tb, M, N, K, alpha, in, beta, C, ldc);
        return;
    }
    real *S = grow(&gemm_tscratch, &gemm_tscratch_n, (size_t)M * N);
    for (int u = 0; u < p->bands * p->kchunks; u++) {
        gemm_unit(p, u, ta, tb, M, N, K, alpha, in, 0, S, N);
        int d0, d1;
        gemm_part(p->D, p->bands, u / p->kchunks, &d0, &d1);
        int i0 = p->cols ? 0 : d0, i1 = p->cols ? M : d1, j0 = p->cols ? d0 : 0, j1 = p->cols ? d1 : N;
        for (int i = i0; i < i1; i++)
            gemm_add_chunk(C + (size_t)i * ldc + j0, S + (size_t)i * N + j0, j1 - j0, u % p->kchunks == 0, beta);
    }
}

#ifndef POSGPT_DOUBLE
// the packed bfloat16 copies of a product's factors: for a product run by a team (started
// only outside parallel regions), and per thread (thread_buf) for one run in order inside a region
static ScratchBuf gemm_pack[2];
#endif

// a product's inputs: A and B as given, or (bf16 products) op(A) and op(B) packed into
// bfloat16 (cblas_sbgemm) or rounded to it in float32 (cblas_sgemm)
static GemmIn gemm_inputs(int ta, int tb, int M, int N, int K, const real *A, int lda, const real *B, int ldb) {
    GemmIn in = {A, B, NULL, NULL, lda, ldb};
#ifndef POSGPT_DOUBLE
    if (!gemm_bf16) return in;
    int inner = omp_in_parallel();
    ScratchBuf *ba = inner ? thread_buf(TBUF_BF16_A) : &gemm_pack[0], *bb = inner ? thread_buf(TBUF_BF16_B) : &gemm_pack[1];
    int ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
    size_t es = gemm_sbgemm ? sizeof(uint16_t) : sizeof(float);
    void *pa = buf_grow(ba, (size_t)ar * ac * es), *pb = buf_grow(bb, (size_t)br * bc * es);
    bf16_pack(gemm_sbgemm ? pa : NULL, gemm_sbgemm ? NULL : pa, A, ar, ac, lda);
    bf16_pack(gemm_sbgemm ? pb : NULL, gemm_sbgemm ? NULL : pb, B, br, bc, ldb);
    if (gemm_sbgemm) in.A16 = pa, in.B16 = pb;
    else in.A = pa, in.B = pb;
    in.lda = ac, in.ldb = bc;
#endif
    return in;
}

void gemm(int ta, int tb, int M, int N, int K, real alpha, const real *A, int lda,
          const real *B, int ldb, real beta, real *C, int ldc) {
    PROF_BEGIN();
#ifndef POSGPT_DOUBLE
    if (use_sgemm(M, N, K)) { // (bf16: posgpt's AVX512-BF16 kernel, which rounds the factors as it packs them)
        (gemm_bf16 ? sgemm_bf16 : sgemm)(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        PROF_END("gemm", M, N, K, sgemm_units(M, N, 64));
        return;
    }
#endif
    GemmPlan p = gemm_plan(M, N, K);
    int units = p.bands * p.kchunks, nt = omp_in_parallel() ? 1 : omp_get_max_threads();
    GemmIn in = gemm_inputs(ta, tb, M, N, K, A, lda, B, ldb);
    if (nt == 1) {
        // in order here (the library, inside a parallel region or seeing one OpenMP thread, does not thread)
        gemm_serial(&p, ta, tb, M, N, K, alpha, &in, beta, C, ldc);
        PROF_END("gemm", M, N, K, units);
        return;
    }
    // a team of at most one thread per unit, and of two for a single unit, so that the library
    // always runs inside an active parallel region and never threads a call itself
    int team = nt < units ? nt : units < 2 ? 2 : units;
    real *S = p.kchunks > 1 ? grow(&gemm_scratch, &gemm_scratch_n, (size_t)p.kchunks * M * N) : NULL;
#pragma omp parallel num_threads(team)
    {
#pragma omp for schedule(static)
        for (int u = 0; u < units; u++)
            if (S) gemm_unit(&p, u, ta, tb, M, N, K, alpha, &in, 0, S + (size_t)(u % p.kchunks) * M * N, N);
            else gemm_unit(&p, u, ta, tb, M, N, K, alpha, &in, beta, C, ldc);
        if (S) {
#pragma omp for schedule(static)
            for (int i = 0; i < M; i++)
                for (int k = 0; k < p.kchunks; k++)
                    gemm_add_chunk(C + (size_t)i * ldc, S + ((size_t)k * M + i) * N, N, k == 0, beta);
        }
    }
    PROF_END("gemm", M, N, K, units);
}

void gemm_naive(int ta, int tb, int M, int N, int K, real alpha, const real *A, int lda,
                const real *B, int ldb, real beta, real *C, int ldc) {
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < K; k++) {
                real a = ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
                real b = tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j];
                s += (double)a * b;
            }
            real *c = &C[(size_t)i * ldc + j];
            *c = (real)(alpha * s + (beta == 0 ? 0.0 : beta * *c));
        }
}

// ---------------------------------------------------------------------------------------
void encoder_forward(real *out, const int *tok, const real *wte, int N, int C) {
    // out (N,C) = wte[tok[n]], wte (V,C)
    PROF_BEGIN();
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) memcpy(out + (size_t)n * C, wte + (size_t)tok[n] * C, (size_t)C * sizeof(real));
    PROF_END("encoder_forward", N, C, 0, N);
}

// token-id ranges of the embedding gradient: ENC_RANGES of them, each of whole rows of dwte
#define ENC_RANGES 8
void encoder_backward(real *dwte, const real *dout, const int *tok, int N, int C, int V) {
    // forward: out[n] = wte[tok[n]]  =>  dwte[tok[n]] += dout[n]; rows repeat, so parallel over
    // units of (16 channels: a cache line of dout per row) x (a range of token ids): each unit
    // scans all rows and adds those of its ids, in row order (the floats of one serial loop)
    int nc16 = (C + 15) / 16, units = nc16 * ENC_RANGES;
    PROF_BEGIN();
#pragma omp parallel for schedule(static)
    for (int u = 0; u < units; u++) {
        int c0 = u % nc16 * 16, nc = C - c0 < 16 ? C - c0 : 16, r = u / nc16;
        int v0 = (int)((long)V * r / ENC_RANGES), v1 = (int)((long)V * (r + 1) / ENC_RANGES);
        for (int n = 0; n < N; n++) {
            if (tok[n] < v0 || tok[n] >= v1) continue;
            real *d = dwte + (size_t)tok[n] * C + c0;
            const real *g = dout + (size_t)n * C + c0;
            for (int c = 0; c < nc; c++) d[c] += g[c];
        }
    }
    PROF_END("encoder_backward", N, C, V, units);
}

// ---------------------------------------------------------------------------------------
// Sums in double over float rows, kept in DSUM_LANES interleaved partial sums that the
// compiler turns into vector adds; one running sum is a chain of dependent adds, 4 cycles
// each. The order changes only the double rounding (the terms of dsum and ddot are exact in
// double; those of dsumsq_dev are rounded squares), about 2^-29 of a float ulp, so a result
// rounded to float flips only when it lies that close to a rounding boundary: rare, not
// impossible (tools/loss_check.sh: 200-step training losses identical to the one-chain sums).
#define DSUM_LANES 8
static inline double lanes_total(const double *acc) {
    double t = 0.0;
    for (int k = 0; k < DSUM_LANES; k++) t += acc[k];
    return t;
}
// sum of x[0..n)
static inline double dsum(const real *x, int n) {
    double acc[DSUM_LANES] = {0};
    int j = 0;
    for (; j + DSUM_LANES <= n; j += DSUM_LANES)
        for (int k = 0; k < DSUM_LANES; k++) acc[k] += x[j + k];
    for (; j < n; j++) acc[j % DSUM_LANES] += x[j];
    return lanes_total(acc);
}
// largest of x[0..n), n >= 1, in MAX_LANES interleaved running maxima (exact, so the order
// is free; one running maximum is a chain of dependent compares). `omp simd` on the lanes:
// without it GCC kept the 16 maxima in scalar registers
#define MAX_LANES 16
static inline real vmax(const real *x, int n) {
    real m[MAX_LANES];
    for (int k = 0; k < MAX_LANES; k++) m[k] = x[0];
    int j = 0;
    for (; j + MAX_LANES <= n; j += MAX_LANES)
#pragma omp simd
        for (int k = 0; k < MAX_LANES; k++) m[k] = x[j + k] > m[k] ? x[j + k] : m[k];
    for (; j < n; j++) m[0] = x[j] > m[0] ? x[j] : m[0];
    real t = m[0];
    for (int k = 1; k < MAX_LANES; k++) t = m[k] > t ? m[k] : t;
    return t;
}
// sum of x[j] * y[j], each product formed in double
static inline double ddot(const real *x, const real *y, int n) {
    double acc[DSUM_LANES] = {0};
    int j = 0;
    for (; j + DSUM_LANES <= n; j += DSUM_LANES)
        for (int k = 0; k < DSUM_LANES; k++) acc[k] += (double)x[j + k] * y[j + k];
    for (; j < n; j++) acc[j % DSUM_LANES] += (double)x[j] * y[j];
    return lanes_total(acc);
}
// sum of (x[j] - m)^2 in double
static inline double dsumsq_dev(const real *x, double m, int n) {
    double acc[DSUM_LANES] = {0};
    int j = 0;
    for (; j + DSUM_LANES <= n; j += DSUM_LANES)
        for (int k = 0; k < DSUM_LANES; k++) acc[k] += ((double)x[j + k] - m) * ((double)x[j + k] - m);
    for (; j < n; j++) acc[j % DSUM_LANES] += ((double)x[j] - m) * ((double)x[j] - m);
    return lanes_total(acc);
}

// one row: o (C) = LayerNorm(x) w + b; Ba et al. 2016, eps 1e-5, biased variance
static inline void layernorm_row(real *o, real *mean, real *rstd, const real *x, const real *w, const real *b, int C) {
    double m = dsum(x, C) / C, v = dsumsq_dev(x, m, C) / C;
    real s = (real)(1.0 / sqrt(v + 1e-5));
    for (int c = 0; c < C; c++) o[c] = ((x[c] - (real)m) * s) * w[c] + b[c];
    *mean = (real)m;
    *rstd = s;
}

void layernorm_forward(real *out, real *mean, real *rstd, const real *inp, const real *w, const real *b, int N, int C) {
    // inp, out (N,C); mean, rstd (N); w, b (C)
    PROF_BEGIN();
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++)
        layernorm_row(out + (size_t)n * C, mean + n, rstd + n, inp + (size_t)n * C, w, b, C);
    PROF_END("layernorm_forward", N, C, 0, N);
}

void residual_layernorm_forward(real *out, real *ln, real *mean, real *rstd, const real *a, const real *x,
                                const real *bias, const real *w, const real *b, int N, int C) {
    // out (N,C) = a + (x + bias), then ln (N,C) = LayerNorm(out) w + b: each row normalized
    // while it is in cache (the operations of a bias add, residual_forward, then layernorm_forward)
    PROF_BEGIN();
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        size_t o = (size_t)n * C;
        for (int c = 0; c < C; c++) out[o + c] = a[o + c] + (x[o + c] + bias[c]);
        layernorm_row(ln + o, mean + n, rstd + n, out + o, w, b, C);
    }
    PROF_END("residual_layernorm_forward", N, C, 0, N);
}

// Column sums over the rows (the bias and LayerNorm parameter gradients): db (C) += sum_n dy,
// and (x not NULL) dw (C) += sum_n dy * norm, norm = (x - mean) rstd. Work units: blocks of
// COLBLK columns x chunks of rows, the chunk count from N alone (colsum_chunks); a unit sums its
// rows in order, in registers, into its own slot of a scratch buffer, and the slots are then
// added into dw, db in chunk order: the floats do not depend on the thread count.
#define COLSUM_MIN_ROWS 128 // rows per chunk, at least
#define COLSUM_MAX_CHUNKS 32
static int colsum_chunks(int N) {
    int k = 1;
    while (k * 2 <= COLSUM_MAX_CHUNKS && N / (k * 2) >= COLSUM_MIN_ROWS) k *= 2;
    return k;
}
// (grown, never shrunk; only called outside parallel regions)
static real *colsum_scratch;
static size_t colsum_scratch_n;
// rows [n0, n1), columns [c0, c0 + nc) into sw, sb
static void colsum_unit(real *restrict sw, real *restrict sb, const real *restrict dy, const real *restrict x,
                        const real *mean, const real *rstd, int n0, int n1, int c0, int nc, int C) {
    real w[COLBLK] = {0}, b[COLBLK] = {0};
    for (int n = n0; n < n1; n++) {
        const real *g = dy + (size_t)n * C + c0;
        for (int c = 0; c < nc; c++) b[c] += g[c];
    }
    for (int n = n0; x && n < n1; n++) {
        const real *xr = x + (size_t)n * C + c0, *g = dy + (size_t)n * C + c0;
        real m = mean[n], r = rstd[n];
        for (int c = 0; c < nc; c++) w[c] += g[c] * ((xr[c] - m) * r);
    }
    memcpy(sb + c0, b, (size_t)nc * sizeof(real));
    if (x) memcpy(sw + c0, w, (size_t)nc * sizeof(real));
}
static void colsums(const char *op, real *dw, real *db, const real *dy, const real *x, const real *mean, const real *rstd,
                    int N, int C) {
    int nk = colsum_chunks(N), nb = (C + COLBLK - 1) / COLBLK;
    PROF_BEGIN();
    real *S = grow(&colsum_scratch, &colsum_scratch_n, (size_t)nk * 2 * C); // chunk k: sw, then sb
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int u = 0; u < nb * nk; u++) {
            int k = u / nb, c0 = u % nb * COLBLK;
            colsum_unit(S + (size_t)k * 2 * C, S + ((size_t)k * 2 + 1) * C, dy, x, mean, rstd, (int)((long)N * k / nk),
                        (int)((long)N * (k + 1) / nk), c0, C - c0 < COLBLK ? C - c0 : COLBLK, C);
        }
#pragma omp for schedule(static)
        for (int c = 0; c < C; c++)
            for (int k = 0; k < nk; k++) {
                if (x) dw[c] += S[(size_t)k * 2 * C + c];
                db[c] += S[((size_t)k * 2 + 1) * C + c];
            }
    }
    PROF_END(op, N, C, 0, (long)nk * nb);
}

void layernorm_backward(real *dinp, real *dw, real *db, const real *dout, const real *inp, const real *w,
                        const real *mean, const real *rstd, int N, int C) {
    // forward: out = norm * w + b, norm = (x - mean) * rstd
    // dx = rstd * (dnorm - mean(dnorm) - norm * mean(dnorm * norm)), dnorm = dout * w
    // A row's dnorm and dnorm * norm go through per-thread scratch rows (dn, dq) and dsum: the
    // sums in their lanes, vectorized (two lane arrays in one loop were left scalar by the
    // compiler, and the step spent more time in them than in reading the rows)
    PROF_BEGIN();
#pragma omp parallel
    {
        real *dn = xmalloc(2 * (size_t)C * sizeof(real)), *dq = dn + C;
#pragma omp for schedule(static)
        for (int n = 0; n < N; n++) {
            const real *x = inp + (size_t)n * C, *dy = dout + (size_t)n * C;
            real m = mean[n], s = rstd[n], *dx = dinp + (size_t)n * C;
            for (int c = 0; c < C; c++) {
                dn[c] = dy[c] * w[c];
                dq[c] = dn[c] * ((x[c] - m) * s);
            }
            real ma = (real)(dsum(dn, C) / C), mb = (real)(dsum(dq, C) / C);
            for (int c = 0; c < C; c++) dx[c] += s * (dn[c] - ma - ((x[c] - m) * s) * mb);
        }
        free(dn);
    }
    PROF_END("layernorm_backward", N, C, 0, N);
    colsums("layernorm param gradient", dw, db, dout, inp, mean, rstd, N, C); // dw += sum_n dout * norm, db += sum_n dout
}

void linear_forward(real *out, const real *inp, const real *w, const real *b, int N, int C, int OC) {
    // inp (N,C), w (OC,C), b (OC), out (N,OC) = inp w^T + b
    gemm(0, 1, N, OC, C, 1, inp, C, w, C, 0, out, OC);
    if (b) {
        PROF_BEGIN();
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++)
            for (int o = 0; o < OC; o++) out[(size_t)n * OC + o] += b[o];
        PROF_END("bias add", N, OC, 0, N);
    }
}

void linear_backward(real *dinp, real *dw, real *db, const real *dout, const real *inp, const real *w, int N, int C, int OC) {
    // forward: out = inp w^T + b
    // dinp (N,C) = dout (N,OC) w (OC,C) (overwritten: no zeroing pass); dw (OC,C) += dout^T inp;
    // db (OC) += sum_n dout
    gemm(0, 0, N, C, OC, 1, dout, OC, w, C, 0, dinp, C);
    gemm(1, 0, OC, C, N, 1, dout, OC, inp, C, 1, dw, C);
    if (db) colsums("bias gradient", NULL, db, dout, NULL, NULL, NULL, N, OC);
}

// ---------------------------------------------------------------------------------------
// exp for the hot loops (GELU, softmax). libm's expf/tanhf are scalar calls and took a
// third of a training step; this version is plain arithmetic the compiler vectorizes.
// exp(x) = 2^n * e^r, n = round(x / ln 2), |r| <= ln2/2, e^r by its Taylor series to r^7
// (truncation < 6e-9 relative), evaluated in Estrin's scheme: pairs c_k + c_k+1 r, then r^2
// and r^4 join them, 4 dependent multiply-adds instead of Horner's 7. The loops that call it
// are bound by the latency of one element's chain (the out-of-order window holds only a few
// vectors of elements), so the shorter chain is what makes them faster. The double build
// (gradient checks) uses libm's exp. layer_exp is exposed so the tests compare it with libm
// over the whole range.
real layer_exp(real x) {
#ifdef POSGPT_DOUBLE
    return exp(x);
#else
    x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
    // round to nearest by adding and subtracting 1.5 * 2^23 (floorf blocks vectorization)
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = (x - n * 0.693145751953125f) - n * 1.42860682030941723212e-6f; // ln 2 split hi + lo
    float r2 = r * r, r4 = r2 * r2;
    float p01 = 1.0f + r, p23 = 0.5f + r * (1.0f / 6), p45 = 1.0f / 24 + r * (1.0f / 120),
          p67 = 1.0f / 720 + r * (1.0f / 5040);
    float p = (p01 + r2 * p23) + r4 * (p45 + r2 * p67);
    // 2^n; n is in [-126, 127] for every x but NaN, where p is NaN already and n is read as 0
    // (converting NaN to an integer is undefined behaviour)
    uint32_t bits = (uint32_t)((int32_t)(n == n ? n : 0.0f) + 127) << 23;
    float scale;
    memcpy(&scale, &bits, 4);
    return p * scale;
#endif
}

// tanh(u) given u2 = 2u: 1 - 2 / (1 + e^(2u)); absolute error below 2.5e-7 for every float u
// (tests/test_core.c: a dense grid and |u| up to FLT_MAX), +-1 at +-inf, NaN at NaN (the float
// build's; the double build calls tanh)
#ifndef POSGPT_DOUBLE
static inline real tanh_2u(real u2) { return 1.0f - 2.0f / (1.0f + layer_exp(u2)); }
#endif
real layer_tanh(real u) {
#ifdef POSGPT_DOUBLE
    return tanh(u);
#else
    return tanh_2u(2.0f * u);
#endif
}

#define GELU_S 0.7978845608028654 // sqrt(2/pi)
// tanh(s (x + 0.044715 x^3)), shared by the forward passes and the backward; the float
// build forms the doubled argument as x (2s + 2s 0.044715 x^2): a shorter chain than the cube
static inline real gelu_tanh(real x) {
#ifdef POSGPT_DOUBLE
    return tanh(GELU_S * (x + 0.044715 * x * x * x));
#else
    return tanh_2u(x * ((real)(2 * GELU_S) + (real)(2 * GELU_S * 0.044715) * (x * x)));
#endif
}
// gelu and its derivative given t = gelu_tanh(x)
static inline real gelu_t(real x, real t) { return (real)0.5 * x * ((real)1 + t); }
static inline real gelu(real x) { return gelu_t(x, gelu_tanh(x)); }
// d gelu / dx = 0.5 (1 + t) + 0.5 x (1 - t^2) s (1 + 3 * 0.044715 x^2), t = tanh(s (x + 0.044715 x^3))
static inline real gelu_grad_t(real x, real t) {
    return (real)0.5 * ((real)1 + t) + (real)0.5 * x * ((real)1 - t * t) * (real)GELU_S * ((real)1 + (real)(3 * 0.044715) * x * x);
}
static inline real gelu_grad(real x) { return gelu_grad_t(x, gelu_tanh(x)); }
void gelu_forward(real *out, const real *inp, size_t n) {
    // tanh approximation (Hendrycks & Gimpel 2016; GPT-2): 0.5 x (1 + tanh(s (x + 0.044715 x^3)))
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        real x = inp[i];
        out[i] = gelu(x);
    }
}

void gelu_backward(real *dinp, const real *dout, const real *inp, size_t n) {
    PROF_BEGIN();
// simd: dinp may be dout (element i is read, then written), which defeats the compiler's own
// overlap check and would leave the loop scalar
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) dinp[i] = gelu_grad(inp[i]) * dout[i];
    PROF_END("gelu_backward", (int)n, 0, 0, (long)n);
}

void bias_gelu_forward(real *y, real *dg, const real *x, const real *bias, int N, int C) {
    // v = x + bias; y = gelu(v); dg = gelu'(v) from the same tanh: the same floats as a bias
    // add, gelu_forward and gelu_backward's factor, and the backward no longer evaluates tanh
    // (it was the costliest element-wise pass of a step)
    PROF_BEGIN();
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *xr = x + (size_t)n * C;
        real *yr = y + (size_t)n * C, *gr = dg ? dg + (size_t)n * C : NULL;
        if (gr) {
// gr may be xr (element c read, then written): see gelu_backward. simdlen(16): on AVX-512
// whole 512-bit vectors (the compiler's default there is 256-bit), twice the elements in
// flight for this latency-bound loop; elsewhere two or four vectors a step
#pragma omp simd simdlen(16)
            for (int c = 0; c < C; c++) {
                real v = xr[c] + bias[c], t = gelu_tanh(v);
                yr[c] = gelu_t(v, t);
                gr[c] = gelu_grad_t(v, t);
            }
        } else
            for (int c = 0; c < C; c++) yr[c] = gelu(xr[c] + bias[c]);
    }
    PROF_END("bias_gelu_forward", N, C, 0, N);
}

void bias_gelu_backward(real *dinp, const real *dout, const real *dg, size_t n) {
    PROF_BEGIN();
#pragma omp parallel for simd schedule(static) // dinp may be dout: see gelu_backward
    for (size_t i = 0; i < n; i++) dinp[i] = dg[i] * dout[i];
    PROF_END("bias_gelu_backward", (int)n, 0, 0, (long)n);
}

void residual_forward(real *out, const real *a, const real *b, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) out[i] = a[i] + b[i];
}

// ---------------------------------------------------------------------------------------
// softmax of row[0..n) in place, then zero row[n..len)
static void softmax_causal_row(real *row, int n, int len) {
    real mx = vmax(row, n);
    for (int j = 0; j < n; j++) row[j] = layer_exp(row[j] - mx); // vectorized: keep the sum apart
    real inv = (real)(1.0 / dsum(row, n));
    for (int j = 0; j < n; j++) row[j] *= inv;
    for (int j = n; j < len; j++) row[j] = 0;
}

// a scheme's parameter-dependent tables, refreshed before a pass over positions pos (B, T):
// no distance within a sequence exceeds its largest position minus its smallest (a large
// offset of the positions does not enlarge the table)
// Returns ndist, the number of distances the tables cover.
static int pos_tables(const PosState *ps, const int *pos, int B, int T, int ld) {
    if (!ps || !ps->scheme->tabulate) return 0;
    int span = 0;
    for (int b = 0; b < B; b++) {
        const int *p = pos + (size_t)b * ld;
        int lo = p[0], hi = p[0];
        for (int t = 1; t < T; t++) lo = p[t] < lo ? p[t] : lo, hi = p[t] > hi ? p[t] : hi;
        span = hi - lo > span ? hi - lo : span;
    }
    ps->scheme->tabulate(ps, span + 1);
    return span + 1;
}

// the query block in use for length T (qblock <= 0: one block of T), and the length of the
// block starting at row r0
static int att_block(int qblock, int T) { return qblock > 0 ? qblock : T; }
static int block_len(int r0, int QB, int T) { return T - r0 < QB ? T - r0 : QB; }

// per-thread scratch for the scheme's row hooks (NULL if it needs none)
static real *hook_scratch(const PosState *ps, int T) {
    size_t n = ps && ps->scheme->scratch_size ? ps->scheme->scratch_size(ps, T) : 0;
    return n ? xmalloc(n * sizeof(real)) : NULL;
}

// one row's scheme terms on the logits: row[0..n) = scale q.k_j on entry
static inline void row_terms(const PosState *ps, int h, const real *q, const real *K, int C3, const int *pos_b, int i,
                             real scale, real *row, real *scratch) {
    const PosScheme *s = ps->scheme;
    if (s->bias_forward) s->bias_forward(ps, h, pos_b[i], pos_b, i + 1, row);
    if (s->score_forward) s->score_forward(ps, h, q, K, C3, pos_b[i], pos_b, i + 1, scale, row, scratch);
}

// Causal blocking: queries in blocks of QB rows; block [q0, q0 + nq) only meets keys
// [0, q0 + nq), so products skip the zero upper triangle beyond the block diagonal (at T = 128
// and blocks of 64, a quarter of every attention product). Entries of att and dS to the
// right of a block's last key are never written or read.
void attention_forward(real *out, real *att, const real *qkv, const int *pos, const int *seg, const PosState *ps,
                       int B, int T, int C, int NH, int qblock) {
    // qkv (B,T,3C), pos (B,T), att (B,NH,T,T), out (B,T,C)
    // att[i][j] = softmax_j<=i( q_i.k_j / sqrt(HS) + bias(h, pos_i, pos_j) ); out_i = sum_j att[i][j] v_j
    int HS = C / NH, C3 = 3 * C, QB = att_block(qblock, T);
    real scale = (real)(1.0 / sqrt((double)HS));
    void (*value)(const PosState *, int, int, const int *, int, const real *, real *) = ps ? ps->scheme->value_forward : NULL;
    int nblk = (T + QB - 1) / QB;
    PROF_BEGIN();
    pos_tables(ps, pos, B, T, T);
    // work units: (sequence, head, query block), each independent of the others
#pragma omp parallel
    {
        real *scratch = hook_scratch(ps, T);
#pragma omp for schedule(dynamic) collapse(3)
        for (int b = 0; b < B; b++)
            for (int h = 0; h < NH; h++)
                for (int blk = 0; blk < nblk; blk++) {
                    // later blocks have more keys: reverse order balances the dynamic schedule
                    int q0 = (nblk - 1 - blk) * QB;
                    const real *Q = qkv + (size_t)b * T * C3 + (size_t)h * HS, *K = Q + C, *V = Q + 2 * C;
                    const int *pos_b = pos + (size_t)b * T, *seg_b = seg ? seg + (size_t)b * T : NULL;
                    real *A = att + ((size_t)b * NH + h) * T * T, *O = out + (size_t)b * T * C + (size_t)h * HS;
                    // keys kl..nk: packed examples (seg) start no earlier than the block's first query's
                    int nq = block_len(q0, QB, T), nk = q0 + nq, kl = seg_b ? seg_b[q0] : 0;
                    real *Ab = A + (size_t)q0 * T;
                    gemm(0, 1, nq, nk - kl, HS, scale, Q + (size_t)q0 * C3, C3, K + (size_t)kl * C3, C3, 0, Ab + kl, T);
                    for (int i = q0; i < nk; i++) {
                        // keys k0..i (k0 > 0: an example packed after others); the hooks see them alone
                        int k0 = seg_b ? seg_b[i] : 0;
                        real *row = A + (size_t)i * T;
                        if (ps) row_terms(ps, h, Q + (size_t)i * C3, K + (size_t)k0 * C3, C3, pos_b + k0, i - k0, scale, row + k0, scratch);
                        softmax_causal_row(row + k0, i + 1 - k0, nk - k0);
                        for (int j = 0; j < k0; j++) row[j] = 0;
                    }
                    gemm(0, 0, nq, HS, nk - kl, 1, Ab + kl, T, V + (size_t)kl * C3, C3, 0, O + (size_t)q0 * C, C);
                    for (int i = q0; value && i < nk; i++) {
                        int k0 = seg_b ? seg_b[i] : 0;
                        value(ps, h, pos_b[i], pos_b + k0, i + 1 - k0, A + (size_t)i * T + k0, O + (size_t)i * C);
                    }
                }
        free(scratch);
    }
    PROF_END("attention_forward", B * NH, T, C, (long)B * NH * nblk);
}

void attention_backward(real *dqkv, real *const *dscheme, const real *dout, const real *att, const real *qkv,
                        const int *pos, const int *seg, const PosState *ps, int B, int T, int C, int NH, int qblock) {
    // forward: S = scale Q K^T + bias (+ content term); P = softmax(S); O = P V (+ value term)
    // dP = dO V^T (+ the value term's); dV = P^T dO; dS = P * (dP - rowsum(P * dP));
    // dQ = scale dS K; dK = scale dS^T Q
    // dqkv is overwritten (each (b, h) owns its slices); a content term first adds its own q/k
    // gradients row by row, so then the slices start at zero and the products accumulate.
    // Blocks: dS and dQ by query block (keys up to the block's last query); dV and dK, sums
    // over queries, by key block [k0, k0 + nk) over the queries k0..T-1 that can see it. The
    // queries skipped (< k0) contribute exact zeros at the start of each sum, so every product
    // sums the same terms as the one-block form (the same floats where the BLAS kernel orders
    // a sum the same for every product height: SkylakeX's, not Haswell's). Packed examples
    // (seg): a query block's products start at its first query's example, and a key block's
    // sums end before the first query whose example starts after the block; what they skip
    // are zeros of other examples.
    // Scheme parameters: each (sequence, head) accumulates into buffers of its own, and the
    // buffers are summed in (b, h) order afterwards, so schemes may share parameters across
    // heads and rows without locking, and the sum does not depend on which thread ran which head.
    // dS (T,T) of one head at a time lives in per-thread scratch that stays in cache.
    int HS = C / NH, C3 = 3 * C, QB = att_block(qblock, T);
    real scale = (real)(1.0 / sqrt((double)HS));
    const PosScheme *sch = ps ? ps->scheme : NULL;
    // a content term always has q/k gradients; parameters only if the scheme has some
    int want_bias = sch && sch->bias_backward && dscheme, want_term = sch && sch->score_backward;
    int want_value = sch && sch->value_backward;
    int ndist = pos_tables(ps, pos, B, T, T);
    // one (sequence, head)'s buffers: every tensor of the layer, then the table's gradient
    size_t np = 0, ntab = dscheme && sch->table_grad ? sch->table_grad(ps, ndist) : 0;
    for (int k = 0; dscheme && (want_bias || want_term || want_value) && k < ps->ntensors; k++) np += ps->size[k];
    np += np ? ntab : 0;
    real *acc = np ? xcalloc((size_t)B * NH * np, sizeof(real)) : NULL;
    PROF_BEGIN();
#pragma omp parallel
    {
        real *dS = xmalloc((size_t)T * T * sizeof(real)), *scratch = hook_scratch(ps, T);
#pragma omp for schedule(static) collapse(2)
        for (int b = 0; b < B; b++)
            for (int h = 0; h < NH; h++) {
                real *mine[POS_MAX_TENSORS + 1] = {NULL};
                size_t o = 0;
                for (int k = 0; acc && k < ps->ntensors; o += ps->size[k], k++) mine[k] = acc + ((size_t)b * NH + h) * np + o;
                if (acc && ntab) mine[ps->ntensors] = acc + ((size_t)b * NH + h) * np + o;
                size_t qoff = (size_t)b * T * C3 + (size_t)h * HS;
                const real *Q = qkv + qoff, *K = Q + C, *V = Q + 2 * C;
                real *dQ = dqkv + qoff, *dK = dQ + C, *dV = dQ + 2 * C;
                const real *dO = dout + (size_t)b * T * C + (size_t)h * HS;
                const real *P = att + ((size_t)b * NH + h) * T * T;
                const int *pos_b = pos + (size_t)b * T, *seg_b = seg ? seg + (size_t)b * T : NULL;
                if (want_term)
                    for (int i = 0; i < T; i++) {
                        memset(dQ + (size_t)i * C3, 0, (size_t)HS * sizeof(real));
                        memset(dK + (size_t)i * C3, 0, (size_t)HS * sizeof(real));
                    }
                for (int q0 = 0; q0 < T; q0 += QB) {
                    int nq = block_len(q0, QB, T), nk = q0 + nq, kl = seg_b ? seg_b[q0] : 0; // keys kl..nk (forward)
                    real *dSb = dS + (size_t)q0 * T;
                    gemm(0, 1, nq, nk - kl, HS, 1, dO + (size_t)q0 * C, C, V + (size_t)kl * C3, C3, 0, dSb + kl, T);
                    for (int i = q0; i < nk; i++) {
                        int k0 = seg_b ? seg_b[i] : 0, n = i + 1 - k0; // keys k0..i, as in the forward
                        const real *p = P + (size_t)i * T + k0;
                        real *d = dS + (size_t)i * T;
                        if (want_value) sch->value_backward(ps, mine, h, pos_b[i], pos_b + k0, n, p, dO + (size_t)i * C, d + k0);
                        double s = ddot(p, d + k0, n);
                        for (int j = 0; j < k0; j++) d[j] = 0;
                        for (int j = 0; j < n; j++) d[k0 + j] = p[j] * (d[k0 + j] - (real)s);
                        for (int j = i + 1; j < nk; j++) d[j] = 0;
                        // the bias and the content term are added unscaled: their gradient is dS
                        if (want_bias) sch->bias_backward(ps, mine, h, pos_b[i], pos_b + k0, n, d + k0);
                        if (want_term)
                            sch->score_backward(ps, mine, h, Q + (size_t)i * C3, K + (size_t)k0 * C3, C3, pos_b[i], pos_b + k0, n,
                                                scale, d + k0, dQ + (size_t)i * C3, dK + (size_t)k0 * C3, scratch);
                    }
                    gemm(0, 0, nq, HS, nk - kl, scale, dSb + kl, T, K + (size_t)kl * C3, C3, want_term, dQ + (size_t)q0 * C3, C3);
                }
                for (int k0 = 0; k0 < T; k0 += QB) {
                    int nk = block_len(k0, QB, T), qe = T;
                    // packed examples: the queries from the first whose example starts after the block see none of it
                    if (seg_b)
                        for (qe = k0 + nk; qe < T && seg_b[qe] < k0 + nk;) qe++;
                    int nq = qe - k0;
                    size_t blk = (size_t)k0 * T + k0; // rows (queries) k0.., columns (keys) k0..
                    gemm(1, 0, nk, HS, nq, 1, P + blk, T, dO + (size_t)k0 * C, C, 0, dV + (size_t)k0 * C3, C3);
                    gemm(1, 0, nk, HS, nq, scale, dS + blk, T, Q + (size_t)k0 * C3, C3, want_term, dK + (size_t)k0 * C3, C3);
                }
            }
        free(dS), free(scratch);
    }
    size_t o = 0;
    for (int k = 0; acc && k < ps->ntensors; o += ps->size[k], k++)
        for (int bh = 0; bh < B * NH; bh++)
            for (size_t x = 0; x < ps->size[k]; x++) dscheme[k][x] += acc[(size_t)bh * np + o + x];
    if (acc && ntab) { // the table's gradient, summed in (b, h) order like the tensors', then mapped back
        real *dtab = acc + o; // (b, h) = (0, 0)'s slot takes the sum
        for (int bh = 1; bh < B * NH; bh++)
            for (size_t x = 0; x < ntab; x++) dtab[x] += acc[(size_t)bh * np + o + x];
        sch->untabulate(ps, ndist, dtab, dscheme);
    }
    free(acc);
    PROF_END("attention_backward", B * NH, T, C, (long)B * NH);
}

// q/k decay (pos.h, qk_decay) centred on the block of queries [q0, q0 + nq): the block's queries
// into Qs (nq, HS) and keys 0..nk-1 into Ks (nk, HS). Factors of the block's own rows stay
// within exp(|rate| (block spread) / 2); earlier keys only shrink (towards zero, as their
// true weight does), so no length can overflow.
static void decay_block(const double *rate, const real *Q, const real *K, int C3, const int *pos_b, int q0, int nq,
                        int HS, real *Qs, real *Ks) {
    int nk = q0 + nq;
    double c = 0.5 * ((double)pos_b[q0] + (double)pos_b[nk - 1]);
    for (int i = 0; i < nq; i++)
        for (int d = 0; d < HS; d++)
            Qs[(size_t)i * HS + d] = Q[(size_t)(q0 + i) * C3 + d] * (real)exp(rate[d] * ((double)pos_b[q0 + i] - c));
    for (int j = 0; j < nk; j++)
        for (int d = 0; d < HS; d++)
            Ks[(size_t)j * HS + d] = K[(size_t)j * C3 + d] * (real)exp(-rate[d] * ((double)pos_b[j] - c));
}

// the decay rates of a scheme with q/k decay at length T (NULL: none), after checking that
// every block of queries fits the decay's float range
static double *infer_decay_rates(const PosState *ps, const int *pos, int B, int T, int ld, int q_first, int QB) {
    if (!ps || !ps->scheme->qk_decay) return NULL;
    int HS = ps->HS;
    double *rate = xmalloc((size_t)HS * sizeof(double));
    ps->scheme->qk_decay(ps, T, rate);
    // a block's own spread must fit, as a training window's does (contiguous positions give
    // QB - 1: any decay base that can train fits blocks of 64)
    int lim = pos_decay_max_span(ps, T);
    for (int b = 0; b < B; b++)
        for (int q0 = q_first; q0 < T; q0 += QB) {
            const int *p = pos + (size_t)b * ld;
            int last = q0 + block_len(q0, QB, T) - 1;
            if ((double)p[last] - p[q0] > lim)
                die("q/k decay: a block of queries spreads over %.0f positions, more than the %d this decay's float "
                    "range allows", (double)p[last] - p[q0], lim);
        }
    return rate;
}

void attention_forward_infer(real *out, const real *qkv, const int *pos, const PosState *ps,
                             int B, int T, int C, int NH, int qblock) {
    attention_forward_rows(out, qkv, pos, ps, B, T, T, 0, C, NH, qblock);
}

void attention_forward_rows(real *out, const real *qkv, const int *pos, const PosState *ps,
                            int B, int T, int ld, int q_first, int C, int NH, int qblock) {
    // same as attention_forward for queries q_first..T-1, one block of QB queries at a time
    // against keys 0..(last query of the block): scratch (QB, T) per thread, O(T) memory.
    int HS = C / NH, C3 = 3 * C, NQ = T - q_first;
    real scale = (real)(1.0 / sqrt((double)HS));
    int QB = att_block(qblock, NQ), nblk = (NQ + QB - 1) / QB;
    void (*value)(const PosState *, int, int, const int *, int, const real *, real *) = ps ? ps->scheme->value_forward : NULL;
    double *rate = infer_decay_rates(ps, pos, B, T, ld, q_first, QB);
    pos_tables(ps, pos, B, T, ld);
#pragma omp parallel
    {
        real *S = xmalloc((size_t)QB * T * sizeof(real)), *scratch = hook_scratch(ps, T);
        real *Qs = rate ? xmalloc(((size_t)QB + T) * HS * sizeof(real)) : NULL, *Ks = rate ? Qs + (size_t)QB * HS : NULL;
#pragma omp for schedule(dynamic) collapse(3)
        for (int b = 0; b < B; b++)
            for (int h = 0; h < NH; h++)
                for (int blk = 0; blk < nblk; blk++) {
                    // later blocks have more keys: reverse order balances the dynamic schedule
                    int q0 = q_first + (nblk - 1 - blk) * QB;
                    int nq = block_len(q0, QB, T), nk = q0 + nq;
                    const real *Q = qkv + (size_t)b * ld * C3 + (size_t)h * HS, *K = Q + C, *V = Q + 2 * C;
                    real *O = out + (size_t)b * NQ * C + (size_t)h * HS; // query i's row at O + (i - q_first) C
                    const int *pos_b = pos + (size_t)b * ld;
                    if (rate) {
                        decay_block(rate, Q, K, C3, pos_b, q0, nq, HS, Qs, Ks);
                        gemm(0, 1, nq, nk, HS, scale, Qs, HS, Ks, HS, 0, S, nk);
                    } else gemm(0, 1, nq, nk, HS, scale, Q + (size_t)q0 * C3, C3, K, C3, 0, S, nk);
                    for (int r = 0; r < nq; r++) {
                        real *row = S + (size_t)r * nk;
                        if (ps) row_terms(ps, h, Q + (size_t)(q0 + r) * C3, K, C3, pos_b, q0 + r, scale, row, scratch);
                        softmax_causal_row(row, q0 + r + 1, nk);
                    }
                    gemm(0, 0, nq, HS, nk, 1, S, nk, V, C3, 0, O + (size_t)(q0 - q_first) * C, C);
                    for (int r = 0; value && r < nq; r++)
                        value(ps, h, pos_b[q0 + r], pos_b, q0 + r + 1, S + (size_t)r * nk, O + (size_t)(q0 - q_first + r) * C);
                }
        free(S), free(Qs), free(scratch);
    }
    free(rate);
}

// ---------------------------------------------------------------------------------------
void crossentropy_forward(real *losses, real *probs, const real *logits, const int *targets, int N, int V) {
    PROF_BEGIN();
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *z = logits + (size_t)n * V;
        real *p = probs + (size_t)n * V;
        real mx = vmax(z, V);
        int scored = targets && targets[n] >= 0; // a negative target: position not scored
        real zt = scored ? z[targets[n]] : 0;   // read before p (which may alias z) is written
        for (int v = 0; v < V; v++) p[v] = layer_exp(z[v] - mx);
        double sum = dsum(p, V);
        real inv = (real)(1.0 / sum);
        for (int v = 0; v < V; v++) p[v] *= inv;
        // -log p[target] = log(sum) + max - z[target]: exact even when p[target] underflows
        if (targets) losses[n] = scored ? (real)(log(sum) + (double)mx - (double)zt) : 0;
    }
    PROF_END("crossentropy_forward", N, V, 0, N);
}

void crossentropy_backward(real *dlogits, const real *probs, const int *targets, const real *dloss, int N, int V) {
    // forward: loss_n = -log softmax(z_n)[t_n]  =>  dz_n = (p_n - onehot(t_n)) * dloss_n
    PROF_BEGIN();
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *p = probs + (size_t)n * V;
        real *dz = dlogits + (size_t)n * V;
        for (int v = 0; v < V; v++) dz[v] = (p[v] - (v == targets[n] ? (real)1 : (real)0)) * dloss[n];
    }
    PROF_END("crossentropy_backward", N, V, 0, N);
}
