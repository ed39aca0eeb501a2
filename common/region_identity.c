// SPDX-License-Identifier: BSD-3-Clause
// Region identities (what makes two regions the same) and labels (how people see them).
#include "region_identity.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "scal/status.h"

/* Identities nest, so they can be long; one region's own part is bounded by this. */
#define OWN_PART_MAX 8192

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

/* The invariants every reader relies on: ids are row numbers, and a row refers (as parent or gap
 * neighbour) only to earlier rows, so one pass in row order sees every referenced row first. */
static int check_row(const struct scal_region_id_row *r, size_t i)
{
    if (r->id != i)
        return scal__fail(SCAL_EFORMAT, "/regions row %zu has id %u", i, (unsigned)r->id);
    if (r->parent >= 0 && (size_t)r->parent >= i)
        return scal__fail(SCAL_EFORMAT, "/regions row %zu: parent %d is not an earlier row", i,
                          (int)r->parent);
    if (r->kind == SCAL_KIND_SERIAL && ((r->gap_prev >= 0 && (size_t)r->gap_prev >= i) ||
                                        (r->gap_next >= 0 && (size_t)r->gap_next >= i)))
        return scal__fail(SCAL_EFORMAT, "/regions row %zu: serial gap refers to a later row", i);
    if (r->kind > SCAL_KIND_TASK)
        return scal__fail(SCAL_EFORMAT, "/regions row %zu: unknown kind %u", i, (unsigned)r->kind);
    return SCAL_OK;
}

/* The region's own identity part (without the parent prefix). */
static void identity_part(const struct scal_region_id_row *r, char *const *done,
                          char *const *strings, size_t nstrings, char *buf, size_t len)
{
    switch (r->kind) {
    case SCAL_KIND_ROOT:
        snprintf(buf, len, "R");
        break;
    case SCAL_KIND_USER:
        snprintf(buf, len, "U:%s", str_at(strings, nstrings, r->name));
        break;
    case SCAL_KIND_PARALLEL:
    case SCAL_KIND_TASK: {
        const char *k = r->kind == SCAL_KIND_TASK ? "T" : "P";
        if (r->line_first >= 0)
            snprintf(buf, len, "%s:%s:%d:%s", k, base_name(str_at(strings, nstrings, r->file)),
                     (int)r->line_first, str_at(strings, nstrings, r->function));
        else
            snprintf(buf, len, "%s:%s+%" PRIx64, k, base_name(str_at(strings, nstrings, r->module)),
                     r->offset);
        break;
    }
    default: /* SCAL_KIND_SERIAL */
        snprintf(buf, len, "S:%s>%s", r->gap_prev >= 0 ? done[r->gap_prev] : "start",
                 r->gap_next >= 0 ? done[r->gap_next] : "end");
        break;
    }
}

/* The region's label. */
static void label_of(const struct scal_region_id_row *r, char *const *done, char *const *strings,
                     size_t nstrings, char *buf, size_t len)
{
    const char *file = str_at(strings, nstrings, r->file);
    const char *fn = str_at(strings, nstrings, r->function);
    const char *name = str_at(strings, nstrings, r->name);
    switch (r->kind) {
    case SCAL_KIND_ROOT:
        snprintf(buf, len, "whole program");
        break;
    case SCAL_KIND_USER:
        snprintf(buf, len, "%s", name);
        break;
    case SCAL_KIND_PARALLEL:
    case SCAL_KIND_TASK: {
        char lines[32];
        const char *k = r->kind == SCAL_KIND_TASK ? "task " : "";
        if (r->line_first < 0 || !*file) {
            if (*name)
                snprintf(buf, len, "%s", name);
            else
                snprintf(buf, len, "%s%s+%#" PRIx64, k,
                         base_name(str_at(strings, nstrings, r->module)), r->offset);
            break;
        }
        if (r->line_last > r->line_first)
            snprintf(lines, sizeof(lines), "%d-%d", (int)r->line_first, (int)r->line_last);
        else
            snprintf(lines, sizeof(lines), "%d", (int)r->line_first);
        snprintf(buf, len, *fn ? "%s%s:%s (%s)" : "%s%s:%s%s", k, base_name(file), lines, fn);
        break;
    }
    default: /* SCAL_KIND_SERIAL */
        snprintf(buf, len, "serial: %s -> %s", r->gap_prev >= 0 ? done[r->gap_prev] : "start",
                 r->gap_next >= 0 ? done[r->gap_next] : "end");
        break;
    }
}

/* One pass in row order: identities (with_parent: prefixed by the parent's) or labels. */
static int derive(const struct scal_region_id_row *rows, size_t n, char *const *strings,
                  size_t nstrings, bool with_parent, char ***out)
{
    char own[OWN_PART_MAX];
    int rc = SCAL_OK;
    char **done = calloc(n ? n : 1, sizeof(*done));
    *out = NULL;
    if (!done) return scal__fail(SCAL_ENOMEM, "out of memory for %zu region names", n);
    for (size_t i = 0; i < n && rc == SCAL_OK; i++) {
        const struct scal_region_id_row *r = &rows[i];
        if ((rc = check_row(r, i)) < 0) break;
        if (with_parent)
            identity_part(r, done, strings, nstrings, own, sizeof(own));
        else
            label_of(r, done, strings, nstrings, own, sizeof(own));
        const char *parent = with_parent && r->parent >= 0 ? done[r->parent] : "";
        size_t len = strlen(parent) + strlen(own) + 2;
        if (!(done[i] = malloc(len))) {
            rc = scal__fail(SCAL_ENOMEM, "out of memory for region names");
            break;
        }
        snprintf(done[i], len, "%s%s%s", parent, *parent ? "/" : "", own);
    }
    if (rc < 0) {
        scal_region_identities_free(done, n);
        return rc;
    }
    *out = done;
    return SCAL_OK;
}

int scal_region_identities(const struct scal_region_id_row *rows, size_t n, char *const *strings,
                           size_t nstrings, char ***ids)
{
    return derive(rows, n, strings, nstrings, true, ids);
}

int scal_region_labels(const struct scal_region_id_row *rows, size_t n, char *const *strings,
                       size_t nstrings, char ***labels)
{
    return derive(rows, n, strings, nstrings, false, labels);
}

struct scal_region_id_row *scal_region_id_rows(const struct scal_region_row *rows, size_t n)
{
    struct scal_region_id_row *ids = calloc(n ? n : 1, sizeof(*ids));
    for (size_t i = 0; ids && i < n; i++) {
#define SCAL_COPY_ID(h5, ctype, member) ids[i].member = rows[i].member;
        SCAL_REGION_IDENTITY_FIELDS(SCAL_COPY_ID)
#undef SCAL_COPY_ID
    }
    return ids;
}
