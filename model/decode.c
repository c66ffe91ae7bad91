// decode.c - incremental decoding with a key/value cache. See decode.h.
// A feed of nq tokens per sequence runs the forward pass of gpt_forward on those rows only:
// embedding (and an input scheme), then per layer LayerNorm, the qkv projection and the
// scheme's rotation for the new rows, which are appended to the layer's cache; attention of
// the new queries against every cached key (attention_forward_rows); the projections and the
// MLP; finally the logits of each sequence's last row.
#include "decode.h"

#include "layers.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define PARAM(m, i) ((m)->params + (m)->offsets[i])

static real *reals(size_t n) { return xmalloc((n ? n : 1) * sizeof(real)); }

double decoder_bytes(const GPTConfig *c, int B, int cap, int chunk) {
    double C = c->C, N = (double)B * chunk;
    return sizeof(real) * ((double)c->L * B * cap * 3 * C + N * (C * 11 + 4 * C * 2 + 2) + (double)B * c->V) +
           sizeof(int) * ((double)B * cap + 2 * N);
}

void decoder_init(Decoder *d, const GPT *m, int B, int cap, int chunk) {
    if (B < 1 || cap < 1 || chunk < 1 || chunk > cap) die("decoder: need B, cap >= 1 and 1 <= chunk <= cap (got %d, %d, %d)", B, cap, chunk);
    const PosState *ps = gpt_scheme(m, 0);
    const PosScheme *s = ps->scheme;
    // a fixed extension (a trained one: pi, ntk, yarn at a fixed factor; rerope's window) rotates every row
    // the same at any length; one whose scale follows the window length cannot be cached
    if (s->extension_value && s->extension_value(ps, 1) != s->extension_value(ps, cap > (1 << 20) ? cap : 1 << 20))
        die("decoding with a key/value cache does not take a context extension whose scale follows the window length "
            "(dynamic-ntk, or pi/ntk/yarn without a fixed factor): the cached keys would keep the scale of the length "
            "they were fed at; use --no-cache (posgpt sample), which recomputes each window at its own length, or posgpt eval");
    memset(d, 0, sizeof *d);
    size_t C = m->cfg.C, L = m->cfg.L, N = (size_t)B * chunk;
    d->m = m, d->B = B, d->cap = cap, d->chunk = chunk;
    d->pos = xmalloc((size_t)B * cap * sizeof(int));
    d->kv = reals(L * B * cap * 3 * C);
    d->tok = xmalloc(N * sizeof(int)), d->npos = xmalloc(N * sizeof(int));
    d->x = reals(N * C), d->ln = reals(N * C), d->mean = reals(N), d->rstd = reals(N);
    d->qkv = reals(N * 3 * C), d->atty = reals(N * C), d->proj = reals(N * C), d->mid = reals(N * C);
    d->fch = reals(N * 4 * C), d->fchg = reals(N * 4 * C);
    d->logits = reals((size_t)B * m->cfg.V);
}

void decoder_free(Decoder *d) {
    free(d->pos), free(d->kv), free(d->tok), free(d->npos), free(d->x), free(d->ln), free(d->mean), free(d->rstd);
    free(d->qkv), free(d->atty), free(d->proj), free(d->mid), free(d->fch), free(d->fchg), free(d->logits);
    memset(d, 0, sizeof *d);
}

void decoder_reset(Decoder *d) { d->n = 0; }

static const real *feed(Decoder *d, const int *tok, const int *pos, int nq);

// A feed of fewer rows than this runs on one thread. Its row loops have a row or two to share;
// a team could still split the attention's heads and a wide product's column bands, but every
// fork and join waits for each thread of the team to be scheduled: on a machine whose cores are
// busy that is a time slice per join, and decoding one token (dozens of joins) slowed from about
// 1000 to 3 tokens/s at config S (make bench beside two trainings). What a team gains on idle
// cores for one row at config S was not measured. Prefills and batched feeds keep the team.
#define DECODE_SERIAL_ROWS 8

const real *decoder_feed(Decoder *d, const int *tok, const int *pos, int nq) {
    int nt = omp_get_max_threads(), serial = d->B * nq < DECODE_SERIAL_ROWS && nt > 1;
    if (serial) omp_set_num_threads(1);
    const real *logits = feed(d, tok, pos, nq);
    if (serial) omp_set_num_threads(nt);
    return logits;
}

static const real *feed(Decoder *d, const int *tok, const int *pos, int nq) {
    const GPT *m = d->m;
    const GPTConfig *c = &m->cfg;
    int B = d->B, C = c->C, NH = c->NH, V = c->V, n0 = d->n, T = n0 + nq, N = B * nq;
    if (nq < 1 || nq > d->chunk) die("decoder: a feed takes 1 to %d tokens per sequence, got %d", d->chunk, nq);
    if (T > d->cap) die("decoder: %d tokens do not fit its %d", T, d->cap);
    const PosScheme *s = gpt_scheme(m, 0)->scheme;
    int lim = gpt_max_pos(m);
    for (int b = 0; b < B; b++)
        for (int i = 0; i < nq; i++) {
            int t = tok[b * nq + i], p = pos ? pos[b * nq + i] : n0 + i;
            if (t < 0 || t >= V) die("token id out of range [0, %d)", V);
            if (p < 0) die("position %d is negative", p);
            if (lim && p >= lim) {
                if (!m->clamp_pos)
                    die("position %d is beyond the %d positions the '%s' scheme serves (its table was sized at training time)",
                        p, lim, c->scheme);
                p = lim - 1;
            }
            d->tok[b * nq + i] = t, d->npos[b * nq + i] = p;
            d->pos[(size_t)b * d->cap + n0 + i] = p;
        }
    encoder_forward(d->x, d->tok, PARAM(m, P_WTE), N, C);
    if (s->input_forward) s->input_forward(gpt_scheme(m, 0), d->x, d->npos, N);
    layernorm_forward(d->ln, d->mean, d->rstd, d->x, PARAM(m, P_LN1W), PARAM(m, P_LN1B), N, C);
    for (int l = 0; l < c->L; l++) {
        const PosState *ps = gpt_scheme(m, l);
        real *kv = d->kv + (size_t)l * B * d->cap * 3 * C;
        linear_forward(d->qkv, d->ln, PARAM(m, P_QKVW) + (size_t)l * 3 * C * C, PARAM(m, P_QKVB) + l * 3 * C, N, C, 3 * C);
        if (s->qk_forward) {
            s->qk_forward(ps, d->qkv, d->npos, B, nq, 3 * C, 0);
            s->qk_forward(ps, d->qkv + C, d->npos, B, nq, 3 * C, 1);
        }
        for (int b = 0; b < B; b++)
            memcpy(kv + ((size_t)b * d->cap + n0) * 3 * C, d->qkv + (size_t)b * nq * 3 * C, (size_t)nq * 3 * C * sizeof(real));
        attention_forward_rows(d->atty, kv, d->pos, ps, B, T, d->cap, n0, C, NH, m->att_qblock);
        linear_forward(d->proj, d->atty, PARAM(m, P_ATTPW) + (size_t)l * C * C, NULL, N, C, C);
        residual_layernorm_forward(d->mid, d->ln, d->mean, d->rstd, d->x, d->proj, PARAM(m, P_ATTPB) + l * C,
                                   PARAM(m, P_LN2W) + l * C, PARAM(m, P_LN2B) + l * C, N, C);
        linear_forward(d->fch, d->ln, PARAM(m, P_FCW) + (size_t)l * 4 * C * C, NULL, N, C, 4 * C);
        bias_gelu_forward(d->fchg, NULL, d->fch, PARAM(m, P_FCB) + l * 4 * C, N, 4 * C);
        linear_forward(d->proj, d->fchg, PARAM(m, P_FCPW) + (size_t)l * 4 * C * C, NULL, N, 4 * C, C);
        int last = l == c->L - 1;
        residual_layernorm_forward(d->x, d->ln, d->mean, d->rstd, d->mid, d->proj, PARAM(m, P_FCPB) + l * C,
                                   last ? PARAM(m, P_LNFW) : PARAM(m, P_LN1W) + (l + 1) * C,
                                   last ? PARAM(m, P_LNFB) : PARAM(m, P_LN1B) + (l + 1) * C, N, C);
    }
    // logits of each sequence's last row (tied head): ln holds the final LayerNorm's output
    for (int b = 0; b < B; b++)
        gemm(0, 1, 1, V, C, 1, d->ln + ((size_t)b * nq + nq - 1) * C, C, PARAM(m, P_WTE), C, 0, d->logits + (size_t)b * V, V);
    d->n = T;
    return d->logits;
}
