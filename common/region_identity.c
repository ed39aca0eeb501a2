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
#include "strtab.h"

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
static int check_row(const struct scal_region_id_row *rows, size_t i)
{
    const struct scal_region_id_row *r = &rows[i];
    if (r->id != i)
        return scal__fail(SCAL_EFORMAT, "/regions row %zu has id %u", i, (unsigned)r->id);
    if (r->parent >= 0 && (size_t)r->parent >= i)
        return scal__fail(SCAL_EFORMAT, "/regions row %zu: parent %d is not an earlier row", i,
                          (int)r->parent);
    if (r->kind == SCAL_KIND_SERIAL && ((r->gap_prev >= 0 && (size_t)r->gap_prev >= i) ||
                                        (r->gap_next >= 0 && (size_t)r->gap_next >= i)))
        return scal__fail(SCAL_EFORMAT, "/regions row %zu: serial gap refers to a later row", i);
    /* a gap lies between two regions, never beside another gap (its label would hold both
     * neighbours' labels again: chained gaps would double the text row by row) */
    if (r->kind == SCAL_KIND_SERIAL &&
        ((r->gap_prev >= 0 && rows[r->gap_prev].kind == SCAL_KIND_SERIAL) ||
         (r->gap_next >= 0 && rows[r->gap_next].kind == SCAL_KIND_SERIAL)))
        return scal__fail(SCAL_EFORMAT, "/regions row %zu: serial gap next to a serial gap", i);
    if (r->kind > SCAL_KIND_TASK)
        return scal__fail(SCAL_EFORMAT, "/regions row %zu: unknown kind %u", i, (unsigned)r->kind);
    return SCAL_OK;
}

/* Identity components may hold any text (user region names, paths): the separators of the
 * identity syntax ('/' between levels, '>' between a gap's neighbours, ':' between fields) and the
 * escape itself are escaped, so two different regions can never spell the same identity. */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '/' || *s == '>' || *s == ':') fputc('\\', out);
        fputc(*s, out);
    }
}

/* The region's own identity part (without the parent prefix). */
static void identity_part(const struct scal_region_id_row *r, char *const *done,
                          char *const *strings, size_t nstrings, FILE *out)
{
    switch (r->kind) {
    case SCAL_KIND_ROOT:
        fputs("R", out);
        break;
    case SCAL_KIND_USER:
        fputs("U:", out);
        put_escaped(out, str_at(strings, nstrings, r->name));
        break;
    case SCAL_KIND_PARALLEL:
    case SCAL_KIND_TASK:
        fputs(r->kind == SCAL_KIND_TASK ? "T:" : "P:", out);
        if (r->line_first >= 0) {
            put_escaped(out, base_name(str_at(strings, nstrings, r->file)));
            fprintf(out, ":%d:", (int)r->line_first);
            put_escaped(out, str_at(strings, nstrings, r->function));
        } else {
            put_escaped(out, base_name(str_at(strings, nstrings, r->module)));
            fprintf(out, "+%" PRIx64, r->offset);
        }
        break;
    default: /* SCAL_KIND_SERIAL: neighbours' identities are already escaped */
        fprintf(out, "S:%s>%s", r->gap_prev >= 0 ? done[r->gap_prev] : "start",
                r->gap_next >= 0 ? done[r->gap_next] : "end");
        break;
    }
}

/* The region's label. */
static void label_of(const struct scal_region_id_row *r, char *const *done, char *const *strings,
                     size_t nstrings, FILE *out)
{
    const char *file = str_at(strings, nstrings, r->file);
    const char *fn = str_at(strings, nstrings, r->function);
    const char *name = str_at(strings, nstrings, r->name);
    switch (r->kind) {
    case SCAL_KIND_ROOT:
        fputs("whole program", out);
        break;
    case SCAL_KIND_USER:
        fputs(name, out);
        break;
    case SCAL_KIND_PARALLEL:
    case SCAL_KIND_TASK: {
        const char *k = r->kind == SCAL_KIND_TASK ? "task " : "";
        if (r->line_first < 0 || !*file) {
            if (*name)
                fputs(name, out);
            else
                fprintf(out, "%s%s+%#" PRIx64, k, base_name(str_at(strings, nstrings, r->module)),
                        r->offset);
            break;
        }
        fprintf(out, "%s%s:%d", k, base_name(file), (int)r->line_first);
        if (r->line_last > r->line_first) fprintf(out, "-%d", (int)r->line_last);
        if (*fn) fprintf(out, " (%s)", fn);
        break;
    }
    default: /* SCAL_KIND_SERIAL */
        fprintf(out, "serial: %s -> %s", r->gap_prev >= 0 ? done[r->gap_prev] : "start",
                r->gap_next >= 0 ? done[r->gap_next] : "end");
        break;
    }
}

enum derivation { IDENTITIES, LABELS, LABELS_BY_RULE };

/* One pass in row order: identities (prefixed by the parent's) or labels (stored ones first, or by
 * the rule alone). Strings are built in memory streams: no length limit, so long names never
 * collide by truncation. */
static int derive(const struct scal_region_id_row *rows, size_t n, char *const *strings,
                  size_t nstrings, enum derivation what, char ***out)
{
    bool with_parent = what == IDENTITIES;
    int rc = SCAL_OK;
    char **done = calloc(n ? n : 1, sizeof(*done));
    *out = NULL;
    if (!done) return scal__fail(SCAL_ENOMEM, "out of memory for %zu region names", n);
    for (size_t i = 0; i < n && rc == SCAL_OK; i++) {
        const struct scal_region_id_row *r = &rows[i];
        if ((rc = check_row(rows, i)) < 0) break;
        size_t len = 0;
        FILE *s = open_memstream(&done[i], &len);
        if (!s) {
            rc = scal__fail(SCAL_ENOMEM, "out of memory for region names");
            break;
        }
        if (with_parent && r->parent >= 0) fprintf(s, "%s/", done[r->parent]);
        if (with_parent)
            identity_part(r, done, strings, nstrings, s);
        else if (what == LABELS && r->label != SCAL_NO_STRING)
            fputs(str_at(strings, nstrings, r->label), s);
        else
            label_of(r, done, strings, nstrings, s);
        if (fclose(s) != 0 || !done[i])
            rc = scal__fail(SCAL_ENOMEM, "out of memory for region names");
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
    return derive(rows, n, strings, nstrings, IDENTITIES, ids);
}

int scal_region_labels(const struct scal_region_id_row *rows, size_t n, char *const *strings,
                       size_t nstrings, char ***labels)
{
    return derive(rows, n, strings, nstrings, LABELS, labels);
}

int scal_region_labels_by_rule(const struct scal_region_id_row *rows, size_t n,
                               char *const *strings, size_t nstrings, char ***labels)
{
    return derive(rows, n, strings, nstrings, LABELS_BY_RULE, labels);
}

int scal_region_labels_store(struct scal_region_id_row *rows, size_t n, struct scal_strtab *strings)
{
    char **labels = NULL;
    int rc = scal_region_labels(rows, n, strings->strings, strings->count, &labels);
    for (size_t i = 0; i < n && rc == SCAL_OK; i++) {
        if (rows[i].label != SCAL_NO_STRING) continue;
        int64_t k = scal_strtab_add(strings, labels[i]);
        if (k < 0)
            rc = scal__fail((int)k, "out of memory storing region labels");
        else
            rows[i].label = (uint32_t)k;
    }
    scal_region_identities_free(labels, n);
    return rc;
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
