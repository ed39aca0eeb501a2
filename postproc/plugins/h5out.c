// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: the matrices and findings into the campaign file's /analysis group (h5py users).
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "h5util.h"
#include "layout.h"
#include "region_identity.h"
#include "safe_open.h"
#include "scal/postproc.h"
#include "scal_format.h"
#include "util.h"

static int write_matrix(hid_t g, const char *name, const struct scal_pp_matrix *m)
{
    hsize_t dims[2] = {m->rows, m->cols};
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(g, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = SCAL_EHDF5;
    if (d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, m->values) >= 0) {
        static const char *const shapes[] = {"full", "input_step", "thread_step", "both_step",
                                             "scalar"};
        scal_h5_attr_set_str(d, "unit", m->unit);
        /* what the rows and columns index (datasets /analysis/inputs and /analysis/threads) */
        static const char *const axis0[] = {"input", "input_step", "input", "input_step", ""};
        static const char *const axis1[] = {"threads", "threads", "threads_step", "threads_step",
                                            ""};
        size_t k = m->shape <= SCAL_PP_SCALAR ? m->shape : 0;
        scal_h5_attr_set_str(d, "shape", shapes[k]);
        scal_h5_attr_set_str(d, "axis0", axis0[k]);
        scal_h5_attr_set_str(d, "axis1", axis1[k]);
        rc = SCAL_OK;
    }
    if (d >= 0) H5Dclose(d);
    H5Sclose(sp);
    return rc;
}

/* /analysis attributes and the axes: statistic, baseline, inputs, slices, threads, notes. */
static int write_header(hid_t a, const struct scal_pp_host *h)
{
    char now[32];
    time_t t = time(NULL);
    strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    scal_h5_attr_set_str(a, "created_utc", now);
    scal_h5_attr_set_str(a, "statistic", h->stat);
    scal_h5_attr_set_str(a, "baseline_note", h->baseline_note);
    scal_h5_attr_set_i64(a, "baseline_threads", h->threads[h->baseline_column]);
    scal_h5_attr_set_f64(a, "noise_cv", h->noise_cv);
    scal_h5_write_strings(a, "inputs", h->inputs, h->ninputs);
    scal_h5_write_strings(a, "slices", h->slices, h->nslices);
    const char *const *notes;
    size_t nn = h->notes(h, -1, &notes);
    scal_h5_write_strings(a, "notes", notes, nn);
    return scal_format_write_threads(a, h->threads, h->nthreads);
}

/* How many of the host's regions are /regions rows of the campaign written into, region r being
 * row (and id) r: the report loads that file first, so its regions come first in row order, one
 * per distinct identity. 0 (no region_id written) when its rows break that rule. */
static size_t joinable_regions(const struct scal_h5file *file)
{
    struct scal_region_id_row *rows = NULL;
    char **ids = NULL;
    size_t n = 0, ok = 0;
    if (scal_table_read(file->id, &scal_table_campaign_regions, (void **)&rows, &n) < 0) return 0;
    if (scal_region_identities(rows, n, file->strings, file->nstrings, &ids) == 0) {
        ok = n;
        for (size_t i = 0; i < n && ok; i++) {
            if (rows[i].id != i) ok = 0;
            for (size_t j = 0; j < i && ok; j++)
                if (!strcmp(ids[i], ids[j])) ok = 0;
        }
        scal_region_identities_free(ids, n);
    }
    free(rows);
    return ok;
}

/* One slice's matrices of region r into group sg (names with '/' made flat). */
static void write_slice(hid_t sg, const struct scal_pp_host *h, size_t r, size_t s)
{
    for (const char *const *m = h->metrics(h, r, s); *m; m++) {
        char name[300];
        snprintf(name, sizeof(name), "%s", *m);
        for (char *p = name; *p; p++)
            if (*p == '/') *p = '_';
        write_matrix(sg, name, h->get(h, r, s, *m));
    }
}

/* /analysis/regions/<slug>: the region's attributes, findings and matrices (per slice). */
static void write_region(hid_t rg, const struct scal_pp_host *h, size_t r, size_t joinable)
{
    hid_t g = H5Gcreate2(rg, h->regions[r].slug, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return;
    scal_h5_attr_set_str(g, "label", h->regions[r].label);
    if (r < joinable) scal_h5_attr_set_i64(g, "region_id", (int64_t)r); /* joins /regions.id */
    scal_h5_attr_set_i64(g, "index", (int64_t)r);
    scal_h5_attr_set_i64(g, "parent", h->regions[r].parent);
    scal_h5_attr_set_i64(g, "kind", h->regions[r].kind);
    const char *const *notes;
    size_t nn = h->notes(h, (long)r, &notes);
    scal_h5_write_strings(g, "findings", notes, nn);
    for (size_t s = 0; s < h->nslices; s++) {
        if (h->nslices == 1) {
            write_slice(g, h, r, s);
            continue;
        }
        char sname[32];
        snprintf(sname, sizeof(sname), "f%zu", s);
        hid_t sg = H5Gcreate2(g, sname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (sg < 0) continue;
        scal_h5_attr_set_str(sg, "slice", h->slices[s]);
        write_slice(sg, h, r, s);
        H5Gclose(sg);
    }
    H5Gclose(g);
}

static int drop_old_analysis(const char *path);

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    if (!h->write_path) {
        snprintf(why, whylen,
                 "nothing written: --no-write, or the input includes run files, "
                 "which are never modified");
        return SCAL_EUNAVAIL;
    }
    if (drop_old_analysis(h->write_path) < 0) {
        snprintf(why, whylen, "cannot rewrite %s without its old /analysis", h->write_path);
        return SCAL_EIO;
    }
    /* the campaign was read through a probe by this process moments ago */
    struct scal_h5file file;
    int rc = scal_h5file_open(h->write_path,
                              SCAL_OPEN_WRITE | SCAL_OPEN_CAMPAIGN | SCAL_OPEN_NO_PROBE, &file);
    if (rc < 0) {
        snprintf(why, whylen, "cannot open %s for writing: %s", h->write_path,
                 scal__last_error(rc));
        return SCAL_EIO;
    }
    hid_t f = file.id, a = H5I_INVALID_HID, rg = H5I_INVALID_HID;
    rc = SCAL_EHDF5;
    if (scal_h5_exists(f, "analysis") == 1 && H5Ldelete(f, "analysis", H5P_DEFAULT) < 0) goto out;
    if ((a = H5Gcreate2(f, "analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) goto out;
    if (write_header(a, h) < 0) goto out;
    if ((rg = H5Gcreate2(a, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) goto out;
    size_t joinable = joinable_regions(&file);
    for (size_t r = 0; r < h->nregions; r++)
        write_region(rg, h, r, joinable);
    rc = SCAL_OK;
out:
    if (rc < 0) snprintf(why, whylen, "cannot write /analysis into %s", h->write_path);
    if (rg >= 0) H5Gclose(rg);
    if (a >= 0) H5Gclose(a);
    scal_h5file_close(&file);
    return rc;
}

/* Copies one root attribute (its file type, variable-length strings included). */
static herr_t copy_attr(hid_t src, const char *name, const H5A_info_t *info, void *dst)
{
    (void)info;
    hid_t a = H5Aopen(src, name, H5P_DEFAULT), t = -1, sp = -1, b = -1;
    void *buf = NULL;
    herr_t rc = -1;
    if (a < 0) return -1;
    if ((t = H5Aget_type(a)) < 0 || (sp = H5Aget_space(a)) < 0) goto out;
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    size_t sz = H5Tget_size(t);
    if (n < 0 || !(buf = calloc((size_t)(n ? n : 1), sz ? sz : 1))) goto out;
    if (H5Aread(a, t, buf) < 0) goto out;
    if ((b = H5Acreate2(*(hid_t *)dst, name, t, sp, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
        H5Awrite(b, t, buf) >= 0)
        rc = 0;
    if (H5Tdetect_class(t, H5T_VLEN) > 0 || H5Tis_variable_str(t) > 0)
        H5Dvlen_reclaim(t, sp, H5P_DEFAULT, buf);
out:
    free(buf);
    if (b >= 0) H5Aclose(b);
    if (sp >= 0) H5Sclose(sp);
    if (t >= 0) H5Tclose(t);
    H5Aclose(a);
    return rc;
}

static herr_t copy_link(hid_t src, const char *name, const H5L_info_t *info, void *dst)
{
    (void)info;
    if (!strcmp(name, "analysis")) return 0;
    return H5Ocopy(src, name, *(hid_t *)dst, name, H5P_DEFAULT, H5P_DEFAULT) < 0 ? -1 : 0;
}

/* HDF5 does not give back the space of a deleted group (the runner's files keep no free-space
 * list), so replacing /analysis in place grows the file on every report. When there is an old
 * /analysis the file is rewritten without it (every other root object and attribute copied) into
 * PATH.tmp, which then replaces PATH. */
static int drop_old_analysis(const char *path)
{
    char tmp[4200];
    hid_t f = -1, g = -1, fcpl = -1;
    int rc = SCAL_EHDF5;
    snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
    if ((f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) return SCAL_EHDF5;
    if (scal_h5_exists(f, "analysis") != 1) {
        H5Fclose(f);
        return SCAL_OK;
    }
    if ((fcpl = H5Fget_create_plist(f)) < 0 ||
        (g = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT)) < 0)
        goto out;
    hsize_t idx = 0;
    if (H5Literate(f, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, copy_link, &g) < 0) goto out;
    idx = 0;
    if (H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, copy_attr, &g) < 0) goto out;
    rc = SCAL_OK;
out:
    if (fcpl >= 0) H5Pclose(fcpl);
    if (g >= 0 && H5Fclose(g) < 0) rc = SCAL_EHDF5;
    H5Fclose(f);
    if (rc == SCAL_OK && rename(tmp, path) < 0) rc = SCAL_EIO;
    if (rc < 0) unlink(tmp);
    return rc;
}

static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_OUTPUT, NULL, NULL, run};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "h5out",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "writes every matrix and finding into the campaign file's /analysis group",
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
