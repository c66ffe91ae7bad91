// cmd_info.c - `posgpt info FILE`: a checkpoint's header, configuration and tensor table.
#include "args.h"
#include "ckpt.h"
#include "cli.h"
#include "fileio.h"
#include "posbias.h"
#include "rotary.h"
#include "task_batch.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Approximate training FLOPs per token, forward and backward (docs/usage.md): 6 N for the
// matmul parameters N (2 N forward, 4 N backward; the tied embedding counted once, as the output
// layer) plus 12 L T C for the attention scores and their weighted sum at the training length
// T (2 T C each per layer forward, every key counted as Hoffmann et al. 2022, App. F, count them,
// x 3 with the backward). The position scheme's own work (biases, rotations, FIRE's MLP) is not
// in it: pos_train_flops counts it, printed beside.
static double flops_per_token(const GPT *m) {
    const GPTConfig *c = &m->cfg;
    return 6.0 * (double)gpt_flop_params(m) + 12.0 * c->L * (double)c->T * c->C;
}

// a rotary context extension, pair by pair: the frequency each pair had, what the extension
// divides it by, and so whether it leaves the pair (1), interpolates it (s) or blends (between)
static void print_rotary_pairs(GPT *m, const char *method) {
    const PosState *ps = gpt_scheme(m, 0);
    const GPTConfig *c = &m->cfg;
    int K = ps->HS / 2, counts[3] = {0};
    double *orig = xmalloc((size_t)K * sizeof(double)), *eff = xmalloc((size_t)K * sizeof(double));
    double base = ps->hp[0]; // a rotary scheme's first hyperparameter is its base (rope-base, xpos-rope-base)
    double s = rotary_scale(ps, c->T);
    rotary_pair_freqs(ps, c->T, base, orig, eff);
    const char *cls[3] = {"left", "interpolated", "blended"};
    printf("rotary pairs    %s, s = %g from length %d (base %g): the factor each pair's frequency is divided by%s\n", method, s,
           c->ext_train_len ? c->ext_train_len : c->T, base, !strcmp(method, "yarn") ? " (and q, k scaled by 0.1 ln s + 1)" : "");
    printf("  %5s %14s %10s  %s\n", "pair", "wavelength", "scale", "class");
    for (int k = 0; k < K; k++) {
        double f = orig[k] / eff[k];
        int k3 = fabs(f - 1) <= 1e-9 ? 0 : fabs(f - s) <= 1e-9 * s ? 1 : 2;
        counts[k3]++;
        printf("  %5d %14.6g %10.6g  %s\n", k, 2 * M_PI / orig[k], f, cls[k3]);
    }
    printf("  (%d left, %d interpolated, %d blended; wavelength in positions, 2 pi / theta_k)\n", counts[0], counts[1], counts[2]);
    free(orig), free(eff);
}

// info --rope-scaling: the extension eval would apply to a rotary checkpoint (its own by default)
static void rotary_section(GPT *m, const char *scaling, double factor) {
    const GPTConfig *c = &m->cfg;
    const PosScheme *s = gpt_scheme(m, 0)->scheme;
    if (!scaling) {
        if (c->ext_method[0] && pos_has_extension(s, "pi")) print_rotary_pairs(m, c->ext_method);
        return;
    }
    if (strcmp(scaling, "pi") && strcmp(scaling, "ntk") && strcmp(scaling, "yarn"))
        die("info --rope-scaling %s: the pair table is for pi, ntk or yarn (whose scale does not depend on the window)", scaling);
    if (!pos_has_extension(s, scaling)) die("info --rope-scaling %s: scheme '%s' is not rotary", scaling, c->scheme);
    if (!(factor >= 1)) die("info --rope-scaling %s needs --rope-factor S >= 1 (the scale; eval takes it from the length)", scaling);
    char why[256];
    if (gpt_extend(m, &(PosExtension){.method = scaling, .factor = factor, .train_len = c->T}, why, sizeof why))
        die("--rope-scaling %s: %s", scaling, why);
    print_rotary_pairs(m, scaling);
}

// the value of the line "KEY = VALUE" of a config.txt (spaces around '=' optional, a CR at the end
// dropped), malloc'd, or NULL if no line sets KEY
static char *config_value(const char *text, const char *key) {
    size_t k = strlen(key);
    for (const char *l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        const char *p = l + strspn(l, " \t");
        if (strncmp(p, key, k)) continue;
        p += k + strspn(p + k, " \t");
        if (*p != '=') continue;
        p += 1 + strspn(p + 1, " \t");
        size_t n = strcspn(p, "\r\n");
        char *v = xmalloc(n + 1);
        memcpy(v, p, n), v[n] = 0;
        return v;
    }
    return NULL;
}

// info --bias-init: a run started from another checkpoint (train --init-from, which config.txt beside the
// checkpoint records) did not begin at its seed's initialisation: refused. Without a config.txt the
// checkpoint alone cannot say: a warning
static void refuse_init_from(const char *ckpt) {
    const char *slash = strrchr(ckpt, '/');
    char cfg[4200];
    snprintf(cfg, sizeof cfg, "%.*sconfig.txt", slash ? (int)(slash - ckpt + 1) : 0, ckpt);
    if (access(cfg, F_OK) != 0) {
        fprintf(stderr, "posgpt: warning: info --bias-init: no %s beside '%s', which would say whether its run began with "
                        "train --init-from; the table assumes it began from its seed's initialisation\n", cfg, ckpt);
        return;
    }
    size_t n;
    char *text = (char *)read_regular_file(cfg, "run configuration", 1 << 20, &n);
    char *from = config_value(text, "init_from");
    if (from)
        die("info --bias-init: the run of '%s' started from the checkpoint %s (%s: train --init-from), not from its seed's "
            "initialisation; its bias before training is that checkpoint's: posgpt info --bias FILE %s", ckpt, from, cfg, from);
    free(text);
}

// info --bias FILE: the scheme's score bias per head and distance (posbias.h); with --bias-init, of the
// model train began from, the parameters initialised again from the checkpoint's seed as train does
static void bias_section(GPT *m, const TrainState *ts, const char *path, int maxd, int at_init) {
    char what[96];
    if (at_init) {
        gpt_init(m, ts->seed);
        snprintf(what, sizeof what, "at initialisation: seed %llu, as train begins", (unsigned long long)ts->seed);
    } else snprintf(what, sizeof what, "trained, step %ld", ts->step);
    posbias_report(m, path, maxd ? maxd : 16 * m->cfg.T, what);
}

int cmd_info(int argc, char **argv) {
    const char *ckpt = NULL, *files[1], *scaling = NULL, *bias = NULL;
    double factor = 0;
    int maxd = 0, at_init = 0;
    ArgDef defs[] = {{"ckpt", ARG_STR, &ckpt, "the checkpoint (or give it as the only argument)"},
                     {"rope-scaling", ARG_STR, &scaling, "rotary checkpoints: list the channel pairs that pi, ntk or yarn at "
                                                         "--rope-factor would leave, interpolate or blend (default: the "
                                                         "checkpoint's own extension, if it has one)"},
                     {"rope-factor", ARG_FLOAT, &factor, "with --rope-scaling: the scale s", 0, 1e6},
                     {"bias", ARG_STR, &bias, "schemes that add a bias to the attention scores: write it to this CSV "
                                              "(layer,head,distance,bias) and print each head's largest |bias|"},
                     {"bias-max-dist", ARG_INT, &maxd, "with --bias: distances 0..N (default: 16 x the training length)", 1, 1000000},
                     {"bias-init", ARG_FLAG, &at_init, "with --bias: the bias at initialisation (the parameters initialised "
                                                       "again from the checkpoint's seed, as train began)"},
                     {NULL}};
    int n = args_parse(argc, argv, 2, defs, NULL, "info", "[--ckpt] CHECKPOINT", files, 1);
    if (ckpt && n) die("info: give the checkpoint once, as --ckpt FILE or as the argument, not both");
    if (ckpt) files[0] = ckpt, n = 1;
    if (n != 1) die("info: give one checkpoint file (posgpt info --ckpt runs/NAME/model.bin)");
    if (args_given("rope-factor") && !scaling) die("info: --rope-factor needs --rope-scaling pi|ntk|yarn");
    if ((args_given("bias-max-dist") || at_init) && !bias)
        die("info: --%s needs --bias FILE.csv", at_init ? "bias-init" : "bias-max-dist");
    refuse_overlap("info --bias", bias, "the checkpoint", files[0]);
    GPT m;
    TrainState ts;
    AdamW opt;
    ckpt_load(files[0], &m, &ts, &opt);
    const GPTConfig *c = &m.cfg;
    const PosScheme *s = gpt_scheme(&m, 0)->scheme;
    if (bias && !posbias_has(s))
        die("info --bias: scheme '%s' adds no bias to the attention scores (%s); the schemes that do: %s", s->name, posbias_instead(s),
            posbias_schemes());
    if (at_init) refuse_init_from(files[0]);
    char label[64];
    printf("checkpoint      %s (format v%d, checksum ok)\n", files[0], ts.version);
    printf("scheme          %s  [%s]\n", run_label(c->scheme, ts.rand_max, label, sizeof label), s->cite);
    for (int i = 0; i < POS_MAX_HYPER && s->hypers[i].name; i++) printf("  %-14s %g\n", s->hypers[i].name, c->scheme_hp[i]);
    if (s->max_pos) printf("  table rows    %d (positions 0..%d)\n", c->pos_rows, c->pos_rows - 1);
    if (ts.rand_max) printf("  rand_max      %d (training positions: sorted random draws from [0, %d))\n", ts.rand_max, ts.rand_max);
    for (int k = 0; k < m.sch_nt; k++) {
        const PosTensor *t = &m.sch_t[k];
        printf("  tensor %-7s", t->name);
        for (int d = 0; d < t->ndim; d++) printf("%s%zu", d ? " x " : "", t->dims[d]);
        printf(", %s\n", t->per_layer ? "one per layer" : "shared by the layers");
    }
    printf("model           vocab %d, d_model %d, layers %d, heads %d (head size %d), seq_len %d\n", c->V, c->C, c->L, c->NH,
           c->C / c->NH, c->T);
    printf("parameters      %zu (%zu in matmuls, %zu position)\n", m.num_params, gpt_flop_params(&m), m.sizes[P_SCHEME]);
    printf("flops/token     %.0f (training, forward and backward: 6 x %zu matmul parameters + 12 x layers %d x T %d x "
           "d_model %d; docs/usage.md)\n", flops_per_token(&m), gpt_flop_params(&m), c->L, c->T, c->C);
    double pf = pos_train_flops(gpt_scheme(&m, 0), c->T, c->L);
    printf("pos flops/token %.0f (the scheme's own work at T %d, forward and backward: 3 x its forward count, %.1f%% of "
           "flops/token; docs/usage.md)\n", pf, c->T, 100.0 * pf / flops_per_token(&m));
    if (c->ext_method[0])
        printf("extension       %s, factor %g from length %d (trained with it; eval --rope-scaling replaces it)\n", c->ext_method,
               c->ext_factor, c->ext_train_len);
    char shards[48] = "";
    if (ts.grad_shards > 1) snprintf(shards, sizeof shards, " (in %d gradient shards)", ts.grad_shards);
    printf("training        step %ld of %d, batch %d%s, lr %g (warmup %d, cosine to x%g), wd %g, betas %g/%g, clip %g, seed %llu\n",
           ts.step, ts.steps, ts.batch, shards, ts.lr, ts.warmup, ts.min_lr_frac, ts.wd, ts.beta1, ts.beta2, ts.clip,
           (unsigned long long)ts.seed);
    if (isnan(ts.val_loss)) printf("val loss        none yet\n");
    else printf("val loss        %.4f (ppl %.3f)\n", ts.val_loss, exp(ts.val_loss));
    const RunRecord *r = &ts.run;
    if (r->data_bytes) {
        printf("data            %s (%llu bytes, CRC-32 %08x)\n", r->data[0] ? r->data : "(path not recorded)",
               (unsigned long long)r->data_bytes, r->data_crc);
        if (r->val_bytes)
            printf("val             %s (%llu bytes, CRC-32 %08x)\n", r->val[0] ? r->val : "(path not recorded)",
                   (unsigned long long)r->val_bytes, r->val_crc);
        else if (r->task) printf("val             the last 5%% of the examples (at most 2000), answers scored\n");
        else printf("val             the last 10%% of the data\n");
        if (r->task) {
            char rows[96];
            if (r->pack) snprintf(rows, sizeof rows, "packed into rows of %d x seq_len (train --pack)", TASK_PACK_ROW);
            else snprintf(rows, sizeof rows, "one a row");
            printf("task examples   %s; %s\n", r->fresh ? "fresh each step (made by the generator, none a test example)"
                                                      : "drawn from train.txt", rows);
        }
        printf("schedule        validation every %d steps on %ld tokens (0 = all), checkpoint every %d, log every %d%s\n",
               r->eval_every, r->val_tokens, r->ckpt_every, r->log_every, r->skip_nonfinite ? ", skip non-finite steps" : "");
    } else printf("data            not recorded (format v1, or not written by posgpt train)\n");
    printf("precision       %s\n", ts.bf16 ? "bf16 (matrix products' inputs in bfloat16, summed in fp32; weights and AdamW state fp32)"
                                            : "fp32");
    if (ts.pos_lr_mult != 1) printf("pos lr mult     %g (the scheme's tensors learn at %g x lr)\n", ts.pos_lr_mult, ts.pos_lr_mult);
    if (r->keep_every) printf("kept snapshots  every %d steps (model-STEP.bin)\n", r->keep_every);
    if (r->until_acc > 0 && ts.learned_step)
        printf("until learned   held-out exact match %g reached at step %ld (train --until-acc)\n", r->until_acc, ts.learned_step);
    else if (r->until_acc > 0 && ts.step >= ts.steps)
        printf("until learned   held-out exact match %g, never reached: the run ended at its cap, step %d (train --until-acc)\n",
               r->until_acc, ts.steps);
    else if (r->until_acc > 0) printf("until learned   held-out exact match %g, not reached yet (train --until-acc)\n", r->until_acc);
    if (r->until_acc > 0)
        printf(r->learn_crc ? "learn check     on the task's held-out file of CRC-32 %08x (a resumed run's must match)\n"
                            : "learn check     its file not recorded (a checkpoint from before the record)\n", r->learn_crc);
    if (r->until_acc > 0 && r->after_learn)
        printf("after learned   %d steps more (train --after-learn%s)\n", r->after_learn,
               ts.learned_step ? "; the model of the learned step: model-learned.bin" : "");
    printf("optimizer state %s\n", opt.mom ? "yes (resumable)" : "no");
    rotary_section(&m, scaling, factor);
    printf("tensors:\n");
    for (int i = 0; i < NUM_PARAM_TENSORS; i++)
        if (m.sizes[i]) printf("  %-10s %10zu floats at offset %zu\n", PARAM_NAMES[i], m.sizes[i], m.offsets[i]);
    if (bias) bias_section(&m, &ts, bias, maxd, at_init);
    adamw_free(&opt);
    gpt_free(&m);
    return 0;
}
