// SPDX-License-Identifier: BSD-3-Clause
// The "rusage" sensor: the process's getrusage(RUSAGE_SELF) figures, read at run start and end;
// the peak memory is the process's own high-water mark (VmHWM), not getrusage's maxrss.
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "scal/plugin.h"

// The order of this table is the order of the values read() writes.
static const struct scal_metric_desc rusage_metrics[] = {
    {"rusage.utime", "s", SCAL_METRIC_COUNTER, SCAL_SCOPE_PROCESS},
    {"rusage.stime", "s", SCAL_METRIC_COUNTER, SCAL_SCOPE_PROCESS},
    {"rusage.maxrss", "bytes", SCAL_METRIC_GAUGE, SCAL_SCOPE_PROCESS},
    {"rusage.nvcsw", "count", SCAL_METRIC_COUNTER, SCAL_SCOPE_PROCESS},
    {"rusage.nivcsw", "count", SCAL_METRIC_COUNTER, SCAL_SCOPE_PROCESS},
    {"rusage.minflt", "count", SCAL_METRIC_COUNTER, SCAL_SCOPE_PROCESS},
    {"rusage.majflt", "count", SCAL_METRIC_COUNTER, SCAL_SCOPE_PROCESS},
};
#define RUSAGE_NMETRICS (sizeof(rusage_metrics) / sizeof(rusage_metrics[0]))

// No state is needed; init hands out a pointer to this so that the host sees a non-NULL state.
struct scal_sensor_state {
    int unused;
};
static struct scal_sensor_state rusage_state;

static int rusage_init(const struct scal_plugin_env *env, scal_sensor_state **state, char *why,
                       size_t whylen)
{
    (void)env;
    (void)why;
    (void)whylen;
    *state = &rusage_state;
    return SCAL_OK;
}

static size_t rusage_list(scal_sensor_state *state, const struct scal_metric_desc **out)
{
    (void)state;
    *out = rusage_metrics;
    return RUSAGE_NMETRICS;
}

static double tv_seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* The peak resident set of this process image in bytes: VmHWM of /proc/self/status, -1 when it
 * cannot be read. Not ru_maxrss: Linux carries that across exec(), so a program started by a larger
 * process (scal run, a script, a batch system's daemon) would report its starter's peak. Read with
 * open/read into the stack: no allocation at the flush. */
static double peak_rss_bytes(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    const char *at = strstr(buf, "\nVmHWM:");
    if (!at) return -1;
    char *end;
    unsigned long long kib = strtoull(at + 8, &end, 10);
    return end == at + 8 ? -1 : (double)kib * 1024.0;
}

static int rusage_read(scal_sensor_state *state, double *values)
{
    (void)state;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return SCAL_EIO;
    values[0] = tv_seconds(ru.ru_utime);
    values[1] = tv_seconds(ru.ru_stime);
    double peak = peak_rss_bytes();
    values[2] = peak >= 0 ? peak : (double)ru.ru_maxrss * 1024.0; // Linux reports KiB
    values[3] = (double)ru.ru_nvcsw;
    values[4] = (double)ru.ru_nivcsw;
    values[5] = (double)ru.ru_minflt;
    values[6] = (double)ru.ru_majflt;
    return SCAL_OK;
}

static const struct scal_sensor_ops rusage_ops = {
    .struct_size = sizeof(struct scal_sensor_ops),
    .timing = SCAL_SENSOR_RUN,
    .init = rusage_init,
    .metrics = rusage_list,
    .read = rusage_read, /* fini: nothing to release, the host's default */
};

static const struct scal_option_desc rusage_options[] = {{0}};

static const struct scal_plugin_desc rusage_desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(struct scal_plugin_desc),
    .name = "rusage",
    .version = "1",
    .kind = SCAL_PLUGIN_SENSOR,
    .description =
        "CPU time, context switches and page faults of the process (getrusage), its peak RSS "
        "(VmHWM)",
    .options = rusage_options,
    .sensor = &rusage_ops,
};

SCAL_PLUGIN_DEFINE(rusage_desc)
