// SPDX-License-Identifier: BSD-3-Clause
// Reads a run file written by libscal_ompt.so into a campaign-writer payload.
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_writer.h"
#include "errmsg.h"
#include "h5util.h"
#include "run_snapshot.h"
#include "safe_open.h"
#include "scal_format.h"

void scal_cw_payload_free(struct scal_cw_payload *p)
{
    scal_h5_free_strings(p->strings, p->nstrings);
    free(p->regions), free(p->stats), free(p->threads), free(p->values), free(p->samples);
    free(p->plugins);
    free(p->ranks), free(p->rank_stats), free(p->rank_summary);
    for (size_t k = 0; k < p->nparts; k++)
        scal_cw_payload_free(&p->parts[k]);
    free(p->parts), free(p->part_ranks);
    memset(p, 0, sizeof(*p));
}

/* /regions rows split into identity rows and statistics rows (rows is freed). */
static int split_regions(struct scal_region_row *rows, size_t nrows, struct scal_cw_payload *p)
{
    p->regions = calloc(nrows ? nrows : 1, sizeof(*p->regions));
    p->stats = calloc(nrows ? nrows : 1, sizeof(*p->stats));
    if (!p->regions || !p->stats) {
        free(rows);
        return scal__fail(SCAL_ENOMEM, "out of memory reading %zu regions", nrows);
    }
    for (size_t i = 0; i < nrows; i++) {
        struct scal_region_id_row *id = &p->regions[i];
        struct scal_region_stat_row *st = &p->stats[i];
#define COPY(h5, ctype, member) id->member = rows[i].member;
        SCAL_REGION_IDENTITY_FIELDS(COPY)
#undef COPY
#define COPY(h5, ctype, member) st->member = rows[i].member;
        SCAL_REGION_STATS_FIELDS(COPY)
#undef COPY
        st->region = rows[i].id;
    }
    p->nregions = p->nstats = nrows;
    free(rows);
    return SCAL_OK;
}

/* /regions of a run file. */
static int read_regions(hid_t f, struct scal_cw_payload *p)
{
    struct scal_region_row *rows = NULL;
    size_t nrows = 0;
    int rc = scal_table_read(f, &scal_table_run_regions, (void **)&rows, &nrows);
    return rc < 0 ? rc : split_regions(rows, nrows, p);
}

int scal_cw_payload_from_run_file(const char *path, unsigned open_flags, struct scal_cw_payload *p)
{
    struct scal_h5file f;
    memset(p, 0, sizeof(*p));
    int rc = scal_h5file_open(path, SCAL_OPEN_RUN | open_flags, &f);
    if (rc < 0) return rc;
    p->strings = f.strings; /* the payload keeps the file's strings */
    p->nstrings = f.nstrings;
    f.strings = NULL;
    f.nstrings = 0;
    rc = read_regions(f.id, p);
    if (rc == SCAL_OK)
        rc = scal_table_read_run_rows(f.id, &scal_table_threads, &scal_table_thread_stats,
                                      (void **)&p->threads, &p->nthreads);
    if (rc == SCAL_OK)
        rc =
            scal_table_read_run_rows(f.id, &scal_table_sensor_values, &scal_table_run_sensor_values,
                                     (void **)&p->values, &p->nvalues);
    if (rc == SCAL_OK)
        rc = scal_table_read_run_rows(f.id, &scal_table_sensor_samples,
                                      &scal_table_run_sensor_samples, (void **)&p->samples,
                                      &p->nsamples);
    if (rc == SCAL_OK)
        rc =
            scal_table_read_run_rows(f.id, &scal_table_plugin_states, &scal_table_run_plugin_states,
                                     (void **)&p->plugins, &p->nplugins);
    scal_h5file_close(&f);
    if (rc < 0) scal_cw_payload_free(p);
    return rc;
}

/* ---- a run's snapshot (run_snapshot.h) read as its run file would be ------------------------ */

/* Whether op writes the object `path` of a run file ("regions", "sensors/values"). */
static bool op_is(const struct scal_snap_op *op, const char *path)
{
    size_t n = strlen(op->obj);
    const char *obj = op->obj[0] == '/' ? op->obj + 1 : op->obj;
    if (n <= 1) return !strcmp(op->name, path);
    n = strlen(obj);
    return !strncmp(path, obj, n) && path[n] == '/' && !strcmp(path + n + 1, op->name);
}

/* The table op holds, converted to rows of d's row type (campaign: d's row with the run id in
 * front, as scal_table_read_run_rows reads it). */
static int snap_rows(const struct scal_snap *s, const struct scal_snap_op *op,
                     const struct scal_table_desc *d, bool campaign, void **rows, size_t *n)
{
    const struct scal_h5_field *fields = campaign ? d->fields + 1 : d->fields;
    size_t nfields = campaign ? d->nfields - 1 : d->nfields;
    free(*rows); /* a table recorded twice: the last one counts, as in the file */
    *n = 0;
    int rc = scal_h5_convert_rows(s->path, op->name, op->fields, op->nfields, op->row_size,
                                  op->rows, op->n, fields, nfields, d->row_size, rows);
    if (rc == SCAL_OK) *n = op->n;
    return rc;
}

int scal_cw_payload_from_snapshot(const struct scal_cw_snapshot *snap, struct scal_cw_payload *p,
                                  struct scal_cw_rank_meta *meta)
{
    struct scal_snap s;
    struct scal_snap_op op;
    struct scal_region_row *regions = NULL;
    size_t nregions = 0, pos = 0;
    bool have_format = false, have_version = false, have_regions = false, have_strings = false;
    memset(p, 0, sizeof(*p));
    if (meta) *meta = (struct scal_cw_rank_meta){.size = -1, .duration_s = NAN};
    int rc = scal_snap_load_mem(snap->name, snap->bytes, snap->len, &s), got = 0;
    if (rc < 0) return rc;
    while (rc == SCAL_OK && (got = scal_snap_next(&s, &pos, &op)) == 1) {
        bool root = !strcmp(op.obj, "/"), in_meta = !strcmp(op.obj, "/meta");
        if (op.code == SCAL_SNAP_OP_ATTR_STR && root && !strcmp(op.name, SCAL_ATTR_FORMAT)) {
            have_format = true;
            if (strcmp(op.str, SCAL_FORMAT_RUN))
                rc = scal__fail(SCAL_EFORMAT, "'%s' is a '%s' snapshot, not a scal run's", s.path,
                                op.str);
        } else if (op.code == SCAL_SNAP_OP_ATTR_I64 && root &&
                   !strcmp(op.name, SCAL_ATTR_SCHEMA_VERSION)) {
            have_version = true;
            if (op.i64 != SCAL_SCHEMA_VERSION)
                rc = scal__fail(SCAL_ESCHEMA,
                                "'%s': run schema version %lld is not supported (this scal reads "
                                "version %d)",
                                s.path, (long long)op.i64, SCAL_SCHEMA_VERSION);
        } else if (op.code == SCAL_SNAP_OP_STRINGS && op_is(&op, "strings")) {
            scal_h5_free_strings(p->strings, p->nstrings);
            p->nstrings = 0;
            p->strings = calloc(op.n + 1, sizeof(*p->strings));
            for (size_t i = 0; p->strings && i < op.n; i++)
                if ((p->strings[p->nstrings] = strdup(op.strings[i])) != NULL) p->nstrings++;
            if (!p->strings || p->nstrings != op.n)
                rc = scal__fail(SCAL_ENOMEM, "out of memory reading '%s'", s.path);
            have_strings = true;
        } else if (op.code == SCAL_SNAP_OP_TABLE) {
            if (op_is(&op, scal_table_run_regions.name)) {
                have_regions = true;
                rc = snap_rows(&s, &op, &scal_table_run_regions, false, (void **)&regions,
                               &nregions);
            } else if (op_is(&op, scal_table_threads.name))
                rc = snap_rows(&s, &op, &scal_table_thread_stats, true, (void **)&p->threads,
                               &p->nthreads);
            else if (op_is(&op, scal_table_sensor_values.name))
                rc = snap_rows(&s, &op, &scal_table_run_sensor_values, true, (void **)&p->values,
                               &p->nvalues);
            else if (op_is(&op, scal_table_sensor_samples.name))
                rc = snap_rows(&s, &op, &scal_table_run_sensor_samples, true, (void **)&p->samples,
                               &p->nsamples);
            else if (op_is(&op, scal_table_plugin_states.name))
                rc = snap_rows(&s, &op, &scal_table_run_plugin_states, true, (void **)&p->plugins,
                               &p->nplugins);
        } else if (meta && in_meta && op.code == SCAL_SNAP_OP_ATTR_I64 &&
                   !strcmp(op.name, "mpi_size")) {
            meta->size = op.i64;
        } else if (meta && in_meta && op.code == SCAL_SNAP_OP_ATTR_F64 &&
                   !strcmp(op.name, "duration_s")) {
            meta->duration_s = op.f64;
        } else if (meta && in_meta && op.code == SCAL_SNAP_OP_ATTR_STR &&
                   !strcmp(op.name, "mpi_rank_source")) {
            snprintf(meta->source, sizeof(meta->source), "%s", op.str);
        }
    }
    if (rc == SCAL_OK && got < 0) rc = got;
    /* in the order scal_h5file_open and the table reads check a run file */
    if (rc == SCAL_OK && !have_format)
        rc = scal__fail(SCAL_EFORMAT, "'%s' is not a scal run's snapshot (no '%s' attribute)",
                        s.path, SCAL_ATTR_FORMAT);
    if (rc == SCAL_OK && !have_version)
        rc = scal__fail(SCAL_EFORMAT, "'%s' has no '%s' attribute", s.path,
                        SCAL_ATTR_SCHEMA_VERSION);
    if (rc == SCAL_OK && !have_strings)
        rc = scal__fail(SCAL_EFORMAT, "'%s': dataset 'strings' is missing", s.path);
    if (rc == SCAL_OK && !have_regions)
        rc = scal__fail(SCAL_EFORMAT, "'%s': table 'regions' is missing", s.path);
    if (rc == SCAL_OK) {
        rc = split_regions(regions, nregions, p);
        regions = NULL;
    }
    free(regions);
    scal_snap_release(&s);
    if (rc < 0) scal_cw_payload_free(p);
    return rc;
}
