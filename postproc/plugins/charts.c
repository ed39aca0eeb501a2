// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: per region the speedup chart (one line per input, ideal line) and the efficiency
// chart of the PaScal Viewer paper (efficiency vs threads per input), both with min-max error bars
// over the repetitions, and, when the campaign has energy, an energy chart
// (charts/<region>-speedup.png, -efficiency.png, -energy.png).
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "util.h"

enum { W = 820, H = 520, L = 70, R = 150, T = 50, B = 60 };

static int chart(const struct scal_pp_host *h, size_t r, size_t s, const char *metric,
                 const char *ytitle, bool ideal, const char *rel, char *why, size_t whylen)
{
    bool bars = !strcmp(metric, "speedup") || !strcmp(metric, "efficiency");
    const struct scal_pp_matrix *m = h->get(h, r, s, metric);
    if (!m) return SCAL_OK;
    double ymax = 0;
    size_t b = (size_t)h->baseline_column;
    for (size_t i = 0; i < (size_t)m->rows * m->cols; i++)
        if (m->values[i] > ymax) ymax = m->values[i];
    if (ideal) ymax = fmax(ymax, (double)h->threads[m->cols - 1] / h->threads[b]);
    if (!(ymax > 0)) ymax = 1;
    /* Speedup on a log2 axis when it spans more than 16x (the ideal line is then straight). */
    double ymin = ymax;
    for (size_t i = 0; i < (size_t)m->rows * m->cols; i++)
        if (m->values[i] > 0 && m->values[i] < ymin) ymin = m->values[i];
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
    double dx = m->cols > 1 ? pw / (m->cols - 1) : 0;
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, L, T, pw, ph);
    cairo_stroke(cr);
    pp_font(cr, 10, false);
    for (size_t x = 0; x < m->cols; x++) {
        snprintf(buf, sizeof(buf), "%d", h->threads[x]);
        pp_text(cr, L + x * dx, T + ph + 4, 0.5, 0, buf);
    }
    for (int k = 0; k <= 4; k++) {
        double v = logy ? exp2(log2(ymin) + (log2(ymax) - log2(ymin)) * k / 4) : ymax * k / 4;
        snprintf(buf, sizeof(buf), "%.3g", v);
        pp_text(cr, L - 4, YPOS(v), 1, 0.5, buf);
    }
    pp_font(cr, 11, false);
    pp_text(cr, L + pw / 2, H - 22, 0.5, 0, "threads");
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
        for (size_t x = 0; x < m->cols; x++) {
            double v = (double)h->threads[x] / h->threads[b];
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
