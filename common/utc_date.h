/* SPDX-License-Identifier: BSD-3-Clause */
/* A time as the run files write dates: "YYYY-MM-DDThh:mm:ssZ", UTC. */
#ifndef SCAL_UTC_DATE_H
#define SCAL_UTC_DATE_H

#include <stddef.h>
#include <stdint.h>

/* The UTC date of t, in seconds since 1970-01-01 00:00:00 UTC, into out (21 characters and the
 * terminating zero: len >= 21 for years 0 to 9999). */
void scal_utc_date(int64_t t, char *out, size_t len);

#endif
