// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: the matrices and findings into the campaign file's /analysis group (h5py users).
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "errmsg.h"
#include "h5util.h"
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
        scal_h5_attr_set_str(d, "shape", shapes[m->shape <= SCAL_PP_SCALAR ? m->shape : 0]);
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
static void write_region(hid_t rg, const struct scal_pp_host *h, size_t r)
{
    hid_t g = H5Gcreate2(rg, h->regions[r].slug, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return;
    scal_h5_attr_set_str(g, "label", h->regions[r].label);
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

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    if (!h->write_path) {
        snprintf(why, whylen,
                 "nothing written: --no-write, or the input includes run files, "
                 "which are never modified");
        return SCAL_EUNAVAIL;
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
    for (size_t r = 0; r < h->nregions; r++)
        write_region(rg, h, r);
    rc = SCAL_OK;
out:
    if (rc < 0) snprintf(why, whylen, "cannot write /analysis into %s", h->write_path);
    if (rg >= 0) H5Gclose(rg);
    if (a >= 0) H5Gclose(a);
    scal_h5file_close(&file);
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
