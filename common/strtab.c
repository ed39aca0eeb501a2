// SPDX-License-Identifier: BSD-3-Clause
// De-duplicating string table with an open-addressing index, for /strings in scal's files.
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "scal/status.h"

static uint64_t hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int64_t lookup_slot(const struct scal_strtab *t, const char *s, size_t *slot)
{
    size_t mask = t->nslots - 1, i = hash_string(s) & mask;
    for (;;) {
        uint32_t v = t->slots[i];
        if (v == 0) {
            *slot = i;
            return -1;
        }
        if (strcmp(t->strings[v - 1], s) == 0) {
            *slot = i;
            return v - 1;
        }
        i = (i + 1) & mask;
    }
}

static int rehash(struct scal_strtab *t, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof(*slots));
    if (!slots) return scal__fail(SCAL_ENOMEM, "out of memory growing a string table");
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    for (size_t k = 0; k < t->count; k++) {
        size_t slot;
        lookup_slot(t, t->strings[k], &slot);
        t->slots[slot] = (uint32_t)k + 1;
    }
    return SCAL_OK;
}

int scal_strtab_init(struct scal_strtab *t)
{
    memset(t, 0, sizeof(*t));
    int rc = rehash(t, 64);
    if (rc < 0) return rc;
    return scal_strtab_add(t, "") < 0 ? SCAL_ENOMEM : SCAL_OK;
}

void scal_strtab_free(struct scal_strtab *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->strings[i]);
    free(t->strings);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}

int64_t scal_strtab_find(const struct scal_strtab *t, const char *s)
{
    size_t slot;
    return lookup_slot(t, s ? s : "", &slot);
}

int64_t scal_strtab_add(struct scal_strtab *t, const char *s)
{
    size_t slot;
    int64_t found;
    if (!s) s = "";
    found = lookup_slot(t, s, &slot);
    if (found >= 0) return found;
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **grown = realloc(t->strings, cap * sizeof(*grown));
        if (!grown) return scal__fail(SCAL_ENOMEM, "out of memory growing a string table");
        t->strings = grown;
        t->cap = cap;
    }
    t->strings[t->count] = strdup(s);
    if (!t->strings[t->count]) return scal__fail(SCAL_ENOMEM, "out of memory copying a string");
    t->slots[slot] = (uint32_t)t->count + 1;
    t->count++;
    if (t->count * 2 > t->nslots) {
        int rc = rehash(t, t->nslots * 2);
        if (rc < 0) return rc;
    }
    return (int64_t)t->count - 1;
}

int scal_strtab_from(struct scal_strtab *t, const char *const *strings, size_t n, const char *what)
{
    int rc = scal_strtab_init(t);
    if (rc < 0) return rc;
    if (n && strings[0] && strings[0][0])
        rc = scal__fail(SCAL_EFORMAT, "%s: string 0 is not empty", what);
    for (size_t i = 1; i < n && rc == SCAL_OK; i++) {
        int64_t k = scal_strtab_add(t, strings[i]);
        if (k < 0)
            rc = (int)k;
        else if ((size_t)k != i)
            rc = scal__fail(SCAL_EFORMAT, "%s: string %zu repeats string %lld", what, i,
                            (long long)k);
    }
    if (rc < 0) scal_strtab_free(t);
    return rc;
}
