// SPDX-License-Identifier: BSD-3-Clause
// Thread-local storage of the detailed message that goes with a negative status code.
#include "errmsg.h"

#include <stdio.h>
#include <string.h>

#include "scal/status.h"

#define SCAL_MESSAGE_MAX 1024

static _Thread_local char last_message[SCAL_MESSAGE_MAX];
static _Thread_local int last_status;

int scal__fail(int status, const char *fmt, ...)
{
    /* Formatted aside first: callers add context to the message they were given, e.g.
     * scal__fail(rc, "%s: %s", path, scal__last_error(rc)), which reads last_message. */
    char message[SCAL_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    memcpy(last_message, message, sizeof(message));
    last_status = status;
    return status;
}

const char *scal__last_error(int status)
{
    return last_message[0] && last_status == status ? last_message : scal_strerror(status);
}
