/* SPDX-License-Identifier: BSD-3-Clause */
/* The identity cache (identity_cache.c): what resolve.c found for a region node, kept on disk per
 * module (by build id) so that later runs of the same binary skip DWARF. libscal_ompt_writer.so
 * only; free of libdw. */
#ifndef SCAL_IDENTITY_CACHE_H
#define SCAL_IDENTITY_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scal_resolved;

/* The GNU build id (hex) of the loaded module containing addr; "" (and false) when it has none. */
bool scal_build_id_of(uint64_t addr, char *out, size_t len);

struct scal_idcache;
/* A cache in directory `dir` (created when missing: one level, or with make_parents the two above
 * it too, as the user's default cache needs); NULL when dir is NULL or "" or cannot be used.
 * Nothing is read before the first lookup. */
struct scal_idcache *scal_idcache_open(const char *dir, bool make_parents);
/* The cached resolution of (ra, body, kind) into *out: 1 on a hit, 0 on a miss (then give the
 * resolution to scal_idcache_store), -1 when the node cannot be cached (a module unloaded since,
 * no cache). */
int scal_idcache_lookup(struct scal_idcache *c, uint64_t ra, uint64_t body, int kind,
                        struct scal_resolved *out);
/* Records the resolution of a node a lookup missed. */
void scal_idcache_store(struct scal_idcache *c, uint64_t ra, uint64_t body, int kind,
                        const struct scal_resolved *res);
/* Writes the module files that gained or lost records (each a new complete file renamed over the
 * old one) and frees the cache. */
void scal_idcache_close(struct scal_idcache *c);

#endif
