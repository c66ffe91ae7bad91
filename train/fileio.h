// fileio.h - how posgpt reads input files and writes outputs, so that nothing it writes is
// ever half-written or silently short, and no input can hang it or exhaust memory.
//
// Reading: only regular files (a FIFO would block forever, /dev/zero never ends), up to a
// stated size cap; anything else is a one-line error.
// Writing: every output file is written under a temporary name beside it, checked (each
// write, fflush, fsync, fclose), then renamed over the target: a reader never sees a
// partial file, and a failure (a full disk) leaves the earlier file intact and is a one-line
// error with exit status 1. A target that exists and is not a regular file (/dev/stdout, a
// FIFO) is written directly, still checked. Temporary files of an unfinished write are
// removed at exit and on SIGINT, SIGTERM and SIGHUP.
#ifndef POSGPT_FILEIO_H
#define POSGPT_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// the whole of a regular file, NUL-terminated (not counted in *n); `what` names it in errors
// ("data file", "plot CSV", "font"); dies if it is not a regular file or exceeds max bytes
uint8_t *read_regular_file(const char *path, const char *what, size_t max, size_t *n);
// dies with a one-line error unless path names a regular file (or does not exist, if may_miss)
void require_regular_file(const char *path, const char *what);

// No command writes over one of its own inputs, nor gives two outputs one file: dies, before
// any work, when `out` (named in messages by its flag, what_out, e.g. "--csv") is the same
// file as `in` (what_in): the same device and inode when both exist, so a symlink, "./x",
// "a/../x" and a hard link count, else the same resolved path. Either may be NULL (no check).
// A target that is not a regular file (/dev/stdout, a FIFO) is written in place and never
// replaces anything: two outputs may share it.
void refuse_overlap(const char *what_out, const char *out, const char *what_in, const char *in);
// 1 if a and b name the same file (as refuse_overlap compares them)
int same_file(const char *a, const char *b);
// a command's files by flag: refuse_overlap for every output against every input and every
// output before it (NULL paths are not given, skipped)
typedef struct {
    const char *what, *path;
} NamedPath;
void refuse_overlaps(const NamedPath *outs, int nout, const NamedPath *ins, int nin);

typedef struct {
    FILE *f;
    char *path, *tmp; // tmp NULL: written in place (not a regular file)
} OutFile;
// open path for writing (binary); `what` names it in errors
FILE *out_open(OutFile *o, const char *path, const char *what);
// flush, check, fsync, close and rename into place; dies on any failure (tmp removed)
void out_commit(OutFile *o);
// the same, returning -1 with errno set instead of dying
int out_try_commit(OutFile *o);
// commit the n outputs of one command together (NULL entries skipped): every one flushed,
// checked and synced before any is renamed into place, so that a failure in one leaves every
// target as it was (an output written in place, a FIFO or a device, is written as it goes)
void out_commit_all(OutFile *const *o, int n);
// drop an unfinished output (tmp removed, target untouched)
void out_abandon(OutFile *o);

// handler for SIGINT, SIGTERM and SIGHUP (the signals that ask a process to stop)
void on_stop_signals(void (*handler)(int));
// removes the temporary files of unfinished outputs (async-signal-safe: only unlink); at exit
// and on out_signals' signals this happens by itself, a handler of one's own calls it
void out_remove_pending(void);
// stop signals remove unfinished outputs and then end the process with the signal (for
// commands with no state of their own to save)
void out_signals(void);
// for a long-lived stream (log.csv): 0 if everything written so far reached the file
// (fflush and the error flag checked), else -1 with errno set
int out_flush_check(FILE *f);
// at the end of main: stdout flushed and closed; a write error (a full disk, /dev/full) is a
// one-line error and makes the exit status 1
int out_close_stdout(int rc);
// CRC-32 (IEEE 802.3, as zlib's crc32()) of n bytes, continuing from crc (0 to start)
uint32_t crc32_update(uint32_t crc, const void *data, size_t n);
#endif
