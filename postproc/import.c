// SPDX-License-Identifier: BSD-3-Clause
// `scal import`: PaScal Viewer JSON (regions, executions per argument, runs with threads and time)
// into a campaign file in scal's layout.
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "h5util.h"
#include "layout.h"
#include "report.h"
#include "safe_create.h"
#include "scal_format.h"
#include "strtab.h"

struct imp_time {
    uint32_t region, config, rep;
    double time;
};

struct imp {
    struct scal_strtab st;
    char **inputs;
    size_t ninputs;
    int32_t *threads;
    size_t nthreads;
    struct scal_config_row *cfg;
    size_t ncfg;
    struct scal_region_id_row *reg;
    size_t nreg;
    struct imp_time *t;
    size_t nt, capt;
    uint32_t *reps; /* per (region, config): next repetition index */
};

static int config_of(struct imp *m, const char *arg, int32_t threads, uint32_t *out)
{
    size_t in = 0;
    while (in < m->ninputs && strcmp(m->inputs[in], arg))
        in++;
    if (in == m->ninputs) {
        char **n = realloc(m->inputs, (in + 1) * sizeof(*n));
        if (!n) return SCAL_ENOMEM;
        m->inputs = n;
        if (!(n[in] = strdup(arg))) return SCAL_ENOMEM;
        m->ninputs++;
    }
    size_t k = 0;
    while (k < m->nthreads && m->threads[k] != threads)
        k++;
    if (k == m->nthreads) {
        int32_t *n = realloc(m->threads, (k + 1) * sizeof(*n));
        if (!n) return SCAL_ENOMEM;
        m->threads = n;
        n[m->nthreads++] = threads;
    }
    for (size_t i = 0; i < m->ncfg; i++)
        if (m->cfg[i].input == in && m->cfg[i].threads == threads) {
            *out = (uint32_t)i;
            return 0;
        }
    struct scal_config_row *n = realloc(m->cfg, (m->ncfg + 1) * sizeof(*n));
    if (!n) return SCAL_ENOMEM;
    m->cfg = n;
    int64_t lab = scal_strtab_add(&m->st, arg);
    if (lab < 0) return (int)lab;
    n[m->ncfg] =
        (struct scal_config_row){(uint32_t)m->ncfg, threads, (uint32_t)in, (uint32_t)lab, -1, 0, 0};
    *out = (uint32_t)m->ncfg++;
    return 0;
}

static int add_time(struct imp *m, uint32_t region, uint32_t config, double t)
{
    if (m->nt == m->capt) {
        size_t cap = m->capt ? 2 * m->capt : 256;
        struct imp_time *n = realloc(m->t, cap * sizeof(*n));
        if (!n) return SCAL_ENOMEM;
        m->t = n;
        m->capt = cap;
    }
    m->t[m->nt++] = (struct imp_time){region, config, 0, t};
    return 0;
}

static int parse(struct imp *m, json_t *root, const char *path)
{
    if (!json_is_array(root) || json_array_size(root) == 0)
        return scal__fail(SCAL_EFORMAT,
                          "%s: expected a non-empty array of regions (PaScal "
                          "Viewer format)",
                          path);
    size_t i;
    json_t *r;
    json_array_foreach(root, i, r)
    {
        json_t *reg = json_object_get(r, "region"), *fn = json_object_get(r, "filename");
        json_t *ex = json_object_get(r, "executions");
        if (!json_is_object(r) || !json_is_array(ex))
            return scal__fail(SCAL_EFORMAT, "%s: region entry %zu has no \"executions\" array",
                              path, i);
        /* "first, last" lines; any other text (e.g. "main") names a region without lines. */
        int first = -1, last = -1;
        const char *rtext = json_is_string(reg) ? json_string_value(reg) : "";
        if (json_is_integer(reg)) first = (int)json_integer_value(reg);
        if (*rtext && sscanf(rtext, " %d , %d", &first, &last) < 1) first = -1;
        if (last < first) last = first;
        const char *file = json_is_string(fn) ? json_string_value(fn) : "";
        char label[512];
        if (first >= 0)
            snprintf(label, sizeof(label), "%s:%d-%d", file, first, last);
        else
            snprintf(label, sizeof(label), "%s%s%s", file, *file && *rtext ? ":" : "",
                     *rtext || *file ? rtext : "region");
        int64_t fi = scal_strtab_add(&m->st, file), li = scal_strtab_add(&m->st, label);
        if (fi < 0 || li < 0) return SCAL_ENOMEM;
        struct scal_region_id_row *n = realloc(m->reg, (m->nreg + 1) * sizeof(*n));
        if (!n) return SCAL_ENOMEM;
        m->reg = n;
        uint32_t id = (uint32_t)m->nreg++;
        n[id] =
            (struct scal_region_id_row){.id = id,
                                        .parent = 0,
                                        .kind = first >= 0 ? SCAL_KIND_PARALLEL : SCAL_KIND_USER,
                                        .name = (uint32_t)li,
                                        .file = (uint32_t)fi,
                                        .line_first = first,
                                        .line_last = last,
                                        .gap_prev = -1,
                                        .gap_next = -1};
        /* executions: [[{argument, runs}, ...]] (Fig. 3) or a flat [{argument, runs}, ...] */
        size_t j;
        json_t *e;
        json_array_foreach(ex, j, e)
        {
            json_t *list = json_is_array(e) ? e : NULL;
            size_t kn = list ? json_array_size(list) : 1;
            for (size_t k = 0; k < kn; k++) {
                json_t *one = list ? json_array_get(list, k) : e;
                json_t *arg = json_object_get(one, "argument"),
                       *runs = json_object_get(one, "runs");
                char argbuf[64];
                const char *a = json_is_string(arg) ? json_string_value(arg) : NULL;
                if (json_is_integer(arg)) {
                    snprintf(argbuf, sizeof(argbuf), "%lld", (long long)json_integer_value(arg));
                    a = argbuf;
                }
                if (!a || !json_is_array(runs))
                    return scal__fail(SCAL_EFORMAT,
                                      "%s: region %zu execution %zu: needs "
                                      "\"argument\" and a \"runs\" array",
                                      path, i, j);
                size_t q;
                json_t *run;
                json_array_foreach(runs, q, run)
                {
                    json_t *th = json_object_get(run, "threads"),
                           *tm = json_object_get(run, "time");
                    if (!json_is_integer(th) || json_integer_value(th) <= 0 ||
                        json_integer_value(th) > 1 << 20 || !json_is_number(tm))
                        return scal__fail(SCAL_EFORMAT,
                                          "%s: region %zu, argument %s, run %zu: "
                                          "needs a positive integer \"threads\" and "
                                          "a numeric \"time\"",
                                          path, i, a, q);
                    double t = json_number_value(tm);
                    if (!isfinite(t) || t <= 0)
                        return scal__fail(SCAL_EFORMAT,
                                          "%s: region %zu, argument %s, %lld "
                                          "threads: time %g is not positive",
                                          path, i, a, (long long)json_integer_value(th), t);
                    uint32_t c = 0;
                    int rc = config_of(m, a, (int32_t)json_integer_value(th), &c);
                    if (rc < 0 || (rc = add_time(m, id, c, t)) < 0) return rc;
                }
            }
        }
    }
    return 0;
}

/* Smallest enclosing line range in the same file = parent; otherwise the root. */
static void nest(struct imp *m)
{
    for (size_t i = 1; i < m->nreg; i++) {
        int best = 0, span = 0;
        for (size_t j = 1; j < m->nreg; j++) {
            const struct scal_region_id_row *a = &m->reg[j], *b = &m->reg[i];
            if (j == i || a->file != b->file || a->line_first < 0) continue;
            bool encl = a->line_first <= b->line_first && b->line_last <= a->line_last &&
                        (a->line_first != b->line_first || a->line_last != b->line_last || j < i);
            int s = a->line_last - a->line_first;
            if (encl && (!best || s < span)) best = (int)j, span = s;
        }
        m->reg[i].parent = best;
    }
    for (size_t i = 1; i < m->nreg; i++) { /* depth (parents may come later in the array) */
        uint32_t d = 0;
        for (int p = m->reg[i].parent; p > 0 && d < m->nreg; p = m->reg[p].parent)
            d++;
        m->reg[i].depth = d + 1;
    }
}

/* The campaign's runs and region rows, built from the imported times. */
struct imp_rows {
    struct scal_run_row *runs;
    size_t nruns;
    struct scal_region_stat_row *st;
    size_t ns;
};

/* Repetition k of a configuration = the k-th time of that configuration, per region; one run per
 * (configuration, repetition), numbered configuration by configuration (first_run[c]). */
static int build_runs(struct imp *m, uint32_t *first_run, struct imp_rows *out)
{
    uint32_t *next = calloc(m->nreg * m->ncfg, sizeof(*next));
    uint32_t *nrep = calloc(m->ncfg, sizeof(*nrep));
    int rc = SCAL_OK;
    if (!next || !nrep) {
        rc = scal__fail(SCAL_ENOMEM, "out of memory importing %zu times", m->nt);
        goto out;
    }
    for (size_t i = 0; i < m->nt; i++) {
        m->t[i].rep = next[m->t[i].region * m->ncfg + m->t[i].config]++;
        if (m->t[i].rep + 1 > nrep[m->t[i].config]) nrep[m->t[i].config] = m->t[i].rep + 1;
    }
    for (size_t c = 0; c < m->ncfg; c++)
        first_run[c] = (uint32_t)out->nruns, out->nruns += nrep[c];
    if (!(out->runs = calloc(out->nruns, sizeof(*out->runs)))) {
        rc = scal__fail(SCAL_ENOMEM, "out of memory importing %zu runs", out->nruns);
        goto out;
    }
    for (size_t c = 0; c < m->ncfg; c++)
        for (uint32_t k = 0; k < nrep[c]; k++) {
            struct scal_run_row *r = &out->runs[first_run[c] + k];
            r->id = first_run[c] + k;
            r->config = (uint32_t)c;
            r->repetition = k;
            r->status = SCAL_RUN_OK;
            r->team_requested = r->team_observed = m->cfg[c].threads;
            r->frequency_observed_khz = -1;
        }
out:
    free(next);
    free(nrep);
    return rc;
}

/* A region row of one run with one instance of the given time. */
static void set_stat(struct scal_region_stat_row *s, uint32_t run, uint32_t region, double time,
                     int32_t team)
{
    s->run = run;
    s->region = region;
    s->count = 1;
    s->time_total_s = s->time_min_s = s->time_max_s = s->time_mean_s = s->time_median_s = time;
    s->time_wall_s = time; /* one instance measured elsewhere: its time is its wall time */
    s->team_requested_min = s->team_requested_max = s->team_actual_min = s->team_actual_max = team;
}

static int build_stats(const struct imp *m, const uint32_t *first_run, struct imp_rows *out)
{
    double *root = calloc(out->nruns ? out->nruns : 1, sizeof(*root));
    out->st = calloc(m->nt + out->nruns, sizeof(*out->st));
    if (!root || !out->st) {
        free(root);
        return scal__fail(SCAL_ENOMEM, "out of memory importing %zu times", m->nt);
    }
    for (size_t i = 0; i < m->nt; i++) {
        uint32_t run = first_run[m->t[i].config] + m->t[i].rep;
        struct scal_region_stat_row *s = &out->st[out->ns++];
        set_stat(s, run, m->t[i].region, m->t[i].time, out->runs[run].team_observed);
        s->median_exact = 1;
        if (m->reg[m->t[i].region].parent == 0 && m->t[i].time > root[run])
            root[run] = m->t[i].time;
    }
    /* The JSON has no whole-program time: the root gets the longest top-level region of the run
     * (a lower bound), and the campaign says so in /campaign@note. */
    for (size_t r = 0; r < out->nruns; r++)
        if (root[r] > 0)
            set_stat(&out->st[out->ns++], (uint32_t)r, 0, root[r], out->runs[r].team_observed);
    free(root);
    return SCAL_OK;
}

struct new_import {
    const struct scal_campaign_info *info;
    const struct scal_campaign_rows *rows;
};

/* scal_safe_create_with's creation: the whole imported campaign, closed. */
static int create_imported(const char *tmp, void *ctx)
{
    const struct new_import *ni = ctx;
    hid_t f;
    int rc = scal_campaign_file_create(tmp, ni->info, ni->rows, &f);
    if (rc == SCAL_OK && H5Fclose(f) < 0) rc = scal__fail(SCAL_EIO, "cannot close '%s'", tmp);
    return rc;
}

/* Writes the campaign to an exclusive temporary name, then renames it into place (an existing
 * file only with force). */
static int write_file(const struct imp *m, const struct imp_rows *r, const char *out,
                      const char *src, bool force)
{
    char tmp[4200] = "";
    struct scal_campaign_info info = {
        .tool_version = "scal import",
        .program = src,
        .order = "given",
        .note = "imported from PaScal Viewer JSON: the whole-program time of each run is its "
                "longest top-level region",
        .inputs = (const char *const *)m->inputs,
        .ninputs = m->ninputs,
        .threads = m->threads,
        .nthreads = m->nthreads};
    struct scal_campaign_rows rows = {.configs = m->cfg,
                                      .nconfigs = m->ncfg,
                                      .runs = r->runs,
                                      .nruns = r->nruns,
                                      .regions = m->reg,
                                      .nregions = m->nreg,
                                      .stats = r->st,
                                      .nstats = r->ns,
                                      .strings = (const char *const *)m->st.strings,
                                      .nstrings = m->st.count};
    struct new_import ni = {&info, &rows};
    int rc = scal_safe_create_with(out, force, tmp, sizeof(tmp), create_imported, &ni);
    if (rc < 0) {
        if (tmp[0]) remove(tmp);
        return rc;
    }
    return scal_safe_publish(tmp, out, force);
}

static int write_campaign(struct imp *m, const char *out, const char *src, bool force)
{
    struct imp_rows r = {0};
    uint32_t *first_run = calloc(m->ncfg ? m->ncfg : 1, sizeof(*first_run));
    int rc = first_run
                 ? build_runs(m, first_run, &r)
                 : scal__fail(SCAL_ENOMEM, "out of memory importing %zu configurations", m->ncfg);
    if (rc == SCAL_OK) rc = build_stats(m, first_run, &r);
    if (rc == SCAL_OK) rc = write_file(m, &r, out, src, force);
    free(first_run);
    free(r.runs);
    free(r.st);
    return rc;
}

#define SCAL_IMPORT_MAX_BYTES (16 << 20)

int scal_import_pascal(const char *json_path, const char *campaign_path, bool force)
{
    struct imp m = {0};
    json_error_t err;
    struct stat st;
    /* before any work: an existing output is only replaced with --force */
    int rc = scal_safe_check_final(campaign_path, force);
    if (rc == SCAL_EEXIST && !force && access(campaign_path, F_OK) == 0 &&
        lstat(campaign_path, &st) == 0 && S_ISREG(st.st_mode))
        return scal__fail(rc, "'%s' exists: refused (give --force to replace it)", campaign_path);
    if (rc < 0) return rc;
    /* jansson holds the whole document, at about 20 times its size: bounded here */
    if (stat(json_path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > SCAL_IMPORT_MAX_BYTES)
        return scal__fail(SCAL_EFORMAT,
                          "%s: %lld MB, more than the %d MB of JSON scal import reads (a PaScal "
                          "Viewer file of that size is not one)",
                          json_path, (long long)(st.st_size >> 20), SCAL_IMPORT_MAX_BYTES >> 20);
    json_t *root = json_load_file(json_path, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return scal__fail(SCAL_EFORMAT, "%s:%d:%d: %s", json_path, err.line, err.column, err.text);
    if ((rc = scal_strtab_init(&m.st)) < 0) goto out;
    /* Region 0: the whole program. */
    int64_t wp = scal_strtab_add(&m.st, "whole program");
    if (wp < 0 || !(m.reg = calloc(1, sizeof(*m.reg)))) {
        rc = SCAL_ENOMEM;
        goto out;
    }
    m.reg[0] = (struct scal_region_id_row){.id = 0,
                                           .parent = -1,
                                           .kind = SCAL_KIND_ROOT,
                                           .name = (uint32_t)wp,
                                           .line_first = -1,
                                           .line_last = -1,
                                           .gap_prev = -1,
                                           .gap_next = -1};
    m.nreg = 1;
    if ((rc = parse(&m, root, json_path)) < 0) goto out;
    if (m.nt == 0) {
        rc = scal__fail(SCAL_EEMPTY, "%s: no run times", json_path);
        goto out;
    }
    nest(&m);
    rc = write_campaign(&m, campaign_path, json_path, force);
out:
    json_decref(root);
    scal_strtab_free(&m.st);
    for (size_t i = 0; i < m.ninputs; i++)
        free(m.inputs[i]);
    free(m.inputs);
    free(m.threads);
    free(m.cfg);
    free(m.reg);
    free(m.t);
    free(m.reps);
    return rc;
}
