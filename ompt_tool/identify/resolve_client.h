/* SPDX-License-Identifier: BSD-3-Clause */
/* Resolving the region identities the identity cache missed (resolve_client.c, in the writer
 * library): one request (resolve_request.h) for all of them, answered by the writer process
 * started with the tool (libdw linked into it: the measured process loads none of it), else by
 * libscal_ompt_resolve.so in this process. */
#ifndef SCAL_RESOLVE_CLIENT_H
#define SCAL_RESOLVE_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

struct scal_resolved;

struct scal_unresolved {
    uint64_t ra, body;
    int kind;
};

/* Calls each(i, status, resolution, data) for each of the n nodes, in order: status 0 or negative
 * (its module unknown, or the resolver missing: then named by address). lines: read DWARF (without,
 * SCAL_RESOLVE=0, the writer process names the regions by module and offset all the same).
 * *by_writer: whether the writer process answered. SCAL_OK, or SCAL_ENOMEM. */
int scal_resolve_nodes(const struct scal_unresolved *nodes, uint32_t n, bool lines,
                       void (*each)(uint32_t i, int status, const struct scal_resolved *r,
                                    void *data),
                       void *data, bool *by_writer);

#endif
