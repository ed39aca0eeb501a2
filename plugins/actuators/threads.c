// SPDX-License-Identifier: BSD-3-Clause
/* The threads actuator: a run's thread count as OMP_NUM_THREADS and the {threads} placeholder. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scal/plugin.h"

struct scal_actuator_state {
    char value[32]; /* the last applied value, "" before the first apply */
};

static int threads_init(const struct scal_plugin_env *env, scal_actuator_state **state, char *why,
                        size_t whylen)
{
    scal_actuator_state *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(why, whylen, "threads: out of memory");
        return SCAL_ENOMEM;
    }
    *state = s;
    return SCAL_OK;
}

static int threads_test(scal_actuator_state *state, char *why, size_t whylen)
{
    return SCAL_OK;
}

static int threads_save(scal_actuator_state *state, char *why, size_t whylen)
{
    return SCAL_OK; /* changes only the launch: nothing on the machine to save */
}

static int threads_apply(scal_actuator_state *state, const char *value, struct scal_launch *launch,
                         char *why, size_t whylen)
{
    const char *v = value ? value : "";
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno != 0 || n <= 0 || n > 1000000 || v[0] == '+' ||
        v[0] == ' ') {
        snprintf(why, whylen, "threads: '%s' is not a positive integer", v);
        return SCAL_EINVAL;
    }
    if (!launch) {
        snprintf(why, whylen, "threads: needs a launch to set OMP_NUM_THREADS");
        return SCAL_EINVAL;
    }
    char text[32];
    snprintf(text, sizeof(text), "%ld", n);
    int rc = launch->set_env(launch, "OMP_NUM_THREADS", text);
    if (rc != SCAL_OK) {
        snprintf(why, whylen, "threads: cannot set OMP_NUM_THREADS=%s", text);
        return rc;
    }
    rc = launch->set_placeholder(launch, "threads", text);
    if (rc != SCAL_OK) {
        snprintf(why, whylen, "threads: cannot set placeholder {threads}=%s", text);
        return rc;
    }
    snprintf(state->value, sizeof(state->value), "%s", text);
    return SCAL_OK;
}

static int threads_observe(scal_actuator_state *state, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", state->value);
    return SCAL_OK;
}

static int threads_restore(scal_actuator_state *state, char *why, size_t whylen)
{
    return SCAL_OK;
}

static void threads_fini(scal_actuator_state *state)
{
    free(state);
}

static const struct scal_actuator_ops threads_ops = {
    .struct_size = sizeof(struct scal_actuator_ops),
    .init = threads_init,
    .test = threads_test,
    .save = threads_save,
    .apply = threads_apply,
    .observe = threads_observe,
    .restore = threads_restore,
    .fini = threads_fini,
};

static const struct scal_option_desc threads_options[] = {{0}};

static const struct scal_plugin_desc threads_desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(struct scal_plugin_desc),
    .name = "threads",
    .version = "1",
    .kind = SCAL_PLUGIN_ACTUATOR,
    .description = "OpenMP thread count: sets OMP_NUM_THREADS and the {threads} placeholder",
    .options = threads_options,
    .actuator = &threads_ops,
};

SCAL_PLUGIN_DEFINE(threads_desc)
