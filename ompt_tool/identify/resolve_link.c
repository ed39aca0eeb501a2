// SPDX-License-Identifier: BSD-3-Clause
// The writer's side of resolve_link.h: loads libscal_ompt_resolve.so (next to this library) the
// first time a request is to be resolved in this process, and hands it the request's bytes.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "resolve_link.h"
#include "scal/status.h"

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
    api = entry ? entry() : NULL;
    if (api && api->struct_size < sizeof(*api)) api = NULL;
    /* without it every region counts in resolve_failed, named by its address */
    return api;
}

int scal_resolve_in_process(const void *request, size_t len, void **answers, size_t *answers_len)
{
    char why[1024] = "";
    if (!load()) {
        const char *e = dlerror();
        return scal__fail(SCAL_EDLOPEN, "cannot load %s: %s", SCAL_RESOLVE_LIBRARY,
                          e ? e : "its entry point is missing");
    }
    int rc = api->resolve(request, len, answers, answers_len, why, sizeof(why));
    return rc < 0 ? scal__fail(rc, "%s", why) : rc;
}
