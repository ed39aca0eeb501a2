// SPDX-License-Identifier: BSD-3-Clause
// Writes a synthetic campaign of the PaScal Viewer's theoretical program (T = n^2/p + log2 p) with
// the layout.h tables, plus variants for bad-input tests and the benchmark.
// usage: gen_campaign OUT [--inputs N] [--threads N] [--reps R] [--regions K] [--gap] [--no1]
//                         [--energy] [--badtime] [--dup] [--schema V] [--empty] [--freqs N]
//                         [--maxteam K] [--noisy] [--partial] [--only1] [--shift L] [--jitter F]
//                         [--failinput I] [--gaps]
// --partial: the last region runs only above 1 thread (omp_get_max_threads() > 1); --only1: the
// region before it runs only at 1 thread (a serial code path); --shift L: every pragma L lines
// lower (a moved pragma); --jitter F: the repetitions of every cell vary by +-F (relative);
// --failinput I: every run of input I (0-based) failed; --gaps: two serial gaps after region 1
// (1 -> 2 and 1 -> end), both named "serial"; --waits: region 1 records imbalance (0.01 T p
// core-s), barrier wait beyond it (0.02 T (p-1)) and lock wait (0.005 T (p-1)).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5util.h"
#include "layout.h"
#include "scal_format.h"
#include "strtab.h"

int main(int argc, char **argv)
{
    int ni = 13, nt = 13, reps = 1, nreg = 3, gap = 0, no1 = 0, energy = 0, badtime = 0, dup = 0;
    int schema = SCAL_SCHEMA_VERSION, empty = 0, nf = 1, maxteam = 0, noisy = 0;
    int partial = 0, only1 = 0, shift = 0;
    double jitter = 0;
    int failinput = -1, gaps = 0, waits = 0, improve = 0, mangled = 0;
    if (argc < 2) return 2;
    int nreal; /* regions before the two serial gaps of --gaps */
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--inputs"))
            ni = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads"))
            nt = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--regions"))
            nreg = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gap"))
            gap = 1;
        else if (!strcmp(argv[i], "--no1"))
            no1 = 1;
        else if (!strcmp(argv[i], "--energy"))
            energy = 1;
        else if (!strcmp(argv[i], "--badtime"))
            badtime = 1;
        else if (!strcmp(argv[i], "--dup"))
            dup = 1;
        else if (!strcmp(argv[i], "--schema"))
            schema = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--empty"))
            empty = 1;
        else if (!strcmp(argv[i], "--freqs"))
            nf = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--maxteam"))
            maxteam = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--noisy"))
            noisy = 1;
        else if (!strcmp(argv[i], "--partial"))
            partial = 1;
        else if (!strcmp(argv[i], "--only1"))
            only1 = 1;
        else if (!strcmp(argv[i], "--shift") && i + 1 < argc)
            shift = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--jitter") && i + 1 < argc)
            jitter = atof(argv[++i]);
        else if (!strcmp(argv[i], "--failinput"))
            failinput = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gaps"))
            gaps = 1;
        else if (!strcmp(argv[i], "--waits"))
            waits = 1;
        else if (!strcmp(argv[i], "--improve"))
            improve = 1;
        else if (!strcmp(argv[i], "--mangled"))
            mangled = 1;
        else
            return 2;
    }
    nreal = nreg;
    if (gaps) nreg += 2;
    struct scal_strtab st;
    scal_strtab_init(&st);
    int ncfg = ni * nt * nf + (dup ? 1 : 0);
    struct scal_config_row *cfg = calloc(ncfg, sizeof(*cfg));
    struct scal_run_row *runs = calloc((size_t)ncfg * reps, sizeof(*runs));
    struct scal_region_id_row *reg = calloc(nreg, sizeof(*reg));
    struct scal_region_stat_row *rs = calloc((size_t)ncfg * reps * nreg, sizeof(*rs));
    struct scal_run_sensor_value_row *sv = calloc((size_t)ncfg * reps, sizeof(*sv));
    char **inputs = calloc(ni, sizeof(*inputs));
    int32_t *threads = calloc(nt, sizeof(*threads));
    char buf[256];
    for (int i = 0; i < ni; i++) {
        snprintf(buf, sizeof(buf), "i%d", i + 1);
        inputs[i] = strdup(buf);
    }
    for (int t = 0; t < nt; t++)
        threads[t] = 1 << (t + no1);
    for (int c = 0; c < ni * nt * nf; c++)
        cfg[c] = (struct scal_config_row){(uint32_t)c,
                                          threads[c % nt],
                                          (uint32_t)((c / nt) % ni),
                                          (uint32_t)scal_strtab_add(&st, inputs[(c / nt) % ni]),
                                          nf > 1 ? 1000000 * (1 + c / (ni * nt)) : -1,
                                          0,
                                          0};
    if (dup) cfg[ni * nt * nf] = cfg[0], cfg[ni * nt * nf].id = ni * nt * nf;
    uint32_t file = (uint32_t)scal_strtab_add(&st, "/src/theory.c");
    uint32_t mod = (uint32_t)scal_strtab_add(&st, "/bin/theory");
    for (int r = 0; r < nreg; r++) {
        struct scal_region_id_row *x = &reg[r];
        x->id = r;
        x->parent = r == 0 ? -1 : (r <= 2 ? 0 : 1 + (r % 2));
        x->depth = r == 0 ? 0 : (r <= 2 ? 1 : 2);
        x->kind = r == 0 ? SCAL_KIND_ROOT : SCAL_KIND_PARALLEL;
        snprintf(buf, sizeof(buf), r == 0 ? "whole program" : "theory.c:%d-%d", 10 * r + shift,
                 10 * r + 8 + shift);
        x->name = (uint32_t)scal_strtab_add(&st, buf);
        x->module = r ? mod : 0;
        x->offset = 0x1000 + 16 * r;
        x->file = r ? file : 0;
        x->line_first = r ? 10 * r + shift : -1;
        x->line_last = r ? 10 * r + 8 + shift : -1;
        x->function = (uint32_t)scal_strtab_add(&st, r == 1 && mangled ? "_ZN6solver4stepEi"
                                                     : r               ? "kernel"
                                                                       : "");
        x->gap_prev = x->gap_next = -1;
        if (r >= nreal) { /* serial gaps 1 -> 2 and 1 -> end, with the same name */
            x->kind = SCAL_KIND_SERIAL;
            x->parent = 0;
            x->depth = 1;
            x->name = (uint32_t)scal_strtab_add(&st, "serial");
            x->function = (uint32_t)scal_strtab_add(&st, "");
            x->module = x->file = 0;
            x->line_first = x->line_last = -1;
            x->gap_prev = 1;
            x->gap_next = r == nreal ? 2 : -1;
        }
    }
    uint32_t jm = (uint32_t)scal_strtab_add(&st, "rapl.package-0"),
             ju = (uint32_t)scal_strtab_add(&st, "J");
    size_t nruns = 0, nrs = 0, nsv = 0;
    for (int c = 0; c < ncfg; c++)
        for (int k = 0; k < reps; k++) {
            struct scal_run_row *r = &runs[nruns];
            r->id = (uint32_t)nruns;
            r->config = c;
            r->repetition = k;
            r->status = (int)cfg[c].input == failinput ? SCAL_RUN_FAILED : SCAL_RUN_OK;
            r->team_requested = r->team_observed = cfg[c].threads;
            if (maxteam && r->team_observed > maxteam)
                r->team_observed = maxteam, r->team_mismatch = 1;
            r->frequency_observed_khz = -1;
            double n = 10.0 * (1 << cfg[c].input), p = cfg[c].threads;
            double noise = reps > 1 ? 1 + 0.001 * (k - (reps - 1) / 2.0) : 1;
            if (noisy && c == 1) noise = 1 + 0.5 * k; /* input 1, second thread count */
            double jit = jitter > 0 && reps > 1 ? 1 + jitter * (2.0 * k / (reps - 1) - 1) : 1;
            double T = (n * n / p + log2(p)) * noise;
            if (cfg[c].frequency_khz > 0) T *= 1e6 / cfg[c].frequency_khz; /* slower clock */
            for (int g = 0; g < nreg; g++) {
                if (gap && g == 1 && cfg[c].input == 2 && cfg[c].threads == 4) continue;
                if (partial && g == nreal - 1 && cfg[c].threads == 1) continue;
                if (only1 && g == nreal - 2 && cfg[c].threads != 1) continue;
                struct scal_region_stat_row *s = &rs[nrs++];
                s->run = r->id;
                s->region = g;
                s->count = 1;
                /* root: the closed form; region 1: 70% of it (same efficiency); region 2: a
                 * serial part (n^2 * 0.3 at every p); deeper regions: mixtures. */
                double t = g == 0       ? T
                           : g == 1     ? 0.7 * T
                           : g == 2     ? 0.3 * n * n / (improve ? p : 1)
                           : g >= nreal ? (g == nreal ? 0.01 : 0.05) * n * n
                                        : T * (0.001 + 0.0001 * (g % 7));
                if (badtime && g == 1 && cfg[c].input == 0 && cfg[c].threads == 1)
                    t = k == 0 ? NAN : -1;
                t *= jit; /* --jitter: every region's repetitions spread */
                s->time_total_s = s->time_wall_s = s->time_median_s = s->time_mean_s = t;
                s->team_actual_max = s->team_actual_min = r->team_observed;
                if (waits && g == 1 && p > 1) {
                    s->threads = (uint32_t)p;
                    s->thread_work_mean_s = t / p;
                    s->thread_work_max_s = t / p + 0.01 * T;
                    s->barrier_total_s = 0.01 * T * p + 0.02 * T * (p - 1);
                    s->lock_total_s = 0.005 * T * (p - 1);
                }
            }
            if (energy)
                sv[nsv++] = (struct scal_run_sensor_value_row){
                    r->id, -1, -1, jm, ju, 1, 50.0 * T * (1 + 0.1 * p)};
            nruns++;
        }
    struct scal_campaign_info info = {.tool_version = "gen_campaign",
                                      .program = "theory",
                                      .inputs = (const char *const *)inputs,
                                      .ninputs = (size_t)ni,
                                      .threads = threads,
                                      .nthreads = (size_t)nt};
    struct scal_campaign_rows rows = {.configs = cfg,
                                      .nconfigs = empty ? 0 : (size_t)ncfg,
                                      .runs = runs,
                                      .nruns = empty ? 0 : nruns,
                                      .regions = reg,
                                      .nregions = (size_t)nreg,
                                      .stats = rs,
                                      .nstats = empty ? 0 : nrs,
                                      .strings = (const char *const *)st.strings,
                                      .nstrings = st.count};
    hid_t f;
    unlink(argv[1]); /* created exclusively: a test's file of an earlier run goes first */
    int rc = scal_campaign_file_create(argv[1], &info, &rows, &f);
    if (rc < 0) return 1;
    if (schema != SCAL_SCHEMA_VERSION)
        rc |= scal_h5_attr_set_i64(f, SCAL_ATTR_SCHEMA_VERSION, schema);
    if (energy) rc |= scal_table_write(f, &scal_table_run_sensor_values, sv, nsv);
    H5Fclose(f);
    for (int i = 0; i < ni; i++)
        free(inputs[i]);
    free(inputs);
    free(threads);
    free(cfg);
    free(runs);
    free(reg);
    free(rs);
    free(sv);
    scal_strtab_free(&st);
    return rc ? 1 : 0;
}
