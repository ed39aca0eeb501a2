// SPDX-License-Identifier: BSD-3-Clause
// Reads a run file written by libscal_ompt.so into a campaign-writer payload.
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_writer.h"
#include "errmsg.h"
#include "h5util.h"

#define TABLE_ARGS(desc) (desc).name, (desc).fields, (desc).nfields, (desc).row_size

void scal_cw_payload_free(struct scal_cw_payload *p)
{
    scal_h5_free_strings(p->strings, p->nstrings);
    free(p->regions), free(p->stats), free(p->threads), free(p->values), free(p->samples);
    free(p->plugins);
    memset(p, 0, sizeof(*p));
}

/* Reads an optional run-file table of row type R into the run-prefixed type C member by member
 * (the run id in front changes the padding, so whole rows cannot be copied). */
#define COPY_MEMBER(h5, ctype, member) dst_[i_].member = tmp_[i_].member;
#define READ_PREFIXED(file, desc, R, C, FIELDS, out, nout)                                         \
    do {                                                                                           \
        R *tmp_ = NULL;                                                                            \
        size_t n_ = 0;                                                                             \
        if (scal_h5_exists(file, (desc).name)) {                                                   \
            rc = scal_h5_read_table(file, TABLE_ARGS(desc), (void **)&tmp_, &n_);                  \
            if (rc < 0) goto done;                                                                 \
        }                                                                                          \
        C *dst_ = calloc(n_ ? n_ : 1, sizeof(C));                                                  \
        out = dst_;                                                                                \
        if (!dst_) {                                                                               \
            free(tmp_);                                                                            \
            rc = SCAL_ENOMEM;                                                                      \
            goto done;                                                                             \
        }                                                                                          \
        for (size_t i_ = 0; i_ < n_; i_++) {                                                       \
            FIELDS(COPY_MEMBER)                                                                    \
        }                                                                                          \
        nout = n_;                                                                                 \
        free(tmp_);                                                                                \
    } while (0)

int scal_cw_payload_from_run_file(const char *path, struct scal_cw_payload *p)
{
    int rc = SCAL_OK;
    char *format = NULL;
    struct scal_region_row *rows = NULL;
    size_t nrows = 0;
    memset(p, 0, sizeof(*p));
    scal_h5_quiet();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return scal__fail(SCAL_EFORMAT, "'%s' is not an HDF5 file", path);
    if (scal_h5_attr_get_str(f, SCAL_ATTR_FORMAT, &format) < 0 || strcmp(format, SCAL_FORMAT_RUN)) {
        rc = scal__fail(SCAL_EFORMAT, "'%s' is not a scal run file", path);
        goto done;
    }
    if ((rc = scal_h5_read_strings(f, "strings", &p->strings, &p->nstrings)) < 0 ||
        (rc = scal_h5_read_table(f, TABLE_ARGS(scal_table_run_regions), (void **)&rows, &nrows)) <
            0)
        goto done;
    p->regions = calloc(nrows ? nrows : 1, sizeof(*p->regions));
    p->stats = calloc(nrows ? nrows : 1, sizeof(*p->stats));
    if (!p->regions || !p->stats) {
        rc = SCAL_ENOMEM;
        goto done;
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
    READ_PREFIXED(f, scal_table_threads, struct scal_thread_row, struct scal_thread_stat_row,
                  SCAL_THREAD_FIELDS, p->threads, p->nthreads);
    READ_PREFIXED(f, scal_table_sensor_values, struct scal_sensor_value_row,
                  struct scal_run_sensor_value_row, SCAL_SENSOR_VALUE_FIELDS, p->values,
                  p->nvalues);
    READ_PREFIXED(f, scal_table_sensor_samples, struct scal_sensor_sample_row,
                  struct scal_run_sensor_sample_row, SCAL_SENSOR_SAMPLE_FIELDS, p->samples,
                  p->nsamples);
    READ_PREFIXED(f, scal_table_plugin_states, struct scal_plugin_state_row,
                  struct scal_run_plugin_state_row, SCAL_PLUGIN_STATE_FIELDS, p->plugins,
                  p->nplugins);
done:
    free(format);
    free(rows);
    H5Fclose(f);
    if (rc < 0) scal_cw_payload_free(p);
    return rc;
}
