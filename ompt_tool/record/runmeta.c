// SPDX-License-Identifier: BSD-3-Clause
// Run metadata for /meta: command line, host, CPU, kernel, date, runtime, environment, exit reason.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "errmsg.h"
#include "loaded_object.h"
#include "mpi_rank.h"
#include "utc_date.h"
#include "tool.h"
#include "writer.h"

extern char **environ;

/* The command line the tool kept at start, shell-quoted. */
static void command_line(char *out, size_t len)
{
    const char *raw = scal_tool_state.cmdline;
    size_t n = scal_tool_state.cmdline_len, o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && o + 4 < len;) {
        const char *arg = raw + i;
        size_t alen = strlen(arg);
        bool quote = alen == 0 || strpbrk(arg, " \t\"'\\") != NULL;
        o += (size_t)snprintf(out + o, len - o, "%s%s%s%s", o ? " " : "", quote ? "'" : "", arg,
                              quote ? "'" : "");
        if (o >= len) o = len - 1;
        i += alen + 1;
    }
}

const char *scal_program_name(void)
{
    static char name[256];
    if (!name[0]) {
        const char *exe = scal_executable_path();
        if (!exe[0]) return "program";
        const char *base = strrchr(exe, '/');
        snprintf(name, sizeof(name), "%s", base ? base + 1 : exe);
    }
    return name;
}

/* The first CPU's "model name" from /proc/cpuinfo. The kernel makes that file one CPU at a time as
 * it is read: reading on only until the line is complete, or the first CPU's record has ended
 * without one (aarch64 kernels write none), costs one CPU's record, not all of them (on a 128-core
 * node, the whole file takes about a millisecond to make). */
static void cpu_model(char *out, size_t len)
{
    char info[8192];
    size_t n = 0;
    const char *p = NULL;
    int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
    snprintf(out, len, "unknown");
    if (fd < 0) return;
    while (n + 1 < sizeof(info)) {
        ssize_t got = read(fd, info + n, sizeof(info) - 1 - n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        n += (size_t)got;
        info[n] = '\0';
        if ((p = strstr(info, "model name")) && strchr(p, '\n')) break;
        p = NULL;
        if (strstr(info, "\n\n")) break; /* the first CPU's record, without the line */
    }
    close(fd);
    if (p && (p = strchr(p, ':'))) {
        p++;
        while (*p == ' ')
            p++;
        size_t k = strcspn(p, "\n");
        snprintf(out, len, "%.*s", (int)k, p);
    }
}

static bool wanted_env(const char *e)
{
    return !strncmp(e, "OMP_", 4) || !strncmp(e, "KMP_", 4) || !strncmp(e, "GOMP_", 5) ||
           !strncmp(e, "SCAL_", 5);
}

int scal_write_run_meta(struct scal_snap_builder *file, uint64_t end_ns, int32_t max_team_observed)
{
    const struct scal_tool *st = &scal_tool_state;
    char buf[8192], host[256] = "unknown", date[64];
    struct utsname un;
    int rc = SCAL_OK;
    const char *meta = "/meta";
    rc |= scal_snap_group(file, meta);

    command_line(buf, sizeof(buf));
    rc |= scal_snap_attr_str(file, meta, "command_line", buf);
    rc |= scal_snap_attr_str(file, meta, "command_line_read",
                             st->cmdline_at_start
                                 ? "at start (the tool was preloaded)"
                                 : "at the first OpenMP call (the program may have changed its "
                                   "arguments before)");
    rc |= scal_snap_attr_str(file, meta, "executable", scal_executable_path());
    rc |= scal_snap_attr_i64(file, meta, "pid", (int64_t)st->measured_pid);
    gethostname(host, sizeof(host) - 1);
    rc |= scal_snap_attr_str(file, meta, "host", host);
    cpu_model(buf, sizeof(buf));
    rc |= scal_snap_attr_str(file, meta, "cpu_model", buf);
    rc |= scal_snap_attr_i64(file, meta, "cpu_count", (int64_t)sysconf(_SC_NPROCESSORS_ONLN));
    if (uname(&un) == 0)
        snprintf(buf, sizeof(buf), "%s %s %s %s", un.sysname, un.release, un.version, un.machine);
    else
        snprintf(buf, sizeof(buf), "unknown");
    rc |= scal_snap_attr_str(file, meta, "kernel", buf);
    scal_utc_date((int64_t)st->start_unix, date, sizeof(date));
    rc |= scal_snap_attr_str(file, meta, "date_utc", date);
    rc |= scal_snap_attr_f64(file, meta, "start_unix", st->start_unix);
    rc |= scal_snap_attr_f64(file, meta, "duration_s", (double)(end_ns - st->start_ns) * 1e-9);
    rc |= scal_snap_attr_str(file, meta, "omp_runtime", st->omp_runtime);
    rc |= scal_snap_attr_str(file, meta, "omp_entry_points",
                             scal_writer_saw_gomp
                                 ? "GOMP_* (gcc-built code; libomp standing in for libgomp)"
                                 : "__kmpc_* (LLVM)");
    rc |= scal_snap_attr_str(
        file, meta, "clock_source",
        "clock_gettime(CLOCK_MONOTONIC); program start from /proc/self/stat (10 ms resolution)");
    rc |= scal_snap_attr_str(file, meta, "exit_reason", st->exit_reason);
    const char *omp_threads = getenv("OMP_NUM_THREADS");
    rc |= scal_snap_attr_i64(file, meta, "requested_threads",
                             omp_threads && atoi(omp_threads) > 0 ? atoi(omp_threads) : -1);
    rc |= scal_snap_attr_i64(file, meta, "max_team_observed", max_team_observed);
    rc |= scal_snap_attr_i64(file, meta, "trace", st->cfg.trace_entries ? 1 : 0);
    struct scal_mpi_rank mpi;
    scal_mpi_rank_detect(&mpi);
    rc |= scal_snap_attr_i64(file, meta, "mpi_rank", mpi.rank);
    rc |= scal_snap_attr_i64(file, meta, "mpi_size", mpi.size);
    rc |= scal_snap_attr_str(file, meta, "mpi_rank_source", mpi.source);

    /* The SCAL_*, OMP_*, KMP_*, GOMP_* environment, also as one string of SCAL_* options. */
    size_t nenv = 0, o = 0;
    for (char **e = environ; e && *e; e++)
        nenv += wanted_env(*e);
    const char **env = calloc(nenv + 1, sizeof(*env));
    buf[0] = '\0';
    nenv = 0;
    for (char **e = environ; env && e && *e; e++) {
        if (!wanted_env(*e)) continue;
        env[nenv++] = *e;
        if (!strncmp(*e, "SCAL_", 5) && o + strlen(*e) + 2 < sizeof(buf))
            o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", o ? " " : "", *e);
    }
    rc |= scal_snap_attr_str(file, meta, "tool_options", buf);
    if (env) rc |= scal_snap_strings(file, meta, "environment", env, nenv);
    free(env);
    return rc ? scal__fail(SCAL_ENOMEM, "cannot record the run metadata in /meta") : SCAL_OK;
}
