// SPDX-License-Identifier: BSD-3-Clause
// Reads the diagrams back with cairo: image size, the colour of chosen cells against the colour
// map for that cell's value (theoretical program, 5 inputs x 6 thread counts), hatched gaps, and
// smoothed vs discrete rendering.
#include <cairo.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scal_test.h"

#define NI 5
#define NT 6

struct rgb {
    double r, g, b;
};
static struct rgb hexc(unsigned v)
{
    return (struct rgb){((v >> 16) & 255) / 255.0, ((v >> 8) & 255) / 255.0, (v & 255) / 255.0};
}
static struct rgb mix(struct rgb a, struct rgb b, double t)
{
    return (struct rgb){a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}
/* The documented maps (schemas/README-analysis.md), written independently of draw.c. */
static struct rgb eff_color(double v)
{
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    return v < 0.5 ? mix(hexc(0x440154), hexc(0x21918C), v / 0.5)
                   : mix(hexc(0x21918C), hexc(0xFDE725), (v - 0.5) / 0.5);
}
static struct rgb diff_color(double v, double vmax)
{
    return mix(hexc(0xFFFFFF), hexc(v >= 0 ? 0x004337 : 0x5D3506), fabs(v) / vmax);
}

static double E(int y, int x)
{
    double n = 10.0 * (1 << y), p = 1 << x;
    return n * n / (p * (n * n / p + log2(p)));
}

struct panel {
    int block;
    char metric[32];
    double x0, y0, cw, ch, vmax;
    unsigned rows, cols;
};

static struct rgb pixel(cairo_surface_t *s, double x, double y)
{
    unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    uint32_t v = *(uint32_t *)(d + (int)y * stride + (int)x * 4);
    return hexc(v & 0xffffff);
}

static double dist(struct rgb a, struct rgb b)
{
    return fmax(fabs(a.r - b.r), fmax(fabs(a.g - b.g), fabs(a.b - b.b)));
}

/* Cells drawn as "within noise" ("noise BLOCK METRIC Y X" lines): pale grey, not a trend. */
static char noise_cells[4096][48];
static size_t nnoise;

static bool is_noise(const struct panel *p, unsigned y, unsigned x)
{
    char key[48];
    snprintf(key, sizeof(key), "%d %s %u %u", p->block, p->metric, y, x);
    for (size_t i = 0; i < nnoise; i++)
        if (!strcmp(noise_cells[i], key)) return true;
    return false;
}

static int load_geom(const char *path, struct panel *p, int *w, int *h)
{
    FILE *f = fopen(path, "r");
    char line[512], metric[32];
    int n = 0, b;
    unsigned y, x;
    if (!f) return -1;
    if (fscanf(f, "image %d %d\n", w, h) != 2) return -1;
    nnoise = 0;
    while (fgets(line, sizeof(line), f)) {
        if (n < 8 &&
            sscanf(line, "panel %d %31s %lf %lf %lf %lf %u %u %lf", &p[n].block, p[n].metric,
                   &p[n].x0, &p[n].y0, &p[n].cw, &p[n].ch, &p[n].rows, &p[n].cols, &p[n].vmax) == 9)
            n++;
        else if (nnoise < 4096 && sscanf(line, "noise %d %31s %u %u", &b, metric, &y, &x) == 4)
            snprintf(noise_cells[nnoise++], sizeof(noise_cells[0]), "%d %s %u %u", b, metric, y, x);
    }
    fclose(f);
    return n;
}

/* A point inside cell (y, x) clear of the printed number (left part of the cell). */
static void cell_point(const struct panel *p, unsigned y, unsigned x, double fx, double *px,
                       double *py)
{
    *px = p->x0 + (x + fx) * p->cw;
    *py = p->y0 + (p->rows - 1 - y + 0.5) * p->ch;
}

static void check(const char *png, const char *geom, bool gap)
{
    struct panel pn[8];
    int w, h, n = load_geom(geom, pn, &w, &h);
    cairo_surface_t *s = cairo_image_surface_create_from_png(png);
    CHECK(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, "cannot read %s", png);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) return;
    CHECK(n == 8, "%s: %d panels", geom, n);
    CHECK(cairo_image_surface_get_width(s) == w && cairo_image_surface_get_height(s) == h &&
              w == 2640 && h == 984,
          "size %dx%d", cairo_image_surface_get_width(s), cairo_image_surface_get_height(s));
    for (int k = 0; k < n; k++) {
        struct panel *p = &pn[k];
        for (unsigned y = 0; y < p->rows; y++)
            for (unsigned x = 0; x < p->cols; x++) {
                double v, px, py;
                struct rgb want;
                bool missing = gap && ((!strcmp(p->metric, "efficiency") && y == 2 && x == 2));
                if (!strcmp(p->metric, "efficiency"))
                    v = E(y, x), want = eff_color(v);
                else if (!strcmp(p->metric, "diff_strong"))
                    v = E(y, x + 1) - E(y, x), want = diff_color(v, p->vmax);
                else if (!strcmp(p->metric, "diff_input"))
                    v = E(y + 1, x) - E(y, x), want = diff_color(v, p->vmax);
                else
                    v = E(y + 1, x + 1) - E(y, x), want = diff_color(v, p->vmax);
                if (gap) continue; /* the gap region's diffs around the hole are NaN too */
                if (is_noise(p, y, x)) want = (struct rgb){0.97, 0.97, 0.97};
                cell_point(p, y, x, p->block == 0 ? 0.1 : 0.5, &px, &py);
                struct rgb got = pixel(s, px, py);
                CHECK(missing || dist(got, want) < 3.0 / 255,
                      "%s block %d cell (%u,%u) v=%g: got "
                      "%.3f,%.3f,%.3f want %.3f,%.3f,%.3f",
                      p->metric, p->block, y, x, v, got.r, got.g, got.b, want.r, want.g, want.b);
            }
    }
    if (gap) { /* the missing cell is grey/hatched, not the colour of 0 */
        struct panel *p = &pn[0];
        double px, py;
        cell_point(p, 2, 2, 0.1, &px, &py);
        struct rgb got = pixel(s, px, py);
        CHECK(fabs(got.r - got.g) < 0.02 && fabs(got.g - got.b) < 0.02 &&
                  dist(got, eff_color(0)) > 0.2,
              "missing cell not grey: %.3f,%.3f,%.3f", got.r, got.g, got.b);
    } else { /* smoothed differs from discrete near a cell border where values change */
        struct panel *d = &pn[0], *sm = &pn[4];
        CHECK(!strcmp(sm->metric, "efficiency") && sm->block == 1, "panel order");
        double px, py, qx, qy;
        cell_point(d, 0, 4, 0.97, &px, &py);
        cell_point(sm, 0, 4, 0.97, &qx, &qy);
        struct rgb a = pixel(s, px, py), b = pixel(s, qx, qy);
        CHECK(dist(a, eff_color(E(0, 4))) < 3.0 / 255, "discrete border pixel");
        CHECK(dist(a, b) > 0.05, "smoothed equals discrete at a border: %.3f", dist(a, b));
    }
    cairo_surface_destroy(s);
}

int main(int argc, char **argv)
{
    if (argc != 5) return 2;
    check(argv[1], argv[2], false);
    check(argv[3], argv[4], true);
    return scal_test_result("test_png");
}
