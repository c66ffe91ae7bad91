// rundir.h - a training run's directory: created and checked writable up front, locked while
// a process writes it, never silently reused, tidied of a killed run's temporary files.
#ifndef POSGPT_RUNDIR_H
#define POSGPT_RUNDIR_H

// mkdir -p, then check the directory is writable (now, not after hours of training)
void rundir_create(const char *dir);
// an exclusive lock (flock on DIR/.lock) for the rest of the process: a second posgpt on the
// same directory gets an error naming this one's PID; released however the process ends, and
// the file removed at exit (never while another process holds it)
void rundir_lock(const char *dir);
// a new run must not silently replace one that can be resumed: dies naming what DIR holds,
// unless overwrite (then the old checkpoint is removed first)
void rundir_refuse_existing(const char *dir, int overwrite);
// remove temporary files a killed run left behind
void rundir_remove_stale_tmp(const char *dir);
// on resume: the log rewritten as `header`, then its complete rows up to `step` (each a step
// then as many fields as the header, printable ASCII, steps increasing). A damaged line (NUL
// or other odd bytes, a wrong field count, a step out of order, a row up to `step` cut short)
// is dropped, a missing or damaged header written again, and a warning says so; a missing log
// starts again with its header (a warning when step > 0)
void rundir_truncate_log(const char *path, long step, const char *header);
#endif
