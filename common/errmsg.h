/* SPDX-License-Identifier: BSD-3-Clause */
/* The detailed message behind the last error returned on this thread ("what failed and where"). */
#ifndef SCAL_ERRMSG_H
#define SCAL_ERRMSG_H

#include <stdarg.h>

/* Records a message for the calling thread and returns status, so that callers write
 * `return scal__fail(SCAL_EIO, "cannot open '%s': %s", path, strerror(errno));`. */
int scal__fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last message recorded on this thread when it was recorded with this status, else the status
 * text (scal_strerror), so that a stale message never describes another error. Never NULL. */
const char *scal__last_error(int status);

#endif
