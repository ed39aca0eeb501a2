// SPDX-License-Identifier: BSD-3-Clause
// A thread of the program's own that ran OpenMP regions waits in a system call that a signal
// handler interrupts for good (poll, nanosleep: never restarted, whatever SA_RESTART says) while
// main returns and the tool's end flush runs (ompt_tool/record/flush.c, park.h). The tool must not
// make that call fail with EINTR: a program's thread reacting to it (here: ending the process with
// 42) changes the program's exit status and loses the run file. main returns only once the thread
// sleeps in the call (its /proc/self/task/TID/syscall names it): no timing involved.
//
// RUN[blocked_beside_flush]: OMP_NUM_THREADS=2 %prog poll
// CHECK[blocked_beside_flush] run: exit=0
// RUN[blocked_beside_flush_sleep]: OMP_NUM_THREADS=2 %prog sleep
// CHECK[blocked_beside_flush_sleep] run: exit=0
#define _GNU_SOURCE
#include <errno.h>
#include <omp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static long sink;
static _Atomic long waiter_tid;
static const char *mode = "poll";

static void *waiter(void *arg)
{
    (void)arg;
#pragma omp parallel num_threads(2)
    __atomic_fetch_add(&sink, 1L, __ATOMIC_RELAXED);
    waiter_tid = (long)syscall(SYS_gettid);
    int r;
    if (!strcmp(mode, "sleep")) {
        struct timespec long_time = {100000, 0};
        r = nanosleep(&long_time, NULL);
    } else {
        struct pollfd p = {fds[0], POLLIN, 0};
        r = poll(&p, 1, -1);
    }
    if (r < 0 && errno == EINTR) {
        fprintf(stderr, "%s: EINTR in a thread of the program's own\n", mode);
        _exit(42);
    }
    return NULL;
}

/* Whether thread tid sleeps in one of the calls of the waiter. */
static int in_call(long tid)
{
    char path[64], buf[64] = "";
    snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall", tid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int got = fgets(buf, sizeof(buf), f) != NULL;
    fclose(f);
    if (!got) return 0;
    long nr = strtol(buf, NULL, 10);
#ifdef SYS_poll
    if (nr == SYS_poll) return 1;
#endif
#ifdef SYS_nanosleep
    if (nr == SYS_nanosleep) return 1;
#endif
    return nr == SYS_ppoll || nr == SYS_clock_nanosleep;
}

int main(int argc, char **argv)
{
    if (argc > 1) mode = argv[1];
    if (pipe(fds) != 0) return 2;
#pragma omp parallel
    __atomic_fetch_add(&sink, 1L, __ATOMIC_RELAXED);
    pthread_t t;
    if (pthread_create(&t, NULL, waiter, NULL) != 0) return 3;
    while (!waiter_tid || !in_call(waiter_tid))
        sched_yield();
    return 0;
}
