/* SPDX-License-Identifier: BSD-3-Clause */
/* The boundary between libscal_ompt_writer.so and libscal_ompt_resolve.so, the library that reads
 * DWARF (libdw: resolve.c, outlined.c, source_block.c) in the measured process when no writer
 * process resolves (resolve_client.c). The writer loads it at the first region identity that
 * neither the identity cache nor the writer process gives: a run whose identities all hit never
 * maps libdw. The two exchange only bytes (resolve_request.h). */
#ifndef SCAL_RESOLVE_LINK_H
#define SCAL_RESOLVE_LINK_H

#include <stddef.h>

#define SCAL_RESOLVE_LIBRARY "libscal_ompt_resolve.so"
#define SCAL_RESOLVE_ENTRY "scal_resolve_library"

struct scal_resolve_api {
    size_t struct_size;
    /* Resolves a request in this process: SCAL_OK and the answers in *answers (malloc'd,
     * *answers_len bytes), or a negative status and its message in why. */
    int (*resolve)(const void *request, size_t len, void **answers, size_t *answers_len, char *why,
                   size_t why_len);
};

/* The entry point (SCAL_RESOLVE_ENTRY). */
typedef const struct scal_resolve_api *(*scal_resolve_library_fn)(void);

/* The writer's side: resolves the request with libscal_ompt_resolve.so, loaded at the first call
 * (SCAL_EDLOPEN when it cannot be). */
int scal_resolve_in_process(const void *request, size_t len, void **answers, size_t *answers_len);

#endif
