/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing a campaign file incrementally: created with its configuration matrix, then one run at a
 * time (the run's regions unified with the campaign's by identity, strings re-interned, every table
 * appended, the file flushed). The cost of adding a run depends on the run, not on how many runs
 * the file already holds: identities and strings are kept in memory while the file is open. */
#ifndef SCAL_CAMPAIGN_WRITER_H
#define SCAL_CAMPAIGN_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "scal/status.h"
#include "scal_format.h"

struct scal_cw;

/* A configuration with its strings as text. */
struct scal_cw_config {
    int32_t threads;
    uint32_t input;
    const char *input_label;
    int64_t frequency_khz;
    const char *affinity;
    const char *argv;
    int32_t ranks; /* MPI ranks (scal run --ranks); 0: the campaign has no ranks dimension */
};

/* One run's data from any source (a run file, or a run of another campaign): row ids and string
 * indices are the source's; add_run maps them. */
struct scal_cw_payload {
    char **strings;
    size_t nstrings;
    struct scal_region_id_row *regions; /* identity rows, parents before children */
    size_t nregions;
    struct scal_region_stat_row *stats; /* .region: source region id; .run ignored */
    size_t nstats;
    struct scal_thread_stat_row *threads;
    size_t nthreads;
    struct scal_run_sensor_value_row *values; /* region -1: the whole run */
    size_t nvalues;
    struct scal_run_sensor_sample_row *samples;
    size_t nsamples;
    struct scal_run_plugin_state_row *plugins;
    size_t nplugins;
    /* a run of several MPI ranks (run_payload_ranks.c); all empty otherwise. Rows use the
     * payload's region ids and string indices like the members above. */
    struct scal_run_rank_row *ranks; /* one per rank, recorded or not */
    size_t nranks;
    struct scal_rank_region_stat_row *rank_stats;
    size_t nrank_stats;
    struct scal_region_rank_summary_row *rank_summary;
    size_t nrank_summary;
    /* the ranks' own payloads as read from their run files (the rank and region members above
     * then stay empty but `ranks`): scal_cw_add_run unifies their regions and writes the critical
     * path, every rank's rows and the summary. part_ranks[k] is parts[k]'s rank. */
    struct scal_cw_payload *parts;
    int32_t *part_ranks;
    size_t nparts;
};

/* The /runs row of a run, strings as text (the id is assigned by the writer). */
struct scal_cw_run {
    struct scal_run_row row; /* id, message, stdout_tail, stderr_tail are set by add_run */
    const char *message, *stdout_tail, *stderr_tail;
};

int scal_cw_create(const char *path, const struct scal_campaign_info *meta,
                   const struct scal_cw_config *configs, size_t nconfigs, struct scal_cw **out);
/* Opens an existing campaign file to add runs, through scal_h5file_open with open_flags added to
 * SCAL_OPEN_WRITE | SCAL_OPEN_CAMPAIGN (SCAL_OPEN_NO_PROBE when the caller has just read it through
 * a probe or created it: it is then read once, not twice). */
int scal_cw_open(const char *path, unsigned open_flags, struct scal_cw **out);
/* Adds one run; payload may be NULL (a run without data: failed, timed out). On success *run_id
 * (optional) is the new run's id. The file is flushed before returning. */
int scal_cw_add_run(struct scal_cw *w, const struct scal_cw_run *run,
                    const struct scal_cw_payload *payload, uint32_t *run_id);
int scal_cw_close(struct scal_cw *w);

/* Reads a run file (as written by libscal_ompt.so) into a payload. */
/* open_flags: SCAL_OPEN_NO_PROBE only for a file the caller trusts not to be damaged (the
 * committer: written moments ago by scal's own tool, atomically, in the campaign's private runs
 * directory; a probe per run would cost ~8 ms, four times the rest of a commit); 0 otherwise. */
int scal_cw_payload_from_run_file(const char *path, unsigned open_flags, struct scal_cw_payload *p);
void scal_cw_payload_free(struct scal_cw_payload *p);

/* A run snapshot's bytes as the tool wrote them (run_snapshot.h); name is the snapshot file's
 * (X.h5.snap, or X.rank<R>.h5.snap for an MPI rank), also in messages. */
struct scal_cw_snapshot {
    const char *name;
    const unsigned char *bytes;
    size_t len;
};
/* What a run's /meta says of its MPI rank (size -1 and duration NaN when not said). */
struct scal_cw_rank_meta {
    int64_t size;
    double duration_s;
    char source[64];
};
/* Reads a run snapshot into a payload, the same as scal_cw_payload_from_run_file reads the run
 * file the snapshot converts into (the same checks, the same rows), without making that file;
 * meta (may be NULL) receives the rank's /meta. */
int scal_cw_payload_from_snapshot(const struct scal_cw_snapshot *snap, struct scal_cw_payload *p,
                                  struct scal_cw_rank_meta *meta);
/* A run's data from the snapshots it left (n >= 1): path's own (path.snap), or those of its MPI
 * ranks combined as scal_cw_payload_from_run_files combines their run files. */
int scal_cw_payload_from_snapshots(const char *path, const struct scal_cw_snapshot *snaps, size_t n,
                                   struct scal_cw_payload *p);

/* A run's data as the tool left it (run_payload_ranks.c): the run file at path, or, when the run's
 * processes were MPI ranks, their files path-stem.rank<R>.h5 (see ompt_tool/mpi_rank.h) combined
 * into one payload: /region_stats rows of the critical path (per region the slowest rank's), with
 * every rank's rows and the per-region summary in the rank members. A rank that left no file (it
 * was killed) is listed as not recorded; the others' data is kept. SCAL_ENOENT: no file at all. */
int scal_cw_payload_from_run_files(const char *path, unsigned open_flags,
                                   struct scal_cw_payload *p);
/* Whether the run left any file (path itself or a rank file of it). */
bool scal_cw_run_files_exist(const char *path);
/* Calls fn(file, ctx) for path+suffix and each rank file path-stem.rank<R>.h5+suffix that exists
 * (suffix "": the run files; SCAL_SNAP_SUFFIX: their snapshots); stops at fn's first error, which
 * it returns. */
int scal_cw_run_files_each(const char *path, const char *suffix,
                           int (*fn)(const char *file, void *ctx), void *ctx);

#endif
