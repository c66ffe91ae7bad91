// data.h - byte corpora: read a whole file, split off the held-out tail.
#ifndef POSGPT_DATA_H
#define POSGPT_DATA_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *bytes; // owned buffer holding the whole file
    const uint8_t *train, *val;
    size_t ntrain, nval;
    // what identifies the files: sizes and CRC-32s (val_bytes 0: no --val, held out from data)
    uint64_t data_bytes, val_bytes;
    uint32_t data_crc, val_crc;
} Corpus;

// Read `path`; the last 10% is validation unless val_path is given (then all of `path` trains).
// Errors (one line, exit 1) on a missing, unreadable or empty file.
void corpus_load(Corpus *c, const char *path, const char *val_path);
void corpus_free(Corpus *c);
// whole file into a malloc'd buffer; *n its size
uint8_t *read_file(const char *path, size_t *n);
#endif
