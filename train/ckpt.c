// ckpt.c - checkpoint write/read. The format is little-endian fields at fixed offsets,
// written one by one (never a C struct), described in docs/checkpoint.md.
#include "ckpt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint32_t crc32_update(uint32_t crc, const void *data, size_t n) {
    // CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as zlib's crc32()
    static uint32_t table[256];
    static int ready;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = 1;
    }
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

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
    H_STEPS = 220, H_BATCH = 224, H_SEED = 232, H_VAL = 240, H_CRC = 248, H_NTENSORS = 252
};

// float32 copy of n reals (a no-op cast in the float build)
static void write_f32(FILE *f, const real *x, size_t n, const char *path, uint32_t *crc) {
    float buf[4096];
    for (size_t i = 0; i < n; i += 4096) {
        size_t k = n - i < 4096 ? n - i : 4096;
        for (size_t j = 0; j < k; j++) buf[j] = (float)x[i + j];
        xfwrite(buf, sizeof(float), k, f, path);
        *crc = crc32_update(*crc, buf, k * sizeof(float));
    }
}

void ckpt_save(const char *path, const GPT *m, const TrainState *ts, const real *mom, const real *vel) {
    const GPTConfig *c = &m->cfg;
    unsigned char h[CKPT_HEADER_BYTES];
    memset(h, 0, sizeof h);
    memcpy(h + H_MAGIC, CKPT_MAGIC, 8);
    put_u32(h, H_VERSION, CKPT_VERSION);
    put_u32(h, H_HBYTES, CKPT_HEADER_BYTES);
    put_u32(h, H_V, (uint32_t)c->V), put_u32(h, H_C, (uint32_t)c->C), put_u32(h, H_L, (uint32_t)c->L);
    put_u32(h, H_NH, (uint32_t)c->NH), put_u32(h, H_T, (uint32_t)c->T), put_u32(h, H_ROWS, (uint32_t)c->pos_rows);
    put_u32(h, H_RANDMAX, (uint32_t)c->rand_max);
    int has_opt = mom && vel;
    put_u32(h, H_HASOPT, (uint32_t)has_opt);
    memcpy(h + H_POS, c->pos, strnlen(c->pos, 31));
    for (int i = 0; i < POS_MAX_HYPER; i++) put_f32(h, H_HP + 4 * i, c->pos_hp[i]);
    put_u64(h, H_NPARAMS, m->num_params);
    put_u64(h, H_STEP, (uint64_t)ts->step);
    for (int i = 0; i < 4; i++) put_u64(h, H_RNG + 8 * i, ts->rng.s[i]);
    put_f64(h, H_LR, ts->lr), put_f64(h, H_MINLR, ts->min_lr_frac), put_f64(h, H_WD, ts->wd);
    put_f64(h, H_B1, ts->beta1), put_f64(h, H_B2, ts->beta2), put_f64(h, H_EPS, ts->eps), put_f64(h, H_CLIP, ts->clip);
    put_u32(h, H_WARMUP, (uint32_t)ts->warmup), put_u32(h, H_STEPS, (uint32_t)ts->steps);
    put_u32(h, H_BATCH, (uint32_t)ts->batch);
    put_u64(h, H_SEED, ts->seed);
    put_f64(h, H_VAL, ts->val_loss);
    put_u32(h, H_NTENSORS, NUM_PARAM_TENSORS);

    size_t plen = strlen(path);
    char *tmp = xmalloc(plen + 32);
    snprintf(tmp, plen + 32, "%s.tmp.%d", path, (int)getpid());
    FILE *f = xfopen(tmp, "wb");
    xfwrite(h, 1, sizeof h, f, tmp); // CRC filled in below
    uint32_t crc = 0;
    write_f32(f, m->params, m->num_params, tmp, &crc);
    if (has_opt) {
        write_f32(f, mom, m->num_params, tmp, &crc);
        write_f32(f, vel, m->num_params, tmp, &crc);
    }
    put_u32(h, H_CRC, crc);
    if (fseek(f, 0, SEEK_SET) != 0) die("cannot seek in '%s': %s", tmp, strerror(errno));
    xfwrite(h, 1, sizeof h, f, tmp);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) die("cannot flush '%s' to disk: %s", tmp, strerror(errno));
    if (fclose(f) != 0) die("cannot close '%s': %s", tmp, strerror(errno));
    if (rename(tmp, path) != 0) die("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    free(tmp);
}

static void read_f32(FILE *f, real *x, size_t n, const char *path, uint32_t *crc) {
    float buf[4096];
    for (size_t i = 0; i < n; i += 4096) {
        size_t k = n - i < 4096 ? n - i : 4096;
        if (fread(buf, sizeof(float), k, f) != k)
            die("checkpoint '%s' is truncated: payload ends before the %zu floats its header promises", path, n);
        *crc = crc32_update(*crc, buf, k * sizeof(float));
        for (size_t j = 0; j < k; j++) x[i + j] = (real)buf[j];
    }
}

void ckpt_load(const char *path, GPT *m, TrainState *ts, real **mom, real **vel) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open checkpoint '%s': %s", path, strerror(errno));
    unsigned char h[CKPT_HEADER_BYTES];
    size_t got = fread(h, 1, sizeof h, f);
    if (got < 16 || memcmp(h + H_MAGIC, CKPT_MAGIC, 8) != 0)
        die("'%s' is not a posgpt checkpoint (bad magic: expected \"%s\" at offset 0)", path, CKPT_MAGIC);
    uint32_t ver = get_u32(h, H_VERSION);
    if (ver != CKPT_VERSION) die("checkpoint '%s' has format version %u; this posgpt reads version %d", path, ver, CKPT_VERSION);
    if (got != sizeof h || get_u32(h, H_HBYTES) != CKPT_HEADER_BYTES)
        die("checkpoint '%s' is truncated or corrupted: header is %zu bytes, expected %d", path, got, CKPT_HEADER_BYTES);
    GPTConfig c;
    memset(&c, 0, sizeof c);
    uint32_t dims[7] = {get_u32(h, H_V), get_u32(h, H_C), get_u32(h, H_L), get_u32(h, H_NH), get_u32(h, H_T),
                        get_u32(h, H_ROWS), get_u32(h, H_RANDMAX)};
    const char *dn[7] = {"vocab", "d_model", "layers", "heads", "seq_len", "pos_rows", "rand_max"};
    for (int i = 0; i < 7; i++)
        if (dims[i] > (1u << 24)) die("checkpoint '%s' is corrupted: %s = %u is implausible", path, dn[i], dims[i]);
    c.V = (int)dims[0], c.C = (int)dims[1], c.L = (int)dims[2], c.NH = (int)dims[3], c.T = (int)dims[4];
    c.pos_rows = (int)dims[5], c.rand_max = (int)dims[6];
    memcpy(c.pos, h + H_POS, 31);
    c.pos[31] = 0;
    if (!pos_find(c.pos)) die("checkpoint '%s' uses position scheme '%s', unknown to this posgpt (%s)", path, c.pos, pos_names());
    for (int i = 0; i < POS_MAX_HYPER; i++) c.pos_hp[i] = get_f32(h, H_HP + 4 * i);
    if ((uint64_t)c.C * c.C * c.L > (1ull << 34)) die("checkpoint '%s' is corrupted: model size is implausible", path);
    gpt_build(m, &c);
    uint64_t np = get_u64(h, H_NPARAMS);
    if (np != m->num_params)
        die("checkpoint '%s' is corrupted: header says %llu parameters, its config implies %zu", path,
            (unsigned long long)np, m->num_params);
    int has_opt = (int)get_u32(h, H_HASOPT);
    if (has_opt > 1) die("checkpoint '%s' is corrupted: has_optimizer = %d", path, has_opt);
    // file size must match exactly
    if (fseek(f, 0, SEEK_END) != 0) die("cannot seek in '%s'", path);
    long size = ftell(f);
    long expect = CKPT_HEADER_BYTES + (long)(np * 4 * (has_opt ? 3 : 1));
    if (size != expect)
        die("checkpoint '%s' is %s: %ld bytes, the header implies %ld", path, size < expect ? "truncated" : "too long", size, expect);
    fseek(f, CKPT_HEADER_BYTES, SEEK_SET);
    uint32_t crc = 0;
    read_f32(f, m->params, m->num_params, path, &crc);
    real *mo = NULL, *ve = NULL;
    if (has_opt) {
        mo = xmalloc(m->num_params * sizeof(real));
        ve = xmalloc(m->num_params * sizeof(real));
        read_f32(f, mo, m->num_params, path, &crc);
        read_f32(f, ve, m->num_params, path, &crc);
    }
    fclose(f);
    if (crc != get_u32(h, H_CRC))
        die("checkpoint '%s' is corrupted: payload CRC32 %08x does not match the header's %08x", path, crc, get_u32(h, H_CRC));
    for (size_t i = 0; i < m->num_params; i++)
        if (!isfinite(m->params[i])) die("checkpoint '%s' holds a non-finite parameter (index %zu)", path, i);
    if (mom && vel) *mom = mo, *vel = ve;
    else free(mo), free(ve);
    if (ts) {
        memset(ts, 0, sizeof *ts);
        ts->step = (long)get_u64(h, H_STEP);
        for (int i = 0; i < 4; i++) ts->rng.s[i] = get_u64(h, H_RNG + 8 * i);
        ts->lr = get_f64(h, H_LR), ts->min_lr_frac = get_f64(h, H_MINLR), ts->wd = get_f64(h, H_WD);
        ts->beta1 = get_f64(h, H_B1), ts->beta2 = get_f64(h, H_B2), ts->eps = get_f64(h, H_EPS);
        ts->clip = get_f64(h, H_CLIP);
        ts->warmup = (int)get_u32(h, H_WARMUP), ts->steps = (int)get_u32(h, H_STEPS), ts->batch = (int)get_u32(h, H_BATCH);
        ts->seed = get_u64(h, H_SEED);
        ts->val_loss = get_f64(h, H_VAL);
    }
}
