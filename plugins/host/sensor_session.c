// SPDX-License-Identifier: BSD-3-Clause
// The sensor session: plugin start-up, run readings, per-thread region attribution (the hot path)
// and the sampler thread.
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sensor_session.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t env_u64(const char *name, uint64_t def, uint64_t lo, uint64_t hi)
{
    const char *v = getenv(name);
    char *end = NULL;
    if (!v || !*v) return def;
    unsigned long long x = strtoull(v, &end, 10);
    return *end || x < lo || x > hi ? def : (uint64_t)x;
}

/* Loads and starts one plugin; on failure the slot keeps the reason. */
static void start_plugin(struct scal_sensor_session *s, const char *name)
{
    struct scal_sensor_plugin *p = &s->plugins[s->nplugins++];
    if (!scal_plugin_name_ok(name)) { /* a path would load any file into the measured program */
        p->status = SCAL_EINVAL;
        snprintf(p->why, sizeof(p->why),
                 "'%s' is not a sensor name (sensors are named, never paths)", name);
        snprintf(p->lp.name, sizeof(p->lp.name), "%s", name);
        return;
    }
    p->status = scal_plugin_load(name, SCAL_PLUGIN_SENSOR, NULL, 0, &p->lp, p->why, sizeof(p->why));
    if (p->status < 0) {
        snprintf(p->lp.name, sizeof(p->lp.name), "%s", name); /* as the user named it */
        return;
    }
    const struct scal_sensor_ops *ops = p->lp.desc->sensor;
    p->status = ops->init(&p->lp.env, &p->state, p->why, sizeof(p->why));
    if (p->status < 0) {
        if (!p->why[0]) snprintf(p->why, sizeof(p->why), "init failed (status %d)", p->status);
        p->state = NULL;
        return;
    }
    p->nmetrics = ops->metrics(p->state, &p->metrics);
    if (p->nmetrics > SCAL_SENSOR_MAX_METRICS) { /* every later use relies on this bound */
        p->status = SCAL_ERANGE;
        snprintf(p->why, sizeof(p->why), "%zu metrics: more than the %d a plugin may have",
                 p->nmetrics, SCAL_SENSOR_MAX_METRICS);
        return;
    }
    p->timing = ops->timing;
    if (!ops->read) p->timing &= ~(uint32_t)(SCAL_SENSOR_RUN | SCAL_SENSOR_SAMPLED);
    if (!ops->thread_read) p->timing &= ~(uint32_t)SCAL_SENSOR_REGION;
    if (!s->period_ns) p->timing &= ~(uint32_t)SCAL_SENSOR_SAMPLED;
    if ((p->timing & SCAL_SENSOR_REGION) && s->nregion + p->nmetrics > SCAL_SENSOR_MAX_METRICS) {
        p->timing &= ~(uint32_t)SCAL_SENSOR_REGION;
        snprintf(p->why, sizeof(p->why), "region readings off: more than %d metrics in all",
                 SCAL_SENSOR_MAX_METRICS);
    }
    if (p->timing & SCAL_SENSOR_REGION) {
        p->region_base = s->nregion;
        p->process_only = true;
        for (size_t m = 0; m < p->nmetrics; m++)
            p->process_only &= p->metrics[m].scope == SCAL_SCOPE_PROCESS;
        s->member_reads |= !p->process_only;
        for (size_t m = 0; m < p->nmetrics; m++) {
            s->region_plugin[s->nregion] = s->nplugins - 1;
            s->region_metric[s->nregion++] = (uint32_t)m;
        }
    }
    if (p->timing & SCAL_SENSOR_RUN) {
        p->run_begin = calloc(p->nmetrics ? p->nmetrics : 1, sizeof(double));
        p->run_end = calloc(p->nmetrics ? p->nmetrics : 1, sizeof(double));
        p->run_status =
            p->run_begin && p->run_end ? ops->read(p->state, p->run_begin) : SCAL_ENOMEM;
    }
}

/* Full: keep every second tick (all metrics of a tick share its time) and halve the rate, so a long
 * run keeps an even series of every metric over its whole length in bounded memory. */
static void decimate_samples(struct scal_sensor_session *s)
{
    size_t k = 0, tick = 0;
    for (size_t i = 0; i < s->nsamples; i++) {
        if (i > 0 && s->samples[i].time_s != s->samples[i - 1].time_s) tick++;
        if (tick % 2 == 0) s->samples[k++] = s->samples[i];
    }
    s->nsamples = k;
    s->period_ns *= 2;
    s->samples_decimated++;
}

static void sample_once(struct scal_sensor_session *s)
{
    double values[SCAL_SENSOR_MAX_METRICS];
    double t = (double)(now_ns() - s->t0_ns) * 1e-9;
    if (s->nsamples + s->metrics_per_tick > s->max_samples) decimate_samples(s);
    for (uint32_t i = 0; i < s->nplugins; i++) {
        struct scal_sensor_plugin *p = &s->plugins[i];
        if (p->status < 0 || !(p->timing & SCAL_SENSOR_SAMPLED)) continue;
        if (p->lp.desc->sensor->read(p->state, values) < 0) continue;
        for (size_t m = 0; m < p->nmetrics && s->nsamples < s->max_samples; m++)
            s->samples[s->nsamples++] = (struct scal_sensor_sample){i, (uint32_t)m, t, values[m]};
    }
}

static void *sampler_main(void *arg)
{
    struct scal_sensor_session *s = arg;
    uint64_t next = now_ns();
    while (!atomic_load(&s->stop)) {
        sample_once(s);
        next += s->period_ns;
        /* sleep in slices of at most 10 ms so that stopping is prompt */
        for (uint64_t t = now_ns(); t < next && !atomic_load(&s->stop); t = now_ns()) {
            uint64_t d = next - t < 10000000u ? next - t : 10000000u;
            struct timespec ts = {0, (long)d};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

static void start_sampler(struct scal_sensor_session *s)
{
    for (uint32_t i = 0; i < s->nplugins; i++)
        if (s->plugins[i].status == 0 && (s->plugins[i].timing & SCAL_SENSOR_SAMPLED))
            s->metrics_per_tick += s->plugins[i].nmetrics;
    if (!s->metrics_per_tick) return;
    if (s->max_samples < 2 * s->metrics_per_tick) s->max_samples = 2 * s->metrics_per_tick;
    s->samples = malloc(s->max_samples * sizeof(*s->samples));
    if (!s->samples) return;
    /* The sampler never takes the program's signals (the flush path joins it). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    s->sampler_running = pthread_create(&s->sampler, NULL, sampler_main, s) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int scal_sensor_session_open(struct scal_sensor_session **out, const char *spec, uint32_t max_nodes,
                             uint32_t max_levels)
{
    *out = NULL;
    if (!spec || !*spec) return SCAL_OK;
    struct scal_sensor_session *s = calloc(1, sizeof(*s));
    char *copy = strdup(spec), *save = NULL;
    if (!s || !copy) {
        free(s);
        free(copy);
        return SCAL_ENOMEM;
    }
    s->max_nodes = max_nodes;
    s->max_levels = max_levels;
    s->t0_ns = now_ns();
    s->period_ns = env_u64("SCAL_SAMPLE_MS", 100, 0, 3600000) * 1000000u;
    s->max_samples = env_u64("SCAL_MAX_SAMPLES", 65536, 64, 1u << 26);
    for (char *n = strtok_r(copy, ",", &save); n && s->nplugins < SCAL_SENSOR_MAX_PLUGINS;
         n = strtok_r(NULL, ",", &save))
        if (*n) start_plugin(s, n);
    free(copy);
    start_sampler(s);
    *out = s;
    return SCAL_OK;
}

struct scal_sensor_thread_ctx *scal_sensor_thread_attach(struct scal_sensor_session *s,
                                                         uint32_t gtid)
{
    if (!s || !s->nregion) return NULL;
    uint32_t slot = atomic_fetch_add(&s->nthreads, 1);
    if (slot >= SCAL_SENSOR_MAX_THREADS) {
        atomic_fetch_add(&s->threads_dropped, 1);
        return NULL;
    }
    struct scal_sensor_thread_ctx *t = calloc(1, sizeof(*t));
    size_t nm = s->nregion, nn = s->max_nodes;
    if (!t) return NULL;
    t->session = s;
    t->member_reads = s->member_reads;
    t->gtid = gtid;
    t->begin = calloc((size_t)s->max_levels * nm, sizeof(double));
    t->now = calloc(nm, sizeof(double));
    t->acc = calloc(nn * nm, sizeof(double)); /* large callocs are lazily zeroed pages */
    t->inst_all = calloc(nn, sizeof(uint64_t));
    t->inst_enc = calloc(nn, sizeof(uint64_t));
    t->team = malloc(nn * sizeof(int32_t));
    t->side_acc = calloc(SCAL_SENSOR_SIDE_ROWS * nm, sizeof(double));
    if (!t->begin || !t->now || !t->acc || !t->inst_all || !t->inst_enc || !t->team ||
        !t->side_acc) {
        free(t->begin), free(t->now), free(t->acc), free(t->inst_all), free(t->inst_enc);
        free(t->team), free(t->side_acc), free(t);
        return NULL;
    }
    memset(t->team, 0xff, nn * sizeof(int32_t));
    for (uint32_t i = 0; i < s->nplugins; i++) {
        struct scal_sensor_plugin *p = &s->plugins[i];
        char why[SCAL_PLUGIN_WHY_MAX];
        if (p->status == 0 && (p->timing & SCAL_SENSOR_REGION) && p->lp.desc->sensor->thread_init &&
            p->lp.desc->sensor->thread_init(p->state, &t->handles[i], why, sizeof(why)) < 0) {
            t->handles[i] = NULL;
            t->failed_plugins |= 1u << i; /* its readings on this thread are NaN */
            t->errors++;
        }
    }
    s->threads[slot] = t; /* published last: the writer reads only complete contexts */
    return t;
}

/* Reads the region metrics of the calling thread into out (process-wide ones only for the
 * encountering thread, the only one that uses them); a plugin that fails leaves NaN. */
static inline void read_all(struct scal_sensor_thread_ctx *t, double *out, int encountering)
{
    struct scal_sensor_session *s = t->session;
    for (uint32_t i = 0; i < s->nplugins; i++) {
        struct scal_sensor_plugin *p = &s->plugins[i];
        if (!(p->timing & SCAL_SENSOR_REGION) || p->status < 0 ||
            (p->process_only && !encountering))
            continue;
        bool failed = t->failed_plugins & (1u << i);
        if (failed ||
            p->lp.desc->sensor->thread_read(p->state, t->handles[i], out + p->region_base) < 0) {
            for (size_t m = 0; m < p->nmetrics; m++)
                out[p->region_base + m] = __builtin_nan("");
            if (!failed) t->errors++;
        }
    }
}

void scal_sensor_enter(struct scal_sensor_thread_ctx *t, uint32_t level, int encountering)
{
    if (level < t->session->max_levels)
        read_all(t, t->begin + (size_t)level * t->session->nregion, encountering);
}

/* Where the sums of (node, team index) go on this thread: the node's row when the index is the
 * one the thread first had there, else a side row. */
static double *row_for(struct scal_sensor_thread_ctx *t, uint32_t node, int32_t team,
                       uint64_t **inst_all, uint64_t **inst_enc)
{
    size_t nm = t->session->nregion;
    if (t->team[node] < 0) t->team[node] = team;
    if (t->team[node] == team) {
        *inst_all = &t->inst_all[node];
        *inst_enc = &t->inst_enc[node];
        return t->acc + (size_t)node * nm;
    }
    uint32_t k;
    for (k = 0; k < t->nside && !(t->side_node[k] == node && t->side_team[k] == team); k++) {
    }
    if (k == t->nside) {
        if (k == SCAL_SENSOR_SIDE_ROWS) { /* full: the totals stay right, the split does not */
            atomic_fetch_add(&t->session->team_changes, 1);
            *inst_all = &t->inst_all[node];
            *inst_enc = &t->inst_enc[node];
            return t->acc + (size_t)node * nm;
        }
        t->side_node[k] = node;
        t->side_team[k] = team;
        t->nside++;
    }
    *inst_all = &t->side_inst_all[k];
    *inst_enc = &t->side_inst_enc[k];
    return t->side_acc + (size_t)k * nm;
}

void scal_sensor_exit(struct scal_sensor_thread_ctx *t, uint32_t level, uint32_t node,
                      uint32_t team_index, int encountering)
{
    struct scal_sensor_session *s = t->session;
    if (level >= s->max_levels || node >= s->max_nodes) return;
    const double *b = t->begin + (size_t)level * s->nregion;
    uint64_t *inst_all, *inst_enc;
    double *acc = row_for(t, node, (int32_t)team_index, &inst_all, &inst_enc);
    read_all(t, t->now, encountering);
    for (uint32_t m = 0; m < s->nregion; m++) {
        const struct scal_sensor_plugin *p = &s->plugins[s->region_plugin[m]];
        const struct scal_metric_desc *md = &p->metrics[s->region_metric[m]];
        if (md->scope == SCAL_SCOPE_PROCESS && !encountering) continue;
        if (md->kind == SCAL_METRIC_GAUGE)
            acc[m] = t->now[m];
        else
            acc[m] += t->now[m] - b[m];
    }
    (*inst_all)++;
    if (encountering) (*inst_enc)++;
}

void scal_sensor_session_stop(struct scal_sensor_session *s)
{
    int expected = 0;
    if (!s || !atomic_compare_exchange_strong(&s->stopped, &expected, 1)) return;
    atomic_store(&s->stop, 1);
    if (s->sampler_running) pthread_join(s->sampler, NULL);
    s->sampler_running = 0;
    for (uint32_t i = 0; i < s->nplugins; i++) {
        struct scal_sensor_plugin *p = &s->plugins[i];
        if (p->status == 0 && (p->timing & SCAL_SENSOR_RUN) && p->run_status == 0)
            p->run_status = p->lp.desc->sensor->read(p->state, p->run_end);
    }
}

void scal_sensor_session_close(struct scal_sensor_session *s)
{
    /* Only the sampler is stopped: the session ends with the process, and OpenMP worker threads
     * (still running after exit() inside a region) may read their sensors until the very end, so
     * neither the plugins' fini nor any free may run under them. */
    scal_sensor_session_stop(s);
}
