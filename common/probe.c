// SPDX-License-Identifier: BSD-3-Clause
// Runs a read in a forked child first, so that a crash of the HDF5 library on a damaged file
// becomes an error message instead of the end of the process.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "scal/status.h"

/* What the child reports: its status and, when negative, its message. */
struct probe_result {
    int32_t status;
    char message[1024];
};

static void child(int (*fn)(void *), void *arg, int out, unsigned cpu_seconds)
{
    struct rlimit cpu = {cpu_seconds, cpu_seconds + 1}; /* SIGXCPU, then SIGKILL */
    setrlimit(RLIMIT_CPU, &cpu);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
    }
    signal(SIGSEGV, SIG_DFL);
    signal(SIGBUS, SIG_DFL);
    struct probe_result r = {0};
    r.status = fn(arg);
    if (r.status < 0) snprintf(r.message, sizeof(r.message), "%s", scal__last_error(r.status));
    ssize_t w = write(out, &r, sizeof(r));
    _exit(w == (ssize_t)sizeof(r) ? 0 : 1);
}

int scal_probe(int (*fn)(void *), void *arg, const char *path, unsigned cpu_seconds)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return scal__fail(SCAL_ECHILD, "cannot create a pipe for a probe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return scal__fail(SCAL_ECHILD, "cannot fork a probe process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        child(fn, arg, fds[1], cpu_seconds);
    }
    close(fds[1]);
    struct probe_result r = {0};
    size_t got = 0;
    while (got < sizeof(r)) {
        ssize_t n = read(fds[0], (char *)&r + got, sizeof(r) - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return scal__fail(SCAL_ECHILD, "lost the probe process: %s", strerror(errno));
    }
    if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL))
        return scal__fail(SCAL_EFORMAT,
                          "'%s' is damaged: the HDF5 library did not finish reading it in %u s of "
                          "CPU time (it loops on some damaged files)",
                          path, cpu_seconds);
    if (WIFSIGNALED(status))
        return scal__fail(SCAL_EFORMAT,
                          "'%s' is damaged: the HDF5 library crashed reading it (signal %d)", path,
                          WTERMSIG(status));
    if (got != sizeof(r)) return scal__fail(SCAL_ECHILD, "the probe process failed");
    r.message[sizeof(r.message) - 1] = '\0';
    return r.status < 0 ? scal__fail(r.status, "%s", r.message) : SCAL_OK;
}
