// SPDX-License-Identifier: BSD-3-Clause
// loaded_object.h: the object holding an address, by dl_iterate_phdr.
#define _GNU_SOURCE
#include <link.h>

#include "loaded_object.h"

struct search {
    uintptr_t addr;
    bool first, found;
    struct scal_loaded_object *out;
};

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct search *s = data;
    bool first = s->first, holds = false;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    s->first = false;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
        if (s->addr >= start && s->addr < end) holds = true;
        if (!(ph->p_flags & PF_X)) continue;
        if (start < lo) lo = start;
        if (end > hi) hi = end;
    }
    if (!holds) return 0;
    *s->out = (struct scal_loaded_object){.is_program = first,
                                          .name = info->dlpi_name ? info->dlpi_name : "",
                                          .base = info->dlpi_addr,
                                          .text_lo = hi ? lo : 0,
                                          .text_hi = hi};
    s->found = true;
    return 1;
}

bool scal_loaded_object_at(uintptr_t addr, struct scal_loaded_object *out)
{
    struct search s = {addr, true, false, out};
    dl_iterate_phdr(visit, &s);
    return s.found;
}
