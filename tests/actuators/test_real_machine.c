// SPDX-License-Identifier: BSD-3-Clause
/* The machine actuators against this machine's real /sys, read-only: test() must answer "usable",
 * "unavailable" or "not permitted" with a reason naming a path; nothing is ever applied. */
#include <stdio.h>
#include <string.h>

#include "fake_host.h"

static void probe(const char *path, const char *name)
{
    struct fake_plugin p;
    struct fake_env fe;
    scal_actuator_state *st = NULL;
    char why[1024] = "";
    if (!fake_load(path, &p)) {
        fake_failures++;
        return;
    }
    CHECK_STR(p.desc->name, name);
    CHECK_RC(fake_start(&p, &fe, NULL, NULL, &st, why, sizeof(why)), SCAL_OK, why, NULL);
    if (!st) {
        fake_unload(&p);
        return;
    }
    why[0] = '\0';
    int rc = p.ops->test(st, why, sizeof(why));
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
        CHECK_RC(p.ops->apply(st, "compact:1", &l.base, why, sizeof(why)), SCAL_OK, why, NULL);
        CHECK(l.cpus != NULL && fake_launch_env(&l, "OMP_PLACES") != NULL);
        printf("%-10s compact:1 -> cpus %s, OMP_PLACES=%s\n", name, l.cpus ? l.cpus : "(none)",
               fake_launch_env(&l, "OMP_PLACES"));
        fake_launch_free(&l);
    }
    /* Restore without save is a no-op for every actuator. */
    CHECK_RC(p.ops->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    p.ops->fini(st);
    fake_unload(&p);
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
    if (fake_failures) fprintf(stderr, "%d check(s) failed\n", fake_failures);
    return fake_failures ? 1 : 0;
}
