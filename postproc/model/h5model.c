// SPDX-License-Identifier: BSD-3-Clause
// A region's model and its predictions as HDF5 tables (the analysis file's .../model group, for
// h5py; layout in schemas/README-analysis.md).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "h5util.h"
#include "h5model.h"
#include "table_field.h"

struct piece_row {
    int32_t input; /* -1: one model for every input (in n and p) */
    int32_t fitted, reliable, lack_of_fit, npoints;
    double smape_cv, r2, noise;
};
static const struct scal_h5_field piece_fields[] = {
    SCAL_H5_FIELD(SCAL_H5_I32, struct piece_row, input),
    SCAL_H5_FIELD(SCAL_H5_I32, struct piece_row, fitted),
    SCAL_H5_FIELD(SCAL_H5_I32, struct piece_row, reliable),
    SCAL_H5_FIELD(SCAL_H5_I32, struct piece_row, lack_of_fit),
    SCAL_H5_FIELD(SCAL_H5_I32, struct piece_row, npoints),
    SCAL_H5_FIELD(SCAL_H5_F64, struct piece_row, smape_cv),
    SCAL_H5_FIELD(SCAL_H5_F64, struct piece_row, r2),
    SCAL_H5_FIELD(SCAL_H5_F64, struct piece_row, noise),
};

struct term_row {
    int32_t piece;
    double n_exp;
    int32_t n_log;
    double p_exp;
    int32_t p_log;
    double coefficient;
};
static const struct scal_h5_field term_fields[] = {
    SCAL_H5_FIELD(SCAL_H5_I32, struct term_row, piece),
    SCAL_H5_FIELD(SCAL_H5_F64, struct term_row, n_exp),
    SCAL_H5_FIELD(SCAL_H5_I32, struct term_row, n_log),
    SCAL_H5_FIELD(SCAL_H5_F64, struct term_row, p_exp),
    SCAL_H5_FIELD(SCAL_H5_I32, struct term_row, p_log),
    SCAL_H5_FIELD(SCAL_H5_F64, struct term_row, coefficient),
};

struct pred_row {
    int32_t threads, input; /* input: index, or -1 for a size no input has */
    double input_size, predicted, low, high, speedup, efficiency;
    int32_t reliable, measured;
};
static const struct scal_h5_field pred_fields[] = {
    SCAL_H5_FIELD(SCAL_H5_I32, struct pred_row, threads),
    SCAL_H5_FIELD(SCAL_H5_I32, struct pred_row, input),
    SCAL_H5_FIELD(SCAL_H5_F64, struct pred_row, input_size),
    SCAL_H5_FIELD(SCAL_H5_F64, struct pred_row, predicted),
    SCAL_H5_FIELD(SCAL_H5_F64, struct pred_row, low),
    SCAL_H5_FIELD(SCAL_H5_F64, struct pred_row, high),
    SCAL_H5_FIELD(SCAL_H5_F64, struct pred_row, speedup),
    SCAL_H5_FIELD(SCAL_H5_F64, struct pred_row, efficiency),
    SCAL_H5_FIELD(SCAL_H5_I32, struct pred_row, reliable),
    SCAL_H5_FIELD(SCAL_H5_I32, struct pred_row, measured),
};
#define NF(a) (sizeof(a) / sizeof(a[0]))

/* The predictions: every measured thread count and 2, 4, 8 x the largest, at every input (and,
 * with a model in n, at 2 and 4 x the largest size). */
static int predictions(const struct scal_pp_host *h, const struct scal_region_model *rm,
                       const double *sizes, struct pred_row **out, size_t *nout)
{
    size_t nt = h->nthreads + 3, ni = h->ninputs + (rm->uses_n ? 2 : 0), n = 0;
    struct pred_row *v = calloc(nt * ni + 1, sizeof(*v));
    if (!v) return scal__fail(SCAL_ENOMEM, "out of memory for the model predictions");
    double nmax = 0;
    for (size_t i = 0; i < h->ninputs; i++)
        nmax = fmax(nmax, sizes[i]);
    for (size_t i = 0; i < ni; i++)
        for (size_t t = 0; t < nt; t++) {
            double p = t < h->nthreads
                           ? h->threads[t]
                           : (double)h->threads[h->nthreads - 1] * (2 << (t - h->nthreads));
            size_t input = i < h->ninputs ? i : SIZE_MAX;
            double size = i < h->ninputs ? sizes[i] : nmax * (2 << (i - h->ninputs));
            struct scal_model_reading rd;
            scal_model_read(rm, input, size, p, "s", &rd);
            v[n++] = (struct pred_row){(int32_t)p, input == SIZE_MAX ? -1 : (int32_t)input,
                                       size,       rd.pred,
                                       rd.lo,      rd.hi,
                                       rd.speedup, rd.efficiency,
                                       rd.ok,      i < h->ninputs && t < h->nthreads};
        }
    *out = v;
    *nout = n;
    return SCAL_OK;
}

int scal_model_h5_write(hid_t loc, const struct scal_pp_host *h, const struct scal_region_model *rm,
                        const double *sizes)
{
    hid_t g = H5Gcreate2(loc, "model", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return scal__fail(SCAL_EHDF5, "cannot create the model group");
    struct piece_row *pieces = calloc(rm->npieces + 1, sizeof(*pieces));
    struct term_row *terms = calloc(rm->npieces * SCAL_MODEL_MAXTERMS + 1, sizeof(*terms));
    char **expr = calloc(rm->npieces + 1, sizeof(*expr)),
         **why = calloc(rm->npieces + 1, sizeof(*why));
    const char **fam = calloc(rm->npieces + 1, sizeof(*fam));
    struct pred_row *pred = NULL;
    size_t nterms = 0, npred = 0;
    int rc = SCAL_ENOMEM;
    if (!pieces || !terms || !expr || !why || !fam) goto out;
    for (size_t q = 0; q < rm->npieces; q++) {
        const struct scal_model *m = &rm->piece[q];
        pieces[q] = (struct piece_row){
            rm->uses_n ? -1 : (int32_t)q, m->fitted,   m->reliable, m->lack_of_fit,
            (int32_t)m->npoints,          m->smape_cv, m->r2,       m->noise};
        if (!(expr[q] = malloc(400)) || !(why[q] = strdup(m->why))) goto out;
        expr[q][0] = '\0';
        if (m->fitted) scal_model_expr(&m->f, expr[q], 400);
        fam[q] = m->fitted ? scal_model_family(&m->f) : "";
        for (size_t j = 0; m->fitted && j < m->f.k; j++) {
            const struct scal_model_term *t = &m->f.t[j];
            terms[nterms++] = (struct term_row){(int32_t)q, t->nn ? (double)t->nn / t->nd : 0,
                                                t->nl,      t->pn ? (double)t->pn / t->pd : 0,
                                                t->pl,      m->f.c[j]};
        }
    }
    if ((rc = predictions(h, rm, sizes, &pred, &npred)) < 0) goto out;
    scal_h5_attr_set_i64(g, "uses_n", rm->uses_n);
    scal_h5_attr_set_str(g, "unit", "s");
    if (scal_h5_write_table(g, "pieces", piece_fields, NF(piece_fields), sizeof(*pieces), pieces,
                            rm->npieces) < 0 ||
        scal_h5_write_strings(g, "expressions", (const char *const *)expr, rm->npieces) < 0 ||
        scal_h5_write_strings(g, "families", fam, rm->npieces) < 0 ||
        scal_h5_write_strings(g, "why", (const char *const *)why, rm->npieces) < 0 ||
        scal_h5_write_table(g, "terms", term_fields, NF(term_fields), sizeof(*terms), terms,
                            nterms) < 0 ||
        scal_h5_write_table(g, "predictions", pred_fields, NF(pred_fields), sizeof(*pred), pred,
                            npred) < 0)
        rc = scal__fail(SCAL_EHDF5, "cannot write the model tables");
out:
    for (size_t q = 0; q < rm->npieces; q++) {
        if (expr) free(expr[q]);
        if (why) free(why[q]);
    }
    free(expr), free(why), free(fam), free(pieces), free(terms), free(pred);
    H5Gclose(g);
    return rc;
}
