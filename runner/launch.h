/* SPDX-License-Identifier: BSD-3-Clause */
/* One run's launch: the program's arguments with placeholders filled in, its environment, its CPU
 * set (struct scal_launch for actuators), and starting it without a shell, with a timeout, keeping
 * the tails of its output. */
#ifndef SCAL_LAUNCH_H
#define SCAL_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

#include "scal/plugin.h"

#define SCAL_TAIL_BYTES 2048

struct scal_run_launch {
    struct scal_launch api; /* first member: actuators get &api */
    char **argv;            /* NULL-terminated */
    size_t argc;
    char **env; /* "NAME=value", NULL-terminated */
    size_t nenv;
    char *cpus;             /* set_cpus value or NULL */
    const char *stdin_path; /* the program's stdin (not owned); NULL: /dev/null */
};

struct scal_run_result {
    int exit_code, signal; /* signal: the one that ended it (0 none) */
    bool timed_out, launch_failed;
    double wall_s, started_unix;
    unsigned others_killed; /* other processes of the run's group that crashed (a fault, abort) */
    unsigned wakeups;       /* returns from the wait for the run: events, never a polling period */
    char stdout_tail[SCAL_TAIL_BYTES], stderr_tail[SCAL_TAIL_BYTES];
    char message[512];
};

/* A launch of program (argv template) in the runner's environment. */
int scal_launch_init(struct scal_run_launch *l, char *const *program, size_t nprogram);
void scal_launch_free(struct scal_run_launch *l);
/* The command line as one line of text, each argument quoted when needed (for --dry-run and the
 * campaign file). */
void scal_launch_command_text(const struct scal_run_launch *l, char *out, size_t len);
/* The same, whole, in a malloc'ed string (NULL when out of memory). */
char *scal_launch_command_alloc(const struct scal_run_launch *l);
/* The environment entries that differ from the runner's own (for --dry-run). */
void scal_launch_env_text(const struct scal_run_launch *l, char *out, size_t len);

/* Starts the program (own process group, killed when the runner dies, stdin from stdin_path or
 * /dev/null), waits for it at most timeout_s (0: no limit), keeps
 * output tails. Waits for the program and for the rest of its process group by events (SIGCHLD, its
 * output, the deadline), never by sleeping. *interrupted is set by the caller's SIGINT, SIGTERM or
 * SIGHUP handler: it is read after each wake-up, and when non-zero the program is stopped. */
int scal_launch_run(struct scal_run_launch *l, double timeout_s, volatile int *interrupted,
                    struct scal_run_result *r);

#endif
