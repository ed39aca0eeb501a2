// SPDX-License-Identifier: BSD-3-Clause
// Thread-local storage of the detailed message that goes with a negative status code.
#include "errmsg.h"

#include <stdio.h>

#include "scal/status.h"

static _Thread_local char last_message[1024];

int scal__fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof(last_message), fmt, ap);
    va_end(ap);
    return status;
}

const char *scal__last_error(int status)
{
    return last_message[0] ? last_message : scal_strerror(status);
}

void scal__clear_error(void)
{
    last_message[0] = '\0';
}
