/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal interface of the post-processor (scal_postproc): options of `scal report`, the merged
 * campaign model and the matrix store behind struct scal_pp_host. Plugins are loaded by the one
 * plugin loader (plugins/host/plugin_loader.h). */
#ifndef SCAL_POSTPROC_REPORT_H
#define SCAL_POSTPROC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scal/plugin.h"
#include "scal/postproc.h"

struct scal_report_options {
    const char *const *files; /* campaign or run files */
    size_t nfiles;
    const char *output_dir;
    const char *only; /* comma-separated plugin names, or NULL */
    const char *skip;
    enum scal_pp_mode mode;
    const char *stat; /* median|mean|min|max */
    size_t top;
    const char *region_pattern; /* fnmatch pattern on label or slug, or NULL */
    double min_share;           /* --min-share P: drop regions below P % of the program's time */
    bool no_write;
    const char *plugin_dir; /* searched first after $SCAL_PLUGIN_PATH (--plugin-dir), or NULL */
    const char *const *plugin_opts; /* "plugin.option=value" (--plugin-opt) */
    size_t nplugin_opts;
    /* MPI campaigns (--axes): NULL or "cores": threads axis = ranks x threads; "ranks,threads" or
     * "ranks,threads:INPUT": threads across, ranks in place of the inputs, for one input */
    const char *axes;
};

/* One line of `scal report --list`. */
struct scal_report_plugin_info {
    char name[64];
    char path[512];
    const char *description;
    int stage;
    const char *const *needs;
    const char *const *produces;
    const struct scal_option_desc *options; /* terminated by a NULL name, or NULL */
};

/* Runs the whole report. Notes (baseline, gaps, skipped plugins) are handed to note_cb. */
int scal_report_run(const struct scal_report_options *opts,
                    void (*note_cb)(void *arg, const char *text), void *arg);
/* `scal report --compare BEFORE AFTER -o DIR`: both analysed, the efficiency difference after -
 * before per region matched by identity, ranked by improvement (compare.txt, compare.csv, and
 * index.html: AFTER's page with its compare view). */
int scal_report_compare(const struct scal_report_options *opts, const char *before,
                        const char *after, void (*note_cb)(void *arg, const char *text), void *arg);
/* Lists the post-processing plugins found in the search path (plugin_dir first, may be NULL). */
int scal_report_list(const char *plugin_dir,
                     void (*cb)(void *arg, const struct scal_report_plugin_info *info), void *arg);
/* scal import's options: an input's numeric size (scal import --size LABEL=N). */
struct scal_import_size {
    const char *label;
    double size; /* > 0 */
};
struct scal_import_opts {
    const char *name; /* the JSON file in messages and /campaign@program (NULL: its path; "-":
                       * standard input) */
    const struct scal_import_size *sizes; /* in order, a later one for a label counts */
    size_t nsizes;
    bool force; /* replace an existing campaign file */
};
/* Converts a PaScal Viewer JSON file into a campaign file; an existing one is replaced only with
 * force. The sizes are stored as /campaign@input_sizes; a label that is no input of the file is
 * SCAL_EINVAL (with the closest label), before anything is written. */
int scal_import_pascal(const char *json_path, const char *campaign_path,
                       const struct scal_import_opts *opts);

/* ---- the merged campaign (load.c) ---- */
struct pp_region {
    char *key;   /* identity across files */
    char *label; /* display title */
    char *slug;
    int32_t parent;
    uint32_t depth;
    int kind;
};

struct pp_sample {
    uint32_t region;
    uint32_t cell;  /* (slice * ninputs + input) * nthreads + thread */
    int32_t metric; /* -1: time; else index into metrics */
    int32_t team;
    double value;
};

struct pp_campaign {
    char **inputs;
    size_t ninputs;
    int32_t *threads;
    size_t nthreads;
    int64_t *freqs;
    size_t nfreqs;
    struct pp_region *regions;
    size_t nregions;
    char **metrics; /* sensor metric names "<plugin>.<metric>" */
    char **metric_units;
    size_t nmetrics;
    struct pp_sample *samples;
    size_t nsamples, capsamples;
    char **notes;
    size_t nnotes;
    bool single_run;    /* only one configuration, from run files: tables only */
    bool has_run_files; /* some input is a run file: /analysis is never written */
    size_t nruns;
};

int pp_campaign_load(struct pp_campaign *c, const char *const *files, size_t nfiles);
/* The same with the axes of MPI campaigns (scal_report_options.axes; NULL: cores). */
int pp_campaign_load_axes(struct pp_campaign *c, const char *const *files, size_t nfiles,
                          const char *axes);
/* Checks an --axes value: 0, or SCAL_EINVAL with the message. */
int pp_axes_check(const char *axes);
void pp_campaign_free(struct pp_campaign *c);
int pp_campaign_note(struct pp_campaign *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- output files (outfile.c) ---- */
struct pp_outfile {
    FILE *f;
    char *tmp, *final;
};
/* The files being written into dir, each under its temporary name until committed. */
struct pp_outputs {
    const char *dir;
    struct pp_outfile *v;
    size_t n;
};
/* Creates dir and the directories of rel below it (scal_safe_mkdir: never through a link). */
int pp_out_mkdirs(const char *dir, const char *rel);
/* A new file *f for dir/rel, created exclusively at a temporary name. */
int pp_out_create(struct pp_outputs *o, const char *rel, FILE **f);
/* Closes f; with ok renames it to its name (an earlier regular file is replaced, anything else
 * refused), else removes it. */
int pp_out_commit(struct pp_outputs *o, FILE *f, bool ok);
/* Removes the temporary files never committed. */
void pp_outputs_free(struct pp_outputs *o);

/* ---- compare mode (compare.c) ---- */
int pp_compare_write(const char *dir, const struct pp_campaign *cb, const struct scal_pp_host *b,
                     const struct pp_campaign *ca, const struct scal_pp_host *a, const char *before,
                     const char *after);

/* ---- the host (host.c) ---- */
struct pp_host;
int pp_host_create(struct pp_host **out, struct pp_campaign *c,
                   const struct scal_report_options *o);
const struct scal_pp_host *pp_host_api(struct pp_host *h);
void pp_host_free(struct pp_host *h);
/* The environment (options) of the plugin about to run, handed to it as scal_pp_host.env. */
void pp_host_set_env(struct pp_host *h, const struct scal_plugin_env *env);
/* Applies --region PATTERN, --min-share P (by "time_share") and --top K (by "rank") to
 * selected(); a pattern matching no region is an error. */
int pp_host_select(struct pp_host *h, const char *pattern, double min_share, size_t top);
/* Statistics of samples: "median", "mean", "min", "max". */
double pp_stat(double *v, size_t n, const char *stat);

#endif
