// SPDX-License-Identifier: BSD-3-Clause
/* A stand-in for the runner's launch (struct scal_launch) in the actuator tests: records what an
 * actuator told it. Plugins are loaded by the real loader; this fake stays because the real launch
 * (runner/launch.c) lives in the runner, rewrites a program's command line instead of recording
 * calls, and cannot present an ABI 1.0 layout (a struct_size without set_cpus). */
#ifndef SCAL_TESTS_LAUNCH_RECORDER_H
#define SCAL_TESTS_LAUNCH_RECORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "scal/plugin.h"

#define FAKE_MAX_ITEMS 64
struct fake_launch {
    struct scal_launch base; /* first: the plugin sees this */
    char *env_names[FAKE_MAX_ITEMS], *env_values[FAKE_MAX_ITEMS];
    size_t nenv;
    char *ph_names[FAKE_MAX_ITEMS], *ph_values[FAKE_MAX_ITEMS];
    size_t nph;
    char *args[FAKE_MAX_ITEMS];
    size_t nargs;
    char *cpus; /* the last set_cpus list, NULL when never called */
};

/* abi_1_1 false builds an ABI 1.0 launch (struct_size without set_cpus). */
void fake_launch_init(struct fake_launch *l, bool abi_1_1);
void fake_launch_free(struct fake_launch *l);
const char *fake_launch_env(const struct fake_launch *l, const char *name);
const char *fake_launch_placeholder(const struct fake_launch *l, const char *name);

#endif
