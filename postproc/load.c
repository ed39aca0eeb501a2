// SPDX-License-Identifier: BSD-3-Clause
// Campaign files (several, merged on the fly) and single run files as one sample list: the report's
// view of what the one reader (common/campaign_reader.h) read.
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_reader.h"
#include "errmsg.h"
#include "layout.h"
#include "region_identity.h"
#include "report.h"
#include "scal/status.h"

int pp_campaign_note(struct pp_campaign *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < c->nnotes; i++)
        if (!strcmp(c->notes[i], buf)) return 0;
    char **n = realloc(c->notes, (c->nnotes + 1) * sizeof(*n));
    if (!n) return SCAL_ENOMEM;
    c->notes = n;
    if (!(n[c->nnotes] = strdup(buf))) return SCAL_ENOMEM;
    c->nnotes++;
    return 0;
}

void pp_campaign_free(struct pp_campaign *c)
{
    for (size_t i = 0; i < c->ninputs; i++)
        free(c->inputs[i]);
    for (size_t i = 0; i < c->nregions; i++) {
        free(c->regions[i].key);
        free(c->regions[i].label);
        free(c->regions[i].slug);
    }
    for (size_t i = 0; i < c->nmetrics; i++) {
        free(c->metrics[i]);
        free(c->metric_units[i]);
    }
    for (size_t i = 0; i < c->nnotes; i++)
        free(c->notes[i]);
    free(c->inputs);
    free(c->threads);
    free(c->freqs);
    free(c->regions);
    free(c->metrics);
    free(c->metric_units);
    free(c->samples);
    free(c->notes);
    memset(c, 0, sizeof(*c));
}

static int add_input(struct pp_campaign *c, const char *label, uint32_t *idx)
{
    for (size_t i = 0; i < c->ninputs; i++)
        if (!strcmp(c->inputs[i], label)) {
            *idx = (uint32_t)i;
            return 0;
        }
    char **n = realloc(c->inputs, (c->ninputs + 1) * sizeof(*n));
    if (!n) return SCAL_ENOMEM;
    c->inputs = n;
    if (!(n[c->ninputs] = strdup(label))) return SCAL_ENOMEM;
    *idx = (uint32_t)c->ninputs++;
    return 0;
}

static int add_thread(struct pp_campaign *c, int32_t t)
{
    size_t i = 0;
    while (i < c->nthreads && c->threads[i] < t)
        i++;
    if (i < c->nthreads && c->threads[i] == t) return 0;
    int32_t *n = realloc(c->threads, (c->nthreads + 1) * sizeof(*n));
    if (!n) return SCAL_ENOMEM;
    c->threads = n;
    memmove(n + i + 1, n + i, (c->nthreads - i) * sizeof(*n));
    n[i] = t;
    c->nthreads++;
    return 0;
}

static int add_freq(struct pp_campaign *c, int64_t f)
{
    size_t i = 0;
    while (i < c->nfreqs && c->freqs[i] < f)
        i++;
    if (i < c->nfreqs && c->freqs[i] == f) return 0;
    int64_t *n = realloc(c->freqs, (c->nfreqs + 1) * sizeof(*n));
    if (!n) return SCAL_ENOMEM;
    c->freqs = n;
    memmove(n + i + 1, n + i, (c->nfreqs - i) * sizeof(*n));
    n[i] = f;
    c->nfreqs++;
    return 0;
}

static int add_metric(struct pp_campaign *c, const char *name, const char *unit, int32_t *idx)
{
    for (size_t i = 0; i < c->nmetrics; i++)
        if (!strcmp(c->metrics[i], name)) {
            *idx = (int32_t)i;
            return 0;
        }
    char **n = realloc(c->metrics, (c->nmetrics + 1) * sizeof(*n));
    if (!n) return SCAL_ENOMEM;
    c->metrics = n;
    char **u = realloc(c->metric_units, (c->nmetrics + 1) * sizeof(*u));
    if (!u) return SCAL_ENOMEM;
    c->metric_units = u;
    n[c->nmetrics] = strdup(name);
    u[c->nmetrics] = strdup(unit ? unit : "");
    if (!n[c->nmetrics] || !u[c->nmetrics]) return SCAL_ENOMEM;
    *idx = (int32_t)c->nmetrics++;
    return 0;
}

static void make_slug(char *out, size_t len, size_t id, const char *label)
{
    int n = snprintf(out, len, "r%03zu-", id);
    size_t j = n > 0 ? (size_t)n : 0;
    for (const char *p = label; *p && j + 1 < len && j < 60; p++) {
        unsigned char ch = (unsigned char)*p;
        out[j++] = (isalnum(ch) || ch == '.' || ch == '-' || ch == '_') ? (char)ch : '_';
    }
    out[j] = '\0';
}

/* The C++ runtime's demangler (libstdc++'s ABI, linked in); NULL when a name is not mangled. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The label with every Itanium-mangled name ("_Z...") replaced by its demangled form, so that C++
 * regions read "foo::bar(int)" instead of "_ZN3foo3barEi"; malloc'ed. */
static char *demangled_label(const char *label)
{
    size_t cap = strlen(label) + 1, n = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    for (const char *p = label; *p;) {
        bool start = p[0] == '_' && p[1] == 'Z' && (p == label || !isalnum((unsigned char)p[-1]));
        size_t len = 0;
        while (start && p[len] &&
               (isalnum((unsigned char)p[len]) || p[len] == '_' || p[len] == '.' || p[len] == '$'))
            len++;
        char *dm = NULL;
        if (start && len > 2) {
            char *tok = strndup(p, len);
            int st = -1;
            dm = tok ? __cxa_demangle(tok, NULL, NULL, &st) : NULL;
            free(tok);
            if (st != 0) free(dm), dm = NULL;
        }
        const char *piece = dm ? dm : p;
        size_t plen = dm ? strlen(dm) : start && len ? len : 1;
        if (n + plen + 1 > cap) {
            cap = (n + plen + 1) * 2;
            char *g = realloc(out, cap);
            if (!g) {
                free(dm);
                free(out);
                return NULL;
            }
            out = g;
        }
        memcpy(out + n, piece, plen);
        n += plen;
        p += start && len ? len : 1;
        free(dm);
    }
    out[n] = '\0';
    return out;
}

static int add_region(struct pp_campaign *c, const char *key, const char *label, int32_t parent,
                      int kind, uint32_t *idx)
{
    for (size_t i = 0; i < c->nregions; i++)
        if (!strcmp(c->regions[i].key, key)) {
            *idx = (uint32_t)i;
            return 0;
        }
    struct pp_region *n = realloc(c->regions, (c->nregions + 1) * sizeof(*n));
    if (!n) return SCAL_ENOMEM;
    c->regions = n;
    struct pp_region *r = &n[c->nregions];
    char slug[96];
    r->key = strdup(key);
    r->label = demangled_label(label);
    make_slug(slug, sizeof(slug), c->nregions, r->label ? r->label : label);
    r->slug = strdup(slug);
    r->parent = parent;
    r->depth = parent < 0 ? 0 : c->regions[parent].depth + 1;
    r->kind = kind;
    if (!r->key || !r->label || !r->slug) return SCAL_ENOMEM;
    *idx = (uint32_t)c->nregions++;
    return 0;
}

static int add_sample(struct pp_campaign *c, uint32_t region, uint32_t cell, int32_t metric,
                      int32_t team, double value)
{
    if (c->nsamples == c->capsamples) {
        size_t cap = c->capsamples ? c->capsamples * 2 : 4096;
        struct pp_sample *n = realloc(c->samples, cap * sizeof(*n));
        if (!n) return SCAL_ENOMEM;
        c->samples = n;
        c->capsamples = cap;
    }
    c->samples[c->nsamples++] = (struct pp_sample){region, cell, metric, team, value};
    return 0;
}

/* Per-file region rows (the reader's) mapped to merged ids. */
struct file_regions {
    const struct scal_region_id_row *rows;
    char *const *labels; /* the one label rule, applied by the reader */
    size_t n;
    int64_t *merged;
};

/* Maps a file's regions to the campaign's by the one identity rule, naming new ones by their
 * labels (common/region_identity.h). */
static int map_regions(struct pp_campaign *c, struct file_regions *fr, char **strings,
                       size_t nstrings, const char *path)
{
    char **ids = NULL;
    char *const *labels = fr->labels;
    int rc;
    fr->merged = malloc((fr->n ? fr->n : 1) * sizeof(*fr->merged));
    if (!fr->merged) return scal__fail(SCAL_ENOMEM, "%s: out of memory for regions", path);
    if ((rc = scal_region_identities(fr->rows, fr->n, strings, nstrings, &ids)) < 0) {
        rc = scal__fail(rc, "%s: %s", path, scal__last_error(rc));
        goto done;
    }
    for (size_t i = 0; i < fr->n && rc == SCAL_OK; i++) {
        const struct scal_region_id_row *r = &fr->rows[i];
        int32_t parent = r->parent >= 0 ? (int32_t)fr->merged[r->parent] : -1;
        uint32_t idx = 0;
        rc = add_region(c, ids[i], labels[i], parent, r->kind, &idx);
        fr->merged[i] = idx;
    }
done:
    scal_region_identities_free(ids, fr->n);
    return rc;
}

/* A region's time in the report: its wall-clock time (never above its parent's), or the summed
 * time for files from before time_wall_s (or whose writer left it unset). */
static double region_time(double total_s, double wall_s)
{
    return isfinite(wall_s) && wall_s > 0 ? wall_s : total_s;
}

static bool valid_time(double t)
{
    return isfinite(t) && t > 0;
}

/* Cells are numbered after every file is read (inputs/threads/freqs are only known then), so
 * samples carry (input, thread value, freq) packed temporarily; see finish_cells. */
struct pending {
    uint32_t input;
    int32_t threads;
    int64_t freq;
};

struct loadctx {
    struct pending *pend; /* one per sample, parallel to c->samples */
    size_t cap;
    size_t bad_time, gaps;
    bool ranks_threads;     /* --axes ranks,threads: ranks in place of the inputs */
    const char *axes_input; /* ... for this input (NULL: the campaign's only one) */
};

static int add_pending(struct pp_campaign *c, struct loadctx *lc, uint32_t region, struct pending p,
                       int32_t metric, int32_t team, double v)
{
    if (c->nsamples >= lc->cap) {
        size_t cap = lc->cap ? lc->cap * 2 : 4096;
        struct pending *n = realloc(lc->pend, cap * sizeof(*n));
        if (!n) return SCAL_ENOMEM;
        lc->pend = n;
        lc->cap = cap;
    }
    lc->pend[c->nsamples] = p;
    return add_sample(c, region, 0, metric, team, v);
}

static int load_run_file(struct pp_campaign *c, struct loadctx *lc, const struct scal_read *r)
{
    const struct scal_h5file *f = &r->f;
    struct file_regions fr = {r->regions, r->labels, r->nregions, NULL};
    size_t n = r->nregions;
    int rc = SCAL_OK;
    if (n == 0) return scal__fail(SCAL_EEMPTY, "%s: run file has no regions", f->path);
    /* the reader's thread count of a run file (the one rule, scal_format_run_threads) */
    int32_t threads = r->runs[0].threads, obs = r->runs[0].team;
    if (threads <= 0) threads = 1; /* a file that names no team size: one thread */
    if ((rc = map_regions(c, &fr, f->strings, f->nstrings, f->path)) < 0) goto out;
    uint32_t input;
    if ((rc = add_input(c, "run", &input)) < 0) goto out;
    if ((rc = add_thread(c, threads)) < 0) goto out;
    if ((rc = add_freq(c, -1)) < 0) goto out;
    c->single_run = true;
    c->nruns++;
    for (size_t i = 0; i < n; i++) {
        double time = region_time(r->slim[i].time_total_s, r->slim[i].time_wall_s);
        if (!valid_time(time)) {
            lc->bad_time++;
            continue;
        }
        rc = add_pending(c, lc, (uint32_t)fr.merged[i], (struct pending){input, threads, -1}, -1,
                         obs > 0 ? obs : threads, time);
        if (rc < 0) goto out;
    }
    rc = SCAL_OK;
out:
    free(fr.merged);
    return rc;
}

/* Wait times of a /region_stats row, in core-seconds (summed over the team), as the "stat:" metrics
 * of the lost-time breakdown. Imbalance is the idle time the uneven work leaves: (max - mean work)
 * x threads; it is spent waiting at the barrier, so "barrier" is the barrier wait beyond it. */
static const char *const wait_metrics[] = {"stat:imbalance", "stat:barrier", "stat:lock"};

static void wait_values(const struct scal_stat_slim *st, double v[3])
{
    double imb = (st->thread_work_max_s - st->thread_work_mean_s) * st->threads;
    v[0] = isfinite(imb) && imb > 0 ? imb : 0;
    v[1] = isfinite(st->barrier_total_s) ? fmax(0, st->barrier_total_s - v[0]) : 0;
    v[2] = isfinite(st->lock_total_s) && st->lock_total_s > 0 ? st->lock_total_s : 0;
}

/* One campaign file's tables (the reader's; configurations and runs are adjusted in place for
 * the axes of MPI campaigns) while it is being loaded. */
struct campaign_tables {
    struct scal_read *r;
    const struct scal_h5file *f;
    struct scal_config_row *cfg;
    size_t ncfg;
    struct scal_run_row *runs;
    size_t nruns;
    const struct scal_stat_slim *st; /* the members of /region_stats the report uses */
    size_t nst;
    const struct scal_run_sensor_value_row *sv;
    size_t nsv;
    struct file_regions fr;
    uint32_t *cfg_input; /* configuration -> input index of the model */
    char **axis_label;   /* --axes ranks,threads: configuration -> "R ranks" (else NULL) */
    bool *excluded;      /* --axes ranks,threads: configurations of the other inputs */
    int64_t *run_index;  /* run id -> row of a completed run, -1 otherwise */
    uint32_t maxrun;
};

static void free_campaign_tables(struct campaign_tables *t)
{
    for (size_t i = 0; t->axis_label && i < t->ncfg; i++)
        free(t->axis_label[i]);
    free(t->axis_label), free(t->excluded);
    free(t->run_index);
    free(t->cfg_input);
    free(t->fr.merged);
}

static int campaign_tables(struct pp_campaign *c, struct campaign_tables *t, bool plan_inputs)
{
    struct scal_read *r = t->r;
    int rc = SCAL_OK;
    t->cfg = r->configs, t->ncfg = r->nconfigs;
    t->runs = r->run_rows, t->nruns = r->nrun_rows;
    t->fr = (struct file_regions){r->regions, r->labels, r->nregions, NULL};
    t->st = r->slim, t->nst = r->nstats;
    t->sv = r->sensor_values, t->nsv = r->nsensor_values;
    /* the plan's order for the labels the configurations use (a campaign without -i lists one
     * unnamed input there: no row of its own) */
    for (size_t i = 0; plan_inputs && i < r->ninputs && rc == SCAL_OK; i++) {
        uint32_t idx;
        bool used = false; /* "" (no -i): map_configs names it i<N> */
        for (size_t k = 0; k < t->ncfg && !used && *r->inputs[i]; k++)
            used = !strcmp(scal_h5file_str(t->f, t->cfg[k].input_label), r->inputs[i]);
        if (used) rc = add_input(c, r->inputs[i], &idx);
    }
    if (rc < 0) return rc;
    if (t->ncfg == 0 || t->nruns == 0)
        return scal__fail(SCAL_EEMPTY, "%s: empty campaign (%zu configurations, %zu runs)",
                          t->f->path, t->ncfg, t->nruns);
    if (t->fr.n == 0)
        return scal__fail(SCAL_EFORMAT, "%s: campaign has no /regions rows", t->f->path);
    return SCAL_OK;
}

/* Each configuration's input in the model; duplicate configurations are noted. */
static int map_configs(struct pp_campaign *c, struct campaign_tables *t)
{
    const struct scal_config_row *cfg = t->cfg;
    const char *path = t->f->path;
    if (!(t->cfg_input = calloc(t->ncfg, sizeof(*t->cfg_input))))
        return scal__fail(SCAL_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < t->ncfg; i++) {
        const char *label =
            t->axis_label ? t->axis_label[i] : scal_h5file_str(t->f, cfg[i].input_label);
        char tmp[32];
        if (t->excluded && t->excluded[i]) continue;
        if (!*label) {
            snprintf(tmp, sizeof(tmp), "i%u", cfg[i].input + 1);
            label = tmp;
        }
        int rc = add_input(c, label, &t->cfg_input[i]);
        if (rc < 0) return rc;
        if (cfg[i].threads <= 0)
            return scal__fail(SCAL_EFORMAT, "%s: /configs row %zu has %d threads", path, i,
                              cfg[i].threads);
        for (size_t j = 0; j < i; j++)
            if (!(t->excluded && t->excluded[j]) && cfg[j].threads == cfg[i].threads &&
                t->cfg_input[j] == t->cfg_input[i] &&
                cfg[j].frequency_khz == cfg[i].frequency_khz) {
                pp_campaign_note(c,
                                 "%s: duplicate configurations %u and %u (input %s, %d threads): "
                                 "their runs are pooled as repetitions of one cell",
                                 path, cfg[j].id, cfg[i].id, label, cfg[i].threads);
                break;
            }
    }
    return SCAL_OK;
}

/* run id -> row index of the completed runs, whose thread counts and frequencies join the model. */
static int index_runs(struct pp_campaign *c, struct campaign_tables *t)
{
    const char *path = t->f->path;
    for (size_t i = 0; i < t->nruns; i++)
        if (t->runs[i].id > t->maxrun) t->maxrun = t->runs[i].id;
    if (t->maxrun > 100000000u)
        return scal__fail(SCAL_EFORMAT, "%s: /runs id %u out of range", path, t->maxrun);
    if (!(t->run_index = malloc(((size_t)t->maxrun + 1) * sizeof(*t->run_index))))
        return scal__fail(SCAL_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i <= t->maxrun; i++)
        t->run_index[i] = -1;
    size_t ok = 0, other_input = 0;
    for (size_t i = 0; i < t->nruns; i++) {
        const struct scal_run_row *r = &t->runs[i];
        if (r->config >= t->ncfg)
            return scal__fail(SCAL_EFORMAT, "%s: /runs row %zu refers to configuration %u of %zu",
                              path, i, r->config, t->ncfg);
        if (t->excluded && t->excluded[r->config]) { /* --axes ranks,threads:INPUT */
            other_input++;
            continue;
        }
        if (t->run_index[r->id] >= 0)
            pp_campaign_note(c, "%s: run id %u appears twice in /runs; the later row is used", path,
                             r->id);
        if (r->status != SCAL_RUN_OK) continue;
        t->run_index[r->id] = (int64_t)i;
        ok++;
        int rc = add_thread(c, t->cfg[r->config].threads);
        if (rc == SCAL_OK) rc = add_freq(c, t->cfg[r->config].frequency_khz);
        if (rc < 0) return rc;
    }
    if (ok == 0) return scal__fail(SCAL_EEMPTY, "%s: no completed run among %zu", path, t->nruns);
    c->nruns += ok;
    /* The report uses the successful runs only and says what it left out. */
    static const char *const why[] = {"ok",        "failed",          "killed by a signal",
                                      "timed out", "could not start", "wrote no data"};
    size_t by[7] = {0};
    for (size_t i = 0; i < t->nruns; i++)
        if (!(t->excluded && t->runs[i].config < t->ncfg && t->excluded[t->runs[i].config]))
            by[t->runs[i].status < 6 ? t->runs[i].status : 6]++;
    if (ok + other_input < t->nruns) {
        char buf[400];
        int n = snprintf(buf, sizeof(buf),
                         "%s: %zu of %zu runs left out (only successful runs are "
                         "used):",
                         path, t->nruns - other_input - ok, t->nruns - other_input);
        for (int k = 1; k < 7 && n > 0 && (size_t)n < sizeof(buf); k++)
            if (by[k])
                n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %zu %s", by[k],
                              k < 6 ? why[k] : "with an unknown status");
        pp_campaign_note(c, "%s", buf);
    }
    return SCAL_OK;
}

/* The completed run of a row's run id, or NULL. */
static const struct scal_run_row *completed_run(const struct campaign_tables *t, uint32_t run)
{
    return run <= t->maxrun && t->run_index[run] >= 0 ? &t->runs[t->run_index[run]] : NULL;
}

static struct pending pending_of(const struct campaign_tables *t, const struct scal_run_row *r)
{
    const struct scal_config_row *cf = &t->cfg[r->config];
    return (struct pending){t->cfg_input[r->config], cf->threads, cf->frequency_khz};
}

static int add_time_samples(struct pp_campaign *c, struct loadctx *lc,
                            const struct campaign_tables *t)
{
    size_t bad_ref = 0;
    for (size_t i = 0; i < t->nst; i++) {
        const struct scal_stat_slim *st = &t->st[i];
        const struct scal_run_row *r = completed_run(t, st->run);
        if (!r || st->region >= t->fr.n) {
            bad_ref += st->run > t->maxrun || st->region >= t->fr.n;
            continue;
        }
        double time = region_time(st->time_total_s, st->time_wall_s);
        if (!valid_time(time)) {
            lc->bad_time++;
            continue;
        }
        int32_t team = r->team_observed > 0 ? r->team_observed : t->cfg[r->config].threads;
        int rc = add_pending(c, lc, (uint32_t)t->fr.merged[st->region], pending_of(t, r), -1, team,
                             time);
        if (rc < 0) return rc;
        double w[3];
        wait_values(st, w);
        if (w[0] == 0 && w[1] == 0 && w[2] == 0) continue; /* no wait recorded: no samples */
        for (int k = 0; k < 3; k++) {
            int32_t m;
            if ((rc = add_metric(c, wait_metrics[k], "core*s", &m)) < 0 ||
                (rc = add_pending(c, lc, (uint32_t)t->fr.merged[st->region], pending_of(t, r), m,
                                  team, w[k])) < 0)
                return rc;
        }
    }
    if (bad_ref)
        pp_campaign_note(c, "%s: %zu /region_stats rows refer to unknown runs or regions (ignored)",
                         t->f->path, bad_ref);
    return SCAL_OK;
}

/* Whole-process sensor values (energy...) as samples of their metric. */
static int add_sensor_samples(struct pp_campaign *c, struct loadctx *lc,
                              const struct campaign_tables *t)
{
    for (size_t i = 0; i < t->nsv; i++) {
        const struct scal_run_sensor_value_row *sv = &t->sv[i];
        const struct scal_run_row *r = completed_run(t, sv->run);
        if (!r || sv->thread >= 0) continue;
        if (sv->region >= 0 && (size_t)sv->region >= t->fr.n) continue;
        if (!isfinite(sv->value)) continue;
        int32_t m;
        int rc =
            add_metric(c, scal_h5file_str(t->f, sv->metric), scal_h5file_str(t->f, sv->unit), &m);
        if (rc < 0) return rc;
        uint32_t reg = (uint32_t)t->fr.merged[sv->region >= 0 ? (size_t)sv->region : 0];
        if ((rc = add_pending(c, lc, reg, pending_of(t, r), m, 0, sv->value)) < 0) return rc;
    }
    return SCAL_OK;
}

/* The worst rank imbalance of a region over the successful runs of an MPI campaign. */
struct rank_worst {
    double imbalance;
    uint32_t config;
    bool seen;
};

static int32_t ranks_of_config(const struct scal_config_rank_row *cr, size_t n, uint32_t config)
{
    for (size_t i = 0; i < n; i++)
        if (cr[i].config == config) return cr[i].ranks;
    return 0;
}

/* --axes ranks,threads[:INPUT]: threads across as they are, the ranks in place of the inputs ("R
 * ranks"), the runs of one input only (INPUT, or the campaign's only input). */
static int ranks_threads_axes(struct pp_campaign *c, struct campaign_tables *t,
                              const struct scal_config_rank_row *cr, size_t ncr, const char *input)
{
    const char *only = input;
    for (size_t i = 0; !only && i < t->ncfg; i++) {
        const char *label = scal_h5file_str(t->f, t->cfg[i].input_label);
        if (i && strcmp(label, scal_h5file_str(t->f, t->cfg[0].input_label)))
            return scal__fail(SCAL_EINVAL,
                              "%s: the campaign has several inputs: name one, e.g. --axes "
                              "ranks,threads:%s",
                              t->f->path, scal_h5file_str(t->f, t->cfg[0].input_label));
    }
    if (!only && t->ncfg) only = scal_h5file_str(t->f, t->cfg[0].input_label);
    t->axis_label = calloc(t->ncfg + 1, sizeof(*t->axis_label));
    t->excluded = calloc(t->ncfg + 1, sizeof(*t->excluded));
    if (!t->axis_label || !t->excluded) return scal__fail(SCAL_ENOMEM, "out of memory");
    size_t kept = 0;
    for (size_t i = 0; i < t->ncfg; i++) {
        int32_t ranks = ranks_of_config(cr, ncr, t->cfg[i].id);
        t->excluded[i] = strcmp(scal_h5file_str(t->f, t->cfg[i].input_label), only) != 0;
        kept += !t->excluded[i];
        if (asprintf(&t->axis_label[i], "%d ranks", (int)ranks) < 0) {
            t->axis_label[i] = NULL;
            return scal__fail(SCAL_ENOMEM, "out of memory");
        }
    }
    if (!kept)
        return scal__fail(SCAL_EINVAL, "%s: no configuration has the input '%s'", t->f->path, only);
    return pp_campaign_note(c,
                            "%s: MPI campaign drawn with threads across and ranks up (--axes "
                            "ranks,threads) for %s%s%s; times are the critical path's (per "
                            "region the slowest rank)",
                            t->f->path, *only ? "input '" : "its only input (unlabelled)", only,
                            *only ? "'" : "");
}

/* An MPI campaign (/config_ranks): the thread axis becomes cores = ranks x threads (and a run's
 * observed team the cores it used), so that speedup and efficiency are per core of the whole job;
 * and the rank imbalance of each region (/region_rank_summary: 1 - mean/max of the ranks' time)
 * is reported, worst first. Must run after map_regions and before map_configs. */
static int mpi_cores_view(struct pp_campaign *c, struct campaign_tables *t,
                          const struct loadctx *lc)
{
    const struct scal_config_rank_row *cr = t->r->config_ranks;
    const struct scal_region_rank_summary_row *sum = t->r->rank_summary;
    struct rank_worst *worst = NULL;
    size_t ncr = t->r->nconfig_ranks, nsum = t->r->nrank_summary;
    int rc = SCAL_OK;
    if (ncr == 0 && lc->ranks_threads)
        rc = scal__fail(SCAL_EINVAL,
                        "%s: --axes ranks,threads needs an MPI campaign (scal run --ranks); this "
                        "one has no /config_ranks",
                        t->f->path);
    if (rc < 0 || ncr == 0) goto done;
    if (!(worst = calloc(c->nregions + 1, sizeof(*worst))))
        rc = scal__fail(SCAL_ENOMEM, "%s: out of memory", t->f->path);
    for (size_t i = 0; rc == SCAL_OK && i < nsum; i++) {
        const struct scal_run_row *run = NULL;
        for (size_t k = 0; k < t->nruns && !run; k++)
            if (t->runs[k].id == sum[i].run) run = &t->runs[k];
        if (!run || run->status != SCAL_RUN_OK || sum[i].region >= t->fr.n ||
            run->config >= t->ncfg || !isfinite(sum[i].rank_imbalance))
            continue;
        struct rank_worst *w = &worst[t->fr.merged[sum[i].region]];
        if (!w->seen || sum[i].rank_imbalance > w->imbalance)
            *w = (struct rank_worst){sum[i].rank_imbalance, run->config, true};
    }
    /* the regions whose ranks wait for each other most, worst first (at most 10 named) */
    for (size_t named = 0; rc == SCAL_OK && named < 10; named++) {
        size_t best = c->nregions;
        for (size_t r = 0; r < c->nregions; r++)
            if (worst[r].seen && worst[r].imbalance >= 0.05 &&
                (best == c->nregions || worst[r].imbalance > worst[best].imbalance))
                best = r;
        if (best == c->nregions) break;
        const struct scal_config_row *cf = &t->cfg[worst[best].config];
        rc = pp_campaign_note(c,
                              "rank imbalance: %s: the ranks' mean time is %.1f %% below the "
                              "slowest rank's (critical path) at %d ranks x %d threads%s%s",
                              c->regions[best].label, 100.0 * worst[best].imbalance,
                              ranks_of_config(cr, ncr, cf->id), cf->threads,
                              *scal_h5file_str(t->f, cf->input_label) ? ", input " : "",
                              scal_h5file_str(t->f, cf->input_label));
        worst[best].seen = false;
    }
    if (rc == SCAL_OK && lc->ranks_threads) {
        rc = ranks_threads_axes(c, t, cr, ncr, lc->axes_input);
        goto done;
    }
    for (size_t i = 0; rc == SCAL_OK && i < t->ncfg; i++) {
        int32_t ranks = ranks_of_config(cr, ncr, t->cfg[i].id);
        if (ranks > 0) t->cfg[i].threads *= ranks;
    }
    for (size_t i = 0; rc == SCAL_OK && i < t->nruns; i++) {
        int32_t ranks = t->runs[i].config < t->ncfg
                            ? ranks_of_config(cr, ncr, t->cfg[t->runs[i].config].id)
                            : 0;
        if (ranks > 0 && t->runs[i].team_observed > 0) t->runs[i].team_observed *= ranks;
    }
    if (rc == SCAL_OK)
        rc = pp_campaign_note(c,
                              "%s: MPI campaign: the thread axis is cores = ranks x threads "
                              "(configurations with as many cores and one input are pooled); "
                              "times are the critical path's (per region the slowest rank)",
                              t->f->path);
done:
    free(worst);
    return rc;
}

static int load_campaign_file(struct pp_campaign *c, struct loadctx *lc, struct scal_read *r)
{
    const struct scal_h5file *f = &r->f;
    struct campaign_tables t = {.r = r, .f = f};
    int rc = campaign_tables(c, &t, !lc->ranks_threads);
    if (rc == SCAL_OK) rc = map_regions(c, &t.fr, f->strings, f->nstrings, f->path);
    if (rc == SCAL_OK) rc = mpi_cores_view(c, &t, lc);
    if (rc == SCAL_OK) rc = map_configs(c, &t);
    if (rc == SCAL_OK) rc = index_runs(c, &t);
    if (rc == SCAL_OK) rc = add_time_samples(c, lc, &t);
    if (rc == SCAL_OK) rc = add_sensor_samples(c, lc, &t);
    free_campaign_tables(&t);
    return rc;
}

/* Every file is read by the one reader (the safe open's probe process and the validator first:
 * HDF5 can crash on damaged files), the members of /region_stats the report uses only. */
static int load_file(struct pp_campaign *c, struct loadctx *lc, const char *path)
{
    struct scal_read r;
    int rc = scal_read_file(path, SCAL_READ_SLIM, &r);
    if (rc == SCAL_OK) rc = r.f.campaign ? load_campaign_file(c, lc, &r) : load_run_file(c, lc, &r);
    scal_read_free(&r);
    return rc;
}

int pp_axes_check(const char *axes)
{
    if (!axes || !strcmp(axes, "cores") || !strcmp(axes, "ranks,threads") ||
        (!strncmp(axes, "ranks,threads:", 14) && axes[14]))
        return SCAL_OK;
    return scal__fail(SCAL_EINVAL,
                      "bad --axes '%s': 'cores' (ranks x threads across, the default) or "
                      "'ranks,threads[:INPUT]' (threads across, ranks up, one input)",
                      axes);
}

int pp_campaign_load(struct pp_campaign *c, const char *const *files, size_t nfiles)
{
    return pp_campaign_load_axes(c, files, nfiles, NULL);
}

int pp_campaign_load_axes(struct pp_campaign *c, const char *const *files, size_t nfiles,
                          const char *axes)
{
    struct loadctx lc = {0};
    int rc = pp_axes_check(axes);
    memset(c, 0, sizeof(*c));
    if (rc < 0) return rc;
    lc.ranks_threads = axes && !strncmp(axes, "ranks,threads", 13);
    lc.axes_input = lc.ranks_threads && axes[13] == ':' ? axes + 14 : NULL;
    for (size_t i = 0; i < nfiles; i++)
        if ((rc = load_file(c, &lc, files[i])) < 0) goto out;
    if (c->nsamples == 0) {
        rc = scal__fail(SCAL_EEMPTY, "no valid region time in %s%s", files[0],
                        nfiles > 1 ? " and the other files" : "");
        goto out;
    }
    c->has_run_files = c->single_run;
    if (c->single_run && c->nthreads * c->ninputs * c->nfreqs > 1) {
        c->single_run = false; /* several run files: a small campaign */
        pp_campaign_note(c, "run files were merged: each run file is one configuration (input "
                            "label \"run\", its requested thread count)");
    } else if (c->single_run)
        pp_campaign_note(c,
                         "%s is a single run file (one configuration): tables only; the "
                         "scalability diagrams need a campaign with several thread counts",
                         files[0]);
    for (size_t i = 0; i < c->nsamples; i++) {
        struct pending *p = &lc.pend[i];
        size_t t = 0, s = 0;
        while (c->threads[t] != p->threads)
            t++;
        while (c->freqs[s] != p->freq)
            s++;
        c->samples[i].cell = (uint32_t)((s * c->ninputs + p->input) * c->nthreads + t);
    }
    if (lc.bad_time)
        pp_campaign_note(c,
                         "%zu region times were zero, negative or NaN and were left out "
                         "(their cells use the remaining repetitions or are marked missing)",
                         lc.bad_time);
out:
    free(lc.pend);
    if (rc < 0) pp_campaign_free(c);
    return rc;
}
