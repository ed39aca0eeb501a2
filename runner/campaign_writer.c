// SPDX-License-Identifier: BSD-3-Clause
// The incremental campaign-file writer (see campaign_writer.h).
#include <errno.h>
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_writer.h"
#include "errmsg.h"
#include "grow.h"
#include "h5util.h"
#include "region_identity.h"
#include "safe_open.h"
#include "scal_format.h"
#include "strtab.h"

#define CW_MAX_TABLES 32

struct scal_cw {
    char *path;
    hid_t file;
    /* the tables runs were appended to, kept open while the file is (scal_h5_appender) */
    struct {
        const struct scal_table_desc *d;
        struct scal_h5_appender a;
    } open[CW_MAX_TABLES];
    size_t nopen;
    struct scal_strtab strings;         /* the file's /strings, in memory */
    size_t strings_written;             /* how many of them are in the file */
    struct scal_strtab identity;        /* region identities; index - 1 is the region id */
    struct scal_region_id_row *regions; /* the file's /regions, in memory (labels of new regions) */
    size_t nregions, regions_cap;
    uint32_t next_run;
};

static int64_t intern(struct scal_cw *w, const char *s)
{
    return scal_strtab_add(&w->strings, s ? s : "");
}

/* A source string index re-interned into the campaign's strings. */
static int remap_string(struct scal_cw *w, const struct scal_cw_payload *p, uint32_t *idx)
{
    int64_t k = intern(w, *idx < p->nstrings ? p->strings[*idx] : "");
    if (k < 0) return (int)k;
    *idx = (uint32_t)k;
    return SCAL_OK;
}

static int flush_strings(struct scal_cw *w)
{
    size_t n = w->strings.count - w->strings_written;
    int rc = scal_h5_append_strings(
        w->file, "strings", (const char *const *)w->strings.strings + w->strings_written, n);
    if (rc == SCAL_OK) w->strings_written = w->strings.count;
    return rc;
}

static void close_tables(struct scal_cw *w)
{
    for (size_t i = 0; i < w->nopen; i++)
        scal_h5_appender_close(&w->open[i].a);
    w->nopen = 0;
}

/* scal_table_append through the table's appender, opened at its first append. */
static int append(struct scal_cw *w, const struct scal_table_desc *d, const void *rows, size_t n)
{
    size_t i = 0;
    while (i < w->nopen && w->open[i].d != d)
        i++;
    if (i == w->nopen) {
        if (w->nopen == CW_MAX_TABLES) return scal_table_append(w->file, d, rows, n);
        int rc = scal_h5_appender_open(w->file, d->name, d->fields, d->nfields, d->row_size,
                                       &w->open[i].a);
        if (rc < 0) return rc;
        w->open[i].d = d;
        w->nopen++;
    }
    return scal_h5_appender_add(&w->open[i].a, rows, n);
}

static void cw_free(struct scal_cw *w)
{
    if (!w) return;
    close_tables(w);
    if (w->file >= 0) H5Fclose(w->file);
    scal_strtab_free(&w->strings);
    scal_strtab_free(&w->identity);
    free(w->regions);
    free(w->path);
    free(w);
}

static struct scal_cw *cw_new(const char *path)
{
    struct scal_cw *w = calloc(1, sizeof(*w));
    if (!w) return NULL;
    w->file = -1;
    w->path = strdup(path);
    if (!w->path || scal_strtab_init(&w->strings) < 0 || scal_strtab_init(&w->identity) < 0) {
        cw_free(w);
        return NULL;
    }
    return w;
}

/* Flushes the campaign file; a failure says the OS's reason (a full disk: "No space left on
 * device"), which HDF5's file driver leaves in errno. */
static int flush_file(hid_t file, const char *path)
{
    errno = 0;
    if (H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0) return SCAL_OK;
    return scal__fail(SCAL_EIO, "cannot flush campaign file '%s': %s", path,
                      errno ? strerror(errno) : "HDF5 could not write it");
}

/* /config_ranks when the campaign has a ranks dimension (some configuration has ranks). */
static int write_config_ranks(struct scal_cw *w, const struct scal_cw_config *configs, size_t n)
{
    size_t with = 0;
    for (size_t i = 0; i < n; i++)
        with += configs[i].ranks > 0;
    if (!with) return SCAL_OK;
    struct scal_config_rank_row *rows = calloc(with, sizeof(*rows));
    if (!rows) return SCAL_ENOMEM;
    with = 0;
    for (size_t i = 0; i < n; i++)
        if (configs[i].ranks > 0)
            rows[with++] = (struct scal_config_rank_row){(uint32_t)i, configs[i].ranks};
    int rc = scal_table_write(w->file, &scal_table_config_ranks, rows, with);
    free(rows);
    return rc;
}

int scal_cw_create(const char *path, const struct scal_campaign_info *meta,
                   const struct scal_cw_config *configs, size_t nconfigs, struct scal_cw **out)
{
    int rc = SCAL_ENOMEM;
    struct scal_config_row *rows = calloc(nconfigs ? nconfigs : 1, sizeof(*rows));
    struct scal_cw *w = cw_new(path);
    *out = NULL;
    if (!w || !rows) goto fail;
    for (size_t i = 0; i < nconfigs; i++) {
        int64_t label = intern(w, configs[i].input_label), aff = intern(w, configs[i].affinity);
        int64_t argv = intern(w, configs[i].argv);
        if (label < 0 || aff < 0 || argv < 0) goto fail;
        rows[i] =
            (struct scal_config_row){(uint32_t)i,     configs[i].threads,       configs[i].input,
                                     (uint32_t)label, configs[i].frequency_khz, (uint32_t)aff,
                                     (uint32_t)argv};
    }
    /* Row 0 of /regions is the root (the whole program): present before any run. */
    struct scal_region_id_row root = {.id = 0,
                                      .parent = -1,
                                      .kind = SCAL_KIND_ROOT,
                                      .line_first = -1,
                                      .line_last = -1,
                                      .gap_prev = -1,
                                      .gap_next = -1};
    int64_t rname = intern(w, "whole program");
    if (rname < 0 || scal_strtab_add(&w->identity, "R") < 0) goto fail;
    root.name = root.label = (uint32_t)rname; /* stored, so that creating adds no string */
    if ((rc = scal_grow((void **)&w->regions, &w->regions_cap, 0, sizeof(root), 16)) < 0) goto fail;
    w->regions[w->nregions++] = root;
    struct scal_campaign_rows init = {.configs = rows,
                                      .nconfigs = nconfigs,
                                      .regions = &root,
                                      .nregions = 1,
                                      .strings = (const char *const *)w->strings.strings,
                                      .nstrings = w->strings.count};
    if ((rc = scal_campaign_file_create(path, meta, &init, &w->file)) < 0) goto fail;
    if ((rc = write_config_ranks(w, configs, nconfigs)) < 0) goto fail;
    w->strings_written = w->strings.count;
    if ((rc = flush_file(w->file, path)) < 0) goto fail;
    free(rows);
    *out = w;
    return SCAL_OK;
fail:
    free(rows);
    cw_free(w);
    return rc;
}

/* The campaign's strings and region identities, in memory for add_run. */
static int load_index(struct scal_cw *w, const struct scal_h5file *f)
{
    char **ids = NULL;
    size_t nregions = 0, nruns = 0;
    struct scal_region_id_row *regions = NULL;
    struct scal_run_row *runs = NULL;
    int rc = scal_table_read(f->id, &scal_table_campaign_regions, (void **)&regions, &nregions);
    if (rc == SCAL_OK) rc = scal_table_read(f->id, &scal_table_runs, (void **)&runs, &nruns);
    if (rc < 0) goto done;
    /* strtab index 0 is "": the file's string 0 must be "" as well */
    for (size_t i = 1; i < f->nstrings; i++)
        if (scal_strtab_add(&w->strings, f->strings[i]) != (int64_t)i) {
            rc = scal__fail(SCAL_EFORMAT, "'%s': /strings has duplicates (string %zu)", f->path, i);
            goto done;
        }
    w->strings_written = w->strings.count;
    rc = scal_region_identities(regions, nregions, f->strings, f->nstrings, &ids);
    if (rc < 0) goto done;
    for (size_t i = 0; i < nregions; i++)
        if (scal_strtab_add(&w->identity, ids[i]) != (int64_t)i + 1) {
            rc = scal__fail(SCAL_EFORMAT, "'%s': region %zu repeats another region's identity",
                            f->path, i);
            goto done;
        }
    for (size_t i = 0; i < nruns; i++)
        if (runs[i].id + 1 > w->next_run) w->next_run = runs[i].id + 1;
    w->regions = regions, w->nregions = w->regions_cap = nregions;
    regions = NULL;
done:
    scal_region_identities_free(ids, nregions);
    free(regions);
    free(runs);
    return rc;
}

int scal_cw_open(const char *path, unsigned open_flags, struct scal_cw **out)
{
    struct scal_h5file f;
    struct scal_cw *w = cw_new(path);
    *out = NULL;
    if (!w) return scal__fail(SCAL_ENOMEM, "out of memory opening '%s'", path);
    int rc = scal_h5file_open(path, open_flags | SCAL_OPEN_WRITE | SCAL_OPEN_CAMPAIGN, &f);
    if (rc < 0) {
        cw_free(w);
        return rc;
    }
    rc = load_index(w, &f);
    w->file = f.id; /* the writer owns the HDF5 file from here */
    f.id = H5I_INVALID_HID;
    scal_h5file_close(&f);
    if (rc < 0) {
        cw_free(w);
        return rc;
    }
    *out = w;
    return SCAL_OK;
}

/* Stores the labels of n regions about to be appended (region_identity.h): derived from the
 * campaign's rows, where a serial gap's neighbours may be regions of earlier runs. */
static int label_new_regions(struct scal_cw *w, struct scal_region_id_row *add, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        int rc = scal_grow((void **)&w->regions, &w->regions_cap, w->nregions + k,
                           sizeof(*w->regions), 16);
        if (rc < 0) return scal__fail(rc, "out of memory for %zu regions", w->nregions + n);
        w->regions[w->nregions + k] = add[k];
    }
    int rc = scal_region_labels_store(w->regions, w->nregions + n, &w->strings);
    for (size_t k = 0; k < n && rc == SCAL_OK; k++)
        add[k].label = w->regions[w->nregions + k].label;
    return rc;
}

/* Maps the payload's regions to campaign ids, appending regions seen for the first time. */
static int map_regions(struct scal_cw *w, const struct scal_cw_payload *p, uint32_t *map)
{
    char **ids = NULL;
    int rc = scal_region_identities(p->regions, p->nregions, p->strings, p->nstrings, &ids);
    if (rc < 0) return rc;
    struct scal_region_id_row *add = calloc(p->nregions ? p->nregions : 1, sizeof(*add));
    size_t nadd = 0;
    if (!add) rc = SCAL_ENOMEM;
    for (size_t i = 0; i < p->nregions && rc == SCAL_OK; i++) {
        int64_t known = scal_strtab_find(&w->identity, ids[i]);
        if (known > 0) {
            map[i] = (uint32_t)(known - 1);
            continue;
        }
        int64_t k = scal_strtab_add(&w->identity, ids[i]);
        if (k < 0) {
            rc = (int)k;
            break;
        }
        struct scal_region_id_row r = p->regions[i];
        map[i] = (uint32_t)(k - 1);
        r.id = map[i];
        r.label = SCAL_NO_STRING; /* the campaign's own, below */
        /* parents come first; a serial gap's neighbours may come later: those are mapped below */
        r.parent = r.parent >= 0 && (size_t)r.parent < i ? (int32_t)map[r.parent] : -1;
        if ((rc = remap_string(w, p, &r.name)) < 0 || (rc = remap_string(w, p, &r.module)) < 0 ||
            (rc = remap_string(w, p, &r.build_id)) < 0 || (rc = remap_string(w, p, &r.file)) < 0 ||
            (rc = remap_string(w, p, &r.function)) < 0)
            break;
        add[nadd++] = r;
    }
    /* gap neighbours: map now that every region of the payload has an id */
    for (size_t k = 0; k < nadd && rc == SCAL_OK; k++) {
        size_t src = 0;
        while (src < p->nregions && map[src] != add[k].id)
            src++;
        int32_t gp = p->regions[src].gap_prev, gn = p->regions[src].gap_next;
        add[k].gap_prev = gp >= 0 && (size_t)gp < p->nregions ? (int32_t)map[gp] : -1;
        add[k].gap_next = gn >= 0 && (size_t)gn < p->nregions ? (int32_t)map[gn] : -1;
    }
    if (rc == SCAL_OK && nadd) rc = label_new_regions(w, add, nadd);
    if (rc == SCAL_OK && nadd) rc = append(w, &scal_table_campaign_regions, add, nadd);
    if (rc == SCAL_OK) w->nregions += nadd;
    free(add);
    scal_region_identities_free(ids, p->nregions);
    return rc;
}

/* The rank rows of a payload: /run_ranks (source re-interned), /rank_region_stats and
 * /region_rank_summary, regions mapped through map (NULL: already campaign ids). */
static int append_rank_rows(struct scal_cw *w, uint32_t run, const struct scal_cw_payload *p,
                            const uint32_t *map)
{
    int rc = SCAL_OK;
    size_t n = p->nranks + p->nrank_stats + p->nrank_summary;
    if (!n) return SCAL_OK;
    struct scal_run_rank_row *ranks = malloc((p->nranks + 1) * sizeof(*ranks));
    struct scal_rank_region_stat_row *st = malloc((p->nrank_stats + 1) * sizeof(*st));
    struct scal_region_rank_summary_row *sum = malloc((p->nrank_summary + 1) * sizeof(*sum));
    size_t nst = 0, nsum = 0;
    if (!ranks || !st || !sum) rc = SCAL_ENOMEM;
    for (size_t i = 0; i < p->nranks && rc == SCAL_OK; i++) {
        ranks[i] = p->ranks[i];
        ranks[i].run = run;
        rc = remap_string(w, p, &ranks[i].source);
    }
    for (size_t i = 0; i < p->nrank_stats && rc == SCAL_OK; i++) {
        if (map && p->rank_stats[i].region >= p->nregions) continue;
        st[nst] = p->rank_stats[i];
        st[nst].run = run;
        if (map) st[nst].region = map[p->rank_stats[i].region];
        nst++;
    }
    for (size_t i = 0; i < p->nrank_summary && rc == SCAL_OK; i++) {
        if (map && p->rank_summary[i].region >= p->nregions) continue;
        sum[nsum] = p->rank_summary[i];
        sum[nsum].run = run;
        if (map) sum[nsum].region = map[p->rank_summary[i].region];
        nsum++;
    }
    if (rc == SCAL_OK && p->nranks) rc = append(w, &scal_table_run_ranks, ranks, p->nranks);
    if (rc == SCAL_OK && nst) rc = append(w, &scal_table_rank_region_stats, st, nst);
    if (rc == SCAL_OK && nsum) rc = append(w, &scal_table_region_rank_summary, sum, nsum);
    free(ranks), free(st), free(sum);
    return rc;
}

static int append_payload(struct scal_cw *w, uint32_t run, const struct scal_cw_payload *p)
{
    int rc = SCAL_ENOMEM;
    uint32_t *map = malloc((p->nregions ? p->nregions : 1) * sizeof(*map));
    struct scal_region_stat_row *stats = malloc((p->nstats ? p->nstats : 1) * sizeof(*stats));
    struct scal_thread_stat_row *threads =
        malloc((p->nthreads ? p->nthreads : 1) * sizeof(*threads));
    struct scal_run_sensor_value_row *values =
        malloc((p->nvalues ? p->nvalues : 1) * sizeof(*values));
    struct scal_run_sensor_sample_row *samples =
        malloc((p->nsamples ? p->nsamples : 1) * sizeof(*samples));
    struct scal_run_plugin_state_row *plugins =
        malloc((p->nplugins ? p->nplugins : 1) * sizeof(*plugins));
    size_t ns = 0, nt = 0, nv = 0;
    if (!map || !stats || !threads || !values || !samples || !plugins) goto done;
    if ((rc = map_regions(w, p, map)) < 0) goto done;
    for (size_t i = 0; i < p->nstats; i++)
        if (p->stats[i].region < p->nregions) {
            stats[ns] = p->stats[i];
            stats[ns].run = run;
            stats[ns++].region = map[p->stats[i].region];
        }
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i].region < p->nregions) {
            threads[nt] = p->threads[i];
            threads[nt].run = run;
            threads[nt++].region = map[p->threads[i].region];
        }
    for (size_t i = 0; i < p->nvalues && rc == SCAL_OK; i++) {
        struct scal_run_sensor_value_row v = p->values[i];
        if (v.region >= 0 && (size_t)v.region >= p->nregions) continue;
        v.run = run;
        if (v.region >= 0) v.region = (int32_t)map[v.region];
        if ((rc = remap_string(w, p, &v.metric)) == SCAL_OK) rc = remap_string(w, p, &v.unit);
        values[nv++] = v;
    }
    for (size_t i = 0; i < p->nsamples && rc == SCAL_OK; i++) {
        samples[i] = p->samples[i];
        samples[i].run = run;
        if ((rc = remap_string(w, p, &samples[i].metric)) == SCAL_OK)
            rc = remap_string(w, p, &samples[i].unit);
    }
    for (size_t i = 0; i < p->nplugins && rc == SCAL_OK; i++) {
        plugins[i] = p->plugins[i];
        plugins[i].run = run;
        if ((rc = remap_string(w, p, &plugins[i].name)) < 0 ||
            (rc = remap_string(w, p, &plugins[i].version)) < 0 ||
            (rc = remap_string(w, p, &plugins[i].reason)) < 0)
            break;
        rc = remap_string(w, p, &plugins[i].path);
    }
    if (rc == SCAL_OK) rc = append(w, &scal_table_region_stats, stats, ns);
    if (rc == SCAL_OK) rc = append(w, &scal_table_thread_stats, threads, nt);
    if (rc == SCAL_OK && nv) rc = append(w, &scal_table_run_sensor_values, values, nv);
    if (rc == SCAL_OK && p->nsamples)
        rc = append(w, &scal_table_run_sensor_samples, samples, p->nsamples);
    if (rc == SCAL_OK && p->nplugins)
        rc = append(w, &scal_table_run_plugin_states, plugins, p->nplugins);
    if (rc == SCAL_OK) rc = append_rank_rows(w, run, p, map);
done:
    free(map), free(stats), free(threads), free(values), free(samples), free(plugins);
    return rc;
}

/* Per-region aggregates over the ranks of one run, in campaign region ids. */
struct rank_agg {
    int32_t crit;    /* part holding the critical (slowest) rank's row, -1: no rank ran it */
    size_t crit_row; /* that row in the part's stats */
    double max, min, sum;
    uint32_t n;
};

/* A run of several MPI ranks read from their run files: the parts' regions unified with the
 * campaign's, then /region_stats (and /thread_stats, region sensor values) from the critical
 * rank of each region, every rank's rows in /rank_region_stats and the per-region summary;
 * whole-run sensor values, samples and plugin states from the lowest recorded rank. */
static int append_parts(struct scal_cw *w, uint32_t run, const struct scal_cw_payload *p)
{
    int rc = SCAL_OK;
    size_t np = p->nparts, nrank_rows = 0, nregions;
    uint32_t **maps = calloc(np ? np : 1, sizeof(*maps));
    struct rank_agg *agg = NULL;
    struct scal_cw_payload flat = {0};
    if (!maps) return scal__fail(SCAL_ENOMEM, "out of memory adding a run of %zu ranks", np);
    for (size_t k = 0; k < np && rc == SCAL_OK; k++) {
        const struct scal_cw_payload *q = &p->parts[k];
        maps[k] = malloc((q->nregions ? q->nregions : 1) * sizeof(**maps));
        rc = maps[k] ? map_regions(w, q, maps[k]) : SCAL_ENOMEM;
        nrank_rows += q->nstats;
    }
    nregions = w->identity.count ? w->identity.count - 1 : 0;
    agg = calloc(nregions ? nregions : 1, sizeof(*agg));
    flat.rank_stats = calloc(nrank_rows ? nrank_rows : 1, sizeof(*flat.rank_stats));
    flat.rank_summary = calloc(nregions ? nregions : 1, sizeof(*flat.rank_summary));
    if (rc == SCAL_OK && (!agg || !flat.rank_stats || !flat.rank_summary)) rc = SCAL_ENOMEM;
    for (size_t r = 0; rc == SCAL_OK && r < nregions; r++)
        agg[r].crit = -1;
    for (size_t k = 0; k < np && rc == SCAL_OK; k++) {
        const struct scal_cw_payload *q = &p->parts[k];
        for (size_t i = 0; i < q->nstats; i++) {
            if (q->stats[i].region >= q->nregions) continue;
            uint32_t r = maps[k][q->stats[i].region];
            struct scal_rank_region_stat_row *row = &flat.rank_stats[flat.nrank_stats++];
            double t = q->stats[i].time_total_s;
            row->run = run;
            row->rank = p->part_ranks[k];
            row->region = r;
#define COPY(h5, ctype, member) row->member = q->stats[i].member;
            SCAL_REGION_STATS_FIELDS(COPY)
#undef COPY
            struct rank_agg *a = &agg[r];
            if (a->crit < 0 || t > a->max) a->crit = (int32_t)k, a->crit_row = i;
            a->max = a->n && a->max > t ? a->max : t;
            a->min = a->n && a->min < t ? a->min : t;
            a->sum += t;
            a->n++;
        }
    }
    /* the critical path as a payload in campaign ids: regions map to themselves */
    size_t nthreads = 0, nvalues = 0;
    for (size_t k = 0; k < np; k++)
        nthreads += p->parts[k].nthreads, nvalues += p->parts[k].nvalues;
    struct scal_region_stat_row *stats = calloc(nregions ? nregions : 1, sizeof(*stats));
    struct scal_thread_stat_row *threads = calloc(nthreads ? nthreads : 1, sizeof(*threads));
    struct scal_run_sensor_value_row *values = calloc(nvalues ? nvalues : 1, sizeof(*values));
    size_t ns = 0, nt = 0, nv = 0;
    if (rc == SCAL_OK && (!stats || !threads || !values)) rc = SCAL_ENOMEM;
    for (size_t r = 0; r < nregions && rc == SCAL_OK; r++) {
        const struct rank_agg *a = &agg[r];
        if (a->crit < 0) continue;
        stats[ns] = p->parts[a->crit].stats[a->crit_row];
        stats[ns].run = run;
        stats[ns++].region = (uint32_t)r;
        double mean = a->sum / a->n;
        flat.rank_summary[flat.nrank_summary++] = (struct scal_region_rank_summary_row){
            run,    (uint32_t)r, a->n,   p->part_ranks[a->crit],
            a->max, mean,        a->min, a->max > 0 ? 1.0 - mean / a->max : 0.0};
    }
    for (size_t k = 0; k < np && rc == SCAL_OK; k++) {
        const struct scal_cw_payload *q = &p->parts[k];
        for (size_t i = 0; i < q->nthreads; i++) {
            if (q->threads[i].region >= q->nregions) continue;
            uint32_t r = maps[k][q->threads[i].region];
            if (agg[r].crit != (int32_t)k) continue;
            threads[nt] = q->threads[i];
            threads[nt].run = run;
            threads[nt++].region = r;
        }
        for (size_t i = 0; i < q->nvalues && rc == SCAL_OK; i++) {
            struct scal_run_sensor_value_row v = q->values[i];
            if (v.region >= 0 &&
                ((size_t)v.region >= q->nregions || agg[maps[k][v.region]].crit != (int32_t)k))
                continue;
            if (v.region < 0 && k != 0) continue;
            v.run = run;
            if (v.region >= 0) v.region = (int32_t)maps[k][v.region];
            if ((rc = remap_string(w, q, &v.metric)) == SCAL_OK) rc = remap_string(w, q, &v.unit);
            values[nv++] = v;
        }
    }
    if (rc == SCAL_OK) rc = append(w, &scal_table_region_stats, stats, ns);
    if (rc == SCAL_OK) rc = append(w, &scal_table_thread_stats, threads, nt);
    if (rc == SCAL_OK && nv) rc = append(w, &scal_table_run_sensor_values, values, nv);
    if (rc == SCAL_OK && np) {
        /* samples and plugin states of the lowest recorded rank */
        struct scal_cw_payload first = p->parts[0];
        first.nregions = first.nstats = first.nthreads = first.nvalues = 0;
        first.ranks = NULL, first.nranks = 0, first.rank_stats = NULL, first.nrank_stats = 0;
        first.rank_summary = NULL, first.nrank_summary = 0, first.nparts = 0;
        rc = append_payload(w, run, &first);
    }
    /* the ranks (recorded or not) with strings of p, and the rank rows built above */
    flat.strings = p->strings, flat.nstrings = p->nstrings;
    flat.ranks = p->ranks, flat.nranks = p->nranks;
    if (rc == SCAL_OK) rc = append_rank_rows(w, run, &flat, NULL);
    for (size_t k = 0; k < np; k++)
        free(maps[k]);
    free(maps), free(agg), free(stats), free(threads), free(values);
    free(flat.rank_stats), free(flat.rank_summary);
    return rc;
}

int scal_cw_add_run(struct scal_cw *w, const struct scal_cw_run *run,
                    const struct scal_cw_payload *payload, uint32_t *run_id)
{
    struct scal_run_row row = run->row;
    int64_t msg = intern(w, run->message), out = intern(w, run->stdout_tail);
    int64_t err = intern(w, run->stderr_tail);
    if (msg < 0 || out < 0 || err < 0) return scal__fail(SCAL_ENOMEM, "out of memory adding a run");
    row.id = w->next_run;
    row.message = (uint32_t)msg;
    row.stdout_tail = (uint32_t)out;
    row.stderr_tail = (uint32_t)err;
    int rc = !payload          ? SCAL_OK
             : payload->nparts ? append_parts(w, row.id, payload)
             : payload->nranks && !payload->nregions
                 ? append_rank_rows(w, row.id, payload, NULL) /* no rank left data */
                 : append_payload(w, row.id, payload);
    /* strings first and the /runs row last: a reader that finds the run finds all its rows */
    if (rc == SCAL_OK) rc = flush_strings(w);
    if (rc == SCAL_OK) rc = append(w, &scal_table_runs, &row, 1);
    if (rc == SCAL_OK) rc = flush_file(w->file, w->path);
    if (rc < 0) return rc;
    w->next_run++;
    if (run_id) *run_id = row.id;
    return SCAL_OK;
}

int scal_cw_close(struct scal_cw *w)
{
    if (!w) return SCAL_OK;
    close_tables(w);
    int rc = H5Fclose(w->file) < 0 ? scal__fail(SCAL_EIO, "cannot close '%s'", w->path) : SCAL_OK;
    w->file = -1;
    cw_free(w);
    return rc;
}
