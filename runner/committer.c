// SPDX-License-Identifier: BSD-3-Clause
// The committer process and its pipe protocol (see committer.h).
#define _GNU_SOURCE
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bytes.h"
#include "campaign_writer.h"
#include "grow.h"
#include "committer.h"
#include "crc32.h"
#include "errmsg.h"
#include "h5util.h"
#include "safe_create.h"
#include "safe_open.h"

#define COMMIT_MAGIC 0x5343414cu /* "SCAL" */

static int write_full(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return scal__fail(SCAL_EIO, "the committer pipe broke: %s", strerror(errno));
        p += w;
        n -= (size_t)w;
    }
    return SCAL_OK;
}

/* 1: got n bytes, 0: clean end of stream before the first byte, negative: error or torn message */
static int read_full(int fd, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return got == 0 && r == 0 ? 0 : SCAL_EIO;
        got += (size_t)r;
    }
    return 1;
}

/* Where a message is read from: a descriptor (the pipe, a kept .commit file of an earlier scal) or
 * memory (a journal record). */
struct src {
    int fd;
    const unsigned char *mem;
    size_t len, pos;
};

/* read_full's contract for either kind of source. */
static int src_read(struct src *s, void *buf, size_t n)
{
    if (s->fd >= 0) return read_full(s->fd, buf, n);
    if (n > s->len - s->pos) return s->pos == s->len ? 0 : SCAL_EIO;
    memcpy(buf, s->mem + s->pos, n);
    s->pos += n;
    return 1;
}

static char *recv_string(struct src *in)
{
    uint32_t n;
    if (src_read(in, &n, sizeof(n)) != 1 || n > (64u << 20)) return NULL;
    char *s = malloc(n + 1);
    if (s && n && src_read(in, s, n) != 1) {
        free(s);
        return NULL;
    }
    if (s) s[n] = 0;
    return s;
}

/* A message is built in memory (common/bytes.h) and sent with one write. */
/* A string of any length (NULL: empty), after its length. */
static void put_string(struct scal_bytes *b, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : 0;
    scal_bytes_u32(b, n);
    scal_bytes_put(b, s, n);
}

/* One run as the pipe and a kept .commit file carry it. Version 0 names the run file (the tool's,
 * or its MPI ranks'); version 1 carries the run's snapshots themselves after that name, so that
 * nothing else is needed to commit or rebuild the run. */
#define COMMIT_V_RUN_FILE 0u
#define COMMIT_V_SNAPSHOTS 1u
#define SNAPSHOT_MAX ((uint64_t)1 << 36) /* a length beyond is a damaged record */

struct commit_msg {
    struct scal_run_row row;
    uint32_t keep;
    char *message, *stdout_tail, *stderr_tail, *run_file;
    struct scal_cw_snapshot *snaps;
    size_t nsnaps;
};

static void commit_msg_free(struct commit_msg *m)
{
    free(m->message), free(m->stdout_tail), free(m->stderr_tail), free(m->run_file);
    for (size_t i = 0; i < m->nsnaps; i++)
        free((char *)m->snaps[i].name), free((unsigned char *)m->snaps[i].bytes);
    free(m->snaps);
    memset(m, 0, sizeof(*m));
}

/* 1: a whole message, 0: clean end of stream before it, negative: a torn or damaged message. */
static int recv_commit(struct src *fd, struct commit_msg *m)
{
    uint32_t hdr[2], n = 0;
    memset(m, 0, sizeof(*m));
    int got = src_read(fd, hdr, sizeof(hdr));
    if (got <= 0) return got;
    if (hdr[0] != COMMIT_MAGIC || hdr[1] > COMMIT_V_SNAPSHOTS ||
        src_read(fd, &m->row, sizeof(m->row)) != 1 ||
        src_read(fd, &m->keep, sizeof(m->keep)) != 1 || !(m->message = recv_string(fd)) ||
        !(m->stdout_tail = recv_string(fd)) || !(m->stderr_tail = recv_string(fd)) ||
        !(m->run_file = recv_string(fd)) ||
        (hdr[1] == COMMIT_V_SNAPSHOTS && src_read(fd, &n, sizeof(n)) != 1) ||
        !(m->snaps = calloc(n ? n : 1, sizeof(*m->snaps)))) {
        commit_msg_free(m);
        return SCAL_EIO;
    }
    for (; m->nsnaps < n; m->nsnaps++) {
        struct scal_cw_snapshot *s = &m->snaps[m->nsnaps];
        uint64_t len = 0;
        unsigned char *bytes = NULL;
        if (!(s->name = recv_string(fd)) || src_read(fd, &len, sizeof(len)) != 1 ||
            len > SNAPSHOT_MAX || !(bytes = malloc(len ? (size_t)len : 1)) ||
            (len && src_read(fd, bytes, (size_t)len) != 1)) {
            free(bytes);
            m->nsnaps++; /* its name is freed with the rest */
            commit_msg_free(m);
            return SCAL_EIO;
        }
        s->bytes = bytes;
        s->len = (size_t)len;
    }
    return 1;
}

/* The team size the program really used: the largest team of a top-level parallel region. */
static int32_t observed_team(const struct scal_cw_payload *p)
{
    int32_t team = -1;
    for (size_t k = 0; k < p->nparts; k++) { /* MPI ranks: the largest team of any rank */
        int32_t t = observed_team(&p->parts[k]);
        if (t > team) team = t;
    }
    for (size_t i = 0; i < p->nregions && i < p->nstats; i++)
        if (p->regions[i].kind == SCAL_KIND_PARALLEL && p->regions[i].parent == 0 &&
            p->stats[i].team_actual_max > team)
            team = p->stats[i].team_actual_max;
    return team;
}

/* The tool's last own line ("scal: ...") in the program's stderr: the tool loaded, and says why
 * the run file is not where it was expected. */
static bool tool_said(const char *err, char *out, size_t len)
{
    const char *last = NULL;
    for (const char *at = err; at && *at; at = strchr(at, '\n'), at = at ? at + 1 : NULL)
        if (!strncmp(at, "scal: ", 6)) last = at;
    if (!last) return false;
    snprintf(out, len, "%.*s", (int)strcspn(last + 6, "\n"), last + 6);
    return true;
}

/* An MPI run whose ranks did not all leave a run file (a rank killed or crashed): the message
 * names them; the others' data is kept. */
static void note_missing_ranks(const struct scal_cw_payload *p, char *message, size_t len)
{
    size_t missing = 0, used = strlen(message);
    for (size_t i = 0; i < p->nranks; i++)
        missing += !p->ranks[i].recorded;
    if (!missing || used + 64 >= len) return;
    used +=
        (size_t)snprintf(message + used, len - used, "%s%zu of %zu ranks left no run file (rank",
                         used ? "; " : "", missing, p->nranks);
    for (size_t i = 0; i < p->nranks && used + 16 < len; i++)
        if (!p->ranks[i].recorded)
            used += (size_t)snprintf(message + used, len - used, " %d", (int)p->ranks[i].rank);
    if (used + 40 < len) snprintf(message + used, len - used, "); the others' data is kept");
}

static int unlink_file(const char *file, void *ctx)
{
    (void)ctx;
    unlink(file);
    return SCAL_OK;
}

static void commit_one(struct scal_cw *w, struct scal_run_row *row, char *msg, const char *out,
                       const char *err, const char *run_file, const struct scal_cw_snapshot *snaps,
                       size_t nsnaps, uint32_t keep, struct scal_commit_ack *ack)
{
    struct scal_cw_payload p;
    bool have = false;
    char message[1024];
    snprintf(message, sizeof(message), "%s", msg ? msg : "");
    memset(ack, 0, sizeof(*ack));
    ack->team_observed = -1;
    /* every run's measurements are kept, whatever its exit status (--ok-exit decides which
     * statuses are success; the report decides what to use) */
    if (nsnaps || (run_file && *run_file)) {
        /* the run's snapshot (or its MPI ranks'), else the run file (or its ranks' files) */
        int rc = nsnaps ? scal_cw_payload_from_snapshots(run_file, snaps, nsnaps, &p)
                        : scal_cw_payload_from_run_files(run_file, SCAL_OPEN_NO_PROBE, &p);
        if (rc == SCAL_OK) {
            have = true;
            ack->team_observed = row->team_observed = observed_team(&p);
            ack->team_mismatch = row->team_mismatch =
                row->team_observed > 0 && row->team_observed != row->team_requested;
            note_missing_ranks(&p, message, sizeof(message));
            if (row->team_mismatch) {
                size_t used = strlen(message);
                snprintf(message + used, sizeof(message) - used,
                         "%sthe program ignored the requested %d threads (largest top-level "
                         "team: %d)",
                         used ? "; " : "", row->team_requested, row->team_observed);
            }
        } else if (row->status == SCAL_RUN_OK) {
            row->status = SCAL_RUN_NODATA;
            ack->nodata = 1;
            snprintf(message, sizeof(message), "exited 0 but its %s is unreadable: %s",
                     nsnaps ? "run snapshot" : "run file", scal__last_error(rc));
        } else {
            size_t used = strlen(message);
            snprintf(message + used, sizeof(message) - used, "%sits %s is unreadable: %s",
                     used ? "; " : "", nsnaps ? "run snapshot" : "run file", scal__last_error(rc));
        }
    } else if (row->status == SCAL_RUN_OK) {
        char said[512];
        row->status = SCAL_RUN_NODATA;
        ack->nodata = 1;
        if (tool_said(err, said, sizeof(said)))
            snprintf(message, sizeof(message), "exited 0 but wrote no run file: the tool said '%s'",
                     said);
        else
            snprintf(message, sizeof(message),
                     "exited 0 but wrote no run file: the OpenMP runtime did not load the scal "
                     "tool (no OMPT-capable runtime, a static OpenMP runtime, or no OpenMP region "
                     "ran)");
    }
    struct scal_cw_run run = {*row, message, out, err};
    ack->status = scal_cw_add_run(w, &run, have ? &p : NULL, &ack->run_id);
    if (ack->status < 0)
        snprintf(ack->message, sizeof(ack->message), "cannot add the run to the campaign: %s",
                 scal__last_error(ack->status));
    else
        snprintf(ack->message, sizeof(ack->message), "%s", message);
    if (have) scal_cw_payload_free(&p);
    if (run_file && *run_file && !keep && ack->status == SCAL_OK)
        scal_cw_run_files_each(run_file, "", unlink_file, NULL);
}

static int committer_main(int in, int out, const char *path)
{
    /* HDF5 allocates and frees megabytes of caches for every run file it opens; kept in the heap
     * instead of being mapped and unmapped each time, that costs no page faults. */
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    struct scal_cw *w = NULL;
    /* The runner created the file or, for --resume, has just read it through a probe: the
     * committer opens it without reading it all again (scal_committer_start's contract). */
    int rc = scal_cw_open(path, SCAL_OPEN_NO_PROBE, &w);
    struct scal_commit_ack ack = {.status = rc};
    if (rc < 0) snprintf(ack.message, sizeof(ack.message), "%s", scal__last_error(rc));
    if (write_full(out, &ack, sizeof(ack)) < 0 || rc < 0) return 1;
    struct src pipe_in = {.fd = in};
    for (;;) {
        struct commit_msg m;
        int got = recv_commit(&pipe_in, &m);
        if (got == 0) break; /* the runner finished or died: close the file */
        if (got < 0) break;  /* a torn message: the runner died while sending; not complete */
        commit_one(w, &m.row, m.message, m.stdout_tail, m.stderr_tail, m.run_file, m.snaps,
                   m.nsnaps, m.keep, &ack);
        commit_msg_free(&m);
        if (write_full(out, &ack, sizeof(ack)) < 0) {
            /* the runner is gone; the run is committed anyway */
        }
    }
    return scal_cw_close(w) < 0 ? 1 : 0;
}

static void on_runner_gone(int sig)
{
    (void)sig;
    signal(SIGALRM, SIG_DFL);
    alarm(60);
}

int scal_committer_start(struct scal_committer *c, const char *campaign_path)
{
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0)
        return scal__fail(SCAL_EIO, "cannot create pipes: %s", strerror(errno));
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return scal__fail(SCAL_EIO, "cannot fork the committer: %s", strerror(errno));
    if (pid == 0) {
        /* its own session: neither the terminal's Ctrl-C nor a kill of the runner's process group
         * reaches it; it ends when the pipe closes */
        setsid();
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);
        /* when the runner dies the pipe closes and the committer closes the file; should it hang
         * (HDF5 on a damaged file), it ends 60 s after the runner all the same */
        signal(SIGUSR1, on_runner_gone);
        prctl(PR_SET_PDEATHSIG, SIGUSR1);
        if (getppid() != parent) on_runner_gone(SIGUSR1);
        close(to[1]);
        close(from[0]);
        _exit(committer_main(to[0], from[1], campaign_path));
    }
    close(to[0]);
    close(from[1]);
    c->pid = pid;
    c->to_fd = to[1];
    c->from_fd = from[0];
    struct scal_commit_ack ack = {0};
    if (read_full(c->from_fd, &ack, sizeof(ack)) == 1 && ack.status == SCAL_OK) return SCAL_OK;
    close(c->to_fd);
    close(c->from_fd);
    waitpid(pid, NULL, 0);
    ack.message[sizeof(ack.message) - 1] = '\0';
    if (ack.status < 0) return scal__fail(ack.status, "%s", ack.message); /* names the file */
    return scal__fail(SCAL_ECHILD, "the committer process failed to open '%s'", campaign_path);
}

static void build_commit(struct scal_bytes *b, const struct scal_run_row *row, uint32_t keep,
                         const char *message, const char *stdout_tail, const char *stderr_tail,
                         const struct scal_commit_data *data)
{
    uint32_t hdr[2] = {COMMIT_MAGIC, data->nsnaps ? COMMIT_V_SNAPSHOTS : COMMIT_V_RUN_FILE};
    uint32_t n = (uint32_t)data->nsnaps;
    scal_bytes_put(b, hdr, sizeof(hdr));
    scal_bytes_put(b, row, sizeof(*row));
    scal_bytes_put(b, &keep, sizeof(keep));
    put_string(b, message);
    put_string(b, stdout_tail);
    put_string(b, stderr_tail);
    put_string(b, data->run_file);
    if (n) scal_bytes_put(b, &n, sizeof(n));
    for (size_t i = 0; i < data->nsnaps; i++) {
        uint64_t len = data->snaps[i].len;
        put_string(b, data->snaps[i].name);
        scal_bytes_put(b, &len, sizeof(len));
        scal_bytes_put(b, data->snaps[i].bytes, data->snaps[i].len);
    }
}

int scal_committer_commit(struct scal_committer *c, const struct scal_run_row *row,
                          const char *message, const char *stdout_tail, const char *stderr_tail,
                          const struct scal_commit_data *data, bool keep_run_file,
                          struct scal_commit_ack *ack)
{
    struct scal_bytes b = {0};
    build_commit(&b, row, keep_run_file, message, stdout_tail, stderr_tail, data);
    int rc = b.failed ? scal__fail(SCAL_ENOMEM, "out of memory sending a run to the committer")
                      : write_full(c->to_fd, b.p, b.len);
    free(b.p);
    if (rc == SCAL_OK && read_full(c->from_fd, ack, sizeof(*ack)) != 1) rc = SCAL_EIO;
    if (rc < 0) {
        memset(ack, 0, sizeof(*ack));
        ack->status = rc;
        snprintf(ack->message, sizeof(ack->message), "the committer process died");
    }
    return rc < 0 ? rc : ack->status;
}

/* ---- the kept runs: one append-only journal per campaign ----------------------------------- */

/* A record: this head, then the run as the committer is sent it (len bytes, CRC-32 crc). The
 * head's own CRC covers what precedes it. A damaged record (a flipped byte, an overwritten head) is
 * skipped: the reader looks for the next head (its magic, then both CRCs), so every intact record
 * after it is still found; what follows the last whole record (a record torn by a kill or a full
 * disk) was never reported kept. */
#define JOURNAL_MAGIC 0x4a4c4353u /* "SCLJ" */
struct journal_head {
    uint32_t magic, slot;
    uint64_t len;
    uint32_t crc, head_crc;
};

static uint32_t crc_of(const void *p, size_t n)
{
    return scal_crc32(0, p, n);
}

struct journal_entry {
    uint32_t slot;     /* (config, repetition) as a plan slot, from the run's own row */
    size_t order;      /* legacy .commit files first, then journal records in their order */
    char *file;        /* a kept .commit file of an earlier scal, or NULL */
    uint64_t off, len; /* a journal record's body */
};

/* Whether a whole record starts at off (of a file of size bytes): head and body CRCs hold. The
 * body is read into *body (grown as needed). */
static bool record_at(int fd, uint64_t off, uint64_t size, struct journal_head *h,
                      unsigned char **body, size_t *cap)
{
    if (size - off < sizeof(*h) || pread(fd, h, sizeof(*h), (off_t)off) != (ssize_t)sizeof(*h) ||
        h->magic != JOURNAL_MAGIC ||
        h->head_crc != crc_of(h, offsetof(struct journal_head, head_crc)) ||
        h->len > size - off - sizeof(*h) || h->len > SNAPSHOT_MAX * 64)
        return false;
    if (h->len > *cap) {
        unsigned char *grown = realloc(*body, (size_t)h->len);
        if (!grown) return false;
        *body = grown;
        *cap = (size_t)h->len;
    }
    ssize_t got = h->len ? pread(fd, *body, (size_t)h->len, (off_t)(off + sizeof(*h))) : 0;
    return got == (ssize_t)h->len && crc_of(*body, (size_t)h->len) == h->crc;
}

/* The offset of the next whole record after off, or size: the file is searched for the head's
 * magic a window at a time. */
static uint64_t next_record(int fd, uint64_t off, uint64_t size, unsigned char **body, size_t *cap)
{
    enum { WINDOW = 1 << 20 };
    static const uint32_t magic = JOURNAL_MAGIC;
    unsigned char *win = malloc(WINDOW);
    uint64_t at = off + 1, found = size;
    while (win && at + sizeof(struct journal_head) <= size && found == size) {
        size_t want = size - at < WINDOW ? (size_t)(size - at) : WINDOW;
        ssize_t got = pread(fd, win, want, (off_t)at);
        if (got < (ssize_t)sizeof(magic)) break;
        const unsigned char *p = win, *end = win + got;
        while (found == size && (p = memmem(p, (size_t)(end - p), &magic, sizeof(magic)))) {
            struct journal_head h;
            if (record_at(fd, at + (uint64_t)(p - win), size, &h, body, cap))
                found = at + (uint64_t)(p - win);
            p++;
        }
        at += (uint64_t)got - (sizeof(magic) - 1); /* a magic across two windows is still seen */
    }
    free(win);
    return found;
}

/* Calls fn for every whole record of the journal at fd (body read into memory), skipping damaged
 * ones (counted in *damaged); *end receives the end of the last whole record. fn may be NULL. */
static int journal_scan(int fd, const char *path, off_t *end, size_t *damaged,
                        int (*fn)(uint32_t slot, uint64_t off, const unsigned char *body,
                                  uint64_t len, void *ctx),
                        void *ctx)
{
    struct stat st;
    unsigned char *body = NULL;
    size_t cap = 0;
    uint64_t off = 0, last = 0;
    int rc = SCAL_OK;
    *damaged = 0;
    if (fstat(fd, &st) < 0)
        return scal__fail(SCAL_EIO, "cannot read '%s': %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return scal__fail(SCAL_EIO, "'%s' is not a regular file: move it away", path);
    uint64_t size = (uint64_t)st.st_size;
    while (off < size) {
        struct journal_head h;
        if (!record_at(fd, off, size, &h, &body, &cap)) {
            uint64_t next = next_record(fd, off, size, &body, &cap);
            if (next < size) ++*damaged; /* a torn end is no damaged record */
            off = next;
            continue;
        }
        if (fn && (rc = fn(h.slot, off + sizeof(h), body, h.len, ctx)) < 0) break;
        off += sizeof(h) + h.len;
        last = off;
    }
    free(body);
    *end = (off_t)last;
    return rc;
}

/* The journal at path, opened to read without ever blocking (a fifo planted there) and refused when
 * it is not a regular file; -1 with errno ENOENT when there is none. */
static int open_journal(const char *path, int flags)
{
    int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

static int journal_error(const char *path)
{
    return errno == EINVAL ? scal__fail(SCAL_EIO, "'%s' is not a regular file: move it away", path)
                           : scal__fail(SCAL_EIO, "cannot open '%s': %s", path, strerror(errno));
}

int scal_journal_open(struct scal_journal *j, const char *dir)
{
    snprintf(j->path, sizeof(j->path), "%s/" SCAL_JOURNAL_FILE, dir);
    j->fd = open_journal(j->path, O_RDWR);
    bool created = false;
    if (j->fd < 0 && errno == ENOENT) {
        j->fd = open(j->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        created = j->fd >= 0;
    }
    if (j->fd < 0) return journal_error(j->path);
    struct stat st;
    off_t end = 0;
    size_t damaged = 0;
    int rc = fstat(j->fd, &st) < 0
                 ? scal__fail(SCAL_EIO, "cannot read '%s': %s", j->path, strerror(errno))
                 : journal_scan(j->fd, j->path, &end, &damaged, NULL, NULL);
    /* a record torn by a kill or a full disk was never reported kept: new records go in its place,
     * never after it (damaged records before the last whole one stay: they are skipped) */
    if (rc == SCAL_OK && end != st.st_size && (ftruncate(j->fd, end) < 0 || fsync(j->fd) < 0))
        rc = scal__fail(SCAL_EIO, "cannot cut the torn end of '%s': %s", j->path, strerror(errno));
    if (rc == SCAL_OK && lseek(j->fd, end, SEEK_SET) < 0)
        rc = scal__fail(SCAL_EIO, "cannot read '%s': %s", j->path, strerror(errno));
    if (rc == SCAL_OK && created) { /* its name on disk before any record counts */
        int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d < 0 || fsync(d) < 0)
            rc = scal__fail(SCAL_EIO, "cannot write '%s' to disk: %s", dir, strerror(errno));
        if (d >= 0) close(d);
    }
    j->end = end;
    if (rc < 0) scal_journal_close(j);
    return rc;
}

void scal_journal_close(struct scal_journal *j)
{
    if (j->fd >= 0) close(j->fd);
    j->fd = -1;
}

static int count_record(uint32_t slot, uint64_t off, const unsigned char *body, uint64_t len,
                        void *ctx)
{
    (void)slot, (void)off, (void)body, (void)len;
    ++*(size_t *)ctx;
    return SCAL_OK;
}

static int is_commit_file(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 7 && !strcmp(d->d_name + n - 7, ".commit");
}

int scal_journal_has_runs(const char *dir)
{
    char path[4200];
    size_t n = 0, damaged = 0;
    off_t end;
    int rc = SCAL_OK;
    snprintf(path, sizeof(path), "%s/" SCAL_JOURNAL_FILE, dir);
    int fd = open_journal(path, O_RDONLY);
    if (fd < 0 && errno != ENOENT) return journal_error(path);
    if (fd >= 0) {
        rc = journal_scan(fd, path, &end, &damaged, count_record, &n);
        close(fd);
    }
    struct dirent **list = NULL;
    int legacy = scandir(dir, &list, is_commit_file, alphasort);
    for (int i = 0; i < legacy; i++)
        free(list[i]);
    free(list);
    return rc < 0 ? rc : n > 0 || legacy > 0 || damaged > 0;
}

static int sync_file(const char *file, void *ctx)
{
    (void)ctx;
    int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    int bad = fd < 0 || fsync(fd) < 0;
    if (fd >= 0) close(fd);
    return bad ? scal__fail(SCAL_EIO, "cannot write run file '%s' to disk: %s", file,
                            strerror(errno))
               : SCAL_OK;
}

int scal_committer_keep(struct scal_journal *j, uint32_t slot, const struct scal_run_row *row,
                        const char *message, const char *stdout_tail, const char *stderr_tail,
                        const struct scal_commit_data *data)
{
    /* a run file the record names (the tool wrote it, or each MPI rank its own) is on disk before
     * the record counts; snapshots travel inside the record */
    int rc = (!data->nsnaps || data->run_files_too) && data->run_file && *data->run_file
                 ? scal_cw_run_files_each(data->run_file, "", sync_file, NULL)
                 : SCAL_OK;
    if (rc < 0) return rc;
    struct scal_bytes b = {0};
    struct journal_head h = {JOURNAL_MAGIC, slot, 0, 0, 0};
    scal_bytes_put(&b, &h, sizeof(h));
    build_commit(&b, row, 1, message, stdout_tail, stderr_tail, data);
    if (b.failed) {
        free(b.p);
        return scal__fail(SCAL_ENOMEM, "out of memory keeping a run in '%s'", j->path);
    }
    h.len = b.len - sizeof(h);
    h.crc = crc_of(b.p + sizeof(h), (size_t)h.len);
    h.head_crc = crc_of(&h, offsetof(struct journal_head, head_crc));
    memcpy(b.p, &h, sizeof(h));
    errno = 0;
    /* the record's space first: a full disk stops here, before a byte of it is written */
    int e = posix_fallocate(j->fd, j->end, (off_t)b.len);
    if (e == ENOSPC || e == EDQUOT) {
        free(b.p);
        return scal__fail(SCAL_ENOSPC, "cannot write '%s': %s", j->path, strerror(e));
    }
    rc = write_full(j->fd, b.p, b.len);
    free(b.p);
    /* one flush of the data (and the file's size) per run: the record is on disk before it counts
     */
    if (rc == SCAL_OK && fdatasync(j->fd) < 0) rc = SCAL_EIO;
    if (rc < 0) {
        e = errno ? errno : EIO;
        /* a torn record is cut now when possible (else by the next scal_journal_open) */
        if (ftruncate(j->fd, j->end) == 0) lseek(j->fd, j->end, SEEK_SET);
        return scal__fail(e == ENOSPC || e == EDQUOT ? SCAL_ENOSPC : SCAL_EIO,
                          "cannot write '%s': %s", j->path, strerror(e));
    }
    j->end += (off_t)(sizeof(h) + h.len);
    return SCAL_OK;
}

struct entries {
    struct journal_entry *v;
    size_t n, cap;
    uint32_t nconfigs, repetitions; /* the plan's: a run outside it is no run of this campaign */
    struct scal_journal_stats *stats;
};

/* The plan slot of a kept run, from the row its message carries (never from the record's own slot
 * field, which a damaged or copied record may get wrong): UINT32_MAX when the message is not one
 * or the run is not in the plan. */
static uint32_t slot_of(const struct entries *e, const unsigned char *msg, size_t len)
{
    uint32_t hdr[2];
    struct scal_run_row row;
    if (len < sizeof(hdr) + sizeof(row)) return UINT32_MAX;
    memcpy(hdr, msg, sizeof(hdr));
    memcpy(&row, msg + sizeof(hdr), sizeof(row));
    if (hdr[0] != COMMIT_MAGIC || row.config >= e->nconfigs || row.repetition >= e->repetitions)
        return UINT32_MAX;
    return row.config * e->repetitions + row.repetition;
}

static int add_entry(struct entries *e, struct journal_entry x)
{
    if (x.slot == UINT32_MAX) { /* not a run of this plan: left out, and said */
        e->stats->foreign++;
        free(x.file);
        return SCAL_OK;
    }
    if (scal_grow((void **)&e->v, &e->cap, e->n, sizeof(*e->v), 64) < 0)
        return scal__fail(SCAL_ENOMEM, "out of memory listing the kept runs");
    x.order = e->n;
    e->v[e->n++] = x;
    return SCAL_OK;
}

static int add_record(uint32_t slot, uint64_t off, const unsigned char *body, uint64_t len,
                      void *ctx)
{
    (void)slot;
    struct entries *e = ctx;
    return add_entry(
        e, (struct journal_entry){.slot = slot_of(e, body, (size_t)len), .off = off, .len = len});
}

static int by_slot_then_order(const void *a, const void *b)
{
    const struct journal_entry *x = a, *y = b;
    if (x->slot != y->slot) return x->slot < y->slot ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* Adds one kept run to w. */
static int replay_one(struct scal_cw *w, const struct journal_entry *e, int journal,
                      const char *journal_path, size_t *nruns)
{
    char where[4300];
    struct commit_msg m;
    unsigned char *body = NULL;
    struct src in = {.fd = -1};
    int got = SCAL_EIO;
    if (e->file) {
        snprintf(where, sizeof(where), "%s", e->file);
        in.fd = open(e->file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    } else {
        snprintf(where, sizeof(where), "%s (the record at byte %llu)", journal_path,
                 (unsigned long long)e->off);
        body = malloc(e->len ? (size_t)e->len : 1);
        if (body && pread(journal, body, (size_t)e->len, (off_t)e->off) == (ssize_t)e->len) {
            in.mem = body;
            in.len = (size_t)e->len;
            in.fd = -1;
            got = 0;
        }
    }
    if ((in.fd >= 0 || in.mem) && (got = recv_commit(&in, &m)) == 1) {
        struct scal_commit_ack ack;
        commit_one(w, &m.row, m.message, m.stdout_tail, m.stderr_tail, m.run_file, m.snaps,
                   m.nsnaps, 1, &ack);
        commit_msg_free(&m);
        got = ack.status < 0
                  ? scal__fail(ack.status, "cannot rebuild from %s: %s", where, ack.message)
                  : SCAL_OK;
        if (got == SCAL_OK) ++*nruns;
    } else {
        got = scal__fail(SCAL_EFORMAT, "%s is damaged: cannot rebuild the campaign from it", where);
    }
    if (in.fd >= 0) close(in.fd);
    free(body);
    return got;
}

/* The plan's size, from the campaign file (a copy of the plan) the runs are replayed into. */
static int plan_size(const char *campaign_path, struct entries *e)
{
    struct scal_h5file f;
    int64_t reps = 0;
    int rc = scal_h5file_open(campaign_path, SCAL_OPEN_CAMPAIGN | SCAL_OPEN_VALIDATE, &f);
    if (rc < 0) return rc;
    int64_t nconfigs = scal_h5_table_rows(f.id, "configs");
    hid_t g = H5Gopen2(f.id, "campaign", H5P_DEFAULT);
    if (g < 0 || scal_h5_attr_get_i64(g, "repetitions", &reps) < 0 || nconfigs < 1 || reps < 1 ||
        nconfigs * reps > UINT32_MAX)
        rc = scal__fail(SCAL_EFORMAT, "'%s': the plan has no readable size", campaign_path);
    if (g >= 0) H5Gclose(g);
    scal_h5file_close(&f);
    e->nconfigs = (uint32_t)nconfigs;
    e->repetitions = (uint32_t)reps;
    return rc;
}

/* The legacy .commit files an earlier scal kept one per run, then this journal's records, each
 * keyed by its (config, repetition); sorted so that the runs of one slot follow each other in the
 * order they were kept. *journal is the journal's descriptor (-1 without one). */
static int list_kept(const char *campaign_path, const char *dir, struct entries *e, int *journal,
                     char *journal_path, size_t len)
{
    struct dirent **list = NULL;
    off_t end = 0;
    *journal = -1;
    int rc = plan_size(campaign_path, e);
    int n = rc < 0 ? 0 : scandir(dir, &list, is_commit_file, alphasort);
    if (n < 0) return scal__fail(SCAL_EIO, "cannot read '%s': %s", dir, strerror(errno));
    for (int i = 0; i < n && rc == SCAL_OK; i++) {
        char path[4200];
        unsigned char msg[8 + sizeof(struct scal_run_row)];
        snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        ssize_t got = fd >= 0 ? pread(fd, msg, sizeof(msg), 0) : -1;
        if (fd >= 0) close(fd);
        char *file = strdup(path);
        rc = file ? add_entry(e,
                              (struct journal_entry){
                                  .slot = slot_of(e, msg, got > 0 ? (size_t)got : 0), .file = file})
                  : scal__fail(SCAL_ENOMEM, "out of memory listing the kept runs");
    }
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
    snprintf(journal_path, len, "%s/" SCAL_JOURNAL_FILE, dir);
    if (rc == SCAL_OK && (*journal = open_journal(journal_path, O_RDONLY)) < 0 && errno != ENOENT)
        rc = journal_error(journal_path);
    if (rc == SCAL_OK && *journal >= 0)
        rc = journal_scan(*journal, journal_path, &end, &e->stats->damaged, add_record, e);
    if (e->n) qsort(e->v, e->n, sizeof(*e->v), by_slot_then_order);
    return rc;
}

static void free_entries(struct entries *e, int journal)
{
    if (journal >= 0) close(journal);
    for (size_t i = 0; i < e->n; i++)
        free(e->v[i].file);
    free(e->v);
}

int scal_journal_kept(const char *campaign_path, const char *dir, uint8_t *kept, size_t nslots,
                      struct scal_journal_stats *stats)
{
    struct entries e = {.stats = stats};
    char journal_path[4200];
    int journal;
    memset(stats, 0, sizeof(*stats));
    int rc = list_kept(campaign_path, dir, &e, &journal, journal_path, sizeof(journal_path));
    for (size_t i = 0; rc == SCAL_OK && i < e.n; i++)
        if (e.v[i].slot < nslots) kept[e.v[i].slot] = 1;
    free_entries(&e, journal);
    return rc;
}

int scal_committer_replay(const char *campaign_path, const char *dir, const uint8_t *skip,
                          struct scal_journal_stats *stats)
{
    struct scal_cw *w = NULL;
    struct entries e = {.stats = stats};
    char journal_path[4200];
    int journal;
    memset(stats, 0, sizeof(*stats));
    /* a run kept more than once (done again after a kill, or a record copied) counts once, as it
     * was kept last */
    int rc = list_kept(campaign_path, dir, &e, &journal, journal_path, sizeof(journal_path));
    if (rc == SCAL_OK) rc = scal_cw_open(campaign_path, SCAL_OPEN_NO_PROBE, &w);
    for (size_t i = 0; i < e.n && rc == SCAL_OK; i++) {
        if (i + 1 < e.n && e.v[i + 1].slot == e.v[i].slot)
            stats->duplicates++;
        else if (!skip || !skip[e.v[i].slot])
            rc = replay_one(w, &e.v[i], journal, journal_path, &stats->runs);
    }
    free_entries(&e, journal);
    if (w) {
        int crc = scal_cw_close(w);
        if (rc == SCAL_OK) rc = crc;
    }
    return rc;
}

int scal_committer_finish(struct scal_committer *c)
{
    int status = 0;
    close(c->to_fd);
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {
    }
    close(c->from_fd);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return scal__fail(SCAL_EIO, "the committer could not close the campaign file properly");
    return SCAL_OK;
}
