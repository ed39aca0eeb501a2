// SPDX-License-Identifier: BSD-3-Clause
// The committer process and its pipe protocol (see committer.h).
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign_writer.h"
#include "committer.h"
#include "errmsg.h"
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

static int send_string(int fd, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : 0;
    int rc = write_full(fd, &n, sizeof(n));
    return rc == SCAL_OK && n ? write_full(fd, s, n) : rc;
}

static char *recv_string(int fd)
{
    uint32_t n;
    if (read_full(fd, &n, sizeof(n)) != 1 || n > (64u << 20)) return NULL;
    char *s = malloc(n + 1);
    if (s && n && read_full(fd, s, n) != 1) {
        free(s);
        return NULL;
    }
    if (s) s[n] = 0;
    return s;
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
static int recv_commit(int fd, struct commit_msg *m)
{
    uint32_t hdr[2], n = 0;
    memset(m, 0, sizeof(*m));
    int got = read_full(fd, hdr, sizeof(hdr));
    if (got <= 0) return got;
    if (hdr[0] != COMMIT_MAGIC || hdr[1] > COMMIT_V_SNAPSHOTS ||
        read_full(fd, &m->row, sizeof(m->row)) != 1 ||
        read_full(fd, &m->keep, sizeof(m->keep)) != 1 || !(m->message = recv_string(fd)) ||
        !(m->stdout_tail = recv_string(fd)) || !(m->stderr_tail = recv_string(fd)) ||
        !(m->run_file = recv_string(fd)) ||
        (hdr[1] == COMMIT_V_SNAPSHOTS && read_full(fd, &n, sizeof(n)) != 1) ||
        !(m->snaps = calloc(n ? n : 1, sizeof(*m->snaps)))) {
        commit_msg_free(m);
        return SCAL_EIO;
    }
    for (; m->nsnaps < n; m->nsnaps++) {
        struct scal_cw_snapshot *s = &m->snaps[m->nsnaps];
        uint64_t len = 0;
        unsigned char *bytes = NULL;
        if (!(s->name = recv_string(fd)) || read_full(fd, &len, sizeof(len)) != 1 ||
            len > SNAPSHOT_MAX || !(bytes = malloc(len ? (size_t)len : 1)) ||
            (len && read_full(fd, bytes, (size_t)len) != 1)) {
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
                       const char *err, const char *run_file,
                       const struct scal_cw_snapshot *snaps, size_t nsnaps, uint32_t keep,
                       struct scal_commit_ack *ack)
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
    for (;;) {
        struct commit_msg m;
        int got = recv_commit(in, &m);
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

static int send_commit(int fd, const struct scal_run_row *row, uint32_t keep, const char *message,
                       const char *stdout_tail, const char *stderr_tail,
                       const struct scal_commit_data *data)
{
    uint32_t hdr[2] = {COMMIT_MAGIC, data->nsnaps ? COMMIT_V_SNAPSHOTS : COMMIT_V_RUN_FILE};
    uint32_t n = (uint32_t)data->nsnaps;
    int rc = write_full(fd, hdr, sizeof(hdr));
    if (rc == SCAL_OK) rc = write_full(fd, row, sizeof(*row));
    if (rc == SCAL_OK) rc = write_full(fd, &keep, sizeof(keep));
    if (rc == SCAL_OK) rc = send_string(fd, message);
    if (rc == SCAL_OK) rc = send_string(fd, stdout_tail);
    if (rc == SCAL_OK) rc = send_string(fd, stderr_tail);
    if (rc == SCAL_OK) rc = send_string(fd, data->run_file);
    if (rc == SCAL_OK && n) rc = write_full(fd, &n, sizeof(n));
    for (size_t i = 0; i < data->nsnaps && rc == SCAL_OK; i++) {
        uint64_t len = data->snaps[i].len;
        rc = send_string(fd, data->snaps[i].name);
        if (rc == SCAL_OK) rc = write_full(fd, &len, sizeof(len));
        if (rc == SCAL_OK && len) rc = write_full(fd, data->snaps[i].bytes, data->snaps[i].len);
    }
    return rc;
}

int scal_committer_commit(struct scal_committer *c, const struct scal_run_row *row,
                          const char *message, const char *stdout_tail, const char *stderr_tail,
                          const struct scal_commit_data *data, bool keep_run_file,
                          struct scal_commit_ack *ack)
{
    int rc = send_commit(c->to_fd, row, keep_run_file, message, stdout_tail, stderr_tail, data);
    if (rc == SCAL_OK && read_full(c->from_fd, ack, sizeof(*ack)) != 1) rc = SCAL_EIO;
    if (rc < 0) {
        memset(ack, 0, sizeof(*ack));
        ack->status = rc;
        snprintf(ack->message, sizeof(ack->message), "the committer process died");
    }
    return rc < 0 ? rc : ack->status;
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

int scal_committer_keep(const char *path, const struct scal_run_row *row, const char *message,
                        const char *stdout_tail, const char *stderr_tail,
                        const struct scal_commit_data *data)
{
    char tmp[4200];
    /* a run file the record names (the tool wrote it, or each MPI rank its own) is on disk before
     * the record counts; snapshots travel inside the record */
    int rc = (!data->nsnaps || data->run_files_too) && data->run_file && *data->run_file
                 ? scal_cw_run_files_each(data->run_file, "", sync_file, NULL)
                 : SCAL_OK;
    if (rc < 0) return rc;
    rc = scal_safe_create_temp(path, true, tmp, sizeof(tmp));
    if (rc < 0) return rc;
    int fd = open(tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        unlink(tmp);
        return scal__fail(SCAL_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
    errno = 0;
    rc = send_commit(fd, row, 1, message, stdout_tail, stderr_tail, data);
    if (rc < 0)
        rc = scal__fail(SCAL_EIO, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
    if (close(fd) < 0 && rc == SCAL_OK)
        rc = scal__fail(SCAL_EIO, "cannot write '%s': %s", path, strerror(errno));
    if (rc < 0) {
        unlink(tmp);
        return rc;
    }
    return scal_safe_publish(tmp, path, true); /* fsync'd before the rename */
}

static int is_commit_file(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 7 && !strcmp(d->d_name + n - 7, ".commit");
}

int scal_committer_replay(const char *campaign_path, const char *dir, size_t *nruns)
{
    struct dirent **list = NULL;
    struct scal_cw *w = NULL;
    *nruns = 0;
    int n = scandir(dir, &list, is_commit_file, alphasort);
    if (n < 0) return scal__fail(SCAL_EIO, "cannot read '%s': %s", dir, strerror(errno));
    int rc = scal_cw_open(campaign_path, SCAL_OPEN_NO_PROBE, &w);
    for (int i = 0; i < n && rc == SCAL_OK; i++) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        struct commit_msg m;
        if (fd < 0 || recv_commit(fd, &m) != 1) {
            rc = scal__fail(SCAL_EFORMAT, "'%s' is damaged: cannot rebuild the campaign from it",
                            path);
        } else {
            struct scal_commit_ack ack;
            commit_one(w, &m.row, m.message, m.stdout_tail, m.stderr_tail, m.run_file, m.snaps,
                       m.nsnaps, 1, &ack);
            commit_msg_free(&m);
            if (ack.status < 0)
                rc = scal__fail(ack.status, "cannot rebuild from '%s': %s", path, ack.message);
            else
                ++*nruns;
        }
        if (fd >= 0) close(fd);
    }
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
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
