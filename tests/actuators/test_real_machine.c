// SPDX-License-Identifier: BSD-3-Clause
/* The machine actuators against this machine's real /sys, read-only: test() must answer "usable",
 * "unavailable" or "not permitted" with a reason naming a path; nothing is ever applied. */
#include <stdio.h>
#include <string.h>

#include "launch_recorder.h"
#include "scal_test.h"

static void probe(const char *path, const char *name)
{
    struct scal_loaded_plugin p = {0};
    scal_actuator_state *st = NULL;
    char why[1024] = "";
    if (!scal_test_load_ok(&p, path, SCAL_PLUGIN_ACTUATOR)) {
        scal_test_failures++;
        return;
    }
    CHECK_STR(p.desc->name, name);
    CHECK_RC(scal_test_start_actuator(&p, NULL, NULL, &st, why, sizeof(why)), SCAL_OK, why, NULL);
    if (!st) {
        scal_plugin_unload(&p);
        return;
    }
    why[0] = '\0';
    int rc = p.desc->actuator->test(st, why, sizeof(why));
    printf("%-10s test: %d %s\n", name, rc, rc == SCAL_OK ? "(usable)" : why);
    CHECK(rc == SCAL_OK || rc == SCAL_EUNAVAIL || rc == SCAL_EPERM);
    if (rc != SCAL_OK) {
        CHECK(strncmp(why, name, strlen(name)) == 0);
        CHECK(strstr(why, "/sys/devices/system/cpu") != NULL);
    }
    if (strcmp(name, "affinity") == 0 && rc == SCAL_OK) {
        /* Only the launch changes: safe on the real machine. */
        struct fake_launch l;
        fake_launch_init(&l, true);
        CHECK_RC(p.desc->actuator->apply(st, "compact:1", &l.base, why, sizeof(why)), SCAL_OK, why,
                 NULL);
        CHECK(l.cpus != NULL && fake_launch_env(&l, "OMP_PLACES") != NULL);
        printf("%-10s compact:1 -> cpus %s, OMP_PLACES=%s\n", name, l.cpus ? l.cpus : "(none)",
               fake_launch_env(&l, "OMP_PLACES"));
        fake_launch_free(&l);
    }
    /* Restore without save is a no-op for every actuator. */
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    p.desc->actuator->fini(st);
    scal_plugin_unload(&p);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s libscal_frequency.so libscal_cores.so libscal_affinity.so\n",
                argv[0]);
        return 2;
    }
    probe(argv[1], "frequency");
    probe(argv[2], "cores");
    probe(argv[3], "affinity");
    return scal_test_result("test_real_machine");
}
