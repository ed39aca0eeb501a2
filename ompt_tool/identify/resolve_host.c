// SPDX-License-Identifier: BSD-3-Clause
// libscal_ompt_resolve.so's side of resolve_link.h: keeps the writer's host table, implements on
// top of it the functions of the writer and the tool the resolver's sources call by their usual
// names, and hands the writer the resolver's entry points.
#include "fork_hook.h"
#include "identity_cache.h"
#include "resolve_link.h"
#include "tool.h"

static const struct scal_resolve_host *host;

bool scal_module_of(uint64_t addr, const char **path, uint64_t *base)
{
    return host->module_of(addr, path, base);
}

bool scal_build_id_of(uint64_t addr, char *out, size_t len)
{
    return host->build_id_of(addr, out, len);
}

const char *scal_fork_hook_entry(uint64_t addr)
{
    return host->fork_hook_entry(addr);
}

static const struct scal_resolve_api api = {sizeof(api), scal_resolver_open, scal_resolve,
                                            scal_resolver_close};

__attribute__((visibility("default"))) const struct scal_resolve_api *
scal_resolve_library(const struct scal_resolve_host *h)
{
    if (!h || h->struct_size < sizeof(*h)) return NULL;
    host = h;
    return &api;
}
