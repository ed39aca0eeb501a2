// SPDX-License-Identifier: BSD-3-Clause
// Identity strings of regions, stable across runs, for unifying regions in campaigns.
#include "region_identity.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "scal/status.h"

static const char *str_at(char *const *strings, size_t nstrings, uint32_t i)
{
    return i < nstrings && strings[i] ? strings[i] : "";
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

void scal_region_identities_free(char **ids, size_t n)
{
    if (!ids) return;
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
}

/* The region's own part of the identity (without the parent prefix). */
static int own_part(const struct scal_region_id_row *r, char **ids, char *const *strings,
                    size_t nstrings, size_t i, char *buf, size_t len)
{
    switch (r->kind) {
    case SCAL_KIND_ROOT:
        snprintf(buf, len, "R");
        return SCAL_OK;
    case SCAL_KIND_USER:
        snprintf(buf, len, "U:%s", str_at(strings, nstrings, r->name));
        return SCAL_OK;
    case SCAL_KIND_PARALLEL:
        if (r->line_first >= 0)
            snprintf(buf, len, "P:%s:%s:%d:%s", base_name(str_at(strings, nstrings, r->module)),
                     str_at(strings, nstrings, r->file), (int)r->line_first,
                     str_at(strings, nstrings, r->function));
        else
            snprintf(buf, len, "P:%s+%" PRIu64, base_name(str_at(strings, nstrings, r->module)),
                     r->offset);
        return SCAL_OK;
    case SCAL_KIND_SERIAL: {
        /* The tool creates a gap after both of its neighbours, so they precede it. */
        if ((r->gap_prev >= 0 && (size_t)r->gap_prev >= i) ||
            (r->gap_next >= 0 && (size_t)r->gap_next >= i))
            return scal__fail(SCAL_EFORMAT, "/regions row %zu: serial gap refers to a later row",
                              i);
        snprintf(buf, len, "S:%s>%s", r->gap_prev >= 0 ? ids[r->gap_prev] : "start",
                 r->gap_next >= 0 ? ids[r->gap_next] : "end");
        return SCAL_OK;
    }
    }
    return scal__fail(SCAL_EFORMAT, "/regions row %zu: unknown kind %u", i, (unsigned)r->kind);
}

int scal_region_identities(const struct scal_region_id_row *rows, size_t n, char *const *strings,
                           size_t nstrings, char ***out)
{
    char own[8192];
    int rc = SCAL_OK;
    char **ids = calloc(n ? n : 1, sizeof(*ids));
    *out = NULL;
    if (!ids) return scal__fail(SCAL_ENOMEM, "out of memory for %zu region identities", n);
    for (size_t i = 0; i < n; i++) {
        const struct scal_region_id_row *r = &rows[i];
        if (r->id != i) {
            rc = scal__fail(SCAL_EFORMAT, "/regions row %zu has id %u", i, (unsigned)r->id);
            break;
        }
        if (r->parent >= 0 && (size_t)r->parent >= i) {
            rc = scal__fail(SCAL_EFORMAT, "/regions row %zu: parent %d is not an earlier row", i,
                            (int)r->parent);
            break;
        }
        rc = own_part(r, ids, strings, nstrings, i, own, sizeof(own));
        if (rc < 0) break;
        const char *parent = r->parent >= 0 ? ids[r->parent] : "";
        size_t len = strlen(parent) + strlen(own) + 2;
        ids[i] = malloc(len);
        if (!ids[i]) {
            rc = scal__fail(SCAL_ENOMEM, "out of memory for region identities");
            break;
        }
        snprintf(ids[i], len, "%s%s%s", parent, r->parent >= 0 ? "/" : "", own);
    }
    if (rc < 0) {
        scal_region_identities_free(ids, n);
        return rc;
    }
    *out = ids;
    return SCAL_OK;
}
