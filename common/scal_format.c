// SPDX-License-Identifier: BSD-3-Clause
// The run-file and campaign-file formats: tables by descriptor, root attributes, new campaigns.
#include "scal_format.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errmsg.h"
#include "h5util.h"
#include "region_identity.h"
#include "scal/status.h"
#include "scal/version.h"
#include "strtab.h"
#include "utc_date.h"

int scal_table_read(hid_t loc, const struct scal_table_desc *d, void **rows, size_t *n)
{
    return scal_h5_read_table(loc, d->name, d->fields, d->nfields, d->row_size, rows, n);
}

int scal_table_read_opt(hid_t loc, const struct scal_table_desc *d, void **rows, size_t *n)
{
    *rows = NULL;
    *n = 0;
    return scal_h5_exists(loc, d->name) ? scal_table_read(loc, d, rows, n) : SCAL_OK;
}

int scal_table_read_run_rows(hid_t loc, const struct scal_table_desc *run_table,
                             const struct scal_table_desc *campaign_table, void **rows, size_t *n)
{
    *rows = NULL;
    *n = 0;
    if (!scal_h5_exists(loc, run_table->name)) return SCAL_OK;
    /* HDF5 converts by member name: the campaign row minus its leading `run` is the run's row */
    return scal_h5_read_table(loc, run_table->name, campaign_table->fields + 1,
                              campaign_table->nfields - 1, campaign_table->row_size, rows, n);
}

int scal_table_write(hid_t loc, const struct scal_table_desc *d, const void *rows, size_t n)
{
    return scal_h5_write_table(loc, d->name, d->fields, d->nfields, d->row_size, rows, n);
}

int scal_table_append(hid_t loc, const struct scal_table_desc *d, const void *rows, size_t n)
{
    return scal_h5_append_table(loc, d->name, d->fields, d->nfields, d->row_size, rows, n);
}

int scal_format_write_root(hid_t file, const char *format, const char *tool_version)
{
    if (scal_h5_attr_set_str(file, SCAL_ATTR_FORMAT, format) < 0 ||
        scal_h5_attr_set_i64(file, SCAL_ATTR_SCHEMA_VERSION, SCAL_SCHEMA_VERSION) < 0 ||
        scal_h5_attr_set_str(file, SCAL_ATTR_TOOL_VERSION, tool_version) < 0)
        return scal__fail(SCAL_EHDF5, "cannot write the root attributes");
    return SCAL_OK;
}

int scal_format_write_threads(hid_t group, const int32_t *threads, size_t n)
{
    int rc = SCAL_OK;
    hsize_t dims[1] = {n};
    hid_t space = H5Screate_simple(1, dims, NULL), d = H5I_INVALID_HID;
    if (space >= 0)
        d = H5Dcreate2(group, "threads", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT);
    if (d < 0 || (n && H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, threads) < 0))
        rc = scal__fail(SCAL_EHDF5, "cannot write the 'threads' dataset");
    if (d >= 0) H5Dclose(d);
    if (space >= 0) H5Sclose(space);
    return rc;
}

static int write_campaign_group(hid_t file, const struct scal_campaign_info *m)
{
    char now[32];
    scal_utc_date((int64_t)time(NULL), now, sizeof(now));
    hid_t g = H5Gcreate2(file, "campaign", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return scal__fail(SCAL_EHDF5, "cannot create /campaign");
    int rc = SCAL_OK;
    if (scal_h5_attr_set_str(g, "program", m->program ? m->program : "") < 0 ||
        scal_h5_attr_set_str(g, "command", m->command ? m->command : "") < 0 ||
        scal_h5_attr_set_str(g, "created_utc", now) < 0 ||
        scal_h5_attr_set_str(g, "host", m->host ? m->host : "") < 0 ||
        scal_h5_attr_set_str(g, "cpu_model", m->cpu_model ? m->cpu_model : "") < 0 ||
        scal_h5_attr_set_i64(g, "repetitions", m->repetitions) < 0 ||
        scal_h5_attr_set_i64(g, "seed", m->seed) < 0 ||
        scal_h5_attr_set_str(g, "order", m->order ? m->order : "given") < 0 ||
        (m->note && scal_h5_attr_set_str(g, "note", m->note) < 0) ||
        (m->omp_runtime && scal_h5_attr_set_str(g, "omp_runtime", m->omp_runtime) < 0) ||
        (m->program_identity &&
         scal_h5_attr_set_str(g, "program_identity", m->program_identity) < 0) ||
        (m->runner_argv &&
         scal_h5_write_strings(g, "runner_argv", m->runner_argv, m->nrunner_argv) < 0) ||
        scal_h5_write_strings(g, "inputs", m->inputs, m->ninputs) < 0 ||
        scal_format_write_threads(g, m->threads, m->nthreads) < 0)
        rc = scal__fail(SCAL_EHDF5, "cannot write /campaign");
    bool sized = false;
    for (size_t i = 0; m->input_sizes && i < m->ninputs; i++)
        sized |= isfinite(m->input_sizes[i]);
    if (rc == SCAL_OK && sized &&
        scal_h5_attr_set_f64_n(g, "input_sizes", m->input_sizes, m->ninputs) < 0)
        rc = scal__fail(SCAL_EHDF5, "cannot write /campaign@input_sizes");
    H5Gclose(g);
    return rc;
}

static int campaign_file_create(const char *path, const struct scal_campaign_info *info,
                                const struct scal_campaign_rows *r,
                                const struct scal_region_id_row *regions,
                                const struct scal_strtab *st, hid_t *out)
{
    scal_h5_quiet();
    /* exclusively: a name that exists (planted, or another's) is never opened */
    hid_t f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return scal__fail(SCAL_EIO, "cannot create campaign file '%s'", path);
    int rc = scal_format_write_root(f, SCAL_FORMAT_CAMPAIGN,
                                    info->tool_version ? info->tool_version : SCAL_VERSION_STRING);
    if (rc == SCAL_OK) rc = write_campaign_group(f, info);
    if (rc == SCAL_OK) rc = scal_table_write(f, &scal_table_configs, r->configs, r->nconfigs);
    if (rc == SCAL_OK) rc = scal_table_write(f, &scal_table_runs, r->runs, r->nruns);
    if (rc == SCAL_OK) rc = scal_table_write(f, &scal_table_campaign_regions, regions, r->nregions);
    if (rc == SCAL_OK) rc = scal_table_write(f, &scal_table_region_stats, r->stats, r->nstats);
    if (rc == SCAL_OK) rc = scal_table_write(f, &scal_table_thread_stats, NULL, 0);
    if (rc == SCAL_OK)
        rc = scal_h5_write_strings(f, "strings", (const char *const *)st->strings, st->count);
    if (rc < 0) {
        H5Fclose(f);
        return scal__fail(rc, "cannot write campaign file '%s': %s", path, scal__last_error(rc));
    }
    *out = f;
    return SCAL_OK;
}

/* The campaign's regions with their labels stored (region_identity.h) and its strings with the
 * labels added (*regions malloc'd, *st initialised: the caller frees both). */
static int label_regions(const struct scal_campaign_rows *r, const char *path,
                         struct scal_region_id_row **regions, struct scal_strtab *st)
{
    *regions = malloc((r->nregions ? r->nregions : 1) * sizeof(**regions));
    int rc = scal_strtab_from(st, r->strings, r->nstrings, path);
    if (rc == SCAL_OK && !*regions) {
        scal_strtab_free(st);
        rc = scal__fail(SCAL_ENOMEM, "out of memory labelling %zu regions", r->nregions);
    }
    if (rc < 0) {
        free(*regions);
        *regions = NULL;
        return rc;
    }
    if (r->nregions) memcpy(*regions, r->regions, r->nregions * sizeof(**regions));
    if ((rc = scal_region_labels_store(*regions, r->nregions, st)) < 0) {
        free(*regions);
        *regions = NULL;
        scal_strtab_free(st);
    }
    return rc;
}

int scal_campaign_file_create(const char *path, const struct scal_campaign_info *info,
                              const struct scal_campaign_rows *r, hid_t *out)
{
    struct scal_region_id_row *regions = NULL;
    struct scal_strtab st;
    *out = H5I_INVALID_HID;
    int rc = label_regions(r, path, &regions, &st);
    if (rc < 0)
        return scal__fail(rc, "cannot write campaign file '%s': %s", path, scal__last_error(rc));
    rc = campaign_file_create(path, info, r, regions, &st, out);
    free(regions);
    scal_strtab_free(&st);
    return rc;
}

void scal_format_run_threads(hid_t file, int32_t *threads, int32_t *observed)
{
    int64_t req = -1, obs = -1;
    hid_t meta = H5Gopen2(file, "meta", H5P_DEFAULT);
    if (meta >= 0) {
        if (scal_h5_attr_get_i64(meta, "requested_threads", &req) < 0) req = -1;
        if (scal_h5_attr_get_i64(meta, "max_team_observed", &obs) < 0) obs = -1;
        H5Gclose(meta);
    }
    *threads = (int32_t)(req > 0 ? req : obs);
    *observed = (int32_t)obs;
}

int scal_format_read_input_sizes(hid_t file, double **sizes, size_t *n)
{
    *sizes = NULL, *n = 0;
    if (H5Lexists(file, "campaign", H5P_DEFAULT) <= 0) return SCAL_OK;
    hid_t g = H5Gopen2(file, "campaign", H5P_DEFAULT);
    if (g < 0) return scal__fail(SCAL_EFORMAT, "/campaign cannot be opened");
    int rc = scal_h5_attr_exists(g, "input_sizes")
                 ? scal_h5_attr_get_f64_n(g, "input_sizes", sizes, n)
                 : SCAL_OK;
    H5Gclose(g);
    return rc;
}
