// SPDX-License-Identifier: BSD-3-Clause
// The runtime's idle threads during the end's flush (ompt_tool/record/park.h): each idle worker is
// parked (asleep) while the run file is written and goes on after; threads that block the signal,
// a program that handles the highest real-time signal itself, sensors, and a parallel region run
// by an exit handler after the flush. Also: the writer process is never a child the program can
// wait for (ompt_tool/record/writer_link.c). Expectations: see tests/tool/README.md.
//
// RUN[idle_threads]: OMP_NUM_THREADS=2 %prog
// CHECK[idle_threads] run: exit=0
// CHECK[idle_threads] /diagnostics: threads_parked=1
// RUN[idle_threads_4]: OMP_NUM_THREADS=4 %prog
// CHECK[idle_threads_4] /diagnostics: threads_parked=3
// The program handles SIGRTMAX: the tool uses another signal, and never the program's handler.
// RUN[idle_threads_rt_used]: OMP_NUM_THREADS=2 %prog rt
// CHECK[idle_threads_rt_used] run: exit=0
// CHECK[idle_threads_rt_used] /diagnostics: threads_parked=1
// Every real-time signal blocked before the runtime starts: its threads inherit the mask and are
// left alone (the flush does not wait for them).
// RUN[idle_threads_blocked]: OMP_NUM_THREADS=2 %prog blocked
// CHECK[idle_threads_blocked] run: exit=0
// CHECK[idle_threads_blocked] /diagnostics: threads_parked=0
// Every real-time signal blocked by each worker inside the region (after its first event): the
// flush finds out from the kernel that they block it, and goes on.
// RUN[idle_threads_blocked_late]: OMP_NUM_THREADS=2 %prog blocked_late
// CHECK[idle_threads_blocked_late] run: exit=0
// CHECK[idle_threads_blocked_late] /diagnostics: threads_parked=0
// A thread of the program's that ran a region of its own (an initial thread) and now waits in
// poll() is never signalled: poll() would end early with EINTR (it then ends the process with 9).
// RUN[idle_threads_poller]: OMP_NUM_THREADS=2 %prog poller
// CHECK[idle_threads_poller] run: exit=0
// CHECK[idle_threads_poller] /diagnostics: threads_parked>=1
// A sensor's library may hold a lock of its own: nothing is parked.
// RUN[idle_threads_sensor]: OMP_NUM_THREADS=2 SCAL_PLUGINS=rusage %prog
// CHECK[idle_threads_sensor] run: exit=0
// CHECK[idle_threads_sensor] /diagnostics: threads_parked=0
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long sink;
static volatile sig_atomic_t program_handler_calls;

static void program_handler(int sig)
{
    (void)sig;
    program_handler_calls++;
}

/* Registered before the runtime starts (and so before the tool's own exit handler): runs after the
 * flush, and needs the parked threads back. */
static void region_after_flush(void)
{
#pragma omp parallel num_threads(2)
    __atomic_fetch_add(&sink, 1L, __ATOMIC_RELAXED);
    if (__atomic_load_n(&sink, __ATOMIC_RELAXED) < 4) _exit(5);
}

static const char *mode = "";
static int poller_ready[2], poller_wait[2];

/* Runs a region (so the tool knows this thread) and then waits in poll() for ever. */
static void *poller(void *arg)
{
    (void)arg;
#pragma omp parallel num_threads(2)
    __atomic_fetch_add(&sink, 1L, __ATOMIC_RELAXED);
    struct pollfd p = {poller_wait[0], POLLIN, 0};
    (void)!write(poller_ready[1], "r", 1);
    if (poll(&p, 1, -1) < 0 && errno == EINTR) _exit(9);
    return NULL;
}

/* Runs after every exit handler (the tool's flush included). */
__attribute__((destructor)) static void after_everything(void)
{
    struct sigaction now;
    if (!strcmp(mode, "rt") &&
        (program_handler_calls != 0 || sigaction(SIGRTMAX, NULL, &now) != 0 ||
         now.sa_handler != program_handler))
        _exit(6);
}

int main(int argc, char **argv)
{
    mode = argc > 1 ? argv[1] : "";
    atexit(region_after_flush);
    if (!strcmp(mode, "rt")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = program_handler;
        sigaction(SIGRTMAX, &sa, NULL);
    }
    if (!strcmp(mode, "blocked")) {
        sigset_t rt;
        sigemptyset(&rt);
        for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
            sigaddset(&rt, s);
        pthread_sigmask(SIG_BLOCK, &rt, NULL);
    }
    // REGION: parallel @LINE+1 count=1
#pragma omp parallel
    {
        if (!strcmp(mode, "blocked_late") && omp_get_thread_num() != 0) {
            sigset_t rt;
            sigemptyset(&rt);
            for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
                sigaddset(&rt, s);
            pthread_sigmask(SIG_BLOCK, &rt, NULL);
        }
        __atomic_fetch_add(&sink, (long)omp_get_thread_num() + 1, __ATOMIC_RELAXED);
    }
    if (!strcmp(mode, "poller")) {
        pthread_t th;
        char c;
        if (pipe(poller_ready) != 0 || pipe(poller_wait) != 0 ||
            pthread_create(&th, NULL, poller, NULL) != 0 || read(poller_ready[0], &c, 1) != 1)
            return 8;
    }
    /* the tool's writer process runs beside the program, which cannot wait for it */
    if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD) {
        fprintf(stderr, "the program has a child it can wait for\n");
        return 7;
    }
    return 0;
}
