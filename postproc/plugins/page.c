// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: index.html, one self-contained page (inline CSS, JavaScript and SVG, the data as
// embedded JSON; no network, no server) to explore every region of the report in a browser.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "json_out.h"
#include "page_assets.h"
#include "region.h"
#include "util.h"

#define NEXT 3 /* predicted thread counts: 2, 4, 8 x the largest measured (as the PNG charts) */

/* The matrices the page draws (slice 0). */
static const char *const matrices[] = {"time",           "time_min",     "time_max",  "time_cv",
                                       "samples",        "team",         "speedup",   "efficiency",
                                       "diff_input",     "diff_strong",  "diff_weak", "lost_cells",
                                       "lost_imbalance", "lost_barrier", "lost_lock", "lost_serial",
                                       "lost_rest",      "compare_diff", NULL};
/* compare_*: scal report --compare (postproc/compare.c), null otherwise */
static const char *const scalars[] = {"rank",
                                      "lost_share",
                                      "lost_time",
                                      "time_share",
                                      "baseline_threads",
                                      "compare_mean",
                                      "compare_cells",
                                      "compare_rank",
                                      "compare_lo",
                                      "compare_hi",
                                      NULL};

static void jnotes(FILE *f, const struct scal_pp_host *h, long r)
{
    const char *const *notes;
    size_t n = h->notes(h, r, &notes);
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(',', f);
        pp_json_str(f, notes[i]);
    }
    fputc(']', f);
}

static void jrow(FILE *f, const double *v)
{
    fputc('[', f);
    for (size_t k = 0; k < NEXT; k++) {
        if (k) fputc(',', f);
        pp_json_num(f, v[k]);
    }
    fputc(']', f);
}

/* The region's model at the thread counts nobody ran, per input (slice 0): the predicted time and
 * its 90 % interval ("t", "lo", "hi"; null where nothing is to be trusted), the model per input
 * ("expr") and why an input has no prediction ("why", "" when it has). */
static int jmodel(FILE *f, const struct scal_pp_host *h, size_t r, const double *sizes)
{
    struct scal_region_model rm = {0};
    int rc = scal_model_region(h, r, 0, "time", sizes, &rm);
    if (rc < 0) return rc;
    const char *const keys[] = {"t", "lo", "hi"};
    fprintf(f, ",\"model\":{\"threads\":[%d,%d,%d]", 2 * h->threads[h->nthreads - 1],
            4 * h->threads[h->nthreads - 1], 8 * h->threads[h->nthreads - 1]);
    double *v = malloc(3 * NEXT * h->ninputs * sizeof(*v) + 1);
    char(*why)[200] = calloc(h->ninputs + 1, sizeof(*why));
    char(*expr)[400] = calloc(h->ninputs + 1, sizeof(*expr));
    if (!v || !why || !expr) {
        rc = SCAL_ENOMEM;
        goto out;
    }
    for (size_t y = 0; y < h->ninputs; y++) {
        const struct scal_model *md = scal_region_model_piece(&rm, y);
        if (md && md->fitted) scal_model_expr(&md->f, expr[y], sizeof(expr[y]));
        for (size_t k = 0; k < NEXT; k++) {
            double *t = v + (y * 3) * NEXT + k, *lo = t + NEXT, *hi = lo + NEXT;
            char w[200] = "no model";
            if (!md || !scal_model_predict(md, rm.uses_n ? sizes[y] : 1,
                                           2.0 * (1 << k) * h->threads[h->nthreads - 1], t, lo, hi,
                                           w, sizeof(w))) { /* nothing to trust: no values */
                *t = *lo = *hi = NAN;
                if (!why[y][0]) snprintf(why[y], sizeof(why[y]), "%s", w);
            }
        }
    }
    for (size_t j = 0; j < 3; j++) {
        fprintf(f, ",\"%s\":[", keys[j]);
        for (size_t y = 0; y < h->ninputs; y++) {
            if (y) fputc(',', f);
            jrow(f, v + (y * 3 + j) * NEXT);
        }
        fputc(']', f);
    }
    for (size_t j = 0; j < 2; j++) {
        fputs(j ? ",\"why\":[" : ",\"expr\":[", f);
        for (size_t y = 0; y < h->ninputs; y++) {
            if (y) fputc(',', f);
            pp_json_str(f, j ? why[y] : expr[y]);
        }
        fputc(']', f);
    }
    fputc('}', f);
out:
    free(v);
    free(why);
    free(expr);
    scal_region_model_free(&rm);
    return rc;
}

static int jregion(FILE *f, const struct scal_pp_host *h, size_t r, const double *sizes)
{
    const struct scal_pp_region *g = &h->regions[r];
    fprintf(f, "{\"id\":%zu,\"parent\":%d,\"depth\":%u,\"kind\":%d,\"label\":", r, g->parent,
            g->depth, g->kind);
    pp_json_str(f, g->label);
    fputs(",\"slug\":", f);
    pp_json_str(f, g->slug);
    fputs(",\"notes\":", f);
    jnotes(f, h, (long)r);
    fputs(",\"s\":{", f);
    for (size_t k = 0; scalars[k]; k++) {
        fprintf(f, "%s\"%s\":", k ? "," : "", scalars[k]);
        pp_json_num(f, pp_at(h->get(h, r, 0, scalars[k]), 0, 0));
    }
    fputs("},\"m\":{", f);
    bool first = true;
    for (size_t k = 0; matrices[k]; k++) {
        const struct scal_pp_matrix *m = h->get(h, r, 0, matrices[k]);
        if (!m) continue;
        fprintf(f, "%s\"%s\":[", first ? "" : ",", matrices[k]);
        first = false;
        for (size_t y = 0; y < m->rows; y++) {
            fputs(y ? ",[" : "[", f);
            for (size_t x = 0; x < m->cols; x++) {
                if (x) fputc(',', f);
                pp_json_num(f, m->values[y * m->cols + x]);
            }
            fputc(']', f);
        }
        fputc(']', f);
    }
    fputc('}', f);
    int rc = h->nthreads > 1 ? jmodel(f, h, r, sizes) : SCAL_OK;
    fputc('}', f);
    return rc;
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    double *sizes = malloc((h->ninputs + 1) * sizeof(*sizes));
    int rc = sizes ? scal_model_input_sizes(h, sizes) : SCAL_ENOMEM;
    if (rc < 0) {
        free(sizes);
        return scal__why(why, whylen, rc, "input sizes: %s", scal__last_error(rc));
    }
    FILE *f = pp_create(h, "index.html", why, whylen);
    if (!f) {
        free(sizes);
        return SCAL_EIO;
    }
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<title>scal report</title>\n<style>\n%s</style></head>\n<body>\n"
            "<div id=\"side\"></div><div id=\"main\"></div>\n"
            "<script type=\"application/json\" id=\"scal-data\">\n{\"inputs\":[",
            page_css);
    for (size_t i = 0; i < h->ninputs; i++) {
        if (i) fputc(',', f);
        pp_json_str(f, h->inputs[i]);
    }
    fputs("],\"threads\":[", f);
    for (size_t t = 0; t < h->nthreads; t++)
        fprintf(f, "%s%d", t ? "," : "", h->threads[t]);
    fputs("],\"stat\":", f);
    pp_json_str(f, h->stat);
    fputs(",\"notes\":", f);
    jnotes(f, h, -1);
    fputs(",\"regions\":[\n", f);
    for (size_t r = 0; r < h->nregions && rc == SCAL_OK; r++) { /* every region (no --top) */
        if (r) fputs(",\n", f);
        rc = jregion(f, h, r, sizes);
    }
    free(sizes);
    if (rc < 0) {
        char ignored[200]; /* the removal's message: the model's failure is the one reported */
        pp_commit(h, f, false, ignored, sizeof(ignored));
        return scal__why(why, whylen, rc, "model: %s", scal__last_error(rc));
    }
    fprintf(f, "]}\n</script>\n<script>\n%s</script>\n</body></html>\n", page_js);
    return pp_commit(h, f, true, why, whylen);
}

static const char *const needs[] = {"time", NULL};
static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_OUTPUT, needs, NULL, run};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "page",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "index.html: one self-contained interactive page (region tree, diagrams, "
                   "charts, lost-time breakdown, findings; no network)",
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
