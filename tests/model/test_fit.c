// SPDX-License-Identifier: BSD-3-Clause
// Unit test of the model search: Extra-P's published model-selection cases (its single-parameter
// building blocks recovered from exact data, its negative-exponent cases for strong scaling, and
// the reference datasets of its comparison test) give the same term and coefficients; Amdahl and
// USL read as such; pure noise gives no reliable model; predictions carry intervals.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "scal_test.h"

/* Extra-P's default single-parameter search space (i/j, log exponent): each must come back from
 * 200 + 10 * term at x = 2, 4, 8, 16, 32 (as in Extra-P's own modeler test). */
static const int blocks[][3] = {{0, 1, 1}, {0, 1, 2}, {1, 4, 0}, {1, 3, 0},  {1, 4, 1}, {1, 3, 1},
                                {1, 4, 2}, {1, 3, 2}, {1, 2, 0}, {1, 2, 1},  {1, 2, 2}, {2, 3, 0},
                                {3, 4, 0}, {2, 3, 1}, {3, 4, 1}, {4, 5, 0},  {2, 3, 2}, {3, 4, 2},
                                {1, 1, 0}, {1, 1, 1}, {1, 1, 2}, {5, 4, 0},  {5, 4, 1}, {4, 3, 0},
                                {4, 3, 1}, {3, 2, 0}, {3, 2, 1}, {3, 2, 2},  {5, 3, 0}, {7, 4, 0},
                                {2, 1, 0}, {2, 1, 1}, {2, 1, 2}, {9, 4, 0},  {7, 3, 0}, {5, 2, 0},
                                {5, 2, 1}, {5, 2, 2}, {8, 3, 0}, {11, 4, 0}, {3, 1, 0}, {3, 1, 1}};

static double block(const int *b, double x)
{
    return pow(x, (double)b[0] / b[1]) * pow(log2(x), b[2]);
}

/* The model has exactly the constant c0 and one term of exponents (num/den, log) in var 'n' or
 * 'p' with coefficient c1 (relative tolerance tol). */
static bool same_fn(const struct scal_model_fn *f, char var, int num, int den, int lg, double c0,
                    double c1, double tol)
{
    bool got_c0 = c0 == 0, got_c1 = false;
    size_t want = (c0 != 0) + 1;
    if (f->k != want) return false;
    for (size_t j = 0; j < f->k; j++) {
        const struct scal_model_term *t = &f->t[j];
        bool is_const = !t->nn && !t->nl && !t->pn && !t->pl;
        if (is_const) {
            got_c0 = fabs(f->c[j] - c0) <= tol * fabs(c0);
            continue;
        }
        int tn = var == 'n' ? t->nn : t->pn, td = var == 'n' ? t->nd : t->pd;
        int tl = var == 'n' ? t->nl : t->pl;
        int other = var == 'n' ? (t->pn || t->pl) : (t->nn || t->nl);
        got_c1 = !other && tn * den == num * td && tl == lg && fabs(f->c[j] - c1) <= tol * fabs(c1);
    }
    return got_c0 && got_c1;
}

static void fit_n(const double *x, const double *y, size_t n, struct scal_model *m)
{
    struct scal_model_point pts[16];
    for (size_t i = 0; i < n; i++)
        pts[i] = (struct scal_model_point){x[i], 1, y[i], 0};
    CHECK(scal_model_fit(pts, n, true, m) == 0);
}

static void extrap_building_blocks(void)
{
    const double x[] = {2, 4, 8, 16, 32};
    for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
        double y[5];
        for (size_t i = 0; i < 5; i++)
            y[i] = 200 + 10 * block(blocks[b], x[i]);
        struct scal_model m;
        fit_n(x, y, 5, &m);
        char e[200];
        scal_model_expr(&m.f, e, sizeof(e));
        CHECK(m.fitted &&
                  same_fn(&m.f, 'n', blocks[b][0], blocks[b][1], blocks[b][2], 200, 10, 1e-6),
              "block %d/%d log %d: got %s", blocks[b][0], blocks[b][1], blocks[b][2], e);
    }
}

/* Extra-P's negative-exponent (strong scaling) cases that lie in scal's thread space: c + 1000 *
 * p^(-e) at p = 2..32, for c in 2, 30, 400, 5000. */
static void extrap_negative_exponents(void)
{
    static const int neg[][2] = {{-1, 4}, {-1, 2}, {-2, 3}, {-1, 1}, {-5, 4}, {-3, 2}};
    const double c0s[] = {2, 30, 400, 5000};
    for (size_t e = 0; e < sizeof(neg) / sizeof(neg[0]); e++)
        for (size_t c = 0; c < 4; c++) {
            struct scal_model_point pts[5];
            for (int i = 0; i < 5; i++) {
                double p = 2 << i;
                pts[i] = (struct scal_model_point){
                    1, p, c0s[c] + 1000 * pow(p, (double)neg[e][0] / neg[e][1]), 0};
            }
            struct scal_model m;
            CHECK(scal_model_fit(pts, 5, false, &m) == 0);
            char s[200];
            scal_model_expr(&m.f, s, sizeof(s));
            CHECK(m.fitted && same_fn(&m.f, 'p', neg[e][0], neg[e][1], 0, c0s[c], 1000, 1e-6),
                  "p^(%d/%d) + %g: got %s", neg[e][0], neg[e][1], c0s[c], s);
        }
}

/* Reference datasets of Extra-P's comparison test (x = 4 ... 128) with its published models
 * (poly exponent, log exponent; constant, coefficient to the printed precision). */
static void extrap_compare_cases(void)
{
    static const struct {
        int num, den, lg;
        double c0, c1, y[6];
    } cases[] = {
        {0,
         1,
         1,
         392.838,
         683.865,
         {1760.5671478913678, 2444.4317374803613, 3128.296327069355, 3812.1609166583485,
          4496.025506247342, 5179.890095836336}},
        {0,
         1,
         2,
         138.692,
         112.444,
         {588.4695961869953, 1150.6918482661176, 1937.8030011768885, 2949.803054919308,
          4186.692009493378, 5648.469864899094}},
        {1,
         4,
         0,
         231.803,
         757.593,
         {1303.2010356851542, 1505.917143334448, 1746.9885808766455, 2033.672449625761,
          2374.5989460987153, 2780.0311613973026}},
        {1,
         2,
         1,
         198.498,
         330.31,
         {1519.7387478270496, 3001.272390797349, 5483.459690230956, 9541.078290708863,
          16053.382203308038, 26357.722033338472}},
        {1,
         1,
         0,
         218.36,
         796.594,
         {3404.7377336769846, 6591.11563848089, 12963.871448088703, 25709.383067304327,
          51200.406305735574, 102182.45278259806}},
        {3,
         2,
         0,
         993.506,
         789.848,
         {7312.288387091468, 18865.72139149913, 51543.76468510362, 143971.22872036492,
          405395.57506920083, 1144815.2873512912}},
    };
    const double x[] = {4, 8, 16, 32, 64, 128};
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct scal_model m;
        fit_n(x, cases[k].y, 6, &m);
        char e[200];
        scal_model_expr(&m.f, e, sizeof(e));
        CHECK(m.fitted && same_fn(&m.f, 'n', cases[k].num, cases[k].den, cases[k].lg, cases[k].c0,
                                  cases[k].c1, 2e-5),
              "case %zu: got %s", k, e);
    }
    /* a constant dataset: the constant model */
    double y[6];
    for (int i = 0; i < 6; i++)
        y[i] = 124.67898380110276;
    struct scal_model m;
    fit_n(x, y, 6, &m);
    CHECK(m.fitted && m.f.k == 1 && fabs(m.f.c[0] - 124.679) < 1e-3);
    CHECK_STR(scal_model_family(&m.f), "constant");
}

/* Amdahl and USL in p: the family, the serial fraction, where it stops scaling. */
static void laws(void)
{
    struct scal_model_point pts[8];
    for (int i = 0; i < 8; i++) {
        double p = i + 1;
        pts[i] = (struct scal_model_point){1, p, 10 * (0.2 + 0.8 / p), 0};
    }
    struct scal_model m;
    CHECK(scal_model_fit(pts, 8, false, &m) == 0 && m.reliable);
    CHECK_STR(scal_model_family(&m.f), "Amdahl");
    CHECK(fabs(scal_model_serial_fraction(&m.f, 1, 1) - 0.2) < 1e-6);
    double stop = scal_model_stop_threads(&m.f, 1, 1);
    CHECK(stop >= 14 && stop <= 20, "Amdahl 0.2 stops at %g", stop);
    double pred, lo, hi;
    char why[200];
    CHECK(scal_model_predict(&m, 1, 64, &pred, &lo, &hi, why, sizeof(why)), "%s", why);
    CHECK(fabs(pred - 10 * (0.2 + 0.8 / 64)) < 1e-6 && lo <= pred && pred <= hi);
    for (int i = 0; i < 8; i++) {
        double p = i + 1;
        pts[i].y = 10 * (1 + 0.1 * (p - 1) + 0.01 * p * (p - 1)) / p;
    }
    CHECK(scal_model_fit(pts, 8, false, &m) == 0 && m.reliable);
    CHECK_STR(scal_model_family(&m.f), "USL");
}

/* A law that would take time away (10/p - 1 turns negative beyond 10 threads): no term of a
 * time model may have a negative coefficient, so it is not the model chosen. */
static void no_negative_terms(void)
{
    struct scal_model_point pts[8];
    for (int i = 0; i < 8; i++)
        pts[i] = (struct scal_model_point){1, i + 1.0, 10.0 / (i + 1) - 1, 0};
    struct scal_model m;
    CHECK(scal_model_fit(pts, 8, false, &m) == 0 && m.fitted);
    for (size_t j = 0; j < m.f.k; j++)
        CHECK(m.f.c[j] >= 0, "term %zu has coefficient %g", j, m.f.c[j]);
}

/* Uniform noise with no law: no reliable model, and no prediction. */
static void noise(void)
{
    struct scal_model_point pts[32];
    unsigned s = 12345;
    for (int i = 0; i < 32; i++) {
        s = s * 1103515245u + 12345u;
        double u = (double)((s >> 8) & 0xffff) / 65535.0;
        pts[i] = (struct scal_model_point){1000.0 * (1 << (i / 8)), 1 + i % 8, 0.3 + 1.4 * u, 0.02};
    }
    struct scal_model m;
    CHECK(scal_model_fit(pts, 32, true, &m) == 0);
    CHECK(!m.reliable && strstr(m.why, "no reliable model"), "%s", m.why);
    double pred, lo, hi;
    char why[200];
    CHECK(!scal_model_predict(&m, 1000, 16, &pred, &lo, &hi, why, sizeof(why)));
    CHECK(scal_model_fit(pts, 2, true, &m) == 0 && !m.fitted && strstr(m.why, "too few"));
}

int main(void)
{
    extrap_building_blocks();
    extrap_negative_exponents();
    extrap_compare_cases();
    laws();
    no_negative_terms();
    noise();
    return scal_test_result("model.fit");
}
