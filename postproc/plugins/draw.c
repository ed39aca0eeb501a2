// SPDX-License-Identifier: BSD-3-Clause
// Colour maps and cairo text helpers for the PNG outputs (cairo's toy font API with DejaVu Sans).
#include "draw.h"

#include <math.h>

static struct pp_rgb hex(unsigned v)
{
    return (struct pp_rgb){((v >> 16) & 255) / 255.0, ((v >> 8) & 255) / 255.0, (v & 255) / 255.0};
}

static struct pp_rgb mix(struct pp_rgb a, struct pp_rgb b, double t)
{
    return (struct pp_rgb){a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

struct pp_rgb pp_color_eff(double v)
{
    if (!(v > 0)) v = 0;
    if (v > 1) v = 1;
    return v < 0.5 ? mix(hex(0x440154), hex(0x21918C), v / 0.5)
                   : mix(hex(0x21918C), hex(0xFDE725), (v - 0.5) / 0.5);
}

struct pp_rgb pp_color_eff_hi(double v, double vmax)
{
    if (!(v > 1) || !(vmax > 1)) return pp_color_eff(v);
    double t = (v - 1) / (vmax - 1);
    return mix(hex(0xFDE725), hex(0xE34A33), t > 1 ? 1 : t); /* superlinear: yellow to red */
}

struct pp_rgb pp_color_diff(double v, double vmax)
{
    double t = vmax > 0 ? fabs(v) / vmax : 0;
    if (t > 1) t = 1;
    return mix(hex(0xFFFFFF), hex(v >= 0 ? 0x004337 : 0x5D3506), t);
}

struct pp_rgb pp_color_missing(void)
{
    return hex(0xBFBFBF);
}

double pp_absmax(const struct scal_pp_matrix *m)
{
    double v = 0;
    for (size_t i = 0; m && i < (size_t)m->rows * m->cols; i++)
        if (fabs(m->values[i]) > v) v = fabs(m->values[i]);
    return v;
}

void pp_set(cairo_t *cr, struct pp_rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

void pp_font(cairo_t *cr, double size, bool bold)
{
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

void pp_text(cairo_t *cr, double x, double y, double ax, double ay, const char *s)
{
    cairo_text_extents_t e;
    cairo_font_extents_t fe;
    cairo_text_extents(cr, s, &e);
    cairo_font_extents(cr, &fe);
    cairo_move_to(cr, x - ax * e.x_advance, y - ay * (fe.ascent + fe.descent) + fe.ascent);
    cairo_show_text(cr, s);
}

void pp_text_vertical(cairo_t *cr, double x, double y, const char *s)
{
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, -M_PI / 2);
    pp_text(cr, 0, 0, 0.5, 0.5, s);
    cairo_restore(cr);
}

void pp_hatch(cairo_t *cr, double x, double y, double w, double h)
{
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h);
    pp_set(cr, pp_color_missing());
    cairo_fill_preserve(cr);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
    cairo_set_line_width(cr, 1);
    for (double d = -h; d < w; d += 6) {
        cairo_move_to(cr, x + d, y + h);
        cairo_line_to(cr, x + d + h, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}
