// SPDX-License-Identifier: BSD-3-Clause
// Unit test: one way of carrying an error's details (scal__fail / scal__last_error).
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "scal/status.h"

static int failures;
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

int main(void)
{
    EXPECT(!strcmp(scal__last_error(SCAL_EIO), scal_strerror(SCAL_EIO)),
           "no message yet: the status text");
    EXPECT(scal__fail(SCAL_EFORMAT, "row %d is bad", 3) == SCAL_EFORMAT, "returns the status");
    EXPECT(!strcmp(scal__last_error(SCAL_EFORMAT), "row 3 is bad"), "the message: %s",
           scal__last_error(SCAL_EFORMAT));
    EXPECT(!strcmp(scal__last_error(SCAL_ENOMEM), scal_strerror(SCAL_ENOMEM)),
           "a stale message never describes another status: %s", scal__last_error(SCAL_ENOMEM));
    /* Adding context to the message one was given (the source is the stored message itself). */
    int rc = scal__fail(SCAL_EFORMAT, "%s: %s", "a.h5", scal__last_error(SCAL_EFORMAT));
    EXPECT(!strcmp(scal__last_error(rc), "a.h5: row 3 is bad"), "context added: %s",
           scal__last_error(rc));
    if (failures == 0) printf("PASS error messages\n");
    return failures ? 1 : 0;
}
