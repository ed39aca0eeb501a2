// SPDX-License-Identifier: BSD-3-Clause
// The content invariants of scal files, shared by scal check and the readers (validate.h).
#include "validate.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "h5util.h"
#include "layout.h"
#include "scal_format.h"
#include "validate_layout.h"
#include "scal/status.h"

struct validation {
    const struct scal_h5file *f;
    struct scal__problems out;
};

void scal__problem(struct scal__problems *p, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    p->count++;
    if (p->cb) p->cb(p->arg, buf);
}

#define problem(v, ...) scal__problem(&(v)->out, __VA_ARGS__)

static void check_string(struct validation *v, const char *table, size_t row, const char *member,
                         uint32_t idx)
{
    if (idx >= v->f->nstrings)
        problem(v, "/%s row %zu: %s refers to string %u, but /strings has %zu", table, row, member,
                idx, v->f->nstrings);
}

/* The region tree: ids are row numbers, parents precede children, depths follow, kinds are known,
 * serial gaps name existing neighbours. */
static void check_regions(struct validation *v, const struct scal_region_id_row *rows,
                          size_t stride, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct scal_region_id_row *r = (const void *)((const char *)rows + i * stride);
        if (r->id != i) problem(v, "/regions row %zu: id is %u", i, r->id);
        if (r->kind > SCAL_KIND_TASK) problem(v, "/regions row %zu: unknown kind %u", i, r->kind);
        if (i == 0 && (r->kind != SCAL_KIND_ROOT || r->parent != -1))
            problem(v, "/regions row 0 is not the root (kind %u, parent %d)", r->kind, r->parent);
        if (i > 0) {
            if (r->parent < 0 || (size_t)r->parent >= n)
                problem(v, "/regions row %zu: parent %d does not exist", i, r->parent);
            else if ((size_t)r->parent >= i)
                problem(v,
                        "/regions row %zu: parent %d is not an earlier row (the tree has a cycle "
                        "or is out of order)",
                        i, r->parent);
            else {
                const struct scal_region_id_row *p =
                    (const void *)((const char *)rows + (size_t)r->parent * stride);
                if (r->depth != p->depth + 1)
                    problem(v, "/regions row %zu: depth %u under a parent of depth %u", i, r->depth,
                            p->depth);
            }
        }
        if (r->gap_prev < -1 || (r->gap_prev >= 0 && (size_t)r->gap_prev >= n))
            problem(v, "/regions row %zu: gap_prev %d does not exist", i, r->gap_prev);
        if (r->gap_next < -1 || (r->gap_next >= 0 && (size_t)r->gap_next >= n))
            problem(v, "/regions row %zu: gap_next %d does not exist", i, r->gap_next);
        if (r->kind == SCAL_KIND_SERIAL)
            for (int k = 0; k < 2; k++) {
                int32_t g = k ? r->gap_next : r->gap_prev;
                if (g < 0 || (size_t)g >= n) continue;
                const struct scal_region_id_row *q =
                    (const void *)((const char *)rows + (size_t)g * stride);
                if ((size_t)g >= i)
                    problem(v, "/regions row %zu: the serial gap's %s %d is not an earlier row", i,
                            k ? "gap_next" : "gap_prev", (int)g);
                else if (q->kind == SCAL_KIND_SERIAL)
                    problem(v,
                            "/regions row %zu: the serial gap's %s %d is a serial gap too (a gap "
                            "lies between two regions)",
                            i, k ? "gap_next" : "gap_prev", (int)g);
            }
        check_string(v, "regions", i, "name", r->name);
        check_string(v, "regions", i, "module", r->module);
        check_string(v, "regions", i, "build_id", r->build_id);
        check_string(v, "regions", i, "file", r->file);
        check_string(v, "regions", i, "function", r->function);
        check_string(v, "regions", i, "label", r->label);
    }
}

static int read_rows(struct validation *v, const struct scal_table_desc *d, void **rows, size_t *n)
{
    int rc = scal_table_read(v->f->id, d, rows, n);
    if (rc < 0) problem(v, "%s", scal__last_error(rc));
    return rc;
}

static void check_run_content(struct validation *v)
{
    struct scal_region_row *regions = NULL;
    struct scal_thread_row *threads = NULL;
    size_t nregions = 0, nthreads = 0;
    if (read_rows(v, &scal_table_run_regions, (void **)&regions, &nregions) == 0) {
        if (nregions == 0) problem(v, "/regions is empty (every run has at least the root)");
        /* The identity members lead struct scal_region_row exactly as in struct
         * scal_region_id_row. */
        check_regions(v, (const struct scal_region_id_row *)regions, sizeof(*regions), nregions);
    }
    if (scal_h5_exists(v->f->id, "threads") &&
        read_rows(v, &scal_table_threads, (void **)&threads, &nthreads) == 0)
        for (size_t i = 0; i < nthreads; i++)
            if (threads[i].region >= nregions)
                problem(v, "/threads row %zu: region %u does not exist", i, threads[i].region);
    free(regions);
    free(threads);
}

/* Sorted ids, so that a reference is checked by binary search (2,000 runs x 300 regions of
 * /region_stats rows against /runs). */
static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static bool id_in(const uint32_t *sorted, size_t n, uint32_t id)
{
    return n && bsearch(&id, sorted, n, sizeof(*sorted), cmp_u32);
}

/* Only the references of /region_stats are read (HDF5 converts by member name). */
struct stat_ref {
    uint32_t run, region;
};
static const struct scal_h5_field stat_ref_fields[] = {
    SCAL_H5_FIELD(SCAL_H5_U32, struct stat_ref, run),
    SCAL_H5_FIELD(SCAL_H5_U32, struct stat_ref, region),
};

/* (run, region, rank) of a /rank_region_stats row, sorted for the summary's critical rank. */
struct rank_key {
    uint32_t run, region;
    int32_t rank;
};

static int cmp_rank_key(const void *a, const void *b)
{
    const struct rank_key *x = a, *y = b;
    if (x->run != y->run) return x->run < y->run ? -1 : 1;
    if (x->region != y->region) return x->region < y->region ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The MPI tables (optional): rows name existing configurations, runs and regions; ranks in range;
 * a summary's critical rank ran the region; min <= mean <= max. The id lists are sorted. */
static void check_rank_tables(struct validation *v, const uint32_t *config_ids, size_t nconfigs,
                              const uint32_t *run_ids, size_t nruns, size_t nregions)
{
    struct scal_config_rank_row *cr = NULL;
    struct scal_run_rank_row *rr = NULL;
    struct scal_rank_region_stat_row *rs = NULL;
    struct scal_region_rank_summary_row *sum = NULL;
    struct rank_key *keys = NULL;
    size_t ncr = 0, nrr = 0, nrs = 0, nsum = 0;
    hid_t f = v->f->id;
    int rc = scal_table_read_opt(f, &scal_table_config_ranks, (void **)&cr, &ncr);
    if (rc == SCAL_OK) rc = scal_table_read_opt(f, &scal_table_run_ranks, (void **)&rr, &nrr);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_rank_region_stats, (void **)&rs, &nrs);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_region_rank_summary, (void **)&sum, &nsum);
    if (rc < 0) problem(v, "%s", scal__last_error(rc));
    if (rc == SCAL_OK && !(keys = malloc((nrs + 1) * sizeof(*keys)))) {
        problem(v, "out of memory");
        rc = SCAL_ENOMEM;
    }
    for (size_t i = 0; rc == SCAL_OK && i < ncr; i++) {
        if (!id_in(config_ids, nconfigs, cr[i].config))
            problem(v, "/config_ranks row %zu: configuration %u does not exist", i, cr[i].config);
        if (cr[i].ranks < 1) problem(v, "/config_ranks row %zu: %d ranks", i, cr[i].ranks);
    }
    for (size_t i = 0; rc == SCAL_OK && i < nrr; i++) {
        if (!id_in(run_ids, nruns, rr[i].run))
            problem(v, "/run_ranks row %zu: run %u does not exist", i, rr[i].run);
        if (rr[i].rank < 0 || (rr[i].ranks > 0 && rr[i].rank >= rr[i].ranks))
            problem(v, "/run_ranks row %zu: rank %d of %d", i, rr[i].rank, rr[i].ranks);
        if (rr[i].recorded > 1) problem(v, "/run_ranks row %zu: recorded is %u", i, rr[i].recorded);
        check_string(v, "run_ranks", i, "source", rr[i].source);
    }
    for (size_t i = 0; rc == SCAL_OK && i < nrs; i++) {
        if (!id_in(run_ids, nruns, rs[i].run))
            problem(v, "/rank_region_stats row %zu: run %u does not exist", i, rs[i].run);
        if (rs[i].region >= nregions)
            problem(v, "/rank_region_stats row %zu: region %u does not exist", i, rs[i].region);
        if (rs[i].rank < 0) problem(v, "/rank_region_stats row %zu: rank %d", i, rs[i].rank);
        keys[i] = (struct rank_key){rs[i].run, rs[i].region, rs[i].rank};
    }
    if (rc == SCAL_OK && nrs) qsort(keys, nrs, sizeof(*keys), cmp_rank_key);
    for (size_t i = 0; rc == SCAL_OK && i < nsum; i++) {
        struct rank_key k = {sum[i].run, sum[i].region, sum[i].critical_rank};
        if (!id_in(run_ids, nruns, sum[i].run))
            problem(v, "/region_rank_summary row %zu: run %u does not exist", i, sum[i].run);
        if (sum[i].region >= nregions)
            problem(v, "/region_rank_summary row %zu: region %u does not exist", i, sum[i].region);
        if (!nrs || !bsearch(&k, keys, nrs, sizeof(*keys), cmp_rank_key))
            problem(v, "/region_rank_summary row %zu: critical rank %d has no row for region %u", i,
                    sum[i].critical_rank, sum[i].region);
        if (!(sum[i].rank_time_min_s <= sum[i].rank_time_mean_s * (1 + 1e-12) &&
              sum[i].rank_time_mean_s <= sum[i].rank_time_max_s * (1 + 1e-12)))
            problem(v, "/region_rank_summary row %zu: min %g, mean %g, max %g out of order", i,
                    sum[i].rank_time_min_s, sum[i].rank_time_mean_s, sum[i].rank_time_max_s);
    }
    free(cr), free(rr), free(rs), free(sum), free(keys);
}

/* (config, repetition) of a run: one measurement of one configuration, never recorded twice (a
 * rebuild that took a journal record twice would give two). */
static int cmp_slot(const void *a, const void *b)
{
    const struct scal_run_row *x = *(const struct scal_run_row *const *)a,
                              *y = *(const struct scal_run_row *const *)b;
    if (x->config != y->config) return x->config < y->config ? -1 : 1;
    return (x->repetition > y->repetition) - (x->repetition < y->repetition);
}

static void check_run_slots(struct validation *v, const struct scal_run_row *runs, size_t nruns)
{
    const struct scal_run_row **by = malloc((nruns + 1) * sizeof(*by));
    if (!by) {
        problem(v, "out of memory");
        return;
    }
    for (size_t i = 0; i < nruns; i++)
        by[i] = &runs[i];
    qsort(by, nruns, sizeof(*by), cmp_slot);
    for (size_t i = 1; i < nruns; i++)
        if (cmp_slot(&by[i], &by[i - 1]) == 0)
            problem(v, "/runs: runs %u and %u are both repetition %u of configuration %u",
                    by[i - 1]->id, by[i]->id, by[i]->repetition, by[i]->config);
    free(by);
}

static void check_campaign_content(struct validation *v)
{
    struct scal_config_row *configs = NULL;
    struct scal_run_row *runs = NULL;
    struct scal_region_id_row *regions = NULL;
    struct stat_ref *stats = NULL;
    size_t nconfigs = 0, nruns = 0, nregions = 0, nstats = 0;
    uint32_t *config_ids = NULL, *run_ids = NULL;
    if (read_rows(v, &scal_table_configs, (void **)&configs, &nconfigs) < 0 ||
        read_rows(v, &scal_table_runs, (void **)&runs, &nruns) < 0 ||
        read_rows(v, &scal_table_campaign_regions, (void **)&regions, &nregions) < 0)
        goto done;
    int rc = scal_h5_read_table(v->f->id, scal_table_region_stats.name, stat_ref_fields,
                                sizeof(stat_ref_fields) / sizeof(stat_ref_fields[0]),
                                sizeof(*stats), (void **)&stats, &nstats);
    if (rc < 0) {
        problem(v, "%s", scal__last_error(rc));
        goto done;
    }
    config_ids = calloc(nconfigs + 1, sizeof(*config_ids));
    run_ids = calloc(nruns + 1, sizeof(*run_ids));
    if (!config_ids || !run_ids) {
        problem(v, "out of memory");
        goto done;
    }
    /* every configuration's input is one of the plan's (readers index /campaign/inputs by it) */
    hssize_t ninputs = -1;
    if (scal_h5_exists(v->f->id, "campaign") && scal_h5_exists(v->f->id, "campaign/inputs")) {
        hid_t d = H5Dopen2(v->f->id, "campaign/inputs", H5P_DEFAULT);
        hid_t sp = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
        ninputs = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
        if (sp >= 0) H5Sclose(sp);
        if (d >= 0) H5Dclose(d);
        if (ninputs < 0) problem(v, "/campaign/inputs cannot be read");
    }
    for (size_t i = 0; i < nconfigs; i++) {
        config_ids[i] = configs[i].id;
        if (ninputs >= 0 && configs[i].input >= (uint64_t)ninputs)
            problem(v, "/configs row %zu: input %u is not one of the %lld planned inputs", i,
                    configs[i].input, (long long)ninputs);
        if (configs[i].id != i) problem(v, "/configs row %zu: id is %u", i, configs[i].id);
        check_string(v, "configs", i, "input_label", configs[i].input_label);
        check_string(v, "configs", i, "affinity", configs[i].affinity);
        check_string(v, "configs", i, "argv", configs[i].argv);
        if (configs[i].threads < 1)
            problem(v, "/configs row %zu: %d threads", i, configs[i].threads);
    }
    qsort(config_ids, nconfigs, sizeof(*config_ids), cmp_u32);
    for (size_t i = 0; i < nruns; i++) {
        run_ids[i] = runs[i].id;
        /* ids are given in order from 0 (scal_cw_add_run): one out of range is damage, and readers
         * size their tables by it */
        if (runs[i].id >= nruns)
            problem(v, "/runs row %zu: id %u is out of range (%zu runs)", i, runs[i].id, nruns);
        if (!id_in(config_ids, nconfigs, runs[i].config))
            problem(v, "/runs row %zu: configuration %u does not exist", i, runs[i].config);
        if (runs[i].status > SCAL_RUN_NODATA)
            problem(v, "/runs row %zu: unknown status %u", i, runs[i].status);
        check_string(v, "runs", i, "message", runs[i].message);
        check_string(v, "runs", i, "stdout_tail", runs[i].stdout_tail);
        check_string(v, "runs", i, "stderr_tail", runs[i].stderr_tail);
    }
    qsort(run_ids, nruns, sizeof(*run_ids), cmp_u32);
    for (size_t i = 1; i < nruns; i++)
        if (run_ids[i] == run_ids[i - 1]) problem(v, "/runs: run id %u is used twice", run_ids[i]);
    check_run_slots(v, runs, nruns);
    if (nregions) check_regions(v, regions, sizeof(*regions), nregions);
    for (size_t i = 0; i < nstats; i++) {
        if (!id_in(run_ids, nruns, stats[i].run))
            problem(v, "/region_stats row %zu: run %u does not exist", i, stats[i].run);
        if (stats[i].region >= nregions)
            problem(v, "/region_stats row %zu: region %u does not exist", i, stats[i].region);
    }
    check_rank_tables(v, config_ids, nconfigs, run_ids, nruns, nregions);
done:
    free(config_ids);
    free(run_ids);
    free(configs);
    free(runs);
    free(regions);
    free(stats);
}

size_t scal_validate(const struct scal_h5file *f, void (*cb)(void *arg, const char *problem),
                     void *arg)
{
    struct validation v = {f, {cb, arg, 0}};
    /* the content checks read the tables as the layout says they are */
    if (scal__validate_layout(f, &v.out) > 0) return v.out.count;
    if (f->campaign)
        check_campaign_content(&v);
    else
        check_run_content(&v);
    return v.out.count;
}

static void keep_first(void *arg, const char *text)
{
    char *first = arg;
    if (!*first) snprintf(first, 1024, "%s", text);
}

int scal_validate_file(const struct scal_h5file *f)
{
    char first[1024] = "";
    size_t n = scal_validate(f, keep_first, first);
    if (n == 0) return SCAL_OK;
    if (n == 1)
        return scal__fail(SCAL_EFORMAT, "%s: %s (scal check lists the problems)", f->path, first);
    return scal__fail(SCAL_EFORMAT, "%s: %s, and %zu more problem%s (scal check lists them)",
                      f->path, first, n - 1, n > 2 ? "s" : "");
}
