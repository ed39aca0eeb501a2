// SPDX-License-Identifier: BSD-3-Clause
// JSON exports (jansson): Extra-P JSON Lines, Hatchet's literal tree, Chrome/Perfetto trace events.
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "export.h"
#include "scal/status.h"
#include "scal_format.h"

#define US_PER_S 1e6

static bool usable(const struct tidy *t, const struct export_opts *o, size_t s)
{
    const struct tidy_run *r = tidy_run_of(t, t->stats[s].run);
    return r && (o->all_runs || r->status == SCAL_RUN_OK) && t->stats[s].count > 0 &&
           isfinite(t->stats[s].time_total_s);
}

static int write_json(json_t *doc, FILE *out, size_t flags)
{
    if (!doc) return scal__fail(SCAL_ENOMEM, "out of memory building JSON");
    int rc = json_dumpf(doc, out, flags) < 0 || fputc('\n', out) == EOF
                 ? scal__fail(SCAL_EIO, "cannot write the JSON output")
                 : SCAL_OK;
    json_decref(doc);
    return rc;
}

/* ---- Extra-P ----------------------------------------------------------------------------------
 */

static int input_size(const struct export_opts *o, const char *label, double *size)
{
    for (size_t i = 0; i < o->nsizes; i++)
        if (!strcmp(o->sizes[i].label, label)) return (*size = o->sizes[i].size), SCAL_OK;
    char *end = NULL;
    double v = strtod(label, &end);
    if (end != label && *end == '\0' && isfinite(v)) return (*size = v), SCAL_OK;
    return scal__fail(SCAL_EINVAL,
                      "input '%s' has no numeric size: Extra-P models over numbers (give "
                      "--size %s=N)",
                      label, label);
}

int export_extrap(const struct tidy *t, const struct export_opts *o, FILE *out)
{
    int rc = SCAL_OK;
    for (size_t s = 0; s < t->nstats && rc == SCAL_OK; s++) {
        if (!usable(t, o, s)) continue;
        const struct tidy_run *r = tidy_run_of(t, t->stats[s].run);
        double size;
        if ((rc = input_size(o, r->input, &size)) < 0) break;
        json_t *line =
            json_pack("{s:{s:i,s:f},s:s,s:s,s:f}", "params", "threads", (json_int_t)r->threads,
                      "input", size, "callpath", t->callpath[t->stats[s].region], "metric", "time",
                      "value", t->stats[s].time_total_s);
        rc = write_json(line, out, JSON_COMPACT | JSON_REAL_PRECISION(17));
    }
    return rc;
}

/* ---- Hatchet ----------------------------------------------------------------------------------
 */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    if (!n) return NAN;
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The metrics of one region over the usable runs of one (threads, input): medians of the runs'
 * values, so a tree is what the diagrams' cell of that configuration shows. */
struct cell {
    int32_t threads;
    const char *input;
};

static bool in_cell(const struct tidy *t, const struct export_opts *o, size_t s,
                    const struct cell *c)
{
    const struct tidy_run *r = tidy_run_of(t, t->stats[s].run);
    return usable(t, o, s) && r->threads == c->threads && !strcmp(r->input, c->input);
}

/* Hatchet metric names and the statistics they come from. */
static const char *const hatchet_metrics[] = {"time (inc)",   "count",     "work",
                                              "barrier wait", "lock wait", "imbalance"};

static double hatchet_value(const struct scal_region_stat_row *s, size_t metric)
{
    const double v[] = {s->time_total_s,    (double)s->count, s->work_total_s,
                        s->barrier_total_s, s->lock_total_s,  s->imbalance};
    return v[metric];
}

static json_t *region_metrics(const struct tidy *t, const struct export_opts *o,
                              const struct cell *c, uint32_t region, double *scratch)
{
    json_t *m = json_object();
    for (size_t k = 0; k < sizeof(hatchet_metrics) / sizeof(hatchet_metrics[0]); k++) {
        size_t n = 0;
        for (size_t s = 0; s < t->nstats; s++)
            if (t->stats[s].region == region && in_cell(t, o, s, c))
                scratch[n++] = hatchet_value(&t->stats[s], k);
        double v = median(scratch, n);
        if (n && isfinite(v)) json_object_set_new(m, hatchet_metrics[k], json_real(v));
    }
    return m;
}

static json_t *hatchet_node(const struct tidy *t, const struct export_opts *o, const struct cell *c,
                            uint32_t region, double *scratch)
{
    json_t *metrics = region_metrics(t, o, c, region, scratch), *children = json_array();
    double inclusive = json_real_value(json_object_get(metrics, "time (inc)")), below = 0;
    for (size_t k = region + 1; k < t->nregions; k++) {
        if (t->regions[k].parent != (int32_t)region) continue;
        json_t *child = hatchet_node(t, o, c, (uint32_t)k, scratch);
        json_t *ct = json_object_get(json_object_get(child, "metrics"), "time (inc)");
        if (!ct) { /* not in this configuration: a gap, not a node */
            json_decref(child);
            continue;
        }
        below += json_real_value(ct);
        json_array_append_new(children, child);
    }
    /* exclusive time: what the region's children do not cover (never negative: children of
     * several encountering threads can sum above their parent's wall time) */
    if (json_object_get(metrics, "time (inc)"))
        json_object_set_new(metrics, "time", json_real(inclusive > below ? inclusive - below : 0));
    return json_pack("{s:{s:s,s:s},s:o,s:o}", "frame", "name", t->labels[region], "type",
                     scal_region_kind_name(t->regions[region].kind), "metrics", metrics, "children",
                     children);
}

int export_hatchet(const struct tidy *t, const struct export_opts *o, FILE *out)
{
    double *scratch = malloc((t->nstats + 1) * sizeof(*scratch));
    json_t *doc = json_array();
    if (!scratch || !doc) {
        free(scratch);
        json_decref(doc);
        return scal__fail(SCAL_ENOMEM, "out of memory for the Hatchet tree");
    }
    /* one tree per configuration: inputs in plan order, thread counts ascending */
    int32_t *threads = malloc((t->nruns + 1) * sizeof(*threads));
    size_t nthreads = 0;
    for (size_t r = 0; threads && r < t->nruns; r++) {
        size_t k = 0;
        while (k < nthreads && threads[k] < t->runs[r].threads)
            k++;
        if (k < nthreads && threads[k] == t->runs[r].threads) continue;
        memmove(threads + k + 1, threads + k, (nthreads - k) * sizeof(*threads));
        threads[k] = t->runs[r].threads;
        nthreads++;
    }
    for (size_t in = 0; threads && in < t->ninputs && t->nregions; in++)
        for (size_t k = 0; k < nthreads; k++) {
            struct cell c = {threads[k], t->inputs[in]};
            json_t *root = hatchet_node(t, o, &c, 0, scratch);
            if (!json_object_get(json_object_get(root, "metrics"), "time (inc)")) {
                json_decref(root); /* no successful run of this configuration */
                continue;
            }
            json_object_set_new(json_object_get(root, "metrics"), "threads",
                                json_integer(c.threads));
            json_object_set_new(json_object_get(root, "frame"), "input", json_string(c.input));
            json_array_append_new(doc, root);
        }
    free(threads);
    free(scratch);
    if (json_array_size(doc) == 0) {
        json_decref(doc);
        return scal__fail(SCAL_EEMPTY, "%s holds no successful run to export", t->f.path);
    }
    return write_json(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

/* ---- Chrome trace events ----------------------------------------------------------------------
 */

static const char *state_name(uint8_t state)
{
    switch (state) {
    case SCAL_STATE_WORK:
        return "work";
    case SCAL_STATE_BARRIER:
        return "barrier wait";
    case SCAL_STATE_LOCK:
        return "lock wait";
    default:
        return "task";
    }
}

static json_t *span(const char *name, const char *cat, uint32_t tid, double begin_s, double end_s,
                    const char *region)
{
    return json_pack("{s:s,s:s,s:s,s:f,s:f,s:i,s:I,s:{s:s}}", "name", name, "cat", cat, "ph", "X",
                     "ts", begin_s * US_PER_S, "dur", (end_s - begin_s) * US_PER_S, "pid", 1, "tid",
                     (json_int_t)tid, "args", "region", region);
}

int export_chrome(const struct tidy *t, FILE *out)
{
    struct scal_trace_instance_row *inst = NULL;
    struct scal_trace_state_row *states = NULL;
    size_t ninst = 0, nstates = 0;
    int rc;
    if (t->f.campaign)
        return scal__fail(SCAL_EINVAL, "%s is a campaign: the trace export takes a run file",
                          t->f.path);
    if ((rc = scal_table_read_opt(t->f.id, &scal_table_trace_instances, (void **)&inst, &ninst)) <
            0 ||
        (rc = scal_table_read_opt(t->f.id, &scal_table_trace_states, (void **)&states, &nstates)) <
            0)
        goto done;
    if (ninst == 0 && nstates == 0) {
        rc = scal__fail(SCAL_EEMPTY,
                        "%s has no trace: record the run with SCAL_TRACE=N (entries per thread)",
                        t->f.path);
        goto done;
    }
    json_t *events = json_array();
    uint32_t maxtid = 0;
    for (size_t i = 0; i < ninst; i++) {
        const char *label = inst[i].region < t->nregions ? t->labels[inst[i].region] : "?";
        json_array_append_new(
            events, span(label, "region", inst[i].thread, inst[i].begin_s, inst[i].end_s, label));
        if (inst[i].thread > maxtid) maxtid = inst[i].thread;
    }
    for (size_t i = 0; i < nstates; i++) {
        const char *label = states[i].region < t->nregions ? t->labels[states[i].region] : "?";
        json_array_append_new(events, span(state_name(states[i].state), "state", states[i].thread,
                                           states[i].begin_s, states[i].end_s, label));
        if (states[i].thread > maxtid) maxtid = states[i].thread;
    }
    for (uint32_t tid = 0; tid <= maxtid; tid++) {
        char name[32];
        snprintf(name, sizeof(name), "thread %u", tid);
        json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:I,s:{s:s}}", "name", "thread_name",
                                                "ph", "M", "pid", 1, "tid", (json_int_t)tid, "args",
                                                "name", name));
    }
    rc = write_json(json_pack("{s:o,s:s}", "traceEvents", events, "displayTimeUnit", "ms"), out,
                    JSON_COMPACT | JSON_REAL_PRECISION(17));
done:
    free(inst);
    free(states);
    return rc;
}
