// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: per region the speedup chart (one line per input, ideal line) and the efficiency
// chart of the PaScal Viewer paper (efficiency vs threads per input), both with min-max error bars
// over the repetitions, and, when the campaign has energy, an energy chart
// (charts/<region>-speedup.png, -efficiency.png, -energy.png). Speedup and efficiency go on
// to the thread counts nobody ran (2, 4 and 8 x the largest) as the region's model predicts
// them (postproc/model): dashed, with the prediction interval as a band.
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "region.h"
#include "util.h"

/* ---- predicted configurations (the region's model) ---- */

#define NEXT 3 /* predicted thread counts: 2, 4, 8 x the largest measured */

struct predicted {
    size_t n; /* 0: none drawn */
    double threads[NEXT];
    double *v, *lo, *hi; /* rows x NEXT (speedup or efficiency), NaN where no prediction */
};

/* The metric's predicted values per input at the extra thread counts: speedup = measured baseline
 * time / predicted time (its interval from the time's), efficiency = speedup / threads ratio. */
static int predict(const struct scal_pp_host *h, size_t r, size_t s, const char *metric,
                   const struct scal_pp_matrix *m, struct predicted *pr)
{
    memset(pr, 0, sizeof(*pr));
    const struct scal_pp_matrix *t = h->get(h, r, s, "time");
    double *sizes = malloc((h->ninputs + 1) * sizeof(*sizes));
    struct scal_region_model rm = {0};
    int rc = SCAL_ENOMEM;
    if (!sizes || !t) goto out;
    pr->v = malloc(3 * (m->rows * NEXT + 1) * sizeof(*pr->v));
    if (!pr->v) goto out;
    pr->lo = pr->v + m->rows * NEXT, pr->hi = pr->lo + m->rows * NEXT;
    if ((rc = scal_model_input_sizes(h, sizes)) < 0 ||
        (rc = scal_model_region(h, r, s, "time", sizes, &rm)) < 0)
        goto out;
    size_t b = (size_t)h->baseline_column;
    bool eff = !strcmp(metric, "efficiency"), any = false;
    for (size_t k = 0; k < NEXT; k++)
        pr->threads[k] = (double)h->threads[h->nthreads - 1] * (2 << k);
    for (size_t y = 0; y < m->rows; y++)
        for (size_t k = 0; k < NEXT; k++) {
            size_t i = y * NEXT + k;
            const struct scal_model *md = scal_region_model_piece(&rm, y);
            double p = pr->threads[k], v, lo, hi, base = pp_at(t, y, b);
            char why[200];
            pr->v[i] = pr->lo[i] = pr->hi[i] = NAN;
            if (!md || !scal_model_predict(md, rm.uses_n ? sizes[y] : 1, p, &v, &lo, &hi, why,
                                           sizeof(why)))
                continue;
            double scale = eff ? (double)h->threads[b] / p : 1;
            pr->v[i] = base / v * scale, pr->lo[i] = base / hi * scale,
            pr->hi[i] = base / lo * scale;
            any |= isfinite(pr->v[i]);
        }
    pr->n = any ? NEXT : 0;
    rc = SCAL_OK;
out:
    scal_region_model_free(&rm);
    free(sizes);
    if (rc < 0 || !pr->n) free(pr->v), memset(pr, 0, sizeof(*pr));
    return rc;
}

enum { W = 820, H = 520, L = 70, R = 150, T = 50, B = 60 };

static int chart(const struct scal_pp_host *h, size_t r, size_t s, const char *metric,
                 const char *ytitle, bool ideal, const char *rel, char *why, size_t whylen)
{
    bool bars = !strcmp(metric, "speedup") || !strcmp(metric, "efficiency");
    const struct scal_pp_matrix *m = h->get(h, r, s, metric);
    if (!m) return SCAL_OK;
    struct predicted pr = {0};
    int prc = bars ? predict(h, r, s, metric, m, &pr) : SCAL_OK;
    if (prc < 0) return scal__why(why, whylen, prc, "model of %s", h->regions[r].label);
    double ymax = 0;
    size_t b = (size_t)h->baseline_column;
    for (size_t i = 0; i < (size_t)m->rows * m->cols; i++)
        if (m->values[i] > ymax) ymax = m->values[i];
    for (size_t i = 0; i < m->rows * pr.n; i++)
        if (pr.hi[i] > ymax) ymax = pr.hi[i];
    if (ideal)
        ymax = fmax(ymax, (pr.n ? pr.threads[pr.n - 1] : (double)h->threads[m->cols - 1]) /
                              h->threads[b]);
    if (!(ymax > 0)) ymax = 1;
    /* Speedup on a log2 axis when it spans more than 16x (the ideal line is then straight). */
    double ymin = ymax;
    for (size_t i = 0; i < (size_t)m->rows * m->cols; i++)
        if (m->values[i] > 0 && m->values[i] < ymin) ymin = m->values[i];
    for (size_t i = 0; i < m->rows * pr.n; i++)
        if (pr.lo[i] > 0 && pr.lo[i] < ymin) ymin = pr.lo[i];
    bool logy = ideal && ymax / ymin > 16;
    if (logy) ymin = exp2(floor(log2(ymin)));
#define YPOS(v)                                                                                    \
    (logy ? T + ph - ph * (log2(v) - log2(ymin)) / (log2(ymax) - log2(ymin))                       \
          : T + ph - ph * (v) / ymax)
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(surf);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    pp_font(cr, 14, true);
    char buf[600];
    snprintf(buf, sizeof(buf), "%s: %s", h->regions[r].label, ytitle);
    pp_text(cr, W / 2.0, 12, 0.5, 0, buf);
    double pw = W - L - R, ph = H - T - B;
    size_t ncols = m->cols + pr.n; /* measured, then predicted thread counts */
    double dx = ncols > 1 ? pw / (ncols - 1) : 0;
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, L, T, pw, ph);
    cairo_stroke(cr);
    pp_font(cr, 10, false);
    for (size_t x = 0; x < ncols; x++) {
        if (x >= m->cols) cairo_set_source_rgb(cr, 0.45, 0.45, 0.45); /* predicted */
        snprintf(buf, sizeof(buf), "%.0f",
                 x < m->cols ? (double)h->threads[x] : pr.threads[x - m->cols]);
        pp_text(cr, L + x * dx, T + ph + 4, 0.5, 0, buf);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (int k = 0; k <= 4; k++) {
        double v = logy ? exp2(log2(ymin) + (log2(ymax) - log2(ymin)) * k / 4) : ymax * k / 4;
        snprintf(buf, sizeof(buf), "%.3g", v);
        pp_text(cr, L - 4, YPOS(v), 1, 0.5, buf);
    }
    pp_font(cr, 11, false);
    pp_text(cr, L + pw / 2, H - 22, 0.5, 0,
            pr.n ? "threads (grey: predicted by the model, dashed, band: 90 % interval)"
                 : "threads");
    pp_text_vertical(cr, 16, T + ph / 2, ytitle);
    cairo_set_line_width(cr, 2);
    size_t stepl = m->rows > 16 ? (m->rows + 15) / 16 : 1;
    for (size_t y = 0; y < m->rows; y++) {
        struct pp_rgb c = pp_color_eff(m->rows > 1 ? 0.9 * y / (m->rows - 1) : 0);
        pp_set(cr, c);
        bool pen = false;
        for (size_t x = 0; x < m->cols; x++) {
            double v = pp_at(m, y, x);
            if (isnan(v)) { /* a gap breaks the line */
                pen = false;
                continue;
            }
            double px = L + x * dx, py = YPOS(fmax(v, ymin));
            pen ? cairo_line_to(cr, px, py) : cairo_move_to(cr, px, py);
            pen = true;
        }
        cairo_stroke(cr);
        if (pr.n) { /* the model's prediction: band, then the dashed line from the last cell */
            double last = pp_at(m, y, m->cols - 1), band_lo[NEXT], band_hi[NEXT];
            double floor_v = logy ? ymin : 0;
            for (size_t k = 0; k < pr.n; k++) {
                band_lo[k] = fmax(fmin(pr.lo[y * NEXT + k], ymax), floor_v);
                band_hi[k] = fmax(fmin(pr.hi[y * NEXT + k], ymax), floor_v);
            }
            cairo_save(cr);
            cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.18);
            bool open = isfinite(last); /* the band opens at the last measured value */
            if (open) cairo_move_to(cr, L + (m->cols - 1) * dx, YPOS(fmax(fmin(last, ymax), ymin)));
            for (size_t k = 0; k < pr.n; k++)
                if (isfinite(band_lo[k]) && isfinite(band_hi[k])) {
                    double px = L + (m->cols + k) * dx;
                    open ? cairo_line_to(cr, px, YPOS(band_hi[k]))
                         : cairo_move_to(cr, px, YPOS(band_hi[k]));
                    open = true;
                }
            for (size_t k = pr.n; open && k-- > 0;)
                if (isfinite(band_lo[k]) && isfinite(band_hi[k]))
                    cairo_line_to(cr, L + (m->cols + k) * dx, YPOS(band_lo[k]));
            if (open) cairo_fill(cr);
            double dash[] = {5, 4};
            cairo_set_dash(cr, dash, 2, 0);
            pp_set(cr, c);
            bool pen = isfinite(last);
            if (pen) cairo_move_to(cr, L + (m->cols - 1) * dx, YPOS(fmax(last, ymin)));
            for (size_t k = 0; k < pr.n; k++) {
                double v = pr.v[y * NEXT + k];
                if (!isfinite(v)) {
                    pen = false;
                    continue;
                }
                double px = L + (m->cols + k) * dx, py = YPOS(fmax(fmin(v, ymax), ymin));
                pen ? cairo_line_to(cr, px, py) : cairo_move_to(cr, px, py);
                pen = true;
            }
            cairo_stroke(cr);
            cairo_restore(cr);
        }
        /* min-max over the repetitions: speedup and efficiency scale with 1 / time */
        const struct scal_pp_matrix *tt = bars ? h->get(h, r, s, "time") : NULL,
                                    *tlo = bars ? h->get(h, r, s, "time_min") : NULL,
                                    *thi = bars ? h->get(h, r, s, "time_max") : NULL;
        cairo_set_line_width(cr, 1);
        for (size_t x = 0; tt && tlo && thi && x < m->cols; x++) {
            double v = pp_at(m, y, x), t = pp_at(tt, y, x);
            double lo = v * t / pp_at(thi, y, x), hi = v * t / pp_at(tlo, y, x);
            if (!isfinite(lo) || !isfinite(hi)) continue;
            double floor_v = logy ? ymin : 0; /* ymin is the log axis' bottom */
            double px = L + x * dx, y0 = YPOS(fmax(fmin(lo, ymax), floor_v)),
                   y1 = YPOS(fmax(fmin(hi, ymax), floor_v));
            cairo_move_to(cr, px, y0);
            cairo_line_to(cr, px, y1);
            cairo_move_to(cr, px - 3, y0);
            cairo_line_to(cr, px + 3, y0);
            cairo_move_to(cr, px - 3, y1);
            cairo_line_to(cr, px + 3, y1);
            cairo_stroke(cr);
        }
        cairo_set_line_width(cr, 2);
        if (y % stepl == 0 || y + 1 == m->rows) {
            double ly = T + 26 + 16 * (y / stepl);
            cairo_rectangle(cr, W - R + 10, ly - 5, 14, 10);
            cairo_fill(cr);
            cairo_set_source_rgb(cr, 0, 0, 0);
            pp_font(cr, 10, false);
            pp_text(cr, W - R + 28, ly, 0, 0.5, h->inputs[y]);
        }
    }
    if (ideal) { /* drawn last: stays visible over the data lines */
        cairo_set_line_width(cr, 1.5);
        double dash[] = {6, 4};
        cairo_set_dash(cr, dash, 2, 0);
        cairo_set_source_rgb(cr, 0, 0, 0);
        for (size_t x = 0; x < ncols; x++) {
            double v =
                (x < m->cols ? (double)h->threads[x] : pr.threads[x - m->cols]) / h->threads[b];
            double px = L + x * dx, py = YPOS(fmin(v, ymax));
            x ? cairo_line_to(cr, px, py) : cairo_move_to(cr, px, py);
        }
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        pp_text(cr, W - R + 10, T + 6, 0, 0.5, "- - ideal");
    }
    if (*h->baseline_note) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        pp_font(cr, 9, false);
        pp_text(cr, L, H - 8, 0, 1, h->baseline_note);
    }
    cairo_destroy(cr);
    free(pr.v);
    int rc = pp_write_png(h, surf, rel, why, whylen);
    cairo_surface_destroy(surf);
    return rc;
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    char rel[600], suffix[32];
    static const struct {
        const char *metric, *file, *title;
        bool ideal;
    } kinds[] = {{"speedup", "speedup", "speedup", true},
                 {"efficiency", "efficiency", "efficiency", false},
                 {"energy", "energy", "energy [J]", false}};
    if (h->nthreads < 2) {
        return scal__why(why, whylen, SCAL_EUNAVAIL, "charts need several thread counts");
    }
    for (size_t r = 0; r < h->nregions; r++) {
        if (!pp_draw(h, r)) continue;
        for (size_t s = 0; s < h->nslices; s++) {
            pp_slice_suffix(h, s, suffix, sizeof(suffix));
            for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
                snprintf(rel, sizeof(rel), "charts/%s%s-%s.png", h->regions[r].slug, suffix,
                         kinds[k].file);
                int rc = chart(h, r, s, kinds[k].metric, kinds[k].title, kinds[k].ideal, rel, why,
                               whylen);
                if (rc < 0) return rc;
            }
        }
    }
    return SCAL_OK;
}

static const char *const needs[] = {"speedup", NULL};
static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_OUTPUT, needs, NULL, run};
static const struct scal_option_desc options[] = {
    {"limit", SCAL_OPT_INT, "10",
     "draw only the whole program and the first N regions by rank (0: every selected region; "
     "scal report --all, --top and --region set 0)"},
    {0},
};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "charts",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "speedup line chart per region (one line per input, ideal line) and energy "
                   "chart when present",
    .options = options,
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
