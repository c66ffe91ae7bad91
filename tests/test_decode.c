// test_decode.c - decoding with a key/value cache gives the logits of the full forward, for
// every registered scheme (and random positions, a per-layer sharing, several feed sizes):
// a random model with weights well above init scale (so positions and the scheme's tensors
// matter), two sequences of 48 tokens; the full forward (gpt_forward, inference form) gives
// logits for every position; the decoder is fed a prompt of 17 tokens, then one token at a
// time (or 5 at a time), and after each feed its logits must equal the full forward's at the
// last token fed.
// Tolerance: both sides run the same float operations per row except the products' shapes
// (the full forward multiplies blocks of queries, the decoder a few rows; a BLAS kernel may
// sum in another order) and xPos's decay centre (per block of queries): every logit is a sum
// over the model's layers of float sums of at most 128 terms, so both sides carry a relative
// rounding of order 128 x 6e-8 ~ 1e-5 of the logit's magnitude; we allow 1e-4 relative to
// the largest logit (measured on Haswell and SkylakeX kernels: 4e-7 to 1.2e-6, CoPE, whose gates add up, 9e-6). A decoder that
// dropped a scheme's term, a cached row or a position is off by orders more (checked: the
// same comparison against the model with one position shifted fails).
// A rotary context extension at a fixed factor (what a checkpoint trained with one carries:
// pi, ntk, yarn; and rerope's window) decodes as the full forward with the same extension, at
// the same tolerance (the extension only changes the angles and YaRN's constant scale, computed
// the same way on both sides); one whose scale follows the window length (dynamic-ntk) is
// refused with an error that names --no-cache.
#include "check.h"
#include "decode.h"
#include "positions.h"
#include "random_model.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { B = 2, T = 48, PROMPT = 17, V = 256 };

static void build(GPT *m, const char *scheme, int sharing, int rows) {
    GPTConfig cfg = {.V = V, .C = 32, .L = 2, .NH = 2, .T = T, .pos_rows = rows, .scheme_sharing = sharing};
    snprintf(cfg.scheme, sizeof cfg.scheme, "%s", scheme);
    pos_default_hypers(pos_find(scheme), cfg.scheme_hp);
    if (!strcmp(scheme, "shaw")) cfg.scheme_hp[0] = 8; // clipped within the window
    Rng rng;
    rng_seed(&rng, 11);
    random_model(m, &cfg, 5, &rng);
}

// the full forward's logits (B, T, V) at positions pos (B, T)
static void full_logits(GPT *m, const int *tok, const int *pos, double *out) {
    gpt_alloc(m, B, T, 0);
    gpt_forward(m, tok, NULL, pos);
    size_t C = m->cfg.C;
    const real *wte = m->params + m->offsets[P_WTE];
    for (size_t n = 0; n < (size_t)B * T; n++)
        for (int v = 0; v < V; v++) {
            double s = 0;
            for (size_t e = 0; e < C; e++) s += (double)m->lnf[n * C + e] * wte[(size_t)v * C + e];
            out[n * V + v] = s;
        }
}

// decode tok (B, T) at positions pos: a prompt, then `step` tokens per feed; the logits after
// each feed, at the last token fed, against ref; returns the largest |difference| relative
// to the largest |logit|
static double decode_vs(GPT *m, const int *tok, const int *pos, int step, const double *ref) {
    Decoder d;
    decoder_init(&d, m, B, T, PROMPT > step ? PROMPT : step);
    int t[B * PROMPT], p[B * PROMPT];
    double worst = 0, big = 1e-30;
    for (size_t i = 0; i < (size_t)B * T * V; i++) big = fabs(ref[i]) > big ? fabs(ref[i]) : big;
    for (int n = 0; n < T;) {
        int nq = n == 0 ? PROMPT : (T - n < step ? T - n : step);
        for (int b = 0; b < B; b++)
            for (int i = 0; i < nq; i++) t[b * nq + i] = tok[b * T + n + i], p[b * nq + i] = pos[b * T + n + i];
        const real *lg = decoder_feed(&d, t, p, nq);
        n += nq;
        for (int b = 0; b < B; b++)
            for (int v = 0; v < V; v++) {
                double e = fabs(lg[(size_t)b * V + v] - ref[((size_t)b * T + n - 1) * V + v]) / big;
                worst = e > worst ? e : worst;
            }
    }
    decoder_free(&d);
    return worst;
}

// decoder_init in a child process: its exit status and what it wrote to stderr
static int init_in_child(GPT *m, char *msg, size_t n) {
    int fd[2], st = -1;
    if (pipe(fd)) return -1;
    fflush(stdout), fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2), close(fd[0]);
        Decoder d;
        decoder_init(&d, m, B, T, PROMPT);
        _exit(0);
    }
    close(fd[1]);
    size_t got = 0;
    for (ssize_t k; got < n - 1 && (k = read(fd[0], msg + got, n - 1 - got)) > 0;) got += (size_t)k;
    msg[got] = 0;
    close(fd[0]);
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// rope and xpos with each context extension in force (fixed factor 3 from the training length
// 16: positions up to 48 are 3x that length; rerope with a window of 8 < the distances)
static void test_extensions(const int *tok, const int *pos, double *ref) {
    const char *schemes[] = {"rope", "xpos"};
    const PosExtension ext[] = {{.method = "pi", .factor = 3, .train_len = 16}, {.method = "ntk", .factor = 3, .train_len = 16},
                                {.method = "yarn", .factor = 3, .train_len = 16}, {.method = "rerope", .train_len = 16, .window = 8}};
    char err[1024], what[200];
    for (int k = 0; k < 2; k++)
        for (int e = 0; e < 4; e++) {
            GPT m;
            build(&m, schemes[k], POS_SHARING_PAPER, 8 * T);
            if (!pos_has_extension(m.sch[0].scheme, ext[e].method)) { gpt_free(&m); continue; } // xpos: no rerope
            if (gpt_extend(&m, &ext[e], err, sizeof err)) die("%s", err);
            full_logits(&m, tok, pos, ref);
            double e1 = decode_vs(&m, tok, pos, 1, ref), e5 = decode_vs(&m, tok, pos, 5, ref);
            gpt_extend(&m, &(PosExtension){.method = "none"}, err, sizeof err); // the comparison sees the extension
            double plain = decode_vs(&m, tok, pos, 1, ref);
            snprintf(what, sizeof what, "decode [%s + %s, fixed] = the full forward with the extension (and differs without it)",
                     schemes[k], ext[e].method);
            check(e1 <= 1e-4 && e5 <= 1e-4 && plain > 1e-3, what, "relative difference %.3g (1 a feed), %.3g (5 a feed); without %.3g",
                  e1, e5, plain);
            gpt_free(&m);
        }
    GPT m;
    build(&m, "rope", POS_SHARING_PAPER, 8 * T);
    gpt_extend(&m, &(PosExtension){.method = "dynamic-ntk", .train_len = 16}, err, sizeof err);
    int rc = init_in_child(&m, err, sizeof err);
    check(rc == 1 && strstr(err, "--no-cache") && strstr(err, "follows the window length"),
          "decode refuses dynamic-ntk (its scale follows the length) with an error naming --no-cache", "exit %d: %s", rc, err);
    gpt_free(&m);
}

int main(void) {
    int tok[B * T], pos[B * T], rpos[B * T];
    Rng rng;
    rng_seed(&rng, 3);
    for (int i = 0; i < B * T; i++) tok[i] = (int)rng_below(&rng, V), pos[i] = i % T;
    positions_draw(rpos, B, T, 0, 8 * T, &rng); // sorted random positions from [0, 8T)
    double *ref = malloc((size_t)B * T * V * sizeof(double));
    for (int k = 0; k < pos_count(); k++) {
        const char *name = pos_at(k)->name;
        GPT m;
        build(&m, name, POS_SHARING_PAPER, 8 * T);
        char what[160];
        full_logits(&m, tok, pos, ref);
        double e1 = decode_vs(&m, tok, pos, 1, ref), e5 = decode_vs(&m, tok, pos, 5, ref);
        snprintf(what, sizeof what, "decode [%s]: prompt of %d, then 1 and 5 tokens a feed, = the full forward's logits", name, PROMPT);
        check(e1 <= 1e-4 && e5 <= 1e-4, what, "largest relative difference %.3g (1 a feed), %.3g (5 a feed)", e1, e5);
        full_logits(&m, tok, rpos, ref);
        double er = decode_vs(&m, tok, rpos, 1, ref);
        snprintf(what, sizeof what, "decode [%s] at sorted random positions = the full forward", name);
        check(er <= 1e-4, what, "largest relative difference %.3g", er);
        if (k == 0) { // the comparison is not blind: a decoder fed shifted positions differs
            int shifted[B * T];
            for (int i = 0; i < B * T; i++) shifted[i] = pos[i] + (i % T == T - 1);
            full_logits(&m, tok, pos, ref);
            double es = decode_vs(&m, tok, shifted, 1, ref);
            check(es > 1e-3, "decode: the comparison sees one position shifted", "relative difference only %.3g", es);
        }
        gpt_free(&m);
    }
    const char *per_layer[] = {"t5", "fire", "xl"}; // every tensor one per layer
    for (int k = 0; k < 3; k++) {
        GPT m;
        build(&m, per_layer[k], POS_SHARING_LAYER, 8 * T);
        full_logits(&m, tok, pos, ref);
        char what[160];
        snprintf(what, sizeof what, "decode [%s, one tensor set per layer] = the full forward", per_layer[k]);
        double e = decode_vs(&m, tok, pos, 1, ref);
        check(e <= 1e-4, what, "largest relative difference %.3g", e);
        gpt_free(&m);
    }
    test_extensions(tok, pos, ref);
    free(ref);
    return check_done();
}
