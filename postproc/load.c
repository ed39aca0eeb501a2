// SPDX-License-Identifier: BSD-3-Clause
// Reads campaign files (several, merged on the fly) and single run files into one sample list.
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "probe.h"
#include "region_identity.h"
#include "h5util.h"
#include "layout.h"
#include "report.h"

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
    make_slug(slug, sizeof(slug), c->nregions, label);
    r->key = strdup(key);
    r->label = strdup(label);
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

static const char *str_at(char **strings, size_t n, uint32_t idx)
{
    return idx < n && strings[idx] ? strings[idx] : "";
}

/* Per-file region rows mapped to merged ids. */
struct file_regions {
    struct scal_region_id_row *rows;
    size_t n;
    int64_t *merged;
};

/* Maps a file's regions to the campaign's by the one identity rule, naming new ones by the one
 * label rule (common/region_identity.h). */
static int map_regions(struct pp_campaign *c, struct file_regions *fr, char **strings,
                       size_t nstrings, const char *path)
{
    char **ids = NULL, **labels = NULL;
    int rc;
    fr->merged = malloc((fr->n ? fr->n : 1) * sizeof(*fr->merged));
    if (!fr->merged) return scal__fail(SCAL_ENOMEM, "%s: out of memory for regions", path);
    if ((rc = scal_region_identities(fr->rows, fr->n, strings, nstrings, &ids)) < 0 ||
        (rc = scal_region_labels(fr->rows, fr->n, strings, nstrings, &labels)) < 0) {
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
    scal_region_identities_free(labels, fr->n);
    return rc;
}

static void free_file_regions(struct file_regions *fr)
{
    free(fr->merged);
    free(fr->rows);
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

static int load_run_file(struct pp_campaign *c, struct loadctx *lc, hid_t f, const char *path,
                         char **strings, size_t nstrings)
{
    struct scal_region_row *rows = NULL;
    struct file_regions fr = {0};
    size_t n = 0;
    int64_t req = -1, obs = -1;
    int rc = scal_h5_read_table(f, scal_table_run_regions.name, scal_table_run_regions.fields,
                                scal_table_run_regions.nfields, scal_table_run_regions.row_size,
                                (void **)&rows, &n);
    if (rc < 0) goto out;
    if (n == 0) {
        rc = scal__fail(SCAL_EEMPTY, "%s: run file has no regions", path);
        goto out;
    }
    hid_t meta = H5Gopen2(f, "meta", H5P_DEFAULT);
    if (meta >= 0) {
        if (scal_h5_attr_get_i64(meta, "requested_threads", &req) < 0) req = -1;
        if (scal_h5_attr_get_i64(meta, "max_team_observed", &obs) < 0) obs = -1;
        H5Gclose(meta);
    }
    int32_t threads = (int32_t)(req > 0 ? req : obs > 0 ? obs : 1);
    fr.n = n;
    if (!(fr.rows = scal_region_id_rows(rows, n))) {
        rc = SCAL_ENOMEM;
        goto out;
    }
    if ((rc = map_regions(c, &fr, strings, nstrings, path)) < 0) goto out;
    uint32_t input;
    if ((rc = add_input(c, "run", &input)) < 0) goto out;
    if ((rc = add_thread(c, threads)) < 0) goto out;
    if ((rc = add_freq(c, -1)) < 0) goto out;
    c->single_run = true;
    c->nruns++;
    for (size_t i = 0; i < n; i++) {
        if (!valid_time(rows[i].time_total_s)) {
            lc->bad_time++;
            continue;
        }
        rc = add_pending(c, lc, (uint32_t)fr.merged[i], (struct pending){input, threads, -1}, -1,
                         (int32_t)(obs > 0 ? obs : threads), rows[i].time_total_s);
        if (rc < 0) goto out;
    }
    rc = 0;
out:
    free(rows);
    free_file_regions(&fr);
    return rc;
}

/* Only the members the report uses are read from /region_stats (HDF5 converts by member name), so
 * a campaign of 2,000 runs x 300 regions costs 16 bytes per row instead of the full row. */
struct stat_slim {
    uint32_t run, region;
    double time_total_s;
};
static const struct scal_h5_field stat_slim_fields[] = {
    SCAL_H5_FIELD(SCAL_H5_U32, struct stat_slim, run),
    SCAL_H5_FIELD(SCAL_H5_U32, struct stat_slim, region),
    SCAL_H5_FIELD(SCAL_H5_F64, struct stat_slim, time_total_s),
};

static int load_campaign_file(struct pp_campaign *c, struct loadctx *lc, hid_t f, const char *path,
                              char **strings, size_t nstrings)
{
    struct scal_config_row *cfg = NULL;
    struct scal_run_row *runs = NULL;
    struct stat_slim *st = NULL;
    struct scal_run_sensor_value_row *sv = NULL;
    struct file_regions fr = {0};
    char **inputs = NULL;
    size_t ncfg = 0, nruns = 0, nst = 0, nsv = 0, ninputs = 0;
    int64_t *run_index = NULL;
    uint32_t *cfg_input = NULL;
    int rc;
    if (scal_h5_exists(f, "campaign/inputs") == 1) {
        if ((rc = scal_h5_read_strings(f, "campaign/inputs", &inputs, &ninputs)) < 0) goto out;
        for (size_t i = 0; i < ninputs; i++) {
            uint32_t idx;
            if ((rc = add_input(c, inputs[i], &idx)) < 0) goto out;
        }
    }
#define READ(desc, ptr, cnt)                                                                       \
    scal_h5_read_table(f, (desc).name, (desc).fields, (desc).nfields, (desc).row_size,             \
                       (void **)&(ptr), &(cnt))
    if ((rc = READ(scal_table_configs, cfg, ncfg)) < 0) goto out;
    if ((rc = READ(scal_table_runs, runs, nruns)) < 0) goto out;
    if ((rc = READ(scal_table_campaign_regions, fr.rows, fr.n)) < 0) goto out;
    if ((rc = scal_h5_read_table(f, scal_table_region_stats.name, stat_slim_fields,
                                 sizeof(stat_slim_fields) / sizeof(stat_slim_fields[0]),
                                 sizeof(*st), (void **)&st, &nst)) < 0)
        goto out;
    if (scal_h5_exists(f, scal_table_run_sensor_values.name) == 1 &&
        (rc = READ(scal_table_run_sensor_values, sv, nsv)) < 0)
        goto out;
#undef READ
    if (ncfg == 0 || nruns == 0) {
        rc = scal__fail(SCAL_EEMPTY, "%s: empty campaign (%zu configurations, %zu runs)", path,
                        ncfg, nruns);
        goto out;
    }
    if (fr.n == 0) {
        rc = scal__fail(SCAL_EFORMAT, "%s: campaign has no /regions rows", path);
        goto out;
    }
    if ((rc = map_regions(c, &fr, strings, nstrings, path)) < 0) goto out;
    cfg_input = calloc(ncfg, sizeof(*cfg_input));
    if (!cfg_input) {
        rc = SCAL_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < ncfg; i++) {
        const char *label = str_at(strings, nstrings, cfg[i].input_label);
        char tmp[32];
        if (!*label) {
            snprintf(tmp, sizeof(tmp), "i%u", cfg[i].input + 1);
            label = tmp;
        }
        if ((rc = add_input(c, label, &cfg_input[i])) < 0) goto out;
        if (cfg[i].threads <= 0) {
            rc = scal__fail(SCAL_EFORMAT, "%s: /configs row %zu has %d threads", path, i,
                            cfg[i].threads);
            goto out;
        }
        for (size_t j = 0; j < i; j++)
            if (cfg[j].threads == cfg[i].threads && cfg_input[j] == cfg_input[i] &&
                cfg[j].frequency_khz == cfg[i].frequency_khz) {
                pp_campaign_note(c,
                                 "%s: duplicate configurations %u and %u (input %s, %d threads): "
                                 "their runs are pooled as repetitions of one cell",
                                 path, cfg[j].id, cfg[i].id, label, cfg[i].threads);
                break;
            }
    }
    /* run id -> row index */
    uint32_t maxrun = 0;
    for (size_t i = 0; i < nruns; i++)
        if (runs[i].id > maxrun) maxrun = runs[i].id;
    if (maxrun > 100000000u) {
        rc = scal__fail(SCAL_EFORMAT, "%s: /runs id %u out of range", path, maxrun);
        goto out;
    }
    run_index = malloc(((size_t)maxrun + 1) * sizeof(*run_index));
    if (!run_index) {
        rc = SCAL_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i <= maxrun; i++)
        run_index[i] = -1;
    size_t ok = 0;
    for (size_t i = 0; i < nruns; i++) {
        if (runs[i].config >= ncfg) {
            rc = scal__fail(SCAL_EFORMAT, "%s: /runs row %zu refers to configuration %u of %zu",
                            path, i, runs[i].config, ncfg);
            goto out;
        }
        if (run_index[runs[i].id] >= 0)
            pp_campaign_note(c, "%s: run id %u appears twice in /runs; the later row is used", path,
                             runs[i].id);
        if (runs[i].status != SCAL_RUN_OK) continue;
        run_index[runs[i].id] = (int64_t)i;
        ok++;
        const struct scal_config_row *cf = &cfg[runs[i].config];
        if ((rc = add_thread(c, cf->threads)) < 0) goto out;
        if ((rc = add_freq(c, cf->frequency_khz)) < 0) goto out;
    }
    if (ok == 0) {
        rc = scal__fail(SCAL_EEMPTY, "%s: no completed run among %zu", path, nruns);
        goto out;
    }
    c->nruns += ok;
    size_t bad_ref = 0;
    for (size_t i = 0; i < nst; i++) {
        if (st[i].run > maxrun || run_index[st[i].run] < 0 || st[i].region >= fr.n) {
            bad_ref += st[i].run > maxrun || st[i].region >= fr.n;
            continue;
        }
        const struct scal_run_row *r = &runs[run_index[st[i].run]];
        const struct scal_config_row *cf = &cfg[r->config];
        if (!valid_time(st[i].time_total_s)) {
            lc->bad_time++;
            continue;
        }
        int32_t team = r->team_observed > 0 ? r->team_observed : cf->threads;
        rc = add_pending(c, lc, (uint32_t)fr.merged[st[i].region],
                         (struct pending){cfg_input[r->config], cf->threads, cf->frequency_khz}, -1,
                         team, st[i].time_total_s);
        if (rc < 0) goto out;
    }
    for (size_t i = 0; i < nsv; i++) {
        if (sv[i].run > maxrun || run_index[sv[i].run] < 0 || sv[i].thread >= 0) continue;
        if (sv[i].region >= 0 && (size_t)sv[i].region >= fr.n) continue;
        if (!isfinite(sv[i].value)) continue;
        const struct scal_run_row *r = &runs[run_index[sv[i].run]];
        const struct scal_config_row *cf = &cfg[r->config];
        int32_t m;
        rc = add_metric(c, str_at(strings, nstrings, sv[i].metric),
                        str_at(strings, nstrings, sv[i].unit), &m);
        if (rc < 0) goto out;
        uint32_t reg = (uint32_t)fr.merged[sv[i].region >= 0 ? (size_t)sv[i].region : 0];
        rc = add_pending(c, lc, reg,
                         (struct pending){cfg_input[r->config], cf->threads, cf->frequency_khz}, m,
                         0, sv[i].value);
        if (rc < 0) goto out;
    }
    if (bad_ref)
        pp_campaign_note(c, "%s: %zu /region_stats rows refer to unknown runs or regions (ignored)",
                         path, bad_ref);
    rc = 0;
out:
    scal_h5_free_strings(inputs, ninputs);
    free(cfg);
    free(runs);
    free(st);
    free(sv);
    free(run_index);
    free(cfg_input);
    free_file_regions(&fr);
    return rc;
}

static int load_file(struct pp_campaign *c, struct loadctx *lc, const char *path)
{
    hid_t f = H5I_INVALID_HID;
    char *format = NULL;
    char **strings = NULL;
    size_t nstrings = 0;
    int64_t version = 0;
    int rc;
    FILE *probe = fopen(path, "rb");
    if (!probe) return scal__fail(SCAL_ENOENT, "cannot open '%s'", path);
    fclose(probe);
    scal_h5_quiet();
    if (H5Fis_hdf5(path) <= 0) {
        rc = scal__fail(SCAL_EFORMAT, "'%s' is not an HDF5 file (or it is truncated or corrupt)",
                        path);
        goto out;
    }
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        rc = scal__fail(SCAL_EFORMAT, "'%s': HDF5 cannot open it (truncated or corrupt?)", path);
        goto out;
    }
    if (scal_h5_attr_get_str(f, SCAL_ATTR_FORMAT, &format) < 0) {
        rc = scal__fail(SCAL_EFORMAT, "'%s' is not a scal file (no %s attribute)", path,
                        SCAL_ATTR_FORMAT);
        goto out;
    }
    if (scal_h5_attr_get_i64(f, SCAL_ATTR_SCHEMA_VERSION, &version) < 0) {
        rc = scal__fail(SCAL_EFORMAT, "'%s' has no %s attribute", path, SCAL_ATTR_SCHEMA_VERSION);
        goto out;
    }
    if (version != SCAL_SCHEMA_VERSION) {
        rc = scal__fail(SCAL_ESCHEMA, "'%s' has schema version %lld; this scal reads version %d",
                        path, (long long)version, SCAL_SCHEMA_VERSION);
        goto out;
    }
    bool campaign = !strcmp(format, SCAL_FORMAT_CAMPAIGN);
    if (!campaign && strcmp(format, SCAL_FORMAT_RUN)) {
        rc = scal__fail(SCAL_EFORMAT, "'%s' is a '%s' file, not a scal campaign or run file", path,
                        format);
        goto out;
    }
    if ((rc = scal_h5_read_strings(f, "strings", &strings, &nstrings)) < 0) goto out;
    rc = campaign ? load_campaign_file(c, lc, f, path, strings, nstrings)
                  : load_run_file(c, lc, f, path, strings, nstrings);
out:
    scal_h5_free_strings(strings, nstrings);
    free(format);
    if (f >= 0) H5Fclose(f);
    return rc;
}

/* libhdf5 is not hardened against corrupt files: some damaged heaps make it read out of
 * bounds. The load runs under a SIGSEGV/SIGBUS guard that turns such a crash into a clear error;
 * HDF5's state is unknown afterwards, so the caller must exit (scal report does). */
static sigjmp_buf guard_env;

static void guard_handler(int sig)
{
    siglongjmp(guard_env, sig);
}

struct probe_args {
    struct pp_campaign *c;
    struct loadctx *lc;
    const char *path;
};

static int probe_load(void *p)
{
    struct probe_args *a = p;
    return load_file(a->c, a->lc, a->path);
}

static int load_file_guarded(struct pp_campaign *c, struct loadctx *lc, const char *path)
{
    /* First in a child: some damaged files make HDF5 corrupt its heap and abort, which no guard
     * in this process survives. The child's changes to the model are discarded with it. */
    struct probe_args pa = {c, lc, path};
    int prc = scal_probe(probe_load, &pa);
    if (prc < 0) {
        char why[512];
        snprintf(why, sizeof(why), "%s", scal__last_error(prc));
        return scal__fail(prc, "'%s': %s", path, why);
    }
    struct sigaction sa = {0}, old_segv, old_bus;
    sa.sa_handler = guard_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    int sig = sigsetjmp(guard_env, 1), rc;
    if (sig == 0)
        rc = load_file(c, lc, path);
    else
        rc = scal__fail(SCAL_EFORMAT,
                        "'%s' is corrupt: the HDF5 library crashed reading it "
                        "(signal %d)",
                        path, sig);
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    return rc;
}

int pp_campaign_load(struct pp_campaign *c, const char *const *files, size_t nfiles)
{
    struct loadctx lc = {0};
    int rc = 0;
    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < nfiles; i++)
        if ((rc = load_file_guarded(c, &lc, files[i])) < 0) goto out;
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
