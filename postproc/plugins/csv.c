// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: every region's matrices in csv/all/<metric>.csv (one row per region and input,
// columns = thread counts), and csv/<region>/<metric>.csv for the regions drawn (the whole
// program and the first ones by rank; option limit, as the diagrams).
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

/* A CSV field: quoted when it holds a comma, a quote or a line break (labels of C++ regions). */
static void field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void header(FILE *f, const struct scal_pp_host *h, const char *metric,
                   const struct scal_pp_matrix *m, bool all)
{
    char lab[64];
    if (*h->baseline_note) fprintf(f, "# %s\n", h->baseline_note);
    if (all) fputs("region,slug,", f);
    fprintf(f, "%s%s%s%s input\\threads", metric, *m->unit ? " [" : "", m->unit,
            *m->unit ? "]" : "");
    for (size_t x = 0; x < m->cols; x++) {
        col_label(h, m, x, lab, sizeof(lab));
        fprintf(f, ",%s", lab);
    }
    fputc('\n', f);
}

/* The rows of one matrix; with a region (all-regions file) each starts with its label and slug. */
static void rows(FILE *f, const struct scal_pp_host *h, const struct scal_pp_matrix *m,
                 const struct scal_pp_region *region)
{
    char lab[300];
    for (size_t y = 0; y < m->rows; y++) {
        if (region) {
            field(f, region->label);
            fprintf(f, ",%s,", region->slug);
        }
        row_label(h, m, y, lab, sizeof(lab));
        field(f, lab);
        for (size_t x = 0; x < m->cols; x++) {
            double v = m->values[y * m->cols + x];
            if (isnan(v))
                fputs(",", f); /* a gap is an empty field, never 0 */
            else
                fprintf(f, ",%.9g", v);
        }
        fputc('\n', f);
    }
}

static void file_name(const char *metric, const char *suffix, char *out, size_t len)
{
    char name[300];
    snprintf(name, sizeof(name), "%s", metric);
    for (char *p = name; *p; p++)
        if (*p == ':' || *p == '/') *p = '_';
    snprintf(out, len, "%s%s.csv", name, suffix);
}

static int write_region(const struct scal_pp_host *h, size_t r, size_t s, const char *suffix,
                        char *why, size_t whylen)
{
    char name[340], rel[600];
    for (const char *const *m = h->metrics(h, r, s); *m; m++) {
        const struct scal_pp_matrix *mat = h->get(h, r, s, *m);
        if (!mat) continue;
        file_name(*m, suffix, name, sizeof(name));
        snprintf(rel, sizeof(rel), "csv/%s/%s", h->regions[r].slug, name);
        FILE *f = pp_create(h, rel, why, whylen);
        if (!f) return SCAL_EIO;
        header(f, h, *m, mat, false);
        rows(f, h, mat, NULL);
        int rc = pp_commit(h, f, true, why, whylen);
        if (rc < 0) return rc;
    }
    return SCAL_OK;
}

/* csv/all/<metric>.csv: every selected region that has the metric, in region order; the metrics
 * in the order they first appear. */
static int write_all(const struct scal_pp_host *h, size_t s, const char *suffix, char *why,
                     size_t whylen)
{
    char name[340], rel[600];
    const char *seen[256];
    size_t nseen = 0;
    for (size_t first = 0; first < h->nregions; first++) {
        if (!h->selected(h, first)) continue;
        for (const char *const *m = h->metrics(h, first, s); *m; m++) {
            bool known = false;
            for (size_t k = 0; k < nseen && !known; k++)
                known = !strcmp(seen[k], *m);
            const struct scal_pp_matrix *mat = h->get(h, first, s, *m);
            if (known || !mat || nseen == sizeof(seen) / sizeof(seen[0])) continue;
            seen[nseen++] = *m;
            file_name(*m, suffix, name, sizeof(name));
            snprintf(rel, sizeof(rel), "csv/all/%s", name);
            FILE *f = pp_create(h, rel, why, whylen);
            if (!f) return SCAL_EIO;
            header(f, h, *m, mat, true);
            for (size_t r = first; r < h->nregions; r++) {
                const struct scal_pp_matrix *rm = h->selected(h, r) ? h->get(h, r, s, *m) : NULL;
                if (rm && rm->rows == mat->rows && rm->cols == mat->cols)
                    rows(f, h, rm, &h->regions[r]);
            }
            int rc = pp_commit(h, f, true, why, whylen);
            if (rc < 0) return rc;
        }
    }
    return SCAL_OK;
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    char suffix[32];
    int rc = SCAL_OK;
    for (size_t s = 0; s < h->nslices && rc == SCAL_OK; s++) {
        pp_slice_suffix(h, s, suffix, sizeof(suffix));
        rc = write_all(h, s, suffix, why, whylen);
        for (size_t r = 0; r < h->nregions && rc == SCAL_OK; r++)
            if (pp_draw(h, r)) rc = write_region(h, r, s, suffix, why, whylen);
    }
    return rc;
}

static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_OUTPUT, NULL, NULL, run};
static const struct scal_option_desc options[] = {
    {"limit", SCAL_OPT_INT, "10",
     "csv/<region>/ for the whole program and the first N regions by rank only, as the diagrams "
     "(0: every selected region; scal report --all, --top and --region set 0); csv/all/ holds "
     "every region"},
    {0},
};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "csv",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "CSV: csv/all/<metric>.csv with every region, csv/<region>/<metric>.csv for "
                   "the regions drawn; gaps as empty fields",
    .options = options,
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
