// sgemm.c - posgpt's own packed float matrix product. See sgemm.h.
#include "sgemm.h"

#include "bf16.h"
#include "common.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SG_X86 1
#endif

#define MR SG_MR
#define NR SG_NR
#define KC SG_KC
#define MC_PANELS 8 // panels of A per unit at most (96 rows x KC: 96 KiB, kept in L2 across the column panels)

// ---------------------------------------------------------------------------------------
// Packing. op(A) rows [i0, i0+mc) x k [k0, k0+kc) into panels of MR rows: panel p holds, for
// each k, the MR values of rows i0+p*MR.. (zero past mc). op(B) k [k0, k0+kc) x columns
// [j0, j0+nc) into panels of NR columns the same way. Both kernels read this one layout.

static void pack_a_c(int ta, int i0, int mc, int k0, int kc, const float *A, int lda, float *d) {
    for (int p = 0; p < mc; p += MR, d += (size_t)kc * MR) {
        int mr = mc - p < MR ? mc - p : MR;
        for (int k = 0; k < kc; k++)
            for (int r = 0; r < MR; r++)
                d[(size_t)k * MR + r] = r >= mr ? 0.0f
                                        : ta    ? A[(size_t)(k0 + k) * lda + i0 + p + r]
                                                : A[(size_t)(i0 + p + r) * lda + k0 + k];
    }
}
static void pack_b_c(int tb, int k0, int kc, int j0, int nc, const float *B, int ldb, float *d) {
    for (int p = 0; p < nc; p += NR, d += (size_t)kc * NR) {
        int nr = nc - p < NR ? nc - p : NR;
        for (int k = 0; k < kc; k++)
            for (int c = 0; c < NR; c++)
                d[(size_t)k * NR + c] = c >= nr ? 0.0f
                                        : tb    ? B[(size_t)(j0 + p + c) * ldb + k0 + k]
                                                : B[(size_t)(k0 + k) * ldb + j0 + p + c];
    }
}

// the micro-kernel, portable: the MR x NR tile of C at C (rows mr, columns nr kept) from kc
// steps of the panels a and b; first: the first K block (c = alpha acc + beta c, c not read
// when beta is 0), else c = c + alpha acc
static void ukr_c(int kc, const float *a, const float *b, float *C, int ldc, int mr, int nr, float alpha, float beta,
                  int first) {
    float acc[MR][NR];
    memset(acc, 0, sizeof acc);
    for (int k = 0; k < kc; k++, a += MR, b += NR)
        for (int r = 0; r < MR; r++)
            for (int j = 0; j < NR; j++) acc[r][j] = fmaf(a[r], b[j], acc[r][j]);
    for (int r = 0; r < mr; r++)
        for (int j = 0; j < nr; j++) {
            float *c = C + (size_t)r * ldc + j, x = alpha * acc[r][j];
            if (!first) x = *c + x;
            else if (beta != 0) {
                float o = beta * *c;
                x = o + x;
            }
            *c = x;
        }
}

#ifdef SG_X86
static inline __mmask16 lanes(int n) { return n >= 16 ? 0xffff : n <= 0 ? 0 : (__mmask16)((1u << n) - 1); }

// 16 x 16 transpose in registers: lane j of r[i] goes to lane i of r[j]
__attribute__((target("avx512f"))) static inline void tr16(__m512 r[16]) {
    __m512 t[16], u[16];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]), t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        __m512 a = t[4 * i], b = t[4 * i + 1], c = t[4 * i + 2], d = t[4 * i + 3];
        u[4 * i] = _mm512_shuffle_ps(a, c, 0x44), u[4 * i + 1] = _mm512_shuffle_ps(a, c, 0xEE);
        u[4 * i + 2] = _mm512_shuffle_ps(b, d, 0x44), u[4 * i + 3] = _mm512_shuffle_ps(b, d, 0xEE);
    }
    // u[4i + q]: rows 4i..4i+3, in 128-bit lane l their column 4l + q
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++)
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++) {
            t[8 * h + q] = _mm512_shuffle_f32x4(u[8 * h + q], u[8 * h + 4 + q], 0x88);
            t[8 * h + 4 + q] = _mm512_shuffle_f32x4(u[8 * h + q], u[8 * h + 4 + q], 0xDD);
        }
#pragma GCC unroll 8
    for (int q = 0; q < 8; q++) {
        r[q] = _mm512_shuffle_f32x4(t[q], t[8 + q], 0x88);
        r[8 + q] = _mm512_shuffle_f32x4(t[q], t[8 + q], 0xDD);
    }
}
// rows[0..n) (n <= 16), columns [k0, k0+kc) of each: column k's n values (zero past n) to
// d + (k - k0) ld, the lanes of wmask stored
__attribute__((target("avx512f"), noinline)) static void pack_t(const float *const *rows, int n, int k0, int kc, float *d, int ld,
                                                     __mmask16 wmask) {
    __m512 r[16];
    for (int k = 0; k < kc; k += 16) {
        int m = kc - k < 16 ? kc - k : 16;
        __mmask16 km = lanes(m);
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) r[i] = i < n ? _mm512_maskz_loadu_ps(km, rows[i] + k0 + k) : _mm512_setzero_ps();
        tr16(r);
        if (m == 16) {
#pragma GCC unroll 16
            for (int i = 0; i < 16; i++) _mm512_mask_storeu_ps(d + (size_t)(k + i) * ld, wmask, r[i]);
        } else
            for (int i = 0; i < m; i++) _mm512_mask_storeu_ps(d + (size_t)(k + i) * ld, wmask, r[i]);
    }
}
__attribute__((target("avx512f"))) static void pack_a_512(int ta, int i0, int mc, int k0, int kc, const float *A, int lda,
                                                         float *d) {
    for (int p = 0; p < mc; p += MR, d += (size_t)kc * MR) {
        int mr = mc - p < MR ? mc - p : MR;
        if (ta) { // A is (K, M): the MR values of a k are contiguous
            __mmask16 m = lanes(mr);
            const float *s = A + (size_t)k0 * lda + i0 + p;
            for (int k = 0; k < kc; k++, s += lda)
                _mm512_mask_storeu_ps(d + (size_t)k * MR, lanes(MR), _mm512_maskz_loadu_ps(m, s));
        } else {
            const float *rows[16];
            for (int r = 0; r < 16; r++) rows[r] = A + (size_t)(i0 + p + (r < mr ? r : 0)) * lda;
            pack_t(rows, mr, k0, kc, d, MR, lanes(MR));
        }
    }
}
__attribute__((target("avx512f"))) static void pack_b_512(int tb, int k0, int kc, int j0, int nc, const float *B, int ldb,
                                                         float *d) {
    for (int p = 0; p < nc; p += NR, d += (size_t)kc * NR) {
        int nr = nc - p < NR ? nc - p : NR;
        if (!tb) { // B is (K, N): the NR values of a k are contiguous
            __mmask16 m0 = lanes(nr), m1 = lanes(nr - 16);
            const float *s = B + (size_t)k0 * ldb + j0 + p;
            for (int k = 0; k < kc; k++, s += ldb) {
                _mm512_storeu_ps(d + (size_t)k * NR, _mm512_maskz_loadu_ps(m0, s));
                _mm512_storeu_ps(d + (size_t)k * NR + 16, _mm512_maskz_loadu_ps(m1, s + 16));
            }
        } else
            for (int h = 0; h < 2; h++) {
                int n = nr - 16 * h < 0 ? 0 : nr - 16 * h > 16 ? 16 : nr - 16 * h;
                const float *rows[16];
                for (int c = 0; c < 16; c++) rows[c] = B + (size_t)(j0 + p + 16 * h + (c < n ? c : 0)) * ldb;
                pack_t(rows, n, k0, kc, d + 16 * h, NR, 0xffff);
            }
    }
}
// the micro-kernel: MR x NR accumulators in 24 registers, one fused multiply-add per k each
// (the portable kernel's operations, vectorised over the NR columns)
__attribute__((target("avx512f"))) static void ukr_512(int kc, const float *a, const float *b, float *C, int ldc, int mr,
                                                      int nr, float alpha, float beta, int first) {
    __m512 c[MR][2];
#pragma GCC unroll 12
    for (int r = 0; r < MR; r++) c[r][0] = _mm512_setzero_ps(), c[r][1] = _mm512_setzero_ps();
    for (int k = 0; k < kc; k++, a += MR, b += NR) {
        __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 12
        for (int r = 0; r < MR; r++) {
            __m512 av = _mm512_set1_ps(a[r]);
            c[r][0] = _mm512_fmadd_ps(av, b0, c[r][0]);
            c[r][1] = _mm512_fmadd_ps(av, b1, c[r][1]);
        }
    }
    __mmask16 m0 = lanes(nr), m1 = lanes(nr - 16);
    __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    int load = !first || beta != 0;
    // the whole tile: a loop of constant length, unrolled, keeps the accumulators in registers
#define SG_STORE_ROW(r)                                                                                             \
    do {                                                                                                           \
        float *cr = C + (size_t)(r) * ldc;                                                                         \
        __m512 x0 = _mm512_mul_ps(va, c[r][0]), x1 = _mm512_mul_ps(va, c[r][1]);                                   \
        if (load) {                                                                                                \
            __m512 o0 = _mm512_maskz_loadu_ps(m0, cr), o1 = _mm512_maskz_loadu_ps(m1, cr + 16);                    \
            if (first) o0 = _mm512_mul_ps(vb, o0), o1 = _mm512_mul_ps(vb, o1);                                     \
            x0 = _mm512_add_ps(o0, x0), x1 = _mm512_add_ps(o1, x1);                                                \
        }                                                                                                          \
        _mm512_mask_storeu_ps(cr, m0, x0);                                                                         \
        _mm512_mask_storeu_ps(cr + 16, m1, x1);                                                                    \
    } while (0)
    if (mr == MR) {
#pragma GCC unroll 12
        for (int r = 0; r < MR; r++) SG_STORE_ROW(r);
    } else
        for (int r = 0; r < mr; r++) SG_STORE_ROW(r);
#undef SG_STORE_ROW
}
#endif

// ---------------------------------------------------------------------------------------
typedef void (*PackAFn)(int, int, int, int, int, const float *, int, float *);
typedef void (*PackBFn)(int, int, int, int, int, const float *, int, float *);
typedef void (*UkrFn)(int, const float *, const float *, float *, int, int, int, float, float, int);
static SgKernel kernel = SG_PORTABLE;
static PackAFn pack_a = pack_a_c;
static PackBFn pack_b = pack_b_c;
static UkrFn ukr = ukr_c;
static int kernel_chosen;

int sgemm_kernel_ok(SgKernel k) {
#ifdef SG_X86
    if (k == SG_AVX512) return __builtin_cpu_supports("avx512f") != 0;
#endif
    return k == SG_PORTABLE;
}
int sgemm_set_kernel(SgKernel k) {
    if (!sgemm_kernel_ok(k)) return 0;
    kernel = k, kernel_chosen = 1;
#ifdef SG_X86
    if (k == SG_AVX512) {
        pack_a = pack_a_512, pack_b = pack_b_512, ukr = ukr_512;
        return 1;
    }
#endif
    pack_a = pack_a_c, pack_b = pack_b_c, ukr = ukr_c;
    return 1;
}
SgKernel sgemm_best_kernel(void) { return sgemm_kernel_ok(SG_AVX512) ? SG_AVX512 : SG_PORTABLE; }
static double solo_flops_v = -1; // drive's "solo" bound (below), read once by choose
static void choose(void) {
    if (!kernel_chosen) sgemm_set_kernel(sgemm_best_kernel());
    if (solo_flops_v < 0) {
        const char *e = getenv("POSGPT_SGEMM_SOLO_MFLOPS");
        char *end = NULL;
        double v = e && *e ? strtod(e, &end) : 8;
        if (e && *e && (*end || !(v >= 0) || !isfinite(v)))
            die("POSGPT_SGEMM_SOLO_MFLOPS=%s: give a number of MFLOP, 0 or more (0: never solo; default 8)", e);
        solo_flops_v = 1e6 * v;
    }
}
SgKernel sgemm_get_kernel(void) {
    choose();
    return kernel;
}
const char *sgemm_kernel_name(void) {
    choose();
    return kernel == SG_AVX512 ? "AVX-512 12x32" : "portable 12x32";
}

// ---------------------------------------------------------------------------------------
// bfloat16 products (sgemm_bf16): op(A) and op(B) rounded to bfloat16 while packed (bf16.h's
// rounding), a pair of k in one 32-bit word (k even in the low half, zero past K), so that one
// vdpbf16ps adds the pair's two products to each of 16 accumulators. Panels as above, with
// (kc + 1) / 2 words a row (A) or column (B) per K block.
#ifdef SG_X86
// bf16.h's rounding on 16 lanes of float bits: the bfloat16 value's bits in the top halves
__attribute__((target("avx512f"))) static inline __m512i round16(__m512i u) {
    __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
    __m512i r = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1)));
    return _mm512_and_si512(_mm512_mask_or_epi32(r, nan, u, _mm512_set1_epi32(0x00400000)), _mm512_set1_epi32((int)0xffff0000u));
}
// the words of k and k + 1 from two rows of 16 lanes (k + 1's row absent: zero)
__attribute__((target("avx512f"))) static inline __m512i pair_rows(const float *x0, const float *x1, __mmask16 m) {
    __m512i lo = _mm512_srli_epi32(round16(_mm512_castps_si512(_mm512_maskz_loadu_ps(m, x0))), 16);
    return x1 ? _mm512_or_si512(lo, round16(_mm512_castps_si512(_mm512_maskz_loadu_ps(m, x1)))) : lo;
}
// the 16 words of n <= 32 contiguous values (k, k + 1 in one word; zero past n)
__attribute__((target("avx512f"))) static inline __m512i pair_run(const float *x, int n) {
    __m512i u0 = round16(_mm512_castps_si512(_mm512_maskz_loadu_ps(lanes(n), x)));
    __m512i u1 = round16(_mm512_castps_si512(_mm512_maskz_loadu_ps(lanes(n - 16), x + 16)));
    __m256i h0 = _mm512_cvtepi32_epi16(_mm512_srli_epi32(u0, 16)), h1 = _mm512_cvtepi32_epi16(_mm512_srli_epi32(u1, 16));
    return _mm512_inserti64x4(_mm512_castsi256_si512(h0), h1, 1);
}
// rows[0..n) (n <= 16) of contiguous values from k0, kc of each: word w of row i to d[w ld + i]
// (16 words a row at a time, transposed in registers), the lanes of wmask stored
__attribute__((target("avx512f"))) static void pack_t_pairs(const float *const *rows, int n, int k0, int kc, uint32_t *d, int ld,
                                                           __mmask16 wmask) {
    __m512 r[16];
    for (int k = 0; k < kc; k += 32) {
        int m = kc - k < 32 ? kc - k : 32, words = (m + 1) / 2;
        for (int i = 0; i < 16; i++) r[i] = i < n ? _mm512_castsi512_ps(pair_run(rows[i] + k0 + k, m)) : _mm512_setzero_ps();
        tr16(r);
        for (int w = 0; w < words; w++) _mm512_mask_storeu_ps((float *)d + (size_t)(k / 2 + w) * ld, wmask, r[w]);
    }
}
__attribute__((target("avx512f"))) static void pack_a_bf16(int ta, int i0, int mc, int k0, int kc, const float *A, int lda,
                                                          uint32_t *d) {
    int kw = (kc + 1) / 2;
    for (int p = 0; p < mc; p += MR, d += (size_t)kw * MR) {
        int mr = mc - p < MR ? mc - p : MR;
        if (ta) { // A is (K, M): rows k and k + 1 of MR values
            const float *s = A + (size_t)k0 * lda + i0 + p;
            for (int k = 0; k < kc; k += 2, s += 2 * (size_t)lda)
                _mm512_mask_storeu_epi32(d + (size_t)(k / 2) * MR, lanes(MR), pair_rows(s, k + 1 < kc ? s + lda : NULL, lanes(mr)));
        } else {
            const float *rows[16];
            for (int r = 0; r < 16; r++) rows[r] = A + (size_t)(i0 + p + (r < mr ? r : 0)) * lda;
            pack_t_pairs(rows, mr, k0, kc, d, MR, lanes(MR));
        }
    }
}
__attribute__((target("avx512f"))) static void pack_b_bf16(int tb, int k0, int kc, int j0, int nc, const float *B, int ldb,
                                                          uint32_t *d) {
    int kw = (kc + 1) / 2;
    for (int p = 0; p < nc; p += NR, d += (size_t)kw * NR) {
        int nr = nc - p < NR ? nc - p : NR;
        if (!tb) { // B is (K, N): rows k and k + 1 of NR values
            const float *s = B + (size_t)k0 * ldb + j0 + p;
            for (int k = 0; k < kc; k += 2, s += 2 * (size_t)ldb) {
                const float *s1 = k + 1 < kc ? s + ldb : NULL;
                _mm512_storeu_si512(d + (size_t)(k / 2) * NR, pair_rows(s, s1, lanes(nr)));
                _mm512_storeu_si512(d + (size_t)(k / 2) * NR + 16, pair_rows(s + 16, s1 ? s1 + 16 : NULL, lanes(nr - 16)));
            }
        } else
            for (int h = 0; h < 2; h++) {
                int n = nr - 16 * h < 0 ? 0 : nr - 16 * h > 16 ? 16 : nr - 16 * h;
                const float *rows[16];
                for (int c = 0; c < 16; c++) rows[c] = B + (size_t)(j0 + p + 16 * h + (c < n ? c : 0)) * ldb;
                pack_t_pairs(rows, n, k0, kc, d + 16 * h, NR, 0xffff);
            }
    }
}
// the micro-kernel: ukr_512's tile, one vdpbf16ps (two products of a pair of k) per word
__attribute__((target("avx512f,avx512bf16"))) static void ukr_bf16(int kw, const uint32_t *a, const uint32_t *b, float *C,
                                                                  int ldc, int mr, int nr, float alpha, float beta, int first) {
    __m512 c[MR][2];
#pragma GCC unroll 12
    for (int r = 0; r < MR; r++) c[r][0] = _mm512_setzero_ps(), c[r][1] = _mm512_setzero_ps();
    for (int w = 0; w < kw; w++, a += MR, b += NR) {
        __m512bh b0 = (__m512bh)_mm512_load_si512(b), b1 = (__m512bh)_mm512_load_si512(b + 16);
#pragma GCC unroll 12
        for (int r = 0; r < MR; r++) {
            __m512bh av = (__m512bh)_mm512_set1_epi32((int)a[r]);
            c[r][0] = _mm512_dpbf16_ps(c[r][0], av, b0);
            c[r][1] = _mm512_dpbf16_ps(c[r][1], av, b1);
        }
    }
    __mmask16 m0 = lanes(nr), m1 = lanes(nr - 16);
    __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    int load = !first || beta != 0;
    for (int r = 0; r < mr; r++) {
        float *cr = C + (size_t)r * ldc;
        __m512 x0 = _mm512_mul_ps(va, c[r][0]), x1 = _mm512_mul_ps(va, c[r][1]);
        if (load) {
            __m512 o0 = _mm512_maskz_loadu_ps(m0, cr), o1 = _mm512_maskz_loadu_ps(m1, cr + 16);
            if (first) o0 = _mm512_mul_ps(vb, o0), o1 = _mm512_mul_ps(vb, o1);
            x0 = _mm512_add_ps(o0, x0), x1 = _mm512_add_ps(o1, x1);
        }
        _mm512_mask_storeu_ps(cr, m0, x0);
        _mm512_mask_storeu_ps(cr + 16, m1, x1);
    }
}
#endif

// ---------------------------------------------------------------------------------------
// The cut into units: blocks of mp panels of rows (MR each) times nj ranges of column panels.
// One thread: blocks of MC_PANELS panels, all columns (op(A) packed once). More threads: the
// blocks are halved down to 2 panels, then the columns split, then single panels, until there
// are 4 units per thread or no smaller cut. Only the speed depends on it, never the floats.
typedef struct { int mp, nj, nbi, units; } Cut;
static Cut cut(int M, int N, int threads) {
    int npm = (M + MR - 1) / MR, npn = (N + NR - 1) / NR, want = threads > 1 ? 4 * threads : 1;
    Cut c = {MC_PANELS, 1, 0, 0};
    for (;;) {
        c.nbi = (npm + c.mp - 1) / c.mp;
        if (c.nbi * c.nj >= want) break;
        if (c.mp > 2) c.mp /= 2;
        else if (c.nj < npn) c.nj = 2 * c.nj < npn ? 2 * c.nj : npn;
        else if (c.mp > 1) c.mp = 1;
        else break;
    }
    c.nbi = (npm + c.mp - 1) / c.mp;
    c.units = c.nbi * c.nj;
    return c;
}
int sgemm_units(int M, int N, int threads) { return M > 0 && N > 0 ? cut(M, N, threads).units : 0; }
// the column panels [*p0, *p1) of column range bj of cut c, of npn panels in all
static void col_range(const Cut *c, int npn, int bj, int *p0, int *p1) {
    *p0 = (int)((long)npn * bj / c->nj), *p1 = (int)((long)npn * (bj + 1) / c->nj);
}

// unit u of cut c for the K block [k0, k0+kc): pack its rows of op(A) into abuf, then every
// (column panel, row panel) tile of it from the packed B block bp
static void run_unit(const Cut *c, int u, int ta, int M, int N, int k0, int kc, float alpha, const float *A, int lda,
                     const float *bp, float beta, float *C, int ldc, float *abuf) {
    int npn = (N + NR - 1) / NR, bi = u / c->nj, p0, p1;
    int i0 = bi * c->mp * MR, mc = M - i0 < c->mp * MR ? M - i0 : c->mp * MR;
    col_range(c, npn, u % c->nj, &p0, &p1);
    if (mc <= 0 || p1 <= p0) return;
    pack_a(ta, i0, mc, k0, kc, A, lda, abuf);
    for (int jp = p0; jp < p1; jp++) {
        int j = jp * NR, nr = N - j < NR ? N - j : NR;
        for (int p = 0; p < mc; p += MR)
            ukr(kc, abuf + (size_t)(p / MR) * kc * MR, bp + (size_t)jp * kc * NR, C + (size_t)(i0 + p) * ldc + j, ldc,
                mc - p < MR ? mc - p : MR, nr, alpha, beta, k0 == 0);
    }
}

// the shared packed B block of a product run by a team (started only outside parallel regions,
// by one thread); each thread's A block (and B block, for a product it runs alone) is its
// thread_buf
static ScratchBuf team_b;

// a kind of product (float32, or bfloat16 pairs): the values a panel row holds for kc values of
// k, their size, the B packing and the work unit
typedef struct {
    int (*per_k)(int kc);
    size_t es;
    void (*pack_b)(int tb, int k0, int kc, int j0, int nc, const float *B, int ldb, void *d);
    void (*unit)(const Cut *c, int u, int ta, int M, int N, int k0, int kc, float alpha, const float *A, int lda, const void *bp,
                 float beta, float *C, int ldc, void *abuf);
} Kind;

// column panel p of op(B)'s K block [k0, k0 + kc) packed into its place in the block blk
static void pack_panel(const Kind *kd, int tb, int k0, int kc, int p, int N, const float *B, int ldb, char *blk) {
    int j = p * NR;
    kd->pack_b(tb, k0, kc, j, N - j < NR ? N - j : NR, B, ldb, blk + (size_t)p * kd->per_k(kc) * NR * kd->es);
}

// solo_flops_v: below this many flops a thread per K block, a product of several K blocks runs
// "solo" (each thread its own units through every block; drive). POSGPT_SGEMM_SOLO_MFLOPS=X
// changes it for a benchmark (0: never); only the speed depends on it, never the floats.
void sgemm_set_solo_mflops(double mflops) {
    choose();
    solo_flops_v = mflops < 0 ? 0 : 1e6 * mflops;
}
double sgemm_get_solo_mflops(void) {
    choose();
    return solo_flops_v / 1e6;
}

// the product of a kind (M, N, K > 0): per K block op(B) packed once (by the team, in column
// panels), then every work unit; one thread (or one unit) runs them in order
static void drive(const Kind *kd, int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                  int ldb, float beta, float *C, int ldc) {
    int npn = (N + NR - 1) / NR, nt = omp_in_parallel() ? 1 : omp_get_max_threads();
    size_t bsize = (size_t)kd->per_k(K < KC ? K : KC) * npn * NR * kd->es;
    Cut c = cut(M, N, nt);
    size_t asize = (size_t)c.mp * MR * kd->per_k(KC) * kd->es;
    if (nt == 1 || c.units == 1) {
        void *bp = buf_grow(thread_buf(TBUF_SGEMM_B), bsize), *ap = buf_grow(thread_buf(TBUF_SGEMM_A), asize);
        for (int k0 = 0; k0 < K; k0 += KC) {
            int kc = K - k0 < KC ? K - k0 : KC;
            kd->pack_b(tb, k0, kc, 0, N, B, ldb, bp);
            for (int u = 0; u < c.units; u++) kd->unit(&c, u, ta, M, N, k0, kc, alpha, A, lda, bp, beta, C, ldc, ap);
        }
        return;
    }
    int team = nt < c.units ? nt : c.units;
    if (K > KC && 2.0 * M * N * KC / team < solo_flops_v) {
        // few flops a thread per K block (the weight gradients: C small, K the tokens): the
        // team's packing of B and the two barriers of each block would cost more than the
        // block's work, so each thread runs its own range of units through every K block,
        // packing the B panels they need itself (once per block and column range). Each
        // element still sums the K blocks in order with the same kernel: the same floats.
#pragma omp parallel num_threads(team)
        {
            int t = omp_get_thread_num(), u0 = (int)((long)c.units * t / team), u1 = (int)((long)c.units * (t + 1) / team);
            void *ap = buf_grow(thread_buf(TBUF_SGEMM_A), asize);
            char *bq = buf_grow(thread_buf(TBUF_SGEMM_B), bsize);
            for (int k0 = 0; k0 < K; k0 += KC) {
                int kc = K - k0 < KC ? K - k0 : KC, packed = -1, p0, p1;
                for (int v = u0; v < u1; v++) { // the units column range by column range (v), so
                    int bj = v / c.nbi, u = v % c.nbi * c.nj + bj; // a thread's units share their B panels
                    if (bj != packed) { // this unit's column panels, unless the last unit's were the same
                        col_range(&c, npn, bj, &p0, &p1);
                        for (int p = p0; p < p1; p++) pack_panel(kd, tb, k0, kc, p, N, B, ldb, bq);
                        packed = bj;
                    }
                    kd->unit(&c, u, ta, M, N, k0, kc, alpha, A, lda, bq, beta, C, ldc, ap);
                }
            }
        }
        return;
    }
    char *bp = buf_grow(&team_b, bsize);
#pragma omp parallel num_threads(team)
    {
        void *ap = buf_grow(thread_buf(TBUF_SGEMM_A), asize);
        for (int k0 = 0; k0 < K; k0 += KC) {
            int kc = K - k0 < KC ? K - k0 : KC;
#pragma omp for schedule(static)
            for (int p = 0; p < npn; p++) pack_panel(kd, tb, k0, kc, p, N, B, ldb, bp);
#pragma omp for schedule(static)
            for (int u = 0; u < c.units; u++) kd->unit(&c, u, ta, M, N, k0, kc, alpha, A, lda, bp, beta, C, ldc, ap);
        }
    }
}

static int per_k_f32(int kc) { return kc; }
static void pack_b_f32(int tb, int k0, int kc, int j0, int nc, const float *B, int ldb, void *d) {
    pack_b(tb, k0, kc, j0, nc, B, ldb, (float *)d);
}
static void unit_f32(const Cut *c, int u, int ta, int M, int N, int k0, int kc, float alpha, const float *A, int lda, const void *bp,
                     float beta, float *C, int ldc, void *abuf) {
    run_unit(c, u, ta, M, N, k0, kc, alpha, A, lda, (const float *)bp, beta, C, ldc, (float *)abuf);
}

void sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
           float beta, float *C, int ldc) {
    if (M <= 0 || N <= 0) return;
    choose();
    if (K <= 0) { // C = beta C (not read when beta is 0)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) C[(size_t)i * ldc + j] = beta == 0 ? 0.0f : beta * C[(size_t)i * ldc + j];
        return;
    }
    static const Kind f32 = {per_k_f32, sizeof(float), pack_b_f32, unit_f32};
    drive(&f32, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

int sgemm_bf16_ok(void) {
#ifdef SG_X86
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#else
    return 0;
#endif
}

// as sgemm, with the bf16 packing and micro-kernel (run_unit's loop, on words)
#ifdef SG_X86
static void run_unit_bf16(const Cut *c, int u, int ta, int M, int N, int k0, int kc, float alpha, const float *A, int lda,
                          const void *bpv, float beta, float *C, int ldc, void *abufv) {
    const uint32_t *bp = bpv;
    uint32_t *abuf = abufv;
    int npn = (N + NR - 1) / NR, bi = u / c->nj, kw = (kc + 1) / 2, p0, p1;
    int i0 = bi * c->mp * MR, mc = M - i0 < c->mp * MR ? M - i0 : c->mp * MR;
    col_range(c, npn, u % c->nj, &p0, &p1);
    if (mc <= 0 || p1 <= p0) return;
    pack_a_bf16(ta, i0, mc, k0, kc, A, lda, abuf);
    for (int jp = p0; jp < p1; jp++) {
        int j = jp * NR, nr = N - j < NR ? N - j : NR;
        for (int p = 0; p < mc; p += MR)
            ukr_bf16(kw, abuf + (size_t)(p / MR) * kw * MR, bp + (size_t)jp * kw * NR, C + (size_t)(i0 + p) * ldc + j, ldc,
                     mc - p < MR ? mc - p : MR, nr, alpha, beta, k0 == 0);
    }
}
static int per_k_bf16(int kc) { return (kc + 1) / 2; }
static void pack_b_words(int tb, int k0, int kc, int j0, int nc, const float *B, int ldb, void *d) {
    pack_b_bf16(tb, k0, kc, j0, nc, B, ldb, (uint32_t *)d);
}
#endif

void sgemm_bf16(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                float beta, float *C, int ldc) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) { // C = beta C, as sgemm
        sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    if (!sgemm_bf16_ok()) die("sgemm_bf16: this CPU has no AVX512-BF16");
    choose(); // (the solo bound)
#ifdef SG_X86
    static const Kind bf16 = {per_k_bf16, sizeof(uint32_t), pack_b_words, run_unit_bf16};
    drive(&bf16, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#endif
}
