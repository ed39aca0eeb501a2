// SPDX-License-Identifier: BSD-3-Clause
// Reads a run file written by libscal_ompt.so into a campaign-writer payload.
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_writer.h"
#include "errmsg.h"
#include "h5util.h"
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

/* /regions of a run file split into identity rows and statistics rows. */
static int read_regions(hid_t f, struct scal_cw_payload *p)
{
    struct scal_region_row *rows = NULL;
    size_t nrows = 0;
    int rc = scal_table_read(f, &scal_table_run_regions, (void **)&rows, &nrows);
    if (rc < 0) return rc;
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
