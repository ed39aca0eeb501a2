// SPDX-License-Identifier: BSD-3-Clause
// Unit test: one way of carrying an error's details (scal__fail / scal__last_error).
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "scal/status.h"
#include "scal_test.h"

int main(void)
{
    CHECK(!strcmp(scal__last_error(SCAL_EIO), scal_strerror(SCAL_EIO)),
          "no message yet: the status text");
    CHECK(scal__fail(SCAL_EFORMAT, "row %d is bad", 3) == SCAL_EFORMAT, "returns the status");
    CHECK(!strcmp(scal__last_error(SCAL_EFORMAT), "row 3 is bad"), "the message: %s",
          scal__last_error(SCAL_EFORMAT));
    CHECK(!strcmp(scal__last_error(SCAL_ENOMEM), scal_strerror(SCAL_ENOMEM)),
          "a stale message never describes another status: %s", scal__last_error(SCAL_ENOMEM));
    /* Adding context to the message one was given (the source is the stored message itself). */
    int rc = scal__fail(SCAL_EFORMAT, "%s: %s", "a.h5", scal__last_error(SCAL_EFORMAT));
    CHECK(!strcmp(scal__last_error(rc), "a.h5: row 3 is bad"), "context added: %s",
          scal__last_error(rc));
    return scal_test_result("error messages");
}
