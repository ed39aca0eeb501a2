// SPDX-License-Identifier: BSD-3-Clause
// Tests the commented template sensor: it loads, lists its metrics per the `wall` option, and its
// process and thread CPU times grow while this thread burns CPU.
#include <string.h>
#include <time.h>

#include "fake_host.h"

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
    struct fake_plugin p;
    if (argc != 2 || !fake_load(&p, argv[1], "template_sensor")) return 1;
    CHECK(p.desc->abi_version == SCAL_PLUGIN_ABI_VERSION, "abi %x", p.desc->abi_version);
    CHECK(p.desc->options[0].name && strcmp(p.desc->options[0].name, "wall") == 0 &&
              p.desc->options[1].name == NULL,
          "options table");
    scal_sensor_state *st = NULL;
    char why[256] = "";
    int rc = p.ops->init(&p.env, &st, why, sizeof(why));
    CHECK(rc == 0, "init rc %d: %s", rc, why);
    if (rc != 0) return fake_result("test_template");
    const struct scal_metric_desc *m = NULL;
    size_t n = p.ops->metrics(st, &m);
    CHECK(n == 2 && strcmp(m[0].name, "template_sensor.cpu_time") == 0 &&
              strcmp(m[1].name, "template_sensor.wall_time") == 0,
          "metrics (%zu)", n);
    double a[2], b[2];
    CHECK(p.ops->read(st, a) == 0, "read");
    scal_sensor_thread *t = NULL;
    rc = p.ops->thread_init(st, &t, why, sizeof(why));
    CHECK(rc == 0, "thread_init rc %d: %s", rc, why);
    if (rc == 0) {
        double c[2], d[2];
        CHECK(p.ops->thread_read(st, t, c) == 0, "thread_read");
        burn(0.1);
        CHECK(p.ops->thread_read(st, t, d) == 0, "thread_read");
        CHECK(d[0] - c[0] >= 0.09, "thread CPU time grew by %g s", d[0] - c[0]);
        CHECK(d[1] - c[1] >= d[0] - c[0] - 1e-3, "wall %g < cpu %g", d[1] - c[1], d[0] - c[0]);
        p.ops->thread_fini(st, t);
    }
    CHECK(p.ops->read(st, b) == 0, "read");
    CHECK(b[0] - a[0] >= 0.09, "process CPU time grew by %g s", b[0] - a[0]);
    p.ops->fini(st);

    const char *no_wall[] = {"wall=false"};
    fake_options(&p, no_wall, 1, NULL);
    rc = p.ops->init(&p.env, &st, why, sizeof(why));
    CHECK(rc == 0 && p.ops->metrics(st, &m) == 1, "wall=false: rc %d", rc);
    if (rc == 0) p.ops->fini(st);
    const char *bad[] = {"wall=maybe"};
    fake_options(&p, bad, 1, NULL);
    rc = p.ops->init(&p.env, &st, why, sizeof(why));
    CHECK(rc == SCAL_EINVAL && strstr(why, "maybe"), "wall=maybe: rc %d '%s'", rc, why);
    fake_unload(&p, true);
    return fake_result("test_template");
}
