// SPDX-License-Identifier: BSD-3-Clause
// A run or campaign file as one tidy (run, region) table for the exports: a view of what the one
// reader (common/campaign_reader.h) read.
#include "tidy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "region_identity.h"
#include "scal/status.h"

/* A label as one Extra-P call-path element: "->" separates elements there, so one inside a label
 * (serial gaps are "serial: A -> B") is written as an arrow character. */
static void put_callpath_element(FILE *out, const char *label)
{
    for (const char *p = label; *p; p++) {
        if (p[0] == '-' && p[1] == '>') {
            fputs("\u2192", out);
            p++;
        } else {
            fputc(*p, out);
        }
    }
}

static int join_callpaths(struct tidy *t)
{
    size_t n = t->r.nregions;
    if (!(t->callpath = calloc(n ? n : 1, sizeof(*t->callpath))))
        return scal__fail(SCAL_ENOMEM, "out of memory for %zu call paths", n);
    for (size_t i = 0; i < n; i++) {
        int32_t parent = t->r.regions[i].parent; /* earlier row: checked by the label rule */
        size_t len = 0;
        FILE *s = open_memstream(&t->callpath[i], &len);
        if (!s) return scal__fail(SCAL_ENOMEM, "out of memory for call paths");
        if (parent >= 0) fprintf(s, "%s->", t->callpath[parent]);
        put_callpath_element(s, t->r.labels[i]);
        if (fclose(s) != 0 || !t->callpath[i])
            return scal__fail(SCAL_ENOMEM, "out of memory for call paths");
    }
    return SCAL_OK;
}

/* Whole-region, all-thread sensor values as columns "<plugin>.<metric> [unit]". */
static int sensor_columns(struct tidy *t)
{
    const struct scal_run_sensor_value_row *sv = t->r.sensor_values;
    size_t nsv = t->r.nsensor_values, nstats = t->r.nstats;
    const struct scal_region_stat_row *stats = t->r.stats;
    int rc = SCAL_OK;
    t->metrics = calloc(nsv ? nsv : 1, sizeof(*t->metrics));
    if (!t->metrics) rc = scal__fail(SCAL_ENOMEM, "out of memory for sensor values");
    for (size_t i = 0; rc == SCAL_OK && i < nsv; i++) {
        bool known = false;
        for (size_t m = 0; m < t->nmetrics && !known; m++)
            known = t->metrics[m].name == sv[i].metric && t->metrics[m].unit == sv[i].unit;
        if (!known && sv[i].thread == -1)
            t->metrics[t->nmetrics++] = (struct tidy_metric){sv[i].metric, sv[i].unit};
    }
    if (rc == SCAL_OK && !(t->values = malloc((nstats * t->nmetrics + 1) * sizeof(double))))
        rc = scal__fail(SCAL_ENOMEM, "out of memory for sensor values");
    for (size_t i = 0; rc == SCAL_OK && i < nstats * t->nmetrics; i++)
        t->values[i] = NAN;
    for (size_t i = 0; rc == SCAL_OK && i < nsv; i++) {
        if (sv[i].thread != -1) continue;
        /* whole-run values (region -1) belong to the whole program's row, as in scal show */
        uint32_t region = sv[i].region >= 0 ? (uint32_t)sv[i].region : 0;
        for (size_t s = 0; s < nstats; s++) {
            if (stats[s].region != region || stats[s].run != sv[i].run) continue;
            for (size_t m = 0; m < t->nmetrics; m++)
                if (t->metrics[m].name == sv[i].metric && t->metrics[m].unit == sv[i].unit &&
                    (sv[i].region >= 0 || isnan(t->values[s * t->nmetrics + m])))
                    t->values[s * t->nmetrics + m] = sv[i].value;
        }
    }
    return rc;
}

/* /region_rank_summary's rank imbalance beside each stats row (NaN: no summary). */
static int rank_imbalance(struct tidy *t)
{
    const struct scal_region_rank_summary_row *sum = t->r.rank_summary;
    if (!(t->rank_imbalance = malloc((t->r.nstats + 1) * sizeof(double))))
        return scal__fail(SCAL_ENOMEM, "out of memory for %zu rows", t->r.nstats);
    for (size_t s = 0; s < t->r.nstats; s++) {
        t->rank_imbalance[s] = NAN;
        for (size_t k = 0; k < t->r.nrank_summary; k++)
            if (sum[k].run == t->r.stats[s].run && sum[k].region == t->r.stats[s].region)
                t->rank_imbalance[s] = sum[k].rank_imbalance;
    }
    return SCAL_OK;
}

/* The view's checks (a campaign whose runs all have a planned input, statistics of known
 * regions), call paths, rank imbalance and sensor columns. */
static int build(struct tidy *t)
{
    const char *path = t->r.f.path;
    if (t->r.f.campaign) {
        if (!t->r.campaign_group) return scal__fail(SCAL_EFORMAT, "%s: no /campaign group", path);
        if (!t->r.campaign_inputs) return scal__fail(SCAL_EFORMAT, "%s: no /campaign/inputs", path);
        if (t->r.unplanned)
            return scal__fail(SCAL_EFORMAT, "%s: run %u has no configuration with a planned input",
                              path, t->r.unplanned_run);
    }
    for (size_t s = 0; s < t->r.nstats; s++)
        if (t->r.stats[s].region >= t->r.nregions)
            return scal__fail(SCAL_EFORMAT, "%s: /region_stats row %zu names region %u of %zu",
                              path, s, t->r.stats[s].region, t->r.nregions);
    int rc = join_callpaths(t);
    if (rc == SCAL_OK) rc = rank_imbalance(t);
    if (rc == SCAL_OK) rc = sensor_columns(t);
    return rc;
}

int tidy_load(const char *path, unsigned flags, struct tidy *t)
{
    memset(t, 0, sizeof(*t));
    int rc = scal_read_file(path, flags & ~(unsigned)SCAL_READ_SLIM, &t->r);
    return rc < 0 ? rc : build(t);
}

void tidy_free(struct tidy *t)
{
    scal_region_identities_free(t->callpath, t->callpath ? t->r.nregions : 0);
    free(t->metrics);
    free(t->values);
    free(t->rank_imbalance);
    scal_read_free(&t->r);
    memset(t, 0, sizeof(*t));
}

const struct scal_read_run *tidy_run_of(const struct tidy *t, uint32_t run)
{
    return scal_read_run_of(&t->r, run);
}
