/* SPDX-License-Identifier: BSD-3-Clause */
/* Empirical scaling models (scal model, the report's model plugin): time (or energy) as a
 * function of threads p and input size n, searched in the Performance Model Normal Form family
 * that Extra-P uses (sums of terms n^a log2(n)^b p^c log2(p)^d), with Amdahl (c0 + c1/p) and the
 * Universal Scalability Law (c0 + c1/p + c2 p) among them; chosen by leave-one-configuration-out
 * cross-validation; intervals by a bootstrap over the repetitions' noise and the fit's residuals.
 * Pure computation: no I/O, no printing. */
#ifndef SCAL_MODEL_H
#define SCAL_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#define SCAL_MODEL_MAXTERMS 5
#define SCAL_MODEL_NBOOT 96
#define SCAL_MODEL_NALT 4

/* n^(nn/nd) log2(n)^nl p^(pn/pd) log2(p)^pl; all zero (nd = pd = 1): the constant. */
struct scal_model_term {
    signed char nn, nd, nl, pn, pd, pl;
};

/* One configuration: its input size (any positive value when the model is in p alone), thread
 * count, measured value (the statistic of its repetitions), and the relative standard error of that
 * value (coefficient of variation / sqrt(repetitions); 0 when unknown). */
struct scal_model_point {
    double n, p, y, se;
};

/* One linear hypothesis: a sum of coefficients times terms. */
struct scal_model_fn {
    char var; /* the name of the first parameter: 'n' (input size; also 0) or 'f' (frequency) */
    size_t k;
    struct scal_model_term t[SCAL_MODEL_MAXTERMS];
    double c[SCAL_MODEL_MAXTERMS];
};

struct scal_model {
    bool fitted;   /* a hypothesis was found */
    bool reliable; /* ... and it may be used to predict */
    char why[160]; /* when not reliable (or not fitted): why */
    bool uses_n;   /* the model is in n and p; else in p alone */
    struct scal_model_fn f;
    double smape_cv; /* leave-one-configuration-out symmetric mean absolute % error */
    double r2;       /* in-sample coefficient of determination */
    double noise;    /* median relative standard error of the measured values, % */
    /* the model misses the measurements by clearly more than they vary between repetitions: the
     * law is likely outside the search space, so it is not extrapolated */
    bool lack_of_fit;
    size_t npoints;
    double pmax, nmax; /* largest measured thread count and size */
    /* the runners-up whose cross-validated error is close to the chosen one's: their predictions
     * widen the interval (models that disagree) */
    size_t nalt;
    struct scal_model_fn alt[SCAL_MODEL_NALT];
    /* bootstrap replicates of the coefficients of f */
    size_t nboot;
    double boot[SCAL_MODEL_NBOOT][SCAL_MODEL_MAXTERMS];
};

/* Fits a model to the points (uses_n: n varies and is a parameter). Returns 0 (m->fitted may be
 * false with m->why when no hypothesis fits) or a negative status. Deterministic. */
int scal_model_fit(const struct scal_model_point *pts, size_t npts, bool uses_n,
                   struct scal_model *m);
/* The same with the frequency f (GHz) in place of n: its terms are f^e for e in -2, -1, -1/2, 1,
 * 2, 3 (work that scales with the clock, power that grows with it). */
int scal_model_fit_freq(const struct scal_model_point *pts, size_t npts, struct scal_model *m);

double scal_model_fn_eval(const struct scal_model_fn *f, double n, double p);

/* The prediction at (n, p) with its interval (5th-95th percentile of the bootstrap, widened to
 * the runners-up's predictions). Returns false (with the reason in why) when it is not to be
 * trusted: no reliable model, or an interval wider than the prediction itself. */
bool scal_model_predict(const struct scal_model *m, double n, double p, double *pred, double *lo,
                        double *hi, char *why, size_t whylen);

/* "0.12 + 3.4e-06*n*log2(n)/p + 0.002*log2(p)" (n omitted when the model is in p alone). */
void scal_model_expr(const struct scal_model_fn *f, char *buf, size_t len);
/* The family the expression reads as: "Amdahl", "USL", "constant" or "PMNF". */
const char *scal_model_family(const struct scal_model_fn *f);

/* Readings of a model at input size n (NAN/0 when they do not apply):
 * the serial fraction (the share of T(n, 1) in terms without p, when a term falls with p),
 * the thread count beyond which doubling the threads gains less than 10 % (0: never up to 2^20),
 * and the growth in n ("n*log2(n)", "n^2"...; "" when the model is not in n). */
double scal_model_serial_fraction(const struct scal_model_fn *f, double n, double p0);
double scal_model_stop_threads(const struct scal_model_fn *f, double n, double p0);
void scal_model_growth(const struct scal_model_fn *f, char *buf, size_t len);
/* The share of T(f, p) in terms that fall as the frequency f rises (work bound by the clock); NAN
 * when the model has no such term. */
double scal_model_clock_share(const struct scal_model_fn *f, double freq, double p);

#endif
