/* SPDX-License-Identifier: BSD-3-Clause */
/* The one macro that marks a symbol as part of scal's exported interface (everything else is
 * hidden). */
#ifndef SCAL_EXPORT_H
#define SCAL_EXPORT_H
#define SCAL_EXPORT __attribute__((visibility("default")))
#endif
