/* SPDX-License-Identifier: BSD-3-Clause */
/* `scal run`'s stages as an executor uses them, in this order: plan (the options, or a campaign
 * file's stored plan, made into the run matrix; program, tool and actuators prepared), the campaign
 * file (created complete with its plan, or the existing one on --resume), then an executor runs the
 * missing run slots: the local one (scal_campaign_run_local, runner.c) or the Slurm one
 * (runner/slurm.c). The stages never call an executor; `scal run` (run_command.c) picks one. */
#ifndef SCAL_CAMPAIGN_H
#define SCAL_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "run_plan.h"

/* A planned campaign (runner.c). */
struct scal_campaign;

/* What an executor reads of a planned campaign. */
struct scal_campaign_view {
    const struct scal_run_plan *plan;
    const uint8_t *done; /* per run slot: already in the campaign file; NULL: none is */
    const char *output;  /* the campaign file */
    bool resuming;
};

/* Plans `scal run` argv (argv[0] "run", no Slurm options) and prepares its program, tool and
 * actuators; a damaged campaign file given to --resume is rebuilt from its kept runs here. *out is
 * set (also on error, for scal_campaign_free); errors carry their message (scal__last_error). */
int scal_campaign_plan(int argc, char **argv, struct scal_campaign **out);
const struct scal_campaign_view *scal_campaign_view(const struct scal_campaign *c);
/* The campaign file, complete with its plan (a new one; --resume: the existing one checked). */
int scal_campaign_create(struct scal_campaign *c);
/* --dry-run: the matrix and the exact command lines; the exit status. launcher: the MPI launcher
 * template the executor's runs will use unless the plan names one (--launcher); NULL: this
 * machine's default (scal_run_plan_default_launcher). */
int scal_campaign_dry_run(struct scal_campaign *c, const char *launcher);
/* The local executor: the missing runs here, one after the other; the exit status. */
int scal_campaign_run_local(struct scal_campaign *c);
void scal_campaign_free(struct scal_campaign *c);

/* The stored `scal run` arguments of a campaign file and its runs (the runner's --resume read). */
int scal_runner_read_campaign(const char *path, char ***args, size_t *nargs,
                              struct scal_run_row **runs, size_t *nruns);
/* After a complete campaign: the kept runs and the plan's copy in FILE.runs/ go (its run files
 * stay with keep_runs). */
void scal_runner_drop_kept_runs(const char *output, bool keep_runs);
/* A directory only this user can write into (created 0700, or an existing one checked). */
int scal_runner_private_dir(const char *dir);

/* ---- a slice of a campaign (campaign_slice.c) ---- */

/* FILE.slots beside a campaign file FILE.h5 restricts it to a slice of its plan: --resume FILE.h5
 * runs only the slots listed (an executor's share of the plan; runner/slurm.c's pieces). */
int scal_campaign_slice_write(const char *path, const uint32_t *slots, size_t n);
/* Reads a slice into flags: slice[slot] = 1. */
int scal_campaign_slice_read(const char *path, size_t nslots, uint8_t *slice);
/* --resume of output: when output.slots (FILE.h5 -> FILE.slots) exists, every slot outside the
 * slice is marked done too. */
int scal_campaign_slice_apply(const char *output, const struct scal_run_plan *plan, uint8_t *done,
                              size_t *ndone);
/* Writes text to path through an exclusive temporary name, replacing path. */
int scal_campaign_text_write(const char *path, const char *text);

/* ---- collecting slices into their campaign (merge.c) ---- */

/* Adds the runs of the pieces to the campaign with scal merge's rules (configurations matched,
 * regions unified by identity): a run the campaign holds already (same configuration, start and
 * duration: a piece collected before) is skipped; a run keeps its repetition unless the campaign
 * holds it, then takes the next free one. The campaign is rewritten under an exclusive temporary
 * name and renamed over the old file. *nadded: runs added. */
int scal_merge_pieces(const char *campaign, const char *const *pieces, size_t npieces,
                      size_t *nadded);

#endif
