/* SPDX-License-Identifier: BSD-3-Clause */
/* The boundary between libscal_ompt_writer.so and libscal_ompt_resolve.so, the library that reads
 * DWARF (libdw: resolve.c, outlined.c, source_block.c). The writer loads it at the first region
 * identity its identity cache does not have (resolve_link.c): a run whose identities all hit never
 * maps libdw. The resolver reaches the writer (and through it the tool) only through the host
 * table given here. */
#ifndef SCAL_RESOLVE_LINK_H
#define SCAL_RESOLVE_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCAL_RESOLVE_LIBRARY "libscal_ompt_resolve.so"
#define SCAL_RESOLVE_ENTRY "scal_resolve_library"

struct scal_resolved;
struct scal_resolver;

/* What the resolver needs of the writer and the tool. */
struct scal_resolve_host {
    size_t struct_size;
    bool (*module_of)(uint64_t addr, const char **path, uint64_t *base);
    bool (*build_id_of)(uint64_t addr, char *out, size_t len);
    const char *(*fork_hook_entry)(uint64_t addr);
};

/* scal_resolver_open, scal_resolve and scal_resolver_close of tool.h, in the resolver. */
struct scal_resolve_api {
    size_t struct_size;
    struct scal_resolver *(*open)(bool lines);
    int (*resolve)(struct scal_resolver *r, uint64_t ra, uint64_t body, int kind,
                   struct scal_resolved *out);
    void (*close)(struct scal_resolver *r);
};

/* The entry point (SCAL_RESOLVE_ENTRY): NULL when the host table is too small. */
typedef const struct scal_resolve_api *(*scal_resolve_library_fn)(
    const struct scal_resolve_host *host);

#endif
