// SPDX-License-Identifier: BSD-3-Clause
// The "papi" sensor: PAPI counters (hardware presets, native events, SDE software counters) per
// thread at region boundaries and for the whole run.
//
// init checks every event of the `events` option and keeps the usable ones; an event that cannot
// be counted here is skipped (its reason is kept in the state, see `skipped`), and only when none
// is usable does init fail with SCAL_EUNAVAIL and every reason in `why`.
//
// PAPI allows one running event set per thread and component. The run event set is created and
// started by init on the calling thread (the host's main thread) and holds every event; when that
// thread also asks for region reads (thread_init) it shares the run event set instead of starting
// a second one. Other threads get their own event set with the thread-scope events only.
//
// Scope: SDE events ("sde:::Lib::counter") are process-wide counters, every other event counts
// for the thread that reads it. PAPI's SDE component keeps ONE start value per counter: starting
// any event set that holds an SDE counter resets what every other event set reads for it. So SDE
// events live only in the run event set, and threads other than the init thread read them from
// it under `run_lock` (the only lock on the region path, taken only when SDE events are counted;
// the host attributes process-scope metrics only on the encountering thread anyway). Programs
// that start their own SDE event sets disturb these readings the same way.
//
// read() (run timing) reads the run event set: the init thread's thread-scope counters and the
// process-wide SDE counters. Any thread may call it.
//
// SDE counters registered after the sensor started (a program whose OpenMP runtime starts before it
// calls papi_sde_register_counter) are kept pending: they read 0, and the init thread looks for
// them again at each of its readings (region boundaries) until they exist. Then the run event set
// is stopped, extended and restarted, with the counts it had kept as offsets, so every metric stays
// monotone and the late counter counts from that moment; a gauge "papi.<event>.counted_from_s"
// says when (seconds after the sensor started, -1 while not found).
#include <pthread.h>
#include <stdarg.h>
#include <time.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <papi.h>

#include "plugin_util.h"
#include "scal/plugin.h"

#define PAPI_SENSOR_MAX_EVENTS 32
#define SDE_PREFIX "sde:::"

struct scal_sensor_state {
    bool own_library; // we called PAPI_library_init (so we call PAPI_shutdown)
    int nevents;
    int nmetrics;                          // the events, then the counted_from gauges
    int run_index[PAPI_SENSOR_MAX_EVENTS]; // event -> position in the run set, -1 while pending
    int nrun;                              // events in the run set
    bool running;
    long long offset[PAPI_SENSOR_MAX_EVENTS]; // per run-set position: counts before a restart
    int npending;
    int gauge_of[PAPI_SENSOR_MAX_EVENTS]; // pending event -> its counted_from metric, -1
    double counted_from[PAPI_SENSOR_MAX_EVENTS];
    double t0;
    int codes[PAPI_SENSOR_MAX_EVENTS];
    bool is_sde[PAPI_SENSOR_MAX_EVENTS];
    int nsde;
    int nthread_events; // the events of the per-thread event sets (non-SDE), in order
    int thread_codes[PAPI_SENSOR_MAX_EVENTS];
    int thread_index[PAPI_SENSOR_MAX_EVENTS]; // metric i -> index in a thread set, -1 for SDE
    pthread_mutex_t run_lock;                 // PAPI_read of run_set from several threads
    char metric_names[2 * PAPI_SENSOR_MAX_EVENTS][PAPI_MAX_STR_LEN + 24];
    struct scal_metric_desc metrics[2 * PAPI_SENSOR_MAX_EVENTS];
    int run_set;
    pthread_t init_thread;
    char skipped[1024]; // why events were left out ("" when none were)
};

struct scal_sensor_thread {
    int set;     // PAPI_NULL when the thread has no thread-scope events to count
    bool shares; // the init thread: reads the run event set
    bool registered;
    long long raw[PAPI_SENSOR_MAX_EVENTS];     // the thread set's values
    long long run_raw[PAPI_SENSOR_MAX_EVENTS]; // the run set's values
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned long papi_thread_id(void)
{
    return (unsigned long)pthread_self();
}

// Appends "; "-separated text to buf.
static void append(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strnlen(buf, len);
    if (used + 1 >= len) return;
    if (used > 0) {
        snprintf(buf + used, len - used, "; ");
        used = strnlen(buf, len);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

// Whether a library has registered the SDE event: PAPI accepts any sde::: name (as a placeholder
// reading 0), so an unknown one is only found by listing the component's events.
static bool sde_event_registered(const char *name)
{
    int cidx = PAPI_get_component_index("sde");
    if (cidx < 0) return false;
    int code = PAPI_NATIVE_MASK;
    int rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx);
    while (rc == PAPI_OK) {
        char have[PAPI_MAX_STR_LEN];
        if (PAPI_event_code_to_name(code, have) == PAPI_OK && strcmp(have, name) == 0) return true;
        rc = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx);
    }
    return false;
}

// Describes why PAPI refused an event (rc from query or add).
static void explain(char *buf, size_t len, const char *name, int code, int rc)
{
    int cidx = PAPI_get_event_component(code);
    const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
    if (ci && ci->disabled)
        append(buf, len, "'%s': component %s disabled: %s", name, ci->name,
               ci->disabled_reason[0] ? ci->disabled_reason : "(no reason given)");
    else if (rc == PAPI_ENOEVNT)
        append(buf, len, "no such event '%s'", name);
    else
        append(buf, len, "'%s': %s", name, PAPI_strerror(rc));
}

// Checks one event and adds it to the run event set; false (with the reason) when it is unusable.
static bool add_event(struct scal_sensor_state *s, const char *name, char *reasons, size_t len)
{
    if (strncmp(name, SDE_PREFIX, strlen(SDE_PREFIX)) == 0 && !sde_event_registered(name)) {
        /* not registered yet: pending, looked for again at the init thread's readings */
        int i = s->nevents++;
        snprintf(s->metric_names[i], sizeof(s->metric_names[i]), "papi.%s", name);
        s->is_sde[i] = true;
        s->thread_index[i] = -1;
        s->run_index[i] = -1;
        s->gauge_of[i] = -2; /* given a gauge once every event is known */
        s->nsde++;
        s->npending++;
        s->metrics[i] = (struct scal_metric_desc){s->metric_names[i], "count", SCAL_METRIC_COUNTER,
                                                  SCAL_SCOPE_PROCESS};
        return true;
    }
    int code = 0;
    int rc = PAPI_event_name_to_code(name, &code);
    if (rc != PAPI_OK) {
        if (rc == PAPI_ENOEVNT || rc == PAPI_ENOSUPP)
            append(reasons, len, "no such event '%s'", name);
        else
            append(reasons, len, "'%s': %s", name, PAPI_strerror(rc));
        return false;
    }
    rc = PAPI_query_event(code);
    if (rc == PAPI_OK) rc = PAPI_add_event(s->run_set, code);
    if (rc != PAPI_OK) {
        explain(reasons, len, name, code, rc);
        return false;
    }
    int i = s->nevents++;
    s->codes[i] = code;
    s->run_index[i] = s->nrun++;
    s->gauge_of[i] = -1;
    snprintf(s->metric_names[i], sizeof(s->metric_names[i]), "papi.%s", name);
    // Process-wide: whatever the SDE component counts (decided by component, not by spelling).
    int sde_cidx = PAPI_get_component_index("sde");
    bool sde = sde_cidx >= 0 && PAPI_get_event_component(code) == sde_cidx;
    s->is_sde[i] = sde;
    s->thread_index[i] = -1;
    if (sde) {
        s->nsde++;
    } else {
        s->thread_index[i] = s->nthread_events;
        s->thread_codes[s->nthread_events++] = code;
    }
    s->metrics[i] = (struct scal_metric_desc){s->metric_names[i], "count", SCAL_METRIC_COUNTER,
                                              sde ? SCAL_SCOPE_PROCESS : SCAL_SCOPE_THREAD};
    return true;
}

static void papi_fini(scal_sensor_state *s)
{
    if (!s) return;
    if (s->run_set != PAPI_NULL) {
        long long dummy[PAPI_SENSOR_MAX_EVENTS];
        PAPI_stop(s->run_set, dummy); // fails harmlessly when it never started
        PAPI_cleanup_eventset(s->run_set);
        PAPI_destroy_eventset(&s->run_set);
    }
    if (s->own_library) PAPI_shutdown();
    pthread_mutex_destroy(&s->run_lock);
    free(s);
}

static int papi_init(const struct scal_plugin_env *env, scal_sensor_state **state, char *why,
                     size_t whylen)
{
    int rc = SCAL_OK;
    char *list = NULL;
    struct scal_sensor_state *s = calloc(1, sizeof(*s));
    if (!s) {
        return scal__why(why, whylen, SCAL_ENOMEM, "out of memory");
    }
    s->run_set = PAPI_NULL;
    s->init_thread = pthread_self();
    pthread_mutex_init(&s->run_lock, NULL);
    why[0] = '\0';

    const char *events = env->get_option ? env->get_option(env->options, "events") : NULL;
    if (!events || !events[0]) {
        rc = scal__why(why, whylen, SCAL_EINVAL,
                       "no events given (option events, e.g. PAPI_TOT_INS)");
        goto fail;
    }
    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
        int v = PAPI_library_init(PAPI_VER_CURRENT);
        if (v != PAPI_VER_CURRENT) {
            rc = scal__why(why, whylen, SCAL_EUNAVAIL, "PAPI_library_init: %s",
                           v > 0 ? "header and library versions differ" : PAPI_strerror(v));
            goto fail;
        }
        s->own_library = true;
    }
    int prc = PAPI_thread_init(papi_thread_id);
    if (prc != PAPI_OK && !s->own_library)
        prc = PAPI_OK; // the program set up PAPI's thread support itself
    if (prc != PAPI_OK) {
        rc = scal__why(why, whylen, SCAL_EUNAVAIL, "PAPI_thread_init: %s", PAPI_strerror(prc));
        goto fail;
    }
    prc = PAPI_create_eventset(&s->run_set);
    if (prc != PAPI_OK) {
        rc = scal__why(why, whylen, SCAL_EUNAVAIL, "PAPI_create_eventset: %s", PAPI_strerror(prc));
        goto fail;
    }

    list = strdup(events);
    if (!list) {
        rc = scal__why(why, whylen, SCAL_ENOMEM, "out of memory");
        goto fail;
    }
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        size_t n = strlen(tok);
        while (n > 0 && tok[n - 1] == ' ')
            tok[--n] = '\0';
        if (n == 0) continue;
        if (s->nevents == PAPI_SENSOR_MAX_EVENTS) {
            append(s->skipped, sizeof(s->skipped), "'%s': more than %d events", tok,
                   PAPI_SENSOR_MAX_EVENTS);
            continue;
        }
        add_event(s, tok, s->skipped, sizeof(s->skipped));
    }
    if (s->nevents == 0) {
        rc = scal__why(why, whylen, SCAL_EUNAVAIL, "no usable PAPI event: %s", s->skipped);
        goto fail;
    }
    s->nmetrics = s->nevents;
    for (int i = 0; i < s->nevents; i++) {
        if (s->gauge_of[i] != -2) continue;
        int g = s->nmetrics++;
        s->gauge_of[i] = g;
        s->counted_from[i] = -1;
        snprintf(s->metric_names[g], sizeof(s->metric_names[g]), "%s.counted_from_s",
                 s->metric_names[i]);
        s->metrics[g] = (struct scal_metric_desc){s->metric_names[g], "s", SCAL_METRIC_GAUGE,
                                                  SCAL_SCOPE_PROCESS};
    }
    s->t0 = now_s();
    prc = s->nrun ? PAPI_start(s->run_set) : PAPI_OK; /* nothing to start while all are pending */
    s->running = s->nrun > 0;
    if (prc != PAPI_OK) {
        rc = scal__why(why, whylen, SCAL_EUNAVAIL, "PAPI_start: %s%s", PAPI_strerror(prc),
                       prc == PAPI_EISRUN ? " (the program already counts on this thread)" : "");
        goto fail;
    }
    free(list);
    *state = s;
    return SCAL_OK;
fail:
    free(list);
    papi_fini(s);
    return rc;
}

static size_t papi_list(scal_sensor_state *s, const struct scal_metric_desc **out)
{
    *out = s->metrics;
    return (size_t)s->nmetrics;
}

// On the init thread (which owns the run set): adds the pending SDE events that exist by now.
// Rare work (a lookup while some are pending; a restart once per late event).
static void activate_pending(scal_sensor_state *s)
{
    int found[PAPI_SENSOR_MAX_EVENTS], codes[PAPI_SENSOR_MAX_EVENTS], nfound = 0;
    for (int i = 0; i < s->nevents; i++) {
        const char *name = s->metric_names[i] + strlen("papi.");
        if (s->run_index[i] < 0 && sde_event_registered(name) &&
            PAPI_event_name_to_code(name, &codes[nfound]) == PAPI_OK)
            found[nfound++] = i;
    }
    if (nfound == 0) return;
    pthread_mutex_lock(&s->run_lock);
    long long raw[PAPI_SENSOR_MAX_EVENTS];
    if (s->running && PAPI_stop(s->run_set, raw) == PAPI_OK) {
        for (int j = 0; j < s->nrun; j++)
            s->offset[j] += raw[j];
        s->running = false;
    }
    double t = now_s() - s->t0;
    for (int k = 0; k < nfound; k++) {
        int i = found[k];
        if (s->running || PAPI_add_event(s->run_set, codes[k]) != PAPI_OK) continue;
        s->codes[i] = codes[k];
        s->run_index[i] = s->nrun++;
        s->counted_from[i] = t;
        s->npending--;
    }
    if (!s->running && s->nrun > 0) s->running = PAPI_start(s->run_set) == PAPI_OK;
    pthread_mutex_unlock(&s->run_lock);
}

// values[] from the run set's readings (and a thread set's, NULL when the thread has none).
static void fill_values(const scal_sensor_state *s, const long long *run_raw,
                        const long long *thread_raw, double *values)
{
    for (int i = 0; i < s->nevents; i++) {
        int r = s->run_index[i];
        if (thread_raw && !s->is_sde[i])
            values[i] = (double)thread_raw[s->thread_index[i]];
        else
            values[i] = r < 0 ? 0.0 : (double)(s->offset[r] + run_raw[r]);
        if (s->gauge_of[i] >= 0) values[s->gauge_of[i]] = s->counted_from[i];
    }
}

// Reads the run event set into raw (the caller's buffer) under run_lock.
static int read_run_set(scal_sensor_state *s, long long *raw)
{
    if (s->npending > 0 && pthread_equal(pthread_self(), s->init_thread)) activate_pending(s);
    pthread_mutex_lock(&s->run_lock);
    int rc = s->running ? PAPI_read(s->run_set, raw) : PAPI_OK;
    if (!s->running)
        for (int j = 0; j < s->nrun; j++)
            raw[j] = 0; /* stopped: the offsets hold everything */
    pthread_mutex_unlock(&s->run_lock);
    return rc == PAPI_OK ? 0 : SCAL_EIO;
}

// Run timing: the init thread's thread-scope counters and the process-wide SDE counters.
static int papi_read(scal_sensor_state *s, double *values)
{
    long long raw[PAPI_SENSOR_MAX_EVENTS];
    int rc = read_run_set(s, raw);
    if (rc < 0) return rc;
    fill_values(s, raw, NULL, values);
    return SCAL_OK;
}

static int papi_thread_init(scal_sensor_state *s, scal_sensor_thread **thread, char *why,
                            size_t whylen)
{
    struct scal_sensor_thread *t = calloc(1, sizeof(*t));
    if (!t) {
        return scal__why(why, whylen, SCAL_ENOMEM, "out of memory");
    }
    t->set = PAPI_NULL;
    if (pthread_equal(pthread_self(), s->init_thread) || s->nthread_events == 0) {
        t->shares = pthread_equal(pthread_self(), s->init_thread);
        *thread = t; // reads the run event set only
        return SCAL_OK;
    }
    int rc = PAPI_register_thread();
    if (rc != PAPI_OK) {
        free(t);
        return scal__why(why, whylen, SCAL_EINIT, "PAPI_register_thread: %s", PAPI_strerror(rc));
    }
    t->registered = true;
    const char *step = "PAPI_create_eventset";
    rc = PAPI_create_eventset(&t->set);
    if (rc == PAPI_OK) {
        step = "PAPI_add_events";
        rc = PAPI_add_events(t->set, s->thread_codes, s->nthread_events);
    }
    if (rc == PAPI_OK) {
        step = "PAPI_start";
        rc = PAPI_start(t->set);
    }
    if (rc != PAPI_OK) {
        rc = scal__why(why, whylen, SCAL_EINIT, "%s on a new thread: %s", step, PAPI_strerror(rc));
        if (t->set != PAPI_NULL) {
            PAPI_cleanup_eventset(t->set);
            PAPI_destroy_eventset(&t->set);
        }
        PAPI_unregister_thread();
        free(t);
        return rc;
    }
    *thread = t;
    return SCAL_OK;
}

// Hot path: PAPI_read into storage allocated by thread_init (and the run set for SDE events).
static int papi_thread_read(scal_sensor_state *s, scal_sensor_thread *t, double *values)
{
    if (t->shares || s->nthread_events == 0) {
        int rc = read_run_set(s, t->run_raw);
        if (rc < 0) return rc;
        fill_values(s, t->run_raw, NULL, values);
        return SCAL_OK;
    }
    if (PAPI_read(t->set, t->raw) != PAPI_OK) return SCAL_EIO;
    if (s->nsde > 0 && read_run_set(s, t->run_raw) < 0) return SCAL_EIO;
    fill_values(s, t->run_raw, t->raw, values);
    return SCAL_OK;
}

static void papi_thread_fini(scal_sensor_state *s, scal_sensor_thread *t)
{
    (void)s;
    if (!t) return;
    if (t->set != PAPI_NULL) {
        PAPI_stop(t->set, t->raw);
        PAPI_cleanup_eventset(t->set);
        PAPI_destroy_eventset(&t->set);
    }
    if (t->registered) PAPI_unregister_thread();
    free(t);
}

static const struct scal_sensor_ops papi_ops = {
    .struct_size = sizeof(struct scal_sensor_ops),
    .timing = SCAL_SENSOR_REGION | SCAL_SENSOR_RUN,
    .init = papi_init,
    .metrics = papi_list,
    .read = papi_read,
    .thread_init = papi_thread_init,
    .thread_read = papi_thread_read,
    .thread_fini = papi_thread_fini,
    .fini = papi_fini,
};

static const struct scal_option_desc papi_options[] = {
    {"events", SCAL_OPT_LIST, "PAPI_TOT_INS,PAPI_TOT_CYC",
     "PAPI events to count (presets, native names, sde:::Lib::counter)"},
    {0},
};

static const struct scal_plugin_desc papi_desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(struct scal_plugin_desc),
    .name = "papi",
    .version = "1",
    .kind = SCAL_PLUGIN_SENSOR,
    .description = "PAPI counters per thread and region (hardware, native and SDE events)",
    .options = papi_options,
    .sensor = &papi_ops,
};

SCAL_PLUGIN_DEFINE(papi_desc)
