// SPDX-License-Identifier: BSD-3-Clause
// TEMPLATE: a post-processing plugin to copy when adding a metric or a diagram to `scal report`
// without touching the core. This one computes the Karp-Flatt metric (experimentally determined
// serial fraction) e = (1/S - 1/p) / (1 - 1/p) from the speedup matrix.
//
// How to make your own:
//  1. Copy this file, change the name in the descriptor (short, lower case, unique) and build it
//     as a shared object named libscal_<name>.so:
//       cc -shared -fPIC -I<scal>/include mine.c -o libscal_mine.so
//  2. Put it in a directory listed in SCAL_PLUGIN_PATH (or pass --plugin-dir DIR). A user plugin
//     with the same name as a built-in one replaces it.
//  3. `scal report --list` shows it; `--only`/`--skip` select it like the built-in ones.
//
// The contract (scal/postproc.h):
//  - An ANALYSIS declares `needs` (metrics that must exist before it runs) and `produces` (what it
//    puts); the host orders analyses by these lists and skips one whose needs nobody produces.
//  - An OUTPUT runs after every analysis and writes files under host->output_dir, each through
//    host->create(host, "sub/name.ext", ...) and host->commit(host, f, ok, ...) (ABI 1.3: the file
//    is created exclusively at a temporary name and renamed into place; never fopen an output);
//    it reads any matrix with host->get() (NULL when absent) and should honour
//    host->selected(region).
//  - Matrices are rows = inputs, columns = thread counts (shape SCAL_PP_FULL); NaN is a gap and
//    must stay a gap (never write 0 for "unknown"). put() copies the values.
//  - Never print and never exit: return SCAL_OK, SCAL_EUNAVAIL with a reason in `why` when there
//    is nothing to do (listed as a note, not an error), or another negative scal status on failure.
//    (The built-in plugins write the reason and the code at once with scal__why from
//    plugins/common; this file needs only the installed headers, hence plain snprintf.)
//  - Options: declare them in the descriptor's `options` table ({name, type, default,
//    description}); users set them as SCAL_<PLUGIN>_<OPTION> or `scal report --plugin-opt
//    PLUGIN.OPTION=VALUE`, and run() reads them with host->env->get_option(host->env->options,
//    "name") (check host->struct_size first: ABI 1.2).
//  - The new metric automatically reaches the CSV output and the /analysis group.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scal/postproc.h"

static const char *const needs[] = {"speedup", "team", NULL};
static const char *const produces[] = {"karp_flatt", NULL};

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    if (h->threads[h->baseline_column] != 1) { /* Karp-Flatt needs absolute speedup */
        snprintf(why, whylen, "the Karp-Flatt metric needs 1-thread runs (%s)", h->baseline_note);
        return SCAL_EUNAVAIL;
    }
    size_t n = h->ninputs * h->nthreads;
    double *e = malloc(n * sizeof(*e));
    if (!e) return SCAL_ENOMEM;
    for (size_t r = 0; r < h->nregions; r++)
        for (size_t s = 0; s < h->nslices; s++) {
            const struct scal_pp_matrix *sp = h->get(h, r, s, "speedup");
            const struct scal_pp_matrix *team = h->get(h, r, s, "team");
            if (!sp || !team) continue;
            for (size_t k = 0; k < n; k++) {
                double S = sp->values[k], p = team->values[k];
                e[k] = p > 1 ? (1 / S - 1 / p) / (1 - 1 / p) : NAN; /* undefined at 1 thread */
            }
            int rc = h->put(h, r, s, "karp_flatt", "", SCAL_PP_FULL, e, NULL);
            if (rc < 0) {
                snprintf(why, whylen, "cannot store karp_flatt for region %zu", r);
                free(e);
                return rc;
            }
        }
    free(e);
    return SCAL_OK;
}

static const struct scal_postproc_ops ops = {
    .struct_size = sizeof(ops),
    .stage = SCAL_PP_ANALYSIS,
    .needs = needs,
    .produces = produces,
    .run = run,
};

static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "template",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "TEMPLATE: Karp-Flatt serial fraction (copy this file to add a metric)",
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
