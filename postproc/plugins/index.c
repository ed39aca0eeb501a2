// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: the region tree with total time, efficiency at the largest thread count and rank
// (index.txt and index.png), honouring --top / --region.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "util.h"

struct row {
    size_t region;
    char text[700];
    double eff;
    char label[560], fields[100];
};

static void visit(const struct scal_pp_host *h, size_t r, struct row *rows, size_t *n)
{
    if (h->selected(h, r)) {
        const struct scal_pp_matrix *t = h->get(h, r, 0, "time"),
                                    *e = h->get(h, r, 0, "efficiency");
        const struct scal_pp_matrix *rk = h->get(h, r, 0, "rank"),
                                    *sh = h->get(h, r, 0, "lost_share");
        size_t y = h->ninputs - 1, x = h->nthreads - 1;
        double tt = pp_at(t, y, (size_t)h->baseline_column), ef = pp_at(e, y, x);
        double rank = pp_at(rk, 0, 0), share = pp_at(sh, 0, 0);
        char rs[32] = "-", ts[32] = "-", es[32] = "-"; /* "-": no value, never "nan" */
        if (!isnan(rank)) snprintf(rs, sizeof(rs), "%.0f (%.1f%%)", rank, 100 * share);
        if (!isnan(tt)) snprintf(ts, sizeof(ts), "%.6g", tt);
        if (!isnan(ef)) snprintf(es, sizeof(es), "%.3f", ef);
        struct row *o = &rows[(*n)++];
        o->region = r;
        o->eff = ef;
        snprintf(o->label, sizeof(o->label), "%*s%s",
                 2 * (int)(h->regions[r].depth < 20 ? h->regions[r].depth : 20), "",
                 h->regions[r].label);
        snprintf(o->fields, sizeof(o->fields), "%12s %8s  %s", ts, es, rs);
    }
    for (size_t c = 1; c < h->nregions; c++)
        if (h->regions[c].parent == (int32_t)r) visit(h, c, rows, n);
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    struct row *rows = calloc(h->nregions, sizeof(*rows));
    size_t n = 0;
    if (!rows) return SCAL_ENOMEM;
    visit(h, 0, rows, &n);
    /* The label column is as wide as the longest label, so long (C++) names never shift the
     * other columns. */
    int w = 50;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(rows[i].label) > w) w = (int)strlen(rows[i].label);
    for (size_t i = 0; i < n; i++)
        snprintf(rows[i].text, sizeof(rows[i].text), "%-*s %s", w, rows[i].label, rows[i].fields);
    char head[700];
    snprintf(head, sizeof(head), "%-*s %12s %8s  %s", w, "region", "time[s]", "eff",
             "rank (share of lost core-seconds; -: no baseline)");
    char sub[300];
    snprintf(sub, sizeof(sub),
             "time at the baseline thread count and efficiency at %d threads, "
             "input %s%s%s",
             h->threads[h->nthreads - 1], h->inputs[h->ninputs - 1], *h->baseline_note ? "; " : "",
             h->baseline_note);
    FILE *f = pp_create(h, "index.txt", why, whylen);
    if (!f) goto fail;
    fprintf(f, "%s\n%s\n", sub, head);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s  [%s]\n", rows[i].text, h->regions[rows[i].region].slug);
    if (pp_commit(h, f, true, why, whylen) < 0) goto fail;
    int W = 1100, H = 70 + 18 * (int)n;
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(surf);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_select_font_face(cr, "DejaVu Sans Mono", CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 10);
    pp_text(cr, 10, 8, 0, 0, sub);
    pp_text(cr, 30, 30, 0, 0, head);
    for (size_t i = 0; i < n; i++) {
        double y = 50 + 18 * (double)i;
        if (isnan(rows[i].eff))
            pp_hatch(cr, 10, y, 14, 12);
        else {
            pp_set(cr, pp_color_eff(rows[i].eff));
            cairo_rectangle(cr, 10, y, 14, 12);
            cairo_fill(cr);
        }
        cairo_set_source_rgb(cr, 0, 0, 0);
        pp_text(cr, 30, y, 0, 0, rows[i].text);
    }
    cairo_destroy(cr);
    int rc = pp_write_png(h, surf, "index.png", why, whylen);
    cairo_surface_destroy(surf);
    free(rows);
    return rc;
fail:
    free(rows);
    return SCAL_EIO;
}

static const char *const needs[] = {"time", NULL};
static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_OUTPUT, needs, NULL, run};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "index",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "index.txt / index.png: region tree with time, efficiency at the largest "
                   "thread count and rank",
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
