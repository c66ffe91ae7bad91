// task_batch.c - batches of task examples for training and validation. See task_batch.h.
#include "task_batch.h"
#include "positions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void taskdata_load(TaskData *d, const char *train_path) {
    memset(d, 0, sizeof *d);
    taskset_read(&d->set, train_path);
    int nval = d->set.n / 20;
    nval = nval < 1 ? 1 : nval > 2000 ? 2000 : nval;
    if (d->set.n < 2) die("task file '%s' has %d example; training needs at least 2 (one is held out)", train_path, d->set.n);
    d->ntrain = d->set.n - nval;
    d->longest = d->set.max_total;
}

// ---- fresh examples ----
static uint64_t mix64(uint64_t x) { // splitmix64's finalizer: a bijection
    x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27, x *= 0x94d049bb133111ebull;
    return x ^ x >> 31;
}
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void taskdata_fresh(TaskData *d, const char *dir, uint64_t seed) {
    char path[4200];
    task_spec_read(&d->spec, dir);
    if (!d->spec.split) { // without the split: test.txt's examples are the ones redrawn
        snprintf(path, sizeof path, "%s/test.txt", dir);
        TaskSet test;
        taskset_read(&test, path);
        d->test_hash = xmalloc((size_t)test.n * sizeof(uint64_t));
        for (int i = 0; i < test.n; i++)
            d->test_hash[i] = task_example_hash(test.ex[i].prompt, (size_t)(test.ex[i].nprompt + test.ex[i].nanswer));
        qsort(d->test_hash, (size_t)test.n, sizeof(uint64_t), cmp_u64);
        d->ntest = test.n;
        taskset_free(&test);
    }
    int most = task_max_bytes(&d->spec);
    d->buf = xmalloc((size_t)most + 1);
    d->fresh = 1, d->seed = seed;
    if (most > d->longest) d->longest = most;
}

void taskdata_free(TaskData *d) {
    taskset_free(&d->set);
    free(d->test_hash), free(d->buf);
    memset(d, 0, sizeof *d);
}

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

// example x into row b of a batch: its bytes, targets, length, and (rand_max > 0) random positions
static void put_row(const TaskExample *x, int b, int T, int rand_max, Rng *rng, int *tok, int *tgt, int *pos, int *len) {
    if (len) len[b] = x->nprompt + x->nanswer;
    task_row(x, T, tok + (size_t)b * T, tgt + (size_t)b * T);
    if (rand_max) random_row(x, T, rand_max, rng, pos + (size_t)b * T);
}

void task_draw(const TaskData *d, Rng *rng, int B, int T, int rand_max, int *tok, int *tgt, int *pos, int *len) {
    for (int b = 0; b < B; b++) put_row(&d->set.ex[rng_below(rng, (uint64_t)d->ntrain)], b, T, rand_max, rng, tok, tgt, pos, len);
    if (!rand_max) positions_draw(pos, B, T, 0, 0, rng);
}

// a fresh example from rng into d->buf, split into x: with the split (task.txt: split = hash),
// one of the training class at a uniform length (a length with none: another length); without,
// redrawn, length and all, while it is a test example
static void fresh_example(const TaskData *d, Rng *rng, TaskExample *x) {
    const TaskSpec *s = &d->spec;
    for (int tries = 0; tries < TASK_FRESH_TRIES; tries++) {
        int n = 1 + (int)rng_below(rng, (uint64_t)s->max_len), depth = (int)rng_below(rng, 101), bytes;
        if (s->split) {
            bytes = task_make_class(s, d->buf, (size_t)task_max_bytes(s) + 1, n, depth / 100.0, TASK_CLASS_TRAIN, rng);
            if (bytes < 0) continue;
        } else {
            bytes = task_make(s, d->buf, (size_t)task_max_bytes(s) + 1, n, depth / 100.0, rng);
            uint64_t h = task_example_hash(d->buf, (size_t)bytes);
            if (bsearch(&h, d->test_hash, (size_t)d->ntest, sizeof h, cmp_u64)) continue;
        }
        const char *sep = strchr(d->buf, TASK_SEP);
        *x = (TaskExample){.len = n, .depth_pct = depth, .prompt = d->buf, .nprompt = (int)(sep + 1 - d->buf), .answer = sep + 1,
                           .nanswer = (int)(d->buf + bytes - sep - 1)};
        return;
    }
    if (s->split)
        die("task %s: %d lengths drawn in a row had no example of the training class (task.txt: split = hash): the lengths "
            "1..%d hold too few examples; make the task with a larger --max-len (posgpt task gen)", s->task->name, TASK_FRESH_TRIES,
            s->max_len);
    die("task %s: %d fresh examples in a row were test examples; the test set holds (nearly) every example of lengths 1..%d: "
        "make the task with a larger --max-len or a smaller --test-per-len (posgpt task gen)", s->task->name, TASK_FRESH_TRIES,
        s->max_len);
}

void task_draw_fresh(const TaskData *d, long step, int B, int T, int rand_max, int *tok, int *tgt, int *pos, int *len) {
    for (int b = 0; b < B; b++) {
        Rng rng;
        rng_seed(&rng, mix64(mix64(mix64(d->seed ^ 0xf2e5a3c1d4b69807ull) + (uint64_t)step) + (uint64_t)b));
        TaskExample x;
        fresh_example(d, &rng, &x);
        put_row(&x, b, T, rand_max, &rng, tok, tgt, pos, len);
    }
    if (!rand_max) positions_draw(pos, B, T, 0, 0, NULL);
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
