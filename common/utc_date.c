// SPDX-License-Identifier: BSD-3-Clause
// utc_date.h. gmtime_r would read the time zone's file first (tzset: 7 system calls, ~15 us at
// every measured process's end here), though UTC needs none. The proleptic Gregorian calendar:
// days counted in 400-year eras of 146097 days, with years that start on March 1st, so that a
// leap day is a year's last.
#include <stdio.h>

#include "utc_date.h"

void scal_utc_date(int64_t t, char *out, size_t len)
{
    int64_t days = t / 86400, secs = t % 86400;
    if (secs < 0) secs += 86400, days--;
    days += 719468; /* from 0000-03-01 to 1970-01-01 */
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    int64_t doe = days - era * 146097;                                   /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
    int64_t mp = (5 * doy + 2) / 153;                                    /* March: 0 */
    int64_t day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
    int64_t year = yoe + era * 400 + (month <= 2);
    snprintf(out, len, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", (long long)year,
             (long long)month, (long long)day, (long long)(secs / 3600),
             (long long)(secs / 60 % 60), (long long)(secs % 60));
}
