// SPDX-License-Identifier: BSD-3-Clause
// The "rapl" sensor: package/core/dram energy from the Linux powercap interface, unwrapped.
//
// Zones are <root>/sys/class/powercap/intel-rapl:N (packages, psys) and intel-rapl:N:M (their
// subzones: core, uncore, dram); AMD exposes the same names. intel-rapl-mmio:* duplicates the
// package counters through another path and is skipped. Each zone's energy_uj counts 0 ..
// max_energy_range_uj and then starts again at 0, so between two reads with raw < last the
// counter wrapped once and the energy spent is
//     delta = (max_energy_range_uj - last) + raw + 1   [uJ]
// (the hardware wraps after one more energy unit, 15-61 uJ, of which we count 1 uJ: the error is
// below one energy unit per wrap). Values are the accumulated energy in joules since the zone's
// counter origin: the first read equals energy_uj / 1e6, later reads add the unwrapped deltas.
// Reads must come at least once per wrap period (minutes at full power) to stay exact.
// Region readings happen at every region boundary: each zone's energy_uj stays open from init to
// fini and is read with pread (one system call per zone and read, no open/close).
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_util.h"
#include "scal/plugin.h"
#include "sysfs_io.h"

#define RAPL_MAX_ZONES 64

struct rapl_zone {
    unsigned pkg, sub; // intel-rapl:pkg[:sub]
    bool is_sub;
    char dir[528];
    char energy_path[560];
    int energy_fd;   // energy_path, open from init to fini (-1 before)
    char name[64];   // the zone's own name file ("package-0", "core")
    char metric[96]; // "rapl.package-0.core"
    uint64_t max_range;
    uint64_t last_raw;
    uint64_t total_uj; // accumulated, unwrapped
};

struct scal_sensor_state {
    pthread_mutex_t lock; // the unwrap state; read() may run on the sampler and region threads
    size_t nzones;
    struct rapl_zone zones[RAPL_MAX_ZONES];
    struct scal_metric_desc metrics[RAPL_MAX_ZONES];
};

// Parses "intel-rapl:N" or "intel-rapl:N:M"; false for anything else (intel-rapl-mmio:N too).
static bool parse_zone_name(const char *d, unsigned *pkg, unsigned *sub, bool *is_sub)
{
    static const char prefix[] = "intel-rapl:";
    if (strncmp(d, prefix, sizeof(prefix) - 1) != 0) return false;
    const char *p = d + sizeof(prefix) - 1;
    char *end = NULL;
    if (*p < '0' || *p > '9') return false;
    unsigned long a = strtoul(p, &end, 10);
    if (*end == '\0') {
        *pkg = (unsigned)a, *sub = 0, *is_sub = false;
        return true;
    }
    if (*end != ':' || end[1] < '0' || end[1] > '9') return false;
    p = end + 1;
    unsigned long b = strtoul(p, &end, 10);
    if (*end != '\0') return false;
    *pkg = (unsigned)a, *sub = (unsigned)b, *is_sub = true;
    return true;
}

static int zone_order(const void *a, const void *b)
{
    const struct rapl_zone *x = a, *y = b;
    if (x->pkg != y->pkg) return x->pkg < y->pkg ? -1 : 1;
    if (x->is_sub != y->is_sub) return x->is_sub ? 1 : -1;
    return x->sub < y->sub ? -1 : x->sub > y->sub;
}

static const struct rapl_zone *find_parent(const struct scal_sensor_state *s, unsigned pkg)
{
    for (size_t i = 0; i < s->nzones; i++)
        if (!s->zones[i].is_sub && s->zones[i].pkg == pkg) return &s->zones[i];
    return NULL;
}

static bool metric_taken(const struct scal_sensor_state *s, size_t upto, const char *name)
{
    for (size_t i = 0; i < upto; i++)
        if (strcmp(s->zones[i].metric, name) == 0) return true;
    return false;
}

// Names every zone: "rapl.<name>" for packages, "rapl.<package name>.<name>" for subzones; a
// name seen twice gets the zone's directory name appended ("rapl.psys.intel-rapl:1").
static void name_zones(struct scal_sensor_state *s)
{
    for (size_t i = 0; i < s->nzones; i++) {
        struct rapl_zone *z = &s->zones[i];
        const struct rapl_zone *parent = z->is_sub ? find_parent(s, z->pkg) : NULL;
        if (parent)
            snprintf(z->metric, sizeof(z->metric), "rapl.%s.%s", parent->name, z->name);
        else
            snprintf(z->metric, sizeof(z->metric), "rapl.%s", z->name);
        if (metric_taken(s, i, z->metric)) {
            char base[96];
            snprintf(base, sizeof(base), "%s", z->metric);
            if (z->is_sub)
                snprintf(z->metric, sizeof(z->metric), "%.60s.intel-rapl:%u:%u", base, z->pkg,
                         z->sub);
            else
                snprintf(z->metric, sizeof(z->metric), "%.60s.intel-rapl:%u", base, z->pkg);
        }
        s->metrics[i] =
            (struct scal_metric_desc){z->metric, "J", SCAL_METRIC_COUNTER, SCAL_SCOPE_PROCESS};
    }
}

static int permission_why(const struct rapl_zone *z, char *why, size_t whylen)
{
    return scal__why(why, whylen, SCAL_EPERM,
                     "permission denied reading %s (root-only since Linux 5.10; run as root "
                     "or `chmod a+r` the energy_uj files)",
                     z->energy_path);
}

// Reads a zone's raw counter; a failure is reported in why (may be NULL) with the status.
static int read_raw(const struct rapl_zone *z, uint64_t *raw, char *why, size_t whylen)
{
    int rc = scal__sysfs_pread_u64(z->energy_fd, z->energy_path, raw, why, whylen);
    return rc == SCAL_EPERM ? permission_why(z, why, whylen) : rc;
}

static int load_zone(struct rapl_zone *z, char *why, size_t whylen)
{
    int rc = scal__sysfs_read(z->dir, "name", z->name, sizeof(z->name), why, whylen);
    if (rc == SCAL_OK)
        rc = scal__sysfs_read_u64(z->dir, "max_energy_range_uj", &z->max_range, why, whylen);
    if (rc != SCAL_OK) return rc;
    rc = scal__sysfs_open(z->dir, "energy_uj", &z->energy_fd, z->energy_path,
                          sizeof(z->energy_path), why, whylen);
    if (rc == SCAL_EPERM) return permission_why(z, why, whylen);
    if (rc != SCAL_OK) return rc;
    rc = read_raw(z, &z->last_raw, why, whylen);
    if (rc != SCAL_OK) return rc;
    z->total_uj = z->last_raw;
    return SCAL_OK;
}

static void close_zones(struct scal_sensor_state *s)
{
    for (size_t i = 0; i < s->nzones; i++)
        if (s->zones[i].energy_fd >= 0) close(s->zones[i].energy_fd);
}

static int rapl_init(const struct scal_plugin_env *env, scal_sensor_state **state, char *why,
                     size_t whylen)
{
    int rc = SCAL_OK;
    DIR *dir = NULL;
    struct scal_sensor_state *s = calloc(1, sizeof(*s));
    if (!s) return scal__why(why, whylen, SCAL_ENOMEM, "out of memory");
    char base[480];
    scal__sysfs_path(scal__sysfs_root(env), "/sys/class/powercap", base, sizeof(base));
    dir = opendir(base);
    if (!dir) {
        if (errno == EACCES)
            rc = scal__why(why, whylen, SCAL_EPERM, "permission denied opening %s", base);
        else
            rc = scal__why(why, whylen, SCAL_EUNAVAIL, "no RAPL: %s %s", base,
                           errno == ENOENT ? "does not exist" : strerror(errno));
        goto fail;
    }
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        unsigned pkg, sub;
        bool is_sub;
        if (!parse_zone_name(de->d_name, &pkg, &sub, &is_sub)) continue;
        if (s->nzones == RAPL_MAX_ZONES) break;
        struct rapl_zone *z = &s->zones[s->nzones++];
        z->pkg = pkg, z->sub = sub, z->is_sub = is_sub;
        z->energy_fd = -1;
        snprintf(z->dir, sizeof(z->dir), "%s/%.32s", base, de->d_name);
    }
    if (s->nzones == 0) {
        rc = scal__why(why, whylen, SCAL_EUNAVAIL, "no RAPL: no intel-rapl:N zones in %s", base);
        goto fail;
    }
    qsort(s->zones, s->nzones, sizeof(s->zones[0]), zone_order);
    for (size_t i = 0; i < s->nzones; i++) {
        rc = load_zone(&s->zones[i], why, whylen);
        if (rc != SCAL_OK) goto fail;
    }
    name_zones(s);
    rc = pthread_mutex_init(&s->lock, NULL);
    if (rc != 0) {
        rc = scal__why(why, whylen, SCAL_EINIT, "pthread_mutex_init: %s", strerror(rc));
        goto fail;
    }
    closedir(dir);
    *state = s;
    return SCAL_OK;
fail:
    if (dir) closedir(dir);
    close_zones(s);
    free(s);
    return rc;
}

static size_t rapl_list(scal_sensor_state *s, const struct scal_metric_desc **out)
{
    *out = s->metrics;
    return s->nzones;
}

static int rapl_read(scal_sensor_state *s, double *values)
{
    int rc = SCAL_OK;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nzones; i++) {
        struct rapl_zone *z = &s->zones[i];
        uint64_t raw;
        int r = read_raw(z, &raw, NULL, 0); // the host counts failed reads
        if (r != SCAL_OK) {
            rc = r;
        } else {
            if (raw >= z->last_raw)
                z->total_uj += raw - z->last_raw;
            else // wrapped once: up to max, then from 0 (see the top of the file)
                z->total_uj += (z->max_range - z->last_raw) + raw + 1;
            z->last_raw = raw;
        }
        values[i] = (double)z->total_uj * 1e-6;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

// Region timing: energy is process-wide, so a region read is the same read as a run read; the
// host only attributes process-scope metrics on the encountering thread. The mutex is held for one
// pread per zone (RAPL has no cheaper interface from user space).
static int rapl_thread_read(scal_sensor_state *s, scal_sensor_thread *t, double *values)
{
    (void)t;
    return rapl_read(s, values);
}

static void rapl_fini(scal_sensor_state *s)
{
    if (!s) return;
    close_zones(s);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static const struct scal_sensor_ops rapl_ops = {
    .struct_size = sizeof(struct scal_sensor_ops),
    .timing = SCAL_SENSOR_RUN | SCAL_SENSOR_SAMPLED | SCAL_SENSOR_REGION,
    .init = rapl_init,
    .metrics = rapl_list,
    .read = rapl_read,
    .thread_init = NULL, // no per-thread state
    .thread_read = rapl_thread_read,
    .thread_fini = NULL,
    .fini = rapl_fini,
};

static const struct scal_option_desc rapl_options[] = {
    {"sysfs_root", SCAL_OPT_STRING, NULL,
     "directory holding sys/class/powercap (default: SCAL_SYSFS_ROOT, else /)"},
    {0},
};

static const struct scal_plugin_desc rapl_desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(struct scal_plugin_desc),
    .name = "rapl",
    .version = "1",
    .kind = SCAL_PLUGIN_SENSOR,
    .description = "Energy of RAPL zones (package, core, dram, psys) from Linux powercap, in J",
    .options = rapl_options,
    .sensor = &rapl_ops,
};

SCAL_PLUGIN_DEFINE(rapl_desc)
