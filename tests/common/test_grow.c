// SPDX-License-Identifier: BSD-3-Clause
// Unit test: growing an array one element at a time (scal_grow).
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"
#include "scal/status.h"
#include "scal_test.h"

int main(void)
{
    int *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        CHECK(scal_grow((void **)&v, &cap, n, sizeof(*v), 4) == SCAL_OK, "room for element %d", i);
        v[n++] = i;
    }
    CHECK(cap == 1024, "capacity doubled from 4: %zu", cap);
    int same = 1;
    for (size_t i = 0; i < n; i++)
        same &= v[i] == (int)i;
    CHECK(same, "the elements kept through every reallocation");
    CHECK(scal_grow((void **)&v, &cap, 10, sizeof(*v), 4) == SCAL_OK && cap == 1024,
          "no reallocation while there is room");
    /* a capacity whose doubling overflows: refused, the array left as it was */
    size_t huge = SIZE_MAX / 2 + 1;
    int *before = v;
    CHECK(scal_grow((void **)&v, &huge, huge, sizeof(*v), 4) == SCAL_ENOMEM && v == before &&
              huge == SIZE_MAX / 2 + 1,
          "an overflowing size is refused");
    size_t big = SIZE_MAX / 8 + 1; /* doubling fits, its bytes do not (they would wrap to 8) */
    CHECK(scal_grow((void **)&v, &big, big, sizeof(*v), 4) == SCAL_ENOMEM && v == before &&
              big == SIZE_MAX / 8 + 1,
          "an overflowing byte count is refused");
    free(v);
    return scal_test_result("grow");
}
