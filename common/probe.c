// SPDX-License-Identifier: BSD-3-Clause
// Runs a read in a forked child first, so that a crash of the HDF5 library on a damaged file
// becomes an error message instead of the end of the process.
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "scal/status.h"

int scal_probe(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return scal__fail(SCAL_ECHILD, "cannot fork a probe process: %s", strerror(errno));
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, STDOUT_FILENO);
            dup2(devnull, STDERR_FILENO);
        }
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        int rc = fn(arg);
        _exit(rc < 0 ? 1 : 0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return scal__fail(SCAL_ECHILD, "lost the probe process: %s", strerror(errno));
    }
    if (WIFSIGNALED(status))
        return scal__fail(SCAL_EFORMAT,
                          "the HDF5 library crashed reading it (signal %d): the file is damaged",
                          WTERMSIG(status));
    return SCAL_OK;
}
