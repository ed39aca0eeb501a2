/* SPDX-License-Identifier: BSD-3-Clause */
/* User-defined regions: mark code with scal_region_begin/end; they nest with OpenMP parallel
 * regions.
 *
 * Link with -lscal (pkg-config scal). When the program runs without libscal_ompt.so these calls
 * do nothing and cost a load and a branch, so the program runs unchanged.
 *
 *     scal_region_begin("assemble");
 *     #pragma omp parallel for
 *     for (...) { ... }
 *     scal_region_end("assemble");
 *
 * Regions are per thread: a region begun on a thread must be ended on the same thread, innermost
 * first. The name identifies the region (together with its parent in the region tree); the string
 * is copied the first time it is seen, so it need not outlive the call.
 */
#ifndef SCAL_SCAL_H
#define SCAL_SCAL_H

#include "scal/export.h"
#include "scal/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens a region on the calling thread. Returns 0, or SCAL_EINVAL for a NULL or empty name.
 * Returns 0 and does nothing when the tool is not loaded. */
SCAL_EXPORT int scal_region_begin(const char *name);

/* Closes the innermost open region of the calling thread; name must match the one given to
 * scal_region_begin (a mismatch returns SCAL_EINVAL and is counted in the output's diagnostics). */
SCAL_EXPORT int scal_region_end(const char *name);

/* 1 when libscal_ompt.so is measuring this process, 0 otherwise. */
SCAL_EXPORT int scal_tool_active(void);

/* The interface between libscal (linked by the program) and libscal_ompt.so (loaded by the OpenMP
 * runtime). The tool looks up scal_api_attach with dlsym(RTLD_DEFAULT) at initialisation and hands
 * over its entry points; the version allows either side to be newer. Not for application use. */
#define SCAL_API_VERSION 1
struct scal_api_ops {
    unsigned version;     /* SCAL_API_VERSION of the tool */
    unsigned struct_size; /* sizeof(struct scal_api_ops) in the tool */
    int (*region_begin)(const char *name);
    int (*region_end)(const char *name);
};
SCAL_EXPORT int scal_api_attach(const struct scal_api_ops *ops);
SCAL_EXPORT void scal_api_detach(void);

#ifdef __cplusplus
}
#endif
#endif
