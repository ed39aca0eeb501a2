/* SPDX-License-Identifier: BSD-3-Clause */
/* The outlined body of each fork, as the program hands it to the runtime (x86-64 and aarch64 ELF).
 *
 * A region reached through a tail call (`jmp __kmpc_fork_call`) reports its caller's return
 * address, so different bodies behind one function-pointer call site would share a node. The tool
 * therefore points the program's GOT slots of the runtime's fork entries (clang's __kmpc_fork_*,
 * gcc's GOMP_parallel*) at small trampolines (fork_trampolines*.S) that note, per thread, the body
 * and the return address, then jump to the runtime's entry unchanged. parallel_begin takes the note
 * when its call site matches. A fork that did not pass a trampoline (before the tool started, or in
 * a module loaded later and not yet seen) has no note. */
#ifndef SCAL_FORK_HOOK_H
#define SCAL_FORK_HOOK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* What the last fork call on this thread handed over (written by the trampolines). */
struct scal_fork_note {
    uint64_t body; /* the outlined function */
    uint64_t ra;   /* the return address of the call into the runtime, 0 = taken */
};
extern _Thread_local struct scal_fork_note scal_fork_last
    __attribute__((tls_model("initial-exec")));

/* The body of the fork whose parallel_begin reports call site `ra` (or, for call sites the tool
 * replaced, `ra_alt`), 0 when no trampoline saw it. Takes the note. */
static inline uint64_t scal_fork_body_take(const void *ra, const void *ra_alt)
{
    struct scal_fork_note *n = &scal_fork_last;
    if (!n->ra || (n->ra != (uint64_t)(uintptr_t)ra && n->ra != (uint64_t)(uintptr_t)ra_alt))
        return 0;
    n->ra = 0;
    return n->body;
}

/* Points the GOT slots of every loaded object (but the runtime's and the tool's) that import a fork
 * entry at its trampoline. `runtime_fn`: any function of the OpenMP runtime measured (finds its
 * entries), NULL = the global scope's. Idempotent; returns the number of slots changed. Not for
 * callbacks (asks the dynamic loader). */
int scal_fork_hooks_install(const void *runtime_fn);
/* A fork passed no trampoline (a module loaded since the last installation, or the first fork):
 * set in callbacks, where the dynamic loader must not be asked; scal_fork_hooks_refresh installs
 * at the next point where the thread is in no team. */
extern _Atomic bool scal_fork_hooks_wanted;
static inline void scal_fork_hooks_want(void)
{
    atomic_store_explicit(&scal_fork_hooks_wanted, true, memory_order_relaxed);
}
void scal_fork_hooks_refresh(void);
/* The runtime entry a trampoline stands for ("__kmpc_fork_call"), NULL when addr is none. */
const char *scal_fork_hook_entry(uint64_t addr);

#endif
