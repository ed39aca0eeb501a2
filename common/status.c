// SPDX-License-Identifier: BSD-3-Clause
// Texts and names for scal's status codes, generated from the one X-macro in scal/status.h.
#include "scal/status.h"

const char *scal_strerror(int status)
{
    switch (status) {
#define SCAL_STATUS_TEXT(name, value, text)                                                        \
    case value:                                                                                    \
        return text;
        SCAL_STATUS_MAP(SCAL_STATUS_TEXT)
#undef SCAL_STATUS_TEXT
    }
    return "unknown status code";
}

const char *scal_err_name(int status)
{
    switch (status) {
#define SCAL_STATUS_NAME(name, value, text)                                                        \
    case value:                                                                                    \
        return "SCAL_" #name;
        SCAL_STATUS_MAP(SCAL_STATUS_NAME)
#undef SCAL_STATUS_NAME
    }
    return "SCAL_UNKNOWN";
}
