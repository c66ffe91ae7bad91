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

// ---- outputs: temporary files of unfinished writes, removed at exit or on a signal ----
#define MAX_PENDING 16
static char *pending[MAX_PENDING];
static volatile sig_atomic_t npending;

static void remove_pending(void) {
    for (int i = 0; i < npending; i++)
        if (pending[i]) unlink(pending[i]);
}
static void on_fatal_signal(int sig) {
    remove_pending();
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
static void track(char *tmp) {
    static int registered;
    if (!registered) atexit(remove_pending), registered = 1;
    for (int i = 0; i < npending; i++)
        if (!pending[i]) {
            pending[i] = tmp;
            return;
        }
    if (npending == MAX_PENDING) die("internal: more than %d outputs open at once", MAX_PENDING);
    pending[npending] = tmp;
    npending = npending + 1;
}
static void untrack(const char *tmp) {
    for (int i = 0; i < npending; i++)
        if (pending[i] == tmp) pending[i] = NULL;
}

FILE *out_open(OutFile *o, const char *path, const char *what) {
    memset(o, 0, sizeof *o);
    o->path = strdup(path);
    if (!o->path) die("out of memory");
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) die("cannot write %s '%s': it is a directory", what, path);
    if (exists && !S_ISREG(st.st_mode)) { // /dev/stdout, a FIFO, /dev/full: in place
        o->f = fopen(path, "wb");
        if (!o->f) die("cannot write %s '%s': %s", what, path, strerror(errno));
        return o->f;
    }
    size_t n = strlen(path) + 32;
    o->tmp = xmalloc(n);
    snprintf(o->tmp, n, "%s.tmp.%d", path, (int)getpid());
    track(o->tmp);
    o->f = fopen(o->tmp, "wb");
    if (!o->f) {
        untrack(o->tmp);
        die("cannot write %s '%s': %s", what, path, strerror(errno));
    }
    return o->f;
}

int out_try_commit(OutFile *o) {
    int bad = ferror(o->f) ? (errno ? errno : EIO) : 0;
    if (!bad && fflush(o->f) != 0) bad = errno;
    if (!bad && o->tmp && fsync(fileno(o->f)) != 0) bad = errno;
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
            atomic ? " (nothing was replaced: an earlier file of that name is intact)" : "");
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
