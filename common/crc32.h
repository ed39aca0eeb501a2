// SPDX-License-Identifier: BSD-3-Clause
// The CRC-32 of zlib, gzip and PNG (reflected polynomial 0xEDB88320), which the run snapshot and
// the identity cache carry: computed here rather than by zlib, whose loading alone cost each
// measured process ~60 us of CPU at the end of its run (the checksum itself takes a few).
#ifndef SCAL_CRC32_H
#define SCAL_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of p[0..n) continued from crc (0 to start), as zlib's crc32(crc, p, n) gives it. */
uint32_t scal_crc32(uint32_t crc, const void *p, size_t n);

#endif
