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

/* The running plugin's option as text (its default when unset), or NULL. */
static inline const char *pp_option(const struct scal_pp_host *h, const char *name)
{
    if (h->struct_size < offsetof(struct scal_pp_host, env) + sizeof(h->env) || !h->env ||
        !h->env->get_option)
        return NULL;
    return h->env->get_option(h->env->options, name);
}

/* Creates output_dir/sub (one level) and writes the path into out. */
static inline int pp_subdir(const struct scal_pp_host *h, const char *sub, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", h->output_dir, sub);
    if (mkdir(out, 0777) < 0 && errno != EEXIST) return SCAL_EIO;
    return 0;
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
