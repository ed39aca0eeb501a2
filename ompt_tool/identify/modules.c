// SPDX-License-Identifier: BSD-3-Clause
// The modules (executable, shared objects) that region code lives in, remembered while they are
// loaded, so that regions of a library the program dlclose()s before it ends are still resolved at
// exit (from the file on disk) instead of being "in no loaded module".
//
// Asking the dynamic loader (dladdr) takes its lock, which a callback must never wait for: a
// thread holding it (dlopen running a constructor with a parallel region) can be waiting for the
// very thread in the callback (a member of that region). So a new node's address only goes into a
// small queue (scal_module_note, under the node table's insertion lock: one producer at a time,
// lock-free, no allocation), and the initial thread asks the loader about queued addresses at its
// top-level region boundaries, where it is in no team (scal_modules_refresh; a library region
// dlclose()d before the initial thread's next top-level boundary stays unresolved), and at flush.
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loaded_object.h"
#include "tool.h"

#define MAX_MODULES 256

struct module {
    uintptr_t lo, hi, base;
    char path[1024];
};
static struct module modules[MAX_MODULES];
static _Atomic uint32_t nmodules;

#define QUEUE 64 /* a power of two */
static _Atomic uint64_t queue[QUEUE];
static _Atomic uint32_t queued; /* written by scal_module_note only */
static uint32_t taken;          /* read by scal_modules_refresh only (the initial thread) */

static bool known(uint64_t addr)
{
    uint32_t n = atomic_load_explicit(&nmodules, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++)
        if (addr > modules[i].lo && addr <= modules[i].hi) return true;
    return false;
}

void scal_module_note(uint64_t addr)
{
    if (addr == 0 || known(addr)) return;
    uint32_t q = atomic_load_explicit(&queued, memory_order_relaxed);
    atomic_store_explicit(&queue[q & (QUEUE - 1)], addr, memory_order_relaxed);
    atomic_store_explicit(&queued, q + 1, memory_order_release);
}

static void add_module(uint64_t addr)
{
    uint32_t n = atomic_load_explicit(&nmodules, memory_order_relaxed);
    if (n >= MAX_MODULES || known(addr)) return;
    struct scal_loaded_object o;
    if (!scal_loaded_object_at((uintptr_t)(addr - 1), &o) || o.hi <= o.lo) return;
    struct module *m = &modules[n];
    m->lo = o.lo;
    m->hi = o.hi;
    m->base = o.base;
    snprintf(m->path, sizeof(m->path), "%s", o.name[0] ? o.name : scal_executable_path());
    atomic_store_explicit(&nmodules, n + 1, memory_order_release);
}

void scal_modules_refresh(void)
{
    uint32_t q = atomic_load_explicit(&queued, memory_order_acquire);
    if (q - taken > QUEUE) taken = q - QUEUE; /* overrun: the oldest addresses are lost */
    for (; taken != q; taken++)
        add_module(atomic_load_explicit(&queue[taken & (QUEUE - 1)], memory_order_relaxed));
}

bool scal_module_noted(uint32_t i, uint64_t *lo, uint64_t *hi, uint64_t *base, const char **path)
{
    if (i >= atomic_load_explicit(&nmodules, memory_order_acquire)) return false;
    *lo = modules[i].lo;
    *hi = modules[i].hi;
    *base = modules[i].base;
    *path = modules[i].path;
    return true;
}

bool scal_module_of(uint64_t addr, const char **path, uint64_t *base)
{
    uint32_t n = atomic_load_explicit(&nmodules, memory_order_acquire);
    for (uint32_t i = n; i-- > 0;) /* the latest module noted at an address wins */
        if (addr > modules[i].lo && addr <= modules[i].hi) {
            *path = modules[i].path;
            *base = modules[i].base;
            return true;
        }
    return false;
}
