// common.c - error helpers, checked allocation and I/O, RNG, clock. See common.h.
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void (*die_hook)(void);
const char *die_tag = "";

// the message as one line, written with one fputs on unbuffered stderr (one write): the
// processes of an MPI run share the terminal, and a line printed in pieces interleaved with
// another process's ("posgpt: error: posgpt: error: rank 1: ...")
static POSGPT_NORETURN void die_line(const char *where, const char *fmt, va_list ap) {
    char msg[4096];
    fflush(stdout);
    int k = snprintf(msg, sizeof msg, "posgpt: error%s: %s", where, die_tag);
    if (k < 0 || (size_t)k >= sizeof msg) k = 0;
    vsnprintf(msg + k, sizeof msg - (size_t)k - 1, fmt, ap);
    strcat(msg, "\n");
    fputs(msg, stderr);
    if (die_hook) die_hook();
    exit(1);
}

void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    die_line("", fmt, ap);
}

void die_at(const char *file, int line, const char *fmt, ...) {
    char where[300];
    snprintf(where, sizeof where, " (%s:%d)", file, line);
    va_list ap;
    va_start(ap, fmt);
    die_line(where, fmt, ap);
}

void *malloc_check(size_t n, const char *file, int line) {
    void *p = malloc(n ? n : 1);
    if (!p) die_at(file, line, "out of memory allocating %zu bytes; try a smaller batch or length", n);
    return p;
}

void *calloc_check(size_t n, size_t size, const char *file, int line) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) die_at(file, line, "out of memory allocating %zu x %zu bytes; try a smaller batch or length", n, size);
    return p;
}

void *realloc_check(void *p, size_t n, const char *file, int line) {
    void *q = realloc(p, n ? n : 1);
    if (!q) die_at(file, line, "out of memory allocating %zu bytes; try a smaller batch or length", n);
    return q;
}

void *buf_grow(ScratchBuf *b, size_t bytes) {
    if (bytes > b->cap) {
        size_t n = (bytes + 63) / 64 * 64;
        free(b->p);
        b->p = aligned_alloc(64, n);
        if (!b->p) die("out of memory allocating %zu bytes; try a smaller batch or length", n);
        b->cap = n;
    }
    return b->p;
}
static pthread_key_t tbuf_key;
static pthread_once_t tbuf_once = PTHREAD_ONCE_INIT;
static void tbuf_free(void *v) {
    ScratchBuf *b = v;
    for (int i = 0; i < THREAD_BUFS; i++) free(b[i].p);
    free(b);
}
static void tbuf_make_key(void) {
    if (pthread_key_create(&tbuf_key, tbuf_free)) die("internal: cannot create a thread key for the scratch buffers");
}
ScratchBuf *thread_buf(int slot) {
    pthread_once(&tbuf_once, tbuf_make_key);
    ScratchBuf *b = pthread_getspecific(tbuf_key);
    if (!b) {
        b = xcalloc(THREAD_BUFS, sizeof *b);
        if (pthread_setspecific(tbuf_key, b)) die("internal: cannot keep the scratch buffers of a thread");
    }
    return &b[slot];
}

FILE *fopen_check(const char *path, const char *mode, const char *file, int line) {
    FILE *f = fopen(path, mode);
    if (!f) die_at(file, line, "cannot open '%s' (mode %s): %s", path, mode, strerror(errno));
    return f;
}

void fread_check(void *p, size_t size, size_t n, FILE *f, const char *path, const char *file, int line) {
    size_t got = fread(p, size, n, f);
    if (got != n) {
        die_at(file, line, "short read from '%s': expected %zu items of %zu bytes, got %zu (%s); the file is truncated or not what it claims",
               path, n, size, got, ferror(f) ? strerror(errno) : "end of file");
    }
}

void fwrite_check(const void *p, size_t size, size_t n, FILE *f, const char *path, const char *file, int line) {
    size_t put = fwrite(p, size, n, f);
    if (put != n) die_at(file, line, "short write to '%s': %zu of %zu items (%s); is the disk full?", path, put, n, strerror(errno));
}

// ---- RNG: xoshiro256** (Blackman & Vigna 2018), seeded with splitmix64 ----
static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_seed(Rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_u64(Rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_uniform(Rng *r) { return (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0); }

uint64_t rng_below(Rng *r, uint64_t n) {
    // rejection sampling removes the modulo bias
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = rng_u64(r);
    while (x >= limit);
    return x % n;
}

double rng_normal(Rng *r) {
    double u1 = rng_uniform(r), u2 = rng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
