// test_bf16.c - bf16 mixed precision (train --precision bf16; model/bf16.h, gemm_set_bf16):
// the float32 -> bfloat16 conversion (the vector loop against the scalar reference, and the
// reference against the definition: NaN, infinities, denormals, overflow, ties to even), the
// bf16 products within their rounding bound and bit-identical on any thread count, and the CPU
// check's test switches.
#include "bf16.h"
#include "check.h"
#include "layers.h"
#include "sgemm.h"

#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float from_bits(uint32_t u) {
    float x;
    memcpy(&x, &u, 4);
    return x;
}

// The scalar reference against hand-worked cases: bits in, bfloat16 bits out
static void test_reference_cases(void) {
    static const uint32_t cases[][2] = {
        {0x3f800000, 0x3f80}, // 1.0 exactly
        {0x3f808000, 0x3f80}, // halfway between 0x3f80 and 0x3f81: tie, to the even 0x3f80
        {0x3f818000, 0x3f82}, // halfway between 0x3f81 and 0x3f82: tie, to the even 0x3f82
        {0x3f808001, 0x3f81}, // just above halfway: up
        {0x3f807fff, 0x3f80}, // just below halfway: down
        {0xbf818000, 0xbf82}, // a negative tie: to even, away from zero here
        {0x3fffffff, 0x4000}, // rounding up carries into the exponent: 2.0
        {0x7f7fffff, 0x7f80}, // the largest float rounds past the largest bfloat16: +infinity
        {0x7f7f7fff, 0x7f7f}, // ... and just below it stays the largest finite bfloat16
        {0x7f800000, 0x7f80}, // +infinity
        {0xff800000, 0xff80}, // -infinity
        {0x7fc00000, 0x7fc0}, // quiet NaN
        {0xffc00001, 0xffc0}, // negative quiet NaN, low payload bits dropped
        {0x7f800001, 0x7fc0}, // signalling NaN with only low payload bits: stays a NaN (made quiet), never infinity
        {0x7fbfffff, 0x7fff}, // signalling NaN whose rounding would carry: stays a NaN, quiet, top payload kept
        {0x00000000, 0x0000}, // +0
        {0x80000000, 0x8000}, // -0
        {0x00000001, 0x0000}, // the smallest denormal rounds to +0
        {0x00008000, 0x0000}, // a denormal tie, to the even 0x0000
        {0x00018000, 0x0002}, // a denormal tie, to the even 0x0002
        {0x00010001, 0x0001}, // a denormal just above 0x0001: down to it (no flush to zero)
        {0x807fffff, 0x8080}, // the largest negative denormal rounds up into the smallest normal
        {0x007f8000, 0x0080}, // a denormal tie at the top: to the even 0x0080, the smallest normal
    };
    int n = sizeof cases / sizeof *cases, bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
        if (bf16_from_f32(from_bits(cases[i][0])) != cases[i][1]) bad = i;
    check(bad < 0, "bf16 scalar reference: ties to even, overflow to infinity, NaN kept quiet, denormals rounded (23 cases)",
          "0x%08x -> 0x%04x, expected 0x%04x", bad < 0 ? 0 : cases[bad][0], bad < 0 ? 0 : bf16_from_f32(from_bits(cases[bad][0])),
          bad < 0 ? 0 : cases[bad][1]);
    check(bf16_to_f32(0x3f82) == 1.015625f && bf16_to_f32(0xc040) == -3.0f, "bf16 to float: the top half of the float bits", "");
}

// The reference against the definition on random finite floats: the bfloat16 value is a
// nearest one (neither neighbour is closer), a tie goes to the even one, and a normal's
// relative error is at most u = 2^-8 (half a unit of its 8 significant bits, relative to the
// lowest value of the binade)
static void test_reference_nearest(void) {
    Rng rng;
    rng_seed(&rng, 11);
    long bad = -1;
    for (long i = 0; i < 200000 && bad < 0; i++) {
        uint32_t u = (uint32_t)rng_u64(&rng);
        if (i % 4 == 0) u = (u & 0xffff0000u) | 0x8000u; // a tie every fourth
        float x = from_bits(u);
        if (!isfinite(x)) continue;
        uint16_t h = bf16_from_f32(x);
        double v = bf16_to_f32(h), e = fabs((double)x - v);
        if (isinf(v)) { // only from the largest finite bfloat16 plus half a unit on (a tie there: to the even infinity)
            if (fabs(x) < 0x1.ffp127) bad = i;
            continue;
        }
        for (int d = -1; d <= 1; d += 2) {
            float w = bf16_to_f32((uint16_t)(h + d));
            if ((h & 0x7fff) == 0 && d < 0) continue; // (below +-0 is the other sign)
            if (isfinite(w) && fabs((double)x - w) < e) bad = i;
            if (isfinite(w) && fabs((double)x - w) == e && (h & 1)) bad = i; // a tie kept the odd one
        }
        if (fabs(x) >= 0x1p-126 && e > 0x1p-8 * fabs(x)) bad = i;
    }
    check(bad < 0, "bf16 scalar reference: the nearest bfloat16, ties to even, relative error <= 2^-8 (200000 random floats)",
          "draw %ld", bad);
}

// The vector loop (AVX-512 where the CPU has it) gives the scalar reference's bits: the edge
// cases and random bit patterns (NaNs, infinities and denormals among them), at lengths that
// leave a scalar tail; bf16_round gives the same values in float32; bf16_pack the same, by rows
static void test_vector_matches_scalar(void) {
    size_t n = 100003;
    uint32_t *u = malloc(n * 4);
    uint16_t *h = malloc(n * 2);
    float *r = malloc(n * 4);
    Rng rng;
    rng_seed(&rng, 12);
    const uint32_t edge[] = {0x7f800001, 0xff800000, 0x7f7fffff, 0x00008000, 0x00018000, 0x807fffff, 0x3f808000, 0x3f818000,
                             0x7fbfffff, 0x80000000, 0xffc00001, 0x00000001};
    for (size_t i = 0; i < n; i++) {
        u[i] = (uint32_t)rng_u64(&rng);
        if (i % 3 == 0) u[i] = (u[i] & 0xffff0000u) | 0x8000u;              // ties
        if (i % 7 == 0) u[i] = (u[i] & 0x807fffffu) | (i % 2 ? 0x7f800000u : 0); // NaN / infinity / denormal exponents
        if (i < sizeof edge / sizeof *edge) u[i] = edge[i];
    }
    const float *x = (const float *)u;
    long bad16 = -1, bad32 = -1;
    for (size_t len = n - 4; len <= n; len++) { // tails of 15, 0, ... elements
        bf16_convert(h, x, len);
        bf16_round(r, x, len);
        for (size_t i = 0; i < len; i++) {
            uint16_t want = bf16_from_f32(x[i]);
            uint32_t got32;
            memcpy(&got32, r + i, 4);
            if (h[i] != want && bad16 < 0) bad16 = (long)i;
            if (got32 != (uint32_t)want << 16 && bad32 < 0) bad32 = (long)i;
        }
    }
    char name[160];
    snprintf(name, sizeof name, "bf16_convert (%s loop) == the scalar reference, bit for bit (edge cases and random bits)",
             bf16_convert_kind());
    check(bad16 < 0, name, "element %ld: 0x%08x -> 0x%04x, reference 0x%04x", bad16, bad16 < 0 ? 0 : u[bad16],
          bad16 < 0 ? 0 : h[bad16], bad16 < 0 ? 0 : bf16_from_f32(x[bad16]));
    check(bad32 < 0, "bf16_round == the scalar reference's value in float32, bit for bit", "element %ld", bad32);
    // a 300 x 301 window of a matrix with leading dimension 333, packed
    int rows = 300, cols = 301, ld = 333;
    bf16_pack(h, NULL, x, rows, cols, ld);
    long badp = -1;
    for (int i = 0; i < rows && badp < 0; i++)
        for (int j = 0; j < cols; j++)
            if (h[(size_t)i * cols + j] != bf16_from_f32(x[(size_t)i * ld + j])) badp = (long)i * cols + j;
    check(badp < 0, "bf16_pack: rows of a strided matrix packed, each element the reference's", "element %ld", badp);
    free(u), free(h), free(r);
}

// The bound of a bf16 product (docs/performance.md). Each input is rounded once to bfloat16:
// a' = a (1 + d), |d| <= u16 = 2^-8 (8 significant bits, round to nearest), so a product
// a'b' = ab (1 + e), |e| <= 2 u16 + u16^2 = 2^-7 + 2^-16. A product of two bfloat16 values has
// 16 significant bits and is exact in float32; the K of them (and beta c) are then summed in
// float32, within (K + 2) u |.| with u = 2^-24 (the bound of test_core's fp32 gemm, on the
// rounded terms, whose magnitudes are at most 1 + 2^-6 times the exact ones). So, with
// S = |alpha| sum_k |a_ik b_kj| + |beta c_ij|:
//   |c - exact| <= (2^-7 + 2^-16) S + (K + 2) 2^-24 (1 + 2^-6) S
// (2^-8 per input, two inputs a term; with every term of one sign S = |sum|, and an element
// is off by at most K terms' worth of 2^-7 of the largest: the "relative 2^-8 per input,
// times K" of a sum, element-wise). The inputs' rounding dominates until K ~ 2^17. And against the
// rounded inputs in exact arithmetic the fp32 part alone: |c - exact'| <= (K + 2) 2^-24 S'
// (S' with a', b'): which also shows the inputs were rounded: an fp32 product of the
// unrounded inputs misses this bound by far (test_bf16_products_live).
static void bounds(int ta, int tb, int M, int N, int K, double alpha, const float *A, int lda, const float *B, int ldb,
                   double beta, const float *C0, int rounded, double *ref, double *bound) {
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0, a = 0;
            for (int k = 0; k < K; k++) {
                float xf = ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
                float yf = tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j];
                double x = rounded ? bf16_to_f32(bf16_from_f32(xf)) : xf, y = rounded ? bf16_to_f32(bf16_from_f32(yf)) : yf;
                s += x * y, a += fabs(x * y);
            }
            double c = C0[(size_t)i * N + j], S = fabs(alpha) * a + fabs(beta * c);
            ref[(size_t)i * N + j] = alpha * s + beta * c;
            bound[(size_t)i * N + j] = rounded ? (K + 2) * 0x1p-24 * S : (0x1p-7 + 0x1p-16 + (K + 2) * 0x1p-24 * (1 + 0x1p-6)) * S;
        }
}

// the largest |c - ref| / bound
static double worst_ratio(const float *C, const double *ref, const double *bound, size_t n) {
    double w = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(C[i] - ref[i]) / bound[i];
        w = e > w || isnan(e) ? e : w;
    }
    return w;
}

// bf16 products: within the bound of the exact product, within the fp32 bound of the product
// of the rounded inputs, and the same bits on 1, 2 and 5 threads and inside a parallel region.
// Shapes as test_core's: cut by rows and by columns, K cut into chunks, the four transposes,
// leading dimensions wider than the matrices; beta 0 and 1.
static void test_bf16_products(const char *by) {
    int shapes[][3] = {{1031, 67, 300}, {67, 1031, 300}, {128, 96, 2048}, {48, 40, 3000}, {40, 30, 20}};
    int saved = omp_get_max_threads();
    for (int si = 0; si < (int)(sizeof shapes / sizeof *shapes); si++)
        for (int tr = 0; tr < 4; tr++) {
            int M = shapes[si][0], N = shapes[si][1], K = shapes[si][2], ta = tr >> 1, tb = tr & 1;
            int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 5;
            size_t nc = (size_t)M * N;
            Rng rng;
            rng_seed(&rng, 21 + si);
            float *A = malloc((size_t)(ta ? K : M) * lda * 4), *B = malloc((size_t)(tb ? N : K) * ldb * 4), *C0 = malloc(nc * 4);
            for (size_t i = 0; i < (size_t)(ta ? K : M) * lda; i++) A[i] = (float)rng_normal(&rng);
            for (size_t i = 0; i < (size_t)(tb ? N : K) * ldb; i++) B[i] = (float)rng_normal(&rng);
            for (size_t i = 0; i < nc; i++) C0[i] = (float)rng_normal(&rng);
            double *ref = malloc(nc * 8), *bound = malloc(nc * 8), w_exact = 0, w_rounded = 0;
            int same = 1;
            for (int beta = 0; beta < 2; beta++) {
                float *C[4];
                for (int t = 0; t < 4; t++) {
                    C[t] = malloc(nc * 4);
                    memcpy(C[t], C0, nc * 4);
                    gemm_set_bf16(1);
                    if (t < 3) {
                        omp_set_num_threads(t == 2 ? 5 : t + 1);
                        gemm(ta, tb, M, N, K, 0.5f, A, lda, B, ldb, (float)beta, C[t], N);
                    } else {
                        omp_set_num_threads(2);
#pragma omp parallel
#pragma omp single
                        gemm(ta, tb, M, N, K, 0.5f, A, lda, B, ldb, (float)beta, C[t], N);
                    }
                    gemm_set_bf16(0);
                    if (t && memcmp(C[t], C[0], nc * 4)) same = 0;
                }
                bounds(ta, tb, M, N, K, 0.5, A, lda, B, ldb, beta, C0, 0, ref, bound);
                double w = worst_ratio(C[0], ref, bound, nc);
                w_exact = w > w_exact || isnan(w) ? w : w_exact;
                bounds(ta, tb, M, N, K, 0.5, A, lda, B, ldb, beta, C0, 1, ref, bound);
                w = worst_ratio(C[0], ref, bound, nc);
                w_rounded = w > w_rounded || isnan(w) ? w : w_rounded;
                for (int t = 0; t < 4; t++) free(C[t]);
            }
            omp_set_num_threads(saved);
            char name[200];
            snprintf(name, sizeof name, "bf16 gemm on 2 and 5 threads and inside a parallel region == 1 thread, bit for bit "
                     "[%dx%dx%d ta=%d tb=%d, %s]", M, N, K, ta, tb, by);
            check(same, name, "the floats depend on the thread count");
            snprintf(name, sizeof name, "bf16 gemm within (2^-7 + (K+2) 2^-24) sum|ab| of the exact product [%dx%dx%d ta=%d tb=%d, %s]",
                     M, N, K, ta, tb, by);
            check(w_exact <= 1, name, "an element is %.3g times the bound away", w_exact);
            snprintf(name, sizeof name, "bf16 gemm within the fp32 bound of the product of the bf16-rounded inputs "
                     "[%dx%dx%d ta=%d tb=%d, %s]", M, N, K, ta, tb, by);
            check(w_rounded <= 1, name, "an element is %.3g times the bound away", w_rounded);
            free(A), free(B), free(C0), free(ref), free(bound);
        }
}

// The mode is live and switches back: an fp32 product misses the bound of the rounded inputs'
// product (its inputs were not rounded) by far, and after gemm_set_bf16(0) a product is the
// fp32 one again, bit for bit
static void test_bf16_products_live(void) {
    int M = 64, N = 48, K = 256;
    Rng rng;
    rng_seed(&rng, 31);
    float *A = malloc((size_t)M * K * 4), *B = malloc((size_t)K * N * 4), *C[3];
    for (int i = 0; i < M * K; i++) A[i] = (float)rng_normal(&rng);
    for (int i = 0; i < K * N; i++) B[i] = (float)rng_normal(&rng);
    for (int t = 0; t < 3; t++) {
        C[t] = calloc((size_t)M * N, 4);
        gemm_set_bf16(t == 1);
        gemm(0, 0, M, N, K, 1, A, K, B, N, 0, C[t], N);
    }
    gemm_set_bf16(0);
    double *ref = malloc((size_t)M * N * 8), *bound = malloc((size_t)M * N * 8);
    bounds(0, 0, M, N, K, 1, A, K, B, N, 0, C[0], 1, ref, bound);
    double w32 = worst_ratio(C[0], ref, bound, (size_t)M * N);
    check(w32 > 10, "an fp32 product misses the bound of the bf16-rounded inputs' product (the bf16 test can fail)",
          "only %.3g times the bound away", w32);
    check(!memcmp(C[0], C[2], (size_t)M * N * 4) && memcmp(C[0], C[1], (size_t)M * N * 4),
          "gemm_set_bf16(0) gives the fp32 product back, bit for bit (and bf16's differs)", "");
    for (int t = 0; t < 3; t++) free(C[t]);
    free(A), free(B), free(ref), free(bound);
}

// The CPU check's switches: POSGPT_CPU_NO_BF16 answers no and names the features; POSGPT_BF16_ANY_CPU yes
static void test_cpu_switches(void) {
    char why[160] = "";
    setenv("POSGPT_CPU_NO_BF16", "1", 1);
    int no = cpu_has_bf16(why, sizeof why);
    unsetenv("POSGPT_CPU_NO_BF16");
    check(!no && strstr(why, "AVX512-BF16") && strstr(why, "AMX"), "POSGPT_CPU_NO_BF16=1: the CPU check answers no, naming "
          "AVX512-BF16 and AMX", "answered %d (%s)", no, why);
    setenv("POSGPT_BF16_ANY_CPU", "1", 1);
    check(cpu_has_bf16(why, sizeof why) == 1, "POSGPT_BF16_ANY_CPU=1: the CPU check answers yes", "");
    unsetenv("POSGPT_BF16_ANY_CPU");
    int has = cpu_has_bf16(why, sizeof why);
    printf("# this CPU: %s\n", has ? "has bf16 products (AVX512-BF16 or AMX-BF16)" : why);
}

int main(void) {
    test_reference_cases();
    test_reference_nearest();
    test_vector_matches_scalar();
    // the products through OpenBLAS (cblas_sbgemm or cblas_sgemm on the rounded inputs), and where
    // this CPU has AVX512-BF16 through posgpt's kernel (sgemm_bf16), whatever the environment picks
    GemmLib lib = gemm_get_lib();
    gemm_set_lib(GEMM_OPENBLAS);
    test_bf16_products("OpenBLAS");
    if (sgemm_bf16_ok()) {
        gemm_set_lib(GEMM_POSGPT);
        test_bf16_products("posgpt's AVX512-BF16 kernel");
    } else printf("# posgpt's AVX512-BF16 kernel not tested: this CPU has no AVX512-BF16\n");
    gemm_set_lib(lib);
    test_bf16_products_live();
    test_cpu_switches();
    return check_done();
}
