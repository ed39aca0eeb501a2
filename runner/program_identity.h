/* SPDX-License-Identifier: BSD-3-Clause */
/* What identifies the measured program's binary across a campaign's life: its ELF build id and
 * size (or, without a build id, its size and modification time). --resume compares the stored
 * identity with the program found now and refuses to mix the runs of two different binaries. */
#ifndef SCAL_PROGRAM_IDENTITY_H
#define SCAL_PROGRAM_IDENTITY_H

#include <stddef.h>

/* Writes a one-line, human-readable identity of the file at path into buf, e.g.
 * "build-id 3f2a...e1, 16384 bytes" or "16384 bytes, modified 2026-11-27T01:02:03.123456789Z".
 * SCAL_EIO (reason recorded by scal__fail) when the file cannot be read. */
int scal_program_identity(const char *path, char *buf, size_t len);

#endif
