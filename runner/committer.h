/* SPDX-License-Identifier: BSD-3-Clause */
/* The committer: a child process in its own session that owns the campaign file while a campaign
 * runs. The runner sends it each finished run; it merges the run file, flushes and acknowledges.
 * When the runner dies (even by SIGKILL) the committer sees the pipe close, finishes the run it
 * holds and closes the file properly, so the file always opens and holds every completed run. */
#ifndef SCAL_COMMITTER_H
#define SCAL_COMMITTER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <stddef.h>

#include "campaign_writer.h"
#include "layout.h"
#include "scal/status.h"

struct scal_committer {
    pid_t pid;
    int to_fd, from_fd;
};

struct scal_commit_ack {
    int32_t status; /* 0 or a negative scal status */
    int32_t team_observed;
    uint8_t team_mismatch, nodata;
    uint32_t run_id;
    char message[512];
};

/* Forks the committer on a campaign file this process has just made (scal_cw_create) or read
 * through scal_h5file_open's probe (--resume): the committer opens it through scal_h5file_open
 * without a second probe. Errors carry their message (scal__last_error). */
int scal_committer_start(struct scal_committer *c, const char *campaign_path);
/* A run's data: the snapshots it left (the tool's, or its MPI ranks'), carried whole, with the
 * run file's name they stand for; or (nsnaps 0) the name of a run file already written (or of its
 * ranks' files); run_file NULL or "" when the run left no data. */
struct scal_commit_data {
    const char *run_file;
    const struct scal_cw_snapshot *snaps;
    size_t nsnaps;
    bool run_files_too; /* the run files exist beside the snapshots (--keep-runs) */
};

/* Sends one run and waits for the ack. */
int scal_committer_commit(struct scal_committer *c, const struct scal_run_row *row,
                          const char *message, const char *stdout_tail, const char *stderr_tail,
                          const struct scal_commit_data *data, bool keep_run_file,
                          struct scal_commit_ack *ack);
/* The runs kept on their own until the campaign is complete: one append-only journal in the
 * campaign's private directory (DIR/runs.journal), a record per run (its outcome and its snapshots
 * whole, with a CRC), flushed to disk before the run is committed. A campaign file damaged later
 * (full disk, I/O error, kill) is rebuilt from it. */
#define SCAL_JOURNAL_FILE "runs.journal"
struct scal_journal {
    int fd;
    off_t end; /* of the last whole record */
    char path[4200];
};
/* Opens (creates) dir's journal to add records, cutting a record a kill or a full disk tore. A
 * journal that is not a regular file (a fifo planted there) is refused, never waited on. */
int scal_journal_open(struct scal_journal *j, const char *dir);
void scal_journal_close(struct scal_journal *j);
/* 1 when dir keeps runs (journal records, damaged ones included, or the .commit files of an earlier
 * scal), 0 when not, negative when its journal is not a regular file or cannot be read. */
int scal_journal_has_runs(const char *dir);
/* Keeps one run (slot: its place in the plan) before it is committed: reserves the record's space
 * (SCAL_ENOSPC when the disk is full, nothing written), appends the record and flushes it to disk
 * (a run file the record names is fsync'd first). */
int scal_committer_keep(struct scal_journal *j, uint32_t slot, const struct scal_run_row *row,
                        const char *message, const char *stdout_tail, const char *stderr_tail,
                        const struct scal_commit_data *data);
/* What reading the kept runs found besides them: damaged records skipped (the records after them
 * are still read), runs kept again (the last one counts), records of runs not in the plan. */
struct scal_journal_stats {
    size_t runs, damaged, duplicates, foreign;
};
/* Marks kept[slot] for every run kept in dir, slot = config * repetitions + repetition of the plan
 * in the campaign file at campaign_path (nslots of them). */
int scal_journal_kept(const char *campaign_path, const char *dir, uint8_t *kept, size_t nslots,
                      struct scal_journal_stats *stats);
/* Adds every run kept in dir (the journal's records, and .commit files an earlier scal kept one
 * per run) to the campaign file at campaign_path (a copy of the campaign's plan, or the campaign
 * with the slots skip marks already in it; skip may be NULL), in plan order, each (config,
 * repetition) once, as it was kept last (keyed by the run's own row, not by the record's slot);
 * stats->runs says how many were added. */
int scal_committer_replay(const char *campaign_path, const char *dir, const uint8_t *skip,
                          struct scal_journal_stats *stats);
/* Closes the pipe and waits for the committer to close the file. */
int scal_committer_finish(struct scal_committer *c);

#endif
