// SPDX-License-Identifier: BSD-3-Clause
// Tests the commented template sensor: it loads, lists its metrics per the `wall` option, and its
// process and thread CPU times grow while this thread burns CPU.
#include <string.h>
#include <time.h>

#include "scal_test.h"

static volatile double sink;

static void burn(double cpu_seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    double x = 1.0;
    do {
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 <
             cpu_seconds);
    sink = x;
}

int main(int argc, char **argv)
{
    struct scal_loaded_plugin p = {0};
    if (argc != 2 ||
        !(scal_test_load_ok(&p, argv[1], SCAL_PLUGIN_SENSOR) && !strcmp(p.name, "template_sensor")))
        return 1;
    CHECK(p.desc->abi_version == SCAL_PLUGIN_ABI_VERSION, "abi %x", p.desc->abi_version);
    CHECK(p.desc->options[0].name && strcmp(p.desc->options[0].name, "wall") == 0 &&
              p.desc->options[1].name == NULL,
          "options table");
    scal_sensor_state *st = NULL;
    char why[256] = "";
    int rc = p.desc->sensor->init(&p.env, &st, why, sizeof(why));
    CHECK(rc == 0, "init rc %d: %s", rc, why);
    if (rc != 0) return scal_test_result("test_template");
    const struct scal_metric_desc *m = NULL;
    size_t n = p.desc->sensor->metrics(st, &m);
    CHECK(n == 2 && strcmp(m[0].name, "template_sensor.cpu_time") == 0 &&
              strcmp(m[1].name, "template_sensor.wall_time") == 0,
          "metrics (%zu)", n);
    double a[2], b[2];
    CHECK(p.desc->sensor->read(st, a) == 0, "read");
    scal_sensor_thread *t = NULL;
    rc = p.desc->sensor->thread_init(st, &t, why, sizeof(why));
    CHECK(rc == 0, "thread_init rc %d: %s", rc, why);
    if (rc == 0) {
        double c[2], d[2];
        CHECK(p.desc->sensor->thread_read(st, t, c) == 0, "thread_read");
        burn(0.1);
        CHECK(p.desc->sensor->thread_read(st, t, d) == 0, "thread_read");
        CHECK(d[0] - c[0] >= 0.09, "thread CPU time grew by %g s", d[0] - c[0]);
        CHECK(d[1] - c[1] >= d[0] - c[0] - 1e-3, "wall %g < cpu %g", d[1] - c[1], d[0] - c[0]);
        p.desc->sensor->thread_fini(st, t);
    }
    CHECK(p.desc->sensor->read(st, b) == 0, "read");
    CHECK(b[0] - a[0] >= 0.09, "process CPU time grew by %g s", b[0] - a[0]);
    p.desc->sensor->fini(st);

    const char *no_wall[] = {"wall=false"};
    scal_test_reload_sensor(&p, no_wall, 1, NULL);
    rc = p.desc->sensor->init(&p.env, &st, why, sizeof(why));
    CHECK(rc == 0 && p.desc->sensor->metrics(st, &m) == 1, "wall=false: rc %d", rc);
    if (rc == 0) p.desc->sensor->fini(st);
    // The host checks an option's type before the plugin sees it.
    const char *bad[] = {"wall=maybe"};
    char path[SCAL_PLUGIN_PATH_MAX];
    snprintf(path, sizeof(path), "%s", p.path);
    rc = scal_test_load(&p, path, SCAL_PLUGIN_SENSOR, bad, 1, NULL, why, sizeof(why));
    CHECK(rc == SCAL_EINVAL && strstr(why, "'maybe'"), "wall=maybe: rc %d '%s'", rc, why);
    scal_plugin_unload(&p);
    return scal_test_result("test_template");
}
