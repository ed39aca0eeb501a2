// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: one CSV file per region and matrix, rows = inputs, columns = thread counts.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scal/postproc.h"
#include "util.h"

static void row_label(const struct scal_pp_host *h, const struct scal_pp_matrix *m, size_t y,
                      char *out, size_t len)
{
    if (m->shape == SCAL_PP_INPUT_STEP || m->shape == SCAL_PP_BOTH_STEP)
        snprintf(out, len, "%s->%s", h->inputs[y], h->inputs[y + 1]);
    else if (m->shape == SCAL_PP_SCALAR)
        snprintf(out, len, "value");
    else
        snprintf(out, len, "%s", h->inputs[y]);
}

static void col_label(const struct scal_pp_host *h, const struct scal_pp_matrix *m, size_t x,
                      char *out, size_t len)
{
    if (m->shape == SCAL_PP_THREAD_STEP || m->shape == SCAL_PP_BOTH_STEP)
        snprintf(out, len, "%d->%d", h->threads[x], h->threads[x + 1]);
    else if (m->shape == SCAL_PP_SCALAR)
        snprintf(out, len, "value");
    else
        snprintf(out, len, "%d", h->threads[x]);
}

static int write_one(const struct scal_pp_host *h, const char *path, const char *metric,
                     const struct scal_pp_matrix *m)
{
    FILE *f = fopen(path, "w");
    char lab[64];
    if (!f) return SCAL_EIO;
    if (*h->baseline_note) fprintf(f, "# %s\n", h->baseline_note);
    fprintf(f, "%s%s%s%s", metric, *m->unit ? " [" : "", m->unit, *m->unit ? "]" : "");
    fprintf(f, " input\\threads");
    for (size_t x = 0; x < m->cols; x++) {
        col_label(h, m, x, lab, sizeof(lab));
        fprintf(f, ",%s", lab);
    }
    fputc('\n', f);
    for (size_t y = 0; y < m->rows; y++) {
        row_label(h, m, y, lab, sizeof(lab));
        fprintf(f, "%s", lab);
        for (size_t x = 0; x < m->cols; x++) {
            double v = m->values[y * m->cols + x];
            if (isnan(v))
                fputs(",", f); /* a gap is an empty field, never 0 */
            else
                fprintf(f, ",%.9g", v);
        }
        fputc('\n', f);
    }
    return fclose(f) ? SCAL_EIO : 0;
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    char dir[1024], rdir[1200], path[1500], suffix[32];
    if (pp_subdir(h, "csv", dir, sizeof(dir)) < 0) {
        return scal__why(why, whylen, SCAL_EIO, "cannot create %s", dir);
    }
    for (size_t r = 0; r < h->nregions; r++) {
        if (!h->selected(h, r)) continue;
        snprintf(rdir, sizeof(rdir), "%s/%s", dir, h->regions[r].slug);
        if (mkdir(rdir, 0777) < 0 && errno != EEXIST) {
            return scal__why(why, whylen, SCAL_EIO, "cannot create %s", rdir);
        }
        for (size_t s = 0; s < h->nslices; s++) {
            pp_slice_suffix(h, s, suffix, sizeof(suffix));
            for (const char *const *m = h->metrics(h, r, s); *m; m++) {
                const struct scal_pp_matrix *mat = h->get(h, r, s, *m);
                char name[300];
                snprintf(name, sizeof(name), "%s", *m);
                for (char *p = name; *p; p++)
                    if (*p == ':' || *p == '/') *p = '_';
                snprintf(path, sizeof(path), "%s/%s%s.csv", rdir, name, suffix);
                if (mat && write_one(h, path, *m, mat) < 0) {
                    return scal__why(why, whylen, SCAL_EIO, "cannot write %s", path);
                }
            }
        }
    }
    return SCAL_OK;
}

static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_OUTPUT, NULL, NULL, run};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "csv",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "CSV per region and matrix (csv/<region>/<metric>.csv), gaps as empty fields",
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
