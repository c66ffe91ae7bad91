// cmd_info.c - `posgpt info FILE`: a checkpoint's header, configuration and tensor table.
#include "args.h"
#include "ckpt.h"
#include "cli.h"
#include "task_batch.h"

#include <stdlib.h>

int cmd_info(int argc, char **argv) {
    const char *ckpt = NULL, *files[1];
    ArgDef defs[] = {{"ckpt", ARG_STR, &ckpt, "the checkpoint (or give it as the only argument)"}, {NULL}};
    int n = args_parse(argc, argv, 2, defs, NULL, "info", "[--ckpt] CHECKPOINT", files, 1);
    if (ckpt && n) die("info: give the checkpoint once, as --ckpt FILE or as the argument, not both");
    if (ckpt) files[0] = ckpt, n = 1;
    if (n != 1) die("info: give one checkpoint file (posgpt info --ckpt runs/NAME/model.bin)");
    GPT m;
    TrainState ts;
    AdamW opt;
    ckpt_load(files[0], &m, &ts, &opt);
    const GPTConfig *c = &m.cfg;
    const PosScheme *s = gpt_scheme(&m, 0)->scheme;
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
        if (r->task && r->pack) printf("task examples   packed into rows of %d x seq_len (train --pack)\n", TASK_PACK_ROW);
        else if (r->task) printf("task examples   one a row\n");
        printf("schedule        validation every %d steps on %ld tokens (0 = all), checkpoint every %d, log every %d%s\n",
               r->eval_every, r->val_tokens, r->ckpt_every, r->log_every, r->skip_nonfinite ? ", skip non-finite steps" : "");
    } else printf("data            not recorded (format v1, or not written by posgpt train)\n");
    printf("optimizer state %s\n", opt.mom ? "yes (resumable)" : "no");
    printf("tensors:\n");
    for (int i = 0; i < NUM_PARAM_TENSORS; i++)
        if (m.sizes[i]) printf("  %-10s %10zu floats at offset %zu\n", PARAM_NAMES[i], m.sizes[i], m.offsets[i]);
    adamw_free(&opt);
    gpt_free(&m);
    return 0;
}
