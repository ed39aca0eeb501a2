// SPDX-License-Identifier: BSD-3-Clause
// Tests the papi sensor for real with a PAPI SDE counter this program registers ("Demo::work"):
// exact differences from the run event set, the main thread's and two other threads' region
// event sets; and the reasons given for unavailable and unknown events.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <papi.h>
#include <sde_lib.h>

#include "scal_test.h"

static struct scal_loaded_plugin plugin;
static long long work; // the SDE counter, read by PAPI as sde:::Demo::work
static pthread_barrier_t barrier;

static int start(const char *events, scal_sensor_state **st, char *why, size_t whylen)
{
    char opt[256];
    snprintf(opt, sizeof(opt), "events=%s", events);
    const char *opts[] = {opt};
    scal_test_reload_sensor(&plugin, opts, 1, NULL);
    why[0] = '\0';
    return plugin.desc->sensor->init(&plugin.env, st, why, whylen);
}

struct worker {
    scal_sensor_state *st;
    double before, after;
    int rc;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    scal_sensor_thread *t = NULL;
    char why[256] = "";
    w->rc = plugin.desc->sensor->thread_init(w->st, &t, why, sizeof(why));
    if (w->rc != 0) fprintf(stderr, "thread_init: %s\n", why);
    double v[1] = {0};
    if (w->rc == 0 && (w->rc = plugin.desc->sensor->thread_read(w->st, t, v)) == 0)
        w->before = v[0];
    pthread_barrier_wait(&barrier); // both threads have read: main adds 4321
    pthread_barrier_wait(&barrier);
    if (w->rc == 0 && (w->rc = plugin.desc->sensor->thread_read(w->st, t, v)) == 0) w->after = v[0];
    if (t) plugin.desc->sensor->thread_fini(w->st, t);
    return NULL;
}

static void test_counts(void)
{
    scal_sensor_state *st = NULL;
    char why[1024];
    int rc = start("sde:::Demo::work, PAPI_TOT_INS", &st, why, sizeof(why));
    if (rc == SCAL_EUNAVAIL && strstr(why, "sde:::Demo::work")) {
        printf("the SDE component is not usable here: %s\n", why);
        exit(77);
    }
    CHECK(rc == 0, "init rc %d: %s", rc, why);
    if (rc != 0) return;
    const struct scal_metric_desc *m = NULL;
    size_t n = plugin.desc->sensor->metrics(st, &m);
    // PAPI_TOT_INS has no hardware counter in a VM: it is skipped (if it works, it is listed).
    CHECK(n == 1 || n == 2, "%zu metrics", n);
    CHECK(n >= 1 && strcmp(m[0].name, "papi.sde:::Demo::work") == 0, "metric 0 %s", m[0].name);
    CHECK(strcmp(m[0].unit, "count") == 0 && m[0].kind == SCAL_METRIC_COUNTER &&
              m[0].scope == SCAL_SCOPE_PROCESS,
          "sde metric desc");
    if (n == 2)
        CHECK(strcmp(m[1].name, "papi.PAPI_TOT_INS") == 0 && m[1].scope == SCAL_SCOPE_THREAD,
              "metric 1 %s", m[1].name);

    double a[2], b[2], c[2], d[2];
    CHECK(plugin.desc->sensor->read(st, a) == 0, "read");
    work += 1234;
    CHECK(plugin.desc->sensor->read(st, b) == 0, "read");
    CHECK(b[0] - a[0] == 1234, "run read difference %g, want 1234", b[0] - a[0]);

    // Region reads on the init thread share the run event set.
    scal_sensor_thread *t = NULL;
    rc = plugin.desc->sensor->thread_init(st, &t, why, sizeof(why));
    CHECK(rc == 0, "thread_init on the main thread: %d %s", rc, why);
    if (rc == 0) {
        CHECK(plugin.desc->sensor->thread_read(st, t, c) == 0, "thread_read");
        work += 77;
        CHECK(plugin.desc->sensor->thread_read(st, t, d) == 0, "thread_read");
        CHECK(d[0] - c[0] == 77, "main thread region difference %g, want 77", d[0] - c[0]);
    }

    // Two more threads with their own event sets.
    pthread_barrier_init(&barrier, NULL, 3);
    struct worker w[2] = {{st, 0, 0, 0}, {st, 0, 0, 0}};
    pthread_t tid[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&tid[i], NULL, worker_main, &w[i]);
    pthread_barrier_wait(&barrier);
    work += 4321;
    pthread_barrier_wait(&barrier);
    for (int i = 0; i < 2; i++) {
        pthread_join(tid[i], NULL);
        CHECK(w[i].rc == 0, "worker %d rc %d", i, w[i].rc);
        CHECK(w[i].after - w[i].before == 4321, "worker %d difference %g, want 4321", i,
              w[i].after - w[i].before);
    }
    pthread_barrier_destroy(&barrier);

    // The run event set still counts everything since init.
    CHECK(plugin.desc->sensor->read(st, b) == 0, "read");
    CHECK(b[0] - a[0] == 1234 + 77 + 4321, "run difference %g, want 5632", b[0] - a[0]);
    if (t) plugin.desc->sensor->thread_fini(st, t);
    plugin.desc->sensor->fini(st);
}

static void test_unavailable(void)
{
    scal_sensor_state *st = NULL;
    char why[1024];
    int rc = start("PAPI_TOT_INS", &st, why, sizeof(why));
    if (rc == 0) {
        printf("PAPI_TOT_INS is countable on this machine: nothing unavailable to test\n");
        plugin.desc->sensor->fini(st);
        exit(77);
    }
    CHECK(rc == SCAL_EUNAVAIL, "rc %d: %s", rc, why);
    CHECK(strstr(why, "'PAPI_TOT_INS'") != NULL, "why '%s' does not name the event", why);
    CHECK(strstr(why, "disabled: ") || strstr(why, "no such event"), "why '%s'", why);
    printf("PAPI_TOT_INS: %s\n", why);
}

static void test_unknown(void)
{
    scal_sensor_state *st = NULL;
    char why[1024];
    int rc = start("no_such_event_xyz", &st, why, sizeof(why));
    CHECK(rc == SCAL_EUNAVAIL, "rc %d: %s", rc, why);
    CHECK(strstr(why, "no such event 'no_such_event_xyz'") != NULL, "why '%s'", why);
    printf("unknown: %s\n", why);
    if (rc == 0) plugin.desc->sensor->fini(st);
    // An SDE counter no library registered (yet): pending, reads 0, its gauge says -1 (not yet).
    rc = start("sde:::Nope::x", &st, why, sizeof(why));
    CHECK(rc == 0, "pending SDE event: rc %d %s", rc, why);
    if (rc == 0) {
        const struct scal_metric_desc *md = NULL;
        size_t n = plugin.desc->sensor->metrics(st, &md);
        double v[2] = {-5, -5};
        CHECK(n == 2 && !strcmp(md[0].name, "papi.sde:::Nope::x") &&
                  !strcmp(md[1].name, "papi.sde:::Nope::x.counted_from_s"),
              "pending metrics: %zu", n);
        CHECK(n == 2 && plugin.desc->sensor->read(st, v) == 0 && v[0] == 0 && v[1] == -1,
              "pending values %g %g", v[0], v[1]);
        plugin.desc->sensor->fini(st);
    }
    rc = start("", &st, why, sizeof(why));
    CHECK(rc == SCAL_EINVAL && strstr(why, "no events"), "empty list: rc %d %s", rc, why);
    // After a failed init (which shut PAPI down again), a new init works.
    rc = start("sde:::Demo::work", &st, why, sizeof(why));
    CHECK(rc == 0, "init after a failed init: rc %d %s", rc, why);
    if (rc == 0) {
        double a[1], b[1];
        CHECK(plugin.desc->sensor->read(st, a) == 0, "read");
        work += 5;
        CHECK(plugin.desc->sensor->read(st, b) == 0 && b[0] - a[0] == 5, "difference %g, want 5",
              b[0] - a[0]);
        plugin.desc->sensor->fini(st);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s libscal_papi.so counts|unavailable|unknown\n", argv[0]);
        return 2;
    }
    papi_handle_t h = papi_sde_init("Demo");
    if (papi_sde_register_counter(h, "work", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
                                  &work) != 0) {
        fprintf(stderr, "papi_sde_register_counter failed\n");
        return 1;
    }
    if (!(scal_test_load_ok(&plugin, argv[1], SCAL_PLUGIN_SENSOR) && !strcmp(plugin.name, "papi")))
        return 1;
    if (strcmp(argv[2], "counts") == 0)
        test_counts();
    else if (strcmp(argv[2], "unavailable") == 0)
        test_unavailable();
    else if (strcmp(argv[2], "unknown") == 0)
        test_unknown();
    else
        CHECK(false, "unknown mode %s", argv[2]);
    scal_plugin_unload(&plugin);
    return scal_test_result(argv[2]);
}
