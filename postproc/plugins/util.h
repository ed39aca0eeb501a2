/* SPDX-License-Identifier: BSD-3-Clause */
/* Small helpers shared by the built-in post-processing plugins (header only, static inline). */
#ifndef SCAL_PP_UTIL_H
#define SCAL_PP_UTIL_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plugin_util.h" /* plugins/common: scal__why */
#include "scal/postproc.h"

/* Whether the rows are MPI rank counts rather than inputs: scal report --axes ranks,threads labels
 * them "R ranks" (postproc/load.c); the page's script applies the same test. */
static inline bool pp_rows_are_ranks(const struct scal_pp_host *h)
{
    for (size_t y = 0; y < h->ninputs; y++) {
        int end = 0;
        unsigned ranks;
        if (sscanf(h->inputs[y], "%u ranks%n", &ranks, &end) != 1 || end <= 0 ||
            h->inputs[y][end] != '\0')
            return false;
    }
    return h->ninputs > 0;
}

/* The running plugin's option as text (its default when unset), or NULL. */
static inline const char *pp_option(const struct scal_pp_host *h, const char *name)
{
    if (h->struct_size < offsetof(struct scal_pp_host, env) + sizeof(h->env) || !h->env ||
        !h->env->get_option)
        return NULL;
    return h->env->get_option(h->env->options, name);
}

/* A new output file output_dir/rel, created exclusively at a temporary name (host->create). */
static inline FILE *pp_create(const struct scal_pp_host *h, const char *rel, char *why,
                              size_t whylen)
{
    if (h->struct_size < offsetof(struct scal_pp_host, commit) + sizeof(h->commit)) {
        snprintf(why, whylen, "the host is too old to create output files safely (ABI < 1.3)");
        return NULL;
    }
    return h->create(h, rel, why, whylen);
}

/* Closes an output file of pp_create: renamed into place when ok, else removed. */
static inline int pp_commit(const struct scal_pp_host *h, FILE *f, bool ok, char *why,
                            size_t whylen)
{
    return h->commit(h, f, ok, why, whylen);
}

static inline double pp_at(const struct scal_pp_matrix *m, size_t r, size_t c);

/* Whether a drawing plugin draws region r: selected (--region/--top/--min-share) and, unless its
 * option `limit` is 0 (scal report --all, --top or --region), the whole program or one of the
 * `limit` first regions by rank: the PNG files cost most of a report's time; the page holds every
 * region. */
static inline bool pp_draw(const struct scal_pp_host *h, size_t r)
{
    if (!h->selected(h, r)) return false;
    const char *l = pp_option(h, "limit");
    long limit = l && *l ? strtol(l, NULL, 10) : 0;
    if (limit <= 0 || r == 0 || h->nregions <= (size_t)limit + 1) return true;
    double rank = pp_at(h->get(h, r, 0, "rank"), 0, 0);
    return rank <= (double)limit;
}

static inline double pp_at(const struct scal_pp_matrix *m, size_t r, size_t c)
{
    return m && r < m->rows && c < m->cols ? m->values[r * m->cols + c] : NAN;
}

/* The file-name suffix of a slice ("" for the single slice of a campaign without frequencies). */
static inline void pp_slice_suffix(const struct scal_pp_host *h, size_t s, char *out, size_t len)
{
    if (h->nslices <= 1 && !*h->slices[0])
        *out = '\0';
    else
        snprintf(out, len, "-f%zu", s);
}
#endif
