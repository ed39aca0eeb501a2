// SPDX-License-Identifier: BSD-3-Clause
/* A stand-in for the runner's launch in the actuator tests: records what an actuator told it (see
 * launch_recorder.h for why it is not the real one). */
#include "launch_recorder.h"

#include <stdlib.h>
#include <string.h>

static struct fake_launch *launch_of(struct scal_launch *l)
{
    return (struct fake_launch *)l->host_data;
}

/* Sets name=value in a name/value array, replacing an earlier value. */
static int record(char **names, char **values, size_t *n, const char *name, const char *value)
{
    size_t i = 0;
    while (i < *n && strcmp(names[i], name) != 0)
        i++;
    if (i == FAKE_MAX_ITEMS) return SCAL_ENOMEM;
    char *v = strdup(value);
    if (!v) return SCAL_ENOMEM;
    if (i == *n) {
        if (!(names[i] = strdup(name))) {
            free(v);
            return SCAL_ENOMEM;
        }
        (*n)++;
    } else {
        free(values[i]);
    }
    values[i] = v;
    return SCAL_OK;
}

static int fake_set_env(struct scal_launch *launch, const char *name, const char *value)
{
    struct fake_launch *l = launch_of(launch);
    return record(l->env_names, l->env_values, &l->nenv, name, value);
}

static int fake_set_placeholder(struct scal_launch *launch, const char *name, const char *value)
{
    struct fake_launch *l = launch_of(launch);
    return record(l->ph_names, l->ph_values, &l->nph, name, value);
}

static int fake_append_args(struct scal_launch *launch, const char *const *args, size_t nargs)
{
    struct fake_launch *l = launch_of(launch);
    for (size_t i = 0; i < nargs; i++) {
        if (l->nargs == FAKE_MAX_ITEMS || !(l->args[l->nargs] = strdup(args[i])))
            return SCAL_ENOMEM;
        l->nargs++;
    }
    return SCAL_OK;
}

static int fake_set_cpus(struct scal_launch *launch, const char *cpulist)
{
    struct fake_launch *l = launch_of(launch);
    free(l->cpus);
    l->cpus = strdup(cpulist);
    return l->cpus ? SCAL_OK : SCAL_ENOMEM;
}

void fake_launch_init(struct fake_launch *l, bool abi_1_1)
{
    memset(l, 0, sizeof(*l));
    l->base.struct_size = abi_1_1 ? sizeof(l->base) : offsetof(struct scal_launch, set_cpus);
    l->base.set_env = fake_set_env;
    l->base.set_placeholder = fake_set_placeholder;
    l->base.append_args = fake_append_args;
    l->base.host_data = l;
    /* An ABI 1.0 host's struct ends before set_cpus; a plugin reading it anyway would crash here.
     */
    l->base.set_cpus = abi_1_1 ? fake_set_cpus : (int (*)(struct scal_launch *, const char *))1;
}

void fake_launch_free(struct fake_launch *l)
{
    for (size_t i = 0; i < l->nenv; i++) {
        free(l->env_names[i]);
        free(l->env_values[i]);
    }
    for (size_t i = 0; i < l->nph; i++) {
        free(l->ph_names[i]);
        free(l->ph_values[i]);
    }
    for (size_t i = 0; i < l->nargs; i++)
        free(l->args[i]);
    free(l->cpus);
    memset(l, 0, sizeof(*l));
}

static const char *lookup(char *const *names, char *const *values, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return values[i];
    return NULL;
}

const char *fake_launch_env(const struct fake_launch *l, const char *name)
{
    return lookup(l->env_names, l->env_values, l->nenv, name);
}

const char *fake_launch_placeholder(const struct fake_launch *l, const char *name)
{
    return lookup(l->ph_names, l->ph_values, l->nph, name);
}
