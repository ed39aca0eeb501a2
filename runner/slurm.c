// SPDX-License-Identifier: BSD-3-Clause
// `scal run --slurm`: the campaign's plan as one Slurm job array. The campaign file is created
// complete (plan stored) first; then the runs still missing are cut into slices, each array task
// runs `scal run --resume` on its own piece (a copy of the plan that runs only its slice), and the
// pieces are merged into the campaign file when the job has left the queue. Slurm schedules; scal
// only submits (sbatch), watches (squeue) and collects.
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "layout.h"
#include "campaign.h"
#include "safe_create.h"
#include "safe_open.h"
#include "scal/status.h"
#include "slurm.h"

/* Above this many runs, array tasks run several each (Slurm's default MaxArraySize is 1001). */
#define DEFAULT_MAX_TASKS 1000

struct slurm_opts {
    bool slurm, no_wait, quiet, dry_run, then_report;
    const char *collect, *resume;
    char **sbatch; /* --sbatch-opt values, in order */
    size_t nsbatch;
    long per_task; /* 0: the default */
    char **rest;   /* the other arguments, for the runner */
    int nrest;
};

/* The allocation one array task needs: MPI ranks (0: not launched as MPI) x threads. */
struct shape {
    int32_t ranks, threads;
    size_t first, last; /* its pieces */
};

struct submission {
    struct slurm_opts *o;
    struct scal_slurm_pieces ps;
    uint32_t *slots; /* the missing run slots, by shape, each shape in the plan's order */
    size_t *first;   /* slice i: slots[first[i]..first[i+1]) */
    size_t nslots, npieces, total_slots;
    struct shape *shapes; /* one job array each */
    size_t nshapes;
    char program[256]; /* the program's name: the job's */
    char campaign[PATH_MAX], scal[PATH_MAX];
    char **options; /* the sbatch options used (given, or the last submission's) */
    size_t noptions;
    bool keep_runs, program_changed;
};

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* ---- options ------------------------------------------------------------------------------- */

/* The value of option name at argv[*i] ("--name VALUE" or "--name=VALUE"); NULL when argv[*i] is
 * not that option. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n)) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n]) return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

/* Takes the Slurm options out of argv (before the program); the rest goes to the runner. */
static int take_options(int argc, char **argv, struct slurm_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->rest = calloc((size_t)argc + 1, sizeof(*o->rest));
    o->sbatch = calloc((size_t)argc + 1, sizeof(*o->sbatch));
    if (!o->rest || !o->sbatch) return SCAL_ENOMEM;
    o->rest[o->nrest++] = argv[0];
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (!strcmp(a, "--") || a[0] != '-') break;
        if (!strcmp(a, "--slurm")) {
            o->slurm = true;
        } else if (!strcmp(a, "--no-wait")) {
            o->no_wait = true;
        } else if (!strcmp(a, "--then-report")) {
            o->then_report = o->no_wait = true;
        } else if ((v = option_value(argc, argv, &i, "--sbatch-opt", &missing))) {
            if (!v[0]) return scal__fail(SCAL_EINVAL, "an empty --sbatch-opt");
            o->sbatch[o->nsbatch++] = (char *)v;
        } else if ((v = option_value(argc, argv, &i, "--slurm-runs-per-task", &missing))) {
            char *end;
            o->per_task = strtol(v, &end, 10);
            if (*end || end == v || o->per_task < 1 || o->per_task > SCAL_PLAN_MAX_SLOTS)
                return scal__fail(SCAL_EINVAL, "bad --slurm-runs-per-task '%s': 1 or more", v);
        } else if ((v = option_value(argc, argv, &i, "--collect", &missing))) {
            o->collect = v;
        } else if (missing) {
            return scal__fail(SCAL_EINVAL, "option '%s' needs a value; see 'scal run --help'", a);
        } else {
            o->rest[o->nrest++] = argv[i];
            if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o->quiet = true;
            if (!strcmp(a, "--dry-run")) o->dry_run = true;
            if (!strcmp(a, "--resume") && i + 1 < argc) o->resume = argv[i + 1];
            if (!scal_run_plan_is_flag(a) && i + 1 < argc) o->rest[o->nrest++] = argv[++i];
        }
    }
    for (; i < argc; i++)
        o->rest[o->nrest++] = argv[i];
    if (o->collect && (o->slurm || o->nsbatch || o->per_task || o->no_wait || o->then_report ||
                       o->nrest > 1 + o->quiet))
        return scal__fail(SCAL_EINVAL,
                          "--collect FILE takes no other option (but -q): it collects what FILE's "
                          "job array left");
    if (!o->collect && !o->slurm)
        return scal__fail(SCAL_EINVAL, "%s needs --slurm",
                          o->nsbatch       ? "--sbatch-opt"
                          : o->then_report ? "--then-report"
                          : o->no_wait     ? "--no-wait"
                                           : "--slurm-runs-per-task");
    return SCAL_OK;
}

bool scal_slurm_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--") || a[0] != '-') return false;
        if (!strcmp(a, "--slurm") || !strncmp(a, "--collect", 9) || !strcmp(a, "--no-wait") ||
            !strcmp(a, "--then-report") || !strncmp(a, "--sbatch-opt", 12) ||
            !strncmp(a, "--slurm-runs-per-task", 21))
            return true;
        if (!scal_run_plan_is_flag(a) && !strchr(a, '=')) i++;
    }
    return false;
}

/* ---- paths --------------------------------------------------------------------------------- */

/* path made absolute against the current directory (array tasks may start elsewhere). */
static int absolute(const char *path, char *out, size_t len)
{
    char cwd[PATH_MAX];
    if (path[0] == '/') {
        snprintf(out, len, "%s", path);
        return SCAL_OK;
    }
    if (!getcwd(cwd, sizeof(cwd)))
        return scal__fail(SCAL_EIO, "cannot read the current directory: %s", strerror(errno));
    if ((size_t)snprintf(out, len, "%s/%s", cwd, path) >= len)
        return scal__fail(SCAL_EINVAL, "path too long: '%s'", path);
    return SCAL_OK;
}

static int self_path(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n < 0) return scal__fail(SCAL_EIO, "cannot find the scal executable: %s", strerror(errno));
    out[n] = 0;
    return SCAL_OK;
}

/* ---- the job in the queue ------------------------------------------------------------------ */

struct task_states {
    size_t pending, running, ended;
};

static bool state_is(const char *s, const char *const *names)
{
    for (size_t k = 0; names[k]; k++)
        if (!strcmp(s, names[k])) return true;
    return false;
}

/* The job's array tasks by state (squeue). *gone: the job has left the queue. */
static int job_states(const char *job, struct task_states *t, bool *gone)
{
    static const char *const pending[] = {"PENDING",      "REQUEUED",      "REQUEUE_FED",
                                          "REQUEUE_HOLD", "RESV_DEL_HOLD", NULL};
    static const char *const running[] = {"RUNNING",   "CONFIGURING", "COMPLETING",
                                          "SUSPENDED", "STOPPED",     "RESIZING",
                                          "SIGNALING", "STAGE_OUT",   NULL};
    char *argv[] = {"squeue", "-h", "-r", "-t", "all", "-j", (char *)job, "-o", "%T", NULL};
    char *out = NULL, *err = NULL;
    int rc = scal_slurm_command(argv, &out, &err);
    memset(t, 0, sizeof(*t));
    *gone = false;
    if (rc > 0 && strstr(err, "Invalid job id")) {
        *gone = true; /* purged from the controller: long finished */
        rc = SCAL_OK;
    } else if (rc > 0) {
        err[strcspn(err, "\n")] = 0;
        rc = scal__fail(SCAL_EIO, "squeue -j %s failed: %s", job, err);
    }
    for (char *save = NULL, *line = rc == SCAL_OK ? strtok_r(out, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save)) {
        if (state_is(line, pending))
            t->pending++;
        else if (state_is(line, running))
            t->running++;
        else
            t->ended++;
    }
    if (rc == SCAL_OK && !t->pending && !t->running) *gone = true;
    free(out), free(err);
    return rc;
}

/* Waits for the job to leave the queue, showing its array tasks pending/running/done. */
static int wait_for_job(const char *job, size_t ntasks, bool quiet)
{
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    bool tty = isatty(2), gone = false;
    struct task_states t, last = {SIZE_MAX, 0, 0};
    int rc = SCAL_OK, failures = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned polls = 0; !interrupted; polls++) {
        rc = job_states(job, &t, &gone);
        if (rc < 0 && ++failures < 30) { /* the controller may be busy: a while, then give up */
            rc = SCAL_OK;
            t = last;
        } else if (rc < 0) {
            break;
        } else {
            failures = 0;
        }
        size_t active = t.pending + t.running;
        size_t done = gone ? ntasks : active < ntasks ? ntasks - active : 0;
        if (!quiet && (t.pending != last.pending || t.running != last.running || gone || tty)) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            fprintf(stderr,
                    "%sscal run: job %s: %zu array tasks: %zu pending, %zu running, %zu done (%.0f "
                    "s)%s",
                    tty ? "\r" : "", job, ntasks, gone ? 0 : t.pending, gone ? 0 : t.running, done,
                    (double)(now.tv_sec - t0.tv_sec), tty && !gone ? "\033[K" : "\n");
        }
        last = t;
        if (gone) break;
        /* poll gently: a quarter second at first, at most every ten seconds later */
        double wait_s = 0.25 + 0.25 * polls;
        if (wait_s > 10) wait_s = 10;
        struct timespec ts = {(time_t)wait_s, (long)((wait_s - (double)(time_t)wait_s) * 1e9)};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !interrupted) {
        }
    }
    if (tty && !quiet && !gone) fputc('\n', stderr);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc < 0) return rc;
    return interrupted ? SCAL_EINTR : SCAL_OK;
}

/* ---- collecting ---------------------------------------------------------------------------- */

/* The plan stored in the campaign file and its runs as slots done. */
static int read_plan(const char *campaign, struct scal_run_plan *plan, uint8_t **done,
                     size_t *ndone)
{
    char **stored = NULL, **args = NULL;
    size_t nstored = 0, nruns = 0;
    struct scal_run_row *runs = NULL;
    *done = NULL;
    *ndone = 0;
    memset(plan, 0, sizeof(*plan));
    int rc = scal_runner_read_campaign(campaign, &stored, &nstored, &runs, &nruns);
    if (rc == SCAL_OK && !(args = calloc(nstored + 2, sizeof(*args)))) rc = SCAL_ENOMEM;
    if (rc == SCAL_OK) {
        args[0] = "run";
        memcpy(args + 1, stored, nstored * sizeof(*args));
        rc = scal_run_plan_parse(plan, (int)nstored + 1, args);
    }
    if (rc == SCAL_OK && !(*done = calloc(plan->nslots ? plan->nslots : 1, 1))) rc = SCAL_ENOMEM;
    for (size_t i = 0; rc == SCAL_OK && i < nruns; i++) {
        size_t slot = (size_t)runs[i].config * plan->repetitions + runs[i].repetition;
        if (runs[i].config >= plan->nconfigs || runs[i].repetition >= plan->repetitions) continue;
        if (!(*done)[slot]) (*ndone)++;
        (*done)[slot] = 1;
    }
    free(args);
    free(runs);
    for (size_t i = 0; i < nstored; i++)
        free(stored[i]);
    free(stored);
    return rc;
}

/* Opens a piece through the safe open, waiting while its task's committer still closes it; a
 * damaged one is rebuilt from the runs it kept, as --resume rebuilds any campaign file. */
static int usable_piece(const char *piece)
{
    struct scal_h5file f;
    int rc = scal_h5file_open(piece, SCAL_OPEN_CAMPAIGN | SCAL_OPEN_WAIT, &f);
    if (rc == SCAL_OK) return scal_h5file_close(&f);
    if (rc != SCAL_EFORMAT) return rc;
    char why[1024];
    snprintf(why, sizeof(why), "%s", scal__last_error(rc));
    char *argv[] = {"run", "--resume", (char *)piece, "-q", NULL};
    struct scal_campaign *c = NULL;
    scal_campaign_plan(4, argv, &c); /* planning --resume rebuilds it; nothing runs */
    scal_campaign_free(c);
    rc = scal_h5file_open(piece, SCAL_OPEN_CAMPAIGN, &f);
    if (rc < 0) return scal__fail(rc, "%s (and it could not be rebuilt)", why);
    return scal_h5file_close(&f);
}

/* Why array task job_index ended as it did, in Slurm's words: sacct (State, ExitCode, Reason) where
 * accounting is on, else scontrol (while the controller still holds the finished job); "" when
 * neither knows it any more. */
static void task_reason(const char *job, size_t index, char *why, size_t len)
{
    char id[64], *out = NULL, *err = NULL;
    snprintf(id, sizeof(id), "%s_%zu", job, index);
    why[0] = 0;
    char *sacct[] = {"sacct", "-n", "-X", "-P", "-j", id, "-o", "State,ExitCode,Reason", NULL};
    if (scal_slurm_command(sacct, &out, &err) == 0 && out[0]) {
        out[strcspn(out, "\n")] = 0;
        for (char *c = out; *c; c++)
            if (*c == '|') *c = ' ';
        snprintf(why, len, "%s", out);
    }
    free(out), free(err);
    if (why[0]) return;
    char *scontrol[] = {"scontrol", "-o", "show", "job", id, NULL};
    if (scal_slurm_command(scontrol, &out, &err) == 0) {
        static const char *const keys[] = {"JobState=", "Reason=", "ExitCode=", NULL};
        size_t used = 0;
        for (size_t k = 0; keys[k]; k++) {
            const char *at = strstr(out, keys[k]);
            if (!at) continue;
            at += strlen(keys[k]);
            used += (size_t)snprintf(why + used, len - used, "%s%.*s", used ? " " : "",
                                     (int)strcspn(at, " \n"), at);
            if (used >= len) break;
        }
    }
    free(out), free(err);
}

/* The runs of a piece's slice that are not ok (a failed, killed, timed-out or data-less run): the
 * runs a local campaign counts as "not ok". */
static int piece_not_ok(const char *piece, size_t *not_ok, size_t *nruns_out)
{
    char **args = NULL;
    size_t nargs = 0, nruns = 0;
    struct scal_run_row *runs = NULL;
    int rc = scal_runner_read_campaign(piece, &args, &nargs, &runs, &nruns);
    for (size_t i = 0; rc == SCAL_OK && i < nruns; i++)
        if (runs[i].status != SCAL_RUN_OK) (*not_ok)++;
    if (rc == SCAL_OK) *nruns_out += nruns;
    for (size_t i = 0; i < nargs; i++)
        free(args[i]);
    free(args), free(runs);
    return rc;
}

/* Merges the pieces of the campaign's jobs into it and removes them; says what is done, what failed
 * and what is missing (with Slurm's reason per failed array task). Returns the exit status of a
 * local campaign with those runs: 0 every run ok, 1 runs not ok or missing, 2 an error, 130
 * interrupted. *complete: every run of the plan is in the campaign now. */
static int collect_pieces(const char *campaign, bool wait, bool quiet, bool *complete)
{
    struct scal_slurm_pieces ps;
    struct scal_run_plan plan = {0};
    uint8_t *done = NULL;
    size_t ndone = 0, nmerged = 0, nadded = 0, nbad = 0, not_ok = 0, nruns_merged = 0;
    char **paths = NULL;
    size_t *index = NULL;
    scal_slurm_pieces_init(&ps, campaign);
    int rc = scal_slurm_job_read(&ps), status = 2;
    if (rc == SCAL_ENOENT)
        rc = scal__fail(SCAL_ENOENT,
                        "'%s' has no Slurm pieces to collect (no %s/job): it was not submitted "
                        "with scal run --slurm, or its pieces are collected already",
                        campaign, ps.dir);
    if (rc == SCAL_OK) rc = read_plan(campaign, &plan, &done, &ndone);
    *complete = false;
    if (rc == SCAL_OK && wait && ps.job[0]) rc = wait_for_job(ps.job, ps.npieces, quiet);
    if (rc == SCAL_EINTR) {
        char ids[sizeof(ps.job)];
        snprintf(ids, sizeof(ids), "%s", ps.job);
        for (char *c = ids; *c; c++)
            if (*c == ',') *c = ' ';
        fprintf(stderr,
                "scal run: interrupted; job %s goes on (scancel %s stops it): scal run --collect "
                "%s merges its pieces later\n",
                ps.job, ids, campaign);
        scal_run_plan_free(&plan);
        scal_slurm_pieces_free(&ps);
        free(done);
        return 130;
    }
    if (rc == SCAL_OK) {
        paths = calloc(ps.npieces + 1, sizeof(*paths));
        index = calloc(ps.npieces + 1, sizeof(*index));
        if (!paths || !index) rc = SCAL_ENOMEM;
    }
    for (size_t i = 0; rc == SCAL_OK && i < ps.npieces; i++) {
        char path[sizeof(ps.dir) + 64];
        scal_slurm_piece_path(&ps, i, ".h5", path, sizeof(path));
        if (access(path, F_OK) != 0) continue; /* collected before */
        int prc = usable_piece(path);
        if (prc < 0) {
            fprintf(stderr,
                    "scal run: piece %zu is kept, not merged: %s (remove %s and its .slots to "
                    "run its runs again)\n",
                    i, scal__last_error(prc), path);
            nbad++;
            continue;
        }
        if ((prc = piece_not_ok(path, &not_ok, &nruns_merged)) < 0) {
            fprintf(stderr, "scal run: piece %zu is kept, not merged: %s\n", i,
                    scal__last_error(prc));
            nbad++;
            continue;
        }
        if (!(paths[nmerged] = strdup(path))) rc = SCAL_ENOMEM;
        index[nmerged++] = i;
    }
    if (rc == SCAL_OK && nmerged)
        rc = scal_merge_pieces(campaign, (const char *const *)paths, nmerged, &nadded);
    /* what the campaign holds now decides which pieces are complete */
    if (rc == SCAL_OK) {
        scal_run_plan_free(&plan);
        free(done);
        rc = read_plan(campaign, &plan, &done, &ndone);
    }
    size_t failed_tasks = 0;
    uint8_t *slice = rc == SCAL_OK ? calloc(plan.nslots ? plan.nslots : 1, 1) : NULL;
    if (rc == SCAL_OK && !slice) rc = SCAL_ENOMEM;
    for (size_t k = 0; rc == SCAL_OK && k < nmerged; k++) {
        char slots[sizeof(ps.dir) + 64];
        bool complete = true;
        scal_slurm_piece_path(&ps, index[k], ".slots", slots, sizeof(slots));
        memset(slice, 0, plan.nslots ? plan.nslots : 1);
        if (scal_campaign_slice_read(slots, plan.nslots, slice) == SCAL_OK)
            for (size_t s = 0; s < plan.nslots; s++)
                if (slice[s] && !done[s]) complete = false;
        if (!complete) {
            char why[512];
            const char *job = scal_slurm_piece_job(&ps, index[k]);
            task_reason(job, index[k], why, sizeof(why));
            fprintf(stderr,
                    "scal run: array task %s_%zu left runs missing%s%s (its output: "
                    "%s/failed-%s_%zu.out)\n",
                    job, index[k], why[0] ? ": " : "", why, ps.dir, job, index[k]);
            failed_tasks++;
        }
        scal_slurm_piece_remove(&ps, index[k], !complete, plan.keep_runs);
    }
    free(slice);
    if (rc == SCAL_OK) {
        bool all = ndone == plan.nslots;
        if (!nbad) scal_slurm_pieces_done(&ps, all);
        if (all && !nbad) scal_runner_drop_kept_runs(campaign, plan.keep_runs);
        fprintf(stderr,
                "scal run: collected %zu runs from %zu pieces into %s: %zu of %zu runs done; of "
                "the collected runs %zu ok, %zu not ok\n",
                nadded, nmerged, campaign, ndone, plan.nslots, nruns_merged - not_ok, not_ok);
        if (!all)
            fprintf(stderr,
                    "scal run: %zu runs missing (%zu array tasks failed or were cancelled; their "
                    "output is in %s/failed-*.out): scal run --resume %s --slurm submits them "
                    "again\n",
                    plan.nslots - ndone, failed_tasks, ps.dir, campaign);
        else
            fprintf(stderr, "scal run: next: scal report %s\n", campaign);
        if (not_ok)
            fprintf(stderr,
                    "scal run: %zu runs not ok: scal show %s lists them with their status\n",
                    not_ok, campaign);
        status = all && !nbad && !not_ok ? 0 : 1;
        *complete = all && !nbad;
    }
    if (rc < 0) fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
    for (size_t k = 0; paths && k < nmerged; k++)
        free(paths[k]);
    free(paths), free(index), free(done);
    scal_run_plan_free(&plan);
    scal_slurm_pieces_free(&ps);
    return status;
}

static int collect(const char *campaign, bool wait, bool quiet)
{
    bool complete;
    return collect_pieces(campaign, wait, quiet, &complete);
}

/* ---- submitting ---------------------------------------------------------------------------- */

/* The shape of a configuration's runs: what one array task must be allocated. */
static struct shape shape_of(const struct scal_run_plan *p, size_t config)
{
    struct shape sh = {p->ranks[scal_plan_ranks_of(p, config)],
                       p->threads[scal_plan_thread_of(p, config)], 0, 0};
    return sh;
}

/* The missing slots grouped by shape (ranks x threads; each group in the plan's order), each group
 * cut into slices of per_task runs: a task's allocation fits every run in its slice. */
static int slice_plan(struct submission *sub, const struct scal_campaign_view *v)
{
    const struct scal_run_plan *p = v->plan;
    size_t missing = 0, per, npieces = 0;
    sub->total_slots = p->nslots;
    sub->slots = malloc((p->nslots ? p->nslots : 1) * sizeof(*sub->slots));
    sub->shapes = calloc(p->nranks * p->nthreads + 1, sizeof(*sub->shapes));
    size_t *count = calloc(p->nranks * p->nthreads + 1, sizeof(*count));
    if (!sub->slots || !sub->shapes || !count) return free(count), SCAL_ENOMEM;
    for (size_t s = 0; s < p->nslots; s++)
        if (!v->done || !v->done[p->order[s]]) missing++;
    per = sub->o->per_task > 0 ? (size_t)sub->o->per_task
                               : (missing + DEFAULT_MAX_TASKS - 1) / DEFAULT_MAX_TASKS;
    if (per < 1) per = 1;
    /* shapes in the order their first missing run comes in the plan */
    for (size_t s = 0; s < p->nslots; s++) {
        uint32_t slot = p->order[s];
        if (v->done && v->done[slot]) continue;
        struct shape sh = shape_of(p, slot / p->repetitions);
        size_t k = 0;
        while (k < sub->nshapes &&
               (sub->shapes[k].ranks != sh.ranks || sub->shapes[k].threads != sh.threads))
            k++;
        if (k == sub->nshapes) sub->shapes[sub->nshapes++] = sh;
        count[k]++;
    }
    for (size_t k = 0; k < sub->nshapes; k++)
        npieces += (count[k] + per - 1) / per;
    sub->first = malloc((npieces + 1) * sizeof(*sub->first));
    if (!sub->first) return free(count), SCAL_ENOMEM;
    for (size_t k = 0; k < sub->nshapes; k++) {
        struct shape *sh = &sub->shapes[k];
        size_t start = sub->nslots;
        sh->first = sub->npieces;
        for (size_t s = 0; s < p->nslots; s++) {
            uint32_t slot = p->order[s];
            struct shape of = shape_of(p, slot / p->repetitions);
            if ((!v->done || !v->done[slot]) && of.ranks == sh->ranks && of.threads == sh->threads)
                sub->slots[sub->nslots++] = slot;
        }
        for (size_t at = start; at < sub->nslots; at += per)
            sub->first[sub->npieces++] = at;
        sh->last = sub->npieces - 1;
    }
    sub->first[sub->npieces] = sub->nslots;
    free(count);
    sub->keep_runs = p->keep_runs;
    sub->program_changed = p->program_changed_ok;
    const char *prog = strrchr(p->program[0], '/');
    snprintf(sub->program, sizeof(sub->program), "%s", prog ? prog + 1 : p->program[0]);
    return SCAL_OK;
}

/* sbatch's arguments for the job array of shape sh: ours first (the user's options come after and
 * win), then the batch script and its arguments. test_only: sbatch --test-only (validates, submits
 * nothing). An MPI shape gets one task per rank, each with the threads' CPUs; srun inside the
 * task launches the ranks in that allocation. */
static char **sbatch_argv(const struct submission *sub, const struct shape *sh, bool test_only,
                          char *buf, size_t len)
{
    char **argv = calloc(sub->noptions + 16, sizeof(*argv));
    if (!argv) return NULL;
    size_t n = 0, used = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        argv[n++] = buf + used;                                                                    \
        used += (size_t)snprintf(buf + used, len - used, __VA_ARGS__) + 1;                         \
    } while (0)
    PUT("sbatch");
    PUT("%s", test_only ? "--test-only" : "--parsable");
    PUT("--array=%zu-%zu", sh->first, sh->last);
    PUT("--job-name=scal:%s", sub->program);
    PUT("--output=%s/piece-%%4a.out", sub->ps.dir);
    PUT("--ntasks=%d", sh->ranks > 0 ? (int)sh->ranks : 1);
    PUT("--cpus-per-task=%d", (int)sh->threads);
#undef PUT
    for (size_t k = 0; k < sub->noptions; k++)
        argv[n++] = sub->options[k];
    if (test_only) { /* the batch script is written only once the campaign file exists */
        argv[n++] = "--wrap=true";
        argv[n] = NULL;
        return used < len ? argv : (free(argv), NULL);
    }
    argv[n++] = buf + used;
    used += (size_t)snprintf(buf + used, len - used, "%s/job.sh", sub->ps.dir) + 1;
    argv[n++] = (char *)sub->scal;
    argv[n++] = (char *)sub->ps.dir;
    argv[n++] = (char *)sub->campaign;
    if (sub->program_changed) argv[n++] = "--program-changed"; /* the pieces hold the old plan */
    argv[n] = NULL;
    return used < len ? argv : (free(argv), NULL);
}

static void print_argv(FILE *out, char *const *argv)
{
    for (size_t k = 0; argv[k]; k++)
        fprintf(out, "%s%s", k ? " " : "", argv[k]);
    fputc('\n', out);
}

/* Runs sbatch with argv; *jobid on success. Errors carry sbatch's own words. */
static int sbatch(char **argv, bool test_only, const char *what, char *jobid, size_t len)
{
    char *out = NULL, *err = NULL;
    int rc = scal_slurm_command(argv, &out, &err);
    if (rc > 0) {
        char *e = err[0] ? err : out;
        size_t n = strlen(e);
        while (n && e[n - 1] == '\n')
            e[--n] = 0;
        rc = scal__fail(SCAL_EINVAL, "sbatch %s %s (exit %d): %s",
                        test_only ? "refuses" : "did not submit", what, rc, e);
    }
    if (rc == SCAL_OK && !test_only) {
        out[strcspn(out, ";\n")] = 0; /* --parsable: "ID" or "ID;CLUSTER" */
        if (!out[0]) rc = scal__fail(SCAL_EIO, "sbatch printed no job id");
        snprintf(jobid, len, "%s", out);
    }
    free(out), free(err);
    return rc;
}

/* Submits (or with test_only checks) the job array of shape sh. */
static int run_sbatch(struct submission *sub, const struct shape *sh, bool test_only, char *jobid,
                      size_t len)
{
    char buf[4 * PATH_MAX + 2048], what[128];
    char **argv = sbatch_argv(sub, sh, test_only, buf, sizeof(buf));
    if (!argv) return SCAL_ENOMEM;
    if (sh->ranks > 0)
        snprintf(what, sizeof(what), "the job array of %d ranks x %d threads", (int)sh->ranks,
                 (int)sh->threads);
    else
        snprintf(what, sizeof(what), "the job array of %d threads", (int)sh->threads);
    int rc = sbatch(argv, test_only, what, jobid, len);
    free(argv);
    return rc;
}

/* s in single quotes for sh (a quote inside becomes '\'') into out. */
static int sh_quote(const char *s, char *out, size_t len)
{
    size_t n = 0;
    if (len < 3) return SCAL_ENOMEM;
    out[n++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        size_t k = piece ? strlen(piece) : 1;
        if (n + k + 2 > len) return scal__fail(SCAL_EINVAL, "path too long to quote: '%s'", s);
        if (piece)
            memcpy(out + n, piece, k);
        else
            out[n] = *s;
        n += k;
    }
    out[n++] = '\'';
    out[n] = 0;
    return SCAL_OK;
}

/* --then-report: a job that starts when every array has ended (afterany: failed tasks too) and
 * collects the pieces, then reports; no process waits on the login node. Its output is
 * FILE.pieces/../FILE.collect.out (the pieces directory goes once collected). */
static int submit_then_report(const struct submission *sub, char *jobid, size_t len)
{
    char scal[2 * PATH_MAX + 8], camp[2 * PATH_MAX + 8], wrap[6 * PATH_MAX + 64];
    char dep[sizeof(sub->ps.job) + 32], out[PATH_MAX + 32], name[300];
    int rc = sh_quote(sub->scal, scal, sizeof(scal));
    if (rc == SCAL_OK) rc = sh_quote(sub->campaign, camp, sizeof(camp));
    if (rc < 0) return rc;
    snprintf(dep, sizeof(dep), "--dependency=afterany:%s", sub->ps.job);
    for (char *c = dep; *c; c++)
        if (*c == ',') *c = ':';
    snprintf(out, sizeof(out), "--output=%s.collect.out", sub->campaign);
    snprintf(name, sizeof(name), "--job-name=scal-report:%s", sub->program);
    snprintf(wrap, sizeof(wrap),
             "--wrap=%s run --collect %s; status=$?; %s report %s || exit; exit $status", scal,
             camp, scal, camp);
    char *argv[] = {"sbatch",     "--parsable",        dep,  name, out,
                    "--ntasks=1", "--cpus-per-task=1", wrap, NULL};
    return sbatch(argv, false, "the collecting job", jobid, len);
}

static int write_script(const struct submission *sub)
{
    char path[sizeof(sub->ps.dir) + 16];
    snprintf(path, sizeof(path), "%s/job.sh", sub->ps.dir);
    return scal_campaign_text_write(
        path, "#!/bin/sh\n"
              "# Written by scal run --slurm. Array task N runs piece N of the campaign:\n"
              "#   job.sh SCAL PIECES_DIR CAMPAIGN [OPTIONS]  ->\n"
              "#   SCAL run --resume PIECES_DIR/piece-NNNN.h5 [OPTIONS]\n"
              "# SCAL_PIECE_OF names the campaign in what the piece's runner suggests.\n"
              ": \"${SLURM_ARRAY_TASK_ID:?run by sbatch --array}\"\n"
              "scal=$1\n"
              "piece=$(printf '%s/piece-%04d.h5' \"$2\" \"$SLURM_ARRAY_TASK_ID\")\n"
              "SCAL_PIECE_OF=$3\n"
              "export SCAL_PIECE_OF\n"
              "shift 3\n"
              "exec \"$scal\" run --resume \"$piece\" \"$@\"\n");
}

/* Before the campaign file exists: what to submit, checked by sbatch. Returns -1 to go on, else the
 * exit status (nothing to submit, or an error; nothing is created). */
static int prepare_submission(struct submission *sub, const struct scal_campaign_view *v)
{
    int rc = absolute(v->output, sub->campaign, sizeof(sub->campaign));
    if (rc == SCAL_OK) rc = self_path(sub->scal, sizeof(sub->scal));
    if (rc == SCAL_OK) {
        scal_slurm_pieces_init(&sub->ps, sub->campaign);
        if (!v->resuming && access(sub->ps.dir, F_OK) == 0)
            rc = scal__fail(SCAL_EEXIST,
                            "'%s' holds the pieces of an earlier campaign named '%s': move or "
                            "remove it, or choose another file with -o",
                            sub->ps.dir, v->output);
    }
    if (rc == SCAL_OK) rc = slice_plan(sub, v);
    if (rc == SCAL_OK && !sub->o->nsbatch && v->resuming) /* the last submission's options */
        rc = scal_slurm_options_read(&sub->ps, &sub->options, &sub->noptions);
    else if (rc == SCAL_OK) {
        sub->options = calloc(sub->o->nsbatch + 1, sizeof(*sub->options));
        for (size_t k = 0; sub->options && k < sub->o->nsbatch; k++)
            sub->options[sub->noptions++] = strdup(sub->o->sbatch[k]);
        if (!sub->options) rc = SCAL_ENOMEM;
    }
    if (rc < 0) {
        fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
        return 2;
    }
    if (!sub->nslots) {
        fprintf(stderr, "scal run: %s: all %zu runs are done: nothing to submit\n", v->output,
                sub->total_slots);
        if (v->resuming) scal_runner_drop_kept_runs(v->output, sub->keep_runs);
        return 0;
    }
    if (sub->o->dry_run) {
        char buf[4 * PATH_MAX + 2048];
        printf("slurm: %zu runs in %zu array tasks (at most %zu each) in %zu job arrays (one per "
               "ranks x threads), one piece each in %s\n",
               sub->nslots, sub->npieces, sub->first[1] - sub->first[0], sub->nshapes, sub->ps.dir);
        for (size_t k = 0; k < sub->nshapes; k++) {
            char **argv = sbatch_argv(sub, &sub->shapes[k], false, buf, sizeof(buf));
            if (argv) printf("sbatch: "), print_argv(stdout, argv);
            free(argv);
        }
        if (sub->o->then_report)
            printf("sbatch: --dependency=afterany:JOBS ... scal run --collect %s; scal report %s\n",
                   sub->campaign, sub->campaign);
        return -1; /* then the campaign's own dry run: the runs and their command lines */
    }
    /* sbatch checks the options and the requests (CPUs, partition) before anything is created */
    for (size_t k = 0; rc == SCAL_OK && k < sub->nshapes; k++)
        rc = run_sbatch(sub, &sub->shapes[k], true, NULL, 0);
    if (rc < 0) {
        fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
        return 2;
    }
    return -1;
}

/* Once the campaign file exists complete: pieces, submission, waiting. Returns the exit status. */
static int submit_arrays(struct submission *sub, const struct scal_campaign_view *v)
{
    int rc =
        scal_slurm_pieces_create(&sub->ps, sub->campaign, sub->slots, sub->first, sub->npieces);
    if (rc == SCAL_OK) rc = scal_slurm_options_write(&sub->ps, sub->options, sub->noptions);
    if (rc == SCAL_OK) rc = write_script(sub);
    for (size_t k = 0; rc == SCAL_OK && k < sub->nshapes; k++) {
        char job[32];
        rc = run_sbatch(sub, &sub->shapes[k], false, job, sizeof(job));
        if (rc == SCAL_OK)
            rc = scal_slurm_array_add(&sub->ps, job, sub->shapes[k].first, sub->shapes[k].last);
    }
    if (rc < 0 && sub->ps.job[0]) { /* the arrays already queued go: nothing runs half */
        char *argv[] = {"scancel", NULL, NULL}, *out = NULL, *err = NULL;
        for (size_t k = 0; k < sub->ps.narrays; k++) {
            argv[1] = sub->ps.arrays[k].job;
            scal_slurm_command(argv, &out, &err);
            free(out), free(err);
        }
    }
    if (rc < 0) {
        fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
        /* nothing runs: the pieces go, the campaign file stays for a later submission */
        for (size_t i = 0; i < sub->npieces; i++)
            scal_slurm_piece_remove(&sub->ps, i, false, false);
        scal_slurm_pieces_done(&sub->ps, false);
        fprintf(stderr,
                "scal run: %s is kept with its plan: scal run --resume %s --slurm submits it\n",
                v->output, v->output);
        return 2;
    }
    rc = scal_slurm_job_write(&sub->ps);
    if (rc < 0) fprintf(stderr, "scal run: warning: %s\n", scal__last_error(rc));
    if (!sub->o->quiet)
        fprintf(stderr,
                "scal run: submitted job %s: %zu runs in %zu array tasks, %zu job arrays (one per "
                "ranks x threads; pieces in %s)\n",
                sub->ps.job, sub->nslots, sub->npieces, sub->nshapes, sub->ps.dir);
    if (sub->o->then_report) {
        char job[32];
        rc = submit_then_report(sub, job, sizeof(job));
        if (rc < 0) {
            fprintf(stderr, "scal run: %s; the arrays run: scal run --collect %s collects them\n",
                    scal__last_error(rc), v->output);
            return 2;
        }
        fprintf(stderr,
                "scal run: submitted job %s: when the arrays have ended it collects the pieces "
                "into %s and reports (output: %s.collect.out)\n",
                job, v->output, sub->campaign);
        return 0;
    }
    if (sub->o->no_wait) {
        fprintf(stderr, "scal run: when it is done: scal run --collect %s\n", v->output);
        return 0;
    }
    return collect(v->output, true, sub->o->quiet);
}

static int submit(struct slurm_opts *o)
{
    struct submission sub;
    memset(&sub, 0, sizeof(sub));
    sub.o = o;
    /* --resume: what the last job left is collected first, so that only the missing runs go */
    if (o->resume && !o->dry_run) {
        struct scal_slurm_pieces ps;
        scal_slurm_pieces_init(&ps, o->resume);
        int had = scal_slurm_job_read(&ps);
        scal_slurm_pieces_free(&ps);
        if (had == SCAL_OK) {
            bool complete = false;
            int status = collect_pieces(o->resume, true, o->quiet, &complete);
            if (complete || status == 130) return status;
            had = scal_slurm_job_read(&ps);
            scal_slurm_pieces_free(&ps);
            if (had == SCAL_OK) return 2; /* pieces could not be merged */
        }
    }
    /* plan -> campaign file -> this executor */
    struct scal_campaign *c = NULL;
    int status = 2, rc = scal_campaign_plan(o->nrest, o->rest, &c);
    const struct scal_campaign_view *v = rc == SCAL_OK ? scal_campaign_view(c) : NULL;
    if (v && (status = prepare_submission(&sub, v)) < 0) {
        if (o->dry_run) /* the ranks of a run start inside its array task: srun, not mpirun */
            status = scal_campaign_dry_run(c, SCAL_PLAN_SLURM_LAUNCHER);
        else if ((rc = scal_campaign_create(c)) == SCAL_OK)
            status = submit_arrays(&sub, v);
    }
    if (rc < 0) {
        fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
        status = 2;
    }
    scal_campaign_free(c);
    for (size_t k = 0; k < sub.noptions; k++)
        free(sub.options[k]);
    free(sub.options), free(sub.slots), free(sub.first), free(sub.shapes);
    scal_slurm_pieces_free(&sub.ps);
    return status;
}

int scal_slurm_main(int argc, char **argv)
{
    struct slurm_opts o;
    int status = 2, rc = take_options(argc, argv, &o);
    if (rc < 0)
        fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
    else if (o.collect)
        status = collect(o.collect, true, o.quiet);
    else
        status = submit(&o);
    free(o.rest), free(o.sbatch);
    return status;
}
