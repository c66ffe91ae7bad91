// rundir.c - the run directory's housekeeping (rundir.h).
#include "rundir.h"
#include "ckpt.h"
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

// the lock this process holds (its path; the descriptor stays open until exit)
static char g_lock_path[4200];
static int g_lock_fd = -1;

// at exit: the lock file is removed while still locked, so a process that holds it is never
// robbed of it (one that opened the old file before the unlink finds, once it has locked it,
// that the path names another file, and locks again: see rundir_lock)
static void remove_lock(void) {
    if (g_lock_fd < 0) return;
    unlink(g_lock_path);
    close(g_lock_fd);
    g_lock_fd = -1;
}

// An exclusive lock on the run directory for as long as this process may write it: a second
// posgpt on the same directory gets an error naming this one's PID. flock is released when
// the process ends, however it ends, so a killed run leaves no lock in force; the file itself
// is removed at exit (normal end, error, or a stop signal, which ends through exit too).
void rundir_lock(const char *dir) {
    char *p = g_lock_path;
    snprintf(p, sizeof g_lock_path, "%s/.lock", dir);
    int fd;
    for (;;) { // until the file locked is the one the path names (another process may have just removed it)
        fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) die("cannot create the lock file '%s': %s", p, strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK) die("cannot lock the run directory '%s': %s", dir, strerror(errno));
            char buf[32] = {0};
            long pid = pread(fd, buf, sizeof buf - 1, 0) > 0 ? atol(buf) : 0;
            char who[64] = "another posgpt process";
            if (pid > 0) snprintf(who, sizeof who, "another posgpt process (PID %ld)", pid);
            die("the run directory '%s' is in use by %s; wait for it to finish, stop it, or choose another --out", dir, who);
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(p, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) break;
        close(fd);
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%d\n", (int)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n) die("cannot write the lock file '%s': %s", p, strerror(errno));
    if (g_lock_fd < 0) atexit(remove_lock);
    g_lock_fd = fd; // stays open: the lock lasts until exit
}

// a new run must not silently replace one that can be resumed
void rundir_refuse_existing(const char *dir, int overwrite) {
    char ck[4200], lg[4200];
    snprintf(ck, sizeof ck, "%s/model.bin", dir);
    snprintf(lg, sizeof lg, "%s/log.csv", dir);
    struct stat st;
    int has_ck = stat(ck, &st) == 0, has_log = stat(lg, &st) == 0;
    if (overwrite) { // an old run's model of its learned step (train --after-learn) is not the new run's
        char ml[4300];
        snprintf(ml, sizeof ml, "%s/model-learned.bin", dir);
        if (unlink(ml) != 0 && errno != ENOENT && errno != ENOTDIR) die("cannot remove '%s': %s", ml, strerror(errno));
    }
    if (!has_ck && !has_log) return;
    if (overwrite) { // the old checkpoint goes first: a crash before the new one is saved leaves no mix
        if (has_ck && unlink(ck) != 0) die("cannot remove '%s': %s", ck, strerror(errno));
        return;
    }
    char what[160] = "a log.csv";
    int finished = 0;
    if (has_ck) {
        FILE *f = fopen(ck, "rb");
        GPT m;
        TrainState ts;
        char err[512];
        if (f && ckpt_read(f, ck, &m, &ts, NULL, err, sizeof err) == 0) {
            snprintf(what, sizeof what, "a %s run (step %ld of %d)", ts.step >= ts.steps ? "finished" : "resumable", ts.step, ts.steps);
            finished = ts.step >= ts.steps;
            gpt_free(&m);
        } else snprintf(what, sizeof what, "a checkpoint");
        if (f) fclose(f);
    }
    if (finished)
        die("'%s' already holds %s; choose another --out, pass --overwrite to replace it, or extend it with --resume %s --steps N",
            dir, what, dir);
    die("'%s' already holds %s; continue it with --resume %s, choose another --out, or pass --overwrite to replace it", dir,
        what, dir);
}


void rundir_create(const char *dir) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) die("cannot create directory '%s': %s", buf, strerror(errno));
            *p = '/';
        }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) die("cannot create output directory '%s': %s", buf, strerror(errno));
    // writable? checked now, not after hours of training
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.write-test.%d", buf, (int)getpid());
    FILE *f = fopen(probe, "w");
    if (!f) die("output directory '%s' is not writable: %s", buf, strerror(errno));
    fclose(f);
    unlink(probe);
}

// remove temporary files a killed run left behind (never read, only clutter; the directory
// is locked, so no other process is writing them)
void rundir_remove_stale_tmp(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp.") && (!strncmp(e->d_name, "model.bin.", 10) || !strncmp(e->d_name, "log.csv.", 8) ||
                                            !strncmp(e->d_name, "config.txt.", 11) || !strncmp(e->d_name, "summary.json.", 13))) {
            char p[4400];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
}

// a row of the log: the step (digits) then exactly as many commas as the header has, printable
// ASCII only; its step, or -1
static long log_row_step(const char *line, size_t len, int commas) {
    if (len == 0 || line[0] < '0' || line[0] > '9') return -1;
    int c = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] < 0x20 || line[i] > 0x7e) return -1;
        c += line[i] == ',';
    }
    if (c != commas) return -1;
    char *end;
    long step = strtol(line, &end, 10);
    return *end == ',' ? step : -1;
}

// on resume: keep the header and the complete rows up to the checkpoint's step (a killed run
// may have logged steps whose checkpoint never landed, or half a row), so the resumed log
// has each step once; anything else is damage, dropped and said (rundir.h)
void rundir_truncate_log(const char *path, long step, const char *header) {
    size_t n = 0;
    struct stat st;
    char *text = stat(path, &st) == 0 ? (char *)read_regular_file(path, "log", (size_t)1 << 32, &n) : NULL;
    int commas = 0;
    for (const char *h = header; *h; h++) commas += *h == ',';
    OutFile o;
    FILE *f = out_open(&o, path, "log");
    fprintf(f, "%s\n", header);
    long rows = 0, last = -1, damaged = 0;
    int had_header = 0;
    for (size_t at = 0, no = 0; at < n; no++) {
        const char *line = text + at, *nl = memchr(line, '\n', n - at);
        if (!nl) { // the last line, cut short: no damage if a kill cut a row past the checkpoint
            char *e; // (text ends in a NUL: read_regular_file)
            long cut = strtol(line, &e, 10);
            damaged += !(e > line && cut > step);
            break;
        }
        size_t len = (size_t)(nl - line);
        at += len + 1;
        if (no == 0 && len == strlen(header) && memcmp(line, header, len) == 0) {
            had_header = 1;
            continue;
        }
        long s = log_row_step(line, len, commas);
        if (s > step) continue; // a row past the checkpoint: the resume does it again
        if (s < 0 || s <= last) {
            damaged++;
            continue;
        }
        fwrite(line, 1, len + 1, f);
        rows++, last = s;
    }
    free(text);
    out_commit(&o);
    if (n == 0 && step > 0)
        fprintf(stderr, "warning: %s was %s: its rows up to step %ld are lost; it starts again with its header\n", path,
                text ? "empty" : "missing", step);
    else if (n > 0 && (damaged || !had_header)) {
        char what[160] = "";
        if (damaged)
            snprintf(what, sizeof what, "%ld line(s) that are not rows of this log dropped (odd bytes, a wrong number of fields, "
                     "steps out of order, or cut short)%s", damaged, had_header ? "" : "; ");
        fprintf(stderr, "warning: %s was damaged: %s%s; %ld row(s) kept%s\n", path, what,
                had_header ? "" : "its header was missing or damaged: written again", rows, rows ? "" : " (the log starts again)");
    }
}

