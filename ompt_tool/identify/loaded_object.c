// SPDX-License-Identifier: BSD-3-Clause
// loaded_object.h: loaded objects read from dl_iterate_phdr's program headers.
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
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

#if defined(__x86_64__)
#define R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

#if defined(R_JUMP_SLOT) && defined(__LP64__)
/* A dynamic-section address: glibc relocates most of them in place, an unrelocated one is relative
 * to the object's base. */
static uintptr_t dyn_address(const struct dl_phdr_info *info, ElfW(Addr) v)
{
    return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

static int each_slot(const struct dl_phdr_info *info, const ElfW(Rela) * rel, size_t size,
                     const ElfW(Sym) * symtab, const char *strtab,
                     int (*fn)(uintptr_t, const char *, void *), void *data)
{
    for (size_t k = 0; k < size / sizeof(*rel); k++) {
        unsigned type = (unsigned)ELF64_R_TYPE(rel[k].r_info);
        if (type != R_JUMP_SLOT && type != R_GLOB_DAT) continue;
        int stop = fn(info->dlpi_addr + rel[k].r_offset,
                      strtab + symtab[ELF64_R_SYM(rel[k].r_info)].st_name, data);
        if (stop) return stop;
    }
    return 0;
}

void scal_loaded_slots(const struct dl_phdr_info *info,
                       int (*fn)(uintptr_t slot, const char *name, void *data), void *data)
{
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn || (info->dlpi_name && strstr(info->dlpi_name, "linux-vdso"))) return;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t jmprel_size = 0, rela_size = 0;
    bool plt_rela = true;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB:
            symtab = (const ElfW(Sym) *)dyn_address(info, dyn->d_un.d_ptr);
            break;
        case DT_STRTAB:
            strtab = (const char *)dyn_address(info, dyn->d_un.d_ptr);
            break;
        case DT_JMPREL:
            jmprel = (const ElfW(Rela) *)dyn_address(info, dyn->d_un.d_ptr);
            break;
        case DT_PLTRELSZ:
            jmprel_size = dyn->d_un.d_val;
            break;
        case DT_PLTREL:
            plt_rela = dyn->d_un.d_val == DT_RELA;
            break;
        case DT_RELA:
            rela = (const ElfW(Rela) *)dyn_address(info, dyn->d_un.d_ptr);
            break;
        case DT_RELASZ:
            rela_size = dyn->d_un.d_val;
            break;
        default:
            break;
        }
    }
    if (!symtab || !strtab) return;
    if (jmprel && plt_rela && each_slot(info, jmprel, jmprel_size, symtab, strtab, fn, data))
        return;
    if (rela) each_slot(info, rela, rela_size, symtab, strtab, fn, data);
}
#else
void scal_loaded_slots(const struct dl_phdr_info *info,
                       int (*fn)(uintptr_t slot, const char *name, void *data), void *data)
{
    (void)info, (void)fn, (void)data;
}
#endif

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
