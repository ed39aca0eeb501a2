// SPDX-License-Identifier: BSD-3-Clause
// Colour maps and cairo text helpers for the PNG outputs (cairo's toy font API with DejaVu Sans).
#include "draw.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "util.h"

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

/* libpng reports an error by longjmp to the point set below; its message is kept. */
static void png_fail(png_structp png, png_const_charp msg)
{
    char *why = png_get_error_ptr(png);
    snprintf(why, 256, "%s", msg);
    png_longjmp(png, 1);
}

static void png_quiet(png_structp png, png_const_charp msg)
{
    (void)png, (void)msg;
}

/* Encodes the image into f (volatile locals: they live across libpng's longjmp). */
static int encode_png(FILE *f, cairo_surface_t *img, char *msg)
{
    int w = cairo_image_surface_get_width(img), hgt = cairo_image_surface_get_height(img);
    int stride = cairo_image_surface_get_stride(img);
    const unsigned char *data = cairo_image_surface_get_data(img);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, msg, png_fail, png_quiet);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    unsigned char *volatile row = malloc((size_t)w * 3 + 1);
    volatile int rc = -1;
    if (!png || !info || !row || !data) {
        snprintf(msg, 256, "out of memory");
        goto out;
    }
    if (setjmp(png_jmpbuf(png))) goto out;
    png_init_io(png, f);
    png_set_compression_level(png, Z_BEST_SPEED);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)hgt, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < hgt; y++) {
        const uint32_t *px = (const uint32_t *)(const void *)(data + (size_t)y * stride);
        for (int x = 0; x < w; x++) { /* RGB24: 0xXXRRGGBB in native byte order */
            row[3 * x] = (unsigned char)(px[x] >> 16);
            row[3 * x + 1] = (unsigned char)(px[x] >> 8);
            row[3 * x + 2] = (unsigned char)px[x];
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    rc = 0;
out:
    free(row);
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    return rc;
}

int pp_write_png(const struct scal_pp_host *h, cairo_surface_t *img, const char *rel, char *why,
                 size_t whylen)
{
    char msg[256] = "";
    cairo_surface_flush(img);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS ||
        cairo_image_surface_get_format(img) != CAIRO_FORMAT_RGB24)
        return scal__why(why, whylen, SCAL_EINVAL, "cannot write %s: not an RGB image (%s)", rel,
                         cairo_status_to_string(cairo_surface_status(img)));
    FILE *f = pp_create(h, rel, why, whylen);
    if (!f) return SCAL_EIO;
    int bad = encode_png(f, img, msg);
    int rc = pp_commit(h, f, !bad, why, whylen);
    if (bad) return scal__why(why, whylen, SCAL_EIO, "cannot write %s: %s", rel, msg);
    return rc;
}

static cairo_status_t to_file(void *closure, const unsigned char *data, unsigned int len)
{
    return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

cairo_surface_t *pp_vector_surface(const struct scal_pp_host *h, const char *fmt, const char *rel,
                                   double w, double hgt, FILE **file, char *why, size_t whylen)
{
    if (!(*file = pp_create(h, rel, why, whylen))) return NULL;
    return !strcmp(fmt, "svg") ? cairo_svg_surface_create_for_stream(to_file, *file, w, hgt)
                               : cairo_pdf_surface_create_for_stream(to_file, *file, w, hgt);
}

int pp_finish_vector(const struct scal_pp_host *h, cairo_surface_t *s, FILE *file, const char *rel,
                     char *why, size_t whylen)
{
    cairo_surface_finish(s); /* the vector surfaces write their file when finished */
    cairo_status_t st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    int rc = pp_commit(h, file, st == CAIRO_STATUS_SUCCESS, why, whylen);
    if (st != CAIRO_STATUS_SUCCESS)
        return scal__why(why, whylen, SCAL_EIO, "cannot write %s: %s", rel,
                         cairo_status_to_string(st));
    return rc;
}
