// SPDX-License-Identifier: BSD-3-Clause
// Resolving a construct's return address to module, build-id, module-relative offset, source
// file, pragma line, last line of the region body and function (at flush time, never in callbacks).
//
// clang emits no .debug_aranges, so dwfl_module_getsrc finds nothing for clang binaries with
// elfutils 0.188: the fallback walks the compile units (dwarf_nextcu / dwarf_haspc /
// dwarf_getsrc_die). The line looked up is that of ra - 1: ra is the return address after the
// runtime call and belongs to the next statement. The region's last line comes from the outlined
// body (clang ".omp_outlined.*", gcc "*._omp_fn.*") declared on the pragma's line.
//
// A parallel region's call site is first read as machine code (outlined.c): when it hands the
// runtime an outlined body, that body's DWARF gives the pragma's file and line (gcc's call sites
// sit on other lines) and its own lines give the last one (lines of functions inlined into it do
// not count); a call site reached through a tail call is named after the tail-calling function's
// body, or marked as such when it cannot be found. The function is the innermost source function
// containing the pragma (DWARF inline information), its C++ name demangled with the program's own
// __cxa_demangle when the program has one (a C++ program does; the tool links no C++).
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo.h"
#include "errmsg.h"
#include "bytes.h"
#include "outlined.h"
#include "process_view.h"
#include "source_block.h"
#include "tool.h"

struct scal_resolver {
    Dwfl *dwfl;
    bool lines;
    const struct scal_rq *rq;
    const struct scal_rq_node *node; /* the node being resolved: the tool's notes of its modules */
};

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = scal_find_elf_by_name,
    .find_debuginfo = scal_find_local_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* The module's file, as dwfl_linux_proc_find_elf finds it, refused when its build ID is not the
 * one reported from the loaded object (report_object): the file at that path was replaced since it
 * was loaded, and its lines and functions are another build's. libdw checks a reported build ID
 * only against a file it finds by that ID, not against the one this callback gives. */
static int find_loaded_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                           char **file_name, Elf **elfp)
{
    const unsigned char *want;
    const void *got;
    GElf_Addr at;
    int fd = dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
    int n = dwfl_module_build_id(mod, &want, &at);
    if (n <= 0 || (fd < 0 && !*elfp)) return fd;
    if (!*elfp) *elfp = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (*elfp && dwelf_elf_gnu_build_id(*elfp, &got) == n && !memcmp(got, want, (size_t)n))
        return fd;
    elf_end(*elfp);
    *elfp = NULL;
    if (fd >= 0) close(fd);
    free(*file_name);
    *file_name = NULL;
    return -1;
}

static const Dwfl_Callbacks proc_callbacks = {
    .find_elf = find_loaded_elf,
    .find_debuginfo = scal_find_local_debuginfo,
};

/* Reports the measured process's modules to dwfl as /proc/PID/maps would (each by its name, the
 * span of its segments from the page its first one starts on): no maps to make and parse (~70 us
 * here). A name that is not a path the file can be opened by (an object dlopen()ed by a relative
 * name, a deleted file) fails the whole: the process's maps are read instead. The objects' build
 * IDs, read from their loaded notes, are reported too: a file replaced at that path since it was
 * loaded (a library rebuilt while the program ran; unlike the maps, the loader's list does not say
 * "(deleted)") is then refused by libdw rather than read for another build's lines, which the
 * identity cache would keep under the loaded build's ID. The vDSO, never a region's, is left out.
 */
static int report_modules(Dwfl *dwfl, const struct scal_rq *rq)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    bool failed = false;
    dwfl_report_begin(dwfl);
    for (uint32_t i = 0; i < rq->nmodules && !failed; i++) {
        const struct scal_rq_module *m = &rq->modules[i];
        const char *name = m->path;
        size_t len = strlen(name);
        Dwfl_Module *mod = NULL;
        if (!m->hi || strstr(name, "linux-vdso") || strstr(name, "linux-gate")) continue;
        failed = name[0] != '/' || (len > 10 && !strcmp(name + len - 10, " (deleted)")) ||
                 !(mod = dwfl_report_module(dwfl, name, m->lo & ~(page - 1), m->hi));
        if (!failed && m->build_id_len)
            dwfl_module_report_build_id(mod, m->build_id, m->build_id_len, 0);
    }
    if (failed) {
        dwfl_report_begin(dwfl); /* forgets what was reported */
        if (dwfl_linux_proc_report(dwfl, rq->pid) != 0) return -1;
    }
    return dwfl_report_end(dwfl, NULL, NULL);
}

static struct scal_resolver *resolver_open(const struct scal_rq *rq)
{
    struct scal_resolver *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    r->lines = rq->lines;
    r->rq = rq;
    if (r->lines) {
        r->dwfl = dwfl_begin(&proc_callbacks);
        if (r->dwfl && report_modules(r->dwfl, rq) != 0) {
            dwfl_end(r->dwfl);
            r->dwfl = NULL;
        }
    }
    return r;
}

static void resolver_close(struct scal_resolver *r)
{
    if (!r) return;
    if (r->dwfl) dwfl_end(r->dwfl);
    free(r);
}

/* A line-table row of code: its address and line. An end-of-sequence row marks where a sequence
 * of code stops (the next function's start, with -ffunction-sections or COMDAT members) and
 * carries the last line of the code before it: no code of its own. */
static bool code_row(Dwarf_Line *l, Dwarf_Addr *addr, int *line)
{
    bool end = true;
    return l && dwarf_lineendsequence(l, &end) == 0 && !end && dwarf_lineaddr(l, addr) == 0 &&
           dwarf_lineno(l, line) == 0;
}

static int own_last_line(Dwarf_Die *cu, Dwarf_Die *fn, const char *file);
static Dwarf_Line *first_row_at(Dwarf_Die *cu, Dwarf_Addr pc);
static bool same_file(const char *a, const char *b);

/* The pragma line of an outlined body (clang declares it there; gcc declares none, and its first
 * instruction is on the pragma's line), -1 when it is not in `file`. */
static int body_pragma_line(Dwarf_Die *cu, Dwarf_Die *fn, const char *file)
{
    int line = -1;
    const char *f = dwarf_decl_file(fn);
    Dwarf_Addr lo;
    if (f && dwarf_decl_line(fn, &line) == 0) return same_file(f, file) ? line : -1;
    Dwarf_Line *l = dwarf_lowpc(fn, &lo) == 0 ? first_row_at(cu, lo) : NULL;
    f = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
    return f && same_file(f, file) && dwarf_lineno(l, &line) == 0 ? line : -1;
}

/* Extends *last over the outlined bodies (task bodies, nested regions) whose pragma lies in
 * (first, *last] of `file`, below `die` (gcc nests bodies in their function's DIE). */
static bool extend_by_bodies(Dwarf_Die *cu, Dwarf_Die *die, const char *file, int first, int *last,
                             int depth)
{
    Dwarf_Die child;
    bool changed = false;
    if (depth > 2 || dwarf_child(die, &child) != 0) return false;
    do {
        if (dwarf_tag(&child) != DW_TAG_subprogram) continue;
        if (scal_outlined_name(dwarf_diename(&child))) {
            int at = body_pragma_line(cu, &child, file), l;
            if (at > first && at <= *last && (l = own_last_line(cu, &child, file)) > *last) {
                *last = l;
                changed = true;
            }
        }
        changed |= extend_by_bodies(cu, &child, file, first, last, depth + 1);
    } while (dwarf_siblingof(&child, &child) == 0);
    return changed;
}

/* A construct's last line: the end of its structured block in the source, the same for every
 * compiler (source_block.c). Without the source, the line tables': the last own line of its body
 * (`dwarf_last`), extended over the outlined bodies of constructs inside it. */
static int block_last_line(Dwarf_Die *cu, const char *file, int first, int dwarf_last)
{
    int last = scal_source_block_last_in_file(file, first);
    if (last >= first) return last;
    last = dwarf_last;
    while (last > first && extend_by_bodies(cu, cu, file, first, &last, 0)) {
    }
    return last;
}

/* A row that begins a statement in the code of the function at [lo, hi). Rows that begin none
 * are an instruction of a statement begun elsewhere: gcc on aarch64 gives one to the previous
 * function's last line where a body starts without padding, and to a function inlined into the
 * body just outside the ranges of its copy. */
static bool row_in(Dwarf_Line *l, Dwarf_Addr lo, Dwarf_Addr hi, Dwarf_Addr *addr, int *line)
{
    bool stmt = true;
    return code_row(l, addr, line) && *addr >= lo && *addr < hi &&
           !(dwarf_linebeginstatement(l, &stmt) == 0 && !stmt);
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
            if (!row_in(l, lo, hi, &a, &ln)) continue;
            src = dwarf_linesrc(l, NULL, NULL);
            if (src && !strcmp(src, file) && ln > last) last = ln;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return last;
}

static bool same_file(const char *a, const char *b)
{
    const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
    return !strcmp(a, b) || !strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b);
}

/* The file a DIE is declared in; libdw 0.188 finds none for clang -O0 units, whose functions are
 * then taken to be in the unit's main file. */
static const char *decl_file_of(Dwarf_Die *die, Dwarf_Die *cu)
{
    const char *f = dwarf_decl_file(die);
    return f ? f : dwarf_diename(cu);
}

#define MAX_INLINED_RANGES 512

/* The address ranges of every function inlined (at any depth) into `die`; *call_last: the last
 * line in `file` from which one of them is called (the call is the region's own line). */
static void inlined_ranges(Dwarf_Die *die, Dwarf_Addr (*rg)[2], size_t *n, const char *file,
                           int *call_last)
{
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0) return;
    do {
        /* clang inlines the region's body (".omp_outlined._debug__") into its outlined function:
         * that is the pragma's own code */
        if (dwarf_tag(&child) == DW_TAG_inlined_subroutine &&
            !scal_outlined_name(dwarf_diename(&child))) {
            Dwarf_Attribute attr;
            Dwarf_Word cl = 0;
            Dwarf_Files *files;
            size_t nfiles;
            Dwarf_Word cf = 0;
            Dwarf_Die cu;
            const char *src;
            if (dwarf_formudata(dwarf_attr(&child, DW_AT_call_line, &attr), &cl) == 0 &&
                dwarf_formudata(dwarf_attr(&child, DW_AT_call_file, &attr), &cf) == 0 &&
                dwarf_diecu(&child, &cu, NULL, NULL) &&
                dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 && cf < nfiles &&
                (src = dwarf_filesrc(files, cf, NULL, NULL)) && same_file(src, file) &&
                (int)cl > *call_last)
                *call_last = (int)cl;
            Dwarf_Addr base, lo, hi;
            ptrdiff_t off = 0;
            while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0 &&
                   *n < MAX_INLINED_RANGES) {
                rg[*n][0] = lo;
                rg[*n][1] = hi;
                (*n)++;
            }
            continue; /* its own children are inside its ranges */
        }
        inlined_ranges(&child, rg, n, file, call_last);
    } while (dwarf_siblingof(&child, &child) == 0);
}

/* The last line in `file` of the code of function `fn` itself (not of functions inlined into it).
 */
static int own_last_line(Dwarf_Die *cu, Dwarf_Die *fn, const char *file)
{
    static Dwarf_Addr rg[MAX_INLINED_RANGES][2];
    size_t nrg = 0, nlines;
    Dwarf_Lines *lines;
    Dwarf_Addr lo, hi;
    int last = -1;
    if (dwarf_lowpc(fn, &lo) != 0 || dwarf_highpc(fn, &hi) != 0 ||
        dwarf_getsrclines(cu, &lines, &nlines) != 0)
        return -1;
    inlined_ranges(fn, rg, &nrg, file, &last);
    for (size_t i = 0; i < nlines; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int ln;
        bool inlined = false;
        if (!row_in(l, lo, hi, &a, &ln)) continue;
        for (size_t k = 0; k < nrg && !inlined; k++)
            inlined = a >= rg[k][0] && a < rg[k][1];
        const char *src = dwarf_linesrc(l, NULL, NULL);
        if (!inlined && src && !strcmp(src, file) && ln > last) last = ln;
    }
    return last;
}

/* The last own line of the outlined bodies declared at `line` of `file` (clang -O0 calls the body,
 * ".omp_outlined._debug__", declared on the next line, from the outlined wrapper). */
static int bodies_last_line(Dwarf_Die *cu, const char *file, int line)
{
    Dwarf_Die child;
    int last = -1;
    if (dwarf_child(cu, &child) != 0) return -1;
    do {
        int decl = 0, l;
        const char *df;
        const char *name = dwarf_diename(&child);
        if (dwarf_tag(&child) == DW_TAG_subprogram && scal_outlined_name(name) &&
            dwarf_decl_line(&child, &decl) == 0 &&
            (decl == line || (decl == line + 1 && strstr(name, "_debug__"))) &&
            (df = decl_file_of(&child, cu)) && same_file(df, file) &&
            (l = own_last_line(cu, &child, file)) > last)
            last = l;
    } while (dwarf_siblingof(&child, &child) == 0);
    return last;
}

/* The length of a demangled name without its final parameter list and qualifiers
 * ("main::{lambda()#1}::operator()() const" -> "main::{lambda()#1}::operator()"). */
static size_t without_parameters(const char *d)
{
    size_t n = strlen(d);
    while (n > 0 && d[n - 1] != ')') /* " const", " &", " volatile" */
        n--;
    for (int depth = 0; n-- > 0;) {
        if (d[n] == ')') depth++;
        if (d[n] == '(' && --depth == 0) return n;
    }
    return strlen(d);
}

/* Where the name starts in the first n characters of a demangled name: after the return type a
 * template function's name carries ("void ns::tk<1>" -> "ns::tk<1>"), at the last space outside
 * brackets that does not belong to a conversion operator ("A::operator int"). */
static size_t return_type_end(const char *d, size_t n)
{
    size_t from = 0;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == '<' || d[i] == '(' || d[i] == '{' || d[i] == '[') depth++;
        if ((d[i] == '>' || d[i] == ')' || d[i] == '}' || d[i] == ']') && depth > 0) depth--;
        if (d[i] == ' ' && depth == 0 && !(i >= 8 && !strncmp(d + i - 8, "operator", 8)))
            from = i + 1;
    }
    return from;
}

/* A C++ linkage name demangled without its parameters, with the program's own __cxa_demangle (a
 * C++ program has one; the tool links no C++), or the writer's when the program has one
 * (process_view.h); false when it is none or there is none. */
static bool demangled(const char *linkage, char *out, size_t len)
{
    char *(*demangle)(const char *, char *, size_t *, int *) = scal_view_current()->demangle;
    if (!linkage || !demangle || strncmp(linkage, "_Z", 2) != 0) return false;
    int status = -1;
    char *d = demangle(linkage, NULL, NULL, &status);
    bool ok = d && status == 0;
    if (ok) {
        size_t n = without_parameters(d), from = return_type_end(d, n);
        snprintf(out, len, "%.*s", (int)(n - from), d + from);
    }
    free(d);
    return ok;
}

/* A function's DWARF name qualified by the namespaces and classes its declaration is in
 * ("Solver::step"): the name the demangler gives, without one (a C++ program that does not load
 * libstdc++ has none). */
static void qualified_name(Dwarf_Die *die, char *out, size_t len)
{
    Dwarf_Die decl = *die, next, *scopes = NULL;
    Dwarf_Attribute attr;
    for (int i = 0; i < 4; i++) /* concrete -> abstract -> in-class declaration */
        if (dwarf_formref_die(dwarf_attr(&decl, DW_AT_abstract_origin, &attr), &next) ||
            dwarf_formref_die(dwarf_attr(&decl, DW_AT_specification, &attr), &next))
            decl = next;
    const char *name = dwarf_diename(&decl);
    size_t used = 0;
    int n = dwarf_getscopes_die(&decl, &scopes);
    out[0] = '\0';
    for (int i = n - 1; i >= 1; i--) { /* outermost first; scopes[0] is decl itself */
        int tag = dwarf_tag(&scopes[i]);
        const char *scope = dwarf_diename(&scopes[i]);
        if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
             tag == DW_TAG_union_type) &&
            used < len)
            used += (size_t)snprintf(out + used, len - used,
                                     "%s::", scope ? scope : "(anonymous namespace)");
    }
    free(scopes);
    if (used < len) snprintf(out + used, len - used, "%s", name ? name : "");
}

/* A function's name for people: the demangled linkage name without its parameters (C++), else its
 * DWARF name in its namespaces and classes. */
static void function_name(Dwarf_Die *die, char *out, size_t len)
{
    Dwarf_Attribute attr;
    const char *linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (demangled(linkage, out, len)) return;
    qualified_name(die, out, len);
    if (!out[0] && linkage) snprintf(out, len, "%s", linkage);
}

#define MAX_TIED 16 /* functions declared on one line: template instances, macro expansions */

/* The candidates so far for the function containing a line (all declared on the same, latest line
 * at or before it), with their namespaces. */
struct enclosing {
    Dwarf_Die die[MAX_TIED];
    char scope[MAX_TIED][256]; /* "ns::inner::" */
    int n, line;
};

/* The source functions declared last at or before `line` of `file` below `die` (namespaces
 * included, `scope` naming them), skipping outlined bodies. */
static void declared_before(Dwarf_Die *cu, Dwarf_Die *die, const char *file, int line,
                            const char *scope, struct enclosing *best, int depth)
{
    Dwarf_Die child;
    if (depth > 8 || dwarf_child(die, &child) != 0) return;
    do {
        int decl = 0, tag = dwarf_tag(&child);
        const char *name = dwarf_diename(&child), *df;
        if (tag == DW_TAG_namespace) {
            char inner[256];
            snprintf(inner, sizeof(inner), "%s%s::", scope, name ? name : "(anonymous namespace)");
            declared_before(cu, &child, file, line, inner, best, depth + 1);
        }
        if (tag != DW_TAG_subprogram || !name || scal_outlined_name(name) ||
            dwarf_decl_line(&child, &decl) != 0 || decl > line || decl < best->line ||
            !(df = decl_file_of(&child, cu)) || !same_file(df, file))
            continue;
        if (decl > best->line) best->n = 0;
        best->line = decl;
        if (best->n == MAX_TIED) continue;
        best->die[best->n] = child;
        snprintf(best->scope[best->n++], sizeof(best->scope[0]), "%s", scope);
    } while (dwarf_siblingof(&child, &child) == 0);
}

/* True when code in the DIE's ranges (module-relative, `bias` away from memory) loads `body`. */
static bool ranges_load(Dwarf_Die *die, Dwarf_Addr bias, uint64_t body)
{
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
        if (scal_code_loads(lo + bias, hi + bias, body)) return true;
    return false;
}

/* True when a copy of the function `origin` inlined anywhere below `die` contains pc or loads
 * `body` (a static function inlined into its caller has no code of its own). */
static bool inlined_copy_holds(Dwarf_Die *die, Dwarf_Off origin, Dwarf_Addr bias, Dwarf_Addr pc,
                               uint64_t body, int depth)
{
    Dwarf_Die child, o;
    Dwarf_Attribute attr;
    if (depth > 32 || dwarf_child(die, &child) != 0) return false;
    do {
        if (dwarf_tag(&child) == DW_TAG_inlined_subroutine &&
            dwarf_formref_die(dwarf_attr(&child, DW_AT_abstract_origin, &attr), &o) &&
            dwarf_dieoffset(&o) == origin &&
            ((pc && dwarf_haspc(&child, pc) == 1) || (body && ranges_load(&child, bias, body))))
            return true;
        if (inlined_copy_holds(&child, origin, bias, pc, body, depth + 1)) return true;
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
}

/* True when the function (its own code or a copy inlined somewhere in the unit) contains pc
 * (module-relative) or loads the outlined body (absolute) to hand it to the runtime; or its
 * linkage name is `linkage` (gcc names its bodies after it). */
static bool function_holds(Dwarf_Die *cu, Dwarf_Die *fn, Dwarf_Addr bias, Dwarf_Addr pc,
                           uint64_t body, const char *linkage)
{
    Dwarf_Attribute attr;
    const char *ln = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &attr));
    if (!ln) ln = dwarf_diename(fn); /* C */
    if (linkage && ln && !strcmp(ln, linkage)) return true;
    if ((pc && dwarf_haspc(fn, pc) == 1) || (body && ranges_load(fn, bias, body))) return true;
    return inlined_copy_holds(cu, dwarf_dieoffset(fn), bias, pc, body, 0);
}

/* The source function that contains `line` of `file` in this compile unit: the one declared last
 * at or before it. Line tables place a pragma exactly, while inline information may leave the call
 * into the runtime outside the inlined function's ranges (gcc) and outlined bodies are separate
 * functions. Several functions declared on that line (template instances, a macro's expansion):
 * the one whose code holds pc (module-relative, 0 = none) or loads `body` (absolute, 0 = none), or
 * named `linkage` (NULL = none), else the first. Empty when none is found. */
static void enclosing_function(Dwarf_Die *cu, const char *file, int line, Dwarf_Addr bias,
                               Dwarf_Addr pc, uint64_t body, const char *linkage, char *out,
                               size_t len)
{
    struct enclosing *best = calloc(1, sizeof(*best));
    if (!best) return;
    best->line = -1;
    declared_before(cu, cu, file, line, "", best, 0);
    int pick = 0;
    for (int i = 0; best->n > 1 && i < best->n; i++)
        if (function_holds(cu, &best->die[i], bias, pc, body, linkage)) {
            pick = i;
            break;
        }
    if (best->n > 0) {
        function_name(&best->die[pick], out, len);
        /* without a demangler, the DWARF name in its namespaces */
        if (best->scope[pick][0] && !strstr(out, "::")) {
            char plain[512];
            snprintf(plain, sizeof(plain), "%s", out);
            snprintf(out, len, "%s%s", best->scope[pick], plain);
        }
    }
    free(best);
}

/* The innermost subprogram or inlined subroutine below `die` containing pc. gcc nests its outlined
 * bodies (in lexical blocks) inside the function they come from, outside that function's range,
 * so subprograms and blocks not containing pc are searched too. */
static bool innermost_at(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
    Dwarf_Die child;
    if (depth > 32 || dwarf_child(die, &child) != 0) return false;
    do {
        int tag = dwarf_tag(&child);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine &&
            tag != DW_TAG_lexical_block)
            continue;
        if (tag != DW_TAG_lexical_block && dwarf_haspc(&child, pc) == 1) {
            *out = child;
            innermost_at(&child, pc, out, depth + 1);
            return true;
        }
        if (tag != DW_TAG_inlined_subroutine && innermost_at(&child, pc, out, depth + 1))
            return true;
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
}

/* The innermost source function containing pc (inlined or not); outlined bodies name the
 * function they were outlined from. */
static void innermost_function(Dwarf_Die *cu, Dwarf_Addr pc, const char *file, int line, char *out,
                               size_t len)
{
    Dwarf_Die fn;
    char found[512] = "";
    enclosing_function(cu, file, line, 0, pc, 0, NULL, found, sizeof(found));
    if (found[0]) {
        snprintf(out, len, "%s", found);
        return;
    }
    if (!innermost_at(cu, pc, &fn, 0)) return;
    const char *name = dwarf_diename(&fn);
    const char *gcc = name ? strstr(name, "._omp_fn.") : NULL;
    if (gcc) /* gcc: "<function>._omp_fn.<n>" */
        snprintf(out, len, "%.*s", (int)(gcc - name), name);
    else if (!name || !scal_outlined_name(name))
        function_name(&fn, out, len);
}

/* The compile unit containing pc (module-relative); clang emits no .debug_aranges. */
static bool cu_at(Dwarf *dw, Dwarf_Addr pc, Dwarf_Die *cu)
{
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, pc) == 1) return true;
        off = next;
    }
    return false;
}

/* True when the DIE's code starts at pc: its low pc, or (a function split into hot and cold parts:
 * DW_AT_ranges) the start of one of its ranges. */
static bool starts_at(Dwarf_Die *die, Dwarf_Addr pc)
{
    Dwarf_Addr lo, base, hi;
    ptrdiff_t off = 0;
    if (dwarf_lowpc(die, &lo) == 0) return lo == pc;
    while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
        if (lo == pc) return true;
    return false;
}

/* The subprogram starting at pc: a DIE of the unit, of its namespaces and classes (C++), or, for
 * gcc's outlined bodies, nested in the function they were outlined from (in its lexical blocks). */
static bool subprogram_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
    Dwarf_Die child;
    if (depth > 32 || dwarf_child(parent, &child) != 0) return false;
    do {
        int tag = dwarf_tag(&child);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_lexical_block && tag != DW_TAG_namespace &&
            tag != DW_TAG_class_type && tag != DW_TAG_structure_type)
            continue;
        if (tag == DW_TAG_subprogram && starts_at(&child, pc)) {
            *out = child;
            return true;
        }
        if (subprogram_at(&child, pc, out, depth + 1)) return true;
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
}

static const char *symbol_of(void *ctx, uint64_t addr, uint64_t *start)
{
    Dwfl_Module *m = dwfl_addrmodule((Dwfl *)ctx, addr);
    GElf_Off off;
    GElf_Sym sym;
    const char *name = m ? dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL) : NULL;
    if (name) *start = addr - off;
    return name;
}

/* The size of the symbol starting at addr (0 = unknown). */
static uint64_t symbol_size(struct scal_resolver *r, uint64_t addr)
{
    Dwfl_Module *m = dwfl_addrmodule(r->dwfl, addr);
    GElf_Off off;
    GElf_Sym sym;
    return m && dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL) && off == 0
               ? sym.st_size
               : 0;
}

/* The last line in `file` of the code rows in [lo, lo + size) (module-relative), -1 when none. */
static int rows_last_line(Dwarf_Die *cu, Dwarf_Addr lo, uint64_t size, const char *file)
{
    Dwarf_Lines *lines;
    size_t n;
    int last = -1;
    if (!size || dwarf_getsrclines(cu, &lines, &n) != 0) return -1;
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int ln;
        const char *src;
        if (code_row(l, &a, &ln) && a >= lo && a < lo + size && ln > last &&
            (src = dwarf_linesrc(l, NULL, NULL)) && !strcmp(src, file))
            last = ln;
    }
    return last;
}

/* The first line-table row at pc: where several rows share an address (gcc: the pragma's line,
 * then, at the same address, the first statement of a one-statement body), the pragma's. A row
 * that is no statement's beginning (gcc on aarch64: the previous function's last line, at the
 * address where a body without padding before it starts) only when no statement row is there. */
static Dwarf_Line *first_row_at(Dwarf_Die *cu, Dwarf_Addr pc)
{
    Dwarf_Lines *lines;
    Dwarf_Line *any = NULL;
    size_t n;
    if (dwarf_getsrclines(cu, &lines, &n) != 0) return dwarf_getsrc_die(cu, pc);
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int ln;
        bool stmt = false;
        if (!code_row(l, &a, &ln) || a != pc) continue;
        if (dwarf_linebeginstatement(l, &stmt) == 0 && stmt) return l;
        if (!any) any = l;
    }
    return any ? any : dwarf_getsrc_die(cu, pc);
}

/* Pragma file, lines and function from the outlined body at `outlined` (absolute); false when its
 * DWARF is not there. */
static bool lines_of_outlined(struct scal_resolver *r, uint64_t outlined, const char *fn_hint,
                              struct scal_resolved *out)
{
    Dwfl_Module *mod = dwfl_addrmodule(r->dwfl, outlined);
    Dwarf_Addr bias = 0;
    Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
    Dwarf_Die cu, fn;
    int decl = 0;
    const char *file = NULL;
    if (!dw || !cu_at(dw, outlined - bias, &cu)) return false;
    /* g++ may leave an outlined body of a member function without a concrete DIE: its line rows
     * still place it */
    bool die = subprogram_at(&cu, outlined - bias, &fn, 0);
    if (!die || dwarf_decl_line(&fn, &decl) != 0 || !(file = dwarf_decl_file(&fn))) {
        /* gcc declares no line for "f._omp_fn.N": its first instruction is on the pragma's */
        Dwarf_Line *l = first_row_at(&cu, outlined - bias);
        if (!l || dwarf_lineno(l, &decl) != 0 || !(file = dwarf_linesrc(l, NULL, NULL)))
            return false;
    }
    snprintf(out->file, sizeof(out->file), "%s", file);
    out->line_first = decl;
    out->line_last = die ? own_last_line(&cu, &fn, file)
                         : rows_last_line(&cu, outlined - bias, symbol_size(r, outlined), file);
    if (out->line_last <= decl) out->line_last = bodies_last_line(&cu, file, decl);
    out->line_last = block_last_line(&cu, file, decl, out->line_last);
    if (out->line_last < decl) out->line_last = -1;
    /* the function containing the pragma (a gcc call site may be attributed to the caller): gcc
     * names its bodies after it ("<name>._omp_fn.<n>"); else the source function declared last
     * before the pragma, of several on that line the one whose code loads the body (or, without a
     * demangler, whose linkage name gcc gave the body) */
    char fn_name[512] = "";
    uint64_t start = 0;
    const char *sym = symbol_of(r->dwfl, outlined, &start);
    const char *gcc = sym ? strstr(sym, "._omp_fn.") : NULL;
    char linkage[512];
    if (gcc) snprintf(linkage, sizeof(linkage), "%.*s", (int)(gcc - sym), sym);
    if (gcc && strncmp(linkage, "_Z", 2) != 0)
        snprintf(fn_name, sizeof(fn_name), "%s", linkage); /* C: the function's own name */
    else if (gcc)
        demangled(linkage, fn_name, sizeof(fn_name)); /* C++: lambdas, template instances */
    if (!fn_name[0])
        enclosing_function(&cu, file, decl, bias, 0, outlined, gcc ? linkage : NULL, fn_name,
                           sizeof(fn_name));
    if (fn_name[0] || fn_hint)
        snprintf(out->function, sizeof(out->function), "%s", fn_name[0] ? fn_name : fn_hint);
    return true;
}

/* The name of the source function starting at addr (a tail-calling function). */
static void function_at(struct scal_resolver *r, uint64_t addr, char *out, size_t len)
{
    Dwfl_Module *mod = dwfl_addrmodule(r->dwfl, addr);
    Dwarf_Addr bias = 0;
    Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
    Dwarf_Die cu, fn;
    uint64_t start;
    const char *sym = symbol_of(r->dwfl, addr, &start);
    if (sym) snprintf(out, len, "%s", sym);
    if (dw && cu_at(dw, addr - bias, &cu) && subprogram_at(&cu, addr - bias, &fn, 0))
        function_name(&fn, out, len);
}

static void resolve_lines(struct scal_resolver *r, uint64_t ra, struct scal_resolved *out);

/* A clang task that its function's last statement creates, reached through that function's tail
 * call of __kmpc_omp_task (the runtime reports the caller's return address): the pragma's lines
 * from the jump, the function from the tail-calling function. False when fn has no such jump. */
static bool lines_of_tail_task(struct scal_resolver *r, uint64_t fn, struct scal_resolved *out)
{
    uint64_t jump = scal_tail_task_jump(fn, symbol_of, r->dwfl);
    if (!jump) return false;
    struct scal_resolved at = *out;
    at.file[0] = '\0';
    resolve_lines(r, jump + 1, &at); /* the row of the jump itself (resolve_lines reads ra - 1) */
    if (!at.file[0]) return false;
    snprintf(out->file, sizeof(out->file), "%s", at.file);
    out->line_first = at.line_first;
    out->line_last = at.line_last;
    function_at(r, fn, out->function, sizeof(out->function));
    return true;
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
                out->line_last = block_last_line(&cu, src, ln, outlined_last_line(&cu, src, ln));
                if (out->line_last < ln) out->line_last = -1;
                innermost_function(&cu, pc, src, ln, out->function, sizeof(out->function));
            }
            return;
        }
        off = next;
    }
}

/* The outlined body at `body` has no DWARF: the region is named after the body's symbol (gcc's
 * "<function>._omp_fn.<n>" names its function), else `fn_hint`, and identified by the body's
 * module and offset. One pragma has one body, whatever call sites (unrolled, inlined, through
 * pointers) hand it over: they are one region, and bodies behind one call site stay apart. */
static void locate_body(uint64_t body, struct scal_resolved *out);

static void name_by_body(struct scal_resolver *r, uint64_t body, const char *fn_hint,
                         struct scal_resolved *out)
{
    uint64_t start = 0;
    const char *sym = symbol_of(r->dwfl, body, &start);
    const char *gcc = sym ? strstr(sym, "._omp_fn.") : NULL;
    /* the call site's file and line are not the pragma's */
    out->file[0] = '\0';
    out->line_first = out->line_last = -1;
    snprintf(out->function, sizeof(out->function), "%s", fn_hint ? fn_hint : "");
    if (gcc) {
        char linkage[512];
        snprintf(linkage, sizeof(linkage), "%.*s", (int)(gcc - sym), sym);
        if (!demangled(linkage, out->function, sizeof(out->function)))
            snprintf(out->function, sizeof(out->function), "%s", linkage);
    } /* clang's ".omp_outlined..N" names nothing */
    locate_body(body, out);
}

/* The module, offset and build id of an outlined body (the region's code), for a region whose call
 * site is elsewhere: in its caller (a tail call), maybe in another module. */
static void locate_body(uint64_t body, struct scal_resolved *out)
{
    const char *path = NULL;
    uint64_t base = 0;
    const struct scal_rq_module *m = scal_view_loaded(body, body);
    if (!m) {
        if (!scal_view_noted(body, &path, &base)) return; /* unloaded, and never noted */
        out->offset = body - base; /* unloaded since (dlclose): noted when its node was made */
        snprintf(out->module, sizeof(out->module), "%s", path);
        out->build_id[0] = '\0';
        return;
    }
    out->offset = body - m->base;
    snprintf(out->module, sizeof(out->module), "%s", m->path);
    scal_view_build_id(scal_view_module_at(body), out->build_id, sizeof(out->build_id));
}

/* A parallel region's (or a gcc task's) call site read as code: the outlined body gives the
 * pragma's lines. `body`, when a fork trampoline noted it, is the runtime's own word on the body:
 * it tells apart the bodies behind one call site (a function pointer) that the code cannot. */
static void resolve_parallel(struct scal_resolver *r, uint64_t ra, uint64_t body, bool task,
                             struct scal_resolved *out);

/* The same for a body in a module the program unloaded (dlclose) since: its DWARF read from the
 * file on disk, at the address it had (noted when the region's node was made). */
static void resolve_parallel_unloaded_body(struct scal_resolver *r, uint64_t ra, uint64_t body,
                                           bool task, struct scal_resolved *out)
{
    const char *path = NULL;
    uint64_t base = 0;
    struct scal_resolver offline = {NULL, true, r->rq, r->node};
    if (scal_view_noted(body, &path, &base) && (offline.dwfl = dwfl_begin(&offline_callbacks)) &&
        dwfl_report_elf(offline.dwfl, path, path, -1, base, false) &&
        dwfl_report_end(offline.dwfl, NULL, NULL) == 0) {
        struct scal_resolved call = *out;
        resolve_parallel(r, ra, 0, task, &call); /* how the call site was reached (gomp) */
        out->gomp = call.gomp;
        char fn[sizeof(out->function)];
        snprintf(fn, sizeof(fn), "%s", call.via_tail_call ? "" : call.function);
        if (!lines_of_outlined(&offline, body, fn[0] ? fn : NULL, out))
            name_by_body(&offline, body, fn[0] ? fn : NULL, out);
        locate_body(body, out);
    } else {
        name_by_body(r, body, NULL, out); /* no file: module and offset keep it apart */
    }
    if (offline.dwfl) dwfl_end(offline.dwfl);
}

static void resolve_parallel(struct scal_resolver *r, uint64_t ra, uint64_t body, bool task,
                             struct scal_resolved *out)
{
    /* unloaded, or its addresses taken since by another module (the libraries loaded at the end) */
    if (body && !scal_view_loaded(body, body)) {
        resolve_parallel_unloaded_body(r, ra, body, task, out);
        return;
    }
    uint64_t fn_start = 0, start = 0;
    (void)symbol_of(r->dwfl, ra - 1, &fn_start);
    struct scal_callsite_info c = scal_callsite_classify(ra, fn_start, symbol_of, r->dwfl);
    char fn[sizeof(out->function)];
    /* tasks: only gcc's GOMP_task hands over an outlined body (clang's task entry is given to
     * __kmpc_omp_task_alloc earlier, and its call site's line is the pragma's, unless the task's
     * function tail-called the runtime) */
    if (task && c.kind == SCAL_CALL_TAIL && !c.outlined &&
        lines_of_tail_task(r, c.tail_caller, out))
        return;
    if (task && c.kind != SCAL_CALL_FORK && !(c.kind == SCAL_CALL_TAIL && c.outlined)) return;
    uint64_t outlined = body ? body : c.outlined;
    const char *body_sym = body ? symbol_of(r->dwfl, body, &start) : NULL;
    out->gomp = c.gomp || (body_sym && strstr(body_sym, "._omp_fn."));
    if (!outlined) {
        out->via_tail_call = c.kind == SCAL_CALL_TAIL || c.kind == SCAL_CALL_INDIRECT;
        return;
    }
    if (c.kind == SCAL_CALL_FORK)
        snprintf(fn, sizeof(fn), "%s", out->function);
    else if (c.kind == SCAL_CALL_TAIL)
        function_at(r, c.tail_caller, fn, sizeof(fn));
    else
        fn[0] = '\0'; /* through a pointer: only the body knows its function */
    if (!lines_of_outlined(r, outlined, fn[0] ? fn : NULL, out))
        name_by_body(r, outlined, fn[0] ? fn : NULL, out);
    else if (c.kind != SCAL_CALL_FORK)
        locate_body(outlined, out);
}

/* A region of a module the program unloaded (dlclose) before exit: named from the module noted
 * when the region's node was created, its lines read from the file on disk (its code is no longer
 * mapped, so the call site is not read as code: the line is the call's, the pragma's for clang). */
static int resolve_unloaded(struct scal_resolver *r, uint64_t ra, struct scal_resolved *out)
{
    const char *path = NULL;
    uint64_t base = 0;
    if (!scal_view_noted(ra, &path, &base))
        return scal__fail(SCAL_ENOENT, "address %#llx is in no loaded module",
                          (unsigned long long)ra);
    snprintf(out->module, sizeof(out->module), "%s", path);
    out->offset = ra - base;
    if (!r->lines) return SCAL_OK;
    /* its own session: another module may be mapped at its addresses by now */
    struct scal_resolver offline = {dwfl_begin(&offline_callbacks), true, r->rq, r->node};
    if (!offline.dwfl) return SCAL_OK;
    if (dwfl_report_elf(offline.dwfl, path, path, -1, base, false) &&
        dwfl_report_end(offline.dwfl, NULL, NULL) == 0)
        resolve_lines(&offline, ra, out);
    dwfl_end(offline.dwfl);
    return SCAL_OK;
}

/* A node's identity: 0, or a negative status when its call site is in no module, loaded or noted.
 * Fields it could not find are left empty / -1. */
static int resolve_node(struct scal_resolver *r, const struct scal_rq_node *n,
                        struct scal_resolved *out)
{
    uint64_t ra = n->ra, body = n->body;
    memset(out, 0, sizeof(*out));
    out->line_first = out->line_last = -1;
    r->node = n;
    /* unloaded, or unloaded and its addresses reused since (by the writer's own libraries, say) */
    const struct scal_rq_module *m = scal_view_loaded(ra - 1, ra);
    if (!m) return resolve_unloaded(r, ra, out);
    snprintf(out->module, sizeof(out->module), "%s", m->path);
    out->offset = ra - m->base; /* module-relative, also right for non-PIE executables */
    snprintf(out->function, sizeof(out->function), "%s", n->symbol);
    scal_view_build_id(scal_view_module_at(ra - 1), out->build_id, sizeof(out->build_id));
    if (r->dwfl) {
        resolve_lines(r, ra, out);
        if (n->kind == SCAL_KIND_PARALLEL || n->kind == SCAL_KIND_TASK)
            resolve_parallel(r, ra, body, n->kind == SCAL_KIND_TASK, out);
    }
    return SCAL_OK;
}

int scal_resolve_request(struct scal_view *v, struct scal_bytes *answers)
{
    struct scal_resolved *res = malloc(sizeof(*res));
    scal_view_use(v);
    struct scal_resolver *r = res ? resolver_open(v->rq) : NULL;
    if (!r) {
        free(res);
        scal_view_use(NULL);
        return scal__fail(SCAL_ENOMEM, "out of memory resolving region identities");
    }
    scal_rq_put_answers_header(answers, v->rq->nnodes);
    for (uint32_t i = 0; i < v->rq->nnodes; i++) {
        int rc = resolve_node(r, &v->rq->nodes[i], res);
        scal_rq_put_answer(answers, rc, res);
    }
    resolver_close(r);
    free(res);
    scal_view_use(NULL);
    return answers->failed ? scal__fail(SCAL_ENOMEM, "out of memory answering a resolution request")
                           : SCAL_OK;
}
