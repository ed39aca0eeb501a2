// SPDX-License-Identifier: BSD-3-Clause
// Writing the run file exactly once: from finalize, from the library destructor (exit() inside a
// parallel region skips finalize), or from SIGINT/SIGTERM/SIGHUP, after which the signal's
// original disposition is restored and re-raised so the program ends as it would have.
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sensor_hooks.h"
#include "tool.h"

static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIG_HANDLED (sizeof(handled_signals) / sizeof(handled_signals[0]))
static struct sigaction previous[NSIG_HANDLED];

void scal_flush(const char *reason)
{
    struct scal_tool *st = &scal_tool_state;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&st->flushed, &expected, 1)) return;
    uint64_t end = scal_now_ns();
    snprintf(st->exit_reason, sizeof(st->exit_reason), "%s", reason);
    scal_user_regions_detach();
    (void)scal_write_run_file(NULL, end);
    if (st->sensors) scal_sensor_session_close(st->sensors);
}

static void on_signal(int sig)
{
    size_t i;
    for (i = 0; i < NSIG_HANDLED && handled_signals[i] != sig; i++) {
    }
    char reason[48];
    snprintf(reason, sizeof(reason), "signal %s",
             sig == SIGINT    ? "SIGINT"
             : sig == SIGTERM ? "SIGTERM"
                              : "SIGHUP");
    /* Not async-signal-safe (HDF5 allocates): a best effort that works unless the signal arrived
     * inside the allocator; the alternative is losing the whole run. */
    scal_flush(reason);
    /* Restore what the program had and deliver the signal again (it is blocked while this handler
     * runs, so it arrives on return): default termination, or the program's own handler. */
    if (i < NSIG_HANDLED) sigaction(sig, &previous[i], NULL);
    raise(sig);
}

/* A forked child has a copy of the parent's measurements: only the parent writes them. */
static void child_after_fork(void)
{
    atomic_store(&scal_tool_state.flushed, 1);
}

void scal_flush_install_handlers(void)
{
    pthread_atfork(NULL, NULL, child_after_fork);
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

/* exit() inside a parallel region, or a runtime that never calls finalize: the destructor of this
 * library (kept loaded by -z nodelete) still writes the data. */
__attribute__((destructor)) static void flush_at_unload(void)
{
    if (scal_tool_state.start_ns && atomic_load(&scal_tool_state.flushed) == 0)
        scal_flush("exit() without OpenMP finalize (e.g. inside a parallel region)");
}
