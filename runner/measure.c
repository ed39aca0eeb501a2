// SPDX-License-Identifier: BSD-3-Clause
// How one program is measured: runtime, libomp and tool paths (shared by scal run and scal exec).
#include "measure.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "exe_path.h"
#include "scal/status.h"

void scal_measure_default_tool(char *out, size_t len)
{
    if (scal_exe_relative("../lib/libscal_ompt.so", out, len) < 0 || access(out, R_OK) != 0)
        out[0] = '\0';
}

int scal_measure_prepare(const char *program, const char *tool, struct scal_measure *m)
{
    memset(m, 0, sizeof(*m));
    int rc = scal_omp_inspect(program, m->program_path, sizeof(m->program_path), &m->omp);
    if (rc < 0) return rc;
    if (m->omp == SCAL_OMP_STATIC)
        return scal__fail(SCAL_EUNAVAIL,
                          "'%s' has its OpenMP runtime linked in statically: scal measures through "
                          "OMPT, which needs the shared libomp. Relink without -static (e.g. clang "
                          "-fopenmp)",
                          m->program_path);
    if (m->omp == SCAL_OMP_LIBGOMP && (rc = scal_omp_find_libomp(m->libomp, sizeof(m->libomp))) < 0)
        return rc;
    if (tool) {
        char real[PATH_MAX];
        snprintf(m->tool, sizeof(m->tool), "%s", realpath(tool, real) ? real : tool);
    } else {
        scal_measure_default_tool(m->tool, sizeof(m->tool));
    }
    if (strchr(m->tool, ':'))
        return scal__fail(SCAL_EINVAL,
                          "the tool path '%s' holds a ':', which OMP_TOOL_LIBRARIES takes as a "
                          "separator: install or link the tool at a path without one",
                          m->tool);
    if (!m->tool[0] || access(m->tool, R_OK) != 0)
        return scal__fail(SCAL_ENOENT,
                          "the scal tool '%s' is missing (give --tool PATH/libscal_ompt.so)",
                          m->tool[0] ? m->tool : "libscal_ompt.so beside the scal executable");
    return SCAL_OK;
}

int scal_measure_env(const struct scal_measure *m,
                     int (*set)(void *ctx, const char *name, const char *value), void *ctx)
{
    int rc = set(ctx, "OMP_TOOL_LIBRARIES", m->tool);
    if (rc < 0) return rc;
        /* The tool is preloaded: loaded before main, it sees the program's first fork too
         * (ompt_tool/identify/fork_hook.h), also when the program is started by a wrapper (taskset,
         * sh, env, a launcher), into which it loads without effect. Not in a sanitized build, whose
         * tool needs the program's sanitizer runtime (a wrapper has none). gcc-built programs get
         * libomp first, standing in for libgomp. */
#ifdef SCAL_SANITIZED_BUILD
    bool preload_tool = false;
#else
    bool preload_tool = !strchr(m->tool, ' '); /* LD_PRELOAD splits at spaces too */
#endif
    const char *libomp = m->omp == SCAL_OMP_LIBGOMP ? m->libomp : "";
    const char *tool = preload_tool ? m->tool : "";
    if (!*libomp && !*tool) return rc;
    const char *old = getenv("LD_PRELOAD");
    char preload[3 * PATH_MAX + 3];
    int n = snprintf(preload, sizeof(preload), "%s%s%s%s%s", libomp, *libomp && *tool ? ":" : "",
                     tool, old && *old ? ":" : "", old ? old : "");
    if (n < 0 || (size_t)n >= sizeof(preload))
        return scal__fail(SCAL_EINVAL, "LD_PRELOAD with the tool would exceed %zu characters",
                          sizeof(preload) - 1);
    return set(ctx, "LD_PRELOAD", preload);
}
