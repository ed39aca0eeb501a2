/* SPDX-License-Identifier: BSD-3-Clause */
/* Declarations shared by the run-file writer's sources (libscal_ompt_writer.so only, loaded at
 * flush). The writer records the run file's content as a run snapshot (common/run_snapshot.h):
 * neither it nor the tool maps HDF5; a writer process or the runner turns the snapshot into HDF5.
 */
#ifndef SCAL_TOOL_WRITER_H
#define SCAL_TOOL_WRITER_H

#include "run_snapshot.h"
#include "strtab.h"
#include "tool.h"
#include "tool_access.h"

/* writer_access.c: keeps the tool's accessor table for the writer's sources (0 or SCAL_EABI). */
int scal_writer_attach(const struct scal_tool_access *access);

int scal_write_run_meta(struct scal_snap_builder *file, uint64_t end_ns, int32_t max_team_observed);
/* Set by the region writer when a region was forked through gcc's GOMP_* entry points (a gcc-built
 * program measured through libomp's GOMP layer); /meta says so. */
extern bool scal_writer_saw_gomp;
/* /sensors (sensor_write.c): what the tool's sensor session gathered; a no-op returning 0 when scal
 * is built without the plugin host. */
struct scal_sensor_session;
/* region_of_node maps node ids (below nnodes) to the region ids of /regions. */
int scal_sensor_session_write(struct scal_sensor_session *s, struct scal_snap_builder *file,
                              struct scal_strtab *st, uint32_t nnodes,
                              const uint32_t *region_of_node);

#endif
