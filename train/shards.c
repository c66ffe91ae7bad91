// shards.c - see shards.h.
#include "shards.h"

#include "dist.h"
#include "pack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *shards_check(int S, int B, int procs, char *err, size_t n) {
    if (S < 1 || S > SHARDS_MAX || (S & (S - 1)))
        snprintf(err, n, "--grad-shards %d: the number of gradient shards is a power of two from 1 to %d", S, SHARDS_MAX);
    else if (S % procs)
        snprintf(err, n, "--grad-shards %d: every one of the %d processes needs a whole number of shards; give a multiple of %d",
                 S, procs, procs);
    else if (B % S)
        snprintf(err, n, "--batch %d cannot be cut into %d gradient shards of equal size; give a batch that is a multiple of %d",
                 B, S, S);
    else return NULL;
    return err;
}

void shards_init(Shards *sh, int S, size_t n) {
    memset(sh, 0, sizeof *sh);
    sh->S = S, sh->n = n;
    sh->count = S / dist_size(), sh->first = dist_rank() * sh->count;
    if (sh->count > 1) {
        int levels = 1;
        while ((1 << (levels - 1)) < sh->count) levels++; // log2(count) + 1: the waiting partial sums and the shard under way
        for (int l = 0; l < levels; l++) sh->buf[l] = xmalloc(n * sizeof(real));
    }
    if (dist_size() > 1) sh->scratch = xmalloc(n * sizeof(real));
}

void shards_free(Shards *sh) {
    for (int l = 0; l < 16; l++) free(sh->buf[l]);
    free(sh->scratch);
    free(sh->ptok), free(sh->ptgt), free(sh->ppos), free(sh->pseg);
    memset(sh, 0, sizeof *sh);
}

// the gradient of shard s into m->grads, and its loss sum
static double one_shard(Shards *sh, GPT *m, int s, int Bs, int T, const int *tok, const int *tgt, const int *pos, const int *len) {
    size_t o = (size_t)s * Bs * T;
    memset(m->grads, 0, m->num_params * sizeof(real));
    if (len) {
        size_t n = (size_t)m->B * m->T * sizeof(int);
        if (!sh->ptok) sh->ptok = xmalloc(n), sh->ptgt = xmalloc(n), sh->ppos = xmalloc(n), sh->pseg = xmalloc(n);
        int rows = pack_rows(tok + o, tgt + o, pos ? pos + o : NULL, len + (size_t)s * Bs, Bs, T, m->T, m->B, sh->ptok, sh->ptgt,
                             sh->ppos, sh->pseg);
        sh->pack_rows += rows, sh->pack_examples += Bs;
        gpt_forward_packed(m, sh->ptok, sh->ptgt, sh->ppos, sh->pseg, rows);
    } else gpt_forward(m, tok + o, tgt + o, pos ? pos + o : NULL);
    gpt_backward(m);
    return m->loss_sum;
}

double shards_gradient(Shards *sh, GPT *m, int B, int T, const int *tok, const int *tgt, const int *pos, const int *len) {
    int Bs = B / sh->S;
    if (len ? m->B > Bs || m->T < T : m->B != Bs || m->T != T)
        die("internal: the model's activations are for %d rows of %d, a shard has %d of %d", m->B, m->T, Bs, T);
    long scored = 0;
    for (long i = 0; i < (long)B * T; i++) scored += tgt[i] != GPT_NO_TARGET;
    m->loss_denom = scored;
    if (!m->grads) gpt_zero_grad(m);
    double sums[SHARDS_MAX], all[SHARDS_MAX];
    if (sh->count == 1) sums[0] = one_shard(sh, m, sh->first, Bs, T, tok, tgt, pos, len);
    else { // the local tree, as a binary counter: a partial sum of 2^k shards waits at level k for its sibling
        real *own = m->grads, *stack[16], *freeb[16];
        int level[16], depth = 0, nfree = 0;
        for (int l = 15; l >= 0; l--)
            if (sh->buf[l]) freeb[nfree++] = sh->buf[l];
        for (int i = 0; i < sh->count; i++) {
            real *g = freeb[--nfree];
            m->grads = g;
            sums[i] = one_shard(sh, m, sh->first + i, Bs, T, tok, tgt, pos, len);
            int lv = 0;
            while (depth && level[depth - 1] == lv) { // left sibling + this one
                real *left = stack[--depth];
#pragma omp parallel for schedule(static)
                for (size_t j = 0; j < sh->n; j++) left[j] = left[j] + g[j];
                freeb[nfree++] = g, g = left, lv++;
            }
            stack[depth] = g, level[depth++] = lv;
        }
        m->grads = own;
        memcpy(own, stack[0], sh->n * sizeof(real));
    }
    m->loss_denom = 0;
    if (dist_size() > 1) sh->comm_s += dist_tree_sum(m->grads, sh->n, sh->scratch);
    sh->steps++;
    dist_allgather(sums, sh->count, all);
    double total = 0;
    for (int s = 0; s < sh->S; s++) total += all[s];
    return scored ? total / scored : 0.0;
}
