// SPDX-License-Identifier: BSD-3-Clause
// The model search: hypotheses of the PMNF family, relative least squares, leave-one-configuration-
// out cross-validation, selection, the bootstrap of the chosen model and its predictions.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "scal/status.h"
#include "model.h"

#define K SCAL_MODEL_MAXTERMS

/* Exponents of the one-parameter building blocks in n: Extra-P's default search space
 * (i/j, log exponent), as documented for its single-parameter modeler. */
static const signed char n_blocks[][3] = {
    {0, 1, 1}, {0, 1, 2}, {1, 4, 0}, {1, 3, 0}, {1, 4, 1},  {1, 3, 1}, {1, 4, 2},
    {1, 3, 2}, {1, 2, 0}, {1, 2, 1}, {1, 2, 2}, {2, 3, 0},  {3, 4, 0}, {2, 3, 1},
    {3, 4, 1}, {4, 5, 0}, {2, 3, 2}, {3, 4, 2}, {1, 1, 0},  {1, 1, 1}, {1, 1, 2},
    {5, 4, 0}, {5, 4, 1}, {4, 3, 0}, {4, 3, 1}, {3, 2, 0},  {3, 2, 1}, {3, 2, 2},
    {5, 3, 0}, {7, 4, 0}, {2, 1, 0}, {2, 1, 1}, {2, 1, 2},  {9, 4, 0}, {7, 3, 0},
    {5, 2, 0}, {5, 2, 1}, {5, 2, 2}, {8, 3, 0}, {11, 4, 0}, {3, 1, 0}, {3, 1, 1}};
#define N_BLOCKS (sizeof(n_blocks) / sizeof(n_blocks[0]))
/* ... and in the frequency (GHz): time that scales with the clock, power that grows with it. */
static const signed char f_blocks[][3] = {{-2, 1, 0}, {-1, 1, 0}, {-1, 2, 0},
                                          {1, 1, 0},  {2, 1, 0},  {3, 1, 0}};
#define F_BLOCKS (sizeof(f_blocks) / sizeof(f_blocks[0]))

/* The thread structures: at most two terms in p, each with the constant. Strong scaling falls
 * with p (negative exponents, as Extra-P's option for strong scaling), overheads grow with it;
 * {1/p} with the constant is Amdahl's law, {1/p, p} the Universal Scalability Law. */
struct pstruct {
    size_t k;
    signed char t[2][3]; /* num, den, log */
};
static const struct pstruct p_structs[] = {
    {0, {{0}}},
    {1, {{-1, 4, 0}}},
    {1, {{-1, 3, 0}}},
    {1, {{-1, 2, 0}}},
    {1, {{-2, 3, 0}}},
    {1, {{-3, 4, 0}}},
    {1, {{-4, 5, 0}}},
    {1, {{-1, 1, 0}}},
    {1, {{-5, 4, 0}}},
    {1, {{-3, 2, 0}}},
    {1, {{0, 1, 1}}},
    {1, {{0, 1, 2}}},
    {1, {{1, 2, 0}}},
    {1, {{1, 1, 0}}},
    {1, {{1, 1, 1}}},
    {1, {{2, 1, 0}}},
    {2, {{-1, 1, 0}, {0, 1, 1}}},
    {2, {{-1, 1, 0}, {0, 1, 2}}},
    {2, {{-1, 1, 0}, {1, 2, 0}}},
    {2, {{-1, 1, 0}, {1, 1, 0}}},
    {2, {{-1, 1, 0}, {1, 1, 1}}},
    {2, {{-1, 1, 0}, {2, 1, 0}}},
};
#define P_STRUCTS (sizeof(p_structs) / sizeof(p_structs[0]))
#define TOP_N 3
#define TOP_P 3
#define MIN_CONTRIBUTION 0.0005 /* Extra-P's epsilon: a term must matter somewhere */

static double ipow(double x, int e)
{
    double v = 1;
    for (int i = 0; i < e; i++)
        v *= x;
    return v;
}

static double term_eval(const struct scal_model_term *t, double n, double p)
{
    double e = 0;
    if (t->nn) e += (double)t->nn / t->nd * log(n);
    if (t->pn) e += (double)t->pn / t->pd * log(p);
    double v = e != 0 ? exp(e) : 1;
    if (t->nl) v *= ipow(log2(n), t->nl);
    if (t->pl) v *= ipow(log2(p), t->pl);
    return v;
}

static bool term_is_const(const struct scal_model_term *t)
{
    return !t->nn && !t->nl && !t->pn && !t->pl;
}

double scal_model_fn_eval(const struct scal_model_fn *f, double n, double p)
{
    double v = 0;
    for (size_t j = 0; j < f->k; j++)
        v += f->c[j] * term_eval(&f->t[j], n, p);
    return v;
}

/* ---- least squares of y ~ sum c_j t_j, relative (rows weighted by 1/y) ---- */

struct work {
    double *x; /* m x K scaled design */
    size_t cap;
};

static int work_reserve(struct work *w, size_t m)
{
    if (m <= w->cap) return SCAL_OK;
    double *x = realloc(w->x, m * K * sizeof(*x));
    if (!x) return scal__fail(SCAL_ENOMEM, "out of memory for the model search");
    w->x = x;
    w->cap = m;
    return SCAL_OK;
}

struct fitres {
    double c[K];
    double smape; /* leave-one-out, %; INFINITY when undefined */
    bool ok;
};

/* Fits h (its terms; coefficients written to r->c) to points idx[0..m) with values y[] (NULL:
 * the points' own). With loo, the leave-one-out SMAPE from the hat matrix (each point predicted by
 * the fit to the others, in closed form). */
static void solve(struct work *w, const struct scal_model_fn *h, const struct scal_model_point *pts,
                  const size_t *idx, size_t m, const double *y, bool loo, struct fitres *r)
{
    size_t k = h->k;
    double s[K], A[K][K] = {{0}}, b[K] = {0}, L[K][K] = {{0}}, z[K], beta[K];
    r->ok = false;
    r->smape = INFINITY;
    if (m < k || k == 0) return;
    for (size_t j = 0; j < k; j++)
        s[j] = 0;
    for (size_t i = 0; i < m; i++) {
        const struct scal_model_point *pt = &pts[idx ? idx[i] : i];
        double yi = y ? y[i] : pt->y;
        for (size_t j = 0; j < k; j++) {
            double v = term_eval(&h->t[j], pt->n, pt->p) / yi;
            w->x[i * K + j] = v;
            s[j] += v * v;
        }
    }
    for (size_t j = 0; j < k; j++) {
        if (!(s[j] > 0) || !isfinite(s[j])) return;
        s[j] = sqrt(s[j]);
    }
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < k; j++) {
            double *xi = &w->x[i * K];
            xi[j] /= s[j];
            b[j] += xi[j];
            for (size_t l = 0; l <= j; l++)
                A[j][l] += xi[j] * xi[l];
        }
    for (size_t j = 0; j < k; j++) { /* Cholesky A = L L^T */
        double d = A[j][j];
        for (size_t l = 0; l < j; l++)
            d -= L[j][l] * L[j][l];
        if (!(d > 1e-11)) return; /* (nearly) collinear terms */
        L[j][j] = sqrt(d);
        for (size_t i = j + 1; i < k; i++) {
            double v = A[i][j];
            for (size_t l = 0; l < j; l++)
                v -= L[i][l] * L[j][l];
            L[i][j] = v / L[j][j];
        }
    }
    for (size_t j = 0; j < k; j++) { /* L z = b, L^T beta = z */
        double v = b[j];
        for (size_t l = 0; l < j; l++)
            v -= L[j][l] * z[l];
        z[j] = v / L[j][j];
    }
    for (size_t j = k; j-- > 0;) {
        double v = z[j];
        for (size_t l = j + 1; l < k; l++)
            v -= L[l][j] * beta[l];
        beta[j] = v / L[j][j];
    }
    for (size_t j = 0; j < k; j++)
        r->c[j] = beta[j] / s[j];
    r->ok = true;
    if (!loo || m < k + 1) return;
    double sum = 0;
    for (size_t i = 0; i < m; i++) {
        const double *xi = &w->x[i * K];
        double u[K], h2 = 0, fit = 0;
        for (size_t j = 0; j < k; j++) { /* h_ii = |L^-1 x_i|^2 */
            double v = xi[j];
            for (size_t l = 0; l < j; l++)
                v -= L[j][l] * u[l];
            u[j] = v / L[j][j];
            h2 += u[j] * u[j];
            fit += xi[j] * beta[j];
        }
        if (h2 > 1 - 1e-9) return;         /* the point alone decides a coefficient */
        double res = (1 - fit) / (1 - h2); /* relative leave-one-out residual */
        double yi = y ? y[i] : pts[idx ? idx[i] : i].y;
        double pred = yi * (1 - res);
        double den = fabs(pred) + fabs(yi);
        sum += den > 0 ? 2 * fabs(pred - yi) / den : 0;
    }
    r->smape = 100 * sum / (double)m;
}

/* ---- hypotheses ---- */

static struct scal_model_term mkterm(const signed char *nb, const signed char *pb)
{
    struct scal_model_term t = {0, 1, 0, 0, 1, 0};
    if (nb) t.nn = nb[0], t.nd = nb[1], t.nl = nb[2];
    if (pb) t.pn = pb[0], t.pd = pb[1], t.pl = pb[2];
    return t;
}

static void add_term(struct scal_model_fn *h, const signed char *nb, const signed char *pb)
{
    if (h->k < K) h->t[h->k++] = mkterm(nb, pb);
}

/* Points grouped by their input size (rows) or thread count (columns). */
struct groups {
    size_t *idx;   /* point indices, group by group */
    size_t *start; /* ngroups + 1 */
    size_t n;
};

static int group_by(const struct scal_model_point *pts, size_t npts, bool by_n, struct groups *g)
{
    g->idx = malloc((npts + 1) * sizeof(*g->idx));
    g->start = malloc((npts + 2) * sizeof(*g->start));
    g->n = 0;
    if (!g->idx || !g->start) return scal__fail(SCAL_ENOMEM, "out of memory for the model search");
    bool *done = calloc(npts + 1, sizeof(*done));
    if (!done) return scal__fail(SCAL_ENOMEM, "out of memory for the model search");
    size_t o = 0;
    for (size_t i = 0; i < npts; i++) {
        if (done[i]) continue;
        g->start[g->n++] = o;
        double key = by_n ? pts[i].n : pts[i].p;
        for (size_t j = i; j < npts; j++)
            if (!done[j] && (by_n ? pts[j].n : pts[j].p) == key) {
                done[j] = true;
                g->idx[o++] = j;
            }
    }
    g->start[g->n] = o;
    free(done);
    return SCAL_OK;
}

static void groups_free(struct groups *g)
{
    free(g->idx);
    free(g->start);
}

/* The summed leave-one-out error of h over the groups with enough points. */
static double group_cost(struct work *w, const struct scal_model_fn *h,
                         const struct scal_model_point *pts, const struct groups *g)
{
    double sum = 0;
    size_t used = 0;
    for (size_t q = 0; q < g->n; q++) {
        size_t m = g->start[q + 1] - g->start[q];
        if (m < h->k + 1) continue;
        struct fitres r;
        solve(w, h, pts, g->idx + g->start[q], m, NULL, true, &r);
        sum += r.ok && isfinite(r.smape) ? r.smape : 200;
        used++;
    }
    return used ? sum / (double)used : INFINITY;
}

/* The indices of the `top` lowest costs (ties: the earlier, i.e. the simpler). */
static size_t pick_top(const double *cost, size_t n, size_t top, size_t *out)
{
    size_t got = 0;
    bool taken[64] = {0};
    while (got < top) {
        size_t best = n;
        for (size_t i = 0; i < n; i++)
            if (!taken[i] && isfinite(cost[i]) && (best == n || cost[i] < cost[best])) best = i;
        if (best == n) break;
        taken[best] = true;
        out[got++] = best;
    }
    return got;
}

struct cand {
    struct scal_model_fn f;
    double smape;
};

struct search {
    struct cand *v;
    size_t n, cap;
};

static int consider(struct search *s, struct work *w, const struct scal_model_fn *h,
                    const struct scal_model_point *pts, size_t npts)
{
    struct fitres r;
    if (h->k == 0 || npts < h->k + 1) return SCAL_OK;
    solve(w, h, pts, NULL, npts, NULL, true, &r);
    if (!r.ok || !isfinite(r.smape)) return SCAL_OK;
    for (size_t j = 0; j < h->k; j++) { /* no term may take time away, each must matter */
        double contrib = 0;
        for (size_t i = 0; i < npts; i++)
            contrib =
                fmax(contrib, fabs(r.c[j] * term_eval(&h->t[j], pts[i].n, pts[i].p) / pts[i].y));
        if (r.c[j] < 0 && contrib > 1e-9) return SCAL_OK;
        if (!term_is_const(&h->t[j]) && contrib < MIN_CONTRIBUTION) return SCAL_OK;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 128;
        struct cand *v = realloc(s->v, cap * sizeof(*v));
        if (!v) return scal__fail(SCAL_ENOMEM, "out of memory for the model search");
        s->v = v;
        s->cap = cap;
    }
    struct cand *c = &s->v[s->n++];
    c->f = *h;
    memcpy(c->f.c, r.c, sizeof(r.c));
    c->smape = r.smape;
    return SCAL_OK;
}

/* Both with and without the constant term. */
static int consider2(struct search *s, struct work *w, struct scal_model_fn *h,
                     const struct scal_model_point *pts, size_t npts)
{
    int rc = consider(s, w, h, pts, npts);
    if (rc < 0 || h->k >= K) return rc;
    memmove(&h->t[1], &h->t[0], h->k * sizeof(h->t[0]));
    h->t[0] = mkterm(NULL, NULL);
    h->k++;
    return consider(s, w, h, pts, npts);
}

/* The stage-two hypotheses of one n block (NULL: none) and one thread structure. */
static int combine(struct search *s, struct work *w, const signed char *nb,
                   const struct pstruct *ps, const struct scal_model_point *pts, size_t npts)
{
    struct scal_model_fn h = {0};
    int rc = SCAL_OK;
    const signed char *g = ps->k > 0 ? ps->t[0] : NULL, *o = ps->k > 1 ? ps->t[1] : NULL;
    if (!nb) { /* in p alone */
        for (size_t j = 0; j < ps->k; j++)
            add_term(&h, NULL, ps->t[j]);
        return h.k ? consider2(s, w, &h, pts, npts)
                   : consider(s, w, &(struct scal_model_fn){.k = 1, .t = {mkterm(NULL, NULL)}}, pts,
                              npts);
    }
    /* additive: f(n) + terms in p */
    h.k = 0;
    add_term(&h, nb, NULL);
    for (size_t j = 0; j < ps->k; j++)
        add_term(&h, NULL, ps->t[j]);
    if ((rc = consider2(s, w, &h, pts, npts)) < 0 || !g) return rc;
    /* multiplicative: f(n) times each term in p */
    h.k = 0;
    for (size_t j = 0; j < ps->k; j++)
        add_term(&h, nb, ps->t[j]);
    if ((rc = consider2(s, w, &h, pts, npts)) < 0) return rc;
    /* f(n) times (serial + terms in p): Amdahl with the work growing in n */
    h.k = 0;
    add_term(&h, nb, NULL);
    for (size_t j = 0; j < ps->k; j++)
        add_term(&h, nb, ps->t[j]);
    if ((rc = consider2(s, w, &h, pts, npts)) < 0 || !o) return rc;
    /* the work grows with n, the overhead does not */
    h.k = 0;
    add_term(&h, nb, g);
    add_term(&h, NULL, o);
    if ((rc = consider2(s, w, &h, pts, npts)) < 0) return rc;
    h.k = 0;
    add_term(&h, nb, NULL);
    add_term(&h, nb, g);
    add_term(&h, NULL, o);
    return consider2(s, w, &h, pts, npts);
}

/* ---- bootstrap ---- */

static uint64_t rng_next(uint64_t *st) /* splitmix64 */
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *st)
{
    return ((double)(rng_next(st) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(uint64_t *st)
{
    return sqrt(-2 * log(rng_unit(st))) * cos(2 * M_PI * rng_unit(st));
}

/* Refits the chosen terms to values made of the fit plus a resampled relative residual (the
 * misfit) plus the noise of each measured value (its standard error). */
static int bootstrap(struct scal_model *m, struct work *w, const struct scal_model_point *pts,
                     size_t npts)
{
    double *fit = malloc(npts * sizeof(*fit)), *res = malloc(npts * sizeof(*res));
    double *y = malloc(npts * sizeof(*y));
    if (!fit || !res || !y) {
        free(fit), free(res), free(y);
        return scal__fail(SCAL_ENOMEM, "out of memory for the model bootstrap");
    }
    double infl = npts > m->f.k ? sqrt((double)npts / (double)(npts - m->f.k)) : 1;
    for (size_t i = 0; i < npts; i++) {
        fit[i] = scal_model_fn_eval(&m->f, pts[i].n, pts[i].p);
        res[i] = fit[i] > 0 ? (pts[i].y - fit[i]) / fit[i] * infl : 0;
    }
    uint64_t st = 0x5ca1ab1e;
    for (size_t b = 0; b < SCAL_MODEL_NBOOT; b++) {
        for (size_t i = 0; i < npts; i++) {
            double e = res[rng_next(&st) % npts];
            double v = fit[i] * (1 + e) + pts[i].y * pts[i].se * rng_normal(&st);
            y[i] = fmax(v, 1e-3 * fit[i] > 0 ? 1e-3 * fit[i] : 1e-300);
        }
        struct fitres r;
        struct scal_model_fn h = m->f;
        solve(w, &h, pts, NULL, npts, y, false, &r);
        for (size_t j = 0; j < m->f.k; j++)
            m->boot[b][j] = r.ok ? r.c[j] : m->f.c[j];
    }
    m->nboot = SCAL_MODEL_NBOOT;
    free(fit), free(res), free(y);
    return SCAL_OK;
}

/* ---- the search ---- */

#define UNRELIABLE_SMAPE 15.0 /* % cross-validated: beyond it the data is too noisy to model */
/* A cross-validated error beyond 2.5 x the measured values' noise + 1.5 % is the model's, not the
 * noise's (about 0.9 x the standard error is what noise alone gives). */
#define LACK_OF_FIT_FACTOR 2.5
#define LACK_OF_FIT_FLOOR 1.5

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int fit(const struct scal_model_point *pts, size_t npts, bool uses_n, char var,
               struct scal_model *m);

int scal_model_fit(const struct scal_model_point *pts, size_t npts, bool uses_n,
                   struct scal_model *m)
{
    return fit(pts, npts, uses_n, 'n', m);
}

int scal_model_fit_freq(const struct scal_model_point *pts, size_t npts, struct scal_model *m)
{
    return fit(pts, npts, true, 'f', m);
}

static size_t nterms_nonconst(const struct scal_model_fn *f)
{
    size_t n = 0;
    for (size_t j = 0; j < f->k; j++)
        n += !term_is_const(&f->t[j]);
    return n;
}

static int fit(const struct scal_model_point *pts, size_t npts, bool uses_n, char var,
               struct scal_model *m)
{
    const signed char(*blocks)[3] = var == 'f' ? f_blocks : n_blocks;
    size_t nblocks = var == 'f' ? F_BLOCKS : N_BLOCKS;
    struct work w = {0};
    struct groups rows = {0}, cols = {0};
    struct search s = {0};
    int rc;
    memset(m, 0, sizeof(*m));
    m->uses_n = uses_n;
    m->npoints = npts;
    for (size_t i = 0; i < npts; i++) {
        if (!(pts[i].y > 0) || !(pts[i].p > 0) || !(pts[i].n > 0) || !isfinite(pts[i].y))
            return scal__fail(SCAL_EINVAL, "model point %zu: value %g at n=%g p=%g", i, pts[i].y,
                              pts[i].n, pts[i].p);
        m->pmax = fmax(m->pmax, pts[i].p);
        m->nmax = fmax(m->nmax, pts[i].n);
    }
    if (npts < 3) {
        snprintf(m->why, sizeof(m->why), "too few configurations (%zu; a model needs 3)", npts);
        return SCAL_OK;
    }
    if ((rc = work_reserve(&w, npts)) < 0 || (rc = group_by(pts, npts, true, &rows)) < 0 ||
        (rc = group_by(pts, npts, false, &cols)) < 0)
        goto out;
    /* stage one: the thread structures along each input, the n blocks along each thread count */
    double pcost[P_STRUCTS], ncost[N_BLOCKS > F_BLOCKS ? N_BLOCKS : F_BLOCKS];
    size_t ptop[TOP_P], ntop[TOP_N], np, nn = 0;
    for (size_t q = 0; q < P_STRUCTS; q++) {
        struct scal_model_fn h = {0};
        add_term(&h, NULL, NULL);
        for (size_t j = 0; j < p_structs[q].k; j++)
            add_term(&h, NULL, p_structs[q].t[j]);
        pcost[q] = rows.n < npts ? group_cost(&w, &h, pts, &rows) : INFINITY;
    }
    np = pick_top(pcost, P_STRUCTS, TOP_P, ptop);
    if (cols.n < 2) /* one thread count: terms in p are constants */
        ptop[0] = 0, np = 1;
    else if (np == 0)
        ptop[np++] = 0, ptop[np++] = 7; /* constant and Amdahl */
    bool nlog = true;
    for (size_t i = 0; i < npts; i++)
        nlog &= pts[i].n >= 1; /* as Extra-P: no log terms below 1 */
    if (uses_n) {
        for (size_t q = 0; q < nblocks; q++) {
            struct scal_model_fn h = {0};
            add_term(&h, NULL, NULL);
            add_term(&h, blocks[q], NULL);
            ncost[q] = (!nlog && blocks[q][2]) ? INFINITY : group_cost(&w, &h, pts, &cols);
        }
        nn = pick_top(ncost, nblocks, TOP_N, ntop);
    }
    /* stage two: their combinations over every configuration, judged by leave-one-out error */
    for (size_t a = 0; a <= nn; a++)
        for (size_t b = 0; b < np; b++)
            if ((rc = combine(&s, &w, a < nn ? blocks[ntop[a]] : NULL, &p_structs[ptop[b]], pts,
                              npts)) < 0)
                goto out;
    if (s.n == 0) {
        snprintf(m->why, sizeof(m->why),
                 "no hypothesis fits (%zu configurations; every candidate failed the checks)",
                 npts);
        goto out;
    }
    size_t best = 0;
    for (size_t i = 1; i < s.n; i++)
        if (s.v[i].smape < s.v[best].smape) best = i;
    /* the simplest hypothesis within a hair of the best (parsimony) */
    double tol = fmax(0.01, 0.1 * s.v[best].smape);
    size_t pick = best;
    for (size_t i = 0; i < s.n; i++)
        if (s.v[i].smape <= s.v[best].smape + tol &&
            (s.v[i].f.k < s.v[pick].f.k ||
             (s.v[i].f.k == s.v[pick].f.k && s.v[i].smape < s.v[pick].smape)))
            pick = i;
    m->f = s.v[pick].f;
    m->f.var = var;
    m->smape_cv = s.v[pick].smape;
    m->fitted = true;
    /* runners-up close to it */
    double close = fmax(1.5 * m->smape_cv + 0.5, s.v[best].smape + 0.5);
    bool *used = calloc(s.n, sizeof(*used));
    if (!used) {
        rc = scal__fail(SCAL_ENOMEM, "out of memory for the model search");
        goto out;
    }
    used[pick] = true;
    while (m->nalt < SCAL_MODEL_NALT) {
        size_t a = s.n;
        for (size_t i = 0; i < s.n; i++)
            if (!used[i] && s.v[i].smape <= close && (a == s.n || s.v[i].smape < s.v[a].smape))
                a = i;
        if (a == s.n) break;
        used[a] = true;
        m->alt[m->nalt] = s.v[a].f;
        m->alt[m->nalt++].var = var;
    }
    free(used);
    double mean = 0, ssr = 0, sst = 0;
    for (size_t i = 0; i < npts; i++)
        mean += pts[i].y / (double)npts;
    for (size_t i = 0; i < npts; i++) {
        double e = pts[i].y - scal_model_fn_eval(&m->f, pts[i].n, pts[i].p);
        ssr += e * e;
        sst += (pts[i].y - mean) * (pts[i].y - mean);
    }
    m->r2 = sst > 0 ? 1 - ssr / sst : 1;
    if ((rc = bootstrap(m, &w, pts, npts)) < 0) goto out;
    m->reliable = true;
    double *se = malloc(npts * sizeof(*se));
    if (!se) {
        rc = scal__fail(SCAL_ENOMEM, "out of memory for the model search");
        goto out;
    }
    for (size_t i = 0; i < npts; i++)
        se[i] = 100 * pts[i].se;
    qsort(se, npts, sizeof(*se), cmp_double);
    m->noise = se[npts / 2];
    free(se);
    m->lack_of_fit = m->smape_cv > LACK_OF_FIT_FACTOR * m->noise + LACK_OF_FIT_FLOOR;
    if (m->smape_cv > UNRELIABLE_SMAPE) {
        m->reliable = false;
        snprintf(
            m->why, sizeof(m->why),
            "no reliable model: the data is too noisy (cross-validated error %.1f %% > %.0f %%)",
            m->smape_cv, UNRELIABLE_SMAPE);
    } else if (nterms_nonconst(&m->f) > 0 && m->r2 < 0.5) {
        m->reliable = false;
        snprintf(m->why, sizeof(m->why),
                 "no reliable model: the model explains little of the variation (R^2 %.2f)", m->r2);
    }
    rc = SCAL_OK;
out:
    free(s.v);
    free(w.x);
    groups_free(&rows);
    groups_free(&cols);
    return rc;
}

bool scal_model_predict(const struct scal_model *m, double n, double p, double *pred, double *lo,
                        double *hi, char *why, size_t whylen)
{
    *pred = *lo = *hi = NAN;
    if (!m->fitted) {
        snprintf(why, whylen, "%s", *m->why ? m->why : "no model");
        return false;
    }
    double v = scal_model_fn_eval(&m->f, n, p), b[SCAL_MODEL_NBOOT];
    for (size_t r = 0; r < m->nboot; r++) {
        struct scal_model_fn f = m->f;
        memcpy(f.c, m->boot[r], sizeof(f.c));
        b[r] = scal_model_fn_eval(&f, n, p);
    }
    qsort(b, m->nboot, sizeof(*b), cmp_double);
    double l = m->nboot ? b[(size_t)(0.05 * (double)(m->nboot - 1))] : v;
    double h = m->nboot ? b[(size_t)ceil(0.95 * (double)(m->nboot - 1))] : v;
    l = fmin(l, v), h = fmax(h, v);
    for (size_t a = 0; a < m->nalt; a++) {
        double x = scal_model_fn_eval(&m->alt[a], n, p);
        if (isfinite(x)) l = fmin(l, x), h = fmax(h, x);
    }
    *pred = v, *lo = l, *hi = h;
    if (!m->reliable) {
        snprintf(why, whylen, "%s", m->why);
        return false;
    }
    if (m->lack_of_fit && (p > m->pmax * 1.0001 || (m->uses_n && n > m->nmax * 1.0001))) {
        snprintf(why, whylen,
                 "no reliable prediction beyond the measured configurations: the model misses "
                 "the measurements by %.2g %% while they repeat within %.2g %% (the law is likely "
                 "outside the search space)",
                 m->smape_cv, m->noise);
        return false;
    }
    if (!(v > 0) || !(l > 0) || h - l > v) {
        snprintf(why, whylen,
                 "no reliable prediction: the models that fit the data disagree here "
                 "(%.3g to %.3g)",
                 l, h);
        return false;
    }
    if (why && whylen) *why = '\0';
    return true;
}
