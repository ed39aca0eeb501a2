/* SPDX-License-Identifier: BSD-3-Clause */
/* The layout checks of the validator (validate.c runs them before the content checks), and where
 * both halves put their problems. */
#ifndef SCAL_VALIDATE_LAYOUT_H
#define SCAL_VALIDATE_LAYOUT_H

#include <stddef.h>

#include "safe_open.h"

/* Where the validator's problems go: each, as one line, to cb (may be NULL), counted. */
struct scal__problems {
    void (*cb)(void *arg, const char *problem);
    void *arg;
    size_t count;
};
void scal__problem(struct scal__problems *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* f's attributes, groups and tables against its format's schema (a missing schema is a
 * problem), into p; returns how many problems it found. */
size_t scal__validate_layout(const struct scal_h5file *f, struct scal__problems *p);

#endif
