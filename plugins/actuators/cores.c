// SPDX-License-Identifier: BSD-3-Clause
/* The cores actuator: keeps the first N CPUs online (CPU hotplug) or switches SMT on/off, and puts
 * every CPU and the SMT control back as save() found them. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_util.h"
#include "scal/plugin.h"
#include "sysfs_io.h"

#define SMT_REL "/sys/devices/system/cpu/smt/control"

struct scal_actuator_state {
    char *root;
    int *cpus; /* every cpu<N> directory, sorted */
    size_t ncpus;
    signed char *saved_online; /* per CPU: 1/0, or -1 without an online file (always online) */
    char saved_smt[32];        /* smt/control as found; "" when absent */
    bool saved_valid;
    bool last_smt; /* the last apply was smt=...: observe reports the SMT control */
};

static void online_rel(char *out, size_t outlen, int cpu)
{
    snprintf(out, outlen, "/sys/devices/system/cpu/cpu%d/online", cpu);
}

/* *on: 1 online, 0 offline, -1 no online file (cpu0 on most machines: always online). */
static int read_online(scal_actuator_state *s, int cpu, int *on, char *why, size_t whylen)
{
    char rel[128], buf[16], msg[512];
    online_rel(rel, sizeof(rel), cpu);
    int rc = scal__sysfs_read(s->root, rel, buf, sizeof(buf), msg, sizeof(msg));
    if (rc == SCAL_ENOENT) {
        *on = -1;
        return SCAL_OK;
    }
    if (rc != SCAL_OK) return scal__why(why, whylen, rc, "cores: %s", msg);
    *on = strcmp(buf, "0") == 0 ? 0 : 1;
    return SCAL_OK;
}

static int write_online(scal_actuator_state *s, int cpu, bool on, char *why, size_t whylen)
{
    char rel[128], msg[512];
    online_rel(rel, sizeof(rel), cpu);
    int rc = scal__sysfs_write(s->root, rel, on ? "1" : "0", msg, sizeof(msg));
    return rc == SCAL_OK ? SCAL_OK : scal__why(why, whylen, rc, "cores: %s", msg);
}

/* Sets one CPU's state when it differs; CPUs without an online file only accept "online". */
static int set_online(scal_actuator_state *s, int cpu, bool on, char *why, size_t whylen)
{
    int cur = 0;
    int rc = read_online(s, cpu, &cur, why, whylen);
    if (rc != SCAL_OK) return rc;
    if (cur == -1) {
        if (on) return SCAL_OK;
        char rel[128], path[4096];
        online_rel(rel, sizeof(rel), cpu);
        scal__sysfs_path(s->root, rel, path, sizeof(path));
        return scal__why(why, whylen, SCAL_EINVAL,
                         "cores: cpu%d cannot be taken offline: %s does not exist", cpu, path);
    }
    if ((cur == 1) == on) return SCAL_OK;
    return write_online(s, cpu, on, why, whylen);
}

static void cores_fini(scal_actuator_state *state)
{
    if (!state) return;
    free(state->saved_online);
    free(state->cpus);
    free(state->root);
    free(state);
}

static int cores_init(const struct scal_plugin_env *env, scal_actuator_state **state, char *why,
                      size_t whylen)
{
    char msg[512];
    scal_actuator_state *s = calloc(1, sizeof(*s));
    if (!s || !(s->root = strdup(scal__sysfs_root(env)))) {
        cores_fini(s);
        return scal__why(why, whylen, SCAL_ENOMEM, "cores: out of memory");
    }
    if (scal__sysfs_list_cpus(s->root, NULL, &s->cpus, &s->ncpus, msg, sizeof(msg)) != SCAL_OK)
        s->ncpus = 0; /* reported by test() */
    *state = s;
    return SCAL_OK;
}

static int cores_test(scal_actuator_state *state, char *why, size_t whylen)
{
    char rel[128], path[4096];
    size_t with_file = 0;
    for (size_t i = 0; i < state->ncpus; i++) {
        online_rel(rel, sizeof(rel), state->cpus[i]);
        scal__sysfs_path(state->root, rel, path, sizeof(path));
        if (access(path, F_OK) != 0) continue;
        with_file++;
        if (access(path, W_OK) != 0) {
            char msg[4200];
            int rc = scal__sysfs_unwritable(path, errno, msg, sizeof(msg));
            return scal__why(why, whylen, rc, "cores: %s", msg);
        }
    }
    if (with_file == 0) {
        online_rel(rel, sizeof(rel), state->ncpus > 1 ? state->cpus[1] : 1);
        scal__sysfs_path(state->root, rel, path, sizeof(path));
        return scal__why(why, whylen, SCAL_EUNAVAIL, "cores: no CPU hotplug: %s does not exist",
                         path);
    }
    return SCAL_OK;
}

static int cores_save(scal_actuator_state *state, char *why, size_t whylen)
{
    signed char *saved = NULL;
    char msg[512];
    int rc = SCAL_OK;
    if (state->saved_valid) return SCAL_OK; /* keep the original settings */
    if (state->ncpus == 0) return cores_test(state, why, whylen);
    saved = calloc(state->ncpus, sizeof(*saved));
    if (!saved) {
        rc = scal__why(why, whylen, SCAL_ENOMEM, "cores: out of memory");
        goto out;
    }
    for (size_t i = 0; i < state->ncpus; i++) {
        int on = 0;
        rc = read_online(state, state->cpus[i], &on, why, whylen);
        if (rc != SCAL_OK) goto out;
        saved[i] = (signed char)on;
    }
    rc = scal__sysfs_read(state->root, SMT_REL, state->saved_smt, sizeof(state->saved_smt), msg,
                          sizeof(msg));
    if (rc == SCAL_ENOENT) {
        state->saved_smt[0] = '\0';
        rc = SCAL_OK;
    } else if (rc != SCAL_OK) {
        rc = scal__why(why, whylen, rc, "cores: %s", msg);
        goto out;
    }
    free(state->saved_online);
    state->saved_online = saved;
    state->saved_valid = true;
    saved = NULL;
out:
    free(saved);
    return rc;
}

static int apply_smt(scal_actuator_state *state, const char *mode, char *why, size_t whylen)
{
    char msg[512], path[4096];
    if (strcmp(mode, "on") != 0 && strcmp(mode, "off") != 0)
        return scal__why(why, whylen, SCAL_EINVAL, "cores: 'smt=%s': SMT is 'on' or 'off'", mode);
    if (!scal__sysfs_exists(state->root, SMT_REL)) {
        scal__sysfs_path(state->root, SMT_REL, path, sizeof(path));
        return scal__why(why, whylen, SCAL_EUNAVAIL, "cores: no SMT control: %s does not exist",
                         path);
    }
    int rc = scal__sysfs_write(state->root, SMT_REL, mode, msg, sizeof(msg));
    if (rc != SCAL_OK) return scal__why(why, whylen, rc, "cores: %s", msg);
    state->last_smt = true;
    return SCAL_OK;
}

static int cores_apply(scal_actuator_state *state, const char *value, struct scal_launch *launch,
                       char *why, size_t whylen)
{
    const char *v = value ? value : "";
    int rc = SCAL_OK;
    if (state->ncpus == 0) return cores_test(state, why, whylen);
    if (!state->saved_valid) { /* the host should have called save(); never act unsaved */
        rc = cores_save(state, why, whylen);
        if (rc != SCAL_OK) return rc;
    }
    if (strncmp(v, "smt=", 4) == 0) return apply_smt(state, v + 4, why, whylen);
    long n = 0;
    if (!scal__parse_positive(v, LONG_MAX, &n))
        return scal__why(why, whylen, SCAL_EINVAL,
                         "cores: '%s' is neither a CPU count nor smt=on/off", v);
    if ((size_t)n > state->ncpus)
        return scal__why(why, whylen, SCAL_ERANGE, "cores: %ld CPUs asked for, the machine has %zu",
                         n, state->ncpus);
    /* Bring CPUs online before taking others offline so that the machine never runs short. */
    for (size_t i = 0; i < (size_t)n && rc == SCAL_OK; i++)
        rc = set_online(state, state->cpus[i], true, why, whylen);
    for (size_t i = (size_t)n; i < state->ncpus && rc == SCAL_OK; i++)
        rc = set_online(state, state->cpus[i], false, why, whylen);
    if (rc == SCAL_OK) state->last_smt = false;
    return rc;
}

static int cores_observe(scal_actuator_state *state, char *out, size_t outlen)
{
    char why[512], buf[32];
    if (outlen > 0) out[0] = '\0';
    if (state->last_smt) {
        int rc = scal__sysfs_read(state->root, SMT_REL, buf, sizeof(buf), why, sizeof(why));
        if (rc != SCAL_OK) return rc;
        snprintf(out, outlen, "smt=%s", buf);
        return SCAL_OK;
    }
    size_t online = 0;
    for (size_t i = 0; i < state->ncpus; i++) {
        int on = 0;
        int rc = read_online(state, state->cpus[i], &on, why, sizeof(why));
        if (rc != SCAL_OK) return rc;
        online += on != 0;
    }
    snprintf(out, outlen, "%zu", online);
    return SCAL_OK;
}

/* SMT first (switching it on brings siblings back), then the CPUs that were online, then those that
 * were offline. Carries on past failures, reports the first; after full success a second call does
 * nothing. */
static int cores_restore(scal_actuator_state *state, char *why, size_t whylen)
{
    int first = SCAL_OK;
    char msg[1024], cur[32];
    if (!state || !state->saved_valid) return SCAL_OK;
    if (strcmp(state->saved_smt, "on") == 0 || strcmp(state->saved_smt, "off") == 0) {
        int rc = scal__sysfs_read(state->root, SMT_REL, cur, sizeof(cur), msg, sizeof(msg));
        if (rc != SCAL_OK || strcmp(cur, state->saved_smt) != 0)
            rc = scal__sysfs_write(state->root, SMT_REL, state->saved_smt, msg, sizeof(msg));
        if (rc != SCAL_OK) first = scal__why(why, whylen, rc, "cores: %s", msg);
    }
    for (int pass = 1; pass >= 0; pass--)
        for (size_t i = 0; i < state->ncpus; i++) {
            if (state->saved_online[i] != pass) continue;
            int rc = set_online(state, state->cpus[i], pass == 1, msg, sizeof(msg));
            if (rc != SCAL_OK && first == SCAL_OK) first = scal__why(why, whylen, rc, "%s", msg);
        }
    if (first == SCAL_OK) state->saved_valid = false;
    return first;
}

static const struct scal_actuator_ops cores_ops = {
    .struct_size = sizeof(struct scal_actuator_ops),
    .init = cores_init,
    .test = cores_test,
    .save = cores_save,
    .apply = cores_apply,
    .observe = cores_observe,
    .restore = cores_restore,
    .fini = cores_fini,
};

static const struct scal_option_desc cores_options[] = {
    {"sysfs_root", SCAL_OPT_STRING, NULL,
     "root of the sysfs tree (default: SCAL_SYSFS_ROOT, else /; tests point it elsewhere)"},
    {0},
};

static const struct scal_plugin_desc cores_desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(struct scal_plugin_desc),
    .name = "cores",
    .version = "1",
    .kind = SCAL_PLUGIN_ACTUATOR,
    .description = "Online CPUs: keeps the first N CPUs online (hotplug) or sets smt=on/off, "
                   "restored afterwards",
    .options = cores_options,
    .actuator = &cores_ops,
};

SCAL_PLUGIN_DEFINE(cores_desc)
