// task_batch.c - batches of task examples for training and validation. See task_batch.h.
#include "task_batch.h"
#include "positions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void taskdata_load(TaskData *d, const char *train_path) {
    taskset_read(&d->set, train_path);
    int nval = d->set.n / 20;
    nval = nval < 1 ? 1 : nval > 2000 ? 2000 : nval;
    if (d->set.n < 2) die("task file '%s' has %d example; training needs at least 2 (one is held out)", train_path, d->set.n);
    d->ntrain = d->set.n - nval;
}

void taskdata_free(TaskData *d) { taskset_free(&d->set); }

void task_row(const TaskExample *x, int T, int *tok, int *tgt) {
    int len = x->nprompt + x->nanswer;
    if (len > T) die("internal: a task example of %d bytes in a row of %d", len, T);
    for (int t = 0; t < T; t++) {
        tok[t] = t < x->nprompt ? (unsigned char)x->prompt[t] : t < len ? (unsigned char)x->answer[t - x->nprompt] : TASK_PAD;
        // position t predicts byte t + 1: scored for the answer's bytes, nprompt .. len - 1
        tgt[t] = t + 1 >= x->nprompt && t + 1 < len ? (unsigned char)x->answer[t + 1 - x->nprompt] : GPT_NO_TARGET;
    }
}

// example x's random positions into row p (T): sorted draws for its bytes, the padding at the last
static void random_row(const TaskExample *x, int T, int rand_max, Rng *rng, int *p) {
    int len = x->nprompt + x->nanswer;
    positions_draw(p, 1, len, 0, rand_max, rng);
    for (int t = len; t < T; t++) p[t] = p[len - 1];
}

void task_example_positions(const TaskExample *x, long idx, uint64_t seed, int rand_max, int T, int *p) {
    Rng rng;
    rng_seed(&rng, seed ^ (uint64_t)(idx + 1) * 0x9E3779B97F4A7C15ull);
    random_row(x, T, rand_max, &rng, p);
}

void task_draw(const TaskData *d, Rng *rng, int B, int T, int rand_max, int *tok, int *tgt, int *pos, int *len) {
    for (int b = 0; b < B; b++) {
        const TaskExample *x = &d->set.ex[rng_below(rng, (uint64_t)d->ntrain)];
        if (len) len[b] = x->nprompt + x->nanswer;
        task_row(x, T, tok + (size_t)b * T, tgt + (size_t)b * T);
        if (rand_max) random_row(x, T, rand_max, rng, pos + (size_t)b * T);
    }
    if (!rand_max) positions_draw(pos, B, T, 0, 0, rng);
}

double task_val_loss(const GPT *m, const TaskData *d, int B, int T, int rand_max, volatile sig_atomic_t *stop) {
    int *tok = xmalloc((size_t)B * T * sizeof(int)), *tgt = xmalloc((size_t)B * T * sizeof(int));
    int *pos = rand_max ? xmalloc((size_t)B * T * sizeof(int)) : NULL;
    double sum = 0;
    long scored = 0;
    GPT v; // inference activations of its own: the training buffers stay as they are
    gpt_view(&v, m);
    gpt_alloc(&v, B, T, 0);
    for (int i = d->ntrain; i < d->set.n && !(stop && *stop); i += B) {
        int nb = d->set.n - i < B ? d->set.n - i : B;
        for (int b = 0; b < B; b++) {
            int k = i + (b < nb ? b : 0);
            task_row(&d->set.ex[k], T, tok + (size_t)b * T, tgt + (size_t)b * T);
            if (pos) task_example_positions(&d->set.ex[k], k, 1, rand_max, T, pos + (size_t)b * T);
        }
        for (int b = nb; b < B; b++) // a short last batch: the filler rows are not scored
            for (int t = 0; t < T; t++) tgt[(size_t)b * T + t] = GPT_NO_TARGET;
        gpt_forward(&v, tok, tgt, pos);
        for (int n = 0; n < B * T; n++)
            if (tgt[n] != GPT_NO_TARGET) sum += v.losses[n], scored++;
    }
    gpt_free(&v);
    free(tok), free(tgt), free(pos);
    return stop && *stop ? NAN : scored ? sum / scored : NAN;
}
