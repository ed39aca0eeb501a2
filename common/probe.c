// SPDX-License-Identifier: BSD-3-Clause
// Runs a read in a forked child first, so that a crash of the HDF5 library on a damaged file
// becomes an error message instead of the end of the process.
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "scal/status.h"

/* What the child reports: its status and, when negative, its message. */
struct probe_result {
    int32_t status;
    char message[1024];
};

/* The child's exit status when it read more memory than the file can plausibly need. */
#define PROBE_EXIT_MEMORY 42

/* Resident pages of this process, from /proc/self/statm (no stdio: no locks, no allocation). */
static long resident_pages(void)
{
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    long size = 0, rss = -1;
    return sscanf(buf, "%ld %ld", &size, &rss) == 2 ? rss : -1;
}

/* A damaged length can make HDF5 allocate and fill gigabytes for a small file: the child ends as
 * soon as it holds more than its budget (its RSS, polled; RLIMIT_AS would also break the sanitizer
 * runtimes, which reserve terabytes of address space). */
static void *memory_watch(void *arg)
{
    long limit = (long)(intptr_t)arg;
    struct timespec tick = {0, 2000000};
    for (;;) {
        long rss = resident_pages();
        if (rss > limit) _exit(PROBE_EXIT_MEMORY);
        nanosleep(&tick, NULL);
    }
    return NULL;
}

static void child(int (*fn)(void *), void *arg, int out, unsigned cpu_seconds, size_t budget)
{
    struct rlimit cpu = {cpu_seconds, cpu_seconds + 1}; /* SIGXCPU, then SIGKILL */
    setrlimit(RLIMIT_CPU, &cpu);
    long page = sysconf(_SC_PAGESIZE), base = resident_pages();
    pthread_t watch;
    if (base >= 0 && page > 0)
        pthread_create(&watch, NULL, memory_watch,
                       (void *)(intptr_t)(base + (long)(budget / (size_t)page)));
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

/* Memory a read of the file at path may take: generous for its size (a table is read whole by
 * the validator, inflated from its compressed chunks), far below what a damaged length asks. */
static size_t memory_budget(const char *path)
{
    struct stat st;
    uint64_t size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    uint64_t budget = ((uint64_t)512 << 20) + 64 * size;
    return budget > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)budget;
}

int scal_probe(int (*fn)(void *), void *arg, const char *path, unsigned cpu_seconds)
{
    size_t budget = memory_budget(path);
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
        child(fn, arg, fds[1], cpu_seconds, budget);
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
    if (WIFEXITED(status) && WEXITSTATUS(status) == PROBE_EXIT_MEMORY)
        return scal__fail(SCAL_EFORMAT,
                          "'%s' is damaged: reading it took more than %zu MB, far more than a "
                          "file of its size needs",
                          path, budget >> 20);
    if (WIFSIGNALED(status))
        return scal__fail(SCAL_EFORMAT,
                          "'%s' is damaged: the HDF5 library crashed reading it (signal %d)", path,
                          WTERMSIG(status));
    if (got != sizeof(r)) return scal__fail(SCAL_ECHILD, "the probe process failed");
    r.message[sizeof(r.message) - 1] = '\0';
    return r.status < 0 ? scal__fail(r.status, "%s", r.message) : SCAL_OK;
}
