// SPDX-License-Identifier: BSD-3-Clause
// `scal model`: per region an empirical model of time (or energy) in threads and input size,
// predictions with intervals for configurations nobody ran, and findings ranked by predicted lost
// core-seconds.
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "errmsg.h"
#include "region.h"
#include "report.h"
#include "suggest.h"

#define MAX_PREDICT_THREADS 64

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: scal model CAMPAIGN... [--predict threads=LIST[,input=SIZE|LABEL]] [--csv]\n"
        "                  [--at threads=N[,input=SIZE|LABEL]] [options]\n\n"
        "Fits, for every region and the whole program, an empirical model of its time in the\n"
        "thread count p and the input size n (sizes from scal run --size or numeric input\n"
        "labels; with fewer than three sized inputs, one model in p per input). The search\n"
        "space is Extra-P's Performance Model Normal Form (terms n^a*log2(n)^b and\n"
        "p^c*log2(p)^d, added and multiplied), with Amdahl's law and the Universal Scalability\n"
        "Law among them; the model is chosen by leave-one-configuration-out cross-validation.\n"
        "Predictions carry a 90 %% interval (bootstrap over the repetitions' noise and the fit,\n"
        "widened to the other models that fit as well); a region whose data is too noisy or\n"
        "whose models disagree says 'no reliable model' instead of predicting.\n\n"
        "  --predict threads=LIST[,input=SIZE|LABEL]\n"
        "                      predicted time, speedup and efficiency at these thread counts\n"
        "                      (comma-separated) for that input (default: every input)\n"
        "  --csv               the predictions as CSV: region, threads, input_size,\n"
        "                      predicted_s, low_s, high_s, speedup, efficiency, model, input,\n"
        "                      slice, note\n"
        "  --at threads=N[,input=SIZE|LABEL]\n"
        "                      the configuration the findings are ranked at, by predicted\n"
        "                      lost core-seconds (default: 8 x the largest thread count, the\n"
        "                      largest input)\n"
        "  --metric M          time (default) or energy (the sum of the joule sensors, e.g.\n"
        "                      RAPL; values in J)\n"
        "  --stat STAT         median (default), mean, min or max of the repetitions\n"
        "  --region PATTERN    only regions whose label or slug matches (fnmatch)\n"
        "  --size LABEL=N      the size of input LABEL (repeatable; over scal run --size and\n"
        "                      numeric labels)\n"
        "  --axes A            MPI campaigns: as scal report --axes\n");
}

struct target {
    int32_t threads[MAX_PREDICT_THREADS];
    size_t nthreads;
    const char *input; /* label or size, or NULL */
    char input_buf[256];
};

static int parse_target(const char *opt, const char *arg, struct target *t, bool one)
{
    memset(t, 0, sizeof(*t));
    int rc = scal_model_parse_target(arg, t->threads, one ? 1 : MAX_PREDICT_THREADS, &t->nthreads,
                                     t->input_buf, sizeof(t->input_buf));
    if (rc < 0) {
        fprintf(stderr, "scal model: %s %s\n", opt, scal__last_error(rc));
        return 2;
    }
    t->input = t->input_buf[0] ? t->input_buf : NULL;
    return 0;
}

static void csv_field(const char *s)
{
    bool q = strpbrk(s, ",\"\n") != NULL;
    if (!q) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"') putchar('"');
        putchar(*s);
    }
    putchar('"');
}

static void csv_num(double v)
{
    if (isfinite(v))
        printf(",%.6g", v);
    else
        printf(",");
}

struct session {
    struct pp_campaign c;
    struct pp_host *h;
    const struct scal_pp_host *api;
    double *sizes;
    struct scal_region_model *rm; /* nregions x nslices */
    bool *sel;
    const char *metric, *unit;
};

/* Whether a region has values of the metric at all (energy: only where sensors measured). */
static bool has_data(const struct scal_region_model *rm)
{
    for (size_t q = 0; q < rm->npieces; q++)
        if (rm->piece[q].npoints > 0) return true;
    return false;
}

static void session_free(struct session *s)
{
    for (size_t i = 0; s->rm && s->api && i < s->api->nregions * s->api->nslices; i++)
        scal_region_model_free(&s->rm[i]);
    free(s->rm);
    free(s->sel);
    free(s->sizes);
    pp_host_free(s->h);
    pp_campaign_free(&s->c);
}

/* The inputs to predict for: the named one, else every input of the campaign. */
static int inputs_of(const struct session *s, const char *spec, size_t *idx, double *n, size_t *k)
{
    const struct scal_pp_host *h = s->api;
    *k = 0;
    if (spec) {
        int rc = scal_model_target_input(h->inputs, s->sizes, h->ninputs, spec, &idx[0], &n[0]);
        if (rc < 0) return rc;
        *k = 1;
        return SCAL_OK;
    }
    for (size_t i = 0; i < h->ninputs; i++)
        idx[*k] = i, n[(*k)++] = s->sizes[i];
    return SCAL_OK;
}

static const char *input_name(const struct session *s, size_t input, double n, char *buf,
                              size_t len)
{
    if (input < s->api->ninputs) return s->api->inputs[input];
    snprintf(buf, len, "%g", n);
    return buf;
}

static int predict(const struct session *s, const struct target *t, bool csv)
{
    const struct scal_pp_host *h = s->api;
    size_t *idx = malloc((h->ninputs + 1) * sizeof(*idx)), k = 0;
    double *ns = malloc((h->ninputs + 1) * sizeof(*ns));
    int rc = idx && ns ? inputs_of(s, t->input, idx, ns, &k) : SCAL_ENOMEM;
    if (rc < 0) goto out;
    if (csv)
        printf("region,threads,input_size,predicted_%s,low_%s,high_%s,speedup,efficiency,model,"
               "input,slice,note\n",
               s->unit, s->unit, s->unit);
    else
        printf("%-40s %7s %-12s %11s %11s %11s %8s %6s  %s\n", "region", "threads", "input",
               "predicted", "low", "high", "speedup", "eff", "model or note");
    for (size_t sl = 0; sl < h->nslices; sl++)
        for (size_t r = 0; r < h->nregions; r++) {
            if (!s->sel[r]) continue;
            const struct scal_region_model *rm = &s->rm[r * h->nslices + sl];
            if (!has_data(rm)) continue;
            for (size_t i = 0; i < k; i++)
                for (size_t q = 0; q < t->nthreads; q++) {
                    struct scal_model_reading rd;
                    scal_model_read(rm, idx[i], ns[i], t->threads[q], s->unit, &rd);
                    const struct scal_model *m = scal_region_model_piece(rm, idx[i]);
                    char expr[400] = "", name[64];
                    if (m && m->fitted) scal_model_expr(&m->f, expr, sizeof(expr));
                    const char *in = input_name(s, idx[i], ns[i], name, sizeof(name));
                    double p = NAN, lo = NAN, hi = NAN, sp = NAN, eff = NAN;
                    if (rd.ok)
                        p = rd.pred, lo = rd.lo, hi = rd.hi, sp = rd.speedup, eff = rd.efficiency;
                    if (csv) {
                        csv_field(h->regions[r].label);
                        printf(",%d", t->threads[q]);
                        csv_num(ns[i]);
                        csv_num(p), csv_num(lo), csv_num(hi), csv_num(sp), csv_num(eff);
                        putchar(',');
                        csv_field(expr);
                        putchar(',');
                        csv_field(in);
                        putchar(',');
                        csv_field(h->slices[sl]);
                        putchar(',');
                        csv_field(rd.ok ? "" : rd.why);
                        putchar('\n');
                    } else if (rd.ok)
                        printf("%-40.40s %7d %-12.12s %11.4g %11.4g %11.4g %8.3g %6.2f  %s\n",
                               h->regions[r].label, t->threads[q], in, p, lo, hi, sp, eff, expr);
                    else
                        printf("%-40.40s %7d %-12.12s %11s %11s %11s %8s %6s  %s\n",
                               h->regions[r].label, t->threads[q], in, "-", "-", "-", "-", "-",
                               rd.why);
                }
        }
out:
    free(idx);
    free(ns);
    return rc;
}

struct ranked {
    size_t region, slice;
    double lost;
};

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    double u = isfinite(x->lost) ? x->lost : -INFINITY, v = isfinite(y->lost) ? y->lost : -INFINITY;
    return (u < v) - (u > v);
}

/* With three or more frequencies: each region's model in f and p, per input. */
static int frequency_models(const struct session *s)
{
    const struct scal_pp_host *h = s->api;
    double *ghz = malloc((h->nslices + 1) * sizeof(*ghz)), fmax = 0;
    int rc = ghz ? SCAL_OK : SCAL_ENOMEM;
    if (rc < 0 || !scal_model_slice_freqs(h, ghz)) goto out;
    for (size_t sl = 0; sl < h->nslices; sl++)
        fmax = isfinite(ghz[sl]) ? fmax > ghz[sl] ? fmax : ghz[sl] : fmax;
    printf("\nmodels in frequency (every slice):\n");
    for (size_t r = 0; r < h->nregions; r++) {
        if (!s->sel[r] || !has_data(&s->rm[r * h->nslices])) continue;
        printf("\n%s\n", h->regions[r].label);
        for (size_t i = 0; i < h->ninputs; i++) {
            struct scal_model m;
            struct scal_model_reading rd;
            if ((rc = scal_model_region_freq(h, r, i, s->metric, ghz, &m)) < 0) goto out;
            scal_model_read_freq(&m, h->inputs[i], fmax, h->threads[h->nthreads - 1], s->unit, &rd);
            for (size_t l = 0; l < rd.nlines; l++)
                printf("  - %s\n", rd.line[l]);
        }
    }
out:
    free(ghz);
    return rc;
}

static int models_and_findings(const struct session *s, const struct target *at)
{
    const struct scal_pp_host *h = s->api;
    size_t input = SIZE_MAX;
    double n = NAN;
    int rc = SCAL_OK;
    if (at->input)
        rc = scal_model_target_input(h->inputs, s->sizes, h->ninputs, at->input, &input, &n);
    else {
        input = h->ninputs - 1;
        for (size_t i = 0; i < h->ninputs; i++)
            if (s->sizes[i] > s->sizes[input]) input = i;
        n = s->sizes[input];
    }
    if (rc < 0) return rc;
    char name[64];
    const char *in = input_name(s, input, n, name, sizeof(name));
    printf("scal model: %s of %zu region(s); inputs:", s->metric, h->nregions);
    for (size_t i = 0; i < h->ninputs; i++)
        printf(" %s", h->inputs[i]);
    if (scal_model_sizes_usable(s->sizes, h->ninputs)) {
        printf(" (sizes");
        for (size_t i = 0; i < h->ninputs; i++)
            printf(" %g", s->sizes[i]);
        printf(")");
    } else
        printf(" (no usable sizes: one model in p per input)");
    printf("; threads:");
    for (size_t t = 0; t < h->nthreads; t++)
        printf(" %d", h->threads[t]);
    printf("; statistic: %s\n", h->stat);
    struct ranked *rk = calloc(h->nregions * h->nslices + 1, sizeof(*rk));
    if (!rk) return SCAL_ENOMEM;
    size_t nrk = 0;
    for (size_t sl = 0; sl < h->nslices; sl++)
        for (size_t r = 0; r < h->nregions; r++) {
            if (!s->sel[r]) continue;
            const struct scal_region_model *rm = &s->rm[r * h->nslices + sl];
            if (!has_data(rm)) continue;
            printf("\n%s%s%s%s\n", h->regions[r].label, *h->slices[sl] ? " [" : "", h->slices[sl],
                   *h->slices[sl] ? "]" : "");
            for (size_t piece = 0; piece < rm->npieces; piece++) {
                size_t pin = rm->uses_n ? input : piece;
                struct scal_model_reading rd;
                scal_model_read(rm, pin, rm->uses_n ? n : s->sizes[piece], at->threads[0], s->unit,
                                &rd);
                if (!rm->uses_n) printf("  input %s:\n", h->inputs[piece]);
                for (size_t l = 0; l < rd.nlines; l++)
                    printf("  %s- %s\n", rm->uses_n ? "" : "  ", rd.line[l]);
                if (pin == input) rk[nrk++] = (struct ranked){r, sl, rd.lost};
            }
        }
    if ((rc = frequency_models(s)) < 0) {
        free(rk);
        return rc;
    }
    if (!strcmp(s->unit, "s")) {
        qsort(rk, nrk, sizeof(*rk), cmp_ranked);
        printf("\nfindings at %d threads, input %s, ranked by predicted lost core-seconds:\n",
               at->threads[0], in);
        size_t shown = 0;
        for (size_t k = 0; k < nrk; k++) {
            if (!isfinite(rk[k].lost) || rk[k].region == 0) continue;
            const struct scal_region_model *rm = &s->rm[rk[k].region * h->nslices + rk[k].slice];
            struct scal_model_reading rd;
            scal_model_read(rm, input, n, at->threads[0], s->unit, &rd);
            printf("  %3zu  %10.4g  %s%s%s:", ++shown, rk[k].lost, h->regions[rk[k].region].label,
                   *h->slices[rk[k].slice] ? " @" : "", h->slices[rk[k].slice]);
            for (size_t l = 1; l < rd.nlines; l++)
                printf("%s %s", l > 1 ? ";" : "", rd.line[l]);
            printf("\n");
        }
        if (!shown) printf("  (none: no region has a reliable prediction there)\n");
    }
    free(rk);
    return SCAL_OK;
}

struct opts {
    const char *stat, *axes, *pattern, *metric;
    const char *size[64]; /* --size LABEL=N */
    size_t nsize;
};

/* --size LABEL=N over the campaign's sizes (as scal export --size). */
static int override_sizes(const struct scal_pp_host *h, const struct opts *op, double *sizes)
{
    for (size_t k = 0; k < op->nsize; k++) {
        const char *eq = strrchr(op->size[k], '=');
        char *end = NULL;
        double v = eq ? strtod(eq + 1, &end) : NAN;
        if (!eq || end == eq + 1 || *end || !(v > 0) || !isfinite(v))
            return scal__fail(SCAL_EINVAL, "--size '%s': expected LABEL=N with a positive N",
                              op->size[k]);
        size_t i = 0, len = (size_t)(eq - op->size[k]);
        while (i < h->ninputs &&
               (strlen(h->inputs[i]) != len || strncmp(h->inputs[i], op->size[k], len)))
            i++;
        if (i == h->ninputs)
            return scal__fail(SCAL_EINVAL, "--size '%s': the campaign has no input '%.*s'",
                              op->size[k], (int)len, op->size[k]);
        sizes[i] = v;
    }
    return SCAL_OK;
}

static int run(struct session *s, const char *const *files, size_t nfiles, const struct opts *op)
{
    const char *stat = op->stat, *axes = op->axes, *pattern = op->pattern, *metric = op->metric;
    struct scal_report_options o = {.files = files,
                                    .nfiles = nfiles,
                                    .stat = stat,
                                    .axes = axes,
                                    .no_write = true,
                                    .mode = SCAL_PP_DISCRETE,
                                    .output_dir = "."};
    int rc = pp_campaign_load_axes(&s->c, files, nfiles, axes);
    if (rc < 0) return rc;
    if (s->c.single_run)
        return scal__fail(SCAL_EINVAL, "%s is a single run file: a model needs a campaign",
                          files[0]);
    if ((rc = pp_host_create(&s->h, &s->c, &o)) < 0) return rc;
    s->api = pp_host_api(s->h);
    const struct scal_pp_host *h = s->api;
    s->metric = metric;
    s->unit = strcmp(metric, "energy") ? "s" : "J";
    s->sizes = malloc((h->ninputs + 1) * sizeof(*s->sizes));
    s->rm = calloc(h->nregions * h->nslices + 1, sizeof(*s->rm));
    s->sel = calloc(h->nregions + 1, sizeof(*s->sel));
    if (!s->sizes || !s->rm || !s->sel) return SCAL_ENOMEM;
    size_t matched = 0;
    for (size_t r = 0; r < h->nregions; r++) {
        s->sel[r] = !pattern || !fnmatch(pattern, h->regions[r].label, 0) ||
                    !fnmatch(pattern, h->regions[r].slug, 0);
        matched += s->sel[r];
    }
    if (!matched) return scal__fail(SCAL_EINVAL, "--region '%s' matches no region", pattern);
    if ((rc = scal_model_input_sizes(h, s->sizes)) < 0 ||
        (rc = override_sizes(h, op, s->sizes)) < 0)
        return rc;
    bool any = false;
    for (size_t r = 0; r < h->nregions; r++)
        for (size_t sl = 0; s->sel[r] && sl < h->nslices; sl++) {
            struct scal_region_model *rm = &s->rm[r * h->nslices + sl];
            if ((rc = scal_model_region(h, r, sl, metric, s->sizes, rm)) < 0) return rc;
            any |= has_data(rm);
        }
    if (!any && strcmp(metric, "time"))
        return scal__fail(SCAL_EINVAL, "%s: the campaign has no %s values (%s)", files[0], metric,
                          "joule sensors such as RAPL: scal run --sensor rapl");
    return SCAL_OK;
}

int scal_cmd_model(int argc, char **argv)
{
    enum { O_PREDICT = 256, O_CSV, O_AT, O_METRIC, O_STAT, O_REGION, O_AXES, O_SIZE };
    static const struct option longopts[] = {{"predict", required_argument, NULL, O_PREDICT},
                                             {"csv", no_argument, NULL, O_CSV},
                                             {"at", required_argument, NULL, O_AT},
                                             {"metric", required_argument, NULL, O_METRIC},
                                             {"stat", required_argument, NULL, O_STAT},
                                             {"region", required_argument, NULL, O_REGION},
                                             {"axes", required_argument, NULL, O_AXES},
                                             {"size", required_argument, NULL, O_SIZE},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    struct target pred = {0}, at = {0};
    bool have_pred = false, have_at = false, csv = false;
    struct opts op = {.stat = "median", .metric = "time"};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case O_PREDICT:
            if (parse_target("--predict", optarg, &pred, false)) return 2;
            have_pred = true;
            break;
        case O_AT:
            if (parse_target("--at", optarg, &at, true)) return 2;
            have_at = true;
            break;
        case O_CSV:
            csv = true;
            break;
        case O_METRIC:
            if (strcmp(optarg, "time") && strcmp(optarg, "energy")) {
                fprintf(stderr, "scal model: --metric must be time or energy\n");
                return 2;
            }
            op.metric = optarg;
            break;
        case O_STAT:
            if (strcmp(optarg, "median") && strcmp(optarg, "mean") && strcmp(optarg, "min") &&
                strcmp(optarg, "max")) {
                fprintf(stderr, "scal model: --stat must be median, mean, min or max\n");
                return 2;
            }
            op.stat = optarg;
            break;
        case O_REGION:
            op.pattern = optarg;
            break;
        case O_SIZE:
            if (op.nsize == sizeof(op.size) / sizeof(op.size[0])) {
                fprintf(stderr, "scal model: too many --size\n");
                return 2;
            }
            op.size[op.nsize++] = optarg;
            break;
        case O_AXES:
            if (pp_axes_check(optarg) < 0) {
                fprintf(stderr, "scal model: %s\n", scal__last_error(SCAL_EINVAL));
                return 2;
            }
            op.axes = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default: {
            char near[80];
            const char *bad = argv[optind - 1];
            if (c == ':')
                fprintf(stderr, "scal model: option '%s' needs a value (see 'scal model --help')\n",
                        bad);
            else if (scal_suggest_option(bad, longopts, near, sizeof(near)))
                fprintf(stderr, "scal model: unknown option '%s'; did you mean '%s'?\n", bad, near);
            else
                fprintf(stderr, "scal model: unknown option '%s' (see 'scal model --help')\n", bad);
            return 2;
        }
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "scal model: no campaign file given (see 'scal model --help')\n");
        return 2;
    }
    if (csv && !have_pred) {
        fprintf(stderr, "scal model: --csv goes with --predict threads=LIST\n");
        return 2;
    }
    struct session s = {0};
    int rc = run(&s, (const char *const *)(argv + optind), (size_t)(argc - optind), &op);
    if (rc == SCAL_OK && !have_at) {
        at.threads[at.nthreads++] = 8 * s.api->threads[s.api->nthreads - 1];
    }
    if (rc == SCAL_OK) rc = have_pred ? predict(&s, &pred, csv) : models_and_findings(&s, &at);
    session_free(&s);
    if (rc < 0) {
        fprintf(stderr, "scal model: %s\n", scal__last_error(rc));
        return 1;
    }
    return 0;
}
