// SPDX-License-Identifier: BSD-3-Clause
// tool.h: scal_module_loaded, the one test of whether a region's module is still where it was.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "loaded_object.h"
#include "tool.h"

const struct link_map *scal_module_loaded(uint64_t addr, uint64_t noted_addr, const char **symbol)
{
    Dl_info info;
    struct link_map *lm = NULL;
    const char *noted = NULL;
    uint64_t noted_base = 0;
    bool was_noted = scal_module_of(noted_addr, &noted, &noted_base);
    if (symbol) *symbol = NULL;
    if (!dladdr1((void *)(uintptr_t)addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) return NULL;
    if (was_noted && !scal_module_still_noted(lm->l_addr, lm->l_name, noted_base, noted))
        return NULL;
    if (symbol) *symbol = info.dli_sname;
    return lm;
}
