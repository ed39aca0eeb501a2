// SPDX-License-Identifier: BSD-3-Clause
// `scal run`: the campaign loop. Plans the matrix, prepares the program (tool, libomp for gcc
// programs), applies actuators around every run, hands each finished run to the committer, and
// restores the machine on every way out.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <hdf5.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "actuator_set.h"
#include "campaign.h"
#include "campaign_writer.h"
#include "committer.h"
#include "errmsg.h"
#include "h5util.h"
#include "launch.h"
#include "launcher.h"
#include "run_snapshot_h5.h"
#include "measure.h"
#include "omp_runtime.h"
#include "program_identity.h"
#include "plugin_loader.h"
#include "progress.h"
#include "run_plan.h"
#include "runner.h"
#include "safe_create.h"
#include "safe_open.h"
#include "slurm.h"

static volatile sig_atomic_t stop_signal;
static volatile int stop_flag;

static void on_stop(int sig)
{
    stop_signal = sig;
    stop_flag = 1;
}

struct campaign {
    struct scal_run_plan plan;
    struct scal_actuator_set act;
    int a_threads, a_input, a_freq, a_affinity, a_cores;
    struct scal_measure measure; /* the program, its OpenMP runtime and the tool */
    char output[PATH_MAX], rundir[2 * PATH_MAX + 8], plan_copy[2 * PATH_MAX + 16];
    struct scal_journal journal; /* the runs kept on their own (committer.h) */
    uint8_t *done;               /* per run slot: already in the campaign file (resume) */
    size_t ndone;
    struct scal_cw_config *configs;
    char **config_argv, **config_affinity;
    /* --resume: the stored `scal run` arguments the plan points into, and the runs already done */
    const char *launcher; /* MPI launcher without --launcher: NULL, this machine's default */
    bool resuming;
    /* this run made FILE.runs/, the plan's copy in it; the campaign file is in place */
    bool made_rundir, made_plan_copy, published;
    /* FILE.runs/reserve: disk space held while a run is measured and kept, released for its commit
     * so that a filling disk stops the campaign before the campaign file is written, not in it */
    int reserve_fd;
    off_t reserve_bytes;
    bool disk_full;
    char **stored, **resume_args;
    size_t nstored;
    struct scal_run_row *runs;
    size_t nruns;
    char *stored_identity; /* the program's identity when the campaign began (NULL: not stored) */
};

static void usage(FILE *out)
{
    fputs("usage: scal run [OPTIONS] -- PROGRAM [ARGS...]\n"
          "       scal run --resume CAMPAIGN.h5\n\n"
          "Runs PROGRAM under the scal tool over threads x inputs x frequencies x repetitions and\n"
          "gathers every run into one campaign file. {threads} and {input} in ARGS are replaced\n"
          "per run (an argument that is exactly {input} becomes the input's words; without\n"
          "{input} the input's words are appended). No shell is involved.\n\n"
          "  -c, --threads LIST     thread counts: 1,2,4 or 1-8, 1-16:2, 1-64*2\n"
          "                         (default: 1,2,4,... up to the number of CPUs)\n"
          "  -r, --repetitions N    runs per configuration (default 1)\n"
          "      --ranks LIST       MPI ranks: each configuration also for these rank counts,\n"
          "                         launched through --launcher; each rank writes its own run\n"
          "                         file, all of them are one run of the campaign\n"
          "      --launcher T       MPI launcher template with {ranks} and {threads}, split like\n"
          "                         a shell would (quotes, no command substitution, no shell run)\n"
          "                         (default '" SCAL_PLAN_DEFAULT_LAUNCHER
          "'; in a Slurm allocation\n"
          "                         'srun --ntasks={ranks} --cpus-per-task={threads}')\n"
          "  -i, --input VALUE      a program input (repeatable); --label L names the last one,\n"
          "                         --size N gives its numeric size (scal export --format extrap)\n"
          "      --inputs-file F    inputs, one per line: VALUE or LABEL<TAB>VALUE\n"
          "  -f, --frequencies L    CPU frequencies (kHz, or 2.4GHz, 1800MHz); needs cpufreq\n"
          "      --governor G       cpufreq governor to set during the campaign\n"
          "      --affinity A       compact, spread or a CPU list (0-3,8); sets OMP_PLACES\n"
          "      --cores V          CPU hotplug/SMT: N (CPUs 0..N-1 online) or smt=off|on (root)\n"
          "  -s, --sensors LIST     sensor plugins for every run (papi,rapl,rusage,proc)\n"
          "      --plugin-opt P.O=V plugin option (repeatable), e.g. papi.events=PAPI_TOT_INS\n"
          "      --sysfs-root DIR   where /sys is for the sysfs plugins (tests)\n"
          "      --idle SECONDS     pause between runs\n"
          "      --timeout SECONDS  stop a run after this long (recorded as timed out)\n"
          "      --ok-exit LIST     exit statuses that count as success (default 0), e.g. 0,1;\n"
          "                         the measurements of every run are kept with its status\n"
          "      --stdin FILE       the program's standard input (default /dev/null)\n"
          "      --order given|shuffled, --seed N   run order (shuffled: reproducible by seed)\n"
          "  -o, --output FILE      the campaign file (default scal-<program>.h5)\n"
          "      --dry-run          print the matrix and the exact command lines, run nothing\n"
          "      --resume FILE      run exactly the runs missing from FILE, as it was planned\n"
          "      --fail-fast        stop at the first failed run\n"
          "      --keep-runs        keep each run's own file in FILE.runs/\n"
          "      --tool LIB         the libscal_ompt.so to use (default: the installed one), set\n"
          "                         as OMP_TOOL_LIBRARIES and preloaded (LD_PRELOAD)\n"
          "      --program-changed  with --resume: continue although the program was rebuilt\n"
          "  -q, --quiet            no progress and no notes: nothing when every run is ok;\n"
          "                         errors, each failed run's reason and the final count when\n"
          "                         runs failed are still printed\n\n"
          "On a cluster (Slurm): the plan as one job array, each array task running its slice\n"
          "into a piece of the campaign (FILE.pieces/), merged into FILE when the job is done:\n"
          "      --slurm            submit the campaign with sbatch --array and wait for it; one\n"
          "                         job array per ranks x threads shape, each task allocated\n"
          "                         --ntasks=RANKS --cpus-per-task=THREADS; the exit status is a\n"
          "                         local campaign's (1 when runs fail or are missing)\n"
          "      --sbatch-opt OPT   an sbatch option (repeatable): --sbatch-opt=--partition=P\n"
          "                         (after scal's own --ntasks/--cpus-per-task, so it wins)\n"
          "      --slurm-runs-per-task N   runs per array task (default 1; more above 1000 runs)\n"
          "      --no-wait          submit and return; then scal run --collect FILE\n"
          "      --then-report      submit and return; a job that depends on the arrays collects\n"
          "                         the pieces and runs scal report FILE (FILE.collect.out)\n"
          "      --collect FILE     wait for FILE's job, then merge its pieces into FILE\n"
          "  scal run --resume FILE --slurm submits the runs still missing (failed or cancelled\n"
          "  array tasks) as a new job array.\n\n"
          "Exit status: 0 all runs ok, 1 some runs failed (all recorded), 2 usage or set-up\n"
          "error, 130 interrupted (the machine is restored, completed runs are kept).\n",
          out);
}

/* ---- resume ------------------------------------------------------------------------------- */

/* Reads the stored `scal run` arguments and the finished (config, repetition) pairs. */
static int read_resume(const char *path, char ***args, size_t *nargs, struct scal_run_row **runs,
                       size_t *nruns, char **identity)
{
    struct scal_h5file f;
    /* the committer of an interrupted campaign may still be closing the file: wait for it */
    int rc = scal_h5file_open(path, SCAL_OPEN_CAMPAIGN | SCAL_OPEN_WAIT | SCAL_OPEN_VALIDATE, &f);
    if (rc < 0) return rc;
    if (!scal_h5_exists(f.id, "campaign/runner_argv"))
        rc = scal__fail(SCAL_EFORMAT,
                        "'%s' was not made by scal run (no /campaign/runner_argv): it cannot "
                        "be resumed",
                        path);
    if (rc == SCAL_OK) rc = scal_h5_read_strings(f.id, "campaign/runner_argv", args, nargs);
    if (rc == SCAL_OK) rc = scal_table_read(f.id, &scal_table_runs, (void **)runs, nruns);
    /* campaigns made before scal stored the program's identity have none: nothing to compare */
    hid_t g = rc == SCAL_OK ? H5Gopen2(f.id, "campaign", H5P_DEFAULT) : H5I_INVALID_HID;
    free(*identity);
    *identity = NULL;
    if (g >= 0 && H5Aexists(g, "program_identity") > 0 &&
        scal_h5_attr_get_str(g, "program_identity", identity) < 0)
        rc = scal__fail(SCAL_EFORMAT, "'%s': /campaign's program_identity is unreadable", path);
    if (g >= 0) H5Gclose(g);
    scal_h5file_close(&f);
    return rc;
}

int scal_runner_read_campaign(const char *path, char ***args, size_t *nargs,
                              struct scal_run_row **runs, size_t *nruns)
{
    char *identity = NULL;
    int rc = read_resume(path, args, nargs, runs, nruns, &identity);
    free(identity);
    return rc;
}

/* --resume runs the stored plan with the program found now: a rebuilt binary would mix two
 * programs' runs in one campaign, so it is refused unless --program-changed says it is meant. */
static int check_program_unchanged(const struct campaign *c)
{
    if (!c->stored_identity) return SCAL_OK;
    char now[512];
    int rc = scal_program_identity(c->measure.program_path, now, sizeof(now));
    if (rc < 0 || !strcmp(now, c->stored_identity)) return rc;
    if (c->plan.program_changed_ok) {
        if (!c->plan.quiet)
            fprintf(stderr,
                    "scal run: note: %s changed since the campaign began (--program-changed): "
                    "was %s, now %s\n",
                    c->measure.program_path, c->stored_identity, now);
        return SCAL_OK;
    }
    return scal__fail(SCAL_EINVAL,
                      "'%s': the program %s changed since the campaign began\n"
                      "  when it began: %s\n"
                      "  now:           %s\n"
                      "its runs would mix two programs; start a new campaign, or add "
                      "--program-changed to resume with the new one",
                      c->output, c->measure.program_path, c->stored_identity, now);
}

/* ---- set-up ------------------------------------------------------------------------------- */

/* The actuator set still reports errors in a why buffer: carried on as scal__fail's message. */
static int carry(int rc, const char *why)
{
    return rc < 0 ? scal__fail(rc, "%s", why[0] ? why : scal_strerror(rc)) : rc;
}

static int add_actuator(struct campaign *c, const char *name, const char *extra)
{
    const char *settings[32];
    char why[1024] = "";
    size_t n = scal_plugin_settings_for((const char *const *)c->plan.plugin_opts,
                                        c->plan.nplugin_opts, name, settings, 31);
    if (extra) settings[n++] = extra;
    return carry(scal_actuators_add(&c->act, name, settings, n, why, sizeof(why)), why);
}

/* scal_measure_env's setter for a launch: the variables reach the measured program only. */
static int launch_set_env(void *api, const char *name, const char *value)
{
    struct scal_launch *launch = api;
    return launch->set_env(launch, name, value);
}

static int apply_actuator(struct campaign *c, int index, const char *value, struct scal_launch *l)
{
    char why[1024] = "";
    return carry(scal_actuators_apply(&c->act, index, value, l, why, sizeof(why)), why);
}

static bool template_has(const struct scal_run_plan *p, const char *ph)
{
    for (size_t i = 1; i < p->nprogram; i++)
        if (strstr(p->program[i], ph)) return true;
    return false;
}

/* The program's OpenMP runtime (and libomp for a libgomp program) and the tool. */
static int find_runtime_and_tool(struct campaign *c)
{
    return scal_measure_prepare(c->plan.program[0], c->plan.tool, &c->measure);
}

/* The actuators the plan asks for: threads and input always, the others when given. */
static int add_actuators(struct campaign *c)
{
    struct scal_run_plan *p = &c->plan;
    if (p->sysfs_root) setenv("SCAL_SYSFS_ROOT", p->sysfs_root, 1);
    c->a_freq = c->a_affinity = c->a_cores = -1;
    if ((c->a_threads = add_actuator(c, "threads", NULL)) < 0) return c->a_threads;
    if ((c->a_input = add_actuator(c, "input", template_has(p, "{input}") ? NULL : "append=1")) < 0)
        return c->a_input;
    char gov[256];
    snprintf(gov, sizeof(gov), "governor=%s", p->governor ? p->governor : "");
    if ((p->freqs_khz[0] >= 0 || p->governor) &&
        (c->a_freq = add_actuator(c, "frequency", p->governor ? gov : NULL)) < 0)
        return c->a_freq;
    if (p->affinity && (c->a_affinity = add_actuator(c, "affinity", NULL)) < 0)
        return c->a_affinity;
    if (p->cores && (c->a_cores = add_actuator(c, "cores", NULL)) < 0) return c->a_cores;
    return SCAL_OK;
}

static void affinity_value(const struct campaign *c, int32_t threads, char *out, size_t len)
{
    const char *a = c->plan.affinity;
    if (!a)
        out[0] = 0;
    else if (!strcmp(a, "compact") || !strcmp(a, "spread"))
        snprintf(out, len, "%s:%d", a, threads);
    else
        snprintf(out, len, "%s", a);
}

/* Fills a launch for one configuration with every actuator applied (machine actuators too when
 * apply_machine). */
static int prepare_launch(struct campaign *c, size_t config, struct scal_run_launch *l,
                          bool apply_machine)
{
    struct scal_run_plan *p = &c->plan;
    int32_t threads = p->threads[scal_plan_thread_of(p, config)];
    const struct scal_run_input *in = &p->inputs[scal_plan_input_of(p, config)];
    int64_t freq = p->freqs_khz[scal_plan_freq_of(p, config)];
    char v[256];
    int rc = scal_launch_init(l, p->program, p->nprogram);
    snprintf(v, sizeof(v), "%d", threads);
    if (rc == SCAL_OK) rc = apply_actuator(c, c->a_threads, v, &l->api);
    if (rc == SCAL_OK && in->value[0]) rc = apply_actuator(c, c->a_input, in->value, &l->api);
    affinity_value(c, threads, v, sizeof(v));
    if (rc == SCAL_OK && c->a_affinity >= 0) rc = apply_actuator(c, c->a_affinity, v, &l->api);
    if (rc == SCAL_OK && apply_machine && c->a_freq >= 0) {
        if (freq >= 0)
            snprintf(v, sizeof(v), "%lld", (long long)freq);
        else
            v[0] = 0;
        rc = apply_actuator(c, c->a_freq, v, &l->api);
    }
    /* MPI: the launcher in front of the program, the environment reaching every rank through it */
    int32_t ranks = p->ranks[scal_plan_ranks_of(p, config)];
    if (rc == SCAL_OK && ranks > 0)
        rc = scal_launcher_prepend(l,
                                   p->launcher   ? p->launcher
                                   : c->launcher ? c->launcher
                                                 : scal_run_plan_default_launcher(),
                                   ranks, threads);
    /* the tool and its settings */
    if (rc == SCAL_OK) rc = scal_measure_env(&c->measure, launch_set_env, &l->api);
    if (rc == SCAL_OK && p->sensors) rc = l->api.set_env(&l->api, "SCAL_PLUGINS", p->sensors);
    if (rc == SCAL_OK && p->sysfs_root)
        rc = l->api.set_env(&l->api, "SCAL_SYSFS_ROOT", p->sysfs_root);
    for (size_t i = 0; rc == SCAL_OK && i < p->nplugin_opts; i++) {
        /* sensor options travel to the tool in the environment: SCAL_<PLUGIN>_<OPTION> */
        char name[256], plugin[128], option[128];
        const char *o = p->plugin_opts[i], *eq = strchr(o, '='), *dot = strchr(o, '.');
        snprintf(plugin, sizeof(plugin), "%.*s", (int)(dot - o), o);
        snprintf(option, sizeof(option), "%.*s", (int)(eq - dot - 1), dot + 1);
        scal_plugin_option_env_name(name, sizeof(name), plugin, option);
        rc = l->api.set_env(&l->api, name, eq + 1);
    }
    return rc;
}

static void config_text(const struct campaign *c, size_t config, uint32_t rep, char *out,
                        size_t len)
{
    const struct scal_run_plan *p = &c->plan;
    int32_t ranks = p->ranks[scal_plan_ranks_of(p, config)];
    size_t used = ranks > 0 ? (size_t)snprintf(out, len, "ranks=%d ", ranks) : 0;
    used += (size_t)snprintf(out + used, len - used, "threads=%d",
                             p->threads[scal_plan_thread_of(p, config)]);
    const struct scal_run_input *in = &p->inputs[scal_plan_input_of(p, config)];
    if (in->label[0]) used += (size_t)snprintf(out + used, len - used, " input=%s", in->label);
    int64_t f = p->freqs_khz[scal_plan_freq_of(p, config)];
    if (f >= 0 && used < len)
        used += (size_t)snprintf(out + used, len - used, " freq=%lldkHz", (long long)f);
    if (used < len) snprintf(out + used, len - used, " rep=%u", rep + 1);
}

/* The configurations as the campaign file stores them. */
static int build_configs(struct campaign *c)
{
    struct scal_run_plan *p = &c->plan;
    c->configs = calloc(p->nconfigs, sizeof(*c->configs));
    c->config_argv = calloc(p->nconfigs, sizeof(char *));
    c->config_affinity = calloc(p->nconfigs, sizeof(char *));
    if (!c->configs || !c->config_argv || !c->config_affinity) return SCAL_ENOMEM;
    for (size_t k = 0; k < p->nconfigs; k++) {
        struct scal_run_launch l;
        char aff[256];
        int rc = prepare_launch(c, k, &l, false);
        if (rc < 0) {
            scal_launch_free(&l);
            return rc;
        }
        c->config_argv[k] = scal_launch_command_alloc(&l); /* whole: merge compares them */
        scal_launch_free(&l);
        int32_t threads = p->threads[scal_plan_thread_of(p, k)];
        affinity_value(c, threads, aff, sizeof(aff));
        c->config_affinity[k] = strdup(aff);
        if (!c->config_argv[k] || !c->config_affinity[k]) return SCAL_ENOMEM;
        size_t in = scal_plan_input_of(p, k);
        c->configs[k] = (struct scal_cw_config){threads,
                                                (uint32_t)in,
                                                p->inputs[in].label,
                                                p->freqs_khz[scal_plan_freq_of(p, k)],
                                                c->config_affinity[k],
                                                c->config_argv[k],
                                                p->ranks[scal_plan_ranks_of(p, k)]};
    }
    return SCAL_OK;
}

static int dry_run(struct campaign *c)
{
    struct scal_run_plan *p = &c->plan;
    char env[8192], cfg[512];
    printf("campaign: %zu configurations x %u repetitions = %zu runs (%s order%s)\n", p->nconfigs,
           p->repetitions, p->nslots, p->shuffled ? "shuffled" : "given",
           p->shuffled ? ", seed stored" : "");
    printf("program: %s (%s)\n", c->measure.program_path,
           c->measure.omp == SCAL_OMP_LIBGOMP  ? "libgomp: run against libomp"
           : c->measure.omp == SCAL_OMP_LIBOMP ? "libomp"
                                               : "no OpenMP runtime found in the program itself");
    for (size_t s = 0; s < p->nslots; s++) {
        size_t config = p->order[s] / p->repetitions;
        uint32_t rep = p->order[s] % p->repetitions;
        if (c->done && c->done[p->order[s]]) continue;
        struct scal_run_launch l;
        int rc = prepare_launch(c, config, &l, false);
        if (rc < 0) {
            fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
            scal_launch_free(&l);
            return 2;
        }
        char *text = scal_launch_command_alloc(&l);
        scal_launch_env_text(&l, env, sizeof(env));
        config_text(c, config, rep, cfg, sizeof(cfg));
        printf("run %zu: %s\n    env: %s\n    cmd: %s\n", s + 1, cfg, env, text ? text : "");
        free(text);
        scal_launch_free(&l);
    }
    return 0;
}

/* ---- the campaign ------------------------------------------------------------------------- */

/* The CPU's model name from /proc/cpuinfo ("" when it has none). */
static void cpu_model(char *out, size_t len)
{
    FILE *ci = fopen("/proc/cpuinfo", "r");
    char line[512];
    out[0] = 0;
    while (ci && fgets(line, sizeof(line), ci))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            snprintf(out, len, "%s", strchr(line, ':') + 2);
            out[strcspn(out, "\n")] = 0;
            break;
        }
    if (ci) fclose(ci);
}

/* A copy of src at dst (exclusive temporary name, fsync, rename over dst). */
static int copy_file(const char *src, const char *dst)
{
    return scal_safe_copy(src, dst, true);
}

/* The stored program as an absolute path when it was given relative to the current directory:
 * --resume from another directory runs the same program. */
static int store_absolute_program(struct scal_run_plan *p)
{
    size_t at = p->nstored_argv - p->nprogram;
    const char *prog = p->stored_argv[at];
    char cwd[PATH_MAX], *abs = NULL;
    if (prog[0] == '/' || !strchr(prog, '/')) return SCAL_OK;
    if (!getcwd(cwd, sizeof(cwd)))
        return scal__fail(SCAL_EIO, "cannot read the current directory: %s", strerror(errno));
    if (asprintf(&abs, "%s/%s", cwd, prog) < 0) return SCAL_ENOMEM;
    free(p->stored_argv[at]);
    p->stored_argv[at] = abs;
    return SCAL_OK;
}

struct new_plan {
    const struct scal_campaign_info *meta;
    const struct scal_cw_config *configs;
    size_t nconfigs;
};

/* scal_safe_create_with's creation: the campaign file with its plan and no runs, closed. */
static int create_plan(const char *tmp, void *ctx)
{
    const struct new_plan *np = ctx;
    struct scal_cw *w = NULL;
    int rc = scal_cw_create(tmp, np->meta, np->configs, np->nconfigs, &w);
    return rc == SCAL_OK ? scal_cw_close(w) : rc;
}

/* A new campaign file: the matrix, and the `scal run` arguments --resume rebuilds it from. */
static int create_file(struct campaign *c)
{
    struct scal_run_plan *p = &c->plan;
    int src = store_absolute_program(p);
    if (src < 0) return src;
    const char **labels = calloc(p->ninputs, sizeof(*labels));
    double *sizes = calloc(p->ninputs, sizeof(*sizes));
    char host[256] = "";
    if (!labels || !sizes) {
        free(labels), free(sizes);
        return SCAL_ENOMEM;
    }
    for (size_t i = 0; i < p->ninputs; i++)
        labels[i] = p->inputs[i].label, sizes[i] = p->inputs[i].size;
    gethostname(host, sizeof(host) - 1);
    struct scal_run_launch tmpl;
    scal_launch_init(&tmpl, p->program, p->nprogram);
    char *cmd = scal_launch_command_alloc(&tmpl);
    scal_launch_free(&tmpl);
    if (!cmd) {
        free(labels), free(sizes);
        return SCAL_ENOMEM;
    }
    char cpu[256], identity[512];
    cpu_model(cpu, sizeof(cpu));
    int irc = scal_program_identity(c->measure.program_path, identity, sizeof(identity));
    if (irc < 0) {
        free(labels);
        free(cmd);
        return irc;
    }
    struct scal_campaign_info m = {
        .program = c->measure.program_path,
        .command = cmd,
        .host = host,
        .cpu_model = cpu,
        .program_identity = identity,
        .order = p->shuffled ? "shuffled" : "given",
        .repetitions = p->repetitions,
        .seed = (int64_t)p->seed,
        .inputs = labels,
        .ninputs = p->ninputs,
        .threads = p->threads,
        .nthreads = p->nthreads,
        /* what --resume needs to rebuild the same plan */
        .runner_argv = (const char *const *)p->stored_argv,
        .nrunner_argv = p->nstored_argv,
        .input_sizes = sizes,
        .omp_runtime = c->measure.omp == SCAL_OMP_LIBGOMP  ? "libgomp (run against libomp)"
                       : c->measure.omp == SCAL_OMP_LIBOMP ? "libomp"
                                                           : "none found in the program"};
    /* complete (plan stored) under an exclusive temporary name, then renamed: a kill at any
     * moment leaves either no campaign file or one that --resume continues */
    char tmp[PATH_MAX + 64] = "";
    struct new_plan np = {&m, c->configs, p->nconfigs};
    int rc = scal_safe_create_with(c->output, false, tmp, sizeof(tmp), create_plan, &np);
    if (rc < 0 && tmp[0]) unlink(tmp);
    if (rc == SCAL_OK) {
        /* the plan alone, kept beside the runs: what a damaged campaign file is rebuilt on */
        if (rc == SCAL_OK) rc = copy_file(tmp, c->plan_copy);
        c->made_plan_copy = rc == SCAL_OK;
        if (rc == SCAL_OK) rc = scal_safe_publish(tmp, c->output, false);
        if (rc == SCAL_OK)
            c->published = true;
        else
            unlink(tmp);
    }
    free(labels), free(sizes);
    free(cmd);
    return rc;
}

struct tally {
    size_t ok, failed, timeout, nodata, launch, signaled, mismatch, freq_ignored, attempted;
};

static const char *status_text(int status)
{
    return scal_run_status_name(status);
}

/* The frequency observed while a run starts; a request the hardware ignored (off by more than 5 %)
 * is noted in note and counted. */
static void observe_frequency(struct campaign *c, size_t config, struct scal_run_row *row,
                              char *note, size_t len, struct tally *t)
{
    char obs[64];
    int64_t want = c->plan.freqs_khz[scal_plan_freq_of(&c->plan, config)];
    if (scal_actuators_observe(&c->act, c->a_freq, obs, sizeof(obs)) != 0 || !obs[0]) return;
    row->frequency_observed_khz = atoll(obs);
    if (want > 0 && llabs(row->frequency_observed_khz - want) * 20 > want) {
        snprintf(note, len, "frequency request ignored: requested %lld kHz, observed %lld kHz",
                 (long long)want, (long long)row->frequency_observed_khz);
        t->freq_ignored++;
    }
}

/* --ok-exit: the exit statuses that count as success (0 unless given). */
static bool ok_exit(const struct scal_run_plan *p, int code)
{
    for (size_t i = 0; i < p->nok_exits; i++)
        if (p->ok_exits[i] == code) return true;
    return false;
}

static int run_status(const struct scal_run_plan *p, const struct scal_run_result *r)
{
    return r->launch_failed            ? SCAL_RUN_LAUNCH
           : r->timed_out              ? SCAL_RUN_TIMEOUT
           : r->signal                 ? SCAL_RUN_SIGNALED
           : !ok_exit(p, r->exit_code) ? SCAL_RUN_FAILED
                                       : SCAL_RUN_OK;
}

/* The run's message: what went wrong first, an ignored frequency request (already in message)
 * kept after it. */
static void describe_outcome(const struct scal_run_result *r, int status, double timeout_s,
                             char *message, size_t len)
{
    char what[1024] = "", frequency_note[1024];
    if (r->message[0])
        snprintf(what, sizeof(what), "%s", r->message);
    else if (status == SCAL_RUN_TIMEOUT)
        snprintf(what, sizeof(what), "stopped after the %.1f s timeout", timeout_s);
    else if (status == SCAL_RUN_SIGNALED)
        snprintf(what, sizeof(what), "killed by signal %d (%s)", r->signal, strsignal(r->signal));
    else if (status == SCAL_RUN_FAILED)
        snprintf(what, sizeof(what), "exited with status %d", r->exit_code);
    else if (r->exit_code)
        snprintf(what, sizeof(what), "exited with status %d (counted as success by --ok-exit)",
                 r->exit_code);
    if (!what[0]) return;
    snprintf(frequency_note, sizeof(frequency_note), "%s", message);
    snprintf(message, len, "%s%s%s", what, frequency_note[0] ? "; " : "", frequency_note);
}

static void count_outcome(struct tally *t, int status, bool team_mismatch)
{
    t->attempted++;
    switch (status) {
    case SCAL_RUN_OK:
        t->ok++;
        break;
    case SCAL_RUN_TIMEOUT:
        t->timeout++;
        break;
    case SCAL_RUN_NODATA:
        t->nodata++;
        break;
    case SCAL_RUN_LAUNCH:
        t->launch++;
        break;
    case SCAL_RUN_SIGNALED:
        t->signaled++;
        break;
    default:
        t->failed++;
    }
    if (team_mismatch) t->mismatch++;
}

/* The snapshots a run left (its own, or one per MPI rank), read whole. */
struct run_snaps {
    struct scal_cw_snapshot *v;
    size_t n, cap;
};

static int read_snapshot(const char *snapshot, void *ctx)
{
    struct run_snaps *s = ctx;
    if (scal_grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v), 4) < 0)
        return scal__fail(SCAL_ENOMEM, "out of memory reading '%s'", snapshot);
    unsigned char *bytes;
    size_t len;
    char *name = strdup(snapshot);
    int rc = name ? scal_snap_read_raw(snapshot, &bytes, &len)
                  : scal__fail(SCAL_ENOMEM, "out of memory reading '%s'", snapshot);
    if (rc < 0) {
        free(name);
        return rc;
    }
    s->v[s->n++] = (struct scal_cw_snapshot){name, bytes, len};
    return SCAL_OK;
}

static void free_snapshots(struct run_snaps *s)
{
    for (size_t i = 0; i < s->n; i++)
        free((char *)s->v[i].name), free((unsigned char *)s->v[i].bytes);
    free(s->v);
    memset(s, 0, sizeof(*s));
}

static int unlink_run_file(const char *file, void *ctx)
{
    (void)ctx;
    unlink(file);
    return SCAL_OK;
}

/* What earlier attempts of the runs still to do left in the run directory (a run file, a
 * snapshot, an MPI rank's of either), removed once before the runs instead of looking for them
 * before each run; the kept runs (the journal, .commit files of an earlier scal) stay. */
static void purge_stale_runs(const struct campaign *c)
{
    DIR *d = opendir(c->rundir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char *end = NULL;
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "run-", 4) || e->d_name[4] < '0' || e->d_name[4] > '9') continue;
        unsigned long slot = strtoul(e->d_name + 4, &end, 10);
        if (*end != '.' || (n > 7 && !strcmp(e->d_name + n - 7, ".commit")) ||
            (c->done && slot < c->plan.nslots && c->done[slot]))
            continue;
        char path[2 * PATH_MAX + 300];
        snprintf(path, sizeof(path), "%s/%s", c->rundir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
}

#define RESERVE_MIN ((off_t)1 << 20)

/* Holds c->reserve_bytes in FILE.runs/reserve: SCAL_ENOSPC when the disk cannot give them. */
static int hold_reserve(struct campaign *c)
{
    char path[2 * PATH_MAX + 32];
    if (c->reserve_fd < 0) {
        snprintf(path, sizeof(path), "%s/reserve", c->rundir);
        /* a killed runner's reserve is removed, never opened: a file planted (hard-linked) at the
         * name would be truncated */
        unlink(path);
        c->reserve_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (c->reserve_fd < 0)
            return scal__fail(SCAL_EIO, "cannot create '%s': %s", path, strerror(errno));
    }
    int e = posix_fallocate(c->reserve_fd, 0, c->reserve_bytes);
    if (e == ENOSPC || e == EDQUOT) return scal__fail(SCAL_ENOSPC, "%s", strerror(e));
    return SCAL_OK; /* a file system without fallocate: no reserve, the journal still keeps runs */
}

/* The reserve's space, for the commit that follows. */
static void release_reserve(struct campaign *c)
{
    if (c->reserve_fd >= 0 && ftruncate(c->reserve_fd, 0) < 0) {
    }
}

static void drop_reserve(struct campaign *c)
{
    char path[2 * PATH_MAX + 32];
    if (c->reserve_fd < 0) return;
    close(c->reserve_fd);
    c->reserve_fd = -1;
    snprintf(path, sizeof(path), "%s/reserve", c->rundir);
    unlink(path);
}

/* The program ran, but the tool could not write its measurements for want of space: scal's own
 * failure, never the program's; the run is not recorded and --resume runs it again. */
static bool tool_out_of_space(const struct scal_run_result *r, bool has_data)
{
    const char *lost = has_data ? NULL : strstr(r->stderr_tail, "scal: measurements lost: ");
    return lost && (strstr(lost, strerror(ENOSPC)) || strstr(lost, strerror(EDQUOT)));
}

/* One run: actuators, launch, result, commit. Returns 1 when the campaign must stop, 2 when it
 * must stop because the run could not be recorded. */
static int one_run(struct campaign *c, struct scal_committer *com, size_t slot_index,
                   struct scal_progress *pg, struct tally *t)
{
    struct scal_run_plan *p = &c->plan;
    uint32_t slot = p->order[slot_index];
    size_t config = slot / p->repetitions;
    uint32_t rep = slot % p->repetitions;
    char cfg[512], runfile[2 * PATH_MAX + 64], snapfile[2 * PATH_MAX + 80], outcome[1200],
        message[1024] = "";
    struct scal_run_launch l;
    struct scal_run_result r;
    struct scal_run_row row = {.config = (uint32_t)config,
                               .repetition = rep,
                               .team_requested = p->threads[scal_plan_thread_of(p, config)],
                               .team_observed = -1,
                               .frequency_observed_khz = -1};
    config_text(c, config, rep, cfg, sizeof(cfg));
    if (hold_reserve(c) == SCAL_ENOSPC) { /* nothing of this run is written yet */
        c->disk_full = true;
        return 2;
    }
    snprintf(runfile, sizeof(runfile), "%s/run-%06u.h5", c->rundir, slot);
    snprintf(snapfile, sizeof(snapfile), "%s" SCAL_SNAP_SUFFIX, runfile);
    /* (an MPI run's rank files left by an earlier attempt went with purge_stale_runs) */
    unlink(runfile);
    unlink(snapfile);
    scal_progress_begin(pg, cfg);
    int rc = prepare_launch(c, config, &l, true);
    if (rc == SCAL_OK) rc = l.api.set_env(&l.api, "SCAL_OUTPUT", runfile);
    /* the tool leaves the run's snapshot: written into HDF5 here, with the HDF5 this process has
     * loaded anyway, instead of every run loading it */
    if (rc == SCAL_OK) rc = l.api.set_env(&l.api, "SCAL_SNAPSHOT_ONLY", "1");
    /* region identities resolved once per binary: the cache lives with the campaign's runs
     * (a SCAL_IDENTITY_CACHE of the user's, "" for none, stands) */
    if (rc == SCAL_OK && !getenv("SCAL_IDENTITY_CACHE"))
        rc = l.api.set_env(&l.api, "SCAL_IDENTITY_CACHE", c->rundir);
    l.stdin_path = p->stdin_path;
    memset(&r, 0, sizeof(r));
    if (rc < 0) {
        r.launch_failed = true;
        snprintf(r.message, sizeof(r.message), "%s", scal__last_error(rc));
    } else {
        if (c->a_freq >= 0) observe_frequency(c, config, &row, message, sizeof(message), t);
        scal_launch_run(&l, p->timeout_s, &stop_flag, &r);
    }
    scal_launch_free(&l);
    /* A Slurm job's end (scancel, its time limit) signals the job's processes one by one, the
     * program before the runner (slurmstepd's proctrack/linuxproc: descendants first): the program
     * may be seen dead before the runner's own SIGTERM comes. Such a run is the job's end, not the
     * program's failure: interrupted as well, never recorded as killed (nor its task complete). */
    if (!stop_flag && !r.launch_failed && !r.timed_out && (r.signal || r.exit_code) &&
        scal_slurm_job_ending())
        stop_flag = 1;
    if (stop_flag && !r.launch_failed) { /* interrupted: this run is not recorded */
        scal_cw_run_files_each(runfile, "", unlink_run_file, NULL);
        scal_cw_run_files_each(runfile, SCAL_SNAP_SUFFIX, unlink_run_file, NULL);
        scal_progress_end(pg, cfg, "interrupted (not recorded)");
        return 1;
    }
    row.exit_code = r.exit_code;
    row.signal = r.signal;
    row.wall_s = r.wall_s;
    row.started_unix = r.started_unix;
    row.status = run_status(p, &r);
    describe_outcome(&r, row.status, p->timeout_s, message, sizeof(message));
    /* The snapshot, or every MPI rank's (X.rank<R>.h5.snap), read whole: the run's kept record
     * carries it and the committer reads the run's data from it, so no HDF5 run file is written
     * and read back per run; --keep-runs makes each into its run file as well. */
    struct run_snaps snaps = {0};
    rc = access(snapfile, F_OK) == 0
             ? read_snapshot(snapfile, &snaps) /* the run's own: no rank snapshots to look for */
             : scal_cw_run_files_each(runfile, SCAL_SNAP_SUFFIX, read_snapshot, &snaps);
    if (rc < 0) {
        size_t used = strlen(message);
        if (row.status == SCAL_RUN_OK) { /* the measurements exist but could not be kept */
            row.status = SCAL_RUN_NODATA;
            used = 0;
        }
        snprintf(message + used, sizeof(message) - used, "%s%s%s", used ? "; " : "",
                 row.status == SCAL_RUN_NODATA ? "exited 0 but its run snapshot could not be read: "
                                               : "",
                 scal__last_error(rc));
        free_snapshots(&snaps);
    }
    for (size_t i = 0; p->keep_runs && i < snaps.n; i++)
        if ((rc = scal_snap_convert(snaps.v[i].name, SCAL_SNAP_CONVERT_QUIET, NULL, 0)) < 0) {
            size_t used = strlen(message);
            snprintf(message + used, sizeof(message) - used, "%sits run file is not kept: %s",
                     used ? "; " : "", scal__last_error(rc));
        }
    if (tool_out_of_space(&r, snaps.n || scal_cw_run_files_exist(runfile))) {
        scal_cw_run_files_each(runfile, "", unlink_run_file, NULL);
        scal_cw_run_files_each(runfile, SCAL_SNAP_SUFFIX, unlink_run_file, NULL);
        free_snapshots(&snaps);
        snprintf(outcome, sizeof(outcome),
                 "NOT RECORDED (%s): the tool could not write its measurements (disk full)", cfg);
        scal_progress_end(pg, cfg, outcome);
        c->disk_full = true;
        return 2;
    }
    off_t need = RESERVE_MIN;
    for (size_t i = 0; i < snaps.n; i++)
        need += 4 * (off_t)snaps.v[i].len;
    if (need > c->reserve_bytes) c->reserve_bytes = need; /* held from the next run on */
    struct scal_commit_ack ack = {0};
    /* a run file the tool wrote itself (it was not told to leave a snapshot), or none */
    struct scal_commit_data data = {snaps.n || scal_cw_run_files_exist(runfile) ? runfile : "",
                                    snaps.v, snaps.n, p->keep_runs};
    const char *kept = c->journal.path;
    /* durable on its own first: a campaign file damaged later is rebuilt from it */
    rc = scal_committer_keep(&c->journal, slot, &row, message, r.stdout_tail, r.stderr_tail, &data);
    for (size_t i = 0; rc == SCAL_OK && i < snaps.n; i++) /* the kept record holds them now */
        unlink(snaps.v[i].name);
    if (rc == SCAL_ENOSPC) c->disk_full = true;
    if (rc < 0) {
        snprintf(outcome, sizeof(outcome), "NOT RECORDED (%s): %s", cfg, scal__last_error(rc));
        scal_progress_end(pg, cfg, outcome);
        if (pg->quiet || pg->tty) fprintf(stderr, "scal run: %s\n", outcome);
        free_snapshots(&snaps);
        return 2;
    }
    release_reserve(c); /* the commit's space */
    rc = scal_committer_commit(com, &row, message, r.stdout_tail, r.stderr_tail, &data, true, &ack);
    free_snapshots(&snaps);
    if (ack.nodata) row.status = SCAL_RUN_NODATA;
    if (rc < 0) {
        snprintf(outcome, sizeof(outcome),
                 "the run (%s) is kept in %s but could not be committed to the campaign file: %s; "
                 "once that is fixed (e.g. disk space freed), scal run --resume %s rebuilds the "
                 "campaign file from the kept runs",
                 cfg, kept, ack.message, c->output);
        scal_progress_end(pg, cfg, outcome);
        if (pg->quiet || pg->tty) fprintf(stderr, "scal run: %s\n", outcome);
        return 2;
    }
    count_outcome(t, row.status, ack.team_mismatch);
    if (row.status == SCAL_RUN_OK)
        snprintf(outcome, sizeof(outcome), "ok %.2f s%s%s", r.wall_s, ack.message[0] ? "; " : "",
                 ack.message);
    else
        snprintf(outcome, sizeof(outcome), "%s: %s", status_text(row.status), ack.message);
    scal_progress_end(pg, cfg, outcome);
    /* why a run failed is never hidden: the bar (a terminal) and -q show no per-run line */
    if (row.status != SCAL_RUN_OK && (pg->tty || pg->quiet)) {
        char line[sizeof(cfg) + sizeof(outcome) + 4];
        snprintf(line, sizeof(line), "%s: %s", cfg, outcome);
        scal_progress_note(pg, line);
    }
    return row.status != SCAL_RUN_OK && p->fail_fast ? 1 : 0;
}

static void summary(struct campaign *c, const struct tally *t, struct scal_progress *pg,
                    bool interrupted, size_t remaining)
{
    char el[32];
    scal_format_duration(scal_progress_elapsed(pg), el, sizeof(el));
    size_t bad = t->failed + t->timeout + t->nodata + t->launch + t->signaled;
    bool quiet = c->plan.quiet; /* -q: the count only when runs failed, no next steps */
    if (!quiet || bad || interrupted) {
        fprintf(stderr, "scal run: %zu runs in %s: %zu ok", t->attempted, el, t->ok);
        if (bad)
            fprintf(stderr,
                    ", %zu not ok (failed %zu, timed out %zu, killed %zu, no data %zu, not "
                    "started %zu)",
                    bad, t->failed, t->timeout, t->signaled, t->nodata, t->launch);
        fprintf(stderr, "\n");
    }
    if (t->mismatch)
        fprintf(stderr,
                "scal run: %zu runs did not use the requested thread count (the program "
                "ignores OMP_NUM_THREADS or sets its own); see /runs team_mismatch\n",
                t->mismatch);
    if (t->freq_ignored)
        fprintf(stderr, "scal run: %zu runs ran at another frequency than requested\n",
                t->freq_ignored);
    /* a Slurm array task's piece (runner/slurm.c's job script names the campaign): the user's
     * command resubmits the campaign's missing runs, the piece itself is internal */
    const char *whole = getenv("SCAL_PIECE_OF");
    if (interrupted && whole && whole[0])
        fprintf(stderr,
                "scal run: interrupted; %zu runs of this array task remain: scal run --resume %s "
                "--slurm submits them again\n",
                remaining, whole);
    else if (interrupted)
        fprintf(stderr, "scal run: interrupted; %zu runs remain: scal run --resume %s\n", remaining,
                c->output);
    if (quiet) return;
    fprintf(stderr, "scal run: campaign file: %s\n", c->output);
    if (!interrupted && !(whole && whole[0]))
        fprintf(stderr, "scal run: next: scal report %s\n", c->output);
}

static void free_campaign(struct campaign *c)
{
    for (size_t k = 0; c->config_argv && k < c->plan.nconfigs; k++)
        free(c->config_argv[k]);
    for (size_t k = 0; c->config_affinity && k < c->plan.nconfigs; k++)
        free(c->config_affinity[k]);
    free(c->config_argv), free(c->config_affinity), free(c->configs), free(c->done);
    scal_actuators_free(&c->act);
    scal_run_plan_free(&c->plan);
    free(c->resume_args);
    scal_h5_free_strings(c->stored, c->nstored);
    free(c->runs);
    free(c->stored_identity);
}

static bool help_requested(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
    return false;
}

/* The directory of the runs' own files: only this user can write into it, so nobody can plant a
 * symlink where the tool writes a run file. An existing one (kept runs) must be this user's own
 * directory, not a symlink, writable by nobody else. */
static int private_dir_made(const char *dir, bool *made)
{
    struct stat st;
    bool mk = mkdir(dir, 0700) == 0;
    if (made) *made = mk;
    if (!mk && errno != EEXIST)
        return scal__fail(SCAL_EIO, "cannot create '%s': %s", dir, strerror(errno));
    if (lstat(dir, &st) < 0)
        return scal__fail(SCAL_EIO, "cannot look at '%s': %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
        return scal__fail(SCAL_EPERM,
                          "'%s' is not a private directory of this user (a symlink, someone "
                          "else's, or writable by others): refused, remove it or choose another -o",
                          dir);
    return SCAL_OK;
}

static int private_dir(const char *dir)
{
    return private_dir_made(dir, NULL);
}

int scal_runner_private_dir(const char *dir)
{
    return private_dir(dir);
}

/* FILE.runs/ (absolute: the tool writes the run file from wherever the program has chdir'ed to)
 * and the plan's copy in it. */
static int run_dir(struct campaign *c)
{
    char cwd[PATH_MAX] = "";
    if (c->output[0] != '/' && !getcwd(cwd, sizeof(cwd)))
        return scal__fail(SCAL_EIO, "cannot read the current directory: %s", strerror(errno));
    snprintf(c->rundir, sizeof(c->rundir), "%s%s%s.runs", cwd, cwd[0] ? "/" : "", c->output);
    snprintf(c->plan_copy, sizeof(c->plan_copy), "%s/plan.h5", c->rundir);
    bool made = false;
    int rc = private_dir_made(c->rundir, &made);
    c->made_rundir |= made;
    return rc;
}

/* A campaign that could not begin leaves nothing behind: the plan's copy of a creation that failed
 * and FILE.runs/ when this run made it (kept runs are never touched: rmdir removes an empty
 * directory only). */
static void undo_run_dir(const struct campaign *c)
{
    if (!c->rundir[0]) return;
    if (c->made_plan_copy && !c->published) unlink(c->plan_copy);
    if (c->made_rundir) rmdir(c->rundir);
}

/* The campaign file again from the plan's copy and the kept runs, put in place of the damaged one
 * only when complete. */
/* With done (the slots the campaign file holds), the kept runs it lacks are added to a copy of it
 * instead. */
static int rebuild(struct campaign *c, const char *why, const uint8_t *done)
{
    char tmp[2 * PATH_MAX + 32];
    struct scal_journal_stats st;
    snprintf(tmp, sizeof(tmp), "%s/rebuild.h5", c->rundir);
    unlink(tmp); /* an earlier rebuild's, killed */
    int rc = copy_file(done ? c->output : c->plan_copy, tmp);
    if (rc == SCAL_OK) rc = scal_committer_replay(tmp, c->rundir, done, &st);
    if (rc == SCAL_OK) rc = scal_safe_publish(tmp, c->output, true);
    if (rc < 0) {
        unlink(tmp);
        return rc;
    }
    if (done)
        fprintf(stderr, "scal run: %s: added them from %s\n", why, c->rundir);
    else
        fprintf(stderr, "scal run: %s; rebuilt it from the plan and the %zu runs kept in %s\n", why,
                st.runs, c->rundir);
    if (st.damaged)
        fprintf(stderr,
                "scal run: warning: %zu damaged record%s in %s/" SCAL_JOURNAL_FILE
                " skipped (every intact record after %s is kept); %s run again\n",
                st.damaged, st.damaged > 1 ? "s" : "", c->rundir, st.damaged > 1 ? "them" : "it",
                st.damaged > 1 ? "their runs are" : "its run is");
    if (st.duplicates) /* part of the recovery's account: shown with -q too */
        fprintf(stderr,
                "scal run: note: %zu run%s kept more than once (the same configuration and "
                "repetition): the last one kept counts, the others are ignored\n",
                st.duplicates, st.duplicates > 1 ? "s were" : " was");
    if (st.foreign)
        fprintf(stderr, "scal run: warning: %zu kept record%s no run of this plan: ignored\n",
                st.foreign, st.foreign > 1 ? "s name" : " names");
    return SCAL_OK;
}

/* After a complete campaign whose file opens through the safe open: the kept runs, the plan's copy
 * and (without --keep-runs) the run files go. */
static void drop_kept_runs_in(const char *output, const char *rundir, bool keep_runs)
{
    struct scal_h5file f;
    if (scal_h5file_open(output, SCAL_OPEN_CAMPAIGN, &f) < 0) return;
    scal_h5file_close(&f);
    DIR *d = opendir(rundir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        /* the directory is private to this campaign: everything in it goes (the kept runs,
         * the plan's copy, temporary files a killed runner or tool left), but the run files
         * with --keep-runs */
        size_t n = strlen(e->d_name);
        bool run = !strncmp(e->d_name, "run-", 4) && n > 3 && !strcmp(e->d_name + n - 3, ".h5");
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !(run && keep_runs)) {
            char path[2 * PATH_MAX + 300];
            snprintf(path, sizeof(path), "%s/%s", rundir, e->d_name);
            unlink(path);
        }
    }
    if (d) closedir(d);
    rmdir(rundir); /* only when empty: kept run files stay */
}

static void drop_kept_runs(struct campaign *c)
{
    drop_kept_runs_in(c->output, c->rundir, c->plan.keep_runs);
}

void scal_runner_drop_kept_runs(const char *output, bool keep_runs)
{
    char rundir[PATH_MAX + 8];
    snprintf(rundir, sizeof(rundir), "%s.runs", output);
    drop_kept_runs_in(output, rundir, keep_runs);
}

/* done[] and ndone from the runs the campaign file holds. */
static int mark_done(struct campaign *c)
{
    memset(c->done, 0, c->plan.nslots ? c->plan.nslots : 1);
    c->ndone = 0;
    for (size_t i = 0; i < c->nruns; i++) {
        const struct scal_run_row *r = &c->runs[i];
        if (r->config >= c->plan.nconfigs || r->repetition >= c->plan.repetitions)
            return scal__fail(SCAL_EFORMAT, "'%s': run %u does not fit the stored plan", c->output,
                              r->id);
        size_t slot = (size_t)r->config * c->plan.repetitions + r->repetition;
        if (!c->done[slot]) c->ndone++;
        c->done[slot] = 1;
    }
    return SCAL_OK;
}

/* Runs kept but missing from the campaign file (the committer was killed between keeping a run and
 * committing it): they are added from the kept records, instead of being measured again. */
static int add_kept_runs(struct campaign *c)
{
    struct scal_journal_stats st;
    uint8_t *kept = calloc(c->plan.nslots ? c->plan.nslots : 1, 1);
    if (!kept) return SCAL_ENOMEM;
    int rc = scal_journal_kept(c->plan_copy, c->rundir, kept, c->plan.nslots, &st);
    size_t missing = 0;
    for (size_t i = 0; rc == SCAL_OK && i < c->plan.nslots; i++)
        if (kept[i] && !c->done[i]) missing++;
    free(kept);
    if (rc < 0 || !missing) return rc;
    char why[300];
    snprintf(why, sizeof(why), "%zu run%s kept but not in the campaign file", missing,
             missing > 1 ? "s were" : " was");
    if ((rc = rebuild(c, why, c->done)) < 0) return rc;
    /* the runs again (the stored arguments stay: the plan points into them) */
    char **args = NULL, *identity = NULL;
    size_t nargs = 0;
    free(c->runs);
    c->runs = NULL;
    rc = read_resume(c->output, &args, &nargs, &c->runs, &c->nruns, &identity);
    scal_h5_free_strings(args, nargs);
    free(identity);
    return rc < 0 ? rc : mark_done(c);
}

/* --resume: the plan stored in the campaign file, exactly as it was given (the command line's
 * --quiet and --dry-run still count), and which of its runs are already done. */
static int plan_resume(struct campaign *c)
{
    bool quiet = c->plan.quiet, dry = c->plan.dry_run, changed_ok = c->plan.program_changed_ok;
    c->resuming = true;
    snprintf(c->output, sizeof(c->output), "%s", c->plan.resume);
    int rc = run_dir(c);
    if (rc == SCAL_OK)
        rc = read_resume(c->output, &c->stored, &c->nstored, &c->runs, &c->nruns,
                         &c->stored_identity);
    bool kept_plan = access(c->plan_copy, R_OK) == 0;
    if ((rc == SCAL_EFORMAT || rc == SCAL_ENOENT || rc == SCAL_ESCHEMA) && kept_plan) {
        /* damaged (a full disk, an I/O error) or deleted: every committed run is kept on its own */
        char why[1200];
        struct stat st;
        if (lstat(c->output, &st) < 0)
            snprintf(why, sizeof(why), "'%s' is gone", c->output);
        else
            snprintf(why, sizeof(why), "%s", scal__last_error(rc));
        char *hint = strstr(why, "; scal run --resume "); /* what this is doing */
        if (hint) *hint = 0;
        if ((rc = rebuild(c, why, NULL)) < 0) return rc;
        rc = read_resume(c->output, &c->stored, &c->nstored, &c->runs, &c->nruns,
                         &c->stored_identity);
    } else if (rc == SCAL_EFORMAT || rc == SCAL_ESCHEMA) {
        char why[1200];
        snprintf(why, sizeof(why), "%s", scal__last_error(rc));
        return scal__fail(rc,
                          "%s; it cannot be resumed: no plan and runs are kept beside it (%s), "
                          "nothing to rebuild it from",
                          why, c->rundir);
    }
    if (rc < 0) return rc;
    c->resume_args = calloc(c->nstored + 2, sizeof(*c->resume_args));
    if (!c->resume_args) return SCAL_ENOMEM;
    c->resume_args[0] = "run";
    memcpy(c->resume_args + 1, c->stored, c->nstored * sizeof(*c->resume_args));
    scal_run_plan_free(&c->plan);
    if ((rc = scal_run_plan_parse(&c->plan, (int)c->nstored + 1, c->resume_args)) < 0) return rc;
    c->plan.quiet = quiet;
    c->plan.dry_run = dry;
    c->plan.program_changed_ok = changed_ok;
    c->done = calloc(c->plan.nslots ? c->plan.nslots : 1, 1);
    if (!c->done) return SCAL_ENOMEM;
    if ((rc = mark_done(c)) < 0) return rc;
    if (kept_plan && (rc = add_kept_runs(c)) < 0) return rc;
    /* a slice of a campaign (a Slurm array task's piece) runs its own slots only */
    return scal_campaign_slice_apply(c->output, &c->plan, c->done, &c->ndone);
}

/* The plan from the command line (or the campaign file for --resume) and the output's name. */
static int plan_campaign(struct campaign *c, int argc, char **argv)
{
    int rc = scal_run_plan_parse(&c->plan, argc, argv);
    if (rc < 0) return rc;
    if (c->plan.resume) return plan_resume(c);
    if (c->plan.output) {
        snprintf(c->output, sizeof(c->output), "%s", c->plan.output);
    } else {
        const char *base = strrchr(c->plan.program[0], '/');
        snprintf(c->output, sizeof(c->output), "scal-%s.h5", base ? base + 1 : c->plan.program[0]);
    }
    return SCAL_OK;
}

/* Everything the runs need, before any of them: runtime, tool, actuators, configurations. */
/* Thread counts above the CPUs this process may run on time-share them: their efficiency then
 * measures the oversubscription, which the user should know before reading the diagrams. */
static void warn_oversubscription(const struct scal_run_plan *p)
{
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
    int32_t most = 0, ranks = 1;
    for (size_t i = 0; i < p->nranks; i++)
        if (p->ranks[i] > ranks) ranks = p->ranks[i];
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i] > most) most = p->threads[i];
    if (ranks > 1 && cpus > 0 && (int64_t)most * ranks > cpus)
        fprintf(stderr,
                "scal run: warning: up to %d ranks x %d threads on the %d CPUs this process may "
                "use (a launcher may place ranks on other nodes; on one node they time-share "
                "CPUs, and their efficiency shows it)\n",
                (int)ranks, (int)most, cpus);
    else if (cpus > 0 && most > cpus)
        fprintf(stderr,
                "scal run: warning: up to %d threads on the %d CPUs this process may use: thread "
                "counts above %d time-share CPUs, and their efficiency shows it\n",
                (int)most, cpus, cpus);
}

/* The actuators a --plugin-opt may name (add_actuators): their options are checked when loaded. */
static const char *const actuator_names[] = {"threads",  "input", "frequency",
                                             "affinity", "cores", NULL};

/* Sensors are named plugins of the search path (never paths), each loadable as a sensor with the
 * options given to it; every --plugin-opt names a sensor of -s or an actuator. Checked before
 * anything is created, for --dry-run as for a run: a usage error, never a silent run without. */
static int check_sensors(const struct campaign *c)
{
    const struct scal_run_plan *p = &c->plan;
    char *list = strdup(p->sensors ? p->sensors : ""), *rest = list;
    int rc = list ? SCAL_OK : SCAL_ENOMEM;
    while (rc == SCAL_OK && rest && p->sensors) {
        char *name = rest, *comma = strchr(rest, ',');
        if (comma) *comma = 0;
        rest = comma ? comma + 1 : NULL;
        const char *settings[32];
        char why[SCAL_PLUGIN_WHY_MAX] = "";
        struct scal_loaded_plugin lp;
        if (!scal_plugin_name_ok(name)) {
            rc = scal__fail(SCAL_EINVAL,
                            "bad --sensors entry '%s': sensors are named (papi, rapl, rusage, "
                            "proc; see scal plugins), never paths",
                            name);
            break;
        }
        size_t n = scal_plugin_settings_for((const char *const *)p->plugin_opts, p->nplugin_opts,
                                            name, settings, 31);
        if ((rc = scal_plugin_load(name, SCAL_PLUGIN_SENSOR, settings, n, &lp, why, sizeof(why))) <
            0) {
            rc = scal__fail(SCAL_EINVAL, "sensor '%s': %s", name, why);
            break;
        }
        scal_plugin_unload(&lp);
    }
    free(list);
    for (size_t i = 0; rc == SCAL_OK && i < p->nplugin_opts; i++) {
        const char *o = p->plugin_opts[i];
        size_t len = (size_t)(strchr(o, '.') - o);
        bool known = false;
        for (size_t k = 0; actuator_names[k] && !known; k++)
            known = strlen(actuator_names[k]) == len && !strncmp(o, actuator_names[k], len);
        for (const char *s = p->sensors; s && !known;
             s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
            known = !strncmp(s, o, len) && (s[len] == ',' || !s[len]);
        if (!known)
            rc = scal__fail(SCAL_EINVAL,
                            "--plugin-opt '%s': no plugin '%.*s' in this campaign (the sensors of "
                            "-s, or an actuator: threads, input, frequency, affinity, cores)",
                            o, (int)len, o);
    }
    return rc;
}

static int prepare_campaign(struct campaign *c)
{
    int rc = check_sensors(c);
    if (rc == SCAL_OK) rc = find_runtime_and_tool(c);
    if (rc == SCAL_OK && c->resuming) rc = check_program_unchanged(c);
    if (rc == SCAL_OK) rc = add_actuators(c);
    if (rc < 0) return rc;
    if (c->measure.omp == SCAL_OMP_LIBGOMP && !c->plan.quiet)
        fprintf(stderr, "scal run: %s uses GCC's libgomp (no OMPT): running it against %s\n",
                c->measure.program_path, c->measure.libomp);
    if (c->measure.omp == SCAL_OMP_NONE && !c->plan.quiet)
        fprintf(stderr,
                "scal run: note: %s links no OpenMP runtime itself; runs without an "
                "OMPT runtime will be recorded as 'no data'\n",
                c->measure.program_path);
    warn_oversubscription(&c->plan);
    return build_configs(c);
}

/* A new campaign must not mix with the kept runs of an earlier one of the same name (its file
 * deleted or moved): a rebuild would take them in. */
static int no_earlier_runs(const struct campaign *c)
{
    /* a plan.h5 alone is a creation that was killed before the campaign file appeared */
    int has = scal_journal_has_runs(c->rundir);
    if (has <= 0) return has;
    return scal__fail(SCAL_EEXIST,
                      "'%s' holds the kept runs of an earlier campaign named '%s' whose file is "
                      "gone: scal run --resume %s rebuilds it from them; or move that directory "
                      "away, or choose another file with -o",
                      c->rundir, c->output, c->output);
}

/* A new campaign file (an existing one is only continued by --resume) and the directory of the
 * runs' own files. */
static int open_output(struct campaign *c)
{
    if (!c->resuming) {
        struct stat st;
        if (lstat(c->output, &st) == 0 && !S_ISREG(st.st_mode))
            return scal_safe_check_final(c->output, false); /* names what it is */
        if (lstat(c->output, &st) == 0)
            return scal__fail(SCAL_EEXIST,
                              "'%s' exists: continue it with --resume %s, or choose another file "
                              "with -o",
                              c->output, c->output);
    }
    int rc = run_dir(c);
    if (rc == SCAL_OK && !c->resuming) rc = no_earlier_runs(c);
    if (rc == SCAL_OK && !c->resuming) rc = create_file(c);
    return rc;
}

struct saved_signals {
    struct sigaction intr, term, hup, pipe;
};

/* SIGINT, SIGTERM and SIGHUP stop the campaign after the current run; a dead committer must show
 * as EPIPE (recorded, actuators restored), not kill the runner. */
static void catch_signals(struct saved_signals *old)
{
    struct sigaction sa = {0}, ign = {0};
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old->intr);
    sigaction(SIGTERM, &sa, &old->term);
    sigaction(SIGHUP, &sa, &old->hup);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old->pipe);
}

static void restore_signals(const struct saved_signals *old)
{
    sigaction(SIGINT, &old->intr, NULL);
    sigaction(SIGTERM, &old->term, NULL);
    sigaction(SIGHUP, &old->hup, NULL);
    sigaction(SIGPIPE, &old->pipe, NULL);
}

/* --idle: the pause between runs, cut short by SIGINT/SIGTERM/SIGHUP. The signals are blocked
 * while stop_flag is tested and only let through inside ppoll: one that arrives just before the
 * pause (right after a run ended) still ends it, instead of being noticed after the whole pause. */
static void idle(double seconds)
{
    sigset_t block, old;
    struct timespec now, end;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += (time_t)seconds;
    end.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (end.tv_nsec >= 1000000000L) end.tv_sec++, end.tv_nsec -= 1000000000L;
    while (!stop_flag) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        struct timespec left = {end.tv_sec - now.tv_sec, end.tv_nsec - now.tv_nsec};
        if (left.tv_nsec < 0) left.tv_sec--, left.tv_nsec += 1000000000L;
        if (left.tv_sec < 0) break;
        if (ppoll(NULL, 0, &left, &old) == 0) break; /* the pause is over */
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The run slots not done yet, in the plan's order, with the pause between runs. Returns what
 * one_run returned for the last run (0 go on, 1 stop, 2 stop on an error). */
static int run_slots(struct campaign *c, struct scal_committer *com, struct scal_progress *pg,
                     struct tally *t, size_t todo)
{
    int stop = 0;
    for (size_t s = 0; s < c->plan.nslots && !stop && !stop_flag; s++) {
        if (c->done && c->done[c->plan.order[s]]) continue;
        stop = one_run(c, com, s, pg, t);
        if (!stop && c->plan.idle_s > 0 && t->attempted < todo) idle(c->plan.idle_s);
    }
    return stop;
}

/* The runs between saving and restoring the machine's actuators, each committed as it ends.
 * Returns the exit status of `scal run`. */
static int run_campaign(struct campaign *c)
{
    char why[1024] = "";
    struct scal_committer com;
    int rc = scal_journal_open(&c->journal, c->rundir);
    if (rc < 0) {
        fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
        return 2;
    }
    rc = scal_committer_start(&com, c->output);
    /* With --keep-runs every run's file is built here from its snapshot: HDF5's per-file caches
     * stay in the heap instead of being mapped and unmapped at each run (page faults), as in the
     * committer. */
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    if (rc < 0) {
        fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
        scal_journal_close(&c->journal);
        return 2;
    }
    struct saved_signals old;
    catch_signals(&old);
    struct scal_progress pg;
    struct tally t = {0};
    size_t todo = c->plan.nslots - c->ndone;
    scal_progress_start(&pg, todo, c->plan.quiet);
    if (c->ndone && !c->plan.quiet)
        scal_progress_note(&pg, "resuming: runs already in the file are skipped");
    int stop = scal_actuators_save(&c->act, why, sizeof(why)) < 0 ? 2 : 0;
    if (c->a_cores >= 0 && !stop &&
        scal_actuators_apply(&c->act, c->a_cores, c->plan.cores, NULL, why, sizeof(why)) < 0)
        stop = 2;
    if (!stop) purge_stale_runs(c);
    if (!stop) stop = run_slots(c, &com, &pg, &t, todo);
    scal_progress_stop(&pg);
    char rwhy[1024] = "";
    if (scal_actuators_restore(&c->act, rwhy, sizeof(rwhy)) < 0)
        fprintf(stderr, "scal run: WARNING: %s\n", rwhy);
    scal_journal_close(&c->journal);
    drop_reserve(c);
    if ((rc = scal_committer_finish(&com)) < 0)
        fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
    else if (c->ndone + t.attempted == c->plan.nslots)
        drop_kept_runs(c);
    restore_signals(&old);
    if (stop == 2 && why[0]) fprintf(stderr, "scal run: %s\n", why);
    if (c->disk_full)
        fprintf(stderr,
                "scal run: disk full (%s): %zu runs kept, free space and scal run --resume %s\n",
                strerror(ENOSPC), c->ndone + t.attempted, c->output);
    summary(c, &t, &pg, stop_flag != 0, todo - t.attempted);
    return stop_flag ? 130 : stop == 2 ? 2 : t.ok == t.attempted ? 0 : 1;
}

/* ---- the stages, for the executors (campaign.h) -------------------------------------------- */

struct scal_campaign {
    struct campaign c;
    struct scal_campaign_view view;
};

int scal_campaign_plan(int argc, char **argv, struct scal_campaign **out)
{
    struct scal_campaign *k = calloc(1, sizeof(*k));
    *out = k;
    if (!k) return scal__fail(SCAL_ENOMEM, "out of memory for a campaign");
    k->c.reserve_fd = -1;
    k->c.reserve_bytes = RESERVE_MIN;
    int rc = plan_campaign(&k->c, argc, argv);
    if (rc == SCAL_OK) rc = prepare_campaign(&k->c);
    if (rc < 0) undo_run_dir(&k->c);
    k->view = (struct scal_campaign_view){&k->c.plan, k->c.done, k->c.output, k->c.resuming};
    return rc;
}

const struct scal_campaign_view *scal_campaign_view(const struct scal_campaign *k)
{
    return &k->view;
}

int scal_campaign_create(struct scal_campaign *k)
{
    int rc = open_output(&k->c);
    if (rc < 0) undo_run_dir(&k->c); /* a campaign that cannot begin leaves nothing behind */
    return rc;
}

int scal_campaign_dry_run(struct scal_campaign *k, const char *launcher)
{
    k->c.launcher = launcher;
    return dry_run(&k->c);
}

int scal_campaign_run_local(struct scal_campaign *k)
{
    return run_campaign(&k->c);
}

void scal_campaign_free(struct scal_campaign *k)
{
    if (!k) return;
    free_campaign(&k->c);
    free(k);
}

/* `scal run` on this machine: plan -> campaign file -> the local executor. */
int scal_runner_local_main(int argc, char **argv)
{
    if (help_requested(argc, argv)) {
        usage(stdout);
        return 0;
    }
    struct scal_campaign *k = NULL;
    int status = 2, rc = scal_campaign_plan(argc, argv, &k);
    if (rc == SCAL_OK && k->c.plan.dry_run)
        status = scal_campaign_dry_run(k, NULL);
    else if (rc == SCAL_OK && (rc = scal_campaign_create(k)) == SCAL_OK)
        status = scal_campaign_run_local(k);
    if (rc < 0) {
        fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
        status = 2;
    }
    scal_campaign_free(k);
    return status;
}
