// SPDX-License-Identifier: BSD-3-Clause
// Parsing `scal run`'s command line into a plan and ordering its runs.
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "errmsg.h"
#include "suggest.h"
#include "run_plan.h"
#include "scal/status.h"

static int push_int(int64_t **v, size_t *n, int64_t x)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i] == x) return SCAL_OK; /* duplicates collapse */
    int64_t *p = realloc(*v, (*n + 1) * sizeof(**v));
    if (!p) return SCAL_ENOMEM;
    p[(*n)++] = x;
    *v = p;
    return SCAL_OK;
}

/* The next comma-separated item of *rest (NULL at the end); an empty item ("1,,2", "1,", ",1")
 * is returned as "" so that the caller refuses it. */
static char *next_item(char **rest)
{
    char *item = *rest;
    if (!item) return NULL;
    char *comma = strchr(item, ',');
    if (comma) *comma = 0;
    *rest = comma ? comma + 1 : NULL;
    return item;
}

int scal_parse_int_list(const char *text, int64_t lo, int64_t hi, int64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    char *copy = strdup(text ? text : ""), *rest = copy;
    int rc = copy ? SCAL_OK : SCAL_ENOMEM;
    for (char *item = next_item(&rest); item && rc == SCAL_OK; item = next_item(&rest)) {
        char *end;
        errno = 0;
        long long a = strtoll(item, &end, 10), b = a, step = 1;
        bool doubling = false;
        if (end == item || isspace((unsigned char)*item)) rc = SCAL_EINVAL;
        if (rc == SCAL_OK && *end == '-') {
            char *e2;
            b = strtoll(end + 1, &e2, 10);
            if (e2 == end + 1) rc = SCAL_EINVAL;
            end = e2;
            if (rc == SCAL_OK && (*end == ':' || *end == '*')) {
                doubling = *end == '*';
                step = strtoll(end + 1, &e2, 10);
                if (e2 == end + 1 || step < (doubling ? 2 : 1)) rc = SCAL_EINVAL;
                end = e2;
            }
        }
        if (rc == SCAL_OK && (*end || errno || a < lo || b > hi || a > b || step > hi))
            rc = SCAL_EINVAL;
        for (long long x = a; rc == SCAL_OK && x <= b; x = doubling ? x * step : x + step)
            rc = *n >= SCAL_PLAN_MAX_LIST ? SCAL_ERANGE : push_int(out, n, x);
    }
    free(copy);
    if (rc == SCAL_OK && *n == 0) rc = SCAL_EINVAL;
    if (rc < 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* A frequency: kHz as an integer, or with a unit: "2.4GHz", "1200MHz", "800000kHz". */
static int parse_freqs(const char *text, int64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    char *copy = strdup(text), *rest = copy;
    int rc = copy ? SCAL_OK : SCAL_ENOMEM;
    for (char *item = next_item(&rest); item && rc == SCAL_OK; item = next_item(&rest)) {
        char *end;
        double v = strtod(item, &end);
        double scale = !strcasecmp(end, "ghz")            ? 1e6
                       : !strcasecmp(end, "mhz")          ? 1e3
                       : !strcasecmp(end, "khz") || !*end ? 1
                                                          : -1;
        if (end == item || scale < 0 || !isfinite(v) || v <= 0 || v * scale > 1e9 ||
            *n >= SCAL_PLAN_MAX_LIST)
            rc = SCAL_EINVAL;
        else
            rc = push_int(out, n, (int64_t)(v * scale + 0.5));
    }
    free(copy);
    if (rc == SCAL_OK && !*n) rc = SCAL_EINVAL;
    return rc;
}

static int add_input(struct scal_run_plan *p, const char *label, const char *value)
{
    struct scal_run_input *v = p->inputs;
    if ((p->ninputs & (p->ninputs - 1)) == 0) { /* doubled at each power of two: 10^6 lines fast */
        v = realloc(p->inputs, (p->ninputs ? 2 * p->ninputs : 1) * sizeof(*v));
        if (!v) return SCAL_ENOMEM;
    }
    p->inputs = v;
    v[p->ninputs].label = strdup(label ? label : value);
    v[p->ninputs].value = strdup(value);
    v[p->ninputs].size = NAN;
    if (!v[p->ninputs].label || !v[p->ninputs].value) return SCAL_ENOMEM;
    p->ninputs++;
    return SCAL_OK;
}

/* One input per line: "VALUE" or "LABEL<TAB>VALUE"; blank lines and '#' comments are skipped. A
 * NUL byte or a line longer than SCAL_PLAN_MAX_INPUT_LINE is refused with its line number (never
 * split into several inputs or cut short). */
static int read_inputs_file(struct scal_run_plan *p, const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return scal__fail(SCAL_EINVAL, "cannot read inputs file '%s': %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = SCAL_OK;
    size_t lineno = 0;
    while (rc == SCAL_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (memchr(line, 0, (size_t)len)) {
            rc =
                scal__fail(SCAL_EINVAL, "inputs file '%s', line %zu: a NUL byte (not a text file?)",
                           path, lineno);
            break;
        }
        line[strcspn(line, "\r\n")] = 0;
        if (strlen(line) > SCAL_PLAN_MAX_INPUT_LINE) {
            rc = scal__fail(SCAL_EINVAL,
                            "inputs file '%s', line %zu: %zu characters, more than the %d an input "
                            "may have",
                            path, lineno, strlen(line), SCAL_PLAN_MAX_INPUT_LINE);
            break;
        }
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#') continue;
        char *tab = strchr(s, '\t');
        if (tab) *tab = 0;
        if (tab && !tab[1])
            rc = scal__fail(SCAL_EINVAL, "inputs file '%s', line %zu: a label without a value",
                            path, lineno);
        else if (p->ninputs >= SCAL_PLAN_MAX_SLOTS)
            rc = scal__fail(SCAL_EINVAL, "inputs file '%s', line %zu: more than %d inputs", path,
                            lineno, SCAL_PLAN_MAX_SLOTS);
        else
            rc = tab ? add_input(p, s, tab + 1) : add_input(p, NULL, s);
    }
    if (rc == SCAL_OK && ferror(f))
        rc = scal__fail(SCAL_EINVAL, "cannot read inputs file '%s': %s", path, strerror(errno));
    free(line);
    fclose(f);
    if (rc == SCAL_OK && lineno && !p->ninputs)
        rc = scal__fail(SCAL_EINVAL, "inputs file '%s' holds no input", path);
    return rc;
}

static int dup_opt(char **dst, const char *v)
{
    free(*dst);
    *dst = strdup(v);
    return *dst ? SCAL_OK : SCAL_ENOMEM;
}

static bool uses_placeholder(const struct scal_run_plan *p, const char *ph)
{
    for (size_t i = 0; i < p->nprogram; i++)
        if (strstr(p->program[i], ph)) return true;
    return false;
}

/* The default thread counts: 1, 2, 4, ... up to the number of online CPUs (and that number). */
static int default_threads(int64_t **v, size_t *n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int rc = SCAL_OK;
    if (cpus < 1) cpus = 1;
    for (long t = 1; t < cpus && rc == SCAL_OK; t *= 2)
        rc = push_int(v, n, t);
    return rc == SCAL_OK ? push_int(v, n, cpus) : rc;
}

static bool is_flag(const char *a)
{
    return !strcmp(a, "--dry-run") || !strcmp(a, "--fail-fast") || !strcmp(a, "--keep-runs") ||
           !strcmp(a, "-q") || !strcmp(a, "--quiet") || !strcmp(a, "--program-changed");
}

const char *scal_run_plan_default_launcher(void)
{
    const char *job = getenv("SLURM_JOB_ID");
    return job && job[0] ? SCAL_PLAN_SLURM_LAUNCHER : SCAL_PLAN_DEFAULT_LAUNCHER;
}

bool scal_run_plan_is_flag(const char *a)
{
    return is_flag(a) || !strcmp(a, "-h") || !strcmp(a, "--help");
}

/* Options without a value (is_flag); false when a is none of them. */
static bool parse_flag(struct scal_run_plan *p, const char *a)
{
    if (!strcmp(a, "--dry-run"))
        p->dry_run = true;
    else if (!strcmp(a, "--fail-fast"))
        p->fail_fast = true;
    else if (!strcmp(a, "--keep-runs"))
        p->keep_runs = true;
    else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
        p->quiet = true;
    else if (!strcmp(a, "--program-changed"))
        p->program_changed_ok = true;
    else
        return false;
    return true;
}

/* Options whose value is kept as given. */
static const struct {
    const char *short_name, *name;
    size_t offset; /* of the char * member of struct scal_run_plan */
} text_options[] = {
    {NULL, "--governor", offsetof(struct scal_run_plan, governor)},
    {NULL, "--affinity", offsetof(struct scal_run_plan, affinity)},
    {NULL, "--cores", offsetof(struct scal_run_plan, cores)},
    {"-s", "--sensors", offsetof(struct scal_run_plan, sensors)},
    {"-o", "--output", offsetof(struct scal_run_plan, output)},
    {NULL, "--tool", offsetof(struct scal_run_plan, tool)},
    {NULL, "--sysfs-root", offsetof(struct scal_run_plan, sysfs_root)},
    {NULL, "--resume", offsetof(struct scal_run_plan, resume)},
    {NULL, "--stdin", offsetof(struct scal_run_plan, stdin_path)},
    {NULL, "--launcher", offsetof(struct scal_run_plan, launcher)},
};

/* Every option of scal run by name, for "needs a value" against "unknown", and "did you mean". */
static const char *const option_names[] = {"-c",
                                           "--threads",
                                           "-r",
                                           "--repetitions",
                                           "-i",
                                           "--input",
                                           "--label",
                                           "--inputs-file",
                                           "-f",
                                           "--frequencies",
                                           "--idle",
                                           "--timeout",
                                           "--order",
                                           "--seed",
                                           "--ok-exit",
                                           "--plugin-opt",
                                           "--governor",
                                           "--affinity",
                                           "--cores",
                                           "-s",
                                           "--sensors",
                                           "-o",
                                           "--output",
                                           "--tool",
                                           "--sysfs-root",
                                           "--resume",
                                           "--stdin",
                                           "--dry-run",
                                           "--fail-fast",
                                           "--keep-runs",
                                           "-q",
                                           "--quiet",
                                           "--program-changed",
                                           "--help",
                                           "--size",
                                           "--ranks",
                                           "--launcher",
                                           NULL};

static bool known_option(const char *a)
{
    for (size_t k = 0; option_names[k]; k++)
        if (!strcmp(a, option_names[k])) return true;
    return false;
}

static int unknown_option(const char *a)
{
    const char *near = scal_suggest(a, option_names);
    if (near) return scal__fail(SCAL_EINVAL, "unknown option '%s'; did you mean '%s'?", a, near);
    return scal__fail(SCAL_EINVAL, "unknown option '%s'; see 'scal run --help'", a);
}

static char **text_option(struct scal_run_plan *p, const char *a)
{
    for (size_t k = 0; k < sizeof(text_options) / sizeof(text_options[0]); k++)
        if (!strcmp(a, text_options[k].name) ||
            (text_options[k].short_name && !strcmp(a, text_options[k].short_name)))
            return (char **)((char *)p + text_options[k].offset);
    return NULL;
}

static int add_plugin_opt(struct scal_run_plan *p, const char *v)
{
    const char *dot = strchr(v, '.'), *eq = strchr(v, '=');
    if (!dot || !eq || dot > eq || dot == v)
        return scal__fail(SCAL_EINVAL, "bad --plugin-opt '%s': use PLUGIN.OPTION=VALUE", v);
    char **o = realloc(p->plugin_opts, (p->nplugin_opts + 1) * sizeof(*o));
    if (!o) return SCAL_ENOMEM;
    p->plugin_opts = o;
    return (o[p->nplugin_opts++] = strdup(v)) ? SCAL_OK : SCAL_ENOMEM;
}

/* --cores: N (1 to 65536) or smt=off|on, checked here so that --dry-run refuses what a run would.
 */
static bool valid_cores(const char *v)
{
    char *end;
    if (!strcmp(v, "smt=off") || !strcmp(v, "smt=on")) return true;
    errno = 0;
    long n = strtol(v, &end, 10);
    return isdigit((unsigned char)*v) && !*end && !errno && n >= 1 && n <= 65536;
}

/* One option a with its value v; -c's list goes to threads (int64 until the plan's copy). */
static int parse_option(struct scal_run_plan *p, const char *a, const char *v, int64_t **threads,
                        size_t *nthreads)
{
    char *end = NULL, **text = text_option(p, a);
    if (text && !strcmp(a, "--cores") && !valid_cores(v))
        return scal__fail(SCAL_EINVAL,
                          "bad --cores '%s': N (CPUs 0..N-1 online, 1 to 65536), smt=off or smt=on",
                          v);
    if (text && !*v && strcmp(a, "--launcher"))
        return scal__fail(SCAL_EINVAL, "an empty %s names nothing", a);
    if (text) return dup_opt(text, v);
    if (!strcmp(a, "-c") || !strcmp(a, "--threads")) {
        free(*threads);
        if (scal_parse_int_list(v, 1, 1 << 16, threads, nthreads) < 0)
            return scal__fail(SCAL_EINVAL,
                              "bad thread list '%s': use counts like 1,2,4 or ranges 1-8, 1-16:2, "
                              "1-64*2 (1 to 65536 threads, at most %d counts)",
                              v, SCAL_PLAN_MAX_LIST);
    } else if (!strcmp(a, "--ranks")) {
        int64_t *ranks = NULL;
        size_t n = 0;
        if (scal_parse_int_list(v, 1, 1 << 20, &ranks, &n) < 0)
            return scal__fail(SCAL_EINVAL,
                              "bad rank list '%s': use counts like 1,2,4 or ranges 1-8, 1-64*2 "
                              "(at most %d counts)",
                              v, SCAL_PLAN_MAX_LIST);
        free(p->ranks);
        p->ranks = malloc(n * sizeof(*p->ranks));
        if (!p->ranks) {
            free(ranks);
            return SCAL_ENOMEM;
        }
        for (size_t k = 0; k < n; k++)
            p->ranks[k] = (int32_t)ranks[k];
        p->nranks = n;
        free(ranks);
    } else if (!strcmp(a, "--ok-exit")) {
        free(p->ok_exits);
        if (scal_parse_int_list(v, 0, 255, &p->ok_exits, &p->nok_exits) < 0)
            return scal__fail(SCAL_EINVAL, "bad --ok-exit '%s': exit statuses 0-255, e.g. 0,1", v);
    } else if (!strcmp(a, "-r") || !strcmp(a, "--repetitions")) {
        long r = strtol(v, &end, 10);
        if (*end || r < 1 || r > 100000)
            return scal__fail(SCAL_EINVAL, "bad repetition count '%s' (1 or more)", v);
        p->repetitions = (uint32_t)r;
    } else if (!strcmp(a, "-i") || !strcmp(a, "--input")) {
        return add_input(p, NULL, v);
    } else if (!strcmp(a, "--label")) {
        if (!p->ninputs)
            return scal__fail(SCAL_EINVAL, "--label '%s' must follow the -i it names", v);
        if (!*v) return scal__fail(SCAL_EINVAL, "an empty --label names nothing");
        return dup_opt(&p->inputs[p->ninputs - 1].label, v);
    } else if (!strcmp(a, "--size")) {
        double d = strtod(v, &end);
        if (!p->ninputs)
            return scal__fail(SCAL_EINVAL, "--size '%s' must follow the -i it sizes", v);
        if (end == v || *end || !isfinite(d) || d <= 0)
            return scal__fail(SCAL_EINVAL,
                              "bad --size '%s': the input's size as a number greater than 0", v);
        p->inputs[p->ninputs - 1].size = d;
        return SCAL_OK;
    } else if (!strcmp(a, "--inputs-file")) {
        return read_inputs_file(p, v);
    } else if (!strcmp(a, "-f") || !strcmp(a, "--frequencies")) {
        free(p->freqs_khz);
        if (parse_freqs(v, &p->freqs_khz, &p->nfreqs) < 0)
            return scal__fail(SCAL_EINVAL,
                              "bad frequency list '%s': kHz or with a unit, e.g. "
                              "1200000,2.4GHz,1800MHz",
                              v);
    } else if (!strcmp(a, "--plugin-opt")) {
        return add_plugin_opt(p, v);
    } else if (!strcmp(a, "--idle") || !strcmp(a, "--timeout")) {
        double d = strtod(v, &end);
        if (end == v || *end || !isfinite(d) || d < 0 || d > SCAL_PLAN_MAX_SECONDS)
            return scal__fail(SCAL_EINVAL, "bad %s '%s': seconds, from 0 to %.0f", a, v,
                              SCAL_PLAN_MAX_SECONDS);
        *(!strcmp(a, "--idle") ? &p->idle_s : &p->timeout_s) = d;
    } else if (!strcmp(a, "--order")) {
        if (strcmp(v, "given") && strcmp(v, "shuffled"))
            return scal__fail(SCAL_EINVAL, "bad --order '%s': 'given' or 'shuffled'", v);
        p->shuffled = !strcmp(v, "shuffled");
    } else if (!strcmp(a, "--seed")) {
        errno = 0;
        p->seed = strtoull(v, &end, 10);
        if (*end || !isdigit((unsigned char)*v) || errno == ERANGE)
            return scal__fail(SCAL_EINVAL, "bad --seed '%s': an integer from 0 to %llu", v,
                              (unsigned long long)UINT64_MAX);
    } else {
        return unknown_option(a);
    }
    return SCAL_OK;
}

static bool takes_input(const char *a)
{
    return !strcmp(a, "-i") || !strcmp(a, "--input") || !strcmp(a, "--label") ||
           !strcmp(a, "--size") || !strcmp(a, "--inputs-file");
}

static int push_arg(struct scal_run_plan *p, size_t *cap, const char *a)
{
    if (p->nstored_argv + 1 >= *cap) {
        size_t n = *cap ? *cap * 2 : 32;
        char **v = realloc(p->stored_argv, n * sizeof(*v));
        if (!v) return SCAL_ENOMEM;
        p->stored_argv = v;
        *cap = n;
    }
    if (!(p->stored_argv[p->nstored_argv] = strdup(a))) return SCAL_ENOMEM;
    p->stored_argv[++p->nstored_argv] = NULL;
    return SCAL_OK;
}

/* The arguments --resume rebuilds exactly this plan from: the options as given, but the inputs as
 * -i VALUE --label LABEL (an inputs file may change) and the thread list written out (the default
 * depends on the machine's CPU count). */
static int build_stored_argv(struct scal_run_plan *p, bool threads_given)
{
    size_t cap = 0;
    int rc = SCAL_OK;
    for (size_t i = 0; rc == SCAL_OK && i < p->nargv_given; i++) {
        const char *a = p->argv_given[i];
        if (!strcmp(a, "--")) break;
        bool flag = is_flag(a);
        if (!flag && takes_input(a)) {
            i++;
            continue;
        }
        rc = push_arg(p, &cap, a);
        if (rc == SCAL_OK && !flag && i + 1 < p->nargv_given)
            rc = push_arg(p, &cap, p->argv_given[++i]);
    }
    if (rc == SCAL_OK && !threads_given) {
        char list[SCAL_PLAN_MAX_LIST * 8] = "";
        size_t used = 0;
        for (size_t k = 0; k < p->nthreads && used < sizeof(list); k++)
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d", k ? "," : "",
                                     p->threads[k]);
        rc = push_arg(p, &cap, "-c");
        if (rc == SCAL_OK) rc = push_arg(p, &cap, list);
    }
    for (size_t k = 0; rc == SCAL_OK && k < p->ninputs; k++) {
        if (p->ninputs == 1 && !p->inputs[0].value[0] && !p->inputs[0].label[0]) break;
        rc = push_arg(p, &cap, "-i");
        if (rc == SCAL_OK) rc = push_arg(p, &cap, p->inputs[k].value);
        if (rc == SCAL_OK) rc = push_arg(p, &cap, "--label");
        if (rc == SCAL_OK) rc = push_arg(p, &cap, p->inputs[k].label);
        if (rc == SCAL_OK && isfinite(p->inputs[k].size)) {
            char size[32];
            snprintf(size, sizeof(size), "%.17g", p->inputs[k].size);
            rc = push_arg(p, &cap, "--size");
            if (rc == SCAL_OK) rc = push_arg(p, &cap, size);
        }
    }
    if (rc == SCAL_OK) rc = push_arg(p, &cap, "--");
    for (size_t k = 0; rc == SCAL_OK && k < p->nprogram; k++)
        rc = push_arg(p, &cap, p->program[k]);
    return rc;
}

static int cmp_label(const void *a, const void *b)
{
    const struct scal_run_input *x = *(const struct scal_run_input *const *)a,
                                *y = *(const struct scal_run_input *const *)b;
    int c = strcmp(x->label, y->label);
    return c ? c : (x > y) - (x < y);
}

/* Labels name inputs in the campaign file and the report: two inputs with one label would be
 * mixed up. Sorted, so that 10^6 inputs are checked at once. */
static int unique_labels(const struct scal_run_plan *p)
{
    const struct scal_run_input **by = malloc((p->ninputs + 1) * sizeof(*by));
    if (!by) return SCAL_ENOMEM;
    for (size_t i = 0; i < p->ninputs; i++)
        by[i] = &p->inputs[i];
    qsort(by, p->ninputs, sizeof(*by), cmp_label);
    int rc = SCAL_OK;
    for (size_t i = 1; i < p->ninputs && rc == SCAL_OK; i++)
        if (!strcmp(by[i]->label, by[i - 1]->label))
            rc = scal__fail(SCAL_EINVAL,
                            "two inputs have the label '%s' (inputs %zu and %zu): give each "
                            "a different --label",
                            by[i]->label, (size_t)(by[i - 1] - p->inputs) + 1,
                            (size_t)(by[i] - p->inputs) + 1);
    free(by);
    return rc;
}

/* Once every option is read: the program is given, and threads, inputs and frequencies have their
 * defaults; then the matrix and its order. */
static int complete_plan(struct scal_run_plan *p, int64_t **threads, size_t *nthreads)
{
    int rc = SCAL_OK;
    if (!p->nprogram && !p->resume)
        return scal__fail(SCAL_EINVAL, "no program given: scal run [OPTIONS] -- PROGRAM [ARGS...]");
    bool threads_given = *nthreads != 0;
    if (!*nthreads && (rc = default_threads(threads, nthreads)) < 0) return rc;
    if (!(p->threads = malloc(*nthreads * sizeof(*p->threads)))) return SCAL_ENOMEM;
    for (size_t k = 0; k < *nthreads; k++)
        p->threads[k] = (int32_t)(*threads)[k];
    p->nthreads = *nthreads;
    if (p->nprogram && uses_placeholder(p, "{input}") && !p->ninputs)
        return scal__fail(SCAL_EINVAL, "the program's arguments use {input} but no input is given "
                                       "(-i VALUE or --inputs-file FILE)");
    if (!p->ninputs && (rc = add_input(p, "", "")) < 0) return rc;
    if ((rc = unique_labels(p)) < 0) return rc;
    if (!p->nfreqs) {
        if (!(p->freqs_khz = malloc(sizeof(*p->freqs_khz)))) return SCAL_ENOMEM;
        p->freqs_khz[0] = -1;
        p->nfreqs = 1;
    }
    if (p->launcher && !p->nranks)
        return scal__fail(SCAL_EINVAL, "--launcher needs --ranks (the rank counts to launch)");
    if (!p->nranks) { /* not launched as MPI: one "rank count" 0 */
        if (!(p->ranks = calloc(1, sizeof(*p->ranks)))) return SCAL_ENOMEM;
        p->nranks = 1;
    }
    if (!p->nok_exits) {
        if (!(p->ok_exits = calloc(1, sizeof(*p->ok_exits)))) return SCAL_ENOMEM;
        p->nok_exits = 1;
    }
    if (p->stdin_path && access(p->stdin_path, R_OK) != 0)
        return scal__fail(SCAL_EINVAL, "cannot read --stdin '%s': %s", p->stdin_path,
                          strerror(errno));
    p->nconfigs = p->nranks * p->nthreads * p->ninputs * p->nfreqs;
    if (p->nconfigs > SCAL_PLAN_MAX_SLOTS || p->nconfigs * p->repetitions > SCAL_PLAN_MAX_SLOTS)
        return scal__fail(SCAL_EINVAL, "the campaign would have %zu runs: at most %d",
                          p->nconfigs * p->repetitions, SCAL_PLAN_MAX_SLOTS);
    if (!p->resume && (rc = build_stored_argv(p, threads_given)) < 0) return rc;
    return scal_run_plan_order(p);
}

int scal_run_plan_parse(struct scal_run_plan *p, int argc, char **argv)
{
    int rc = SCAL_OK, i;
    int64_t *threads = NULL;
    size_t nthreads = 0;
    memset(p, 0, sizeof(*p));
    p->repetitions = 1;
    p->seed = 1;
    for (i = 1; i < argc && rc == SCAL_OK; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-') break; /* the program */
        if (parse_flag(p, a)) continue;
        if (i + 1 >= argc)
            rc = known_option(a) ? scal__fail(SCAL_EINVAL,
                                              "option '%s' needs a value; see 'scal run --help'", a)
                                 : unknown_option(a);
        else
            rc = parse_option(p, a, argv[++i], &threads, &nthreads);
    }
    for (int k = 1; rc == SCAL_OK && p->resume && k < i; k++) {
        const char *a = argv[k];
        if (!strcmp(a, "--resume"))
            k++;
        else if (strcmp(a, "-q") && strcmp(a, "--quiet") && strcmp(a, "--dry-run") &&
                 strcmp(a, "--program-changed") && strcmp(a, "--"))
            rc = scal__fail(SCAL_EINVAL,
                            "'%s' cannot be given with --resume: it runs the plan stored in the "
                            "campaign file (only -q, --dry-run and --program-changed may be added)",
                            a);
    }
    if (rc == SCAL_OK && p->program_changed_ok && !p->resume)
        rc = scal__fail(SCAL_EINVAL, "--program-changed goes only with --resume");
    if (rc == SCAL_OK && p->resume && i < argc)
        rc = scal__fail(SCAL_EINVAL, "--resume runs the stored program: give no program ('%s')",
                        argv[i]);
    if (rc == SCAL_OK) {
        p->argv_given = argv + 1;
        p->nargv_given = (size_t)(i - 1);
        p->program = argv + i;
        p->nprogram = (size_t)(argc - i);
        rc = complete_plan(p, &threads, &nthreads);
    }
    free(threads);
    return rc;
}

/* splitmix64: a small, well-known generator; the same seed gives the same order everywhere. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

int scal_run_plan_order(struct scal_run_plan *p)
{
    p->nslots = p->nconfigs * p->repetitions;
    free(p->order);
    p->order = malloc((p->nslots ? p->nslots : 1) * sizeof(*p->order));
    if (!p->order) return SCAL_ENOMEM;
    /* as given: repetition by repetition over the whole matrix, so that slow drift of the machine
     * spreads over all configurations instead of hitting one */
    size_t k = 0;
    for (uint32_t r = 0; r < p->repetitions; r++)
        for (size_t c = 0; c < p->nconfigs; c++)
            p->order[k++] = (uint32_t)(c * p->repetitions + r);
    if (p->shuffled) {
        uint64_t s = p->seed;
        for (size_t i = p->nslots; i > 1; i--) { /* Fisher-Yates */
            size_t j = (size_t)(next_random(&s) % i);
            uint32_t t = p->order[i - 1];
            p->order[i - 1] = p->order[j];
            p->order[j] = t;
        }
    }
    return SCAL_OK;
}

void scal_run_plan_free(struct scal_run_plan *p)
{
    for (size_t i = 0; i < p->ninputs; i++)
        free(p->inputs[i].label), free(p->inputs[i].value);
    for (size_t i = 0; i < p->nplugin_opts; i++)
        free(p->plugin_opts[i]);
    free(p->plugin_opts);
    free(p->inputs), free(p->threads), free(p->freqs_khz), free(p->order), free(p->ranks);
    free(p->launcher);
    free(p->governor), free(p->affinity), free(p->cores), free(p->sensors), free(p->output);
    free(p->tool), free(p->sysfs_root), free(p->resume), free(p->stdin_path), free(p->ok_exits);
    for (size_t i = 0; i < p->nstored_argv; i++)
        free(p->stored_argv[i]);
    free(p->stored_argv);
    memset(p, 0, sizeof(*p));
}
