// ckpt.c - checkpoint write/read. The format is little-endian fields at fixed offsets,
// written one by one (never a C struct), described in docs/checkpoint.md.
#include "ckpt.h"
#include "fileio.h"
#include "shards.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// ---- little-endian field access in the header buffer ----
static void put_u32(unsigned char *h, int off, uint32_t v) {
    for (int i = 0; i < 4; i++) h[off + i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *h, int off, uint64_t v) {
    for (int i = 0; i < 8; i++) h[off + i] = (unsigned char)(v >> (8 * i));
}
static void put_f32(unsigned char *h, int off, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    put_u32(h, off, v);
}
static void put_f64(unsigned char *h, int off, double d) {
    uint64_t v;
    memcpy(&v, &d, 8);
    put_u64(h, off, v);
}
static uint32_t get_u32(const unsigned char *h, int off) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)h[off + i] << (8 * i);
    return v;
}
static uint64_t get_u64(const unsigned char *h, int off) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)h[off + i] << (8 * i);
    return v;
}
static float get_f32(const unsigned char *h, int off) {
    uint32_t v = get_u32(h, off);
    float f;
    memcpy(&f, &v, 4);
    return f;
}
static double get_f64(const unsigned char *h, int off) {
    uint64_t v = get_u64(h, off);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

// header offsets (docs/checkpoint.md)
enum {
    H_MAGIC = 0, H_VERSION = 8, H_HBYTES = 12, H_V = 16, H_C = 20, H_L = 24, H_NH = 28, H_T = 32, H_ROWS = 36,
    H_RANDMAX = 40, H_HASOPT = 44, H_POS = 48, H_HP = 80, H_NPARAMS = 112, H_STEP = 120, H_RNG = 128,
    H_LR = 160, H_MINLR = 168, H_WD = 176, H_B1 = 184, H_B2 = 192, H_EPS = 200, H_CLIP = 208, H_WARMUP = 216,
    H_STEPS = 220, H_BATCH = 224, H_PENDING = 228, H_SEED = 232, H_VAL = 240, H_CRC = 248, H_NTENSORS = 252,
    // version 2: the run record (zero in version 1)
    H_DBYTES = 256, H_VBYTES = 264, H_DCRC = 272, H_VCRC = 276, H_EVALEVERY = 280, H_CKPTEVERY = 284, H_LOGEVERY = 288,
    H_RUNFLAGS = 292, H_VALTOKENS = 296,
    // version 3: the scheme sharing asked for (PosSharing; version 1 and 2: all shared);
    // version 4: the layout it gave, bit k set when scheme tensor k is one per layer
    H_SHARING = 304, H_LAYOUT = 308,
    // version 5: the gradient shards the steps were computed in (train --grad-shards; 1 before),
    // and the context extension the model was trained with (train --rope-scaling; none before)
    H_SHARDS = 312, H_EXT_TRAINLEN = 316, H_EXT_WINDOW = 320, H_EXT_FACTOR = 328, H_EXT_METHOD = 336,
    // train --until-acc: the CRC-32 of the file its check reads (0 before it was recorded, as in
    // files written before it: the reserved bytes 324..327 were zero)
    H_LEARNCRC = 324,
    // the scheme's learning-rate multiplier (train --pos-lr-mult; 0 = 1, as in files written
    // before it, so a run without the flag writes the same bytes) and the snapshots kept
    // (train --keep-every; 0 = none); the precision of the products (train --precision: 0 =
    // fp32, as in files written before it; 1 = bf16)
    H_POSLRMULT = 352, H_KEEPEVERY = 360, H_PRECISION = 364,
    // train --until-acc: the step that reached it (0: not yet) and the threshold (0: none); the
    // steps trained after it (train --after-learn; 0: none, as in files written before it)
    H_LEARNED = 368, H_UNTILACC = 372, H_AFTERLEARN = 380,
    H_DPATH = 384, H_VPATH = 384 + CKPT_PATH_BYTES
};
_Static_assert(H_VPATH + CKPT_PATH_BYTES <= CKPT_HEADER_BYTES, "the run record's paths fit in the header");

// the first byte of a NUL-terminated name that is not printable ASCII without space, or -1
static int unprintable(const char *s) {
    for (; *s; s++)
        if (*s < 0x21 || *s > 0x7e) return (unsigned char)*s;
    return -1;
}

// Format 3 stored only the sharing asked for; "paper" meant the schemes' defaults of the
// time, which for FIRE was one MLP shared by the layers (now one per layer, as its paper).
static int v3_paper_sharing(const char *scheme) {
    return !strcmp(scheme, "fire") ? POS_SHARING_SHARED : POS_SHARING_PAPER;
}

// Format 4 stores the layout itself. If the sharing stored no longer gives it (a scheme's
// default changed since the file was written), the sharing that does is used: the file
// loads as it was trained. -1 if no sharing gives it.
static int layout_sharing(GPTConfig *c, uint32_t layout) {
    const int modes[3] = {c->scheme_sharing, POS_SHARING_SHARED, POS_SHARING_LAYER};
    for (int i = 0; i < 3; i++) {
        c->scheme_sharing = modes[i];
        if (gpt_scheme_layout(c) == layout) return 0;
    }
    c->scheme_sharing = modes[0];
    return -1;
}

// float32 copy of n reals (a no-op cast in the float build); 0, or -1 with errno set
static int write_f32(FILE *f, const real *x, size_t n, uint32_t *crc) {
    float buf[4096];
    for (size_t i = 0; i < n; i += 4096) {
        size_t k = n - i < 4096 ? n - i : 4096;
        for (size_t j = 0; j < k; j++) buf[j] = (float)x[i + j];
        if (fwrite(buf, sizeof(float), k, f) != k) return -1;
        *crc = crc32_update(*crc, buf, k * sizeof(float));
    }
    return 0;
}

int ckpt_try_save(const char *path, const GPT *m, const TrainState *ts, const AdamW *opt, char *err, size_t errlen) {
    const GPTConfig *c = &m->cfg;
    unsigned char h[CKPT_HEADER_BYTES];
    memset(h, 0, sizeof h);
    memcpy(h + H_MAGIC, CKPT_MAGIC, 8);
    put_u32(h, H_VERSION, CKPT_VERSION);
    put_u32(h, H_HBYTES, CKPT_HEADER_BYTES);
    put_u32(h, H_V, (uint32_t)c->V), put_u32(h, H_C, (uint32_t)c->C), put_u32(h, H_L, (uint32_t)c->L);
    put_u32(h, H_NH, (uint32_t)c->NH), put_u32(h, H_T, (uint32_t)c->T), put_u32(h, H_ROWS, (uint32_t)c->pos_rows);
    put_u32(h, H_RANDMAX, (uint32_t)ts->rand_max);
    const real *mom = opt ? opt->mom : NULL, *vel = opt ? opt->vel : NULL;
    int has_opt = mom && vel;
    put_u32(h, H_HASOPT, (uint32_t)has_opt);
    memcpy(h + H_POS, c->scheme, strnlen(c->scheme, 31));
    for (int i = 0; i < POS_MAX_HYPER; i++) put_f32(h, H_HP + 4 * i, c->scheme_hp[i]);
    put_u32(h, H_SHARING, (uint32_t)c->scheme_sharing);
    put_u32(h, H_LAYOUT, gpt_scheme_layout(c));
    put_u64(h, H_NPARAMS, m->num_params);
    put_u64(h, H_STEP, (uint64_t)ts->step);
    for (int i = 0; i < 4; i++) put_u64(h, H_RNG + 8 * i, ts->rng.s[i]);
    put_f64(h, H_LR, ts->lr), put_f64(h, H_MINLR, ts->min_lr_frac), put_f64(h, H_WD, ts->wd);
    put_f64(h, H_B1, ts->beta1), put_f64(h, H_B2, ts->beta2), put_f64(h, H_EPS, ts->eps), put_f64(h, H_CLIP, ts->clip);
    put_u32(h, H_WARMUP, (uint32_t)ts->warmup), put_u32(h, H_STEPS, (uint32_t)ts->steps);
    put_u32(h, H_BATCH, (uint32_t)ts->batch);
    put_u32(h, H_SHARDS, (uint32_t)(ts->grad_shards > 0 ? ts->grad_shards : 1));
    if (c->ext_method[0]) {
        memcpy(h + H_EXT_METHOD, c->ext_method, strnlen(c->ext_method, 15));
        put_f64(h, H_EXT_FACTOR, c->ext_factor);
        put_u32(h, H_EXT_TRAINLEN, (uint32_t)c->ext_train_len), put_u32(h, H_EXT_WINDOW, (uint32_t)c->ext_window);
    }
    put_u64(h, H_SEED, ts->seed);
    put_f64(h, H_VAL, ts->val_loss);
    put_u32(h, H_NTENSORS, NUM_PARAM_TENSORS);
    const RunRecord *r = &ts->run;
    put_u64(h, H_DBYTES, r->data_bytes), put_u64(h, H_VBYTES, r->val_bytes);
    put_u32(h, H_DCRC, r->data_crc), put_u32(h, H_VCRC, r->val_crc);
    put_u32(h, H_EVALEVERY, (uint32_t)r->eval_every), put_u32(h, H_CKPTEVERY, (uint32_t)r->ckpt_every);
    uint32_t flags = (uint32_t)(r->skip_nonfinite != 0) | (uint32_t)(r->task != 0) << 1 | (uint32_t)(r->task && r->pack) << 2 |
                     (uint32_t)(r->task && r->fresh) << 3;
    put_u32(h, H_LOGEVERY, (uint32_t)r->log_every), put_u32(h, H_RUNFLAGS, flags);
    put_u64(h, H_VALTOKENS, (uint64_t)r->val_tokens);
    put_f64(h, H_POSLRMULT, ts->pos_lr_mult != 1 ? ts->pos_lr_mult : 0), put_u32(h, H_KEEPEVERY, (uint32_t)r->keep_every);
    put_u32(h, H_LEARNED, (uint32_t)ts->learned_step), put_f64(h, H_UNTILACC, r->until_acc);
    put_u32(h, H_AFTERLEARN, (uint32_t)r->after_learn), put_u32(h, H_PENDING, (uint32_t)ts->val_pending);
    put_u32(h, H_LEARNCRC, r->until_acc > 0 ? r->learn_crc : 0);
    put_u32(h, H_PRECISION, (uint32_t)(ts->bf16 != 0));
    memcpy(h + H_DPATH, r->data, strnlen(r->data, CKPT_PATH_BYTES - 1));
    memcpy(h + H_VPATH, r->val, strnlen(r->val, CKPT_PATH_BYTES - 1));

    // written under a temporary name, flushed to disk, then renamed over the old file: a
    // crash or a full disk leaves either the old checkpoint or the new one, never a mix
    OutFile o;
    FILE *f = out_open(&o, path, "checkpoint");
    uint32_t crc = crc32_update(0, h, sizeof h); // header (CRC field zero), then payload
    int bad = fwrite(h, 1, sizeof h, f) != sizeof h || write_f32(f, m->params, m->num_params, &crc) ||
              (has_opt && (write_f32(f, mom, m->num_params, &crc) || write_f32(f, vel, m->num_params, &crc)));
    put_u32(h, H_CRC, crc);
    bad = bad || fseek(f, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof h, f) != sizeof h;
    if (bad || out_try_commit(&o) != 0) {
        snprintf(err, errlen, "cannot write the checkpoint '%s': %s", path, strerror(errno ? errno : EIO));
        out_abandon(&o);
        return -1;
    }
    return 0;
}

void ckpt_save(const char *path, const GPT *m, const TrainState *ts, const AdamW *opt) {
    char err[4400];
    if (ckpt_try_save(path, m, ts, opt, err, sizeof err)) die("%s", err);
}

// read n floats; 0 on success, -1 if the file ends first
static int read_f32(FILE *f, real *x, size_t n, uint32_t *crc) {
    float buf[4096];
    for (size_t i = 0; i < n; i += 4096) {
        size_t k = n - i < 4096 ? n - i : 4096;
        if (fread(buf, sizeof(float), k, f) != k) return -1;
        *crc = crc32_update(*crc, buf, k * sizeof(float));
        for (size_t j = 0; j < k; j++) x[i + j] = (real)buf[j];
    }
    return 0;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

int ckpt_read(FILE *f, const char *name, GPT *m, TrainState *ts, AdamW *opt, char *err, size_t errlen) {
    // Every check happens before any allocation sized by the file, and the parameter count
    // implied by the header must match both the header's count and the file's size, so a
    // corrupted header can never ask for more memory than the file holds.
    unsigned char h[CKPT_HEADER_BYTES];
    real *mo = NULL, *ve = NULL;
    int built = 0;
    memset(m, 0, sizeof *m);
    size_t got = fread(h, 1, sizeof h, f);
    if (got < 8 || memcmp(h + H_MAGIC, CKPT_MAGIC, 8) != 0)
        FAIL("'%s' is not a posgpt checkpoint (bad magic: expected \"%s\" at offset 0)", name, CKPT_MAGIC);
    if (got < 12) FAIL("checkpoint '%s' is truncated: %zu bytes, the header alone is %d", name, got, CKPT_HEADER_BYTES);
    uint32_t ver = get_u32(h, H_VERSION);
    if (ver < 1 || ver > CKPT_VERSION)
        FAIL("checkpoint '%s' has format version %u; this posgpt reads versions 1 to %d", name, ver, CKPT_VERSION);
    if (got != sizeof h) FAIL("checkpoint '%s' is truncated: %zu bytes, the header alone is %d", name, got, CKPT_HEADER_BYTES);
    if (get_u32(h, H_HBYTES) != CKPT_HEADER_BYTES)
        FAIL("checkpoint '%s' is corrupted: header size field %u, expected %d", name, get_u32(h, H_HBYTES), CKPT_HEADER_BYTES);
    if (get_u32(h, H_NTENSORS) != NUM_PARAM_TENSORS)
        FAIL("checkpoint '%s' is corrupted: %u tensors, expected %d", name, get_u32(h, H_NTENSORS), NUM_PARAM_TENSORS);
    GPTConfig c;
    memset(&c, 0, sizeof c);
    uint32_t dims[7] = {get_u32(h, H_V), get_u32(h, H_C), get_u32(h, H_L), get_u32(h, H_NH), get_u32(h, H_T),
                        get_u32(h, H_ROWS), get_u32(h, H_RANDMAX)};
    const char *dn[7] = {"vocab", "d_model", "layers", "heads", "seq_len", "pos_rows", "rand_max"};
    for (int i = 0; i < 7; i++)
        if (dims[i] > (1u << 28)) FAIL("checkpoint '%s' is corrupted: %s = %u is implausible", name, dn[i], dims[i]);
    c.V = (int)dims[0], c.C = (int)dims[1], c.L = (int)dims[2], c.NH = (int)dims[3], c.T = (int)dims[4];
    c.pos_rows = (int)dims[5];
    int rand_max = (int)dims[6];
    memcpy(c.scheme, h + H_POS, 31);
    c.scheme[31] = 0;
    int bad_byte = unprintable(c.scheme);
    if (bad_byte >= 0) FAIL("checkpoint '%s' is corrupted: the scheme name holds byte 0x%02x", name, bad_byte);
    for (int i = 0; i < POS_MAX_HYPER; i++) c.scheme_hp[i] = get_f32(h, H_HP + 4 * i);
    uint32_t sharing = ver >= 3 ? get_u32(h, H_SHARING) : POS_SHARING_SHARED;
    if (sharing >= POS_SHARING_COUNT) FAIL("checkpoint '%s' is corrupted: scheme sharing = %u", name, sharing);
    if (ver == 3 && sharing == POS_SHARING_PAPER) sharing = (uint32_t)v3_paper_sharing(c.scheme);
    c.scheme_sharing = (int)sharing;
    if (ver >= 5) { // the context extension trained with, if any
        memcpy(c.ext_method, h + H_EXT_METHOD, 16);
        if (c.ext_method[15]) FAIL("checkpoint '%s' is corrupted: the context extension's name is not terminated", name);
        if ((bad_byte = unprintable(c.ext_method)) >= 0)
            FAIL("checkpoint '%s' is corrupted: the context extension's name holds byte 0x%02x", name, bad_byte);
        if (c.ext_method[0]) {
            c.ext_factor = get_f64(h, H_EXT_FACTOR);
            uint32_t tl = get_u32(h, H_EXT_TRAINLEN), w = get_u32(h, H_EXT_WINDOW);
            c.ext_train_len = tl > (1u << 28) ? -1 : (int)tl, c.ext_window = w > (1u << 28) ? -1 : (int)w;
        }
    }
    char why[256];
    if (gpt_config_check(&c, why, sizeof why)) FAIL("checkpoint '%s' holds an unusable configuration: %s", name, why);
    if (ver >= 4 && layout_sharing(&c, get_u32(h, H_LAYOUT)))
        FAIL("checkpoint '%s' is corrupted: its scheme layout 0x%x (tensors one per layer) is none that '%s' can have", name,
             get_u32(h, H_LAYOUT), c.scheme);
    uint64_t np = get_u64(h, H_NPARAMS);
    size_t want = gpt_param_count(&c);
    if (np != want)
        FAIL("checkpoint '%s' is corrupted: header says %llu parameters, its configuration implies %zu", name,
             (unsigned long long)np, want);
    uint32_t has_opt = get_u32(h, H_HASOPT);
    if (has_opt > 1) FAIL("checkpoint '%s' is corrupted: has_optimizer = %u", name, has_opt);
    if (fseek(f, 0, SEEK_END) != 0) FAIL("cannot seek in '%s'", name);
    long size = ftell(f);
    double expect = CKPT_HEADER_BYTES + 4.0 * (double)np * (has_opt ? 3 : 1);
    if ((double)size != expect)
        FAIL("checkpoint '%s' is %s: %ld bytes, the header implies %.0f", name, size < expect ? "truncated" : "too long", size, expect);
    if (fseek(f, CKPT_HEADER_BYTES, SEEK_SET) != 0) FAIL("cannot seek in '%s'", name);
    gpt_build(m, &c); // cannot fail now: the configuration was checked
    built = 1;
    uint32_t want_crc = get_u32(h, H_CRC);
    put_u32(h, H_CRC, 0);
    uint32_t crc = crc32_update(0, h, sizeof h); // header (CRC field zero), then payload
    if (read_f32(f, m->params, m->num_params, &crc)) FAIL("checkpoint '%s' is truncated (short read)", name);
    if (has_opt) {
        mo = xmalloc(m->num_params * sizeof(real));
        ve = xmalloc(m->num_params * sizeof(real));
        if (read_f32(f, mo, m->num_params, &crc) || read_f32(f, ve, m->num_params, &crc))
            FAIL("checkpoint '%s' is truncated (short read)", name);
    }
    if (crc != want_crc)
        FAIL("checkpoint '%s' is corrupted: CRC32 %08x does not match the stored %08x", name, crc, want_crc);
    for (size_t i = 0; i < m->num_params; i++)
        if (!isfinite(m->params[i])) FAIL("checkpoint '%s' holds a non-finite parameter (index %zu)", name, i);
    // the trainer state, field by field, in the ranges `posgpt train` accepts: a consistent CRC
    // over a hand-edited or buggy header must not resume with, say, a negative learning rate
    {
        double lr = get_f64(h, H_LR), mlr = get_f64(h, H_MINLR), wd = get_f64(h, H_WD), b1 = get_f64(h, H_B1),
               b2 = get_f64(h, H_B2), eps = get_f64(h, H_EPS), clip = get_f64(h, H_CLIP), val = get_f64(h, H_VAL);
        uint32_t warm = get_u32(h, H_WARMUP), steps = get_u32(h, H_STEPS), batch = get_u32(h, H_BATCH);
        uint64_t step = get_u64(h, H_STEP);
        // (train --after-learn's steps may pass the run's steps: up to the learned step + them)
        uint32_t learned0 = ver >= 5 ? get_u32(h, H_LEARNED) : 0, al0 = ver >= 5 ? get_u32(h, H_AFTERLEARN) : 0;
        uint64_t end = learned0 && al0 && (uint64_t)learned0 + al0 > steps ? (uint64_t)learned0 + al0 : steps;
        uint32_t shards = ver >= 5 ? get_u32(h, H_SHARDS) : 1;
        double plm = ver >= 5 ? get_f64(h, H_POSLRMULT) : 0;
        uint32_t prec = ver >= 5 ? get_u32(h, H_PRECISION) : 0, pend = ver >= 5 ? get_u32(h, H_PENDING) : 0;
        const char *bad = !(lr >= 0 && lr <= 10) ? "lr" : !(mlr >= 0 && mlr <= 1) ? "min_lr_frac" : !(wd >= 0 && wd <= 10) ? "weight decay"
                          : !(b1 >= 0 && b1 < 1) ? "beta1" : !(b2 >= 0 && b2 < 1) ? "beta2" : !(eps > 0 && eps <= 1) ? "eps"
                          : !(clip >= 0 && clip <= 1e9) ? "clip" : !(isnan(val) || (val >= 0 && isfinite(val))) ? "val_loss"
                          : steps < 1 || steps > (1u << 30) ? "steps" : warm > steps ? "warmup" : batch < 1 || batch > (1u << 20) ? "batch"
                          : step > end ? "step" : shards > SHARDS_MAX || shards_check((int)shards, (int)batch, 1, why, sizeof why)
                          ? "gradient shards" : !(plm >= 0 && plm <= 1e6) ? "pos_lr_mult" : prec > 1 ? "precision"
                          : pend > 1 ? "pending validation" : NULL;
        if (bad)
            FAIL("checkpoint '%s' holds an impossible trainer state: %s (lr %g, min_lr_frac %g, wd %g, betas %g/%g, eps %g, clip %g, "
                 "step %llu of %u, warmup %u, batch %u in %u shards, val_loss %g)", name, bad, lr, mlr, wd, b1, b2, eps, clip,
                 (unsigned long long)step, steps, warm, batch, shards, val);
    }
    // the run record (version 2): all zero when not recorded, else every field in range
    RunRecord run;
    memset(&run, 0, sizeof run);
    if (ver >= 2) {
        run.data_bytes = get_u64(h, H_DBYTES), run.val_bytes = get_u64(h, H_VBYTES);
        run.data_crc = get_u32(h, H_DCRC), run.val_crc = get_u32(h, H_VCRC);
        uint32_t ev = get_u32(h, H_EVALEVERY), ce = get_u32(h, H_CKPTEVERY), le = get_u32(h, H_LOGEVERY), fl = get_u32(h, H_RUNFLAGS);
        uint64_t vt = get_u64(h, H_VALTOKENS);
        uint32_t ke = ver >= 5 ? get_u32(h, H_KEEPEVERY) : 0, learned = ver >= 5 ? get_u32(h, H_LEARNED) : 0;
        double ua = ver >= 5 ? get_f64(h, H_UNTILACC) : 0;
        uint32_t al = ver >= 5 ? get_u32(h, H_AFTERLEARN) : 0, lc = ver >= 5 ? get_u32(h, H_LEARNCRC) : 0;
        int none = !run.data_bytes && !run.val_bytes && !ev && !ce && !le && !fl && !vt && !ke && !ua && !learned && !al && !lc;
        const char *bad = none ? NULL : !run.data_bytes ? "data size" : ev < 1 || ev > (1u << 30) ? "eval_every"
                        : ce < 1 || ce > (1u << 30) ? "ckpt_every" : le < 1 || le > (1u << 30) ? "log_every"
                        : fl > 15 || (fl & 12 && !(fl & 2)) ? "flags" : vt > (uint64_t)1e15 ? "val_tokens"
                        : !(ua >= 0 && ua <= 1) || (ua > 0 && !(fl & 2)) ? "until_acc"
                        : learned > get_u64(h, H_STEP) || learned > get_u32(h, H_STEPS) || (learned && !(ua > 0)) ? "learned step"
                        : al > (1u << 30) || (al && !(ua > 0)) ? "after_learn" : lc && !(ua > 0) ? "until_acc's file CRC" : NULL;
        for (int k = 0; k < 2 && !bad; k++) {
            const unsigned char *pth = h + (k ? H_VPATH : H_DPATH);
            if (pth[CKPT_PATH_BYTES - 1]) bad = k ? "val path" : "data path";
        }
        if (bad) FAIL("checkpoint '%s' holds an impossible run record: %s", name, bad);
        run.eval_every = (int)ev, run.ckpt_every = (int)ce, run.log_every = (int)le, run.skip_nonfinite = (int)(fl & 1);
        run.task = (int)(fl >> 1 & 1), run.pack = (int)(fl >> 2 & 1), run.fresh = (int)(fl >> 3 & 1);
        run.val_tokens = (long)vt, run.keep_every = (int)ke, run.until_acc = ua, run.after_learn = (int)al, run.learn_crc = lc;
        memcpy(run.data, h + H_DPATH, CKPT_PATH_BYTES);
        memcpy(run.val, h + H_VPATH, CKPT_PATH_BYTES);
    }
    if (opt) {
        *opt = (AdamW){get_f64(h, H_B1), get_f64(h, H_B2), get_f64(h, H_EPS), get_f64(h, H_WD), mo ? m->num_params : 0, mo, ve};
    } else free(mo), free(ve);
    if (ts) {
        memset(ts, 0, sizeof *ts);
        ts->step = (long)get_u64(h, H_STEP);
        for (int i = 0; i < 4; i++) ts->rng.s[i] = get_u64(h, H_RNG + 8 * i);
        ts->lr = get_f64(h, H_LR), ts->min_lr_frac = get_f64(h, H_MINLR), ts->wd = get_f64(h, H_WD);
        ts->beta1 = get_f64(h, H_B1), ts->beta2 = get_f64(h, H_B2), ts->eps = get_f64(h, H_EPS);
        ts->clip = get_f64(h, H_CLIP);
        ts->warmup = (int)get_u32(h, H_WARMUP), ts->steps = (int)get_u32(h, H_STEPS), ts->batch = (int)get_u32(h, H_BATCH);
        ts->seed = get_u64(h, H_SEED);
        ts->rand_max = rand_max;
        ts->grad_shards = ver >= 5 ? (int)get_u32(h, H_SHARDS) : 1;
        ts->val_loss = get_f64(h, H_VAL);
        double plm = ver >= 5 ? get_f64(h, H_POSLRMULT) : 0;
        ts->pos_lr_mult = plm > 0 ? plm : 1.0;
        ts->learned_step = ver >= 5 && run.data_bytes ? (long)get_u32(h, H_LEARNED) : 0;
        ts->bf16 = ver >= 5 && get_u32(h, H_PRECISION) == 1;
        ts->val_pending = ver >= 5 && get_u32(h, H_PENDING) == 1;
        ts->run = run;
        ts->version = (int)ver;
    }
    return 0;
fail:
    free(mo), free(ve);
    if (built) gpt_free(m);
    if (opt) memset(opt, 0, sizeof *opt);
    return -1;
}

void ckpt_load(const char *path, GPT *m, TrainState *ts, AdamW *opt) {
    require_regular_file(path, "checkpoint");
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open checkpoint '%s': %s", path, strerror(errno));
    char err[512];
    int rc = ckpt_read(f, path, m, ts, opt, err, sizeof err);
    fclose(f);
    if (rc) die("%s", err);
}
