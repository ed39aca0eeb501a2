// SPDX-License-Identifier: BSD-3-Clause
// The writer's side of resolve_link.h: scal_resolver_open loads libscal_ompt_resolve.so (next to
// this library) the first time DWARF is needed, and the three resolver functions forward to it.
// Without the library, regions are named as without DWARF (module and offset).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "fork_hook.h"
#include "identity_cache.h"
#include "resolve_link.h"
#include "scal/status.h"
#include "tool.h"

static const struct scal_resolve_host host = {sizeof(host), scal_module_of, scal_build_id_of,
                                              scal_fork_hook_entry};
static const struct scal_resolve_api *api;

static const struct scal_resolve_api *load(void)
{
    static bool tried;
    Dl_info self;
    char path[4096];
    if (tried) return api;
    tried = true;
    if (!dladdr((void *)load, &self) || !self.dli_fname) return NULL;
    snprintf(path, sizeof(path), "%s", self.dli_fname);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof(path) - (size_t)(slash ? slash + 1 - path : 0), "%s",
             SCAL_RESOLVE_LIBRARY);
    /* bound at once (RTLD_NOW): a libdw without a function this library calls is refused here
     * (regions then named by module and offset), never a program stopped by a lookup error at its
     * end; binding lazily would save ~40 us of a binary's first run */
    int flags = RTLD_NOW | RTLD_LOCAL;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && !defined(SCAL_SANITIZED)
    flags |= RTLD_DEEPBIND; /* libdw's dependencies stay its own; sanitizers do not support it */
#endif
    void *lib = dlopen(path, flags); /* kept loaded (-z nodelete): libdw may run exit handlers */
    scal_resolve_library_fn entry =
        lib ? (scal_resolve_library_fn)dlsym(lib, SCAL_RESOLVE_ENTRY) : NULL;
    api = entry ? entry(&host) : NULL;
    if (api && api->struct_size < sizeof(*api)) api = NULL;
    /* without it every region counts in resolve_failed, named by its address */
    return api;
}

struct scal_resolver *scal_resolver_open(bool lines)
{
    return load() ? api->open(lines) : NULL;
}

int scal_resolve(struct scal_resolver *r, uint64_t ra, uint64_t body, int kind,
                 struct scal_resolved *out)
{
    if (api) return api->resolve(r, ra, body, kind, out);
    memset(out, 0, sizeof(*out));
    out->line_first = out->line_last = -1;
    out->offset = ra;
    return SCAL_ENOENT;
}

void scal_resolver_close(struct scal_resolver *r)
{
    if (api) api->close(r);
}
