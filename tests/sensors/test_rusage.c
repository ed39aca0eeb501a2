// SPDX-License-Identifier: BSD-3-Clause
// Tests the rusage sensor: user CPU time grows while burning CPU, max RSS grows by touched memory.
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scal_test.h"

static volatile double sink;

// Index of a metric by name in the plugin's list, or -1.
static int metric_index(const struct scal_metric_desc *m, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0) return (int)i;
    return -1;
}

// Burns at least 0.2 s of CPU (measured with the process CPU clock, not wall time).
static void burn(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    double x = 1.0;
    do {
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 < 0.2);
    sink = x;
}

int main(int argc, char **argv)
{
    struct scal_loaded_plugin p = {0};
    if (argc != 2 ||
        !(scal_test_load_ok(&p, argv[1], SCAL_PLUGIN_SENSOR) && !strcmp(p.name, "rusage")))
        return 1;
    scal_sensor_state *st = NULL;
    char why[256] = "";
    int rc = p.desc->sensor->init(&p.env, &st, why, sizeof(why));
    CHECK(rc == 0, "init rc %d: %s", rc, why);
    if (rc != 0) return scal_test_result("test_rusage");
    CHECK(p.desc->sensor->timing == SCAL_SENSOR_RUN, "timing %u", p.desc->sensor->timing);
    const struct scal_metric_desc *m = NULL;
    size_t n = p.desc->sensor->metrics(st, &m);
    CHECK(n == 7, "%zu metrics", n);
    int ut = metric_index(m, n, "rusage.utime");
    int rss = metric_index(m, n, "rusage.maxrss");
    int minflt = metric_index(m, n, "rusage.minflt");
    CHECK(ut >= 0 && rss >= 0 && minflt >= 0, "metric names");
    CHECK(metric_index(m, n, "rusage.stime") >= 0 && metric_index(m, n, "rusage.nvcsw") >= 0 &&
              metric_index(m, n, "rusage.nivcsw") >= 0 && metric_index(m, n, "rusage.majflt") >= 0,
          "metric names");
    if (ut < 0 || rss < 0 || minflt < 0) return scal_test_result("test_rusage");
    CHECK(strcmp(m[ut].unit, "s") == 0 && m[ut].kind == SCAL_METRIC_COUNTER, "utime desc");
    CHECK(strcmp(m[rss].unit, "bytes") == 0 && m[rss].kind == SCAL_METRIC_GAUGE, "maxrss desc");
    for (size_t i = 0; i < n; i++)
        CHECK(m[i].scope == SCAL_SCOPE_PROCESS, "%s scope", m[i].name);

    double a[7], b[7], c[7];
    CHECK(p.desc->sensor->read(st, a) == 0, "read");
    burn();
    CHECK(p.desc->sensor->read(st, b) == 0, "read");
    CHECK(b[ut] - a[ut] >= 0.1, "user time grew by %g s after 0.2 s of CPU", b[ut] - a[ut]);

    size_t size = 50u << 20;
    volatile char *mem = malloc(size); // volatile: the compiler must not drop the stores
    CHECK(mem != NULL, "malloc");
    for (size_t i = 0; mem && i < size; i += 4096)
        mem[i] = 1;
    CHECK(p.desc->sensor->read(st, c) == 0, "read");
    CHECK(c[rss] - b[rss] >= 40.0 * (1 << 20), "maxrss grew by %g MB after touching 50 MB",
          (c[rss] - b[rss]) / (1 << 20));
    CHECK(c[minflt] - b[minflt] >= 1000, "minor faults grew by %g", c[minflt] - b[minflt]);
    free((void *)mem);
    p.desc->sensor->fini(st);
    scal_plugin_unload(&p);
    return scal_test_result("test_rusage");
}
