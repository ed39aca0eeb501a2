/* SPDX-License-Identifier: BSD-3-Clause */
/* The post-processing plugin kind (SCAL_PLUGIN_POSTPROC): the analyses and outputs of `scal
 * report`.
 *
 * The host (scal report) reads the campaign and puts, for every region node and frequency slice,
 * the base matrices over inputs (rows) x thread counts (columns):
 *   "time" (s, the chosen statistic of the repetitions), "time_cv" (coefficient of variation),
 *   "team" (median observed team size), "samples" (repetitions used), and one
 *   "sensor:<plugin>.<metric>" matrix per sensor metric of the campaign.
 * Analysis plugins declare the metrics they need and produce; the host runs them in dependency
 * order and skips one whose needs nobody produces (saying which). Output plugins read every matrix
 * through get() and write files under output_dir. Missing cells are NaN, never 0.
 * Members of every struct here are only ever appended (struct_size tells what a side has). */
#ifndef SCAL_POSTPROC_H
#define SCAL_POSTPROC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scal/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

enum scal_pp_stage {
    SCAL_PP_ANALYSIS = 1, /* computes matrices, notes and findings */
    SCAL_PP_OUTPUT = 2,   /* writes files; runs after every analysis */
};

/* How a matrix's rows and columns relate to the campaign's inputs and thread counts. */
enum scal_pp_shape {
    SCAL_PP_FULL = 0,        /* ninputs x nthreads */
    SCAL_PP_INPUT_STEP = 1,  /* (ninputs-1) x nthreads: f(x, y+1) - f(x, y) */
    SCAL_PP_THREAD_STEP = 2, /* ninputs x (nthreads-1): f(x+1, y) - f(x, y) */
    SCAL_PP_BOTH_STEP = 3,   /* (ninputs-1) x (nthreads-1): f(x+1, y+1) - f(x, y) */
    SCAL_PP_SCALAR = 4,      /* 1 x 1 */
};

/* Cell flags. */
#define SCAL_PP_CELL_NOISY 0x1u   /* coefficient of variation above the noise threshold */
#define SCAL_PP_CELL_MISSING 0x2u /* no valid sample (a gap): value is NaN */
#define SCAL_PP_CELL_TEAM 0x4u    /* observed team size differs from the requested one */

struct scal_pp_matrix {
    enum scal_pp_shape shape;
    uint32_t rows, cols;
    const char *unit;
    const double *values; /* rows * cols, row-major; NaN = missing */
    const uint8_t *flags; /* rows * cols SCAL_PP_CELL_* bits, or NULL */
};

struct scal_pp_region {
    uint32_t id; /* index into the host's region array */
    int32_t parent;
    uint32_t depth;
    int kind;          /* enum scal_region_kind */
    const char *label; /* "file.c:12-20 (fn)", "serial", a user region's name, "whole program" */
    const char *slug;  /* file-name-safe unique name, e.g. "r007-mm.c_12-20" */
};

enum scal_pp_mode { SCAL_PP_DISCRETE = 1, SCAL_PP_SMOOTH = 2, SCAL_PP_BOTH = 3 };

/* What the host gives a post-processing plugin. */
struct scal_pp_host {
    uint32_t struct_size;
    size_t nregions;
    const struct scal_pp_region *regions; /* regions[0] is the whole program */
    size_t ninputs;
    const char *const *inputs; /* input labels in campaign order */
    size_t nthreads;
    const int32_t *threads; /* requested thread counts, ascending */
    size_t nslices;
    const char *const *slices; /* "" when frequency is not varied, else "2400000 kHz" ... */
    int baseline_column;       /* column used as the speedup baseline (the 1-thread one if any) */
    const char *baseline_note; /* "" or "no 1-thread run: speedup relative to 2 threads" */
    const char *output_dir;
    const char *stat; /* "median", "mean", "min" or "max" */
    enum scal_pp_mode mode;
    size_t top;                 /* --top K, 0 = all */
    const char *const *sources; /* the files read, NULL-terminated */
    const char *write_path;     /* campaign file to write /analysis into, NULL with --no-write */
    int single_run;             /* 1: a single run file, tables only */
    double noise_cv;            /* threshold for SCAL_PP_CELL_NOISY */
    /* The matrix of a region and slice, or NULL. */
    const struct scal_pp_matrix *(*get)(const struct scal_pp_host *host, size_t region,
                                        size_t slice, const char *metric);
    /* Stores a matrix (values copied; flags may be NULL). */
    int (*put)(const struct scal_pp_host *host, size_t region, size_t slice, const char *metric,
               const char *unit, enum scal_pp_shape shape, const double *values,
               const uint8_t *flags);
    /* Adds a finding (region >= 0) or a campaign-wide note (region < 0). */
    int (*note)(const struct scal_pp_host *host, long region, const char *text);
    /* The notes of a region (or campaign-wide when region < 0); returns how many. */
    size_t (*notes)(const struct scal_pp_host *host, long region, const char *const **out);
    /* 1 when the region passes --region / --top (outputs draw only those). */
    int (*selected)(const struct scal_pp_host *host, size_t region);
    /* Names of the metrics stored for a region and slice (NULL-terminated, host-owned). */
    const char *const *(*metrics)(const struct scal_pp_host *host, size_t region, size_t slice);
    /* ABI 1.2: the running plugin's environment: its options (declared in its descriptor, set as
     * SCAL_<PLUGIN>_<OPTION> or `scal report --plugin-opt PLUGIN.OPTION=VALUE`). Check
     * struct_size before use. */
    const struct scal_plugin_env *env;
    /* ABI 1.3: output files, each created safely. create() makes the directories of
     * output_dir/relpath (refusing a symbolic link or a file at any of their names) and opens a new
     * file created exclusively under an unpredictable temporary name beside relpath; commit()
     * closes it and, with ok != 0, renames it to relpath (replacing an earlier report's regular
     * file, never a link, fifo, device or directory), else removes it. Every file a plugin writes
     * goes this way (a link planted at an output's name is never followed). NULL / negative with a
     * reason in why on error. Check struct_size before use. */
    FILE *(*create)(const struct scal_pp_host *host, const char *relpath, char *why, size_t whylen);
    int (*commit)(const struct scal_pp_host *host, FILE *f, int ok, char *why, size_t whylen);
};

struct scal_postproc_ops {
    uint32_t struct_size;
    enum scal_pp_stage stage;
    const char *const *needs;    /* metrics required (NULL-terminated); NULL = none */
    const char *const *produces; /* metrics produced (NULL-terminated); NULL = none */
    /* Runs the step. SCAL_EUNAVAIL with a reason in why = nothing to do here (listed, not an
     * error); other negative codes are errors reported with why. */
    int (*run)(const struct scal_pp_host *host, char *why, size_t whylen);
};

#ifdef __cplusplus
}
#endif
#endif
