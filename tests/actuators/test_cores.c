// SPDX-License-Identifier: BSD-3-Clause
/* The cores actuator against a fake hotplug tree: online/offline writes, SMT control, exact
 * restore, refusals and unavailability reasons. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch_recorder.h"
#include "scal_test.h"

static struct scal_loaded_plugin p;

/* cpu0 without an online file (always online), cpu1..cpu5 with one; cpu5 starts offline. */
static char *make_tree(bool smt)
{
    char *root = scal_test_tree_new();
    scal_test_tree_put(root, "sys/devices/system/cpu/cpu0/topology/core_id", "0");
    for (int cpu = 1; cpu < 6; cpu++) {
        char rel[128];
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/online", cpu);
        scal_test_tree_put(root, rel, cpu == 5 ? "0" : "1");
    }
    scal_test_tree_put(root, "sys/devices/system/cpu/online", "0-4");
    if (smt) scal_test_tree_put(root, "sys/devices/system/cpu/smt/control", "on");
    return root;
}

static const char *online(const char *root, int cpu)
{
    char rel[128];
    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/online", cpu);
    return scal_test_tree_get(root, rel);
}

static scal_actuator_state *start(const char *root, bool via_option)
{
    scal_actuator_state *st = NULL;
    char why[1024] = "", opt[4200];
    snprintf(opt, sizeof(opt), "sysfs_root=%s", root);
    const char *const opts[] = {opt, NULL};
    CHECK_RC(scal_test_start_actuator(&p, via_option ? opts : NULL, via_option ? NULL : root, &st,
                                      why, sizeof(why)),
             SCAL_OK, why, NULL);
    return st;
}

static void check_eperm(void *arg)
{
    const char *root = arg;
    char why[1024] = "", want[4400];
    scal_actuator_state *st = start(root, false);
    /* A normal user owns the tree and only cpu3/online is 0444; nobody (the root case) owns none
     * of it and fails on cpu1 first. */
    snprintf(want, sizeof(want),
             "cores: permission denied writing %s/sys/devices/system/cpu/cpu%d/online (needs root)",
             root, geteuid() == 65534 ? 1 : 3);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_EPERM, why, want);
    p.desc->actuator->fini(st);
}

int main(int argc, char **argv)
{
    char why[1024] = "", out[64], want[4400];
    if (argc != 2) {
        fprintf(stderr, "usage: %s libscal_cores.so\n", argv[0]);
        return 2;
    }
    /* the unprivileged child reloads the plugin: from a copy it can read */
    char *copy_tree, *lib = scal_test_readable_copy(argv[1], &copy_tree);
    if (!scal_test_load_ok(&p, lib, SCAL_PLUGIN_ACTUATOR)) return 1;
    CHECK_STR(p.desc->name, "cores");

    char *root = make_tree(true);
    char *before = scal_test_tree_snapshot(root);
    scal_actuator_state *st = start(root, true);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->save(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "5");

    CHECK_RC(p.desc->actuator->apply(st, "2", NULL, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(online(root, 1), "1");
    CHECK_STR(online(root, 2), "0");
    CHECK_STR(online(root, 3), "0");
    CHECK_STR(online(root, 4), "0");
    CHECK_STR(online(root, 5), "0");
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "2");

    CHECK_RC(p.desc->actuator->apply(st, "6", NULL, why, sizeof(why)), SCAL_OK, why, NULL);
    for (int cpu = 1; cpu < 6; cpu++)
        CHECK_STR(online(root, cpu), "1");
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "6");

    CHECK_RC(p.desc->actuator->apply(st, "1", NULL, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(online(root, 1), "0");
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "1");

    CHECK_RC(p.desc->actuator->apply(st, "smt=off", NULL, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(scal_test_tree_get(root, "sys/devices/system/cpu/smt/control"), "off");
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "smt=off");

    CHECK_RC(p.desc->actuator->apply(st, "7", NULL, why, sizeof(why)), SCAL_ERANGE, why,
             "7 CPUs asked for, the machine has 6");
    CHECK_RC(p.desc->actuator->apply(st, "0", NULL, why, sizeof(why)), SCAL_EINVAL, why,
             "neither a CPU count nor smt=on/off");
    CHECK_RC(p.desc->actuator->apply(st, "x", NULL, why, sizeof(why)), SCAL_EINVAL, why, "'x'");
    CHECK_RC(p.desc->actuator->apply(st, "smt=maybe", NULL, why, sizeof(why)), SCAL_EINVAL, why,
             "smt=maybe");

    /* Restore: cpu5 back offline, the others online, SMT on: every file as before. */
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    char *after = scal_test_tree_snapshot(root);
    CHECK_STR(after, before);
    free(after);
    scal_test_tree_put(root, "sys/devices/system/cpu/cpu2/online", "0");
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL); /* no-op */
    CHECK_STR(online(root, 2), "0");
    p.desc->actuator->fini(st);
    free(before);
    scal_test_tree_free(root);

    /* No SMT control: smt=off is unavailable, naming the path; counts still work (env root). */
    root = make_tree(false);
    st = start(root, false);
    CHECK_RC(p.desc->actuator->save(st, why, sizeof(why)), SCAL_OK, why, NULL);
    snprintf(want, sizeof(want), "no SMT control: %s/sys/devices/system/cpu/smt/control", root);
    CHECK_RC(p.desc->actuator->apply(st, "smt=off", NULL, why, sizeof(why)), SCAL_EUNAVAIL, why,
             want);
    CHECK_RC(p.desc->actuator->apply(st, "3", NULL, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(online(root, 3), "0");
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(online(root, 3), "1");
    CHECK_STR(online(root, 5), "0");
    p.desc->actuator->fini(st);

    /* Unwritable online file: permission denied naming it (as nobody when root). */
    char path[4400];
    snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu3/online", root);
    CHECK(chmod(path, 0444) == 0);
    if (!scal_test_unprivileged(check_eperm, root))
        fprintf(stderr, "note: cannot drop root privileges, permission check skipped\n");
    scal_test_tree_free(root);

    /* No online files at all: no hotplug. */
    root = scal_test_tree_new();
    scal_test_tree_put(root, "sys/devices/system/cpu/cpu0/topology/core_id", "0");
    scal_test_tree_put(root, "sys/devices/system/cpu/cpu1/topology/core_id", "1");
    st = start(root, false);
    snprintf(want, sizeof(want), "no CPU hotplug: %s/sys/devices/system/cpu/cpu1/online", root);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_EUNAVAIL, why, want);
    p.desc->actuator->fini(st);
    scal_test_tree_free(root);

    scal_plugin_unload(&p);
    free(lib);
    scal_test_tree_free(copy_tree);
    return scal_test_result("test_cores");
}
