/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading untrusted files safely: HDF5 1.10 can crash or corrupt its heap on damaged files (seen by
 * the fuzz test: aborts inside H5Fclose), which no in-process guard can survive. A probe runs the
 * read in a forked child first; only when the child survives does the caller read for real. */
#ifndef SCAL_PROBE_H
#define SCAL_PROBE_H

/* Runs fn(arg) in a child process with stdout and stderr discarded, at most cpu_seconds of CPU
 * time (HDF5 loops forever on some damaged files) and a memory budget of 512 MB plus 64 times the
 * file's size (a damaged length makes HDF5 allocate gigabytes), and returns what fn returned, with
 * its message when negative (a problem the child found needs no second read). SCAL_EFORMAT
 * ("'<path>' is damaged: ...") when the child died of a signal or ran out of time or memory,
 * SCAL_ECHILD when no child could be started. */
int scal_probe(int (*fn)(void *), void *arg, const char *path, unsigned cpu_seconds);

#endif
