// test_fuzz.c - a seeded mutation fuzzer for the checkpoint reader. Seeds are valid tiny
// checkpoints of every scheme (with and without optimizer state); each input is a seed with
// random damage: bit flips, interesting values written into header fields, truncation,
// extension, splices of two seeds. Every input must be either loaded (finite parameters) or
// refused with a one-line reason; a crash, a sanitizer report or a hang fails the run.
//   build/tests/test_fuzz [iterations] [seed]     (default 3000; `make fuzz` runs 200000 under ASan+UBSan)
#include "check.h"
#include "ckpt.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { unsigned char *b; size_t n; } Buf;

static Buf make_seed(const PosScheme *s, int with_opt) {
    GPTConfig c = {.V = 256, .C = 8, .L = 2, .NH = 2, .T = 8, .pos_rows = 16};
    snprintf(c.scheme, sizeof c.scheme, "%s", s->name);
    pos_default_hypers(s, c.scheme_hp);
    GPT m;
    gpt_build(&m, &c);
    gpt_init(&m, 3);
    AdamW o;
    adamw_init(&o, m.num_params, 0.9, 0.95, 1e-8, 0.1);
    TrainState ts = {.lr = 1e-3, .eps = 1e-8, .beta1 = 0.9, .beta2 = 0.95, .steps = 10, .batch = 2, .step = 5, .val_loss = 2.0};
    char path[64];
    snprintf(path, sizeof path, "/tmp/posgpt-fuzz-%d.bin", (int)getpid());
    ckpt_save(path, &m, &ts, with_opt ? &o : NULL);
    FILE *f = fopen(path, "rb");
    Buf out = {0};
    fseek(f, 0, SEEK_END);
    out.n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    out.b = malloc(out.n);
    if (fread(out.b, 1, out.n, f) != out.n) abort();
    fclose(f);
    remove(path);
    adamw_free(&o);
    gpt_free(&m);
    return out;
}

static const uint32_t INTERESTING[] = {0, 1, 2, 3, 7, 8, 16, 255, 256, 1023, 1024, 65535, 65536, 0x7fffffff,
                                       0x80000000u, 0xffffffffu, 0xfffffffeu, 1u << 24, 1u << 28, 0x3f800000u /*1.0f*/,
                                       0x7fc00000u /*nan*/, 0x7f800000u /*inf*/};
#define NINT (sizeof INTERESTING / sizeof INTERESTING[0])

static Buf mutate(const Buf *seeds, int nseeds, Rng *r) {
    const Buf *a = &seeds[rng_below(r, (uint64_t)nseeds)];
    Buf o;
    o.n = a->n;
    size_t cap = a->n + 20000; // room for every extension below
    o.b = malloc(cap);
    memcpy(o.b, a->b, a->n);
    int rounds = 1 + (int)rng_below(r, 4);
    for (int k = 0; k < rounds; k++) {
        switch (rng_below(r, 7)) {
        case 0: // flip bits anywhere
            for (int i = 0, n = 1 + (int)rng_below(r, 8); i < n && o.n; i++) o.b[rng_below(r, o.n)] ^= (unsigned char)(1u << rng_below(r, 8));
            break;
        case 1: // flip bits in the header
            for (int i = 0, n = 1 + (int)rng_below(r, 4); i < n && o.n; i++) o.b[rng_below(r, o.n < 256 ? o.n : 256)] ^= (unsigned char)(1u << rng_below(r, 8));
            break;
        case 2: { // an interesting value into an aligned header field
            size_t off = 4 * rng_below(r, 64);
            uint32_t v = INTERESTING[rng_below(r, NINT)];
            if (off + 4 <= o.n) for (int i = 0; i < 4; i++) o.b[off + i] = (unsigned char)(v >> (8 * i));
            break;
        }
        case 3: // truncate
            o.n = rng_below(r, o.n + 1);
            break;
        case 4: { // extend with random bytes
            size_t add = 1 + rng_below(r, 4000);
            if (o.n + add > cap) add = cap - o.n;
            for (size_t i = 0; i < add; i++) o.b[o.n + i] = (unsigned char)rng_u64(r);
            o.n += add;
            break;
        }
        case 5: { // splice: header of one seed, payload of another
            const Buf *b = &seeds[rng_below(r, (uint64_t)nseeds)];
            size_t cut = rng_below(r, 1100);
            if (cut < o.n && cut < b->n) {
                size_t n = b->n < cap ? b->n : cap;
                memcpy(o.b + cut, b->b + cut, n - cut);
                o.n = n;
            }
            break;
        }
        default: // random byte values in a random run
            if (o.n) {
                size_t at = rng_below(r, o.n), len = 1 + rng_below(r, 16);
                for (size_t i = at; i < at + len && i < o.n; i++) o.b[i] = (unsigned char)rng_u64(r);
            }
        }
    }
    return o;
}

int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 3000;
    uint64_t seed = argc > 2 ? (uint64_t)atoll(argv[2]) : 1;
    Buf seeds[32];
    int ns = 0;
    for (int i = 0; i < pos_count(); i++)
        for (int o = 0; o < 2; o++) seeds[ns++] = make_seed(pos_at(i), o);
    // the seeds themselves load
    int seeds_ok = 1;
    for (int i = 0; i < ns; i++) {
        FILE *f = fmemopen(seeds[i].b, seeds[i].n, "rb");
        GPT m;
        char err[512];
        AdamW o;
        if (ckpt_read(f, "seed", &m, NULL, &o, err, sizeof err)) seeds_ok = 0, printf("# seed %d: %s\n", i, err);
        else gpt_free(&m), adamw_free(&o);
        fclose(f);
    }
    check(seeds_ok, "fuzz: every unmutated seed checkpoint loads", "a seed was refused");
    Rng r;
    rng_seed(&r, seed);
    long refused = 0, loaded = 0, bad = 0;
    for (long it = 0; it < iters; it++) {
        Buf in = mutate(seeds, ns, &r);
        FILE *f = in.n ? fmemopen(in.b, in.n, "rb") : fopen("/dev/null", "rb");
        GPT m;
        char err[512] = "";
        AdamW o = {0};
        if (ckpt_read(f, "input", &m, NULL, &o, err, sizeof err)) {
            refused++;
            if (!err[0] || strchr(err, '\n')) { // a refusal must say why, in one line
                if (!bad) printf("# input %ld refused without a one-line reason: '%s'\n", it, err);
                bad++;
            }
        } else {
            loaded++;
            for (size_t k = 0; k < m.num_params; k++)
                if (!isfinite(m.params[k])) {
                    if (!bad) printf("# input %ld loaded a non-finite parameter\n", it);
                    bad++;
                    break;
                }
            gpt_free(&m);
            adamw_free(&o);
        }
        fclose(f);
        free(in.b);
    }
    char name[128];
    snprintf(name, sizeof name, "fuzz: %ld damaged checkpoints, %ld refused with a reason, %ld loaded, no crash", iters, refused, loaded);
    check(bad == 0, name, "%ld inputs loaded non-finite values or were refused without a reason", bad);
    for (int i = 0; i < ns; i++) free(seeds[i].b);
    return check_done();
}
