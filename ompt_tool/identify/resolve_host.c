// SPDX-License-Identifier: BSD-3-Clause
// libscal_ompt_resolve.so's side of resolve_link.h: the request is resolved on a view of this very
// process (process_view.h), whose code is readable where it is, with the program's own demangler.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "errmsg.h"
#include "process_view.h"
#include "resolve_link.h"
#include "tool.h"

static bool readable_here(struct scal_view *v, const struct scal_rq_module *m,
                          const struct scal_rq_segment *s)
{
    (void)v, (void)m, (void)s;
    return true; /* the segments the request lists are this process's own, mapped */
}

/* A word of this process's memory, in a loaded segment of a module (process_view.c checked). */
static bool read_here(struct scal_view *v, uint64_t at, uint64_t *value)
{
    (void)v;
    memcpy(value, (const void *)(uintptr_t)at, sizeof(*value));
    return true;
}

static int resolve_here(const void *request, size_t len, void **answers, size_t *answers_len,
                        char *why, size_t why_len)
{
    struct scal_rq rq;
    struct scal_bytes b = {0};
    int rc = scal_rq_decode(request, len, &rq);
    if (rc == SCAL_OK) {
        struct scal_view v = {.rq = &rq, .make_readable = readable_here, .read_word = read_here};
        *(void **)&v.demangle = rq.has_demangler ? dlsym(RTLD_DEFAULT, "__cxa_demangle") : NULL;
        rc = scal_resolve_request(&v, &b);
        scal_rq_release(&rq);
    }
    if (rc < 0) {
        snprintf(why, why_len, "%s", scal__last_error(rc));
        free(b.p);
        return rc;
    }
    *answers = b.p;
    *answers_len = b.len;
    return SCAL_OK;
}

static const struct scal_resolve_api api = {sizeof(api), resolve_here};

__attribute__((visibility("default"))) const struct scal_resolve_api *scal_resolve_library(void)
{
    return &api;
}
