// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: the matrices and findings into the campaign file's /analysis group (h5py users).
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "h5model.h"
#include "h5util.h"
#include "layout.h"
#include "region_identity.h"
#include "safe_create.h"
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

/* The region's model of time and its predictions (group model; sizes NULL: none written). */
static void write_model(hid_t sg, const struct scal_pp_host *h, size_t r, size_t s,
                        const double *sizes)
{
    struct scal_region_model rm;
    if (!sizes || h->nthreads < 2 || scal_model_region(h, r, s, "time", sizes, &rm) < 0) return;
    scal_model_h5_write(sg, h, &rm, sizes);
    scal_region_model_free(&rm);
}

/* One slice's matrices of region r into group sg (names with '/' made flat), and its model. */
static void write_slice(hid_t sg, const struct scal_pp_host *h, size_t r, size_t s,
                        const double *sizes)
{
    write_model(sg, h, r, s, sizes);
    for (const char *const *m = h->metrics(h, r, s); *m; m++) {
        char name[300];
        snprintf(name, sizeof(name), "%s", *m);
        for (char *p = name; *p; p++)
            if (*p == '/') *p = '_';
        write_matrix(sg, name, h->get(h, r, s, *m));
    }
}

/* /analysis/regions/<slug>: the region's attributes, findings and matrices (per slice). */
static void write_region(hid_t rg, const struct scal_pp_host *h, size_t r, size_t joinable,
                         const double *sizes)
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
            write_slice(g, h, r, s, sizes);
            continue;
        }
        char sname[32];
        snprintf(sname, sizeof(sname), "f%zu", s);
        hid_t sg = H5Gcreate2(g, sname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (sg < 0) continue;
        scal_h5_attr_set_str(sg, "slice", h->slices[s]);
        write_slice(sg, h, r, s, sizes);
        H5Gclose(sg);
    }
    H5Gclose(g);
}

/* The analysis file of a campaign: C.h5 -> C.analysis.h5 (C.h5.analysis.h5 without .h5). */
static void analysis_path(const char *campaign, char *out, size_t len)
{
    size_t n = strlen(campaign);
    if (n > 3 && !strcmp(campaign + n - 3, ".h5")) n -= 3;
    snprintf(out, len, "%.*s%s", (int)n, campaign, SCAL_ANALYSIS_SUFFIX);
}

/* Writes the analysis into a new file at tmp (created exclusively by the caller). */
static int write_analysis(const char *tmp, const struct scal_pp_host *h, const char *campaign_base,
                          size_t joinable)
{
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), a = -1, rg = -1;
    double *sizes = NULL;
    int rc = SCAL_EHDF5;
    if (f < 0) return SCAL_EHDF5;
    scal_h5_attr_set_str(f, SCAL_ATTR_FORMAT, SCAL_FORMAT_ANALYSIS);
    scal_h5_attr_set_str(f, "campaign", campaign_base);
    if ((a = H5Gcreate2(f, "analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) goto out;
    if (write_header(a, h) < 0) goto out;
    if ((rg = H5Gcreate2(a, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) goto out;
    sizes = malloc((h->ninputs + 1) * sizeof(*sizes));
    if (sizes && scal_model_input_sizes(h, sizes) < 0) free(sizes), sizes = NULL;
    if (sizes) scal_h5_attr_set_f64_n(a, "input_sizes", sizes, h->ninputs);
    for (size_t r = 0; r < h->nregions; r++)
        write_region(rg, h, r, joinable, sizes);
    rc = SCAL_OK;
out:
    free(sizes);
    if (rg >= 0) H5Gclose(rg);
    if (a >= 0) H5Gclose(a);
    if (H5Fclose(f) < 0) rc = SCAL_EHDF5;
    return rc;
}

/* Whether the campaign's /analysis is already the external link to target:/analysis. */
static bool links_to(hid_t f, const char *target)
{
    H5L_info_t info;
    char buf[4096];
    const char *file = NULL, *obj = NULL;
    unsigned flags;
    if (H5Lexists(f, "analysis", H5P_DEFAULT) <= 0 ||
        H5Lget_info(f, "analysis", &info, H5P_DEFAULT) < 0 || info.type != H5L_TYPE_EXTERNAL ||
        info.u.val_size > sizeof(buf) ||
        H5Lget_val(f, "analysis", buf, sizeof(buf), H5P_DEFAULT) < 0 ||
        H5Lunpack_elink_val(buf, info.u.val_size, &flags, &file, &obj) < 0)
        return false;
    return !strcmp(file, target) && !strcmp(obj, "/analysis");
}

/* The analysis goes into CAMPAIGN.analysis.h5, written under a temporary name and renamed over
 * the previous one; the campaign holds only an external link /analysis to it, made once. So a
 * report never grows or copies the campaign file (HDF5 never gives back the space of a deleted
 * group), and a crash leaves either the old analysis or the new one. */
static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    char apath[4200], tmp[4300];
    if (!h->write_path) {
        snprintf(why, whylen,
                 "nothing written: --no-write, or the input includes run files, "
                 "which are never modified");
        return SCAL_EUNAVAIL;
    }
    analysis_path(h->write_path, apath, sizeof(apath));
    const char *slash = strrchr(apath, '/'), *abase = slash ? slash + 1 : apath;
    const char *cslash = strrchr(h->write_path, '/');
    const char *cbase = cslash ? cslash + 1 : h->write_path;
    /* the campaign was read through a probe by this process moments ago */
    struct scal_h5file file;
    int rc = scal_h5file_open(h->write_path, SCAL_OPEN_CAMPAIGN | SCAL_OPEN_NO_PROBE, &file);
    if (rc < 0)
        return scal__why(why, whylen, rc, "cannot read %s: %s", h->write_path,
                         scal__last_error(rc));
    size_t joinable = joinable_regions(&file);
    bool linked = links_to(file.id, abase);
    scal_h5file_close(&file);
    if ((rc = scal_safe_create_temp(apath, true, tmp, sizeof(tmp))) < 0)
        return scal__why(why, whylen, rc, "%s", scal__last_error(rc));
    if (write_analysis(tmp, h, cbase, joinable) < 0) {
        unlink(tmp);
        return scal__why(why, whylen, SCAL_EHDF5, "cannot write the analysis into %s", tmp);
    }
    if ((rc = scal_safe_publish(tmp, apath, true)) < 0)
        return scal__why(why, whylen, rc, "%s", scal__last_error(rc));
    if (linked) return SCAL_OK;
    /* the first report of this campaign (or one written by an older scal, whose /analysis was a
     * group inside the campaign): the link, once */
    rc = scal_h5file_open(h->write_path, SCAL_OPEN_WRITE | SCAL_OPEN_CAMPAIGN | SCAL_OPEN_NO_PROBE,
                          &file);
    if (rc < 0)
        return scal__why(why, whylen, rc,
                         "the analysis is in %s, but %s cannot be linked to it: %s", apath,
                         h->write_path, scal__last_error(rc));
    rc = SCAL_OK;
    if ((H5Lexists(file.id, "analysis", H5P_DEFAULT) > 0 &&
         H5Ldelete(file.id, "analysis", H5P_DEFAULT) < 0) ||
        H5Lcreate_external(abase, "/analysis", file.id, "analysis", H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = scal__why(why, whylen, SCAL_EHDF5, "cannot link /analysis of %s to %s", h->write_path,
                       apath);
    if (scal_h5file_close(&file) < 0 && rc == SCAL_OK)
        rc = scal__why(why, whylen, SCAL_EIO, "cannot close %s", h->write_path);
    return rc;
}

static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_OUTPUT, NULL, NULL, run};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "h5out",
    .version = "2",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "every matrix and finding into CAMPAIGN.analysis.h5 (replaced on each report), "
                   "linked from the campaign's /analysis",
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
