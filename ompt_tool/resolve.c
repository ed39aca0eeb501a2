// SPDX-License-Identifier: BSD-3-Clause
// Resolving a construct's return address to module, build-id, module-relative offset, source
// file, pragma line, last line of the region body and function (at flush time, never in callbacks).
//
// clang emits no .debug_aranges, so dwfl_module_getsrc finds nothing for clang binaries with
// elfutils 0.188: the fallback walks the compile units (dwarf_nextcu / dwarf_haspc /
// dwarf_getsrc_die). The line looked up is that of ra - 1: ra is the return address after the
// runtime call and belongs to the next statement. The region's last line comes from the outlined
// body (clang ".omp_outlined.*", gcc "*._omp_fn.*") declared on the pragma's line.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "tool.h"

struct scal_resolver {
    Dwfl *dwfl;
    bool lines;
};

static const Dwfl_Callbacks proc_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

struct scal_resolver *scal_resolver_open(bool lines)
{
    struct scal_resolver *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    r->lines = lines;
    if (lines) {
        r->dwfl = dwfl_begin(&proc_callbacks);
        if (r->dwfl && (dwfl_linux_proc_report(r->dwfl, getpid()) != 0 ||
                        dwfl_report_end(r->dwfl, NULL, NULL) != 0)) {
            dwfl_end(r->dwfl);
            r->dwfl = NULL;
        }
    }
    return r;
}

void scal_resolver_close(struct scal_resolver *r)
{
    if (!r) return;
    if (r->dwfl) dwfl_end(r->dwfl);
    free(r);
}

struct build_id_search {
    uintptr_t addr;
    char *out;
    size_t outlen;
};

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    struct build_id_search *s = data;
    bool contains = false;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && s->addr >= lo && s->addr < lo + ph->p_memsz) contains = true;
    }
    if (!contains) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr),
                            *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const unsigned char *desc = p + sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                !memcmp(p + sizeof(*nh), "GNU", 4)) {
                size_t o = 0;
                for (unsigned k = 0; k < nh->n_descsz && o + 3 < s->outlen; k++)
                    o += (size_t)snprintf(s->out + o, s->outlen - o, "%02x", desc[k]);
                return 1;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 1;
}

/* The last line, in the pragma's file, of the outlined region body declared at `line`. */
static int outlined_last_line(Dwarf_Die *cu, const char *file, int line)
{
    Dwarf_Die child;
    Dwarf_Lines *lines;
    size_t nlines;
    int last = -1;
    if (dwarf_child(cu, &child) != 0 || dwarf_getsrclines(cu, &lines, &nlines) != 0) return -1;
    do {
        if (dwarf_tag(&child) != DW_TAG_subprogram) continue;
        const char *name = dwarf_diename(&child);
        int decl = 0;
        if (!name || (strncmp(name, ".omp_outlined.", 14) != 0 && !strstr(name, "._omp_fn.")))
            continue;
        if (dwarf_decl_line(&child, &decl) != 0 || decl != line) continue;
        Dwarf_Addr lo, hi;
        if (dwarf_lowpc(&child, &lo) != 0 || dwarf_highpc(&child, &hi) != 0) continue;
        for (size_t i = 0; i < nlines; i++) {
            Dwarf_Line *l = dwarf_onesrcline(lines, i);
            Dwarf_Addr a;
            int ln;
            const char *src;
            if (!l || dwarf_lineaddr(l, &a) != 0 || a < lo || a >= hi || dwarf_lineno(l, &ln) != 0)
                continue;
            src = dwarf_linesrc(l, NULL, NULL);
            if (src && !strcmp(src, file) && ln > last) last = ln;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return last;
}

static void resolve_lines(struct scal_resolver *r, uint64_t ra, struct scal_resolved *out)
{
    Dwfl_Module *mod = dwfl_addrmodule(r->dwfl, ra);
    Dwarf_Addr bias = 0;
    Dwarf *dw;
    if (!mod) return;
    const char *sym = dwfl_module_addrname(mod, ra - 1); /* .symtab: also static functions */
    if (sym) snprintf(out->function, sizeof(out->function), "%s", sym);
    dw = dwfl_module_getdwarf(mod, &bias);
    if (!dw) return;
    Dwarf_Addr pc = ra - 1 - bias;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_haspc(&cu, pc) == 1) {
            Dwarf_Line *line = dwarf_getsrc_die(&cu, pc);
            int ln = 0;
            const char *src = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
            if (line && src && dwarf_lineno(line, &ln) == 0) {
                snprintf(out->file, sizeof(out->file), "%s", src);
                out->line_first = ln;
                out->line_last = outlined_last_line(&cu, src, ln);
                if (out->line_last < ln) out->line_last = -1;
            }
            return;
        }
        off = next;
    }
}

int scal_resolve(struct scal_resolver *r, uint64_t ra, struct scal_resolved *out)
{
    Dl_info info;
    struct link_map *lm = NULL;
    memset(out, 0, sizeof(*out));
    out->line_first = out->line_last = -1;
    if (!dladdr1((void *)(uintptr_t)(ra - 1), &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return scal__fail(SCAL_ENOENT, "address %#llx is in no loaded module",
                          (unsigned long long)ra);
    if (lm->l_name && lm->l_name[0]) {
        snprintf(out->module, sizeof(out->module), "%s", lm->l_name);
    } else {
        ssize_t n = readlink("/proc/self/exe", out->module, sizeof(out->module) - 1);
        if (n > 0) out->module[n] = '\0';
    }
    out->offset = ra - lm->l_addr; /* module-relative, also right for non-PIE executables */
    if (info.dli_sname) snprintf(out->function, sizeof(out->function), "%s", info.dli_sname);
    struct build_id_search s = {(uintptr_t)ra - 1, out->build_id, sizeof(out->build_id)};
    dl_iterate_phdr(find_build_id, &s);
    if (r && r->dwfl) resolve_lines(r, ra, out);
    return SCAL_OK;
}
