/* SPDX-License-Identifier: BSD-3-Clause */
/* How one program is measured: its OpenMP runtime (libomp as is; libgomp through libomp's GOMP
 * layer, preloaded), and the tool's absolute path. Used by `scal run` for every run of a campaign
 * and by `scal exec` for one run. */
#ifndef SCAL_MEASURE_H
#define SCAL_MEASURE_H

#include <limits.h>
#include <stddef.h>

#include "omp_runtime.h"

struct scal_measure {
    char program_path[PATH_MAX]; /* the program, resolved through PATH */
    enum scal_omp_kind omp;
    char libomp[PATH_MAX]; /* libomp to preload for a libgomp program, else "" */
    char tool[PATH_MAX];   /* absolute path of libscal_ompt.so */
};

/* The tool installed beside the running executable (bin/../lib/libscal_ompt.so, in the build tree
 * as in an install), absolute; "" when it cannot be found. */
void scal_measure_default_tool(char *out, size_t len);

/* Fills m for program (PATH search when it has no '/'); tool NULL means the default tool. Errors
 * (scal__fail message): a missing or non-ELF program, a statically linked OpenMP runtime, no libomp
 * for a libgomp program, a missing tool. */
int scal_measure_prepare(const char *program, const char *tool, struct scal_measure *m);

/* The LD_PRELOAD value a measured run needs, given the current one (old, may be NULL): libomp in
 * front for a libgomp program, else old unchanged. */
void scal_measure_preload(enum scal_omp_kind omp, const char *libomp, const char *old, char *out,
                          size_t len);

#endif
