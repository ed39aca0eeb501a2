// SPDX-License-Identifier: BSD-3-Clause
// Writes what the sensor session gathered into the run file: /sensors/plugins (availability and
// reasons), /sensors/values (run and per-region values, per thread and in total) and
// /sensors/samples (the sampler's time series).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "errmsg.h"
#include "sensor_hooks.h"
#include "tool.h"
#include "writer.h"

#ifdef SCAL_HAVE_PLUGIN_HOST

struct value_list {
    struct scal_sensor_value_row *rows;
    size_t n, cap;
};

static int push(struct value_list *l, struct scal_sensor_value_row r)
{
    if (scal_grow((void **)&l->rows, &l->cap, l->n, sizeof(*l->rows), 256) < 0) return SCAL_ENOMEM;
    l->rows[l->n++] = r;
    return SCAL_OK;
}

static int cmp_value(const void *a, const void *b)
{
    const struct scal_sensor_value_row *x = a, *y = b;
    if (x->region != y->region) return x->region < y->region ? -1 : 1;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    return x->metric < y->metric ? -1 : x->metric > y->metric;
}

/* Rows of the same (region, thread, metric), from region nodes the writer unified or from threads
 * that held the same team index, are summed (gauges: the largest value). */
static size_t merge_rows(struct value_list *l, const uint8_t *is_gauge)
{
    if (!l->n) return 0;
    qsort(l->rows, l->n, sizeof(*l->rows), cmp_value);
    size_t k = 0;
    for (size_t i = 1; i < l->n; i++) {
        struct scal_sensor_value_row *a = &l->rows[k], *b = &l->rows[i];
        if (a->region == b->region && a->thread == b->thread && a->metric == b->metric) {
            a->instances += b->instances;
            a->value = is_gauge[b->metric] ? fmax(a->value, b->value) : a->value + b->value;
        } else {
            l->rows[++k] = *b;
        }
    }
    return k + 1;
}

static int64_t str(struct scal_strtab *st, const char *s)
{
    return scal_strtab_add(st, s ? s : "");
}

static int write_plugins(struct scal_snap_builder *g, const struct scal_sensor_session *s,
                         struct scal_strtab *st)
{
    struct scal_plugin_state_row rows[SCAL_SENSOR_MAX_PLUGINS];
    for (uint32_t i = 0; i < s->nplugins; i++) {
        const struct scal_sensor_plugin *p = &s->plugins[i];
        const struct scal_plugin_desc *d = p->lp.desc;
        int64_t name = str(st, d ? d->name : p->lp.name), ver = str(st, d ? d->version : "");
        int64_t why = str(st, p->status < 0 ? p->why : "");
        int64_t path = str(st, p->lp.path);
        if (name < 0 || ver < 0 || why < 0 || path < 0) return SCAL_ENOMEM;
        rows[i] = (struct scal_plugin_state_row){
            .name = (uint32_t)name,
            .version = (uint32_t)ver,
            .kind = SCAL_PLUGIN_SENSOR,
            .available = p->status >= 0,
            .reason = (uint32_t)why,
            .path = (uint32_t)path,
        };
    }
    return scal_snap_table(g, "/sensors", "plugins", scal_table_plugin_states.fields,
                           scal_table_plugin_states.nfields, scal_table_plugin_states.row_size,
                           rows, s->nplugins);
}

/* String indices of every metric's name and unit, per plugin. */
static int metric_strings(const struct scal_sensor_plugin *p, struct scal_strtab *st,
                          uint32_t *name, uint32_t *unit)
{
    for (size_t m = 0; m < p->nmetrics; m++) {
        int64_t n = str(st, p->metrics[m].name), u = str(st, p->metrics[m].unit);
        if (n < 0 || u < 0) return SCAL_ENOMEM;
        name[m] = (uint32_t)n;
        unit[m] = (uint32_t)u;
    }
    return SCAL_OK;
}

/* The rows of one (node, team index) sum of one thread: its own row (thread-scope metrics) and its
 * share of the total over threads (thread = -1). acc belongs to that thread (see region_rows). */
__attribute__((no_sanitize("thread"))) static int emit(const struct scal_sensor_session *s,
                                                       int32_t region, int32_t team,
                                                       uint64_t inst_all, uint64_t inst_enc,
                                                       const double *acc, const uint32_t *name,
                                                       const uint32_t *unit, struct value_list *l)
{
    for (uint32_t m = 0; m < s->nregion; m++) {
        const struct scal_sensor_plugin *p = &s->plugins[s->region_plugin[m]];
        const struct scal_metric_desc *md = &p->metrics[s->region_metric[m]];
        uint32_t mi = p->region_base + s->region_metric[m];
        struct scal_sensor_value_row r = {region, -1, name[mi], unit[mi], inst_enc, acc[m]};
        if (md->scope == SCAL_SCOPE_THREAD) {
            struct scal_sensor_value_row own = r;
            own.thread = team;
            own.instances = inst_all;
            if (push(l, own) < 0) return SCAL_ENOMEM;
        } else if (!inst_enc) {
            continue; /* process scope: only the encountering thread's readings count */
        }
        if (push(l, r) < 0) return SCAL_ENOMEM;
    }
    return SCAL_OK;
}

/* Worker threads may still run (exit() inside a region): their sums are read as they are. */
__attribute__((no_sanitize("thread"))) static int
region_rows(const struct scal_sensor_session *s, const uint32_t *remap, uint32_t nnodes,
            const uint32_t *name, const uint32_t *unit, struct value_list *l)
{
    uint32_t nthreads = atomic_load(&s->nthreads);
    if (nthreads > SCAL_SENSOR_MAX_THREADS) nthreads = SCAL_SENSOR_MAX_THREADS;
    for (uint32_t ti = 0; ti < nthreads; ti++) {
        const struct scal_sensor_thread_ctx *t = s->threads[ti];
        if (!t) continue;
        for (uint32_t node = 0; node < nnodes && node < s->max_nodes; node++) {
            if (!t->inst_all[node]) continue;
            int32_t region = remap ? (int32_t)remap[node] : (int32_t)node;
            if (emit(s, region, t->team[node], t->inst_all[node], t->inst_enc[node],
                     t->acc + (size_t)node * s->nregion, name, unit, l) < 0)
                return SCAL_ENOMEM;
        }
        for (uint32_t k = 0; k < t->nside; k++) {
            uint32_t node = t->side_node[k];
            if (node >= nnodes || !t->side_inst_all[k]) continue;
            int32_t region = remap ? (int32_t)remap[node] : (int32_t)node;
            if (emit(s, region, t->side_team[k], t->side_inst_all[k], t->side_inst_enc[k],
                     t->side_acc + (size_t)k * s->nregion, name, unit, l) < 0)
                return SCAL_ENOMEM;
        }
    }
    return SCAL_OK;
}

static int write_samples(struct scal_snap_builder *g, const struct scal_sensor_session *s,
                         struct scal_strtab *st)
{
    uint32_t name[SCAL_SENSOR_MAX_PLUGINS][SCAL_SENSOR_MAX_METRICS];
    uint32_t unit[SCAL_SENSOR_MAX_PLUGINS][SCAL_SENSOR_MAX_METRICS];
    for (uint32_t i = 0; i < s->nplugins; i++) {
        const struct scal_sensor_plugin *p = &s->plugins[i];
        if (p->status >= 0 && (p->timing & SCAL_SENSOR_SAMPLED) &&
            metric_strings(p, st, name[i], unit[i]) < 0)
            return SCAL_ENOMEM;
    }
    struct scal_sensor_sample_row *rows = malloc((s->nsamples ? s->nsamples : 1) * sizeof(*rows));
    if (!rows) return SCAL_ENOMEM;
    for (size_t k = 0; k < s->nsamples; k++) {
        const struct scal_sensor_sample *x = &s->samples[k];
        rows[k] = (struct scal_sensor_sample_row){name[x->plugin][x->metric],
                                                  unit[x->plugin][x->metric], x->time_s, x->value};
    }
    int rc = scal_snap_table(g, "/sensors", "samples", scal_table_sensor_samples.fields,
                             scal_table_sensor_samples.nfields, scal_table_sensor_samples.row_size,
                             rows, s->nsamples);
    free(rows);
    if (rc == SCAL_OK)
        rc = scal_snap_attr_f64(g, "/sensors", "sample_period_s", (double)s->period_ns * 1e-9);
    if (rc == SCAL_OK)
        rc = scal_snap_attr_i64(g, "/sensors", "samples_decimated", (int64_t)s->samples_decimated);
    return rc;
}

int scal_sensor_session_write(struct scal_sensor_session *s, struct scal_snap_builder *file,
                              struct scal_strtab *st, uint32_t nnodes,
                              const uint32_t *region_of_node)
{
    struct value_list l = {0};
    uint32_t name[SCAL_SENSOR_MAX_PLUGINS * SCAL_SENSOR_MAX_METRICS];
    uint32_t unit[SCAL_SENSOR_MAX_PLUGINS * SCAL_SENSOR_MAX_METRICS];
    uint8_t *is_gauge = NULL; /* by metric string index */
    int rc = SCAL_OK;
    struct scal_snap_builder *g = file;
    scal_snap_group(g, "/sensors");
    rc = write_plugins(g, s, st);
    /* run readings: one row each, the whole run */
    for (uint32_t i = 0; i < s->nplugins && rc == SCAL_OK; i++) {
        const struct scal_sensor_plugin *p = &s->plugins[i];
        if (p->status < 0) continue; /* the host bounds nmetrics by SCAL_SENSOR_MAX_METRICS */
        /* region metrics are indexed by region_base + metric, run-only plugins need their own */
        uint32_t *pn = name + (size_t)i * SCAL_SENSOR_MAX_METRICS;
        uint32_t *pu = unit + (size_t)i * SCAL_SENSOR_MAX_METRICS;
        rc = metric_strings(p, st, pn, pu);
        if (rc < 0 || !(p->timing & SCAL_SENSOR_RUN) || p->run_status < 0) continue;
        for (size_t m = 0; m < p->nmetrics && rc == SCAL_OK; m++) {
            double v = p->metrics[m].kind == SCAL_METRIC_GAUGE ? p->run_end[m]
                                                               : p->run_end[m] - p->run_begin[m];
            rc = push(&l, (struct scal_sensor_value_row){-1, -1, pn[m], pu[m], 1, v});
        }
    }
    if (rc == SCAL_OK && s->nregion) {
        uint32_t rname[SCAL_SENSOR_MAX_METRICS], runit[SCAL_SENSOR_MAX_METRICS];
        for (uint32_t m = 0; m < s->nregion; m++) {
            uint32_t pi = s->region_plugin[m], mi = s->region_metric[m];
            rname[s->plugins[pi].region_base + mi] =
                name[(size_t)pi * SCAL_SENSOR_MAX_METRICS + mi];
            runit[s->plugins[pi].region_base + mi] =
                unit[(size_t)pi * SCAL_SENSOR_MAX_METRICS + mi];
        }
        rc = region_rows(s, region_of_node, nnodes, rname, runit, &l);
    }
    if (rc == SCAL_OK && !(is_gauge = calloc(st->count + 1, 1))) rc = SCAL_ENOMEM;
    for (uint32_t i = 0; i < s->nplugins && rc == SCAL_OK; i++)
        for (size_t m = 0; m < s->plugins[i].nmetrics && s->plugins[i].status >= 0; m++)
            is_gauge[name[(size_t)i * SCAL_SENSOR_MAX_METRICS + m]] =
                s->plugins[i].metrics[m].kind == SCAL_METRIC_GAUGE;
    size_t n = rc == SCAL_OK ? merge_rows(&l, is_gauge) : 0;
    if (rc == SCAL_OK)
        rc = scal_snap_table(g, "/sensors", "values", scal_table_sensor_values.fields,
                             scal_table_sensor_values.nfields, scal_table_sensor_values.row_size,
                             l.rows, n);
    if (rc == SCAL_OK) rc = write_samples(g, s, st);
    uint64_t errors = 0;
    for (uint32_t ti = 0; ti < atomic_load(&s->nthreads) && ti < SCAL_SENSOR_MAX_THREADS; ti++)
        if (s->threads[ti]) errors += s->threads[ti]->errors;
    if (rc == SCAL_OK) rc = scal_snap_attr_i64(g, "/sensors", "read_errors", (int64_t)errors);
    if (rc == SCAL_OK)
        rc = scal_snap_attr_i64(g, "/sensors", "threads_not_measured",
                                (int64_t)atomic_load(&s->threads_dropped));
    if (rc == SCAL_OK)
        rc = scal_snap_attr_i64(g, "/sensors", "team_index_changes",
                                (int64_t)atomic_load(&s->team_changes));
    free(l.rows);
    free(is_gauge);
    return rc;
}

#else

int scal_sensor_session_write(struct scal_sensor_session *s, struct scal_snap_builder *file,
                              struct scal_strtab *st, uint32_t nnodes,
                              const uint32_t *region_of_node)
{
    return SCAL_OK; /* built without the plugin host: no session, nothing to write */
}

#endif
