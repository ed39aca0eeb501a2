// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: index.html, one self-contained page (inline CSS, JavaScript and SVG, the data as
// embedded JSON; no network, no server) to explore every region of the report in a browser.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "page_assets.h"
#include "util.h"

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

static void jregion(FILE *f, const struct scal_pp_host *h, size_t r)
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
    fputs("}}", f);
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    FILE *f = pp_create(h, "index.html", why, whylen);
    if (!f) return SCAL_EIO;
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
    for (size_t r = 0; r < h->nregions; r++) { /* the page holds every region (no --top) */
        if (r) fputs(",\n", f);
        jregion(f, h, r);
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
