// SPDX-License-Identifier: BSD-3-Clause
// The "proc" sensor: gauges for the sampler, the process's resident set size and each CPU's
// current frequency.
//
// RSS comes from the real /proc/self/statm (the process being measured, never sysfs_root).
// Frequencies come from <sysfs_root>/sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq for the
// CPUs that have it when init runs; machines without cpufreq (many VMs) get only proc.rss. A CPU
// whose file cannot be read later (e.g. taken offline) reads as NaN and read() returns SCAL_EIO.
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_util.h"
#include "scal/plugin.h"
#include "sysfs_io.h"

struct proc_cpu {
    unsigned cpu;
    char path[544];
    char metric[48];
};

struct scal_sensor_state {
    double page_size;
    size_t ncpus;
    struct proc_cpu *cpus;
    struct scal_metric_desc *metrics; // 1 + ncpus: rss first
};

static int cpu_order(const void *a, const void *b)
{
    const struct proc_cpu *x = a, *y = b;
    return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

// Reads the RSS in bytes (second field of /proc/self/statm, in pages).
static int read_rss(const struct scal_sensor_state *s, double *out)
{
    char text[128];
    int rc = scal__sysfs_read(NULL, "/proc/self/statm", text, sizeof(text), NULL, 0);
    if (rc != SCAL_OK) return rc;
    unsigned long long size, resident;
    if (sscanf(text, "%llu %llu", &size, &resident) != 2) return SCAL_EFORMAT;
    *out = (double)resident * s->page_size;
    return SCAL_OK;
}

// Finds cpuN directories with a readable cpufreq/scaling_cur_freq.
static int find_cpus(struct scal_sensor_state *s, const char *root, char *why, size_t whylen)
{
    char base[480];
    scal__sysfs_path(root, "/sys/devices/system/cpu", base, sizeof(base));
    DIR *dir = opendir(base);
    if (!dir) return SCAL_OK; // no CPU directory: only rss
    int rc = SCAL_OK;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        const char *d = de->d_name;
        if (strncmp(d, "cpu", 3) != 0 || d[3] < '0' || d[3] > '9') continue;
        char *end = NULL;
        unsigned long n = strtoul(d + 3, &end, 10);
        if (*end != '\0') continue;
        char path[544];
        snprintf(path, sizeof(path), "%s/%.32s/cpufreq/scaling_cur_freq", base, d);
        uint64_t khz;
        if (scal__sysfs_read_u64(NULL, path, &khz, NULL, 0) != SCAL_OK) continue;
        if (s->ncpus == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            struct proc_cpu *p = realloc(s->cpus, ncap * sizeof(*p));
            if (!p) {
                rc = scal__why(why, whylen, SCAL_ENOMEM, "out of memory listing %s", base);
                break;
            }
            s->cpus = p, cap = ncap;
        }
        struct proc_cpu *c = &s->cpus[s->ncpus++];
        c->cpu = (unsigned)n;
        snprintf(c->path, sizeof(c->path), "%s", path);
        snprintf(c->metric, sizeof(c->metric), "proc.cpu%u.freq", c->cpu);
    }
    closedir(dir);
    if (rc == SCAL_OK && s->ncpus > 1) qsort(s->cpus, s->ncpus, sizeof(*s->cpus), cpu_order);
    return rc;
}

static void proc_fini(scal_sensor_state *s)
{
    if (!s) return;
    free(s->cpus);
    free(s->metrics);
    free(s);
}

static int proc_init(const struct scal_plugin_env *env, scal_sensor_state **state, char *why,
                     size_t whylen)
{
    int rc = SCAL_OK;
    struct scal_sensor_state *s = calloc(1, sizeof(*s));
    if (!s) return scal__why(why, whylen, SCAL_ENOMEM, "out of memory");
    long page = sysconf(_SC_PAGESIZE);
    s->page_size = page > 0 ? (double)page : 4096.0;
    double rss;
    if (read_rss(s, &rss) != SCAL_OK) {
        rc = scal__why(why, whylen, SCAL_EUNAVAIL, "cannot read the RSS from /proc/self/statm");
        goto fail;
    }
    rc = find_cpus(s, scal__sysfs_root(env), why, whylen);
    if (rc != SCAL_OK) goto fail;
    s->metrics = calloc(1 + s->ncpus, sizeof(*s->metrics));
    if (!s->metrics) {
        rc = scal__why(why, whylen, SCAL_ENOMEM, "out of memory");
        goto fail;
    }
    s->metrics[0] =
        (struct scal_metric_desc){"proc.rss", "bytes", SCAL_METRIC_GAUGE, SCAL_SCOPE_PROCESS};
    for (size_t i = 0; i < s->ncpus; i++)
        s->metrics[1 + i] = (struct scal_metric_desc){s->cpus[i].metric, "kHz", SCAL_METRIC_GAUGE,
                                                      SCAL_SCOPE_PROCESS};
    *state = s;
    return SCAL_OK;
fail:
    proc_fini(s);
    return rc;
}

static size_t proc_list(scal_sensor_state *s, const struct scal_metric_desc **out)
{
    *out = s->metrics;
    return 1 + s->ncpus;
}

static int proc_read(scal_sensor_state *s, double *values)
{
    int rc = read_rss(s, &values[0]);
    if (rc != SCAL_OK) values[0] = NAN;
    for (size_t i = 0; i < s->ncpus; i++) {
        uint64_t khz;
        if (scal__sysfs_read_u64(NULL, s->cpus[i].path, &khz, NULL, 0) == SCAL_OK) {
            values[1 + i] = (double)khz;
        } else {
            values[1 + i] = NAN;
            rc = SCAL_EIO;
        }
    }
    return rc;
}

static const struct scal_sensor_ops proc_ops = {
    .struct_size = sizeof(struct scal_sensor_ops),
    .timing = SCAL_SENSOR_SAMPLED | SCAL_SENSOR_RUN,
    .init = proc_init,
    .metrics = proc_list,
    .read = proc_read,
    .fini = proc_fini,
};

static const struct scal_option_desc proc_options[] = {
    {"sysfs_root", SCAL_OPT_STRING, NULL,
     "directory holding sys/devices/system/cpu (default: SCAL_SYSFS_ROOT, else /)"},
    {0},
};

static const struct scal_plugin_desc proc_desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(struct scal_plugin_desc),
    .name = "proc",
    .version = "1",
    .kind = SCAL_PLUGIN_SENSOR,
    .description = "Resident set size and per-CPU current frequency (cpufreq), for sampling",
    .options = proc_options,
    .sensor = &proc_ops,
};

SCAL_PLUGIN_DEFINE(proc_desc)
