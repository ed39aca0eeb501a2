// SPDX-License-Identifier: BSD-3-Clause
// Growing an array one element at a time.
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

#include "scal/status.h"

int scal_grow(void **v, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap) return SCAL_OK;
    size_t want = *cap ? 2 * *cap : first;
    if (want <= n || (size && want > SIZE_MAX / size)) return SCAL_ENOMEM;
    void *p = realloc(*v, want * size);
    if (!p) return SCAL_ENOMEM;
    *v = p;
    *cap = want;
    return SCAL_OK;
}
