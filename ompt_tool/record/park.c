// SPDX-License-Identifier: BSD-3-Clause
// Idle threads asleep during the end's flush (park.h). The flush sends a real-time signal to each
// of the runtime's worker threads that it sees outside every region (never to a thread of the
// program's own, nor to one in a region, whose system calls the signal could end with EINTR); the
// handler parks the thread (a futex wait until the flush releases it) only when it is idle in the
// runtime: no implicit task of the tool's bookkeeping open on it (depth 0: it has left every
// region, so it runs no task and no code of the program's) and the runtime says it waits for work
// (ompt_get_state, async-signal-safe: idle, or libomp's implicit-barrier states, which a worker
// keeps at its fork barrier until its next region). There it holds no lock. It may be inside one of
// the tool's callbacks, which take no lock either; not when sensor plugins run (a sensor's library
// may hold a lock of its own the flush needs), so then nothing is parked. The handler stays
// installed afterwards: a signal still pending (a thread that blocks it) finds nothing to do. The
// signal is the highest real-time one whose disposition is the default (SIGRTMAX downwards; none
// the program handles, ignores or blocks on this thread).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <omp-tools.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "park.h"
#include "thread_state.h"
#include "tool.h"

static ompt_get_state_t get_state;
static int park_signal;     /* 0: not chosen yet; -1: none free */
static _Atomic int parking; /* 1 while the flush runs: the futex the parked threads wait on */
static _Atomic int answers; /* signalled threads whose handler has decided (the flush waits) */
/* How long the flush waits for the signalled threads' handlers: those that have not answered
 * after the first bound are asked of the kernel whether they block the signal, and those that do
 * are not waited for; the others get the second bound (one in an uninterruptible call answers
 * late). A mask that blocks the signal on every thread blocks it on this one too: then none is
 * chosen and nothing is sent. */
#define SCAL_PARK_FIRST_NS 1000000ull
#define SCAL_PARK_ANSWER_NS 50000000ull
enum { PARK_NONE, PARK_SIGNALLED, PARK_ANSWERED };

static void futex(_Atomic int *word, int op, int val, const struct timespec *timeout)
{
    syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

void scal_park_init(void *lookup)
{
    ompt_function_lookup_t fn = (ompt_function_lookup_t)lookup;
    get_state = fn ? (ompt_get_state_t)fn("ompt_get_state") : NULL;
}

static bool idle_in_runtime(void)
{
    const struct scal_thread *t = scal_self; /* never created here */
    if (!t || !atomic_load_explicit(&t->is_worker, memory_order_relaxed) || t->depth != 0)
        return false;
    int state = get_state(NULL);
    return state == ompt_state_idle || (state >= ompt_state_wait_barrier_implicit_parallel &&
                                        state <= ompt_state_wait_barrier_implicit);
}

static void on_park_signal(int sig)
{
    (void)sig;
    int saved_errno = errno;
    if (atomic_load(&parking)) {
        bool park = get_state && idle_in_runtime();
        if (park) scal_diag_count(SCAL_DIAG_threads_parked);
        if (scal_self) atomic_store(&scal_self->park_state, PARK_ANSWERED);
        atomic_fetch_add(&answers, 1);
        futex(&answers, FUTEX_WAKE_PRIVATE, 1, NULL);
        while (park && atomic_load(&parking))
            futex(&parking, FUTEX_WAIT_PRIVATE, 1, NULL);
    }
    errno = saved_errno;
}

/* The signal, chosen and its handler installed once. */
static int choose_signal(void)
{
    sigset_t blocked;
    if (park_signal) return park_signal;
    park_signal = -1;
    pthread_sigmask(SIG_BLOCK, NULL, &blocked);
    for (int sig = SIGRTMAX; sig > SIGRTMIN; sig--) {
        struct sigaction now, sa;
        if (sigaction(sig, NULL, &now) != 0 || (now.sa_flags & SA_SIGINFO) ||
            now.sa_handler != SIG_DFL || sigismember(&blocked, sig))
            continue;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_park_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (sigaction(sig, &sa, NULL) == 0) park_signal = sig;
        break;
    }
    return park_signal;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Until `expected` handlers have answered or the clock reaches `until`. */
static void wait_answers(int expected, uint64_t until)
{
    int seen;
    uint64_t now;
    while ((seen = atomic_load(&answers)) < expected && (now = now_ns()) < until) {
        struct timespec step = {0, (long)(until - now)};
        futex(&answers, FUTEX_WAIT_PRIVATE, seen, &step);
    }
}

/* Whether thread tid of this process blocks sig now (its SigBlk in /proc), or is gone. */
static bool blocks_now(pid_t tid, int sig)
{
    char path[64], buf[4096];
    snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return true;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return true;
    buf[n] = '\0';
    const char *at = strstr(buf, "\nSigBlk:");
    return at && sig >= 1 && sig <= 64 && ((strtoull(at + 8, NULL, 16) >> (sig - 1)) & 1u);
}

void scal_park_idle_threads(void)
{
    if (!get_state || scal_tool_state.sensors) return;
    int sig = choose_signal();
    if (sig < 0) return;
    atomic_store(&answers, 0);
    atomic_store(&parking, 1);
    pid_t self = (pid_t)syscall(SYS_gettid), pid = getpid();
    uint32_t n = scal_threads_count();
    int sent = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct scal_thread *t = scal_thread_at(i);
        /* Only the runtime's own threads that have left every region (as read here; each checks
         * for itself again): a thread of the program's (that ran regions of its own), or one inside
         * a region, may sit in a system call that the signal would end early (EINTR). A thread
         * that has ended may have left its id to another of this process's: not idle in the
         * runtime, its handler returns at once. */
        if (!t || !atomic_load_explicit(&t->is_worker, memory_order_relaxed) ||
            atomic_load_explicit(&t->depth_published, memory_order_relaxed) != 0 ||
            t->kernel_tid <= 0 || t->kernel_tid == self)
            continue;
        atomic_store(&t->park_state, PARK_SIGNALLED);
        if (syscall(SYS_tgkill, pid, t->kernel_tid, sig) == 0)
            sent++;
        else
            atomic_store(&t->park_state, PARK_NONE);
    }
    /* Until every signalled thread has parked or gone on: on a machine with fewer cores than
     * threads they run their handlers only once this thread waits. */
    uint64_t start = now_ns();
    wait_answers(sent, start + SCAL_PARK_FIRST_NS);
    for (uint32_t i = 0; i < n && atomic_load(&answers) < sent; i++) {
        struct scal_thread *t = scal_thread_at(i);
        if (t && atomic_load(&t->park_state) == PARK_SIGNALLED && blocks_now(t->kernel_tid, sig)) {
            atomic_store(&t->park_state, PARK_NONE);
            sent--;
        }
    }
    wait_answers(sent, start + SCAL_PARK_ANSWER_NS);
}

void scal_park_release(void)
{
    if (!atomic_exchange(&parking, 0)) return;
    futex(&parking, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}
