// evaluate.c - held-out scoring at a window length. See evaluate.h.
// Window k starts at byte k*stride: inputs text[s .. s+L), targets text[s+1 .. s+L+1).
// The first window scores all L targets, later ones their last `stride` (Press et al. 2022,
// App. B), so every target in the span is scored exactly once. Only whole windows are used.
#include "evaluate.h"

#include "cli.h"
#include "positions.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void evaluate(const GPT *m, const uint8_t *text, size_t n, const EvalSpec *sp, int want_pos, EvalResult *r) {
    int L = sp->len, S = sp->stride;
    if (L < 1) die("evaluation length must be >= 1");
    if (S < 1 || S > L) die("--stride must be in [1, length=%d], got %d", L, S);
    size_t span = n; // bytes usable: at most max_tokens targets
    if (sp->max_tokens > 0 && (size_t)sp->max_tokens + 1 < span) span = (size_t)sp->max_tokens + 1;
    if (span < (size_t)L + 1)
        die("held-out text has %zu usable bytes; length %d needs at least %d (use a longer --val/--data, or raise --max-tokens)",
            span, L, L + 1);
    long K = 1 + (long)((span - 1 - L) / S); // windows
    int B = sp->batch < 1 ? 1 : sp->batch;
    if (B > K) B = (int)K;

    char what[96];
    snprintf(what, sizeof what, "evaluation at length %d (%d window%s per pass)", L, B, B == 1 ? "" : "s");
    require_memory(gpt_alloc_bytes(&m->cfg, B, L, 0, omp_get_max_threads()) + (want_pos ? 16.0 * L : 0), what,
                   "evaluate shorter lengths, or lower --batch-tokens");
    GPT v;
    gpt_view(&v, m);
    gpt_alloc(&v, B, L, 0);
    int *tok = xmalloc((size_t)B * L * sizeof(int)), *tgt = xmalloc((size_t)B * L * sizeof(int));
    int *pos = xmalloc((size_t)B * L * sizeof(int));
    Rng rng;
    rng_seed(&rng, sp->seed);
    memset(r, 0, sizeof *r);
    if (want_pos) {
        r->pos_loss = xcalloc((size_t)L, sizeof(double));
        r->pos_count = xcalloc((size_t)L, sizeof(long));
    }
    if (sp->per_window) r->win_loss = xcalloc((size_t)K, sizeof(double)), r->win_tokens = xcalloc((size_t)K, sizeof(long));
    double sum = 0.0;
    double t0 = now_seconds(), last = t0;
    for (long k0 = 0; k0 < K; k0 += B) {
        if (sp->stop && *sp->stop) {
            r->stopped = 1;
            break;
        }
        int nb = (int)(K - k0 < B ? K - k0 : B);
        if (nb != v.B) gpt_alloc(&v, nb, L, 0);
        for (int b = 0; b < nb; b++) {
            size_t s = (size_t)(k0 + b) * S;
            for (int t = 0; t < L; t++) tok[b * L + t] = text[s + t], tgt[b * L + t] = text[s + t + 1];
        }
        positions_draw(pos, nb, L, sp->offset, sp->rand_max, &rng);
        gpt_forward(&v, tok, tgt, pos);
        for (int b = 0; b < nb; b++) {
            int first = (k0 + b == 0) ? 0 : L - S;
            double wsum = 0;
            for (int t = first; t < L; t++) {
                double l = v.losses[b * L + t];
                sum += l, wsum += l;
                if (want_pos) r->pos_loss[t] += l, r->pos_count[t]++;
            }
            if (r->win_loss) r->win_loss[k0 + b] = wsum, r->win_tokens[k0 + b] = L - first;
            r->tokens += L - first;
        }
        r->windows += nb;
        double now = now_seconds();
        if (sp->progress && (now - last > 1.0 || k0 + nb == K)) {
            double el = now - t0, rate = (k0 + nb) / el;
            fprintf(stderr, "%s  eval L=%d: window %ld/%ld  %.0f tok/s  ETA %.0fs%s", isatty(2) ? "\r" : "", L,
                    k0 + nb, K, rate * L, (K - k0 - nb) / rate, isatty(2) ? "   " : "\n");
            last = now;
        }
    }
    if (sp->progress && isatty(2)) fprintf(stderr, "\n");
    r->loss = r->tokens ? sum / (double)r->tokens : NAN;
    if (want_pos)
        for (int t = 0; t < L; t++) r->pos_loss[t] = r->pos_count[t] ? r->pos_loss[t] / r->pos_count[t] : NAN;
    free(tok), free(tgt), free(pos);
    gpt_free(&v);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

long eval_ci_block(long windows) {
    long b = lround(cbrt((double)windows));
    return b < 1 ? 1 : b > windows ? windows : b;
}

void eval_bootstrap_ci(const EvalResult *r, int resamples, long block, uint64_t seed, double *lo, double *hi) {
    long K = r->windows;
    if (!r->win_loss || K < 2 || resamples < 1) { // one window: no spread to resample (nan, not a zero-width interval)
        *lo = *hi = NAN;
        return;
    }
    if (block < 1) block = 1;
    if (block > K) block = K;
    double *means = xmalloc((size_t)resamples * sizeof(double));
    Rng rng;
    rng_seed(&rng, seed);
    for (int b = 0; b < resamples; b++) {
        double sum = 0, tokens = 0;
        for (long k = 0; k < K;) { // (block 1: one draw a window, as before blocks)
            long w = (long)rng_below(&rng, (uint64_t)K);
            for (long j = 0; j < block && k < K; j++, k++, w = w + 1 < K ? w + 1 : 0)
                sum += r->win_loss[w], tokens += r->win_tokens[w];
        }
        means[b] = sum / tokens;
    }
    qsort(means, (size_t)resamples, sizeof(double), cmp_double);
    // the 2.5% and 97.5% order statistics (resamples 1000: the 25th and the 975th)
    int i = (int)floor(0.025 * resamples), j = (int)ceil(0.975 * resamples) - 1;
    *lo = means[i], *hi = means[j < i ? i : j];
    free(means);
}
