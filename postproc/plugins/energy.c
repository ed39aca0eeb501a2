// SPDX-License-Identifier: BSD-3-Clause
// Analysis plugin: energy (sum of the campaign's joule sensors) and energy-delay product.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scal/postproc.h"
#include "util.h"

static const char *const needs[] = {"time", NULL};
static const char *const produces[] = {"energy", "edp", NULL};

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    size_t n = h->ninputs * h->nthreads;
    double *e = malloc(n * sizeof(*e)), *edp = malloc(n * sizeof(*edp));
    int rc = SCAL_ENOMEM, found = 0;
    if (!e || !edp) goto out;
    for (size_t r = 0; r < h->nregions; r++)
        for (size_t s = 0; s < h->nslices; s++) {
            int any = 0;
            for (size_t k = 0; k < n; k++)
                e[k] = 0;
            for (const char *const *m = h->metrics(h, r, s); *m; m++) {
                const struct scal_pp_matrix *x = h->get(h, r, s, *m);
                if (strncmp(*m, "sensor:", 7) || !x || strcmp(x->unit, "J")) continue;
                any = 1;
                for (size_t k = 0; k < n; k++)
                    e[k] += x->values[k]; /* NaN stays NaN */
            }
            if (!any) continue;
            found = 1;
            const struct scal_pp_matrix *t = h->get(h, r, s, "time");
            for (size_t k = 0; k < n; k++)
                edp[k] = t ? e[k] * t->values[k] : NAN;
            if ((rc = h->put(h, r, s, "energy", "J", SCAL_PP_FULL, e, NULL)) < 0 ||
                (rc = h->put(h, r, s, "edp", "J*s", SCAL_PP_FULL, edp, NULL)) < 0)
                goto out;
        }
    rc = found ? SCAL_OK
               : scal__why(why, whylen, SCAL_EUNAVAIL,
                           "the campaign has no energy (J) sensor values");
out:
    free(e);
    free(edp);
    return rc;
}

static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_ANALYSIS, needs, produces, run};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "energy",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "energy (sum of joule sensors, e.g. RAPL) and energy-delay product matrices",
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
