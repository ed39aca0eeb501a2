/* SPDX-License-Identifier: BSD-3-Clause */
/* The layout checks of the validator (validate.c runs them before the content checks). */
#ifndef SCAL_VALIDATE_LAYOUT_H
#define SCAL_VALIDATE_LAYOUT_H

#include <stddef.h>

#include "safe_open.h"

/* f's attributes, groups and tables against its format's schema (a missing schema is a
 * problem); each problem handed to cb; returns how many. */
size_t scal__validate_layout(const struct scal_h5file *f,
                             void (*cb)(void *arg, const char *problem), void *arg);

#endif
