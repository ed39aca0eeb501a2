// SPDX-License-Identifier: BSD-3-Clause
/* The affinity actuator: pins a run to a CPU list ("0-3,6", "compact:N", "spread:N") through the
 * launch's CPU mask and OMP_PLACES/OMP_PROC_BIND. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_util.h"
#include "scal/plugin.h"
#include "sysfs_io.h"

#define ONLINE_REL "/sys/devices/system/cpu/online"

struct scal_actuator_state {
    char *root;
    char applied[1024]; /* the CPU list last applied, "" before */
};

static int affinity_init(const struct scal_plugin_env *env, scal_actuator_state **state, char *why,
                         size_t whylen)
{
    scal_actuator_state *s = calloc(1, sizeof(*s));
    if (!s || !(s->root = strdup(scal__sysfs_root(env)))) {
        free(s);
        return scal__why(why, whylen, SCAL_ENOMEM, "affinity: out of memory");
    }
    *state = s;
    return SCAL_OK;
}

static int affinity_test(scal_actuator_state *state, char *why, size_t whylen)
{
    char buf[1024], msg[512];
    int rc = scal__sysfs_read(state->root, ONLINE_REL, buf, sizeof(buf), msg, sizeof(msg));
    if (rc != SCAL_OK)
        return scal__why(why, whylen, rc == SCAL_EPERM ? SCAL_EPERM : SCAL_EUNAVAIL, "affinity: %s",
                         msg);
    return SCAL_OK;
}

static int read_online(scal_actuator_state *state, int **cpus, size_t *n, char *why, size_t whylen)
{
    char buf[4096], msg[512];
    int rc = scal__sysfs_read(state->root, ONLINE_REL, buf, sizeof(buf), msg, sizeof(msg));
    if (rc == SCAL_OK) rc = scal__cpulist_parse(buf, cpus, n, msg, sizeof(msg));
    if (rc != SCAL_OK) return scal__why(why, whylen, rc, "affinity: online CPUs: %s", msg);
    return SCAL_OK;
}

/* Chooses the CPUs of value from the online ones into *chosen (malloc'd); *spread says whether the
 * threads should be spread. */
static int choose(scal_actuator_state *state, const char *value, int **chosen, size_t *nchosen,
                  bool *spread, char *why, size_t whylen)
{
    int *online = NULL, *pick = NULL;
    size_t nonline = 0, npick = 0;
    int rc;
    bool is_compact = strncmp(value, "compact:", 8) == 0;
    bool is_spread = strncmp(value, "spread:", 7) == 0;
    *spread = is_spread;
    rc = read_online(state, &online, &nonline, why, whylen);
    if (rc != SCAL_OK) goto out;
    if (is_compact || is_spread) {
        const char *count = value + (is_compact ? 8 : 7);
        long n = 0;
        if (!scal__parse_positive(count, SCAL_SYSFS_MAX_CPUS, &n)) {
            rc = scal__why(why, whylen, SCAL_EINVAL,
                           "affinity: '%s': '%s' is not a positive CPU count", value, count);
            goto out;
        }
        npick = (size_t)n;
        if (npick > nonline) {
            rc = scal__why(why, whylen, SCAL_EINVAL,
                           "affinity: '%s' asks for %zu CPUs but only %zu are online", value, npick,
                           nonline);
            goto out;
        }
        pick = malloc(npick * sizeof(*pick));
        if (!pick) {
            rc = scal__why(why, whylen, SCAL_ENOMEM, "affinity: out of memory");
            goto out;
        }
        /* compact: the first N; spread: N evenly spaced over the online CPUs. */
        for (size_t i = 0; i < npick; i++)
            pick[i] = online[is_compact ? i : i * nonline / npick];
    } else {
        char msg[512];
        rc = scal__cpulist_parse(value, &pick, &npick, msg, sizeof(msg));
        if (rc != SCAL_OK) {
            rc = scal__why(why, whylen, rc, "affinity: %s", msg);
            goto out;
        }
        for (size_t i = 0, j = 0; i < npick; i++) {
            while (j < nonline && online[j] < pick[i])
                j++;
            if (j == nonline || online[j] != pick[i]) {
                char list[1024];
                if (scal__cpulist_format(online, nonline, list, sizeof(list)) != SCAL_OK)
                    snprintf(list, sizeof(list), "...");
                rc = scal__why(why, whylen, SCAL_EINVAL,
                               "affinity: CPU %d is not online (online: %s)", pick[i], list);
                goto out;
            }
        }
    }
    *chosen = pick;
    *nchosen = npick;
    pick = NULL;
out:
    free(pick);
    free(online);
    return rc;
}

static int affinity_apply(scal_actuator_state *state, const char *value, struct scal_launch *launch,
                          char *why, size_t whylen)
{
    int *cpus = NULL;
    size_t ncpus = 0;
    bool spread = false;
    char *places = NULL;
    char list[sizeof(state->applied)];
    int rc;
    const char *v = value ? value : "";
    if (!launch) {
        rc = scal__why(why, whylen, SCAL_EINVAL, "affinity: needs a launch to apply '%s'", v);
        goto out;
    }
    rc = choose(state, v, &cpus, &ncpus, &spread, why, whylen);
    if (rc != SCAL_OK) goto out;
    if (scal__cpulist_format(cpus, ncpus, list, sizeof(list)) != SCAL_OK) {
        rc = scal__why(why, whylen, SCAL_ERANGE, "affinity: the CPU list of '%s' is too long", v);
        goto out;
    }
    /* "{0},{1},...": one place per CPU; at most 7 characters per CPU id below
     * SCAL_SYSFS_MAX_CPUS. */
    size_t cap = ncpus * 8 + 1, used = 0;
    places = malloc(cap);
    if (!places) {
        rc = scal__why(why, whylen, SCAL_ENOMEM, "affinity: out of memory");
        goto out;
    }
    places[0] = '\0';
    for (size_t i = 0; i < ncpus; i++)
        used += (size_t)snprintf(places + used, cap - used, "%s{%d}", i ? "," : "", cpus[i]);
    if (launch->struct_size >= offsetof(struct scal_launch, set_cpus) + sizeof(launch->set_cpus) &&
        launch->set_cpus) {
        rc = launch->set_cpus(launch, list);
        if (rc != SCAL_OK) {
            rc = scal__why(why, whylen, rc, "affinity: cannot restrict the run to CPUs %s", list);
            goto out;
        }
    }
    rc = launch->set_env(launch, "OMP_PLACES", places);
    if (rc == SCAL_OK) rc = launch->set_env(launch, "OMP_PROC_BIND", spread ? "spread" : "close");
    if (rc != SCAL_OK) {
        rc = scal__why(why, whylen, rc, "affinity: cannot set OMP_PLACES/OMP_PROC_BIND");
        goto out;
    }
    snprintf(state->applied, sizeof(state->applied), "%s", list);
out:
    free(places);
    free(cpus);
    return rc;
}

static int affinity_observe(scal_actuator_state *state, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", state->applied);
    return SCAL_OK;
}

static void affinity_fini(scal_actuator_state *state)
{
    if (!state) return;
    free(state->root);
    free(state);
}

static const struct scal_actuator_ops affinity_ops = {
    .struct_size = sizeof(struct scal_actuator_ops),
    .init = affinity_init,
    .test = affinity_test,
    .apply = affinity_apply, /* changes only the launch: save and restore are the host's */
    .observe = affinity_observe,
    .fini = affinity_fini,
};

static const struct scal_option_desc affinity_options[] = {
    {"sysfs_root", SCAL_OPT_STRING, NULL,
     "root of the sysfs tree (default: SCAL_SYSFS_ROOT, else /; tests point it elsewhere)"},
    {0},
};

static const struct scal_plugin_desc affinity_desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(struct scal_plugin_desc),
    .name = "affinity",
    .version = "1",
    .kind = SCAL_PLUGIN_ACTUATOR,
    .description = "CPU affinity: a CPU list, compact:N or spread:N as the run's CPU mask and "
                   "OMP_PLACES/OMP_PROC_BIND",
    .options = affinity_options,
    .actuator = &affinity_ops,
};

SCAL_PLUGIN_DEFINE(affinity_desc)
