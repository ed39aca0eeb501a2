/* SPDX-License-Identifier: BSD-3-Clause */
/* `scal run`'s plan: the options as parsed from the command line, the configuration matrix
 * (threads x inputs x frequencies) and the order of its runs (x repetitions). */
#ifndef SCAL_RUN_PLAN_H
#define SCAL_RUN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scal_run_input {
    char *label, *value;
    double size; /* --size: the input's numeric size (for Extra-P), NaN when not given */
};

struct scal_run_plan {
    /* options */
    int32_t *threads;
    size_t nthreads;
    struct scal_run_input *inputs; /* at least one (label "" and value "" when none given) */
    size_t ninputs;
    int64_t *freqs_khz; /* -1 alone when no frequency is set */
    size_t nfreqs;
    int32_t *ranks; /* MPI ranks (--ranks); 0 alone when the program is not launched as MPI */
    size_t nranks;
    char *launcher; /* --launcher template with {ranks} and {threads}; NULL: the default */
    char *governor, *affinity, *cores, *sensors, *output, *tool, *sysfs_root, *resume, *stdin_path;
    int64_t *ok_exits; /* exit statuses that count as success (--ok-exit; default 0) */
    size_t nok_exits;
    char **plugin_opts; /* "plugin.option=value" */
    size_t nplugin_opts;
    uint32_t repetitions;
    double idle_s, timeout_s;
    bool shuffled, dry_run, fail_fast, keep_runs, quiet;
    bool program_changed_ok; /* --program-changed: --resume continues with a rebuilt program */
    uint64_t seed;
    char **program; /* PROGRAM ARGS..., NULL-terminated */
    size_t nprogram;
    char **argv_given; /* the `scal run` options as given */
    size_t nargv_given;
    /* what --resume rebuilds the same plan from: the options with every input's value and label
     * (not the inputs file's name) and the thread list written out, then "--" and the program */
    char **stored_argv;
    size_t nstored_argv;
    /* the matrix */
    size_t nconfigs; /* nranks * nthreads * ninputs * nfreqs;
                      * config id = (((r * nt) + t) * ni + i) * nf + f */
    uint32_t *order; /* nconfigs * repetitions run slots: slot = config * reps + repetition */
    size_t nslots;
};

/* The launcher template of --ranks when --launcher is not given: srun inside a Slurm allocation
 * (SLURM_JOB_ID set: the ranks run in the job's own tasks and CPUs), mpirun elsewhere. */
#define SCAL_PLAN_DEFAULT_LAUNCHER "mpirun -np {ranks}"
#define SCAL_PLAN_SLURM_LAUNCHER "srun --ntasks={ranks} --cpus-per-task={threads}"
const char *scal_run_plan_default_launcher(void);

/* Limits that keep every option's work bounded. */
#define SCAL_PLAN_MAX_LIST 4096         /* entries of a thread, frequency or exit-status list */
#define SCAL_PLAN_MAX_SLOTS 10000000    /* runs of one campaign */
#define SCAL_PLAN_MAX_SECONDS 2678400.0 /* --idle, --timeout: 31 days */
#define SCAL_PLAN_MAX_INPUT_LINE 8192   /* characters of an --inputs-file line */

/* Parses `scal run` arguments (argv[0] is "run"). On a usage error returns SCAL_EINVAL with the
 * message recorded by scal__fail (scal__last_error). The plan is freed by scal_run_plan_free, also
 * after an error. */
int scal_run_plan_parse(struct scal_run_plan *p, int argc, char **argv);
/* Builds the order of the run slots (as given: config by config, repetitions innermost; shuffled:
 * a permutation from the seed). */
int scal_run_plan_order(struct scal_run_plan *p);
void scal_run_plan_free(struct scal_run_plan *p);
/* Whether a `scal run` option takes no value (--dry-run, -q, --help, ...). */
bool scal_run_plan_is_flag(const char *a);

static inline size_t scal_plan_thread_of(const struct scal_run_plan *p, size_t config)
{
    return config / (p->ninputs * p->nfreqs) % p->nthreads;
}
static inline size_t scal_plan_ranks_of(const struct scal_run_plan *p, size_t config)
{
    return config / (p->nthreads * p->ninputs * p->nfreqs);
}
static inline size_t scal_plan_input_of(const struct scal_run_plan *p, size_t config)
{
    return config / p->nfreqs % p->ninputs;
}
static inline size_t scal_plan_freq_of(const struct scal_run_plan *p, size_t config)
{
    return config % p->nfreqs;
}

/* Parses a list of integers with ranges: "1,2,4", "1-8", "1-16:2" (step), "1-64*2" (doubling);
 * at most SCAL_PLAN_MAX_LIST of them. */
int scal_parse_int_list(const char *text, int64_t lo, int64_t hi, int64_t **out, size_t *n);

#endif
