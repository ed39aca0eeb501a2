// SPDX-License-Identifier: BSD-3-Clause
// A signal that arrives while the tool is already writing the run file (at the normal end, or for
// a first signal) waits until the file is written; then the program ends by the signal it would
// have ended by. The signal is sent from inside the tool's flush, at a point this program
// controls: the flush forks a copy of the process to write the file, and fork() runs the
// program's pthread_atfork "prepare" handlers first. Either that handler raises the signal on the
// flushing thread itself ("same"), or it wakes a second thread that raises it on itself and
// reports back through a pipe ("other"); in both cases the flush goes on only after the signal's
// handler has run. "group": the program leads a process group of its own, and the copy that
// writes the file, from its pthread_atfork "child" handler, sends the signal to the whole group,
// itself included (a ^C on the terminal while the file is written). "signal exit": the second
// thread raises SIGTERM on itself, and while its flush runs (its prepare handler) the main thread
// returns from main; the program's atexit handler (run before the tool's) lets the flush go on:
// the end waits for the flush, and the program ends by SIGTERM. "signal exit-worker": the same
// with the signal sent to an idle OpenMP worker thread (pthread_kill): no deadlock between the
// flush and the runtime's shutdown (which joins that worker, so it waits too). Expectations: see
// tests/tool/README.md.
//
//   signal_in_flush exit|signal same|other|group, or signal_in_flush signal exit|exit-worker
//   exit: the program returns from main; SIGTERM during the flush.
//   signal: the program waits in its second region for a SIGTERM (after "ready"); SIGINT during
//   the flush that SIGTERM started: the program still ends by SIGTERM.
//
// The hook is fork(): these runs use SCAL_WRITER=detached, whose flush forks (the default flush
// runs the same signal handling without a fork, tests/writer's "complete" scenario).
// RUN[signal_in_exit_flush]: SCAL_WRITER=detached %prog exit same
// RUN[signal_in_exit_flush_thread]: SCAL_WRITER=detached %prog exit other
// RUN[signal_in_signal_flush]: SCAL_WRITER=detached %prog signal same
// SIGNAL[signal_in_signal_flush]: SIGTERM ready
// RUN[signal_in_signal_flush_thread]: SCAL_WRITER=detached %prog signal other
// SIGNAL[signal_in_signal_flush_thread]: SIGTERM ready
// RUN[signal_to_group_in_flush]: SCAL_WRITER=detached %prog exit group
// RUN[exit_in_signal_flush]: SCAL_WRITER=detached %prog signal exit
// RUN[exit_in_worker_signal_flush]: SCAL_WRITER=detached %prog signal exit-worker
// The flush ran on after the signal's handler (the program says so), the file is complete, and
// the program ended by SIGTERM.
// CHECK run: stderr="*during the flush*" output=written checked=ok signal=SIGTERM
// CHECK[signal_in_exit_flush] /meta: exit_reason=program*
// CHECK[signal_in_exit_flush_thread] /meta: exit_reason=program*
// CHECK[signal_to_group_in_flush] /meta: exit_reason=program*
// CHECK[signal_in_signal_flush] /meta: exit_reason="signal SIGTERM"
// CHECK[signal_in_signal_flush_thread] /meta: exit_reason="signal SIGTERM"
// CHECK[exit_in_signal_flush] /meta: exit_reason="signal SIGTERM"
// CHECK[exit_in_worker_signal_flush] /meta: exit_reason="signal SIGTERM"
// Nothing is left open at a normal end; the region the first signal interrupted is.
// CHECK[signal_in_exit_flush] /diagnostics: open_at_exit=0
// CHECK[signal_in_exit_flush_thread] /diagnostics: open_at_exit=0
// CHECK[signal_to_group_in_flush] /diagnostics: open_at_exit=0
// CHECK[exit_in_signal_flush] /diagnostics: open_at_exit=0
// CHECK[exit_in_worker_signal_flush] /diagnostics: open_at_exit=0
// CHECK[signal_in_signal_flush] /diagnostics: open_at_exit>=1
// CHECK[signal_in_signal_flush_thread] /diagnostics: open_at_exit>=1
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long sink;     /* updated atomically: the programs themselves are race-free */
static int raise_sig; /* the signal sent during the flush */
static int to_helper[2], from_helper[2];
static int other_thread, group, exit_during, to_worker;
static pthread_t worker; /* exit-worker: team member 1 of the last region, idle in the runtime */
static int to_main[2], from_exit[2]; /* exit_during: the flush wakes main, main's end wakes it */
static volatile sig_atomic_t forks;  /* this program forks only through the tool's flush */
static int group_sent[2]; /* group: the copy has sent the signal (the flush does not wait for it) */

static void handled_set(sigset_t *s)
{
    sigemptyset(s);
    sigaddset(s, SIGINT);
    sigaddset(s, SIGTERM);
    sigaddset(s, SIGHUP);
}

/* The second thread: blocks the handled signals (a signal for the process never lands here), and
 * when woken raises the signal on itself; its handler runs before pthread_sigmask returns. */
static void *helper(void *arg)
{
    (void)arg;
    char c;
    while (read(to_helper[0], &c, 1) < 0)
        ;
    raise(raise_sig); /* pending: blocked here */
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, raise_sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL); /* the tool's handler runs now, on this thread */
    while (write(from_helper[1], "d", 1) < 0)
        ;
    for (;;)
        pause();
    return NULL;
}

/* In the tool's copy of the process (writing the file): the signal for the whole group. */
static void in_child(void)
{
    static const char msg[] = "signal raised during the flush\n";
    if (!group || forks != 1) return;
    kill(0, raise_sig);
    /* reached only when the signal did not end the copy at once */
    (void)!write(2, msg, sizeof(msg) - 1);
    while (write(group_sent[1], "s", 1) < 0)
        ;
}

/* In the program, after the tool's fork: the flush goes on once the copy's signal is pending. */
static void in_parent(void)
{
    char c;
    if (!group || forks != 1) return;
    while (read(group_sent[0], &c, 1) < 0)
        ;
}

/* Registered after the tool's (at the first region), so run before it: main is in exit(). */
static void at_exit(void)
{
    static const char msg[] = "exit during the flush\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    while (write(from_exit[1], "e", 1) < 0)
        ;
}

static void before_fork(void)
{
    if (forks == 0 && exit_during) {
        char c;
        forks++;
        while (write(to_main[1], "f", 1) < 0)
            ;
        while (read(from_exit[0], &c, 1) < 0) /* main has reached its end */
            ;
        return;
    }
    if (forks++ || group) return;
    static const char msg[] = "signal raised during the flush\n";
    if (other_thread) {
        char c;
        while (write(to_helper[1], "g", 1) < 0)
            ;
        while (read(from_helper[0], &c, 1) < 0) /* its handler has run */
            ;
    } else {
        raise(raise_sig); /* its handler runs before raise returns */
    }
    /* reached only when the signal did not end the process at once */
    (void)!write(2, msg, sizeof(msg) - 1);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s exit|signal same|other|group, or %s signal exit|exit-worker\n",
                argv[0], argv[0]);
        return 2;
    }
    int wait_for_signal = !strcmp(argv[1], "signal");
    other_thread = !strcmp(argv[2], "other");
    group = !strcmp(argv[2], "group");
    to_worker = !strcmp(argv[2], "exit-worker");
    exit_during = to_worker || !strcmp(argv[2], "exit");
    raise_sig = wait_for_signal ? SIGINT : SIGTERM;
    if (group && (setpgid(0, 0) != 0 || pipe(group_sent) != 0)) return 2;
    pthread_atfork(before_fork, in_parent, in_child);
    if (exit_during) {
        wait_for_signal = 0;
        raise_sig = SIGTERM;
        if (pipe(to_main) != 0 || pipe(from_exit) != 0) return 2;
    }
    if (other_thread || (exit_during && !to_worker)) {
        pthread_t t;
        sigset_t handled, old;
        handled_set(&handled);
        if (pipe(to_helper) != 0 || pipe(from_helper) != 0) return 2;
        pthread_sigmask(SIG_BLOCK, &handled, &old); /* inherited by the helper only */
        if (pthread_create(&t, NULL, helper, NULL) != 0) return 2;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }

    // REGION: parallel @LINE+2 count=3
    for (int i = 0; i < 3; i++) {
#pragma omp parallel num_threads(2)
        __atomic_fetch_add(&sink, (long)(omp_get_thread_num()), __ATOMIC_RELAXED);
    }

    // REGION: parallel @LINE+1 count=1
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        if (wait_for_signal) {
            printf("ready\n");
            fflush(stdout);
        }
        while (wait_for_signal) {
            __atomic_fetch_add(&sink, (long)(1), __ATOMIC_RELAXED);
            usleep(1000);
        }
        if (omp_get_thread_num() == 1) worker = pthread_self();
        __atomic_fetch_add(&sink, (long)(omp_get_thread_num()), __ATOMIC_RELAXED);
    }
    if (exit_during) {
        char c;
        atexit(at_exit);
        if (to_worker)
            pthread_kill(worker, raise_sig); /* its flush starts there */
        else
            while (write(to_helper[1], "g", 1) <
                   0) /* the helper raises SIGTERM: its flush starts */
                ;
        while (read(to_main[0], &c, 1) < 0) /* the flush is running */
            ;
    }
    return 0;
}
