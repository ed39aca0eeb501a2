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

/* A region's time, as scal report takes it (postproc/load.c): its wall-clock time, the summed
 * time in files from before time_wall_s. */
static double region_time(const struct scal_region_stat_row *st)
{
    return isfinite(st->time_wall_s) && st->time_wall_s > 0 ? st->time_wall_s : st->time_total_s;
}

/* A (run, region) row that holds a measurement: the run counts (successful, or --all-runs) and
 * the region was entered with a valid time (as postproc's loader requires of its samples). */
static bool usable(const struct tidy *t, const struct export_opts *o, size_t s)
{
    const struct scal_read_run *r = tidy_run_of(t, t->r.stats[s].run);
    return r && (o->all_runs || r->status == SCAL_RUN_OK) && t->r.stats[s].count > 0 &&
           isfinite(region_time(&t->r.stats[s])) && region_time(&t->r.stats[s]) > 0;
}

/* Length of the valid UTF-8 sequence at s, 0 when s does not start one. */
static size_t utf8_sequence(const unsigned char *s)
{
    size_t n = s[0] < 0x80                    ? 1
               : s[0] >= 0xC2 && s[0] <= 0xDF ? 2
               : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
               : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
                                              : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return n;
}

/* A JSON string of text from a file (labels come from programs: any bytes); bytes that are not
 * UTF-8 become U+FFFD, so nothing is dropped and the output stays valid JSON. */
static json_t *json_text(const char *text)
{
    json_t *j = json_string(text);
    if (j) return j;
    size_t len = 0;
    char *fixed = NULL;
    FILE *out = open_memstream(&fixed, &len);
    if (!out) return NULL;
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        size_t n = utf8_sequence(p);
        if (n) {
            fwrite(p, 1, n, out);
            p += n;
        } else {
            fputs("\xEF\xBF\xBD", out);
            p++;
        }
    }
    j = fclose(out) == 0 ? json_string(fixed) : NULL;
    free(fixed);
    return j;
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

/* An input's numeric size: --size LABEL=N, else the size given at scal run (--size, stored as
 * /campaign@input_sizes), else the label itself when it is a number. */
static int input_size(const struct export_opts *o, const struct tidy *t,
                      const struct scal_read_run *r, double *size)
{
    const char *label = r->input;
    for (size_t i = 0; i < o->nsizes; i++)
        if (!strcmp(o->sizes[i].label, label)) return (*size = o->sizes[i].size), SCAL_OK;
    if (r->input_index < t->r.ninput_sizes && isfinite(t->r.input_sizes[r->input_index]))
        return (*size = t->r.input_sizes[r->input_index]), SCAL_OK;
    char *end = NULL;
    double v = strtod(label, &end);
    if (end != label && *end == '\0' && isfinite(v)) return (*size = v), SCAL_OK;
    return scal__fail(SCAL_EINVAL,
                      "input '%s' has no numeric size: Extra-P models over numbers (give "
                      "--size %s=N here, or -i VALUE --label %s --size N to scal run)",
                      label, label, label);
}

/* Extra-P fits a model per call path over every measured coordinate (threads, input) and refuses
 * a call path that lacks one: regions absent from some coordinate are left out, and said so. */
struct coord {
    uint32_t input;
    int32_t threads;
};

static size_t coord_of(struct coord *coords, size_t *ncoords, const struct scal_read_run *r)
{
    size_t c = 0;
    while (c < *ncoords && !(coords[c].input == r->input_index && coords[c].threads == r->threads))
        c++;
    if (c == *ncoords) coords[(*ncoords)++] = (struct coord){r->input_index, r->threads};
    return c;
}

/* complete[g]: region g is measured at every coordinate some region is measured at. */
static int complete_regions(const struct tidy *t, const struct export_opts *o, bool *complete)
{
    struct coord *coords = calloc(t->r.nruns + 1, sizeof(*coords));
    size_t ncoords = 0, *at = calloc(t->r.nstats + 1, sizeof(*at));
    if (!coords || !at) {
        free(coords);
        free(at);
        return scal__fail(SCAL_ENOMEM, "out of memory");
    }
    for (size_t s = 0; s < t->r.nstats; s++)
        if (usable(t, o, s)) at[s] = coord_of(coords, &ncoords, tidy_run_of(t, t->r.stats[s].run));
    bool *seen = calloc(t->r.nregions * ncoords + 1, sizeof(*seen));
    if (seen) {
        for (size_t s = 0; s < t->r.nstats; s++)
            if (usable(t, o, s)) seen[t->r.stats[s].region * ncoords + at[s]] = true;
        for (size_t g = 0; g < t->r.nregions; g++) {
            complete[g] = true;
            for (size_t c = 0; c < ncoords; c++)
                complete[g] = complete[g] && seen[g * ncoords + c];
        }
    }
    free(seen);
    free(coords);
    free(at);
    return seen ? SCAL_OK : scal__fail(SCAL_ENOMEM, "out of memory");
}

/* The metrics of the Extra-P export: time, then the per-thread sums a parallel region has (work,
 * barrier wait, lock wait; serial and user regions have none: no value, never 0), then every
 * sensor metric of the file ("<plugin>.<metric>", as stored). */
#define EXTRAP_BASE 4
static double extrap_value(const struct tidy *t, size_t s, size_t k)
{
    const struct scal_region_stat_row *st = &t->r.stats[s];
    const double v[EXTRAP_BASE] = {region_time(st), st->work_total_s, st->barrier_total_s,
                                   st->lock_total_s};
    if (k >= EXTRAP_BASE) return t->values[s * t->nmetrics + (k - EXTRAP_BASE)];
    return k > 0 && st->threads == 0 ? NAN : v[k];
}

static const char *extrap_name(const struct tidy *t, size_t k)
{
    static const char *const names[EXTRAP_BASE] = {"time", "work", "barrier wait", "lock wait"};
    return k < EXTRAP_BASE ? names[k] : scal_h5file_str(&t->r.f, t->metrics[k - EXTRAP_BASE].name);
}

/* has[g * nk + k]: metric k has a value in every usable row of region g (Extra-P models a metric
 * of a call path over every coordinate, so a metric with holes is left out for that region). */
static bool *extrap_complete(const struct tidy *t, const struct export_opts *o, size_t nk)
{
    bool *has = malloc((t->r.nregions * nk + 1) * sizeof(*has));
    if (!has) return NULL;
    for (size_t i = 0; i < t->r.nregions * nk; i++)
        has[i] = true;
    for (size_t s = 0; s < t->r.nstats; s++)
        if (usable(t, o, s))
            for (size_t k = 0; k < nk; k++)
                if (!isfinite(extrap_value(t, s, k))) has[t->r.stats[s].region * nk + k] = false;
    return has;
}

static int extrap_lines(const struct tidy *t, size_t s, const bool *has, size_t nk, json_t *params,
                        FILE *out, size_t *lines)
{
    const struct scal_region_stat_row *st = &t->r.stats[s];
    int rc = SCAL_OK;
    for (size_t k = 0; k < nk && rc == SCAL_OK; k++) {
        if (!has[st->region * nk + k]) continue;
        json_t *line = json_pack("{s:O,s:o,s:o,s:f}", "params", params, "callpath",
                                 json_text(t->callpath[st->region]), "metric",
                                 json_text(extrap_name(t, k)), "value", extrap_value(t, s, k));
        rc = write_json(line, out, JSON_COMPACT | JSON_REAL_PRECISION(17));
        (*lines)++;
    }
    return rc;
}

int export_extrap(const struct tidy *t, const struct export_opts *o, FILE *out)
{
    size_t lines = 0, dropped = 0;
    size_t nk = EXTRAP_BASE + t->nmetrics;
    bool *complete = calloc(t->r.nregions + 1, sizeof(*complete)), *has = extrap_complete(t, o, nk);
    int rc = complete && has ? complete_regions(t, o, complete)
                             : scal__fail(SCAL_ENOMEM, "out of memory");
    for (uint32_t g = 0; rc == SCAL_OK && g < t->r.nregions; g++) {
        if (!complete[g]) {
            for (size_t s = 0; s < t->r.nstats; s++)
                if (t->r.stats[s].region == g && usable(t, o, s)) {
                    if (!o->quiet)
                        fprintf(
                            stderr,
                            "scal export: left out of the Extra-P data: %s (not measured at every "
                            "thread count and input)\n",
                            t->r.labels[g]);
                    dropped++;
                    break;
                }
            continue;
        }
        for (size_t s = 0; rc == SCAL_OK && s < t->r.nstats; s++) {
            if (t->r.stats[s].region != g || !usable(t, o, s)) continue;
            const struct scal_read_run *r = tidy_run_of(t, t->r.stats[s].run);
            json_t *params = json_pack("{s:I}", "threads", (json_int_t)r->threads);
            /* MPI: the ranks are a parameter of their own (Extra-P models over both) */
            if (r->ranks > 0) json_object_set_new(params, "ranks", json_integer(r->ranks));
            /* one input is no parameter: Extra-P then models over the thread count alone */
            if (t->r.ninputs > 1) {
                double size = 0;
                if ((rc = input_size(o, t, r, &size)) < 0) {
                    json_decref(params);
                    break;
                }
                json_object_set_new(params, "input", json_real(size));
            }
            rc = extrap_lines(t, s, has, nk, params, out, &lines);
            json_decref(params);
        }
    }
    free(complete);
    free(has);
    if (rc == SCAL_OK && lines == 0)
        rc = scal__fail(SCAL_EEMPTY, "%s holds no successful run to export%s", t->r.f.path,
                        dropped ? " with a region measured at every configuration" : "");
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
    int32_t ranks; /* MPI ranks, 0 without */
    int64_t run;   /* one run's rows only (the Thicket export); -1: every run of the cell */
};

static bool in_cell(const struct tidy *t, const struct export_opts *o, size_t s,
                    const struct cell *c)
{
    const struct scal_read_run *r = tidy_run_of(t, t->r.stats[s].run);
    return usable(t, o, s) && r->threads == c->threads && r->ranks == c->ranks &&
           !strcmp(r->input, c->input) && (c->run < 0 || (int64_t)t->r.stats[s].run == c->run);
}

/* Hatchet metric names and the statistics they come from. */
static const char *const hatchet_metrics[] = {"time (inc)",   "time summed over threads",
                                              "count",        "work",
                                              "barrier wait", "lock wait",
                                              "imbalance",    "rank imbalance"};

/* "time (inc)" is the wall-clock time (never above the parent's, so exclusive times add up);
 * files from before time_wall_s give the summed time. */
static double hatchet_value(const struct tidy *t, size_t row, size_t metric)
{
    const struct scal_region_stat_row *s = &t->r.stats[row];
    const double v[] = {region_time(s),  s->time_total_s,       (double)s->count,
                        s->work_total_s, s->barrier_total_s,    s->lock_total_s,
                        s->imbalance,    t->rank_imbalance[row]};
    /* work, waits and imbalance exist for parallel regions only (threads > 0): elsewhere they
     * are missing, not 0 */
    return metric >= 3 && metric <= 6 && s->threads == 0 ? NAN : v[metric];
}

static json_t *region_metrics(const struct tidy *t, const struct export_opts *o,
                              const struct cell *c, uint32_t region, double *scratch)
{
    json_t *m = json_object();
    for (size_t k = 0; k < sizeof(hatchet_metrics) / sizeof(hatchet_metrics[0]); k++) {
        size_t n = 0;
        for (size_t s = 0; s < t->r.nstats; s++)
            if (t->r.stats[s].region == region && in_cell(t, o, s, c))
                if (isfinite(hatchet_value(t, s, k))) scratch[n++] = hatchet_value(t, s, k);
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
    for (size_t k = region + 1; k < t->r.nregions; k++) {
        if (t->r.regions[k].parent != (int32_t)region) continue;
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
    return json_pack("{s:{s:o,s:s},s:o,s:o}", "frame", "name", json_text(t->r.labels[region]),
                     "type", scal_region_kind_name(t->r.regions[region].kind), "metrics", metrics,
                     "children", children);
}

int export_hatchet(const struct tidy *t, const struct export_opts *o, FILE *out)
{
    double *scratch = malloc((t->r.nstats + 1) * sizeof(*scratch));
    json_t *doc = json_array();
    if (!scratch || !doc) {
        free(scratch);
        json_decref(doc);
        return scal__fail(SCAL_ENOMEM, "out of memory for the Hatchet tree");
    }
    /* one tree per configuration: inputs in plan order, thread counts ascending (and per MPI rank
     * count, ascending) */
    int32_t *rank_counts = malloc((t->r.nruns + 1) * sizeof(*rank_counts));
    size_t nranks = 0;
    for (size_t r = 0; rank_counts && r < t->r.nruns; r++) {
        size_t k = 0;
        while (k < nranks && rank_counts[k] < t->r.runs[r].ranks)
            k++;
        if (k < nranks && rank_counts[k] == t->r.runs[r].ranks) continue;
        memmove(rank_counts + k + 1, rank_counts + k, (nranks - k) * sizeof(*rank_counts));
        rank_counts[k] = t->r.runs[r].ranks;
        nranks++;
    }
    int32_t *threads = malloc((t->r.nruns + 1) * sizeof(*threads));
    size_t nthreads = 0;
    for (size_t r = 0; threads && r < t->r.nruns; r++) {
        size_t k = 0;
        while (k < nthreads && threads[k] < t->r.runs[r].threads)
            k++;
        if (k < nthreads && threads[k] == t->r.runs[r].threads) continue;
        memmove(threads + k + 1, threads + k, (nthreads - k) * sizeof(*threads));
        threads[k] = t->r.runs[r].threads;
        nthreads++;
    }
    for (size_t in = 0; threads && rank_counts && in < t->r.ninputs && t->r.nregions; in++)
        for (size_t q = 0; q < nranks * nthreads; q++) {
            size_t k = q % nthreads;
            struct cell c = {threads[k], t->r.inputs[in], rank_counts[q / nthreads], -1};
            json_t *root = hatchet_node(t, o, &c, 0, scratch);
            if (!json_object_get(json_object_get(root, "metrics"), "time (inc)")) {
                json_decref(root); /* no successful run of this configuration */
                continue;
            }
            json_object_set_new(json_object_get(root, "metrics"), "threads",
                                json_integer(c.threads));
            if (c.ranks > 0)
                json_object_set_new(json_object_get(root, "metrics"), "ranks",
                                    json_integer(c.ranks));
            json_object_set_new(json_object_get(root, "frame"), "input", json_text(c.input));
            json_array_append_new(doc, root);
        }
    free(threads);
    free(rank_counts);
    free(scratch);
    if (json_array_size(doc) == 0) {
        json_decref(doc);
        return scal__fail(SCAL_EEMPTY, "%s holds no successful run to export", t->r.f.path);
    }
    return write_json(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

/* ---- Thicket ----------------------------------------------------------------------------------
 * One profile per run, as Thicket models an ensemble: each profile's graph is a Hatchet literal
 * (Thicket.from_literal reads it) and its metadata is the run's configuration, which becomes a
 * row of the Thicket's metadata table (python: scal.to_thicket). */

static json_t *run_metadata(const struct tidy *t, const struct export_opts *o,
                            const struct scal_read_run *r)
{
    double size = NAN;
    if (input_size(o, t, r, &size) < 0) size = NAN; /* a label that is no number: no size */
    json_t *m = json_pack("{s:I,s:I,s:o,s:I,s:s}", "run", (json_int_t)r->id, "threads",
                          (json_int_t)r->threads, "input", json_text(r->input), "repetition",
                          (json_int_t)r->repetition, "status", scal_run_status_name(r->status));
    json_object_set_new(m, "input_size", isfinite(size) ? json_real(size) : json_null());
    json_object_set_new(m, "team", r->team >= 0 ? json_integer(r->team) : json_null());
    json_object_set_new(m, "frequency_khz",
                        r->frequency_khz >= 0 ? json_integer(r->frequency_khz) : json_null());
    if (r->ranks > 0) json_object_set_new(m, "ranks", json_integer(r->ranks));
    return m;
}

int export_thicket(const struct tidy *t, const struct export_opts *o, FILE *out)
{
    double *scratch = malloc((t->r.nstats + 1) * sizeof(*scratch));
    json_t *profiles = json_array();
    if (!scratch || !profiles) {
        free(scratch);
        json_decref(profiles);
        return scal__fail(SCAL_ENOMEM, "out of memory for the Thicket profiles");
    }
    for (size_t i = 0; i < t->r.nruns && t->r.nregions; i++) {
        const struct scal_read_run *r = &t->r.runs[i];
        struct cell c = {r->threads, r->input, r->ranks, (int64_t)r->id};
        json_t *root = hatchet_node(t, o, &c, 0, scratch);
        if (!json_object_get(json_object_get(root, "metrics"), "time (inc)")) {
            json_decref(root); /* a run that does not count (failed, or no measurement) */
            continue;
        }
        json_array_append_new(
            profiles, json_pack("{s:o,s:[o]}", "metadata", run_metadata(t, o, r), "graph", root));
    }
    free(scratch);
    if (json_array_size(profiles) == 0) {
        json_decref(profiles);
        return scal__fail(SCAL_EEMPTY, "%s holds no successful run to export", t->r.f.path);
    }
    return write_json(json_pack("{s:s,s:o}", "format", "scal-thicket-1", "profiles", profiles), out,
                      JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

/* ---- Chrome trace events ----------------------------------------------------------------------
 */

/* Every event is kept or the export fails: a trace with silent holes would mislead. */
static int add_event(json_t *events, json_t *event)
{
    if (!event || json_array_append_new(events, event) < 0)
        return scal__fail(SCAL_ENOMEM, "out of memory building the trace");
    return SCAL_OK;
}

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
    return json_pack("{s:o,s:s,s:s,s:f,s:f,s:i,s:I,s:{s:o}}", "name", json_text(name), "cat", cat,
                     "ph", "X", "ts", begin_s * US_PER_S, "dur", (end_s - begin_s) * US_PER_S,
                     "pid", 1, "tid", (json_int_t)tid, "args", "region", json_text(region));
}

static int by_region_begin(const void *a, const void *b)
{
    const struct scal_trace_instance_row *x = *(const struct scal_trace_instance_row *const *)a;
    const struct scal_trace_instance_row *y = *(const struct scal_trace_instance_row *const *)b;
    if (x->region != y->region) return x->region < y->region ? -1 : 1;
    return (x->begin_s > y->begin_s) - (x->begin_s < y->begin_s);
}

/* The instance of region that holds [begin, end] (sorted by region, then begin): the latest one
 * that began by begin and ends after end (the innermost when a region nests in itself). */
static const struct scal_trace_instance_row *
instance_holding(const struct scal_trace_instance_row *const *sorted, size_t n, uint32_t region,
                 double begin, double end)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct scal_trace_instance_row *r = sorted[mid];
        if (r->region < region || (r->region == region && r->begin_s <= begin))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, steps = 0; i-- > 0 && sorted[i]->region == region && steps < 64; steps++)
        if (sorted[i]->end_s >= end) return sorted[i];
    return NULL;
}

/* The region's span on the lane of each member of its team other than the thread that started it
 * (whose lane holds the instance row): the instance's begin and end, found from the member's work
 * state; when the instance was not recorded (a full buffer), the member's work and barrier wait. */
static int member_spans(const struct tidy *t, const struct scal_trace_instance_row *inst,
                        size_t ninst, const struct scal_trace_state_row *states, size_t nstates,
                        json_t *events)
{
    const struct scal_trace_instance_row **sorted = malloc((ninst ? ninst : 1) * sizeof(*sorted));
    if (!sorted) return scal__fail(SCAL_ENOMEM, "out of memory building the trace");
    for (size_t i = 0; i < ninst; i++)
        sorted[i] = &inst[i];
    qsort(sorted, ninst, sizeof(*sorted), by_region_begin);
    int rc = SCAL_OK;
    for (size_t i = 0; i < nstates && rc == SCAL_OK; i++) {
        const struct scal_trace_state_row *s = &states[i];
        if (s->state != SCAL_STATE_WORK) continue;
        const struct scal_trace_instance_row *in =
            instance_holding(sorted, ninst, s->region, s->begin_s, s->end_s);
        if (in && in->thread == s->thread) continue;
        double begin = in ? in->begin_s : s->begin_s, end = in ? in->end_s : s->end_s;
        const struct scal_trace_state_row *next = i + 1 < nstates ? &states[i + 1] : NULL;
        if (!in && next && next->state == SCAL_STATE_BARRIER && next->thread == s->thread &&
            next->region == s->region && next->begin_s == s->end_s)
            end = next->end_s;
        const char *label = s->region < t->r.nregions ? t->r.labels[s->region] : "?";
        rc = add_event(events, span(label, "region", s->thread, begin, end, label));
    }
    free(sorted);
    return rc;
}

int export_chrome(const struct tidy *t, FILE *out)
{
    /* read with the run file (tidy_load with SCAL_READ_TRACE) */
    const struct scal_trace_instance_row *inst = t->r.trace_instances;
    const struct scal_trace_state_row *states = t->r.trace_states;
    size_t ninst = t->r.ntrace_instances, nstates = t->r.ntrace_states;
    int rc = SCAL_OK;
    if (t->r.f.campaign)
        return scal__fail(SCAL_EINVAL, "%s is a campaign: the trace export takes a run file",
                          t->r.f.path);
    if (ninst == 0 && nstates == 0)
        return scal__fail(SCAL_EEMPTY,
                          "%s has no trace: record the run with SCAL_TRACE=N (entries per thread)",
                          t->r.f.path);
    json_t *events = json_array();
    uint32_t maxtid = 0;
    for (size_t i = 0; i < ninst && rc == SCAL_OK; i++) {
        const char *label = inst[i].region < t->r.nregions ? t->r.labels[inst[i].region] : "?";
        rc = add_event(
            events, span(label, "region", inst[i].thread, inst[i].begin_s, inst[i].end_s, label));
        if (inst[i].thread > maxtid) maxtid = inst[i].thread;
    }
    if (rc == SCAL_OK) rc = member_spans(t, inst, ninst, states, nstates, events);
    for (size_t i = 0; i < nstates && rc == SCAL_OK; i++) {
        const char *label = states[i].region < t->r.nregions ? t->r.labels[states[i].region] : "?";
        rc = add_event(events, span(state_name(states[i].state), "state", states[i].thread,
                                    states[i].begin_s, states[i].end_s, label));
        if (states[i].thread > maxtid) maxtid = states[i].thread;
    }
    for (uint32_t tid = 0; tid <= maxtid && rc == SCAL_OK; tid++) {
        char name[32];
        snprintf(name, sizeof(name), "thread %u", tid);
        rc = add_event(events,
                       json_pack("{s:s,s:s,s:i,s:I,s:{s:s}}", "name", "thread_name", "ph", "M",
                                 "pid", 1, "tid", (json_int_t)tid, "args", "name", name));
    }
    if (rc < 0) {
        json_decref(events);
        return rc;
    }
    return write_json(json_pack("{s:o,s:s}", "traceEvents", events, "displayTimeUnit", "ms"), out,
                      JSON_COMPACT | JSON_REAL_PRECISION(17));
}
