// SPDX-License-Identifier: BSD-3-Clause
/* The affinity actuator: CPU lists, compact:N and spread:N against a fake online-CPU file. */
#include <stdio.h>
#include <string.h>

#include "launch_recorder.h"
#include "scal_test.h"

static struct scal_loaded_plugin p;

static void expect(scal_actuator_state *st, const char *value, const char *cpus, const char *places,
                   const char *bind)
{
    struct fake_launch l;
    char why[1024] = "", out[256];
    fake_launch_init(&l, true);
    CHECK_RC(p.desc->actuator->apply(st, value, &l.base, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(l.cpus, cpus);
    CHECK_STR(fake_launch_env(&l, "OMP_PLACES"), places);
    CHECK_STR(fake_launch_env(&l, "OMP_PROC_BIND"), bind);
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, cpus);
    fake_launch_free(&l);
}

static void refuse(scal_actuator_state *st, const char *value, int rc, const char *sub)
{
    struct fake_launch l;
    char why[1024] = "";
    fake_launch_init(&l, true);
    CHECK_RC(p.desc->actuator->apply(st, value, &l.base, why, sizeof(why)), rc, why, sub);
    CHECK(l.cpus == NULL);
    CHECK(l.nenv == 0);
    fake_launch_free(&l);
}

int main(int argc, char **argv)
{
    scal_actuator_state *st = NULL;
    char why[1024] = "";
    if (argc != 2) {
        fprintf(stderr, "usage: %s libscal_affinity.so\n", argv[0]);
        return 2;
    }
    if (!scal_test_load_ok(&p, argv[1], SCAL_PLUGIN_ACTUATOR)) return 1;
    CHECK_STR(p.desc->name, "affinity");
    char *root = scal_test_tree_new();
    scal_test_tree_put(root, "sys/devices/system/cpu/online", "0-3,8-11");

    /* The sysfs_root option, given explicitly. */
    char opt[4200];
    snprintf(opt, sizeof(opt), "sysfs_root=%s", root);
    const char *const opts[] = {opt, NULL};
    CHECK_RC(scal_test_start_actuator(&p, opts, NULL, &st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->save(st, why, sizeof(why)), SCAL_OK, why, NULL);
    expect(st, "0-3,9", "0-3,9", "{0},{1},{2},{3},{9}", "close");
    expect(st, "11,1,1", "1,11", "{1},{11}", "close");
    expect(st, "compact:5", "0-3,8", "{0},{1},{2},{3},{8}", "close");
    expect(st, "spread:4", "0,2,8,10", "{0},{2},{8},{10}", "spread");
    expect(st, "spread:8", "0-3,8-11", "{0},{1},{2},{3},{8},{9},{10},{11}", "spread");
    expect(st, "compact:1", "0", "{0}", "close");
    refuse(st, "0-5", SCAL_EINVAL, "CPU 4 is not online (online: 0-3,8-11)");
    refuse(st, "12", SCAL_EINVAL, "CPU 12 is not online");
    refuse(st, "compact:9", SCAL_EINVAL, "asks for 9 CPUs but only 8 are online");
    refuse(st, "spread:0", SCAL_EINVAL, "not a positive CPU count");
    refuse(st, "3-1", SCAL_EINVAL, "not a CPU list");
    refuse(st, "a,b", SCAL_EINVAL, "not a CPU list");
    CHECK_RC(p.desc->actuator->apply(st, "0", NULL, why, sizeof(why)), SCAL_EINVAL, why,
             "needs a launch");

    /* An ABI 1.0 launch has no set_cpus: the environment is still set (the fake's set_cpus
     * pointer past struct_size would crash if used). */
    struct fake_launch old;
    fake_launch_init(&old, false);
    CHECK_RC(p.desc->actuator->apply(st, "compact:2", &old.base, why, sizeof(why)), SCAL_OK, why,
             NULL);
    CHECK_STR(fake_launch_env(&old, "OMP_PLACES"), "{0},{1}");
    fake_launch_free(&old);
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    p.desc->actuator->fini(st);

    /* The host's env->sysfs_root when the option is left at its default "/". */
    CHECK_RC(scal_test_start_actuator(&p, NULL, root, &st, why, sizeof(why)), SCAL_OK, why, NULL);
    expect(st, "compact:2", "0-1", "{0},{1}", "close");
    p.desc->actuator->fini(st);

    /* No online file: unavailable, naming the path. */
    char *empty = scal_test_tree_new();
    CHECK_RC(scal_test_start_actuator(&p, NULL, empty, &st, why, sizeof(why)), SCAL_OK, why, NULL);
    char want[4200];
    snprintf(want, sizeof(want), "%s/sys/devices/system/cpu/online", empty);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_EUNAVAIL, why, want);
    p.desc->actuator->fini(st);

    scal_test_tree_free(empty);
    scal_test_tree_free(root);
    scal_plugin_unload(&p);
    return scal_test_result("test_affinity");
}
