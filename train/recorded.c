// recorded.c - a checkpoint's recorded training text, checked (recorded.h).
#include "recorded.h"
#include "data.h"
#include "fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *recorded_text(const char *ckpt, const RunRecord *r, int val, const char *cmd, const char *flag) {
    const char *path = val ? r->val : r->data;
    uint64_t bytes = val ? r->val_bytes : r->data_bytes;
    uint32_t crc = val ? r->val_crc : r->data_crc;
    if (!r->data_bytes)
        die("%s: the checkpoint '%s' (format v1) records no training text; give %s", cmd, ckpt, flag);
    if (!path[0]) die("%s: the path of the text the checkpoint '%s' trained on was too long to record; give %s", cmd, ckpt, flag);
    struct stat st;
    if (stat(path, &st) != 0)
        die("%s: the checkpoint '%s' trained on '%s' (%llu bytes, CRC-32 %08x), which cannot be read now (%s); give %s",
            cmd, ckpt, path, (unsigned long long)bytes, crc, strerror(errno), flag);
    size_t n;
    uint8_t *text = read_file(path, &n);
    uint32_t now = crc32_update(0, text, n);
    free(text);
    if (n != bytes || now != crc)
        die("%s: the checkpoint '%s' trained on '%s' (%llu bytes, CRC-32 %08x); that file is now %zu bytes, CRC-32 %08x: it "
            "changed since, so it is not scored by default; give %s", cmd, ckpt, path, (unsigned long long)bytes, crc, n,
            now, flag);
    return path;
}
