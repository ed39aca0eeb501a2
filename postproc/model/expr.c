// SPDX-License-Identifier: BSD-3-Clause
// How a model reads: its expression, its family, its serial fraction, where it stops scaling and
// how it grows with the input.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

/* "n^(3/2)*log2(n)" for the n part of a term ("" when none). */
static void part(char *buf, size_t len, char var, int num, int den, int lg)
{
    size_t o = 0;
    buf[0] = '\0';
    if (num < 0) num = -num;
    if (num && den == 1 && num == 1)
        o += (size_t)snprintf(buf + o, len - o, "%c", var);
    else if (num && den == 1)
        o += (size_t)snprintf(buf + o, len - o, "%c^%d", var, num);
    else if (num)
        o += (size_t)snprintf(buf + o, len - o, "%c^(%d/%d)", var, num, den);
    if (lg && o < len)
        o += (size_t)snprintf(buf + o, len - o, "%slog2(%c)%s", o ? "*" : "", var,
                              lg == 2 ? "^2" : "");
}

void scal_model_expr(const struct scal_model_fn *f, char *buf, size_t len)
{
    size_t o = 0;
    char var = f->var ? f->var : 'n';
    buf[0] = '\0';
    for (size_t j = 0; j < f->k && o < len; j++) {
        const struct scal_model_term *t = &f->t[j];
        char np[48] = "", pp[48] = "", nden[48] = "", pden[48] = "", den[100];
        part(t->nn >= 0 ? np : nden, sizeof(np), var, t->nn, t->nd, t->nl);
        part(t->pn >= 0 ? pp : pden, sizeof(pp), 'p', t->pn, t->pd, t->pl);
        snprintf(den, sizeof(den), "%s%s%s%s%s", *nden && *pden ? "(" : "", nden,
                 *nden && *pden ? "*" : "", pden, *nden && *pden ? ")" : "");
        char c[32];
        snprintf(c, sizeof(c), "%.4g", fabs(f->c[j]));
        o += (size_t)snprintf(buf + o, len - o, "%s%s%s%s%s%s%s%s",
                              j ? (f->c[j] < 0 ? " - " : " + ") : (f->c[j] < 0 ? "-" : ""), c,
                              *np ? "*" : "", np, *pp ? "*" : "", pp, *den ? "/" : "", den);
    }
}

const char *scal_model_family(const struct scal_model_fn *f)
{
    bool falls = false, rises = false, other = false, nonconst = false;
    for (size_t j = 0; j < f->k; j++) {
        const struct scal_model_term *t = &f->t[j];
        nonconst |= t->nn || t->nl || t->pn || t->pl;
        if (t->pl || (t->pn && t->pd != 1))
            other = true;
        else if (t->pn == -1)
            falls = true;
        else if (t->pn == 1)
            rises = true;
        else if (t->pn)
            other = true;
    }
    if (!nonconst) return "constant";
    if (other) return "PMNF";
    if (falls && rises) return "USL";
    if (falls) {
        for (size_t j = 0; j < f->k; j++)
            if (f->t[j].pn == 0 && f->c[j] > 0) return "Amdahl";
    }
    return "PMNF";
}

double scal_model_serial_fraction(const struct scal_model_fn *f, double n, double p0)
{
    double serial = 0, total = scal_model_fn_eval(f, n, p0);
    bool falls = false;
    for (size_t j = 0; j < f->k; j++) {
        const struct scal_model_term *t = &f->t[j];
        falls |= t->pn < 0;
        if (!t->pn && !t->pl) {
            struct scal_model_fn one = {.k = 1, .t = {*t}, .c = {f->c[j]}};
            serial += scal_model_fn_eval(&one, n, p0);
        }
    }
    return falls && total > 0 ? serial / total : NAN;
}

double scal_model_stop_threads(const struct scal_model_fn *f, double n, double p0)
{
    const double step = pow(2, 0.25);
    for (double p = p0; p <= 1048576; p *= step) {
        double a = scal_model_fn_eval(f, n, p), b = scal_model_fn_eval(f, n, 2 * p);
        if (!(a > 0) || b > 0.9 * a) return round(p);
    }
    return 0;
}

void scal_model_growth(const struct scal_model_fn *f, char *buf, size_t len)
{
    const struct scal_model_term *top = NULL;
    buf[0] = '\0';
    for (size_t j = 0; j < f->k; j++) {
        const struct scal_model_term *t = &f->t[j];
        if (!t->nn && !t->nl) continue;
        double e = (double)t->nn / t->nd, et = top ? (double)top->nn / top->nd : -1;
        if (!top || e > et || (e == et && t->nl > top->nl)) top = t;
    }
    if (top) part(buf, len, f->var ? f->var : 'n', top->nn, top->nd, top->nl);
}

double scal_model_clock_share(const struct scal_model_fn *f, double freq, double p)
{
    double bound = 0, total = scal_model_fn_eval(f, freq, p);
    bool any = false;
    for (size_t j = 0; j < f->k; j++)
        if (f->t[j].nn < 0) {
            struct scal_model_fn one = {f->var, 1, {f->t[j]}, {f->c[j]}};
            bound += scal_model_fn_eval(&one, freq, p);
            any = true;
        }
    return any && total > 0 ? bound / total : NAN;
}
