// SPDX-License-Identifier: BSD-3-Clause
// Tests the proc sensor: RSS from the real /proc, CPU frequencies from a fake cpufreq tree.
#include <math.h>
#include <string.h>

#include "scal_test.h"

int main(int argc, char **argv)
{
    struct scal_loaded_plugin p = {0};
    if (argc != 2 || !scal_test_load_ok(&p, argv[1], SCAL_PLUGIN_SENSOR) || strcmp(p.name, "proc"))
        return 1;
    char *root = scal_test_tree_new();
    const char *S = "sys/devices/system/cpu/";
    char rel[256];
    bool ok = true;
    // cpu0, cpu2 and cpu10 have cpufreq; cpu1 has none (offline); cpufreq/ and cpuidle/ are not
    // CPUs.
    static const char *const freq[][2] = {
        {"cpu0", "2400000"}, {"cpu2", "800000"}, {"cpu10", "3100000"}};
    for (int i = 0; i < 3; i++) {
        snprintf(rel, sizeof(rel), "%s%s/cpufreq/scaling_cur_freq", S, freq[i][0]);
        ok = ok && scal_test_tree_write(root, rel, freq[i][1]);
    }
    snprintf(rel, sizeof(rel), "%scpu1/online", S);
    ok = ok && scal_test_tree_write(root, rel, "0\n");
    snprintf(rel, sizeof(rel), "%scpufreq/policy0/scaling_cur_freq", S);
    ok = ok && scal_test_tree_write(root, rel, "1\n");
    if (!ok) {
        scal_test_tree_free(root);
        return 1;
    }

    char opt[600];
    snprintf(opt, sizeof(opt), "sysfs_root=%s", root);
    const char *opts[] = {opt};
    scal_test_reload_sensor(&p, opts, 1, NULL);
    scal_sensor_state *st = NULL;
    char why[256] = "";
    int rc = p.desc->sensor->init(&p.env, &st, why, sizeof(why));
    CHECK(rc == 0, "init rc %d: %s", rc, why);
    if (rc == 0) {
        CHECK(p.desc->sensor->timing == (SCAL_SENSOR_SAMPLED | SCAL_SENSOR_RUN), "timing %u",
              p.desc->sensor->timing);
        const struct scal_metric_desc *m = NULL;
        size_t n = p.desc->sensor->metrics(st, &m);
        static const char *const names[] = {"proc.rss", "proc.cpu0.freq", "proc.cpu2.freq",
                                            "proc.cpu10.freq"};
        CHECK(n == 4, "%zu metrics", n);
        for (size_t i = 0; i < n && i < 4; i++) {
            CHECK(strcmp(m[i].name, names[i]) == 0, "metric %zu: %s, want %s", i, m[i].name,
                  names[i]);
            CHECK(m[i].kind == SCAL_METRIC_GAUGE && m[i].scope == SCAL_SCOPE_PROCESS, "%s",
                  m[i].name);
            CHECK(strcmp(m[i].unit, i == 0 ? "bytes" : "kHz") == 0, "%s unit %s", m[i].name,
                  m[i].unit);
        }
        double v[4] = {0};
        rc = p.desc->sensor->read(st, v);
        CHECK(rc == 0, "read rc %d", rc);
        CHECK(v[0] > 1e5, "rss %g bytes", v[0]);
        CHECK(v[1] == 2400000 && v[2] == 800000 && v[3] == 3100000, "freqs %g %g %g", v[1], v[2],
              v[3]);
        snprintf(rel, sizeof(rel), "%scpu2/cpufreq/scaling_cur_freq", S);
        scal_test_tree_write(root, rel, "1200000\n");
        rc = p.desc->sensor->read(st, v);
        CHECK(rc == 0 && v[2] == 1200000, "cpu2 after change %g", v[2]);
        // A CPU whose file vanishes reads NaN, and read says so.
        char path[700];
        snprintf(path, sizeof(path), "%s/%scpu10/cpufreq/scaling_cur_freq", root, S);
        remove(path);
        rc = p.desc->sensor->read(st, v);
        CHECK(rc == SCAL_EIO && isnan(v[3]) && v[1] == 2400000, "rc %d cpu10 %g", rc, v[3]);
        p.desc->sensor->fini(st);
    }

    // No cpufreq at all (like this VM): only the RSS.
    scal_test_reload_sensor(&p, NULL, 0, "/nonexistent-root");
    rc = p.desc->sensor->init(&p.env, &st, why, sizeof(why));
    CHECK(rc == 0, "init without cpufreq: rc %d: %s", rc, why);
    if (rc == 0) {
        const struct scal_metric_desc *m = NULL;
        CHECK(p.desc->sensor->metrics(st, &m) == 1 && strcmp(m[0].name, "proc.rss") == 0,
              "only rss");
        double v[1] = {0};
        CHECK(p.desc->sensor->read(st, v) == 0 && v[0] > 0, "rss %g", v[0]);
        p.desc->sensor->fini(st);
    }
    scal_test_tree_free(root);
    scal_plugin_unload(&p);
    return scal_test_result("test_proc");
}
