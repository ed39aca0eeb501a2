// SPDX-License-Identifier: BSD-3-Clause
/* The frequency actuator against fake cpufreq trees: userspace and clamp paths, write order,
 * ranges, observe, exact restore (also after SIGINT in a child), unavailability reasons. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch_recorder.h"
#include "scal_test.h"

#define NCPU 4

static struct scal_loaded_plugin p;

static void cpu_rel(char *out, size_t len, int cpu, const char *file)
{
    snprintf(out, len, "sys/devices/system/cpu/cpu%d/cpufreq/%s", cpu, file);
}

static void put(const char *root, int cpu, const char *file, const char *text)
{
    char rel[256];
    cpu_rel(rel, sizeof(rel), cpu, file);
    scal_test_tree_put(root, rel, text);
}

static const char *get(const char *root, int cpu, const char *file)
{
    char rel[256];
    cpu_rel(rel, sizeof(rel), cpu, file);
    return scal_test_tree_get(root, rel);
}

static long get_long(const char *root, int cpu, const char *file)
{
    const char *v = get(root, cpu, file);
    return v ? atol(v) : -1;
}

/* acpi-cpufreq-like (userspace governor offered) or intel_pstate-like (clamp only). */
static char *make_tree(bool userspace, const char *governor)
{
    char *root = scal_test_tree_new();
    for (int cpu = 0; cpu < NCPU; cpu++) {
        char cur[32];
        snprintf(cur, sizeof(cur), "%d", 1000000 + cpu * 100000);
        put(root, cpu, "scaling_available_governors",
            userspace ? "conservative ondemand userspace powersave performance schedutil"
                      : "performance powersave");
        put(root, cpu, "scaling_governor", governor);
        put(root, cpu, "scaling_setspeed",
            strcmp(governor, "userspace") == 0 ? "2000000" : "<unsupported>");
        put(root, cpu, "scaling_min_freq", userspace ? "1000000" : "800000");
        put(root, cpu, "scaling_max_freq", userspace ? "3000000" : "3600000");
        put(root, cpu, "scaling_cur_freq", cur);
        put(root, cpu, "cpuinfo_min_freq", "800000");
        put(root, cpu, "cpuinfo_max_freq", "3600000");
    }
    return root;
}

/* Records the order of writes to scaling_min_freq/scaling_max_freq (inotify IN_CLOSE_WRITE) so
 * that replaying them from the values before proves min <= max held after every write. */
struct order_watch {
    int fd;
    int wd[NCPU];
    long min[NCPU], max[NCPU];
};

static void watch_start(struct order_watch *w, const char *root)
{
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    CHECK(w->fd >= 0);
    for (int cpu = 0; cpu < NCPU; cpu++) {
        char dir[4200];
        snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu/cpu%d/cpufreq", root, cpu);
        w->wd[cpu] = inotify_add_watch(w->fd, dir, IN_CLOSE_WRITE);
        CHECK(w->wd[cpu] >= 0);
        w->min[cpu] = get_long(root, cpu, "scaling_min_freq");
        w->max[cpu] = get_long(root, cpu, "scaling_max_freq");
    }
}

/* Replays the writes (each file is written at most once per operation, so its final value is the
 * value written); returns the number of min/max writes seen. */
static int watch_replay(struct order_watch *w, const char *root)
{
    char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
    int writes = 0;
    ssize_t n;
    while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
        for (char *q = buf; q < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)q;
            q += sizeof(*ev) + ev->len;
            int cpu = 0;
            while (cpu < NCPU && w->wd[cpu] != ev->wd)
                cpu++;
            if (cpu == NCPU || ev->len == 0) continue;
            if (strcmp(ev->name, "scaling_min_freq") == 0)
                w->min[cpu] = get_long(root, cpu, "scaling_min_freq");
            else if (strcmp(ev->name, "scaling_max_freq") == 0)
                w->max[cpu] = get_long(root, cpu, "scaling_max_freq");
            else
                continue;
            writes++;
            if (w->min[cpu] > w->max[cpu]) {
                fprintf(stderr, "cpu%d: min %ld > max %ld after writing %s\n", cpu, w->min[cpu],
                        w->max[cpu], ev->name);
                scal_test_failures++;
            }
        }
    }
    close(w->fd);
    return writes;
}

static scal_actuator_state *start(const char *root, const char *opt1)
{
    scal_actuator_state *st = NULL;
    char why[1024] = "";
    const char *const opts[] = {opt1, NULL};
    CHECK_RC(scal_test_start_actuator(&p, opt1 ? opts : NULL, root, &st, why, sizeof(why)), SCAL_OK,
             why, NULL);
    return st;
}

static void test_userspace(void)
{
    char why[1024] = "", out[64];
    char *root = make_tree(true, "userspace");
    char *before = scal_test_tree_snapshot(root);
    scal_actuator_state *st = start(root, NULL);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->save(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->apply(st, "2400000", NULL, why, sizeof(why)), SCAL_OK, why, NULL);
    for (int cpu = 0; cpu < NCPU; cpu++) {
        CHECK_STR(get(root, cpu, "scaling_governor"), "userspace");
        CHECK_STR(get(root, cpu, "scaling_setspeed"), "2400000");
        CHECK_STR(get(root, cpu, "scaling_min_freq"), "1000000"); /* untouched */
    }
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "1150000"); /* mean of 1.0, 1.1, 1.2, 1.3 GHz */
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    char *after = scal_test_tree_snapshot(root);
    CHECK_STR(after, before);
    free(after);
    /* A second restore is a no-op: it does not overwrite a later change. */
    put(root, 0, "scaling_governor", "performance");
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(get(root, 0, "scaling_governor"), "performance");
    p.desc->actuator->fini(st);
    free(before);
    scal_test_tree_free(root);

    /* Governor ondemand before: userspace while applied, ondemand again after. */
    root = make_tree(true, "ondemand");
    st = start(root, NULL);
    CHECK_RC(p.desc->actuator->save(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->apply(st, "1800000", NULL, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(get(root, 3, "scaling_governor"), "userspace");
    CHECK_STR(get(root, 3, "scaling_setspeed"), "1800000");
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    for (int cpu = 0; cpu < NCPU; cpu++)
        CHECK_STR(get(root, cpu, "scaling_governor"), "ondemand");
    p.desc->actuator->fini(st);
    scal_test_tree_free(root);

    /* Option cpus: only the listed CPUs change. */
    root = make_tree(true, "userspace");
    st = start(root, "cpus=1,3");
    CHECK_RC(p.desc->actuator->save(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->apply(st, "3000000", NULL, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(get(root, 0, "scaling_setspeed"), "2000000");
    CHECK_STR(get(root, 1, "scaling_setspeed"), "3000000");
    CHECK_STR(get(root, 2, "scaling_setspeed"), "2000000");
    CHECK_STR(get(root, 3, "scaling_setspeed"), "3000000");
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "1200000"); /* mean of cpu1 and cpu3 */
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(get(root, 1, "scaling_setspeed"), "2000000");
    p.desc->actuator->fini(st);
    scal_test_tree_free(root);
}

static void apply_clamp(scal_actuator_state *st, const char *root, const char *value, long khz)
{
    struct order_watch w;
    char why[1024] = "";
    watch_start(&w, root);
    CHECK_RC(p.desc->actuator->apply(st, value, NULL, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK(watch_replay(&w, root) == 2 * NCPU);
    for (int cpu = 0; cpu < NCPU; cpu++) {
        CHECK(get_long(root, cpu, "scaling_min_freq") == khz);
        CHECK(get_long(root, cpu, "scaling_max_freq") == khz);
    }
}

static void test_clamp(void)
{
    struct order_watch w;
    char why[1024] = "";
    char *root = make_tree(false, "powersave");
    char *before = scal_test_tree_snapshot(root);
    scal_actuator_state *st = start(root, NULL);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->save(st, why, sizeof(why)), SCAL_OK, why, NULL);
    apply_clamp(st, root, "3000000", 3000000);                /* inside the current window */
    apply_clamp(st, root, "1000000", 1000000);                /* lowering: min first */
    apply_clamp(st, root, "3500000", 3500000);                /* raising: max first */
    apply_clamp(st, root, "800000", 800000);                  /* the lowest */
    apply_clamp(st, root, "3600000", 3600000);                /* the highest */
    CHECK_STR(get(root, 0, "scaling_governor"), "powersave"); /* no governor option */
    CHECK_STR(get(root, 0, "scaling_setspeed"), "<unsupported>");

    /* Out of range or not a number: refused, nothing written. */
    char *mid = scal_test_tree_snapshot(root);
    CHECK_RC(p.desc->actuator->apply(st, "3600001", NULL, why, sizeof(why)), SCAL_ERANGE, why,
             "3600001 kHz is outside cpu0's range 800000..3600000 kHz");
    CHECK_RC(p.desc->actuator->apply(st, "799999", NULL, why, sizeof(why)), SCAL_ERANGE, why,
             "outside");
    CHECK_RC(p.desc->actuator->apply(st, "2.4GHz", NULL, why, sizeof(why)), SCAL_EINVAL, why,
             "'2.4GHz' is not a frequency in kHz");
    CHECK_RC(p.desc->actuator->apply(st, "", NULL, why, sizeof(why)), SCAL_EINVAL, why,
             "governor option");
    char *mid2 = scal_test_tree_snapshot(root);
    CHECK_STR(mid2, mid);
    free(mid);
    free(mid2);

    /* Restore: every file exactly as saved, min <= max on the way back. */
    watch_start(&w, root);
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK(watch_replay(&w, root) == 2 * NCPU);
    char *after = scal_test_tree_snapshot(root);
    CHECK_STR(after, before);
    free(after);
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    p.desc->actuator->fini(st);

    /* Restore after lowering (saved max above the applied min... and below it). */
    st = start(root, "governor=performance");
    CHECK_RC(p.desc->actuator->save(st, why, sizeof(why)), SCAL_OK, why, NULL);
    apply_clamp(st, root, "900000", 900000);
    CHECK_STR(get(root, 2, "scaling_governor"), "performance");
    watch_start(&w, root);
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK(watch_replay(&w, root) == 2 * NCPU);
    after = scal_test_tree_snapshot(root);
    CHECK_STR(after, before);
    free(after);
    p.desc->actuator->fini(st);

    /* The governor alone: an empty value with the governor option. */
    st = start(root, "governor=performance");
    CHECK_RC(p.desc->actuator->save(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->apply(st, "", NULL, why, sizeof(why)), SCAL_OK, why, NULL);
    for (int cpu = 0; cpu < NCPU; cpu++) {
        CHECK_STR(get(root, cpu, "scaling_governor"), "performance");
        CHECK_STR(get(root, cpu, "scaling_max_freq"), "3600000");
    }
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(get(root, 1, "scaling_governor"), "powersave");

    /* observe falls back to cpuinfo_cur_freq where scaling_cur_freq is missing. */
    char out[64], rel[256];
    cpu_rel(rel, sizeof(rel), 1, "scaling_cur_freq");
    char path[4400];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    CHECK(unlink(path) == 0);
    put(root, 1, "cpuinfo_cur_freq", "2500000");
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "1500000"); /* (1.0 + 2.5 + 1.2 + 1.3) / 4 GHz */
    p.desc->actuator->fini(st);
    free(before);
    scal_test_tree_free(root);
}

static void check_eperm(void *arg)
{
    const char *root = arg;
    char why[1024] = "", want[4400];
    scal_actuator_state *st = start(root, NULL);
    /* A normal user owns the tree and only cpu2's scaling_max_freq is 0444; nobody (the root
     * case) owns none of it and fails on the first file checked. */
    bool nobody = geteuid() == 65534;
    snprintf(want, sizeof(want),
             "frequency: permission denied writing %s/sys/devices/system/cpu/%s (needs root)", root,
             nobody ? "cpu0/cpufreq/scaling_governor" : "cpu2/cpufreq/scaling_max_freq");
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_EPERM, why, want);
    p.desc->actuator->fini(st);
}

static void test_unavailable(void)
{
    char why[1024] = "", want[4400];

    /* No cpufreq directory at all. */
    char *root = scal_test_tree_new();
    scal_test_tree_put(root, "sys/devices/system/cpu/online", "0-1");
    scal_actuator_state *st = start(root, NULL);
    snprintf(want, sizeof(want),
             "no cpufreq: %s/sys/devices/system/cpu/cpu0/cpufreq does not exist", root);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_EUNAVAIL, why, want);
    CHECK_RC(p.desc->actuator->apply(st, "1000000", NULL, why, sizeof(why)), SCAL_EUNAVAIL, why,
             want);
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    p.desc->actuator->fini(st);
    scal_test_tree_free(root);

    /* A listed CPU without cpufreq. */
    root = make_tree(true, "userspace");
    st = start(root, "cpus=0,7");
    snprintf(want, sizeof(want),
             "no cpufreq: %s/sys/devices/system/cpu/cpu7/cpufreq does not exist", root);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_EUNAVAIL, why, want);
    p.desc->actuator->fini(st);

    /* A file that cannot be written: permission denied naming it (as nobody when root). */
    char path[4400];
    snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu2/cpufreq/scaling_max_freq", root);
    CHECK(chmod(path, 0444) == 0);
    if (!scal_test_unprivileged(check_eperm, root))
        fprintf(stderr, "note: cannot drop root privileges, permission check skipped\n");
    scal_test_tree_free(root);

    /* A bad cpus option is refused at init. */
    scal_actuator_state *bad = NULL;
    const char *const opts[] = {"cpus=1-x", NULL};
    CHECK_RC(scal_test_start_actuator(&p, opts, "/nonexistent", &bad, why, sizeof(why)),
             SCAL_EINVAL, why, "option cpus");
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    interrupted = 1;
}

/* The runner's shape: save, apply, SIGINT arrives, the main flow sees the flag and restores. */
static int sigint_child(const char *plugin, const char *root, int ready_fd)
{
    char why[1024] = "";
    sigset_t block, old;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &old);
    sigaction(SIGINT, &sa, NULL);
    scal_plugin_unload(&p); /* the child loads the plugin itself, like the runner */
    if (!scal_test_load_ok(&p, plugin, SCAL_PLUGIN_ACTUATOR)) return 2;
    scal_actuator_state *st = start(root, NULL);
    if (!st || p.desc->actuator->save(st, why, sizeof(why)) != SCAL_OK ||
        p.desc->actuator->apply(st, "1200000", NULL, why, sizeof(why)) != SCAL_OK)
        return 3;
    if (write(ready_fd, "r", 1) != 1) return 4;
    while (!interrupted)
        sigsuspend(&old);
    int rc = p.desc->actuator->restore(st, why, sizeof(why));
    p.desc->actuator->fini(st);
    return rc == SCAL_OK ? 0 : 5;
}

static int test_sigint(const char *plugin)
{
    char *root = make_tree(false, "powersave");
    char *before = scal_test_tree_snapshot(root);
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        _exit(sigint_child(plugin, root, fds[1]));
    }
    close(fds[1]);
    char c = 0;
    CHECK(read(fds[0], &c, 1) == 1 && c == 'r');
    close(fds[0]);
    /* Applied while the child waits. */
    CHECK_STR(get(root, 0, "scaling_max_freq"), "1200000");
    CHECK_STR(get(root, 3, "scaling_min_freq"), "1200000");
    CHECK(kill(pid, SIGINT) == 0);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *after = scal_test_tree_snapshot(root);
    CHECK_STR(after, before);
    free(after);
    free(before);
    scal_test_tree_free(root);
    return scal_test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s libscal_frequency.so [sigint]\n", argv[0]);
        return 2;
    }
    /* the unprivileged child reloads the plugin: from a copy it can read */
    char *copy_tree, *lib = scal_test_readable_copy(argv[1], &copy_tree);
    if (!scal_test_load_ok(&p, lib, SCAL_PLUGIN_ACTUATOR)) return 1;
    CHECK_STR(p.desc->name, "frequency");
    if (argc > 2 && strcmp(argv[2], "sigint") == 0) {
        test_sigint(argv[1]);
    } else {
        test_userspace();
        test_clamp();
        test_unavailable();
    }
    scal_plugin_unload(&p);
    free(lib);
    scal_test_tree_free(copy_tree);
    return scal_test_result("test_frequency");
}
