// fileio.c - checked input and atomic, checked output. See fileio.h.
#include "fileio.h"

#include "common.h"

#include <errno.h>
#include <zlib.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m) {
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISCHR(m) ? "a character device"
           : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

void require_regular_file(const char *path, const char *what) {
    struct stat st;
    if (stat(path, &st) != 0) die("cannot read %s '%s': %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode)) die("%s '%s' is %s; give a regular file", what, path, kind_of(st.st_mode));
}

uint8_t *read_regular_file(const char *path, const char *what, size_t max, size_t *n) {
    // opened without blocking (a FIFO swapped in after the check cannot hang the open), then
    // checked again on the descriptor, which is what is read
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) die("cannot read %s '%s': %s", what, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) die("cannot read %s '%s': %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode)) die("%s '%s' is %s; give a regular file", what, path, kind_of(st.st_mode));
    if ((uint64_t)st.st_size > (uint64_t)max)
        die("%s '%s' is %.1f MiB; the most posgpt reads is %.1f MiB", what, path, st.st_size / 1048576.0, max / 1048576.0);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    size_t size = (size_t)st.st_size, len = 0;
    uint8_t *buf = xmalloc(size + 1);
    while (len < size) {
        ssize_t got = read(fd, buf + len, size - len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) free(buf);
        if (got < 0) die("error reading %s '%s': %s", what, path, strerror(errno));
        if (got == 0) die("%s '%s' shrank while being read (%zu of %zu bytes); is another program writing it?", what, path, len, size);
        len += (size_t)got;
    }
    close(fd);
    buf[len] = 0;
    *n = len;
    return buf;
}

// the path with its directory resolved ("a/../x", a symlinked directory); NULL if the directory
// does not exist (then nothing can be written there either)
static char *resolved(const char *path) {
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path; // base: into path, never a copy
    size_t dlen = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 1;
    char *dir = malloc(dlen + 1);
    if (!dir) die("out of memory");
    if (slash) memcpy(dir, path, dlen);
    else dir[0] = '.';
    dir[dlen] = 0;
    char *d = realpath(dir, NULL), *r = NULL;
    free(dir);
    if (d && (r = malloc(strlen(d) + strlen(base) + 2))) sprintf(r, "%s/%s", d, base);
    free(d);
    return r;
}

int same_file(const char *a, const char *b) {
    struct stat x, y;
    int ex = stat(a, &x) == 0, ey = stat(b, &y) == 0;
    if (ex && ey) return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
    if (ex || ey) return 0; // one exists, the other not
    char *p = resolved(a), *q = resolved(b);
    int same = p && q && !strcmp(p, q);
    free(p), free(q);
    return same;
}

// the descriptor N a path names: /dev/stdout (1), /dev/stderr (2), /dev/fd/N, /proc/self/fd/N,
// or a link to one of those (its first hop); -1 for any other path
static int fd_path(const char *path) {
    char link[64];
    int n, end = 0;
    if (!strcmp(path, "/dev/stdout")) return 1;
    if (!strcmp(path, "/dev/stderr")) return 2;
    if ((sscanf(path, "/dev/fd/%d%n", &n, &end) == 1 || sscanf(path, "/proc/self/fd/%d%n", &n, &end) == 1) && !path[end] && n >= 0)
        return n;
    ssize_t k = readlink(path, link, sizeof link - 1);
    if (k <= 0 || k == (ssize_t)sizeof link - 1) return -1;
    link[k] = 0;
    return strcmp(link, path) ? fd_path(link) : -1;
}

void refuse_overlap(const char *what_out, const char *out, const char *what_in, const char *in) {
    struct stat st;
    if (!out || !in || !same_file(out, in)) return;
    if (stat(out, &st) == 0 && (!S_ISREG(st.st_mode) || fd_path(out) >= 0)) return; // written in place: nothing is replaced
    if (!strcmp(out, in))
        die("%s '%s' is also %s: posgpt never writes over a file the same command reads or writes; give %s another path",
            what_out, out, what_in, what_out);
    die("%s '%s' and %s '%s' are the same file: posgpt never writes over a file the same command reads or writes; give %s "
        "another path", what_out, out, what_in, in, what_out);
}

void refuse_overlaps(const NamedPath *outs, int nout, const NamedPath *ins, int nin) {
    for (int i = 0; i < nout; i++) {
        for (int k = 0; k < nin; k++) refuse_overlap(outs[i].what, outs[i].path, ins[k].what, ins[k].path);
        for (int k = 0; k < i; k++) refuse_overlap(outs[i].what, outs[i].path, outs[k].what, outs[k].path);
    }
}

// ---- outputs: temporary files of unfinished writes, removed at exit or on a signal ----
#define MAX_PENDING 16
static char *pending[MAX_PENDING];
static const char *pending_path[MAX_PENDING]; // the file each one replaces
static volatile sig_atomic_t npending;

void out_remove_pending(void) {
    for (int i = 0; i < npending; i++)
        if (pending[i]) unlink(pending[i]);
}
static void on_fatal_signal(int sig) {
    out_remove_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}
void on_stop_signals(void (*handler)(int)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}
void out_signals(void) { on_stop_signals(on_fatal_signal); }
static void track(char *tmp, const char *path) {
    static int registered;
    if (!registered) atexit(out_remove_pending), registered = 1;
    for (int i = 0; i < npending; i++)
        if (!pending[i]) {
            pending_path[i] = path;
            pending[i] = tmp;
            return;
        }
    if (npending == MAX_PENDING) die("internal: more than %d outputs open at once", MAX_PENDING);
    pending_path[npending] = path;
    pending[npending] = tmp;
    npending = npending + 1;
}
static void untrack(const char *tmp) {
    for (int i = 0; i < npending; i++)
        if (pending[i] == tmp) pending[i] = NULL;
}

FILE *out_open(OutFile *o, const char *path, const char *what) {
    memset(o, 0, sizeof *o);
    if (!*path) die("cannot write %s: the path is empty; give a file name", what);
    o->path = strdup(path);
    if (!o->path) die("out of memory");
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) die("cannot write %s '%s': it is a directory", what, path);
    int fd = exists ? fd_path(path) : -1;
    if (fd >= 0) { // the process's own descriptor (stdout redirected to a file, a pipe, a terminal): written
        // through it, sharing its offset; never a new file in its place (that would replace /dev/stdout itself)
        fflush(NULL);
        int d = dup(fd);
        if (d < 0 || !(o->f = fdopen(d, "wb"))) die("cannot write %s '%s': %s", what, path, strerror(errno));
        return o->f;
    }
    if (exists && !S_ISREG(st.st_mode)) { // a FIFO, /dev/full: in place
        o->f = fopen(path, "wb");
        if (!o->f) die("cannot write %s '%s': %s", what, path, strerror(errno));
        return o->f;
    }
    for (int i = 0; i < npending; i++) // two outputs of one file: the second commit would replace the first
        if (pending[i] && same_file(pending_path[i], path))
            die("cannot write %s '%s': this command writes '%s' already (the same file); give each output its own path", what,
                path, pending_path[i]);
    char *target = NULL;
    struct stat lst;
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) { // a link to a file: the file is replaced, not the link
        if (!(target = realpath(path, NULL))) die("cannot write %s '%s': %s", what, path, strerror(errno));
        free(o->path);
        o->path = target;
        path = target;
    }
    size_t n = strlen(path) + 48;
    o->tmp = xmalloc(n);
    static int serial;
    snprintf(o->tmp, n, "%s.tmp.%d.%d", path, (int)getpid(), serial++);
    track(o->tmp, o->path);
    o->f = fopen(o->tmp, "wb");
    if (!o->f) {
        untrack(o->tmp);
        die("cannot write %s '%s': %s", what, path, strerror(errno));
    }
    return o->f;
}

// an open output's data on disk: its stream's error state checked, flushed and (a temporary
// file) synced; 0, or the errno of the first failure
static int out_flush_sync(OutFile *o) {
    int bad = ferror(o->f) ? (errno ? errno : EIO) : 0;
    if (!bad && fflush(o->f) != 0) bad = errno ? errno : EIO;
    if (!bad && o->tmp && fsync(fileno(o->f)) != 0) bad = errno ? errno : EIO;
    return bad;
}

int out_try_commit(OutFile *o) {
    int bad = out_flush_sync(o);
    if (fclose(o->f) != 0 && !bad) bad = errno ? errno : EIO;
    o->f = NULL;
    if (!bad && o->tmp && rename(o->tmp, o->path) != 0) bad = errno;
    if (o->tmp) {
        if (bad) unlink(o->tmp);
        untrack(o->tmp);
    }
    free(o->tmp), free(o->path);
    memset(o, 0, sizeof *o);
    errno = bad;
    return bad ? -1 : 0;
}

void out_commit(OutFile *o) {
    char path[4096];
    int atomic = o->tmp != NULL;
    snprintf(path, sizeof path, "%s", o->path);
    if (out_try_commit(o))
        die("cannot write '%s': %s%s", path, strerror(errno),
            atomic ? " (nothing was replaced: a file of that name from before, if any, is intact)" : "");
}

void out_commit_all(OutFile *const *os, int n) {
    for (int i = 0; i < n; i++) {
        OutFile *o = os[i];
        if (!o || !o->f) continue;
        errno = 0;
        int bad = out_flush_sync(o);
        if (bad) // (die removes every unfinished output's temporary file)
            die("cannot write '%s': %s (nothing was replaced: the files of that name from before, if any, are intact)", o->path,
                strerror(bad));
    }
    for (int i = 0; i < n; i++)
        if (os[i] && os[i]->f) out_commit(os[i]);
}

void out_abandon(OutFile *o) {
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp), untrack(o->tmp);
    free(o->tmp), free(o->path);
    memset(o, 0, sizeof *o);
}

int out_flush_check(FILE *f) {
    if (fflush(f) != 0) return -1;
    if (ferror(f)) {
        errno = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

int out_close_stdout(int rc) {
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !bad) bad = 1, e = errno;
    if (bad) {
        fprintf(stderr, "posgpt: error: cannot write to standard output: %s\n", e ? strerror(e) : "write error");
        return rc ? rc : 1;
    }
    return rc;
}

uint32_t crc32_update(uint32_t crc, const void *data, size_t n) {
    return (uint32_t)crc32_z(crc, data, n); // zlib: CRC-32 of IEEE 802.3, continuing from crc
}
