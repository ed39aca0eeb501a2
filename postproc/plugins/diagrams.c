// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: the PaScal Viewer's four scalability diagrams per region as one PNG (2x2 layout:
// efficiency, strong scaling / input growth, weak scaling), discrete, smoothed or side by side.
// Beside each PNG, <slug>.geom lists where each panel's cells are and the text drawn in them
// (for tests and image maps).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "draw.h"
#include "util.h"

enum { TITLE_H = 50, LEGEND_H = 34, PANEL_W = 660, PANEL_H = 450 };
enum { GX = 90, GY = 40, GW = 470, GH = 340, BAR_X = GX + GW + 18, BAR_W = 16 };

struct panel {
    const char *metric;
    const char *title;
    int px, py; /* position in the 2x2 block */
};

static const struct panel panels[] = {
    {"efficiency", "efficiency", 0, 0},
    {"diff_strong", "strong scaling: f(x+1, y) - f(x, y)", 1, 0},
    {"diff_input", "input growth: f(x, y+1) - f(x, y)", 0, 1},
    {"diff_weak", "weak scaling: f(x+1, y+1) - f(x, y)", 1, 1},
};

static struct pp_rgb color_of(const struct panel *p, double v, double vmax)
{
    return strcmp(p->metric, "efficiency") ? pp_color_diff(v, vmax) : pp_color_eff_hi(v, vmax);
}

/* Noise of a difference cell: twice (about a 95 % band) the sum of the two efficiencies' spread,
 * each its time's coefficient of variation times the efficiency; a smaller difference is drawn as
 * "within noise", not as a trend. */
static bool within_noise(const struct scal_pp_matrix *m, const struct scal_pp_matrix *e,
                         const struct scal_pp_matrix *cv, size_t y, size_t x)
{
    if (!e || !cv || m->shape == SCAL_PP_FULL) return false;
    size_t y2 = m->shape == SCAL_PP_THREAD_STEP ? y : y + 1;
    size_t x2 = m->shape == SCAL_PP_INPUT_STEP ? x : x + 1;
    double noise =
        2 * (pp_at(cv, y, x) * fabs(pp_at(e, y, x)) + pp_at(cv, y2, x2) * fabs(pp_at(e, y2, x2)));
    return isfinite(noise) && fabs(pp_at(m, y, x)) < noise;
}

/* The colour range of a panel: efficiency 0..max(1, largest value); differences +-(their own
 * maximum | the largest of the three difference panels | 1) by option diff_scale. */
static double panel_range(const struct scal_pp_host *h, size_t r, size_t s, const struct panel *p,
                          const struct scal_pp_matrix *m)
{
    if (!strcmp(p->metric, "efficiency")) {
        double v = 1;
        for (size_t i = 0; m && i < (size_t)m->rows * m->cols; i++)
            if (m->values[i] > v) v = m->values[i];
        return v;
    }
    const char *mode = pp_option(h, "diff_scale");
    if (mode && !strcmp(mode, "fixed")) return 1;
    if (mode && !strcmp(mode, "own")) return pp_absmax(m);
    double v = 0;
    for (size_t k = 1; k < sizeof(panels) / sizeof(panels[0]); k++)
        v = fmax(v, pp_absmax(h->get(h, r, s, panels[k].metric)));
    return v;
}

static void col_label(const struct scal_pp_host *h, const struct scal_pp_matrix *m, size_t x,
                      char *out, size_t len)
{
    if (m->shape == SCAL_PP_THREAD_STEP || m->shape == SCAL_PP_BOTH_STEP)
        snprintf(out, len, "%d", h->threads[x + 1]);
    else
        snprintf(out, len, "%d", h->threads[x]);
}

static const char *row_label(const struct scal_pp_host *h, const struct scal_pp_matrix *m, size_t y)
{
    return (m->shape == SCAL_PP_INPUT_STEP || m->shape == SCAL_PP_BOTH_STEP) ? h->inputs[y + 1]
                                                                             : h->inputs[y];
}

static double interp(const struct scal_pp_matrix *m, double fx, double fy)
{
    if (fx < 0) fx = 0;
    if (fy < 0) fy = 0;
    if (fx > m->cols - 1) fx = m->cols - 1;
    if (fy > m->rows - 1) fy = m->rows - 1;
    size_t x0 = (size_t)fx, y0 = (size_t)fy;
    size_t x1 = x0 + 1 < m->cols ? x0 + 1 : x0, y1 = y0 + 1 < m->rows ? y0 + 1 : y0;
    double tx = fx - x0, ty = fy - y0;
    double a = pp_at(m, y0, x0), b = pp_at(m, y0, x1), c = pp_at(m, y1, x0), d = pp_at(m, y1, x1);
    if (isnan(a) || isnan(b) || isnan(c) || isnan(d)) /* near a gap: nearest cell */
        return pp_at(m, (size_t)lround(fy), (size_t)lround(fx));
    return (a * (1 - tx) + b * tx) * (1 - ty) + (c * (1 - tx) + d * tx) * ty;
}

struct panel_data {
    const struct scal_pp_matrix *m, *tflags, *eff, *cv;
    double vmax;
};

static void draw_panel(cairo_t *cr, const struct scal_pp_host *h, const struct panel *p,
                       const struct panel_data *pd, double ox, double oy, bool smooth, FILE *geom,
                       int block)
{
    const struct scal_pp_matrix *m = pd->m, *tflags = pd->tflags;
    bool is_eff = !strcmp(p->metric, "efficiency");
    char buf[64];
    pp_set(cr, (struct pp_rgb){0, 0, 0});
    pp_font(cr, 13, true);
    pp_text(cr, ox + GX + GW / 2.0, oy + 12, 0.5, 0, p->title);
    if (!m || m->rows == 0 || m->cols == 0) {
        pp_font(cr, 12, false);
        pp_text(cr, ox + GX + GW / 2.0, oy + GY + GH / 2.0, 0.5, 0.5,
                "not enough configurations for this diagram");
        return;
    }
    /* --transpose (option transpose=1): inputs across, thread counts up, as the 2022 paper draws.
     */
    const char *tro = pp_option(h, "transpose");
    bool tr = tro && (!strcmp(tro, "1") || !strcmp(tro, "true"));
    size_t ncx = tr ? m->rows : m->cols, ncy = tr ? m->cols : m->rows;
    double cw = (double)GW / ncx, ch = (double)GH / ncy;
    double gx = ox + GX, gy = oy + GY;
    double vmax = pd->vmax;
    fprintf(geom, "panel %d %s %.3f %.3f %.6f %.6f %u %u %.9g%s\n", block, p->metric, gx, gy, cw,
            ch, m->rows, m->cols, vmax, tr ? " transposed" : "");
    if (smooth) {
        int w = GW, hh = GH;
        cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, hh);
        unsigned char *data = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img);
        cairo_surface_flush(img);
        for (int py = 0; py < hh; py++)
            for (int px = 0; px < w; px++) {
                double fX = (px + 0.5) / cw - 0.5, fY = (ncy - 1) - ((py + 0.5) / ch - 0.5);
                double fx = tr ? fY : fX, fy = tr ? fX : fY;
                double v = interp(m, fx, fy);
                struct pp_rgb c = isnan(v) ? pp_color_missing() : color_of(p, v, vmax);
                uint32_t pix = ((uint32_t)lround(c.r * 255) << 16) |
                               ((uint32_t)lround(c.g * 255) << 8) | (uint32_t)lround(c.b * 255);
                *(uint32_t *)(data + py * stride + px * 4) = pix;
            }
        cairo_surface_mark_dirty(img);
        cairo_set_source_surface(cr, img, gx, gy);
        cairo_paint(cr);
        cairo_surface_destroy(img);
    }
    bool numbers = !smooth && cw >= 30 && ch >= 13;
    double fs = fmin(fmin(ch * 0.55, cw / 4.0), 11);
    for (size_t y = 0; y < m->rows; y++)
        for (size_t x = 0; x < m->cols; x++) {
            double v = pp_at(m, y, x);
            double cx = gx + (tr ? y : x) * cw, cy = gy + (ncy - 1 - (tr ? x : y)) * ch;
            if (isnan(v)) {
                pp_hatch(cr, cx, cy, cw, ch);
                continue;
            }
            bool quiet = within_noise(m, pd->eff, pd->cv, y, x);
            if (quiet) fprintf(geom, "noise %d %s %zu %zu\n", block, p->metric, y, x);
            if (smooth) continue;
            struct pp_rgb c = quiet ? (struct pp_rgb){0.97, 0.97, 0.97} : color_of(p, v, vmax);
            pp_set(cr, c);
            cairo_rectangle(cr, cx, cy, cw, ch);
            cairo_fill(cr);
            if (quiet) { /* within noise: pale grey with a "~" instead of a trend colour */
                cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
                pp_font(cr, fmin(ch, cw) * 0.5, false);
                if (!numbers) {
                    pp_text(cr, cx + cw / 2, cy + ch / 2, 0.5, 0.5, "~");
                    fprintf(geom, "text %d %s %zu %zu ~\n", block, p->metric, y, x);
                }
            }
            if (is_eff && m->flags && (m->flags[y * m->cols + x] & SCAL_PP_CELL_TEAM)) {
                /* observed team size differs from the requested one: blue frame */
                fprintf(geom, "team %zu %zu\n", y, x);
                cairo_set_source_rgb(cr, 0.1, 0.3, 0.9);
                cairo_set_line_width(cr, fmax(1.5, fmin(cw, ch) * 0.08));
                cairo_rectangle(cr, cx + 1.5, cy + 1.5, cw - 3, ch - 3);
                cairo_stroke(cr);
            }
            if (numbers) {
                double lum = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
                cairo_set_source_rgb(cr, lum < 0.5 ? 1 : 0, lum < 0.5 ? 1 : 0, lum < 0.5 ? 1 : 0);
                pp_font(cr, fs, false);
                /* a within-noise cell keeps its number, marked "~" like the cells too small
                 * for numbers */
                snprintf(buf, sizeof(buf), strcmp(p->metric, "efficiency") ? "%s%+.2f" : "%s%.2f",
                         quiet ? "~" : "", v);
                fprintf(geom, "text %d %s %zu %zu %s\n", block, p->metric, y, x, buf);
                pp_text(cr, cx + cw / 2, cy + ch / 2, 0.5, 0.5, buf);
            }
            if (tflags && m->shape == SCAL_PP_FULL && tflags->flags &&
                (tflags->flags[y * m->cols + x] & SCAL_PP_CELL_NOISY)) {
                cairo_set_source_rgb(cr, 0.85, 0.1, 0.1); /* noisy: red corner mark */
                cairo_move_to(cr, cx + cw, cy);
                cairo_line_to(cr, cx + cw - fmin(cw, ch) * 0.3, cy);
                cairo_line_to(cr, cx + cw, cy + fmin(cw, ch) * 0.3);
                cairo_fill(cr);
            }
        }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, gx, gy, GW, GH);
    cairo_stroke(cr);
    /* Axes: every label while they fit (discrete), first and last only when smoothed. */
    pp_font(cr, 10, false);
    size_t stepx = (size_t)ceil(36.0 / cw), stepy = (size_t)ceil(13.0 / ch);
    for (size_t X = 0; X < ncx; X++) {
        if (smooth ? (X != 0 && X + 1 != ncx) : (X % stepx && X + 1 != ncx)) continue;
        if (tr)
            snprintf(buf, sizeof(buf), "%s", row_label(h, m, X));
        else
            col_label(h, m, X, buf, sizeof(buf));
        pp_text(cr, gx + (X + 0.5) * cw, gy + GH + 4, 0.5, 0, buf);
    }
    for (size_t Y = 0; Y < ncy; Y++) {
        if (smooth ? (Y != 0 && Y + 1 != ncy) : (Y % stepy && Y + 1 != ncy)) continue;
        if (tr)
            col_label(h, m, Y, buf, sizeof(buf));
        else
            snprintf(buf, sizeof(buf), "%s", row_label(h, m, Y));
        pp_text(cr, gx - 5, gy + (ncy - 1 - Y + 0.5) * ch, 1, 0.5, buf);
    }
    const char *th =
        m->shape == SCAL_PP_FULL || m->shape == SCAL_PP_INPUT_STEP ? "threads" : "threads (to)";
    const char *in =
        m->shape == SCAL_PP_FULL || m->shape == SCAL_PP_THREAD_STEP ? "input" : "input (to)";
    pp_font(cr, 11, false);
    pp_text(cr, gx + GW / 2.0, gy + GH + 22, 0.5, 0, tr ? in : th);
    pp_text_vertical(cr, ox + 14, gy + GH / 2.0, tr ? th : in);
    /* Colour bar. */
    double lo = is_eff ? 0 : -vmax, hi = vmax;
    fprintf(geom, "range %d %s %.9g %.9g\n", block, p->metric, lo, hi);
    for (int i = 0; i < GH; i++) {
        double v = hi - (hi - lo) * (i + 0.5) / GH;
        pp_set(cr, color_of(p, v, vmax));
        cairo_rectangle(cr, ox + BAR_X, gy + i, BAR_W, 1);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, ox + BAR_X, gy, BAR_W, GH);
    cairo_stroke(cr);
    pp_font(cr, 9, false);
    for (int k = 0; k <= 4; k++) {
        double v = hi - (hi - lo) * k / 4.0;
        snprintf(buf, sizeof(buf), "%.2f", v);
        pp_text(cr, ox + BAR_X + BAR_W + 3, gy + GH * k / 4.0, 0, 0.5, buf);
    }
    if (is_eff && hi > 1) { /* the superlinear range above 1 has its own mark and label */
        double y1 = gy + GH * (hi - 1) / (hi - lo);
        cairo_move_to(cr, ox + BAR_X - 3, y1);
        cairo_line_to(cr, ox + BAR_X + BAR_W + 3, y1);
        cairo_stroke(cr);
        pp_text(cr, ox + BAR_X - 4, y1 - 6, 1, 0.5, ">1 superlinear");
    }
}

/* Draws one region and slice as FMT ("png", "svg" or "pdf": cairo's image, SVG and PDF
 * surfaces); the .geom file is written with the first format only (geom_path NULL after). */
static int draw_format(const struct scal_pp_host *h, size_t r, size_t s, const char *fmt,
                       bool with_geom, char *why, size_t whylen)
{
    char rel[600], grel[600], suffix[32], title[600];
    int blocks = h->mode == SCAL_PP_BOTH ? 2 : 1;
    int W = blocks * 2 * PANEL_W, Ht = TITLE_H + 2 * PANEL_H + LEGEND_H;
    pp_slice_suffix(h, s, suffix, sizeof(suffix));
    snprintf(rel, sizeof(rel), "diagrams/%s%s.%s", h->regions[r].slug, suffix, fmt);
    snprintf(grel, sizeof(grel), "diagrams/%s%s.geom", h->regions[r].slug, suffix);
    /* the geometry of the cells (tests, tools), with the first format only */
    FILE *geom = with_geom ? pp_create(h, grel, why, whylen) : fopen("/dev/null", "w");
    if (!geom) return SCAL_EIO;
    fprintf(geom, "image %d %d\n", W, Ht);
    bool png = !strcmp(fmt, "png");
    FILE *vf = NULL;
    cairo_surface_t *surf = png ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, Ht)
                                : pp_vector_surface(h, fmt, rel, W, Ht, &vf, why, whylen);
    if (!surf) {
        if (with_geom)
            pp_commit(h, geom, false, why, whylen);
        else
            fclose(geom);
        return SCAL_EIO;
    }
    cairo_t *cr = cairo_create(surf);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    pp_font(cr, 18, true);
    snprintf(title, sizeof(title), "%s%s%s", h->regions[r].label, *h->slices[s] ? "  @ " : "",
             h->slices[s]);
    pp_text(cr, W / 2.0, 14, 0.5, 0, title);
    const struct scal_pp_matrix *tm = h->get(h, r, s, "time");
    const struct scal_pp_matrix *em = h->get(h, r, s, "efficiency");
    const struct scal_pp_matrix *cvm = h->get(h, r, s, "time_cv");
    for (int b = 0; b < blocks; b++) {
        bool smooth = h->mode == SCAL_PP_SMOOTH || (h->mode == SCAL_PP_BOTH && b == 1);
        if (blocks == 2) {
            pp_font(cr, 12, false);
            pp_text(cr, (b + 0.5) * 2 * PANEL_W, 36, 0.5, 0, smooth ? "smoothed" : "discrete");
        }
        for (size_t k = 0; k < sizeof(panels) / sizeof(panels[0]); k++) {
            const struct scal_pp_matrix *m = h->get(h, r, s, panels[k].metric);
            struct panel_data pd = {m, tm, em, cvm, panel_range(h, r, s, &panels[k], m)};
            draw_panel(cr, h, &panels[k], &pd, b * 2 * PANEL_W + panels[k].px * PANEL_W,
                       TITLE_H + panels[k].py * PANEL_H, smooth, geom, b);
        }
    }
    /* Legend: missing cells, noisy cells, baseline. */
    double ly = TITLE_H + 2 * PANEL_H + 8;
    pp_hatch(cr, 20, ly, 18, 16);
    cairo_set_source_rgb(cr, 0, 0, 0);
    pp_font(cr, 11, false);
    pp_text(cr, 44, ly + 8, 0, 0.5, "missing (no valid run)");
    cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
    cairo_move_to(cr, 230, ly);
    cairo_line_to(cr, 218, ly);
    cairo_line_to(cr, 230, ly + 12);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    char lg[600];
    double bt = pp_at(h->get(h, r, s, "baseline_threads"), 0, 0);
    char base[200];
    if (isnan(bt))
        snprintf(base, sizeof(base), "no baseline");
    else
        snprintf(base, sizeof(base), "baseline: %.0f thread%s", bt, bt == 1 ? "" : "s");
    const char *scale = pp_option(h, "diff_scale");
    snprintf(lg, sizeof(lg),
             "noisy (CV > %.0f%%)   ~ within noise   blue frame: observed team differs   "
             "statistic: %s   %s   difference scale: %s",
             100 * h->noise_cv, h->stat, base, scale && *scale ? scale : "shared");
    pp_text(cr, 238, ly + 8, 0, 0.5, lg);
    cairo_destroy(cr);
    int rc;
    if (png) {
        rc = pp_write_png(h, surf, rel, why, whylen);
        cairo_surface_destroy(surf);
    } else
        rc = pp_finish_vector(h, surf, vf, rel, why, whylen);
    if (!with_geom)
        fclose(geom);
    else if (pp_commit(h, geom, rc == SCAL_OK, why, whylen) < 0 && rc == SCAL_OK)
        rc = SCAL_EIO;
    return rc;
}

/* Every format of option `format` (a comma-separated list of png, svg, pdf; default png). */
static int draw_region(const struct scal_pp_host *h, size_t r, size_t s, char *why, size_t whylen)
{
    const char *list = pp_option(h, "format");
    if (!list || !*list) list = "png";
    bool first = true;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char fmt[8];
        snprintf(fmt, sizeof(fmt), "%.*s", (int)(len < 7 ? len : 7), p);
        if (strcmp(fmt, "png") && strcmp(fmt, "svg") && strcmp(fmt, "pdf"))
            return scal__why(why, whylen, SCAL_EINVAL, "format '%.*s': use png, svg or pdf",
                             (int)len, p);
        int rc = draw_format(h, r, s, fmt, first, why, whylen);
        if (rc < 0) return rc;
        first = false;
        p += len + (e ? 1 : 0);
    }
    return SCAL_OK;
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    if (h->single_run || h->nthreads < 2) {
        return scal__why(why, whylen, SCAL_EUNAVAIL,
                         "the diagrams need several thread counts (this data has %zu "
                         "configuration%s)",
                         h->nthreads * h->ninputs, h->nthreads * h->ninputs == 1 ? "" : "s");
    }
    /* PNG encoding dominates (libpng's filtering): with many regions a forked child draws every
     * other region so that a second core is used. The process is single-threaded here and the
     * child only writes its own files, then _exit()s. Option jobs=1 turns this off. */
    const char *jobs = pp_option(h, "jobs");
    bool split = h->nregions >= 16 && sysconf(_SC_NPROCESSORS_ONLN) > 1 &&
                 !(jobs && strtol(jobs, NULL, 10) == 1);
    pid_t child = split ? fork() : -1;
    int part = child == 0 ? 1 : 0, rc = SCAL_OK;
    for (size_t r = 0; r < h->nregions && rc == 0; r++) {
        if (!pp_draw(h, r) || (child >= 0 && (int)(r % 2) != part)) continue;
        for (size_t s = 0; s < h->nslices && rc == 0; s++)
            rc = draw_region(h, r, s, why, whylen);
    }
    if (child == 0) _exit(rc < 0 ? 1 : 0);
    if (child > 0) {
        int status = 0;
        if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (rc == 0)
                rc = scal__why(why, whylen, SCAL_EIO, "the drawing process for odd regions failed");
        }
    }
    return rc;
}

static const char *const needs[] = {"efficiency", NULL};
static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_OUTPUT, needs, NULL, run};
static const struct scal_option_desc options[] = {
    {"limit", SCAL_OPT_INT, "10",
     "draw only the whole program and the first N regions by rank (0: every selected region; "
     "scal report --all, --top and --region set 0)"},
    {"transpose", SCAL_OPT_BOOL, "0",
     "inputs across and thread counts up, as the PaScal Analyzer paper (2022) draws; scal report "
     "--transpose"},
    {"format", SCAL_OPT_LIST, "png",
     "file formats of the diagrams: png, svg, pdf (comma-separated; scal report --format)"},
    {"diff_scale", SCAL_OPT_STRING, "shared",
     "colour scale of the three difference panels: shared (one symmetric scale for the three), "
     "fixed (+-1) or own (each panel its own maximum); scal report --diff-scale"},
    {"jobs", SCAL_OPT_INT, "0",
     "processes drawing the PNG files: 1 draws in this process only; 0 (default) also forks a "
     "second one when there are 16 regions or more and more than one CPU"},
    {0},
};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "diagrams",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "PaScal Viewer diagrams per region (diagrams/<region>.png, 2x2: efficiency, "
                   "strong, input growth, weak)",
    .options = options,
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
