// SPDX-License-Identifier: BSD-3-Clause
// What the dynamic loader's list of objects and their program headers say about a loaded object:
// which one holds an address (dladdr would also scan the object's whole symbol table for the
// nearest symbol, ~10 us in libomp, at every process start), its segments' span and its build ID
// note. Compiled into the tool, the writer's and the resolver's libraries.
#ifndef SCAL_LOADED_OBJECT_H
#define SCAL_LOADED_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct dl_phdr_info;

struct scal_loaded_object {
    bool is_program;            /* the executable (the loader lists it first) */
    const char *name;           /* the loader's name for it ("" for the executable) */
    uintptr_t base;             /* its load bias */
    uintptr_t lo, hi;           /* the span of its loaded segments (hi 0: none) */
    uintptr_t text_lo, text_hi; /* the span of its executable segments */
};

/* Fills *out for the object with a loaded segment holding addr; false when none does. */
bool scal_loaded_object_at(uintptr_t addr, struct scal_loaded_object *out);
/* Fills *out for the object dl_iterate_phdr reports as info. */
void scal_loaded_object_of(const struct dl_phdr_info *info, bool is_program,
                           struct scal_loaded_object *out);
/* The object's GNU build ID, from its loaded note segment: its bytes (*len of them), or NULL. */
const unsigned char *scal_loaded_build_id(const struct dl_phdr_info *info, size_t *len);
/* Calls fn(slot, name, data) for each of the object's GOT slots that a relocation binds to a
 * function by name (JUMP_SLOT: a call through the PLT; GLOB_DAT: -fno-plt's call *GOT), read from
 * its loaded dynamic section: the slot's address and the symbol's name. fn returns nonzero to stop.
 * Objects without a dynamic section (the vDSO included) have none. */
void scal_loaded_slots(const struct dl_phdr_info *info,
                       int (*fn)(uintptr_t slot, const char *name, void *data), void *data);
/* Whether the module loaded at `base`, named `name` by the loader ("" for the executable), is still
 * the one the tool noted (modules.c) at noted_base as noted_path when a region's node was made: the
 * one rule of module_loaded.c (the live process) and process_view.c (a resolution request). */
static inline bool scal_module_still_noted(uint64_t base, const char *name, uint64_t noted_base,
                                           const char *noted_path)
{
    return base == noted_base && (!name || !name[0] || strcmp(name, noted_path) == 0);
}
/* The executable's path (the loader names it ""), read from /proc/self/exe once per library (the
 * process's first read of it costs ~20 us here, later ones ~2 us); "" when it cannot be read. */
const char *scal_executable_path(void);

#endif
