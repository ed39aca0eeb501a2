// SPDX-License-Identifier: BSD-3-Clause
// Running one of Slurm's client commands (sbatch, squeue, scancel) without a shell and reading
// all it prints: their output is what scal run --slurm acts on (and what a runner in a Slurm job
// asks about its own job).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "scal/status.h"
#include "slurm.h"

extern char **environ;

struct buf {
    char *data;
    size_t len, cap;
};

static int append(struct buf *b, const char *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 4096) + n;
        char *d = realloc(b->data, cap);
        if (!d) return SCAL_ENOMEM;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
    return SCAL_OK;
}

/* Reads both pipes to their end (a command filling one while we wait on the other never blocks). */
static int drain(int out_fd, int err_fd, struct buf *out, struct buf *err)
{
    struct pollfd pf[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    struct buf *dst[2] = {out, err};
    int open_fds = 2, rc = SCAL_OK;
    char chunk[8192];
    while (open_fds > 0) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return scal__fail(SCAL_EIO, "cannot read a Slurm command's output: %s",
                              strerror(errno));
        }
        for (int k = 0; k < 2; k++) {
            if (pf[k].fd < 0 || !pf[k].revents) continue;
            ssize_t n = read(pf[k].fd, chunk, sizeof(chunk));
            if (n < 0 && errno == EINTR) continue;
            if (n > 0 && rc == SCAL_OK) rc = append(dst[k], chunk, (size_t)n);
            if (n <= 0) {
                pf[k].fd = -1;
                open_fds--;
            }
        }
    }
    return rc;
}

int scal_slurm_command(char *const *argv, char **out, char **err)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, rc = SCAL_OK, status = 0;
    struct buf bo = {0}, be = {0};
    posix_spawn_file_actions_t fa;
    pid_t pid = -1;
    *out = *err = NULL;
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
        rc = scal__fail(SCAL_EIO, "cannot run %s: %s", argv[0], strerror(errno));
        goto done;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]), close(pe[1]);
    po[1] = pe[1] = -1;
    if (e) {
        rc = scal__fail(SCAL_ENOENT, "cannot run '%s': %s%s", argv[0], strerror(e),
                        e == ENOENT ? " (not on PATH: Slurm's client commands are needed; "
                                      "on this machine: bash scripts/local-slurm.sh up)"
                                    : "");
        goto done;
    }
    rc = drain(po[0], pe[0], &bo, &be);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (rc == SCAL_OK) rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
done:
    for (int k = 0; k < 2; k++) {
        if (po[k] >= 0) close(po[k]);
        if (pe[k] >= 0) close(pe[k]);
    }
    if (rc < 0) {
        free(bo.data), free(be.data);
        return rc;
    }
    *out = bo.data ? bo.data : strdup("");
    *err = be.data ? be.data : strdup("");
    if (!*out || !*err) {
        free(*out), free(*err);
        *out = *err = NULL;
        return SCAL_ENOMEM;
    }
    return rc;
}

bool scal_slurm_job_ending(void)
{
    /* the states of a job that goes on (SIGNALING: scancel --signal, which ends nothing) */
    static const char *const going_on[] = {"RUNNING",  "CONFIGURING", "SUSPENDED", "STOPPED",
                                           "RESIZING", "SIGNALING",   NULL};
    const char *job = getenv("SLURM_JOB_ID"), *array = getenv("SLURM_ARRAY_JOB_ID"),
               *task = getenv("SLURM_ARRAY_TASK_ID");
    char id[160], *out = NULL, *err = NULL;
    if (!job || !job[0]) return false;
    /* an array task by ARRAY_TASK: the last task's own id is the array's, for which squeue -j
     * lists every task */
    if (array && array[0] && task && task[0])
        snprintf(id, sizeof(id), "%.70s_%.70s", array, task);
    else
        snprintf(id, sizeof(id), "%.150s", job);
    char *argv[] = {"squeue", "-h", "-t", "all", "-j", id, "-o", "%T", NULL};
    bool ending = false;
    if (scal_slurm_command(argv, &out, &err) == 0) {
        out[strcspn(out, "\n")] = 0;
        ending = out[0] != 0;
        for (size_t k = 0; ending && going_on[k]; k++)
            ending = strcmp(out, going_on[k]) != 0;
    }
    free(out), free(err);
    return ending;
}
