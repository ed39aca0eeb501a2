// SPDX-License-Identifier: BSD-3-Clause
// Pointing the program's GOT slots of the runtime's fork entries at the trampolines of
// fork_trampolines.S (x86-64) or fork_trampolines_aarch64.S (see fork_hook.h for why).
//
// Each loaded object's dynamic section lists its relocations: a JUMP_SLOT (a call through the PLT)
// or GLOB_DAT (-fno-plt: call *GOT) relocation naming a fork entry gives the slot to change. A slot
// in the object's RELRO segment (made read-only after relocation, as -z now does for every slot) is
// made writable for the one aligned 8-byte store and read-only again. A slot still unbound (lazy
// binding) simply never reaches the dynamic loader. The runtime's own object and the tool's are
// left alone. Runs at tool start (inside the program's first fork, which therefore passes no
// trampoline), from the library constructor when the tool is preloaded (LD_PRELOAD: before main, so
// the first fork passes one too), and when a region shows up in a module loaded since.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fork_hook.h"
#include "loaded_object.h"

_Thread_local struct scal_fork_note scal_fork_last __attribute__((tls_model("initial-exec")));

#if (defined(__x86_64__) || defined(__aarch64__)) && defined(__ELF__)

/* The order of fork_trampolines*.S. */
static const char *const entries[] = {
    "__kmpc_fork_call",
    "__kmpc_fork_teams",
    "GOMP_parallel",
    "GOMP_parallel_loop_static",
    "GOMP_parallel_loop_dynamic",
    "GOMP_parallel_loop_guided",
    "GOMP_parallel_loop_runtime",
    "GOMP_parallel_loop_nonmonotonic_dynamic",
    "GOMP_parallel_loop_nonmonotonic_guided",
    "GOMP_parallel_loop_nonmonotonic_runtime",
    "GOMP_parallel_loop_maybe_nonmonotonic_runtime",
    "GOMP_parallel_sections",
    "GOMP_parallel_reductions",
    "__kmpc_fork_call_if", /* LLVM 17 and later: parallel if(...) */
};
#define NENTRIES (sizeof(entries) / sizeof(entries[0]))

/* Where each trampoline jumps (read by fork_trampolines.S): set before any slot points at it. */
uintptr_t scal_fork_real[NENTRIES];

void scal_fork_trampoline_0(void), scal_fork_trampoline_1(void), scal_fork_trampoline_2(void),
    scal_fork_trampoline_3(void), scal_fork_trampoline_4(void), scal_fork_trampoline_5(void),
    scal_fork_trampoline_6(void), scal_fork_trampoline_7(void), scal_fork_trampoline_8(void),
    scal_fork_trampoline_9(void), scal_fork_trampoline_10(void), scal_fork_trampoline_11(void),
    scal_fork_trampoline_12(void), scal_fork_trampoline_13(void);
static void (*const trampolines[NENTRIES])(void) = {
    scal_fork_trampoline_0,  scal_fork_trampoline_1,  scal_fork_trampoline_2,
    scal_fork_trampoline_3,  scal_fork_trampoline_4,  scal_fork_trampoline_5,
    scal_fork_trampoline_6,  scal_fork_trampoline_7,  scal_fork_trampoline_8,
    scal_fork_trampoline_9,  scal_fork_trampoline_10, scal_fork_trampoline_11,
    scal_fork_trampoline_12, scal_fork_trampoline_13,
};

static int entry_index(const char *name)
{
    if (strncmp(name, "__kmpc_fork_", 12) != 0 && strncmp(name, "GOMP_", 5) != 0) return -1;
    for (size_t i = 0; i < NENTRIES; i++)
        if (!strcmp(name, entries[i])) return (int)i;
    return -1;
}

const char *scal_fork_hook_entry(uint64_t addr)
{
    for (size_t i = 0; i < NENTRIES; i++)
        if ((uint64_t)(uintptr_t)trampolines[i] == addr) return entries[i];
    return NULL;
}

/* True when addr lies in one of the object's loaded segments. */
static bool in_object(const struct dl_phdr_info *info, uintptr_t addr)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && addr >= lo && addr < lo + ph->p_memsz) return true;
    }
    return false;
}

struct install {
    uintptr_t runtime; /* an address in the runtime's object */
    int changed;
};

/* The dynamic loader makes the whole pages of the RELRO segment read-only (a page the segment
 * only partly covers at its end stays writable); a slot there is changed between two mprotect. */
static void set_slot(const struct dl_phdr_info *info, uintptr_t slot, uintptr_t value)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), relro_lo = 0, relro_hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            relro_lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            relro_hi = (relro_lo + info->dlpi_phdr[i].p_memsz) & ~(page - 1);
            relro_lo &= ~(page - 1);
        }
    if (slot < relro_lo || slot >= relro_hi) {
        __atomic_store_n((uintptr_t *)slot, value, __ATOMIC_RELEASE);
        return;
    }
    void *lo = (void *)(slot & ~(page - 1));
    if (mprotect(lo, page, PROT_READ | PROT_WRITE) != 0) return; /* left as it was */
    __atomic_store_n((uintptr_t *)slot, value, __ATOMIC_RELEASE);
    mprotect(lo, page, PROT_READ);
}

/* The runtime's own definition of an entry in `scope`: a symbol of that name defined at that
 * address. A non-PIE executable that takes an entry's address gets a "canonical PLT" entry, which
 * dlsym returns and which jumps through the very slot the tool changes: never a target. Only an
 * executable has such entries, so an address in a shared object is taken as it is (asking dladdr
 * there scans the runtime's whole symbol table, ~10 us a call). */
static uintptr_t runtime_entry(void *scope, const char *name)
{
    Dl_info di;
    const ElfW(Sym) *sym = NULL;
    void *p = dlsym(scope, name);
    struct scal_loaded_object o;
    if (p && scal_loaded_object_at((uintptr_t)p, &o) && !o.is_program) return (uintptr_t)p;
    if (!p || !dladdr1(p, &di, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
        sym->st_shndx == SHN_UNDEF || di.dli_saddr != p || !di.dli_sname ||
        strcmp(di.dli_sname, name) != 0)
        return 0;
    return (uintptr_t)p;
}

/* True when a slot holding `now` reaches (or, not bound yet, will reach) the runtime's entry e.
 * Another library that wraps the entry (a tool preloaded before the runtime) keeps its calls: the
 * slot is left as it is, and those forks note no body. */
static bool bound_to_runtime(const struct dl_phdr_info *info, uintptr_t now, int e)
{
    if (now == scal_fork_real[e]) return true;
    if (!in_object(info, now)) return false; /* bound to someone else's definition */
    /* lazy binding: the slot still points into the object's own PLT, and the loader will bind it
     * to the global scope's definition (none valid: a canonical PLT entry, which leads back here)
     */
    uintptr_t global = runtime_entry(RTLD_DEFAULT, entries[e]);
    return !global || global == scal_fork_real[e];
}

struct patching {
    const struct dl_phdr_info *info;
    struct install *in;
};

/* A slot of the object's (scal_loaded_slots) that names a fork entry: pointed at its trampoline. */
static int patch_slot(uintptr_t slot, const char *name, void *data)
{
    struct patching *p = data;
    int e = entry_index(name);
    if (e < 0 || !scal_fork_real[e]) return 0;
    uintptr_t want = (uintptr_t)trampolines[e];
    uintptr_t now = __atomic_load_n((uintptr_t *)slot, __ATOMIC_RELAXED);
    if (now == want || !bound_to_runtime(p->info, now, e)) return 0;
    set_slot(p->info, slot, want);
    if (__atomic_load_n((uintptr_t *)slot, __ATOMIC_RELAXED) == want) p->in->changed++;
    return 0;
}

/* Objects already patched (by base address), forgotten when any object was unloaded since: later
 * passes (initialize after the constructor, a new module) only read the program headers. */
#define MAX_DONE 1024
static uintptr_t done[MAX_DONE];
static unsigned ndone;
static unsigned long long done_subs;

static bool already_done(const struct dl_phdr_info *info, size_t size)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs) &&
        info->dlpi_subs != done_subs) {
        ndone = 0;
        done_subs = info->dlpi_subs;
    }
    for (unsigned i = 0; i < ndone; i++)
        if (done[i] == info->dlpi_addr) return true;
    if (ndone < MAX_DONE) done[ndone++] = info->dlpi_addr;
    return false;
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct install *in = data;
    if (already_done(info, size) || in_object(info, in->runtime) ||
        in_object(info, (uintptr_t)&patch_object))
        return 0;
    struct patching p = {info, in};
    scal_loaded_slots(info, patch_slot, &p);
    return 0;
}

/* The handle of the loaded object holding addr (NULL: none). A shared object is named by the
 * loader's list; the program (the runtime linked into it) by dladdr, whose symbol scan is cheap
 * there. */
static void *object_handle(uintptr_t addr)
{
    Dl_info di;
    struct scal_loaded_object o;
    if (!scal_loaded_object_at(addr, &o)) return NULL;
    if (!o.is_program) return o.name[0] ? dlopen(o.name, RTLD_NOW | RTLD_NOLOAD) : NULL;
    return dladdr((void *)addr, &di) && di.dli_fname ? dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD)
                                                     : NULL;
}

/* The runtime's object, found by a symbol only it defines (a program may take the address of one
 * of them, which the check in runtime_entry sees through); NULL when none is loaded yet. */
static void *runtime_scope(void)
{
    static const char *const anchors[] = {"__kmpc_global_thread_num", "__kmpc_fork_call",
                                          "GOMP_parallel", "omp_get_thread_num"};
    for (size_t i = 0; i < sizeof(anchors) / sizeof(anchors[0]); i++) {
        uintptr_t p = runtime_entry(RTLD_DEFAULT, anchors[i]);
        if (p) return object_handle(p);
    }
    return NULL;
}

/* The installing thread's process (a child forked during an installation starts free). */
static _Atomic pid_t installer;
_Atomic bool scal_fork_hooks_wanted;

int scal_fork_hooks_install(const void *runtime_fn)
{
    static void *scope; /* the measured runtime's handle, once known */
    struct install in = {0, 0};
    pid_t self = getpid(), busy = 0;
    if (!atomic_compare_exchange_strong(&installer, &busy, self) &&
        (busy == self || !atomic_compare_exchange_strong(&installer, &busy, self))) {
        atomic_store(&scal_fork_hooks_wanted, true); /* another thread is at it: again later */
        return 0;
    }
    if (runtime_fn && !scope)
        scope = object_handle((uintptr_t)runtime_fn); /* kept: the runtime stays anyway */
    if (!scope) scope = runtime_scope();
    bool more = false;
    for (size_t i = 0; i < NENTRIES; i++) {
        uintptr_t real =
            scal_fork_real[i] ? 0 : runtime_entry(scope ? scope : RTLD_DEFAULT, entries[i]);
        if (real) { /* once set, never changed: a trampoline may be running */
            __atomic_store_n(&scal_fork_real[i], real, __ATOMIC_RELEASE);
            more = true;
        }
        if (!in.runtime && scal_fork_real[i]) in.runtime = scal_fork_real[i];
    }
    if (more) ndone = 0; /* objects seen before may import an entry known only now */
    if (in.runtime) dl_iterate_phdr(patch_object, &in);
    atomic_store(&installer, 0);
    return in.changed;
}

void scal_fork_hooks_refresh(void)
{
    if (atomic_load_explicit(&scal_fork_hooks_wanted, memory_order_relaxed) &&
        atomic_exchange(&scal_fork_hooks_wanted, false))
        scal_fork_hooks_install(NULL);
}

#else /* no trampolines on this architecture: no notes, tail-called bodies labelled as such */

_Atomic bool scal_fork_hooks_wanted;

int scal_fork_hooks_install(const void *runtime_fn)
{
    (void)runtime_fn;
    return 0;
}

void scal_fork_hooks_refresh(void) {}

const char *scal_fork_hook_entry(uint64_t addr)
{
    (void)addr;
    return NULL;
}

#endif
