/* SPDX-License-Identifier: BSD-3-Clause */
/* Small helpers shared by the built-in post-processing plugins (header only, static inline). */
#ifndef SCAL_PP_UTIL_H
#define SCAL_PP_UTIL_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
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
