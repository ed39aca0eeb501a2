/* SPDX-License-Identifier: BSD-3-Clause */
/* Paths relative to the running executable: the build tree mirrors the install tree (bin/, lib/,
 * share/scal/), so bin/scal finds the tool, its plugins and its schemas the same way in both. */
#ifndef SCAL_EXE_PATH_H
#define SCAL_EXE_PATH_H

#include <stddef.h>

/* out = <directory of the running executable>/rel (e.g. "../lib/libscal_ompt.so"), resolved to
 * an absolute path when it exists; 0, or SCAL_ENOENT when the executable cannot be found. */
int scal_exe_relative(const char *rel, char *out, size_t len);

#endif
