// common.h - shared basics for posgpt: the `real` type, loud error helpers, a small RNG.
//
// `real` is float in the product. The gradient tests compile the same model sources with
// -DPOSGPT_DOUBLE so finite differences are taken in double precision; <tgmath.h> makes
// exp/tanh/sqrt/log pick the precision of their argument, so kernels are written once.
// Not here: anything model- or scheme-specific.
#ifndef POSGPT_COMMON_H
#define POSGPT_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <tgmath.h>

#ifdef POSGPT_DOUBLE
typedef double real;
#else
typedef float real;
#endif

#define POSGPT_VERSION "0.1.0"

// ---- errors: every failure says where, what, and what to do, then exits non-zero ----
#if defined(__GNUC__)
#define POSGPT_NORETURN __attribute__((noreturn))
#define POSGPT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define POSGPT_NORETURN
#define POSGPT_PRINTF(a, b)
#endif

// die: print "posgpt: error: <msg>" (one line) and exit(1). For user-facing errors.
void die(const char *fmt, ...) POSGPT_NORETURN POSGPT_PRINTF(1, 2);
// die_at: like die, prefixed with the source location; for I/O and allocation failures.
void die_at(const char *file, int line, const char *fmt, ...) POSGPT_NORETURN POSGPT_PRINTF(3, 4);
// die_hook: when set, die and die_at call it after the message instead of exit(1); it must not
// return (the fuzzers jump back to their loop through it, to run many inputs in one process).
extern void (*die_hook)(void);
// die_tag: printed after "posgpt: error: " (which process of a multi-process run speaks; "" alone)
extern const char *die_tag;

void *malloc_check(size_t n, const char *file, int line);
void *calloc_check(size_t n, size_t size, const char *file, int line);
void *realloc_check(void *p, size_t n, const char *file, int line);
FILE *fopen_check(const char *path, const char *mode, const char *file, int line);
void fread_check(void *p, size_t size, size_t n, FILE *f, const char *path, const char *file, int line);
void fwrite_check(const void *p, size_t size, size_t n, FILE *f, const char *path, const char *file, int line);
#define xmalloc(n) malloc_check((n), __FILE__, __LINE__)
#define xcalloc(n, s) calloc_check((n), (s), __FILE__, __LINE__)
#define xrealloc(p, n) realloc_check((p), (n), __FILE__, __LINE__)
#define xfopen(p, m) fopen_check((p), (m), __FILE__, __LINE__)
#define xfread(p, s, n, f, path) fread_check((p), (s), (n), (f), (path), __FILE__, __LINE__)
#define xfwrite(p, s, n, f, path) fwrite_check((p), (s), (n), (f), (path), __FILE__, __LINE__)

// Scratch that grows and is kept between calls: buf_grow returns b->p with room for at least
// `bytes`, 64-byte aligned (the contents are not kept when it grows). thread_buf(slot) is the
// calling thread's buffer number slot, kept under a pthread key whose destructor frees it when
// the thread ends (the OpenMP runtime ends and starts worker threads; buffers in thread-local
// variables were lost with them: LeakSanitizer counted 200 in a bf16 run on 3 threads).
typedef struct {
    void *p;
    size_t cap;
} ScratchBuf;
void *buf_grow(ScratchBuf *b, size_t bytes);
enum { TBUF_BF16_A, TBUF_BF16_B, TBUF_SGEMM_A, TBUF_SGEMM_B, THREAD_BUFS }; // the slots
ScratchBuf *thread_buf(int slot);

// ---- random numbers: xoshiro256** seeded by splitmix64; the whole state is 4 words so a
// checkpoint can carry it and a resumed run draws the same numbers ----
typedef struct {
    uint64_t s[4];
} Rng;
void rng_seed(Rng *r, uint64_t seed);
uint64_t rng_u64(Rng *r);
double rng_uniform(Rng *r);            // [0, 1)
uint64_t rng_below(Rng *r, uint64_t n); // [0, n), unbiased
double rng_normal(Rng *r);              // N(0, 1), Box-Muller

double now_seconds(void); // monotonic clock

// ---- per-op timing for the bench's scaling model (tools/bench.c, docs/performance.md) ----
// Compiled in only with -DPOSGPT_PROFILE (the bench's own build of the model, which defines
// prof_enter and prof_leave); in every other build the macros are empty. An op opens with
// PROF_BEGIN() and closes with PROF_END(name, M, N, K, units): its shape (0 where unused) and
// the work units its parallel loop shares out over the threads.
#ifdef POSGPT_PROFILE
double prof_enter(void);
void prof_leave(double t0, const char *op, int M, int N, int K, long units);
#define PROF_BEGIN() double prof_t0_ = prof_enter()
#define PROF_END(op, M, N, K, units) prof_leave(prof_t0_, op, M, N, K, units)
#else
#define PROF_BEGIN() ((void)0)
#define PROF_END(op, M, N, K, units) ((void)0)
#endif
#endif
