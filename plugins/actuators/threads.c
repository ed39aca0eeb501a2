// SPDX-License-Identifier: BSD-3-Clause
/* The threads actuator: a run's thread count as OMP_NUM_THREADS and the {threads} placeholder. */
#include <stdio.h>
#include <stdlib.h>

#include "plugin_util.h"
#include "scal/plugin.h"

struct scal_actuator_state {
    char value[32]; /* the last applied value, "" before the first apply */
};

static int threads_init(const struct scal_plugin_env *env, scal_actuator_state **state, char *why,
                        size_t whylen)
{
    scal_actuator_state *s = calloc(1, sizeof(*s));
    if (!s) return scal__why(why, whylen, SCAL_ENOMEM, "threads: out of memory");
    *state = s;
    return SCAL_OK;
}

static int threads_apply(scal_actuator_state *state, const char *value, struct scal_launch *launch,
                         char *why, size_t whylen)
{
    const char *v = value ? value : "";
    long n = 0;
    if (!scal__parse_positive(v, 1000000, &n))
        return scal__why(why, whylen, SCAL_EINVAL, "threads: '%s' is not a positive integer", v);
    if (!launch)
        return scal__why(why, whylen, SCAL_EINVAL,
                         "threads: needs a launch to set OMP_NUM_THREADS");
    char text[32];
    snprintf(text, sizeof(text), "%ld", n);
    int rc = launch->set_env(launch, "OMP_NUM_THREADS", text);
    if (rc != SCAL_OK)
        return scal__why(why, whylen, rc, "threads: cannot set OMP_NUM_THREADS=%s", text);
    rc = launch->set_placeholder(launch, "threads", text);
    if (rc != SCAL_OK)
        return scal__why(why, whylen, rc, "threads: cannot set placeholder {threads}=%s", text);
    snprintf(state->value, sizeof(state->value), "%s", text);
    return SCAL_OK;
}

static int threads_observe(scal_actuator_state *state, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", state->value);
    return SCAL_OK;
}

static void threads_fini(scal_actuator_state *state)
{
    free(state);
}

static const struct scal_actuator_ops threads_ops = {
    .struct_size = sizeof(struct scal_actuator_ops),
    .init = threads_init,
    .apply = threads_apply, /* changes only the launch: test, save and restore are the host's */
    .observe = threads_observe,
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
