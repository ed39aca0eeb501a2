// SPDX-License-Identifier: BSD-3-Clause
// Tests the rapl sensor against fake powercap trees: names, joules, wraparound, permission,
// absence, bad content, concurrent reads, zone files opened once.
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scal_test.h"

#define PC "sys/class/powercap/"

static struct scal_loaded_plugin plugin;
static char *root;

static bool make_tree(void)
{
    // {zone, name, energy_uj, max_energy_range_uj}; the MMIO interface duplicates package-0 and
    // must be skipped.
    static const char *const zones[][4] = {
        {"intel-rapl:0", "package-0", "1000000", "262143328850"},
        {"intel-rapl:0:0", "core", "500000", "262143328850"},
        {"intel-rapl:0:1", "dram", "250000", "65712999613"},
        {"intel-rapl:1", "package-1", "9000000", "9999999"},
        {"intel-rapl-mmio:0", "package-0", "77", "262143328850"},
    };
    static const char *const files[] = {"name", "energy_uj", "max_energy_range_uj"};
    char rel[128];
    for (size_t z = 0; z < sizeof(zones) / sizeof(zones[0]); z++)
        for (size_t f = 0; f < 3; f++) {
            snprintf(rel, sizeof(rel), PC "%s/%s", zones[z][0], files[f]);
            scal_test_tree_put(root, rel, zones[z][1 + f]);
        }
    return true;
}

static void test_absent(void)
{
    char empty[600], why[512] = "";
    snprintf(empty, sizeof(empty), "%s/empty", root);
    mkdir(empty, 0755);
    const char *opts[] = {NULL};
    scal_test_reload_sensor(&plugin, opts, 0, empty);
    scal_sensor_state *st = NULL;
    int rc = plugin.desc->sensor->init(&plugin.env, &st, why, sizeof(why));
    CHECK(rc == SCAL_EUNAVAIL, "rc %d", rc);
    char expect[700];
    snprintf(expect, sizeof(expect), "%s/sys/class/powercap does not exist", empty);
    CHECK(strstr(why, expect) != NULL, "why '%s' lacks '%s'", why, expect);
    CHECK(strncmp(why, "no RAPL", 7) == 0, "why '%s'", why);

    // A powercap directory with only the MMIO duplicate: no zones.
    scal_test_tree_write(empty, PC "intel-rapl-mmio:0/name", "package-0\n");
    why[0] = '\0';
    rc = plugin.desc->sensor->init(&plugin.env, &st, why, sizeof(why));
    CHECK(rc == SCAL_EUNAVAIL, "rc %d", rc);
    CHECK(strstr(why, "no intel-rapl:N zones in ") && strstr(why, empty), "why '%s'", why);
}

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

struct reader {
    scal_sensor_state *st;
    int bad;
};

static void *read_loop(void *arg)
{
    struct reader *r = arg;
    double v[8];
    for (int i = 0; i < 200; i++)
        if (plugin.desc->sensor->read(r->st, v) != 0 || !near(v[0], 3.5)) r->bad++;
    return NULL;
}

// Values, names, the wrap, and reads from two threads at once (TSan checks the locking).
static void test_values(bool via_option)
{
    char opt[600];
    snprintf(opt, sizeof(opt), "sysfs_root=%s/", root); // a trailing slash must not matter
    const char *opts[] = {opt};
    // Either the plugin's own option or the host's env->sysfs_root.
    scal_test_reload_sensor(&plugin, opts, via_option ? 1 : 0, via_option ? "/nonexistent" : root);
    scal_sensor_state *st = NULL;
    char why[512] = "";
    int rc = plugin.desc->sensor->init(&plugin.env, &st, why, sizeof(why));
    CHECK(rc == 0, "init rc %d: %s", rc, why);
    if (rc != 0) return;
    const struct scal_metric_desc *m = NULL;
    size_t n = plugin.desc->sensor->metrics(st, &m);
    CHECK(n == 4, "%zu metrics", n);
    static const char *const names[] = {"rapl.package-0", "rapl.package-0.core",
                                        "rapl.package-0.dram", "rapl.package-1"};
    for (size_t i = 0; i < 4 && i < n; i++) {
        CHECK(strcmp(m[i].name, names[i]) == 0, "metric %zu is %s, want %s", i, m[i].name,
              names[i]);
        CHECK(strcmp(m[i].unit, "J") == 0, "unit %s", m[i].unit);
        CHECK(m[i].kind == SCAL_METRIC_COUNTER && m[i].scope == SCAL_SCOPE_PROCESS, "%s kind/scope",
              m[i].name);
    }
    CHECK(plugin.desc->sensor->timing ==
              (SCAL_SENSOR_RUN | SCAL_SENSOR_SAMPLED | SCAL_SENSOR_REGION),
          "timing %u", plugin.desc->sensor->timing);
    double v[4] = {0};
    rc = plugin.desc->sensor->read(st, v);
    CHECK(rc == 0, "read rc %d", rc);
    CHECK(near(v[0], 1.0) && near(v[1], 0.5) && near(v[2], 0.25) && near(v[3], 9.0),
          "values %g %g %g %g", v[0], v[1], v[2], v[3]);

    // package-0 grows, package-1 wraps: 9000000 -> max 9999999 -> 0 -> 500000.
    scal_test_tree_write(root, PC "intel-rapl:0/energy_uj", "3500000\n");
    scal_test_tree_write(root, PC "intel-rapl:1/energy_uj", "500000\n");
    rc = plugin.desc->sensor->read(st, v);
    CHECK(rc == 0, "read rc %d", rc);
    CHECK(near(v[0], 3.5), "package-0 %.9f, want 3.5", v[0]);
    CHECK(near(v[3], 9.0 + (9999999 - 9000000 + 500000 + 1) * 1e-6),
          "package-1 after wrap %.9f, want 10.500000", v[3]);
    scal_test_tree_write(root, PC "intel-rapl:1/energy_uj", "700000\n");
    double w[4] = {0};
    rc = plugin.desc->sensor->thread_read(st, NULL, w); // region reads are the same reads
    CHECK(rc == 0 && near(w[3] - v[3], 0.2), "delta after wrap %.9f, want 0.2", w[3] - v[3]);
    CHECK(near(w[0], 3.5), "thread_read package-0 %g", w[0]);

    struct reader a = {st, 0}, b = {st, 0};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, read_loop, &a);
    pthread_create(&tb, NULL, read_loop, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(a.bad == 0 && b.bad == 0, "concurrent reads went wrong %d/%d times", a.bad, b.bad);
    plugin.desc->sensor->fini(st);
    scal_test_tree_write(root, PC "intel-rapl:0/energy_uj", "1000000\n");
    scal_test_tree_write(root, PC "intel-rapl:1/energy_uj", "9000000\n");
}

// chmod 000 on energy_uj denies nobody but root: as root, check in a child that drops to nobody.
static void test_permission(void)
{
    char path[700];
    snprintf(path, sizeof(path), "%s/" PC "intel-rapl:0:1/energy_uj", root);
    chmod(path, 0);
    scal_test_reload_sensor(&plugin, NULL, 0, root);
    bool forked = geteuid() == 0;
    pid_t pid = forked ? fork() : 0;
    if (pid == 0) {
        if (forked && (setgid(65534) != 0 || setuid(65534) != 0)) {
            printf("permission check skipped: cannot drop root privileges\n");
            _exit(77);
        }
        scal_sensor_state *st = NULL;
        char why[700] = "";
        int rc = plugin.desc->sensor->init(&plugin.env, &st, why, sizeof(why));
        CHECK(rc == SCAL_EPERM, "rc %d: %s", rc, why);
        CHECK(strstr(why, "permission denied reading") && strstr(why, path) && strstr(why, "5.10"),
              "why '%s'", why);
        if (rc == 0) plugin.desc->sensor->fini(st);
        if (forked) {
            printf("permission checked as uid %d: %s\n", (int)getuid(), why);
            fflush(stdout);
            _exit(scal_test_failures ? 1 : 0);
        }
    } else if (pid > 0) {
        int status = 0;
        waitpid(pid, &status, 0);
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
        if (code != 77)
            CHECK(code == 0, "the unprivileged child failed its checks (exit %d)", code);
    } else {
        CHECK(pid >= 0, "fork failed");
    }
    chmod(path, 0644);
}

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        n += de->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

// Each zone's energy_uj is opened once, at init, and kept open: reads at every region boundary do
// not open the file again (one pread each), and fini closes what init opened.
static void test_open_once(void)
{
    scal_test_reload_sensor(&plugin, NULL, 0, root);
    int before = open_fds();
    scal_sensor_state *st = NULL;
    char why[512] = "";
    int rc = plugin.desc->sensor->init(&plugin.env, &st, why, sizeof(why));
    CHECK(rc == 0, "init rc %d: %s", rc, why);
    if (rc != 0) return;
    int after_init = open_fds();
    CHECK(after_init == before + 4, "%d descriptors after init, want %d (one per zone)", after_init,
          before + 4);
    double v[4] = {0};
    for (int i = 0; i < 100; i++) {
        rc = plugin.desc->sensor->thread_read(st, NULL, v);
        CHECK(rc == 0 && open_fds() == after_init, "read %d: rc %d, %d descriptors", i, rc,
              open_fds());
        if (rc != 0 || open_fds() != after_init) break;
    }
    // Writes in place are seen (the file is read from offset 0 each time)...
    scal_test_tree_write(root, PC "intel-rapl:0/energy_uj", "2000000\n");
    rc = plugin.desc->sensor->read(st, v);
    CHECK(rc == 0 && near(v[0], 2.0), "package-0 %g after an in-place write, want 2", v[0]);
    // ...while a file put in its place is not: the one opened at init is what is read.
    char path[700], tmp[720];
    snprintf(path, sizeof(path), "%s/" PC "intel-rapl:0/energy_uj", root);
    snprintf(tmp, sizeof(tmp), "%s.new", path);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL, "cannot create %s", tmp);
    if (f) {
        fputs("7000000\n", f);
        fclose(f);
        CHECK(rename(tmp, path) == 0, "rename %s", tmp);
        rc = plugin.desc->sensor->read(st, v);
        CHECK(rc == 0 && near(v[0], 2.0), "package-0 %g after the file was replaced: reopened?",
              v[0]);
    }
    plugin.desc->sensor->fini(st);
    CHECK(open_fds() == before, "%d descriptors after fini, want %d", open_fds(), before);
    scal_test_tree_write(root, PC "intel-rapl:0/energy_uj", "1000000\n");
}

static void test_garbage(void)
{
    scal_test_tree_write(root, PC "intel-rapl:1/energy_uj", "lots\n");
    scal_test_reload_sensor(&plugin, NULL, 0, root);
    scal_sensor_state *st = NULL;
    char why[700] = "";
    int rc = plugin.desc->sensor->init(&plugin.env, &st, why, sizeof(why));
    CHECK(rc == SCAL_EFORMAT, "rc %d", rc);
    CHECK(strstr(why, "intel-rapl:1/energy_uj holds 'lots', not a non-negative integer"),
          "why '%s'", why);
    if (rc == 0) plugin.desc->sensor->fini(st);
    scal_test_tree_write(root, PC "intel-rapl:1/energy_uj", "9000000\n");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s libscal_rapl.so\n", argv[0]);
        return 2;
    }
    if (!scal_test_load_ok(&plugin, argv[1], SCAL_PLUGIN_SENSOR) || strcmp(plugin.name, "rapl"))
        return 1;
    root = scal_test_tree_new();
    if (!make_tree()) {
        scal_test_tree_free(root);
        return 1;
    }
    test_absent();
    test_values(true);
    test_values(false);
    test_open_once();
    test_permission();
    test_garbage();
    scal_test_tree_free(root);
    scal_plugin_unload(&plugin);
    return scal_test_result("test_rapl");
}
