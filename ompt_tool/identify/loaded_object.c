// SPDX-License-Identifier: BSD-3-Clause
// loaded_object.h: loaded objects read from dl_iterate_phdr's program headers.
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "loaded_object.h"

void scal_loaded_object_of(const struct dl_phdr_info *info, bool is_program,
                           struct scal_loaded_object *out)
{
    *out = (struct scal_loaded_object){.is_program = is_program,
                                       .name = info->dlpi_name ? info->dlpi_name : "",
                                       .base = info->dlpi_addr,
                                       .lo = UINTPTR_MAX,
                                       .text_lo = UINTPTR_MAX};
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
        if (start < out->lo) out->lo = start;
        if (end > out->hi) out->hi = end;
        if (!(ph->p_flags & PF_X)) continue;
        if (start < out->text_lo) out->text_lo = start;
        if (end > out->text_hi) out->text_hi = end;
    }
    if (!out->hi) out->lo = 0;
    if (!out->text_hi) out->text_lo = 0;
}

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
    s->first = false;
    for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        holds = ph->p_type == PT_LOAD && s->addr >= start && s->addr < start + ph->p_memsz;
    }
    if (!holds) return 0;
    scal_loaded_object_of(info, first, s->out);
    s->found = true;
    return 1;
}

bool scal_loaded_object_at(uintptr_t addr, struct scal_loaded_object *out)
{
    struct search s = {addr, true, false, out};
    dl_iterate_phdr(visit, &s);
    return s.found;
}

const unsigned char *scal_loaded_build_id(const struct dl_phdr_info *info, size_t *len)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr),
                            *end = p + ph->p_memsz;
        while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            size_t name = (nh->n_namesz + 3) & ~(size_t)3, desc = (nh->n_descsz + 3) & ~(size_t)3;
            if (name + desc > (size_t)(end - p) - sizeof(*nh)) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz > 0) {
                *len = nh->n_descsz;
                return p + sizeof(*nh) + name;
            }
            p += sizeof(*nh) + name + desc;
        }
    }
    return NULL;
}

static char executable[4096];
static pthread_once_t executable_once = PTHREAD_ONCE_INIT;

static void read_executable(void)
{
    ssize_t n = readlink("/proc/self/exe", executable, sizeof(executable) - 1);
    executable[n > 0 ? n : 0] = '\0';
}

const char *scal_executable_path(void)
{
    pthread_once(&executable_once, read_executable);
    return executable;
}
