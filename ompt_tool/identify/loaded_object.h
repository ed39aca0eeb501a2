// SPDX-License-Identifier: BSD-3-Clause
// Which loaded object holds an address, from the dynamic loader's list of objects and their
// program headers: dladdr would also scan the object's whole symbol table for the nearest symbol
// (~10 us in libomp, at every process start).
#ifndef SCAL_LOADED_OBJECT_H
#define SCAL_LOADED_OBJECT_H

#include <stdbool.h>
#include <stdint.h>

struct scal_loaded_object {
    bool is_program;            /* the executable (the loader lists it first) */
    const char *name;           /* the loader's name for it ("" for the executable) */
    uintptr_t base;             /* its load bias */
    uintptr_t text_lo, text_hi; /* the span of its executable segments */
};

/* Fills *out for the object with a loaded segment holding addr; false when none does. */
bool scal_loaded_object_at(uintptr_t addr, struct scal_loaded_object *out);

#endif
