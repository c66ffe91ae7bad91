// layers.h - forward/backward pairs for every layer of the GPT block, and the one gemm
// wrapper all matrix products go through (with the naive loop the tests compare it to).
// Conventions (docs/STYLE.md): outputs first, then saved tensors, then inputs and weights,
// sizes last; backward ADDS into parameter gradients (+=) and into input gradients unless
// the comment says "writes". Shapes: N = B*T rows, C channels, OC output channels.
#ifndef POSGPT_LAYERS_H
#define POSGPT_LAYERS_H

#include "common.h"
#include "pos.h"

// Row-major C (M,N) = alpha * op(A) (M,K) * op(B) (K,N) + beta * C; ta/tb transpose A/B.
// A float product of 4 MFLOP or more runs posgpt's own packed sgemm (model/sgemm.h) where that
// is the library (the default on a CPU with AVX-512F); otherwise it calls cblas_sgemm, or
// oneDNN's dnnl_sgemm in a BLAS=onednn build (cblas_dgemm in the double test build), cut into
// work units by its shape alone: bands of rows of C (of columns if C has fewer rows than
// columns) and, for a long K, chunks of K summed in chunk order; one single-threaded call
// each, shared out over the OpenMP threads in one flat team (run in order by the caller's
// thread inside a parallel region, e.g. attention over (b,h)). Either way the floats do not
// depend on the thread count.
void gemm(int ta, int tb, int M, int N, int K, real alpha, const real *A, int lda,
          const real *B, int ldb, real beta, real *C, int ldc);
// the library gemm calls for floats: posgpt's sgemm (GEMM_POSGPT; the default where the CPU has
// AVX-512F and OPENBLAS_CORETYPE, if set, names an AVX-512 kernel), OpenBLAS, or oneDNN (built
// with BLAS=onednn only, and its default there). gemm_set_lib returns 0 (and changes nothing)
// for a library not built in; gemm_select_lib takes POSGPT_BLAS's value (NULL or "": no
// change; posgpt (its best kernel here), posgpt-portable (its portable kernel), openblas,
// onednn; dies on another or on onednn where not built in); gemm_lib_name: "posgpt sgemm
// AVX-512 12x32, OpenBLAS SkylakeX kernels", "OpenBLAS SkylakeX kernels", "oneDNN 2.6.3 sgemm,
// avx512_core_vnni" (the banner's words; a static buffer).
typedef enum { GEMM_OPENBLAS, GEMM_ONEDNN, GEMM_POSGPT } GemmLib;
int gemm_set_lib(GemmLib lib);
GemmLib gemm_get_lib(void);
void gemm_select_lib(const char *name);
const char *gemm_lib_name(void);
// The precision of every product's inputs from now on (set outside parallel regions): float32
// (0, the default) or bfloat16 (1: both factors rounded to nearest even before the cut, the
// sums in float32: train --precision bf16). The cut and the order of the chunk sums are the
// same, so bf16 products too do not depend on the thread count. No effect in the double build.
void gemm_set_bf16(int on);
int gemm_get_bf16(void);
// what runs bf16 products: OpenBLAS's cblas_sbgemm where the library has it, else cblas_sgemm
// on the rounded values (the same numbers, no faster); for banners
const char *gemm_bf16_backend(void);
int gemm_sbgemm_in_use(void); // 1: cblas_sbgemm (looked up by the first gemm_set_bf16(1))
int gemm_bf16_kernel_in_use(void); // 1: the large bf16 products run on posgpt's AVX512-BF16 kernel (sgemm_bf16)
// the number of work units gemm cuts an (M,N) x K product into (posgpt's sgemm: on 64 threads,
// its finest cut; the cut of the other libraries depends on the shape alone)
int gemm_units(int M, int N, int K);
void gemm_naive(int ta, int tb, int M, int N, int K, real alpha, const real *A, int lda,
                const real *B, int ldb, real beta, real *C, int ldc);

void encoder_forward(real *out, const int *tok, const real *wte, int N, int C);
void encoder_backward(real *dwte, const real *dout, const int *tok, int N, int C, int V); // wte (V,C)

void layernorm_forward(real *out, real *mean, real *rstd, const real *inp, const real *w, const real *b, int N, int C);
void layernorm_backward(real *dinp, real *dw, real *db, const real *dout, const real *inp, const real *w,
                        const real *mean, const real *rstd, int N, int C);

// out (N,OC) = inp (N,C) . w^T (w is (OC,C)) + b (OC); b may be NULL
void linear_forward(real *out, const real *inp, const real *w, const real *b, int N, int C, int OC);
// dinp is overwritten; dw and db accumulate
void linear_backward(real *dinp, real *dw, real *db, const real *dout, const real *inp, const real *w, int N, int C, int OC);

// exp used by the hot loops: a vectorizable polynomial in the float build, libm's in double
real layer_exp(real x);
// tanh of the GELU, the same way (absolute error below 2.5e-7 in the float build)
real layer_tanh(real u);

void gelu_forward(real *out, const real *inp, size_t n);
void gelu_backward(real *dinp, const real *dout, const real *inp, size_t n); // writes dinp (may be dout)

void residual_forward(real *out, const real *a, const real *b, size_t n);
// Fused forms (one pass over the activations instead of two, the same float operations):
// y (N,C) = gelu(x + bias), and if dg is not NULL dg (N,C) = gelu'(x + bias) (dg may be x),
// all its backward needs: dinp (n) = dg * dout (dinp may be dout)
void bias_gelu_forward(real *y, real *dg, const real *x, const real *bias, int N, int C);
void bias_gelu_backward(real *dinp, const real *dout, const real *dg, size_t n);
// out (N,C) = a + (x + bias) (a projection's bias and the residual add), then
// ln (N,C) = LayerNorm(out) with w, b (C), keeping mean, rstd (N)
void residual_layernorm_forward(real *out, real *ln, real *mean, real *rstd, const real *a, const real *x,
                                const real *bias, const real *w, const real *b, int N, int C);

// Causal multi-head attention on qkv (B,T,3C) (q | k | v, heads of HS = C/NH channels),
// scores q.k/sqrt(HS) + the scheme's bias and content term (ps may be NULL: none), softmax,
// times v, plus the scheme's value term.
// Training form: keeps att (B,NH,T,T), the softmax probabilities, for the backward.
// Both forms work in causal query blocks of qblock rows (ATT_QBLOCK by default; 0 or >= T
// means one block, the plain full-matrix form); tests vary it.
// seg (B,T), NULL for none: packed examples. Query t of a row attends to the keys
// seg[t]..t of its row only (seg[t] <= t: the first row of t's example), so examples packed
// into one row do not see each other; the scheme's hooks get those keys alone.
#define ATT_QBLOCK 64
void attention_forward(real *out, real *att, const real *qkv, const int *pos, const int *seg, const PosState *ps,
                       int B, int T, int C, int NH, int qblock);
// dqkv is overwritten; dscheme (pointers to this layer's scheme tensor gradients, NULL: no
// parameter gradients wanted) accumulates.
void attention_backward(real *dqkv, real *const *dscheme, const real *dout, const real *att, const real *qkv,
                        const int *pos, const int *seg, const PosState *ps, int B, int T, int C, int NH, int qblock);
// Inference form: same result, O(T) memory: query blocks of qblock rows against all their
// keys, in per-thread scratch; nothing kept.
void attention_forward_infer(real *out, const real *qkv, const int *pos, const PosState *ps,
                             int B, int T, int C, int NH, int qblock);
// The inference form for the queries q_first..T-1 only, against keys 0..T-1, with the
// sequences ld rows apart in qkv (B, ld, 3C) and pos (B, ld) (a key/value cache has room for
// more rows than are filled); out (B, T - q_first, C) holds the queries' rows.
void attention_forward_rows(real *out, const real *qkv, const int *pos, const PosState *ps,
                            int B, int T, int ld, int q_first, int C, int NH, int qblock);

// losses (N) = -log softmax(logits)[target]; probs (N,V) may alias logits
void crossentropy_forward(real *losses, real *probs, const real *logits, const int *targets, int N, int V);
// writes dlogits (may alias probs) = (probs - onehot(target)) * dloss[n]
void crossentropy_backward(real *dlogits, const real *probs, const int *targets, const real *dloss, int N, int V);
#endif
