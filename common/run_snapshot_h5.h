/* SPDX-License-Identifier: BSD-3-Clause */
/* A run snapshot (run_snapshot.h) turned into its HDF5 run file. */
#ifndef SCAL_RUN_SNAPSHOT_H5_H
#define SCAL_RUN_SNAPSHOT_H5_H

#include <hdf5.h>
#include <stddef.h>

#include "run_snapshot.h"

/* Replays every operation of s into file (an open, empty HDF5 file). */
int scal_snap_replay(struct scal_snap *s, hid_t file);

/* Writes the run file the snapshot describes (temporary name beside it, then into place, never
 * over a file another process of the same run wrote meanwhile) and removes the snapshot. final
 * (may be NULL) receives the run file's name. A snapshot that cannot be read or written is kept and
 * the error names it. */
int scal_snap_convert(const char *snapshot, unsigned flags, char *final, size_t len);
/* The same into `file`, an empty file from scal_snap_memory_file made ahead of time (the writer
 * process makes it while the program runs), which it closes; H5I_INVALID_HID: one made here. */
int scal_snap_convert_in(hid_t file, const char *snapshot, unsigned flags, char *final, size_t len);
/* The same of the snapshot open at fd (handed over in memory; name stands for it in messages),
 * which is emptied (truncated to 0 bytes) once the run file is in place: its sender, left without
 * an answer, tells by that whether the run file was written. */
int scal_snap_convert_fd_in(hid_t file, int fd, const char *name, unsigned flags, char *final,
                            size_t len);
/* An empty HDF5 file in memory (the core driver, nothing on disk), or a negative status. */
hid_t scal_snap_memory_file(void);

#endif
