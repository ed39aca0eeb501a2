/* SPDX-License-Identifier: BSD-3-Clause */
/* Colour maps and cairo helpers shared by the PNG output plugins (diagrams, charts, index). */
#ifndef SCAL_PP_DRAW_H
#define SCAL_PP_DRAW_H

#include <cairo.h>
#include <stdbool.h>

#include "scal/postproc.h"

struct pp_rgb {
    double r, g, b;
};

/* Efficiency ramp (one ramp, 0 -> 1, clamped): #440154 -> #21918C -> #FDE725. */
struct pp_rgb pp_color_eff(double v);
/* Differences: white -> #004337 for positive, white -> #5D3506 for negative, |v| / vmax. */
struct pp_rgb pp_color_diff(double v, double vmax);
/* Efficiency with values above 1 (superlinear) in their own range, 1..vmax, yellow to red. */
struct pp_rgb pp_color_eff_hi(double v, double vmax);
/* The grey of missing cells (drawn hatched). */
struct pp_rgb pp_color_missing(void);
/* Largest |value| of a matrix (0 when empty). */
double pp_absmax(const struct scal_pp_matrix *m);

void pp_set(cairo_t *cr, struct pp_rgb c);
void pp_font(cairo_t *cr, double size, bool bold);
/* Draws text with its anchor: ax/ay in 0..1 (0 = left/top, 0.5 = centre). */
void pp_text(cairo_t *cr, double x, double y, double ax, double ay, const char *s);
void pp_text_vertical(cairo_t *cr, double x, double y, const char *s);
void pp_hatch(cairo_t *cr, double x, double y, double w, double h);

/* Writes an image surface (CAIRO_FORMAT_RGB24) as the PNG file output_dir/rel, created through
 * the host's safe creation. Encoded by libpng directly at a fast compression level with the "sub"
 * filter: the diagrams are flat colour areas, which compress almost as well that way and several
 * times faster than cairo's default encoder. */
int pp_write_png(const struct scal_pp_host *h, cairo_surface_t *img, const char *rel, char *why,
                 size_t whylen);
/* A vector surface ("svg" or "pdf") writing into output_dir/rel (created through the host's safe
 * creation); *file receives the open file, committed by pp_finish_vector. NULL on error. */
cairo_surface_t *pp_vector_surface(const struct scal_pp_host *h, const char *fmt, const char *rel,
                                   double w, double hgt, FILE **file, char *why, size_t whylen);
/* Finishes a surface of pp_vector_surface, destroys it and commits its file. */
int pp_finish_vector(const struct scal_pp_host *h, cairo_surface_t *s, FILE *file, const char *rel,
                     char *why, size_t whylen);
#endif
