// SPDX-License-Identifier: BSD-3-Clause
/* The threads and input actuators: what they tell the launch and what they refuse. */
#include <stdio.h>
#include <string.h>

#include "launch_recorder.h"
#include "scal_test.h"

static void test_threads(const char *path)
{
    struct scal_loaded_plugin p = {0};
    struct fake_launch l;
    scal_actuator_state *st = NULL;
    char why[1024] = "", out[64];
    if (!scal_test_load_ok(&p, path, SCAL_PLUGIN_ACTUATOR)) {
        scal_test_failures++;
        return;
    }
    CHECK_STR(p.desc->name, "threads");
    CHECK_RC(scal_test_start_actuator(&p, NULL, NULL, &st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->save(st, why, sizeof(why)), SCAL_OK, why, NULL);
    fake_launch_init(&l, true);
    CHECK_RC(p.desc->actuator->apply(st, "4", &l.base, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(fake_launch_env(&l, "OMP_NUM_THREADS"), "4");
    CHECK_STR(fake_launch_placeholder(&l, "threads"), "4");
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "4");
    CHECK_RC(p.desc->actuator->apply(st, "16", &l.base, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(fake_launch_env(&l, "OMP_NUM_THREADS"), "16");
    CHECK_STR(fake_launch_placeholder(&l, "threads"), "16");
    static const char *const bad[] = {"0", "x", "-2", "", "3x", "4.5"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char want[64];
        snprintf(want, sizeof(want), "threads: '%s' is not a positive integer", bad[i]);
        CHECK_RC(p.desc->actuator->apply(st, bad[i], &l.base, why, sizeof(why)), SCAL_EINVAL, why,
                 want);
    }
    /* A refused value leaves the last good one in effect. */
    CHECK_STR(fake_launch_env(&l, "OMP_NUM_THREADS"), "16");
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "16");
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    fake_launch_free(&l);
    p.desc->actuator->fini(st);
    scal_plugin_unload(&p);
}

static void test_input(const char *path)
{
    struct scal_loaded_plugin p = {0};
    struct fake_launch l;
    scal_actuator_state *st = NULL;
    char why[1024] = "", out[256];
    if (!scal_test_load_ok(&p, path, SCAL_PLUGIN_ACTUATOR)) {
        scal_test_failures++;
        return;
    }
    CHECK_STR(p.desc->name, "input");

    /* Defaults: only the placeholder. */
    CHECK_RC(scal_test_start_actuator(&p, NULL, NULL, &st, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_RC(p.desc->actuator->test(st, why, sizeof(why)), SCAL_OK, why, NULL);
    fake_launch_init(&l, true);
    CHECK_RC(p.desc->actuator->apply(st, "big.dat", &l.base, why, sizeof(why)), SCAL_OK, why, NULL);
    CHECK_STR(fake_launch_placeholder(&l, "input"), "big.dat");
    CHECK(l.nenv == 0);
    CHECK(l.nargs == 0);
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, "big.dat");
    CHECK_RC(p.desc->actuator->apply(st, "x", NULL, why, sizeof(why)), SCAL_EINVAL, why, "input:");
    fake_launch_free(&l);
    p.desc->actuator->fini(st);

    /* env=NAME: also the environment. */
    const char *const with_env[] = {"env=SCAL_INPUT_FILE", NULL};
    CHECK_RC(scal_test_start_actuator(&p, with_env, NULL, &st, why, sizeof(why)), SCAL_OK, why,
             NULL);
    fake_launch_init(&l, true);
    CHECK_RC(p.desc->actuator->apply(st, "small.dat", &l.base, why, sizeof(why)), SCAL_OK, why,
             NULL);
    CHECK_STR(fake_launch_placeholder(&l, "input"), "small.dat");
    CHECK_STR(fake_launch_env(&l, "SCAL_INPUT_FILE"), "small.dat");
    CHECK(l.nargs == 0);
    fake_launch_free(&l);
    p.desc->actuator->fini(st);

    /* append=true: the words as arguments. */
    const char *const with_append[] = {"append=true", NULL};
    CHECK_RC(scal_test_start_actuator(&p, with_append, NULL, &st, why, sizeof(why)), SCAL_OK, why,
             NULL);
    fake_launch_init(&l, true);
    CHECK_RC(p.desc->actuator->apply(st, " -n 100\t -m  3 ", &l.base, why, sizeof(why)), SCAL_OK,
             why, NULL);
    CHECK(l.nargs == 4);
    if (l.nargs == 4) {
        CHECK_STR(l.args[0], "-n");
        CHECK_STR(l.args[1], "100");
        CHECK_STR(l.args[2], "-m");
        CHECK_STR(l.args[3], "3");
    }
    CHECK(l.nenv == 0);
    CHECK(p.desc->actuator->observe(st, out, sizeof(out)) == SCAL_OK);
    CHECK_STR(out, " -n 100\t -m  3 ");
    CHECK_RC(p.desc->actuator->restore(st, why, sizeof(why)), SCAL_OK, why, NULL);
    fake_launch_free(&l);
    p.desc->actuator->fini(st);
    scal_plugin_unload(&p);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s libscal_threads.so libscal_input.so\n", argv[0]);
        return 2;
    }
    test_threads(argv[1]);
    test_input(argv[2]);
    return scal_test_result("test_threads_input");
}
