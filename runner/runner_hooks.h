/* SPDX-License-Identifier: BSD-3-Clause */
/* What `scal run` lends the code that runs its campaigns elsewhere (runner/slurm*.c): its planning
 * and campaign-file creation without the runs, the stored plan of a campaign file, and the
 * clean-up after a complete campaign. */
#ifndef SCAL_RUNNER_HOOKS_H
#define SCAL_RUNNER_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "run_plan.h"

/* A planned campaign as the hooks see it. */
struct scal_runner_view {
    const struct scal_run_plan *plan;
    const uint8_t *done; /* per run slot: already in the campaign file; NULL: none is */
    const char *output;  /* the campaign file */
    bool resuming;
};

struct scal_runner_hooks {
    /* After planning and preparing (program, tool, actuators), before the campaign file is
     * created: returns -1 to go on, else the exit status of `scal run` (nothing is created). */
    int (*planned)(void *ctx, const struct scal_runner_view *v);
    /* Instead of running the campaign, once its file exists complete: the exit status. */
    int (*opened)(void *ctx, const struct scal_runner_view *v);
    void *ctx;
};

/* `scal run` with argv (argv[0] "run", no Slurm options) through the hooks. */
int scal_runner_with_hooks(int argc, char **argv, const struct scal_runner_hooks *h);
/* The stored `scal run` arguments of a campaign file and its runs (the runner's --resume read). */
int scal_runner_read_campaign(const char *path, char ***args, size_t *nargs,
                              struct scal_run_row **runs, size_t *nruns);
/* After a complete campaign: the kept runs and the plan's copy in FILE.runs/ go (its run files
 * stay with keep_runs). */
void scal_runner_drop_kept_runs(const char *output, bool keep_runs);

/* A directory only this user can write into (created 0700, or an existing one checked). */
int scal_runner_private_dir(const char *dir);

#endif
