/* SPDX-License-Identifier: BSD-3-Clause */
/* `scal run --slurm`: the Slurm executor of a campaign (beside the local one in runner.c). The
 * campaign is planned and its file created through campaign.h; the missing runs become one job
 * array per shape (ranks x threads), each array task runs `scal run --resume
 * FILE.pieces/piece-NNNN.h5`, a copy of the plan whose slice of run slots is in piece-NNNN.slots;
 * when the arrays are done the pieces are merged into FILE (scal merge's rules). Nothing in the
 * campaign calls back here. */
#ifndef SCAL_SLURM_H
#define SCAL_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "campaign.h"

/* Whether argv (`scal run` arguments) asks for Slurm: --slurm or --collect. */
bool scal_slurm_wanted(int argc, char **argv);
/* `scal run --slurm ...`, `scal run --resume FILE --slurm`, `scal run --collect FILE`: the exit
 * status (0 every run ok, 1 runs failed or missing, 2 usage or set-up error, 130 interrupted). */
int scal_slurm_main(int argc, char **argv);

/* A plain `scal run --resume FILE` (no --slurm) of a campaign whose pieces are still out is refused
 * (its runs would run twice): SCAL_EEXIST with the message, else SCAL_OK. */
int scal_slurm_check_resume(const char *campaign);

/* ---- the pieces directory (slurm_pieces.c) ---- */

/* One job array of a submission: the pieces first..last (its array indices) of one shape. */
struct scal_slurm_array {
    char job[32];
    size_t first, last;
};

/* FILE.pieces/: one submission's pieces, the batch script and the options of the last submission.
 * The pieces of one shape (ranks x threads) are one job array with its own allocation size. */
struct scal_slurm_pieces {
    char dir[4200];
    char
        job[4096]; /* the job ids, comma-separated as squeue -j takes them ("" before submission) */
    size_t npieces;                  /* piece-0000 .. piece-(npieces-1) */
    struct scal_slurm_array *arrays; /* malloc'd, narrays of them */
    size_t narrays;
};

void scal_slurm_pieces_init(struct scal_slurm_pieces *ps, const char *campaign);
void scal_slurm_pieces_free(struct scal_slurm_pieces *ps);
/* Records array job for pieces first..last (and adds it to ps->job). */
int scal_slurm_array_add(struct scal_slurm_pieces *ps, const char *job, size_t first, size_t last);
/* The job id of piece i's array ("none" when it is not known). */
const char *scal_slurm_piece_job(const struct scal_slurm_pieces *ps, size_t i);
/* The path of piece i's file with suffix (".h5", ".slots", ".out"). */
void scal_slurm_piece_path(const struct scal_slurm_pieces *ps, size_t i, const char *suffix,
                           char *out, size_t len);
/* Reads FILE.pieces/job: SCAL_ENOENT when there is no job record (nothing to collect). */
int scal_slurm_job_read(struct scal_slurm_pieces *ps);
/* Writes FILE.pieces/job (replacing it). */
int scal_slurm_job_write(const struct scal_slurm_pieces *ps);
/* Creates FILE.pieces/ (private to this user) and piece i for every slice: a copy of the plan
 * (FILE.runs/plan.h5) with its run slots in the .slots file. slots[first[i]..first[i+1]). */
int scal_slurm_pieces_create(struct scal_slurm_pieces *ps, const char *campaign,
                             const uint32_t *slots, const size_t *first, size_t npieces);
/* The sbatch options of the last submission (FILE.pieces/sbatch-options), and writing them. */
int scal_slurm_options_read(const struct scal_slurm_pieces *ps, char ***opts, size_t *n);
int scal_slurm_options_write(const struct scal_slurm_pieces *ps, char *const *opts, size_t n);
/* Removes piece i (its file, slice, its runs directory; its output unless failed, then renamed
 * failed-JOB_i.out). */
void scal_slurm_piece_remove(const struct scal_slurm_pieces *ps, size_t i, bool failed,
                             bool keep_runs);
/* Removes the job record and the batch script, then the directory when it is empty. */
void scal_slurm_pieces_done(const struct scal_slurm_pieces *ps, bool complete);

/* ---- Slurm's client commands (slurm_cmd.c) ---- */

/* Runs argv (a Slurm command, found on PATH, no shell), its whole stdout and stderr in malloc'ed
 * strings; the exit status (or 128+signal), or SCAL_ENOENT (message recorded) when it cannot run.
 */
int scal_slurm_command(char *const *argv, char **out, char **err);
/* Whether Slurm is ending the job this process runs in (SLURM_JOB_ID): cancelled, timed out,
 * preempted, its node failed. Slurm's controller marks the job (COMPLETING, CANCELLED, ...) before
 * the node signals its processes, so a process of the job that such a signal killed finds it so.
 * False outside a job, while the job goes on, and when squeue cannot tell. */
bool scal_slurm_job_ending(void);

#endif
