/* SPDX-License-Identifier: BSD-3-Clause */
/* The measured process as the resolver (resolve.c, outlined.c) sees it: a decoded request
 * (resolve_request.h), whatever process the resolver runs in. The modules' code is read at the
 * addresses it has in the measured process: there, the process's own memory; in the writer
 * process, the module files mapped at those addresses when first read (process_mirror.c). */
#ifndef SCAL_PROCESS_VIEW_H
#define SCAL_PROCESS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resolve_request.h"

struct scal_view {
    const struct scal_rq *rq;
    /* makes [lo, hi) of segment s of module m readable at its address: true when it is (in the
     * measured process it always is; in the writer process the file is mapped there) */
    bool (*make_readable)(struct scal_view *v, const struct scal_rq_module *m,
                          const struct scal_rq_segment *s);
    /* reads the word at `at` of the measured process's memory, which the request does not carry:
     * there, the process's own; NULL in the writer process */
    bool (*read_word)(struct scal_view *v, uint64_t at, uint64_t *value);
    /* the program's C++ demangler, when it has one (NULL: names stay as DWARF gives them) */
    char *(*demangle)(const char *mangled, char *out, size_t *len, int *status);
    bool incomplete; /* code that was to be read could not be made readable */
    void *backend;   /* the make_readable's own state */
};

/* The view the resolver works on (set for the time of one request). */
void scal_view_use(struct scal_view *v);
struct scal_view *scal_view_current(void);

/* The module with a loaded segment holding addr, or NULL. */
const struct scal_rq_module *scal_view_module_at(uint64_t addr);
/* The module the tool noted as holding addr (path and load base), also once unloaded (tool.h's
 * scal_module_of, on the view). */
bool scal_view_noted(uint64_t addr, const char **path, uint64_t *base);
/* The loaded module holding addr, provided it is the one noted for noted_addr when a region's
 * node was made: NULL when that module was unloaded since, or another took its addresses (tool.h's
 * scal_module_loaded, on the view). */
const struct scal_rq_module *scal_view_loaded(uint64_t addr, uint64_t noted_addr);
/* True when [lo, hi) lies in one module, on the pages its segments' file bytes are mapped on, and
 * can be read at its addresses. */
bool scal_view_readable(uint64_t lo, uint64_t hi);
/* The GOT slot at `slot` (a slot that a relocation binds by name), or NULL. */
const struct scal_rq_slot *scal_view_slot(uint64_t slot);
/* The word at `at` in a module's loaded segment: a GOT slot's bound value, else the process's
 * memory where the view has it (a table of function pointers); in the writer process such a word
 * makes the view incomplete. */
bool scal_view_word(uint64_t at, uint64_t *value);
/* The fork entry whose trampoline the tool put at `value` in a slot, or NULL. */
const char *scal_view_hooked(uint64_t value);
/* The module's GNU build ID in hex ("" when it has none). */
void scal_view_build_id(const struct scal_rq_module *m, char *out, size_t len);

#endif
