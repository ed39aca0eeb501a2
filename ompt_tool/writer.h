/* SPDX-License-Identifier: BSD-3-Clause */
/* Declarations shared by the run-file writer's sources (libscal_ompt_writer.so only: HDF5 lives
 * here, never in the tool's hot path). */
#ifndef SCAL_TOOL_WRITER_H
#define SCAL_TOOL_WRITER_H

#include "h5util.h"
#include "tool.h"

int scal_write_run_meta(hid_t file, uint64_t end_ns, int32_t max_team_observed);

#endif
