// settings.c - a resumed run keeps its settings, a run started from a checkpoint keeps its
// model: a flag that would change either is an error naming the value in force (train.h).
#include "train.h"

#include <stdlib.h>
#include <string.h>

static void conflict(const Origin *o, const char *flag, const char *given, const char *run) {
    if (o->init_from)
        die("--%s %s conflicts with the checkpoint '%s' (--init-from), which has --%s %s; a run started from a checkpoint "
            "keeps its model (drop the flag)", flag, given, o->where, flag, run);
    die("--%s %s conflicts with the run in '%s', which has --%s %s; a resumed run keeps its settings (drop the flag to "
        "continue it as it was, or start a new run with another --out)", flag, given, o->where, flag, run);
}
static void same_int(const Origin *o, const char *flag, long given, long run) {
    char a[32], b[32];
    if (!args_given(flag) || given == run) return;
    snprintf(a, sizeof a, "%ld", given), snprintf(b, sizeof b, "%ld", run);
    conflict(o, flag, a, b);
}
static void same_num(const Origin *o, const char *flag, double given, double run) {
    char a[40], b[40];
    if (!args_given(flag) || given == run) return;
    snprintf(a, sizeof a, "%g", given), snprintf(b, sizeof b, "%g", run);
    if (!strcmp(a, b)) snprintf(a, sizeof a, "%.17g", given), snprintf(b, sizeof b, "%.17g", run); // 0.1 vs 0.1000001
    conflict(o, flag, a, b);
}
static void same_str(const Origin *o, const char *flag, const char *given, const char *run) {
    if (args_given(flag) && strcmp(given, run)) conflict(o, flag, given, run);
}

void settings_check_model(const Origin *o, const TrainArgs *a, const HyperArgs *hyp, const GPT *m, const TrainState *ts) {
    const GPTConfig *c = &m->cfg;
    const PosScheme *s = gpt_scheme(m, 0)->scheme;
    same_str(o, "pos", a->pos, c->scheme);
    same_str(o, "pos-sharing", a->pos_sharing, pos_sharing_name(c->scheme_sharing));
    if (!o->init_from) { // positions are a training setting: a new run may choose others
        if (a->randomized && !ts->rand_max) conflict(o, "pos", "randomized", c->scheme); // (sinusoidal at random positions)
        same_str(o, "positions", a->positions, ts->rand_max ? "random" : "contiguous");
        same_int(o, "rand-max", a->rand_max, ts->rand_max);
    }
    if (a->max_pos) same_int(o, "max-pos", a->max_pos, c->pos_rows);
    same_int(o, "layers", a->layers, c->L), same_int(o, "d-model", a->d_model, c->C), same_int(o, "heads", a->heads, c->NH);
    for (int i = 0; i < hyp->n; i++) {
        char name[128];
        size_t len = strcspn(hyp->name[i], "=");
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), hyp->name[i]);
        int k = pos_hyper_index(s, name);
        if (k < 0) die("--%s is not a hyperparameter of the run's scheme '%s' (in '%s')", name, s->name, o->where);
        if (hyp->value[i] != c->scheme_hp[k]) {
            char x[40], y[40];
            snprintf(x, sizeof x, "%g", hyp->value[i]), snprintf(y, sizeof y, "%g", c->scheme_hp[k]);
            conflict(o, name, x, y);
        }
    }
}

void settings_check_resume(const Origin *o, const TrainArgs *a, const HyperArgs *hyp, const GPT *m, const TrainState *ts) {
    settings_check_model(o, a, hyp, m, ts);
    same_int(o, "seq-len", a->seq_len, m->cfg.T);
    if (args_given("rope-scaling")) same_str(o, "rope-scaling", a->rope_scaling, m->cfg.ext_method[0] ? m->cfg.ext_method : "none");
    if (args_given("rope-factor") && m->cfg.ext_method[0]) same_num(o, "rope-factor", a->rope_factor, m->cfg.ext_factor);
    if (args_given("rope-factor") && !m->cfg.ext_method[0])
        die("--rope-factor %g: the run in '%s' trains without a context extension (no --rope-scaling), and a resumed run keeps "
            "its settings (drop the flag)", a->rope_factor, o->where);
    same_int(o, "batch", a->batch, ts->batch);
    if (args_given("steps") && a->steps < ts->steps) // more steps extend the run (cmd_train.c: extend_run)
        die("--steps %d is fewer than the %d of the run in '%s'; a resumed run can be extended (a larger --steps), not cut "
            "short (--stop-at stops it early)", a->steps, ts->steps, o->where);
    same_int(o, "warmup", a->warmup >= 0 ? a->warmup : a->steps / 20, ts->warmup);
    same_num(o, "lr", a->lr, ts->lr), same_num(o, "min-lr-frac", a->min_lr_frac, ts->min_lr_frac);
    same_num(o, "wd", a->wd, ts->wd), same_num(o, "beta1", a->beta1, ts->beta1), same_num(o, "beta2", a->beta2, ts->beta2);
    same_num(o, "eps", a->eps, ts->eps), same_num(o, "clip", a->clip, ts->clip);
    same_num(o, "pos-lr-mult", a->pos_lr_mult, ts->pos_lr_mult);
    same_str(o, "precision", a->precision, ts->bf16 ? "bf16" : "fp32");
    if (args_given("seed") && (uint64_t)a->seed != ts->seed) {
        char x[32], y[32];
        snprintf(x, sizeof x, "%ld", a->seed), snprintf(y, sizeof y, "%llu", (unsigned long long)ts->seed);
        conflict(o, "seed", x, y);
    }
    const RunRecord *r = &ts->run;
    if (r->data_bytes) { // recorded (format v2 on); a v1 checkpoint takes these from the flags
        same_int(o, "eval-every", a->eval_every, r->eval_every), same_int(o, "val-tokens", a->val_tokens, r->val_tokens);
        same_int(o, "ckpt-every", a->ckpt_every, r->ckpt_every), same_int(o, "log-every", a->log_every, r->log_every);
        same_int(o, "keep-every", a->keep_every, r->keep_every);
        same_num(o, "until-acc", a->until_acc, r->until_acc), same_int(o, "after-learn", a->after_learn, r->after_learn);
    }
    if (args_given("overwrite")) die("--overwrite and --resume contradict each other: --resume continues the run in '%s'", o->where);
}

void settings_record_run(RunRecord *r, const TrainArgs *a, const Corpus *corpus) {
    memset(r, 0, sizeof *r);
    for (int k = 0; k < 2; k++) {
        const char *p = k ? a->val : a->data;
        char *dst = k ? r->val : r->data, *abs = p ? realpath(p, NULL) : NULL;
        if (abs && strlen(abs) < CKPT_PATH_BYTES) snprintf(dst, CKPT_PATH_BYTES, "%s", abs);
        free(abs);
    }
    r->data_bytes = corpus->data_bytes, r->data_crc = corpus->data_crc;
    r->val_bytes = corpus->val_bytes, r->val_crc = corpus->val_crc;
    r->eval_every = a->eval_every, r->ckpt_every = a->ckpt_every, r->log_every = a->log_every;
    r->skip_nonfinite = a->skip_nonfinite, r->val_tokens = a->val_tokens, r->task = a->task != NULL;
    r->pack = a->task && a->pack, r->fresh = a->task && a->fresh, r->keep_every = a->keep_every;
    r->until_acc = a->task ? a->until_acc : 0, r->after_learn = r->until_acc > 0 ? a->after_learn : 0;
}

static void same_text(const Origin *o, const char *what, const char *path, uint64_t bytes, uint32_t crc, uint64_t rbytes,
                      uint32_t rcrc, const char *rpath) {
    if (bytes == rbytes && crc == rcrc) return;
    die("%s '%s' (%llu bytes, CRC-32 %08x) is not the text the run in '%s' trained on ('%s', %llu bytes, CRC-32 %08x); "
        "a resumed run must read the same text", what, path, (unsigned long long)bytes, crc, o->where, rpath[0] ? rpath : "?",
        (unsigned long long)rbytes, rcrc);
}

void settings_check_text(const Origin *o, const TrainArgs *a, const Corpus *corpus, const RunRecord *r) {
    same_text(o, r->task ? "the task's examples" : "--data", a->data, corpus->data_bytes, corpus->data_crc, r->data_bytes,
              r->data_crc, r->data);
    if (a->val) same_text(o, "--val", a->val, corpus->val_bytes, corpus->val_crc, r->val_bytes, r->val_crc, r->val);
}
