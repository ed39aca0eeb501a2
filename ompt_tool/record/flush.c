// SPDX-License-Identifier: BSD-3-Clause
// Writing the run file exactly once: from finalize, from the library destructor (exit() inside a
// parallel region skips finalize), or from SIGINT/SIGTERM/SIGHUP, after which the signal's
// original disposition is restored and re-raised so the program ends as it would have. A signal
// that arrives while the file is being written (the end's flush, or a first signal's) waits for
// it: its handler only records it and returns, and the flush delivers it when it has ended.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sensor_hooks.h"
#include "team.h"
#include "thread_state.h"
#include "tool.h"
#include "fork_hook.h"
#include "park.h"
#include "rank_wait.h"
#include "tool_access.h"
#include "writer_link.h"

static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIG_HANDLED (sizeof(handled_signals) / sizeof(handled_signals[0]))
static struct sigaction previous[NSIG_HANDLED];

/* scal_tool_state.flushed: no flush yet, one is writing, done (or never: a forked child's). */
enum { FLUSH_NOT_YET = 0, FLUSH_RUNNING = 1, FLUSH_DONE = 2 };
/* Bit i: handled_signals[i] arrived while a flush was running; it is delivered once the flush has
 * ended, by whoever clears the bit (the flush, or the handler that set it if the flush ended in
 * between). Lock-free atomics only: handlers and the flush may run on any thread. */
static _Atomic unsigned deferred;
/* The thread writing (its kernel id; 0 before it is known), and a semaphore posted when it is done:
 * the program's end, on another thread, waits for it (sem_post is async-signal-safe). */
static _Atomic long flusher_tid;
static sem_t flush_ended;
static _Atomic bool flush_ended_ready;
/* Set by the flush around its fork: the child of that fork (on that thread) is the writer copy. */
static _Atomic bool forking_writer;
static pthread_t writer_forker;

static size_t handled_index(int sig)
{
    size_t i;
    for (i = 0; i < NSIG_HANDLED && handled_signals[i] != sig; i++) {
    }
    return i;
}

static void handled_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < NSIG_HANDLED; i++)
        sigaddset(set, handled_signals[i]);
}

/* What the writer may see and call of the tool (it does not link against libscal_ompt.so). */
static const struct scal_tool_access writer_access = {
    .struct_size = sizeof(struct scal_tool_access),
    .state = &scal_tool_state,
    .diag_counters = scal_diag_counters,
    .diag_name = scal_diag_name,
    .diag_text = scal_diag_text,
    .diag_messages = scal_diag_messages,
    .nodes_count = scal_nodes_count,
    .node_get = scal_node_get,
    .node_lookup = scal_node_lookup,
    .threads_count = scal_threads_count,
    .thread_at = scal_thread_at,
    .thread_row = scal_thread_row,
    .thread_row_if_any = scal_thread_row_if_any,
    .stats_add_time = scal_stats_add_time,
    .stats_add_team = scal_stats_add_team,
    .hist_bucket_bounds = scal_hist_bucket_bounds,
    .callsite_in_runtime = scal_callsite_in_runtime,
    .wall_ns = scal_wall_ns,
    .module_of = scal_module_of,
    .fork_hook_entry = scal_fork_hook_entry,
    .hand_to_writer = scal_writer_link_hand,
    .hand_fd_to_writer = scal_writer_link_hand_fd,
    .module_noted = scal_module_noted,
    .resolve_by_writer = scal_writer_link_resolve,
};

/* The writer (libdw) lives in its own library next to this one and is loaded only by the writer:
 * the measured program does not pay for it at start-up, and its libraries cannot clash with other
 * versions the program may use (RTLD_DEEPBIND keeps the writer's references inside its own
 * dependency tree). It records a run snapshot and hands it to the writer program (or, under scal
 * run, to the runner), which writes the HDF5 run file: HDF5 is never mapped here. */
static void write_through_writer(uint64_t end)
{
    Dl_info self;
    char path[4096];
    if (!dladdr((void *)scal_flush, &self) || !self.dli_fname) {
        fprintf(stderr, "scal: cannot locate libscal_ompt.so; measurements lost\n");
        return;
    }
    snprintf(path, sizeof(path), "%s", self.dli_fname);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof(path) - (size_t)(slash ? slash + 1 - path : 0), "%s",
             SCAL_WRITER_LIBRARY);
    int flags = RTLD_NOW | RTLD_LOCAL;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && !defined(SCAL_SANITIZED)
    flags |= RTLD_DEEPBIND; /* sanitizer runtimes do not support it */
#endif
    void *writer = dlopen(path, flags);
    scal_write_run_file_fn write =
        writer ? (scal_write_run_file_fn)dlsym(writer, SCAL_WRITER_ENTRY) : NULL;
    if (!write) {
        fprintf(stderr, "scal: cannot load the run-file writer %s: %s; measurements lost\n", path,
                dlerror());
        return;
    }
    (void)write(&writer_access, end); /* kept loaded (-z nodelete): libdw may run exit handlers */
}

/* SCAL_WRITER=detached only: the writing happens in a forked copy of this process, and the
 * program ends as soon as the copy exists (a fork costs about a tenth of a millisecond here),
 * while the copy resolves the regions from its frozen memory (no thread runs on in it), records
 * the snapshot and becomes the writer program, in a session of its own (^C is for the program).
 * The run file appears a moment after the program ended. When fork fails, the work is done here. */
static void write_in_copy(struct scal_tool *st, uint64_t end)
{
    /* (the copy never flushes the program's stdio buffers: it ends by _exit or exec) */
    writer_forker = pthread_self();
    atomic_store(&forking_writer, true);
    pid_t child = fork();
    atomic_store(&forking_writer, false);
    if (child < 0) {
        write_through_writer(end);
        return;
    }
    if (child == 0) {
        st->in_writer_copy = true;
        /* SIGINT/SIGTERM/SIGHUP are the program's. Until here the tool's handler defers them
         * (this copy never delivers what it deferred); now they are blocked, ignored (which
         * discards any pending), the copy leaves the session (it gets no more of the program's
         * signals), and they are back to the default and unblocked. */
        sigset_t handled, none;
        handled_set(&handled);
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &handled, NULL);
        for (size_t i = 0; i < NSIG_HANDLED; i++)
            signal(handled_signals[i], SIG_IGN);
        setsid();
        for (size_t i = 0; i < NSIG_HANDLED; i++)
            signal(handled_signals[i], SIG_DFL);
        pthread_sigmask(SIG_SETMASK, &none, NULL);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1); /* a pipe reading the program's output ends with the program */
        }
        write_through_writer(end);
        _exit(0); /* never the program's exit handlers */
    }
}

/* Restores the program's disposition of sig and delivers sig again, now: the program ends as it
 * would have without the tool, or its own handler runs. in_its_handler: called from the handler
 * of sig, where sig is blocked until the handler returns; it is unblocked so that it arrives
 * before any other signal the flush deferred. Otherwise, when this thread blocks sig (the
 * program's mask; the handler ran on another thread), it goes to the process. */
static void deliver(int sig, bool in_its_handler)
{
    size_t i = handled_index(sig);
    if (i < NSIG_HANDLED) sigaction(sig, &previous[i], NULL);
    sigset_t one, mask;
    sigemptyset(&one);
    sigaddset(&one, sig);
    if (in_its_handler) {
        raise(sig);
        pthread_sigmask(SIG_UNBLOCK, &one, NULL);
        return;
    }
    if (pthread_sigmask(SIG_BLOCK, NULL, &mask) == 0 && sigismember(&mask, sig))
        kill(getpid(), sig);
    else
        raise(sig);
}

static void flush_run(const char *reason)
{
    struct scal_tool *st = &scal_tool_state;
    atomic_store(&flusher_tid, (long)gettid());
    uint64_t end = scal_now_ns();
    scal_park_idle_threads(); /* the runtime's idle threads would spin beside the flush */
    snprintf(st->exit_reason, sizeof(st->exit_reason), "%s", reason);
    scal_user_regions_detach();
    scal_settle_all(); /* what still awaits settlement (team.h) */
    if (st->sensors) scal_sensor_session_stop(st->sensors); /* run sensors' end readings */
    scal_modules_refresh(); /* modules of regions still queued (while they are loaded) */
    st->measured_pid = (int)getpid();
    /* By default (the file is complete when the process has ended) the snapshot is recorded here
     * and handed to the writer process started with the tool (writer_link.h), or, under scal run,
     * left to the runner: no fork of the program. */
    if (st->cfg.wait_writer || st->cfg.snapshot_only)
        write_through_writer(end);
    else
        write_in_copy(st, end);
    if (st->sensors) scal_sensor_session_close(st->sensors);
    scal_park_release();
}

/* Whether the program's disposition of handled_signals[i] ends the process (the default). */
static bool ends_process(size_t i)
{
    return !(previous[i].sa_flags & SA_SIGINFO) && previous[i].sa_handler == SIG_DFL;
}

/* Whether one of the handled signals in the mask `signals` ends the process. */
static bool any_ends_process(unsigned signals)
{
    bool ends = false;
    for (size_t i = 0; i < NSIG_HANDLED; i++)
        if (signals & (1u << i)) ends = ends || ends_process(i);
    return ends;
}

/* The flush has ended: the signals that arrived meanwhile are delivered, own (the signal whose
 * handler ran this flush, 0 if none) first, then the others in the order of handled_signals. A
 * program's end waiting for this flush (wait_for_flush) is let go after a signal that ends the
 * process, so that it cannot end the process first with its own exit status; before one that
 * runs a handler of the program's (which may never return here). */
static void flush_done(int own)
{
    unsigned own_bit = own ? 1u << handled_index(own) : 0u;
    /* A rank about to die of a signal lets the other ranks keep their data first (rank_wait.h);
     * signals arriving meanwhile are still deferred. */
    if (any_ends_process(atomic_load(&deferred) | own_bit)) scal_rank_wait_for_others();
    atomic_store(&scal_tool_state.flushed, FLUSH_DONE);
    unsigned waiting = atomic_exchange(&deferred, 0u) | own_bit;
    bool ends = any_ends_process(waiting);
    bool ready = atomic_load(&flush_ended_ready);
    if (ready && !ends) sem_post(&flush_ended);
    if (own) {
        deliver(own, true);
        waiting &= ~(1u << handled_index(own));
    }
    for (size_t i = 0; i < NSIG_HANDLED; i++)
        if (waiting & (1u << i)) deliver(handled_signals[i], false);
    if (ready && ends) sem_post(&flush_ended); /* the signal went to another thread: not ended */
}

void scal_flush(const char *reason)
{
    int expected = FLUSH_NOT_YET;
    if (!atomic_compare_exchange_strong(&scal_tool_state.flushed, &expected, FLUSH_RUNNING)) return;
    flush_run(reason);
    flush_done(0);
}

static void on_signal(int sig)
{
    int saved_errno = errno; /* the handler may return into the program (or into the flush) */
    size_t i = handled_index(sig);
    unsigned bit = i < NSIG_HANDLED ? 1u << i : 0u;
    int state = FLUSH_NOT_YET;
    if (atomic_compare_exchange_strong(&scal_tool_state.flushed, &state, FLUSH_RUNNING)) {
        char reason[48];
        snprintf(reason, sizeof(reason), "signal %s",
                 sig == SIGINT    ? "SIGINT"
                 : sig == SIGTERM ? "SIGTERM"
                                  : "SIGHUP");
        /* Not async-signal-safe (the snapshot allocates): a best effort that works unless the
         * signal arrived inside the allocator; the alternative is losing the whole run. */
        flush_run(reason);
        flush_done(sig);
        errno = saved_errno;
        return;
    }
    if (state == FLUSH_RUNNING) {
        /* A flush is writing, on this thread (interrupted) or another one: waiting here could
         * wait for ever (for this very thread, or for a lock it holds), so the signal is left to
         * the flush, and this thread goes on until the flush delivers it. */
        atomic_fetch_or(&deferred, bit);
        if (atomic_load(&scal_tool_state.flushed) == FLUSH_RUNNING ||
            !(atomic_fetch_and(&deferred, ~bit) & bit)) {
            errno = saved_errno;
            return;
        }
        /* the flush ended in between, and left the signal to this handler */
    }
    deliver(sig, true);
    errno = saved_errno;
}

/* A forked child has a copy of the parent's measurements: only the parent writes them, and the
 * child's signals are delivered at once (it has no flush to wait for). The writer copy stays in
 * the state of the flush that forked it (its handled signals are deferred until it blocks them). */
static void child_after_fork(void)
{
    scal_writer_link_forget(); /* the parent's writer */
    if (atomic_load(&forking_writer) && pthread_equal(pthread_self(), writer_forker)) return;
    atomic_store(&scal_tool_state.flushed, FLUSH_DONE);
    atomic_store(&deferred, 0u);
    atomic_store(&flusher_tid, 0L); /* a flush running in the parent is not the child's */
}

/* The program ends (exit) while another thread writes the run file (a signal's flush): the end
 * waits for it, or the process would be gone before the file is. Only here, in an atexit handler,
 * where this thread holds no lock the flush may need (OpenMP finalize, inside the runtime, does
 * not wait); never for this thread's own flush (a handler that called exit() inside it). */
static void wait_for_flush(void)
{
    long who = atomic_load(&flusher_tid);
    if (!atomic_load(&flush_ended_ready) || !who || who == (long)gettid()) return;
    while (sem_wait(&flush_ended) != 0 && errno == EINTR)
        ;
    sem_post(&flush_ended); /* for the next one waiting */
}

/* Normal ends and exit() inside a parallel region (which skips OpenMP finalize) both pass here:
 * atexit handlers run before any library destructor, while the dynamic loader can still load the
 * writer safely. */
static void flush_at_exit(void)
{
    struct scal_thread *t = scal_thread_get();
    scal_flush(t && t->depth > 1 ? "exit() inside a region (OpenMP finalize skipped)"
                                 : "program exited (return from main or exit())");
    wait_for_flush();
}

void scal_flush_install_handlers(void)
{
    if (sem_init(&flush_ended, 0, 0) == 0) atomic_store(&flush_ended_ready, true);
    pthread_atfork(NULL, NULL, child_after_fork);
    atexit(flush_at_exit);
    for (size_t i = 0; i < NSIG_HANDLED; i++) {
        struct sigaction sa;
        if (sigaction(handled_signals[i], NULL, &previous[i]) != 0) continue;
        if (previous[i].sa_handler == SIG_IGN) continue; /* the program ignores it: so do we */
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(handled_signals[i], &sa, NULL);
    }
}

/* Last resort (a runtime that neither finalizes nor lets atexit handlers run before unloading):
 * the destructor of this library, kept loaded by -z nodelete. */
__attribute__((destructor)) static void flush_at_unload(void)
{
    if (scal_tool_state.start_ns && atomic_load(&scal_tool_state.flushed) == FLUSH_NOT_YET)
        scal_flush("exit() without OpenMP finalize (e.g. inside a parallel region)");
}
