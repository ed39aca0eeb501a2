// SPDX-License-Identifier: BSD-3-Clause
/* The frequency actuator: sets the CPU clock through cpufreq (userspace governor + setspeed, or a
 * min = max clamp under intel_pstate/amd-pstate) and restores what it saved. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_util.h"
#include "scal/plugin.h"
#include "sysfs_io.h"

/* What save() found on one CPU. */
struct cpu_saved {
    char governor[64];
    long min, max;     /* scaling_min_freq, scaling_max_freq (kHz) */
    char setspeed[32]; /* scaling_setspeed, only when the governor was userspace */
    bool has_setspeed;
};

struct scal_actuator_state {
    char *root;
    char *governor; /* option governor, NULL when unset */
    int *cpus;      /* the CPUs acted on */
    size_t ncpus;
    struct cpu_saved *saved; /* ncpus entries; NULL until save() */
    bool saved_valid;        /* restore() has work to do */
};

static void cpufreq_rel(char *out, size_t outlen, int cpu, const char *file)
{
    if (file)
        snprintf(out, outlen, "/sys/devices/system/cpu/cpu%d/cpufreq/%s", cpu, file);
    else
        snprintf(out, outlen, "/sys/devices/system/cpu/cpu%d/cpufreq", cpu);
}

static int read_file(scal_actuator_state *s, int cpu, const char *file, char *buf, size_t len,
                     char *why, size_t whylen)
{
    char rel[128], msg[512];
    cpufreq_rel(rel, sizeof(rel), cpu, file);
    int rc = scal__sysfs_read(s->root, rel, buf, len, msg, sizeof(msg));
    return rc == SCAL_OK ? SCAL_OK : scal__why(why, whylen, rc, "frequency: %s", msg);
}

static int read_khz(scal_actuator_state *s, int cpu, const char *file, long *khz, char *why,
                    size_t whylen)
{
    char rel[128], msg[512];
    uint64_t v = 0;
    cpufreq_rel(rel, sizeof(rel), cpu, file);
    int rc = scal__sysfs_read_u64(s->root, rel, &v, msg, sizeof(msg));
    if (rc != SCAL_OK) return scal__why(why, whylen, rc, "frequency: %s", msg);
    *khz = (long)v;
    return SCAL_OK;
}

static int write_file(scal_actuator_state *s, int cpu, const char *file, const char *text,
                      char *why, size_t whylen)
{
    char rel[128], msg[512];
    cpufreq_rel(rel, sizeof(rel), cpu, file);
    int rc = scal__sysfs_write(s->root, rel, text, msg, sizeof(msg));
    return rc == SCAL_OK ? SCAL_OK : scal__why(why, whylen, rc, "frequency: %s", msg);
}

static int write_khz(scal_actuator_state *s, int cpu, const char *file, long khz, char *why,
                     size_t whylen)
{
    char text[32];
    snprintf(text, sizeof(text), "%ld", khz);
    return write_file(s, cpu, file, text, why, whylen);
}

/* Sets scaling_min_freq/scaling_max_freq so that min <= max holds after each write (the kernel
 * refuses a write that breaks it): raise max first when the new max is not below the current min,
 * otherwise lower min first. */
static int set_minmax(scal_actuator_state *s, int cpu, long min, long max, char *why, size_t whylen)
{
    long cur_min = 0;
    int rc = read_khz(s, cpu, "scaling_min_freq", &cur_min, why, whylen);
    if (rc != SCAL_OK) return rc;
    if (max >= cur_min) {
        rc = write_khz(s, cpu, "scaling_max_freq", max, why, whylen);
        if (rc == SCAL_OK) rc = write_khz(s, cpu, "scaling_min_freq", min, why, whylen);
    } else {
        rc = write_khz(s, cpu, "scaling_min_freq", min, why, whylen);
        if (rc == SCAL_OK) rc = write_khz(s, cpu, "scaling_max_freq", max, why, whylen);
    }
    return rc;
}

/* Whether the CPU offers the userspace governor (acpi-cpufreq and most non-pstate drivers). */
static bool has_userspace(scal_actuator_state *s, int cpu)
{
    char buf[512], why[512];
    if (read_file(s, cpu, "scaling_available_governors", buf, sizeof(buf), why, sizeof(why)) !=
        SCAL_OK)
        return false;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
        if (strcmp(tok, "userspace") == 0) return true;
    return false;
}

static void frequency_fini(scal_actuator_state *state);

static int frequency_init(const struct scal_plugin_env *env, scal_actuator_state **state, char *why,
                          size_t whylen)
{
    int rc = SCAL_OK;
    scal_actuator_state *s = calloc(1, sizeof(*s));
    const char *cpus = scal__option(env, "cpus");
    const char *gov = scal__option(env, "governor");
    if (!s || !(s->root = strdup(scal__sysfs_root(env)))) goto nomem;
    if (gov && gov[0] != '\0' && !(s->governor = strdup(gov))) goto nomem;
    if (cpus && cpus[0] != '\0') {
        char msg[512];
        rc = scal__cpulist_parse(cpus, &s->cpus, &s->ncpus, msg, sizeof(msg));
        if (rc != SCAL_OK) {
            rc = scal__why(why, whylen, rc, "frequency: option cpus: %s", msg);
            goto fail;
        }
    } else {
        /* Every CPU with a cpufreq directory; none (or no sysfs at all) is reported by test(). */
        char msg[512];
        if (scal__sysfs_list_cpus(s->root, "cpufreq", &s->cpus, &s->ncpus, msg, sizeof(msg)) !=
            SCAL_OK)
            s->ncpus = 0;
    }
    *state = s;
    return SCAL_OK;
nomem:
    rc = scal__why(why, whylen, SCAL_ENOMEM, "frequency: out of memory");
fail:
    frequency_fini(s);
    return rc;
}

static int frequency_test(scal_actuator_state *state, char *why, size_t whylen)
{
    static const char *const writable[] = {"scaling_governor", "scaling_min_freq",
                                           "scaling_max_freq", "scaling_setspeed"};
    char rel[128], path[4096];
    if (state->ncpus == 0) {
        cpufreq_rel(rel, sizeof(rel), 0, NULL);
        scal__sysfs_path(state->root, rel, path, sizeof(path));
        return scal__why(why, whylen, SCAL_EUNAVAIL, "frequency: no cpufreq: %s does not exist",
                         path);
    }
    for (size_t i = 0; i < state->ncpus; i++) {
        int cpu = state->cpus[i];
        cpufreq_rel(rel, sizeof(rel), cpu, NULL);
        scal__sysfs_path(state->root, rel, path, sizeof(path));
        if (access(path, F_OK) != 0)
            return scal__why(why, whylen, SCAL_EUNAVAIL, "frequency: no cpufreq: %s does not exist",
                             path);
        /* scaling_setspeed only matters where the userspace governor is offered. */
        size_t nfiles = sizeof(writable) / sizeof(writable[0]) - !has_userspace(state, cpu);
        for (size_t k = 0; k < nfiles; k++) {
            cpufreq_rel(rel, sizeof(rel), cpu, writable[k]);
            scal__sysfs_path(state->root, rel, path, sizeof(path));
            if (access(path, W_OK) == 0) continue;
            char msg[4200];
            int rc = scal__sysfs_unwritable(path, errno, msg, sizeof(msg));
            return scal__why(why, whylen, rc, "frequency: %s%s",
                             rc == SCAL_EUNAVAIL ? "no cpufreq control: " : "", msg);
        }
    }
    return SCAL_OK;
}

static int frequency_save(scal_actuator_state *state, char *why, size_t whylen)
{
    struct cpu_saved *saved = NULL;
    int rc = SCAL_OK;
    if (state->saved_valid) return SCAL_OK; /* keep the first (original) settings */
    if (state->ncpus == 0) return frequency_test(state, why, whylen);
    saved = calloc(state->ncpus, sizeof(*saved));
    if (!saved) {
        rc = scal__why(why, whylen, SCAL_ENOMEM, "frequency: out of memory");
        goto out;
    }
    for (size_t i = 0; i < state->ncpus; i++) {
        int cpu = state->cpus[i];
        struct cpu_saved *c = &saved[i];
        rc = read_file(state, cpu, "scaling_governor", c->governor, sizeof(c->governor), why,
                       whylen);
        if (rc == SCAL_OK) rc = read_khz(state, cpu, "scaling_min_freq", &c->min, why, whylen);
        if (rc == SCAL_OK) rc = read_khz(state, cpu, "scaling_max_freq", &c->max, why, whylen);
        if (rc == SCAL_OK && strcmp(c->governor, "userspace") == 0) {
            rc = read_file(state, cpu, "scaling_setspeed", c->setspeed, sizeof(c->setspeed), why,
                           whylen);
            c->has_setspeed = rc == SCAL_OK;
        }
        if (rc != SCAL_OK) goto out;
    }
    free(state->saved);
    state->saved = saved;
    state->saved_valid = true;
    saved = NULL;
out:
    free(saved);
    return rc;
}

static int frequency_apply(scal_actuator_state *state, const char *value,
                           struct scal_launch *launch, char *why, size_t whylen)
{
    const char *v = value ? value : "";
    int rc = SCAL_OK;
    if (state->ncpus == 0) return frequency_test(state, why, whylen);
    if (!state->saved_valid) { /* the host should have called save(); never act unsaved */
        rc = frequency_save(state, why, whylen);
        if (rc != SCAL_OK) return rc;
    }
    if (v[0] == '\0') {
        if (!state->governor)
            return scal__why(why, whylen, SCAL_EINVAL,
                             "frequency: an empty value needs the governor option");
        for (size_t i = 0; i < state->ncpus && rc == SCAL_OK; i++)
            rc =
                write_file(state, state->cpus[i], "scaling_governor", state->governor, why, whylen);
        return rc;
    }
    long khz = 0;
    if (!scal__parse_positive(v, LONG_MAX, &khz))
        return scal__why(why, whylen, SCAL_EINVAL, "frequency: '%s' is not a frequency in kHz", v);
    /* Check every CPU's range before changing any. */
    for (size_t i = 0; i < state->ncpus; i++) {
        int cpu = state->cpus[i];
        long lo = 0, hi = 0;
        rc = read_khz(state, cpu, "cpuinfo_min_freq", &lo, why, whylen);
        if (rc == SCAL_OK) rc = read_khz(state, cpu, "cpuinfo_max_freq", &hi, why, whylen);
        if (rc != SCAL_OK) return rc;
        if (khz < lo || khz > hi)
            return scal__why(why, whylen, SCAL_ERANGE,
                             "frequency: %ld kHz is outside cpu%d's range %ld..%ld kHz "
                             "(cpuinfo_min_freq..cpuinfo_max_freq)",
                             khz, cpu, lo, hi);
    }
    for (size_t i = 0; i < state->ncpus && rc == SCAL_OK; i++) {
        int cpu = state->cpus[i];
        if (has_userspace(state, cpu)) {
            rc = write_file(state, cpu, "scaling_governor", "userspace", why, whylen);
            if (rc == SCAL_OK) rc = write_khz(state, cpu, "scaling_setspeed", khz, why, whylen);
        } else {
            if (state->governor)
                rc = write_file(state, cpu, "scaling_governor", state->governor, why, whylen);
            if (rc == SCAL_OK) rc = set_minmax(state, cpu, khz, khz, why, whylen);
        }
    }
    return rc;
}

static int frequency_observe(scal_actuator_state *state, char *out, size_t outlen)
{
    double sum = 0;
    char why[512];
    if (outlen > 0) out[0] = '\0';
    if (state->ncpus == 0) return SCAL_EUNAVAIL;
    for (size_t i = 0; i < state->ncpus; i++) {
        long khz = 0;
        /* Some drivers only offer the hardware's view (cpuinfo_cur_freq). */
        int rc = read_khz(state, state->cpus[i], "scaling_cur_freq", &khz, why, sizeof(why));
        if (rc == SCAL_ENOENT)
            rc = read_khz(state, state->cpus[i], "cpuinfo_cur_freq", &khz, why, sizeof(why));
        if (rc != SCAL_OK) return rc;
        sum += (double)khz;
    }
    snprintf(out, outlen, "%.0f", sum / (double)state->ncpus);
    return SCAL_OK;
}

/* Writes back what save() found: the governor first (leaving userspace makes setspeed moot), then
 * min/max in an order that keeps min <= max, then setspeed under userspace. Carries on past a
 * failing CPU and reports the first error; after full success a second call does nothing. */
static int frequency_restore(scal_actuator_state *state, char *why, size_t whylen)
{
    int first = SCAL_OK;
    if (!state || !state->saved_valid) return SCAL_OK;
    for (size_t i = 0; i < state->ncpus; i++) {
        int cpu = state->cpus[i];
        const struct cpu_saved *c = &state->saved[i];
        char cur[64], msg[1024];
        int rc = SCAL_OK;
        if (read_file(state, cpu, "scaling_governor", cur, sizeof(cur), msg, sizeof(msg)) !=
                SCAL_OK ||
            strcmp(cur, c->governor) != 0)
            rc = write_file(state, cpu, "scaling_governor", c->governor, msg, sizeof(msg));
        if (rc == SCAL_OK) rc = set_minmax(state, cpu, c->min, c->max, msg, sizeof(msg));
        if (rc == SCAL_OK && c->has_setspeed)
            rc = write_file(state, cpu, "scaling_setspeed", c->setspeed, msg, sizeof(msg));
        if (rc != SCAL_OK && first == SCAL_OK) first = scal__why(why, whylen, rc, "%s", msg);
    }
    if (first == SCAL_OK) state->saved_valid = false;
    return first;
}

static void frequency_fini(scal_actuator_state *state)
{
    if (!state) return;
    free(state->saved);
    free(state->cpus);
    free(state->governor);
    free(state->root);
    free(state);
}

static const struct scal_actuator_ops frequency_ops = {
    .struct_size = sizeof(struct scal_actuator_ops),
    .init = frequency_init,
    .test = frequency_test,
    .save = frequency_save,
    .apply = frequency_apply,
    .observe = frequency_observe,
    .restore = frequency_restore,
    .fini = frequency_fini,
};

static const struct scal_option_desc frequency_options[] = {
    {"cpus", SCAL_OPT_LIST, NULL, "CPU list to act on (default: every CPU with cpufreq)"},
    {"governor", SCAL_OPT_STRING, NULL,
     "governor to set (clamp mode, or alone with an empty value), e.g. performance"},
    {"sysfs_root", SCAL_OPT_STRING, NULL,
     "root of the sysfs tree (default: SCAL_SYSFS_ROOT, else /; tests point it elsewhere)"},
    {0},
};

static const struct scal_plugin_desc frequency_desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(struct scal_plugin_desc),
    .name = "frequency",
    .version = "1",
    .kind = SCAL_PLUGIN_ACTUATOR,
    .description = "CPU frequency in kHz through cpufreq (userspace setspeed or min/max clamp), "
                   "restored afterwards",
    .options = frequency_options,
    .actuator = &frequency_ops,
};

SCAL_PLUGIN_DEFINE(frequency_desc)
