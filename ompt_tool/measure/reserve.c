// SPDX-License-Identifier: BSD-3-Clause
// Zeroed memory that costs nothing until touched (tool.h: scal_reserve_zeroed).
#include <sys/mman.h>

#include "tool.h"

void *scal_reserve_zeroed(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
