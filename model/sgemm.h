// sgemm.h - posgpt's own float matrix product (POSGPT_BLAS=posgpt; docs/performance.md,
// "The packed product"): row-major C (M,N) = alpha op(A) (M,K) op(B) (K,N) + beta C.
// BLIS-style: K in blocks of SG_KC; per block, op(B) is packed once into panels of SG_NR
// columns that every thread shares, and each work unit (a block of rows of C times a range of
// column panels) packs its rows of op(A) into panels of SG_MR rows and runs the micro-kernel,
// an SG_MR x SG_NR tile of C held in registers. A product with little work a thread per block
// (the weight gradients: C small, K long) runs "solo" instead: each thread takes its units
// through every block and packs the B panels they need itself (no barrier between blocks).
// The floats: each element of C is, per K block, one chain of fused multiply-adds in k order
// (acc = fma(a_ik, b_kj, acc), from 0), then c = alpha acc + (beta c for the first block, else
// c); so they depend on SG_KC alone, never on the cut into units, the thread count or whether
// the caller is inside a parallel region. The AVX-512 kernel and the portable one (fmaf) do the
// same operations in the same order: the same bits (tests/test_core.c checks both).
#ifndef POSGPT_SGEMM_H
#define POSGPT_SGEMM_H

#define SG_MR 12
#define SG_NR 32
#define SG_KC 256

// the kernels: SG_AVX512 (x86-64 with AVX-512F), SG_PORTABLE (C with fmaf, any CPU)
typedef enum { SG_PORTABLE, SG_AVX512 } SgKernel;
// 1 if this CPU runs the kernel
int sgemm_kernel_ok(SgKernel k);
// the fastest kernel this CPU runs (AVX-512 where it can, else the portable one)
SgKernel sgemm_best_kernel(void);
// the kernel sgemm runs from now on (set outside parallel regions; the default: AVX-512 where
// the CPU has it, else the portable one); returns 0 (and changes nothing) if the CPU lacks it
int sgemm_set_kernel(SgKernel k);
SgKernel sgemm_get_kernel(void);
const char *sgemm_kernel_name(void); // "AVX-512 12x32" or "portable 12x32"

// a product of several K blocks with fewer than this many million flops a thread per block runs
// "solo" (each thread its units through every block, packing its own B panels) instead of as a
// team (B packed once per block, two barriers a block); default 8, or POSGPT_SGEMM_SOLO_MFLOPS
// (0: never solo). Set outside parallel regions (tests, benchmarks): the floats do not depend on it.
void sgemm_set_solo_mflops(double mflops);
double sgemm_get_solo_mflops(void);

// the product; called outside a parallel region it runs on omp_get_max_threads() threads,
// inside one on the calling thread alone
void sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
           float beta, float *C, int ldc);
// bfloat16 products (train --precision bf16) on a CPU with AVX512-BF16 (sgemm_bf16_ok): op(A) and
// op(B) rounded to bfloat16 (bf16.h) as they are packed, pairs of k summed by vdpbf16ps into
// float32 accumulators (each element of C per K block one chain from 0, the pairs in k order),
// then C as sgemm. Each step's two products are exact in float32; how the instruction rounds
// their sum (and whether it flushes denormals) is the CPU's, so the bits may differ between CPU
// makers, never with the cut into units, the thread count or a parallel region. The cut is
// sgemm's (sgemm_units).
int sgemm_bf16_ok(void);
void sgemm_bf16(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                float beta, float *C, int ldc);
// the work units a product of this shape is cut into on `threads` threads (the scaling model:
// docs/performance.md)
int sgemm_units(int M, int N, int threads);

#endif
