// SPDX-License-Identifier: BSD-3-Clause
// Unit test: scal_utc_date (common/utc_date.h) gives the date gmtime_r gives, at every day from
// 1600 to 2500 (leap years, century years, 2000 and 2100 among them), at the second before and
// after each midnight, at pseudo-random seconds, and before 1970.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "scal_test.h"
#include "utc_date.h"

static int differs(int64_t t)
{
    char got[64], want[64];
    struct tm tm;
    time_t tt = (time_t)t;
    if (!gmtime_r(&tt, &tm)) return 1;
    snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    scal_utc_date(t, got, sizeof(got));
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%lld: got %s, gmtime_r %s\n", (long long)t, got, want);
        return 1;
    }
    return 0;
}

int main(void)
{
    char s[64];
    scal_utc_date(0, s, sizeof(s));
    CHECK(!strcmp(s, "1970-01-01T00:00:00Z"), "the epoch: %s", s);
    scal_utc_date(951782400, s, sizeof(s));
    CHECK(!strcmp(s, "2000-02-29T00:00:00Z"), "2000's leap day: %s", s);
    scal_utc_date(4107542399, s, sizeof(s));
    CHECK(!strcmp(s, "2100-02-28T23:59:59Z"), "2100 has no leap day: %s", s);
    int bad = 0;
    uint64_t x = 88172645463325252ull;
    const int64_t from = -11676096000ll, to = 16725225600ll; /* 1600-01-01 .. 2500-01-01 */
    for (int64_t day = from; day < to && bad < 5; day += 86400) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        bad += differs(day) + differs(day - 1) + differs(day + 86399) +
               differs(day + (int64_t)(x % 86400));
    }
    CHECK(bad == 0, "gmtime_r's date at every day from 1600 to 2500: %d differ", bad);
    return scal_test_result("utc_date");
}
