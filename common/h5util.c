// SPDX-License-Identifier: BSD-3-Clause
// HDF5 helpers: attributes, vlen string datasets and chunked compound tables, with named errors.
#include "h5util.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "column_meta.h"
#include "errmsg.h"
#include "scal/status.h"

void scal_h5_quiet(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

int scal_h5_exists(hid_t loc, const char *name)
{
    return H5Lexists(loc, name, H5P_DEFAULT) > 0;
}

int scal_h5_attr_exists(hid_t obj, const char *name)
{
    return H5Aexists(obj, name) > 0;
}

/* The transfer properties of every dataset read and write: HDF5 callocs its whole type-conversion
 * buffer (1 MiB by default) for each H5Dread/H5Dwrite that converts, which made clearing memory the
 * largest single cost of writing a small run file. 64 KiB holds hundreds of table rows; larger
 * datasets are converted in pieces of that size. The buffers are ours, allocated once and never
 * cleared: HDF5 writes what it converts before it reads it, and a small write touches (and
 * faults in) only the pages it uses, where HDF5's calloc cleared all 64 KiB each time. */
#define SCAL_H5_XFER_BYTES (64u << 10)

/* The library's generation: it changes when HDF5 was closed (H5close) and started again since the
 * last call. Its ids start over then, so an id kept from before may name an object of the caller's
 * of the same kind: kept objects are made again in a new generation. Told by a property list of
 * ours carrying a property of our own, which no other property list has. */
#define SCAL_H5_GENERATION_MARK "scal h5util generation"
static unsigned generation(void)
{
    static hid_t mark = H5I_INVALID_HID;
    static unsigned gen;
    if (mark >= 0 && H5Iis_valid(mark) > 0 && H5Iget_type(mark) == H5I_GENPROP_LST &&
        H5Pexist(mark, SCAL_H5_GENERATION_MARK) > 0)
        return gen;
    unsigned char zero = 0;
    mark = H5Pcreate(H5P_DATASET_XFER);
    if (mark >= 0 && H5Pinsert2(mark, SCAL_H5_GENERATION_MARK, sizeof(zero), &zero, NULL, NULL,
                                NULL, NULL, NULL, NULL) < 0) {
        H5Pclose(mark);
        mark = H5I_INVALID_HID;
    }
    return ++gen;
}

/* Whether id, made in generation `made`, is still the object of `type` kept by this file. */
static bool kept(hid_t id, H5I_type_t type, unsigned made)
{
    return id >= 0 && made == generation() && H5Iis_valid(id) > 0 && H5Iget_type(id) == type;
}

static hid_t xfer(void)
{
    static hid_t dxpl = H5I_INVALID_HID;
    static unsigned made;
    static void *tconv, *bkg;
    if (kept(dxpl, H5I_GENPROP_LST, made)) return dxpl;
    made = generation();
    if (!tconv) tconv = malloc(SCAL_H5_XFER_BYTES);
    if (!bkg) bkg = malloc(SCAL_H5_XFER_BYTES);
    dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (dxpl < 0 || H5Pset_buffer(dxpl, SCAL_H5_XFER_BYTES, tconv && bkg ? tconv : NULL,
                                  tconv && bkg ? bkg : NULL) < 0) {
        if (dxpl >= 0) H5Pclose(dxpl);
        dxpl = H5I_INVALID_HID;
        return H5P_DEFAULT;
    }
    return dxpl;
}

/* The name of the file holding loc, for messages ("?" when HDF5 cannot say). */
static const char *file_of(hid_t loc, char *buf, size_t len)
{
    if (H5Fget_name(loc, buf, len) <= 0) snprintf(buf, len, "?");
    return buf;
}

int scal_h5_check_size(hid_t obj, uint64_t n, size_t size, const char *name)
{
    char file[512];
    hsize_t bytes = 0;
    hid_t fid = H5Iget_file_id(obj);
    if (fid < 0 || H5Fget_filesize(fid, &bytes) < 0) bytes = 0;
    if (fid >= 0) H5Fclose(fid);
    /* deflate packs at most about 1032:1; the slack covers a last append cut short */
    uint64_t limit = (uint64_t)bytes * 1100u + (16u << 20);
    if (size && n > limit / size)
        return scal__fail(SCAL_EFORMAT,
                          "'%s': '%s' claims %llu elements of %zu bytes, more than a file of %llu "
                          "bytes can hold (damaged)",
                          file_of(obj, file, sizeof(file)), name, (unsigned long long)n, size,
                          (unsigned long long)bytes);
    return SCAL_OK;
}

static hid_t vlen_string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return t;
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

/* Objects every file write uses the same (the string type, the scalar space, the compact layout)
 * are made once per process, as xfer's property list is: a run file's writer makes ~50 attributes
 * and datasets. Never closed; made again if HDF5 no longer knows the id or was started again
 * (kept). */

/* The variable-length UTF-8 string type (kept: the caller does not close it). */
static hid_t vlen_string(void)
{
    static hid_t t = H5I_INVALID_HID;
    static unsigned made;
    if (!kept(t, H5I_DATATYPE, made)) made = generation(), t = vlen_string_type();
    return t;
}

/* A scalar dataspace (kept: the caller does not close it). */
static hid_t scalar_space(void)
{
    static hid_t s = H5I_INVALID_HID;
    static unsigned made;
    if (!kept(s, H5I_DATASPACE, made)) made = generation(), s = H5Screate(H5S_SCALAR);
    return s;
}

/* The creation properties of a compact dataset (kept: the caller does not close them). */
static hid_t compact_dcpl(void)
{
    static hid_t p = H5I_INVALID_HID;
    static unsigned made;
    if (kept(p, H5I_GENPROP_LST, made)) return p;
    made = generation();
    p = H5Pcreate(H5P_DATASET_CREATE);
    if (p >= 0 && H5Pset_layout(p, H5D_COMPACT) < 0) {
        H5Pclose(p);
        p = H5I_INVALID_HID;
    }
    return p;
}

/* An attribute of n values, or of one value in a scalar space when n is 0. */
static int write_attr_n(hid_t obj, const char *name, hid_t type, hsize_t n, const void *value)
{
    int rc = SCAL_OK;
    hid_t space = -1, attr = -1;
    if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
    space = n ? H5Screate_simple(1, &n, NULL) : scalar_space();
    if (space < 0) goto fail;
    attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0 || H5Awrite(attr, type, value) < 0) goto fail;
    goto done;
fail:
    rc = scal__fail(SCAL_EHDF5, "cannot write attribute '%s'", name);
done:
    if (attr >= 0) H5Aclose(attr);
    if (space >= 0 && n) H5Sclose(space);
    return rc;
}

static int write_attr(hid_t obj, const char *name, hid_t type, const void *value)
{
    return write_attr_n(obj, name, type, 0, value);
}

int scal_h5_attr_set_str(hid_t obj, const char *name, const char *value)
{
    const char *v = value ? value : "";
    return write_attr(obj, name, vlen_string(), &v);
}

int scal_h5_attr_set_i64(hid_t obj, const char *name, int64_t value)
{
    return write_attr(obj, name, H5T_NATIVE_INT64, &value);
}

int scal_h5_attr_set_f64(hid_t obj, const char *name, double value)
{
    return write_attr(obj, name, H5T_NATIVE_DOUBLE, &value);
}

int scal_h5_attr_set_f64_n(hid_t obj, const char *name, const double *values, size_t n)
{
    return write_attr_n(obj, name, H5T_NATIVE_DOUBLE, (hsize_t)n, values);
}

int scal_h5_attr_get_f64_n(hid_t obj, const char *name, double **out, size_t *n)
{
    int rc = SCAL_OK;
    hid_t attr = -1, space = -1, type = -1;
    *out = NULL, *n = 0;
    if (H5Aexists(obj, name) <= 0)
        return scal__fail(SCAL_EFORMAT, "attribute '%s' is missing", name);
    attr = H5Aopen(obj, name, H5P_DEFAULT);
    space = attr >= 0 ? H5Aget_space(attr) : -1;
    type = attr >= 0 ? H5Aget_type(attr) : -1;
    hssize_t k = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    if (k < 1 || k > (1 << 24) || type < 0 || H5Tget_class(type) != H5T_FLOAT ||
        !(*out = calloc((size_t)k, sizeof(**out))) || H5Aread(attr, H5T_NATIVE_DOUBLE, *out) < 0) {
        free(*out);
        *out = NULL;
        rc = scal__fail(SCAL_EFORMAT, "attribute '%s' is not a list of numbers", name);
    } else
        *n = (size_t)k;
    if (type >= 0) H5Tclose(type);
    if (space >= 0) H5Sclose(space);
    if (attr >= 0) H5Aclose(attr);
    return rc;
}

static int read_attr(hid_t obj, const char *name, hid_t memtype, void *out)
{
    int rc = SCAL_OK;
    hid_t attr = -1;
    if (H5Aexists(obj, name) <= 0)
        return scal__fail(SCAL_EFORMAT, "attribute '%s' is missing", name);
    attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr < 0 || H5Aread(attr, memtype, out) < 0)
        rc = scal__fail(SCAL_EFORMAT, "attribute '%s' cannot be read as the expected type", name);
    if (attr >= 0) H5Aclose(attr);
    return rc;
}

int scal_h5_attr_get_i64(hid_t obj, const char *name, int64_t *out)
{
    return read_attr(obj, name, H5T_NATIVE_INT64, out);
}

int scal_h5_attr_get_str(hid_t obj, const char *name, char **out)
{
    int rc = SCAL_OK;
    hid_t attr = -1, ftype = -1, mtype = -1, space = -1;
    *out = NULL;
    if (H5Aexists(obj, name) <= 0)
        return scal__fail(SCAL_EFORMAT, "attribute '%s' is missing", name);
    attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr < 0) goto fail;
    ftype = H5Aget_type(attr);
    if (ftype < 0 || H5Tget_class(ftype) != H5T_STRING) goto fail;
    space = H5Aget_space(attr);
    if (H5Sget_simple_extent_npoints(space) != 1) goto fail;
    if (H5Tis_variable_str(ftype) > 0) {
        char *v = NULL;
        mtype = vlen_string_type();
        if (H5Aread(attr, mtype, &v) < 0) goto fail;
        *out = strdup(v ? v : "");
        H5free_memory(v);
    } else {
        size_t size = H5Tget_size(ftype);
        mtype = H5Tcopy(H5T_C_S1);
        H5Tset_size(mtype, size + 1);
        *out = calloc(1, size + 1);
        if (!*out || H5Aread(attr, mtype, *out) < 0) goto fail;
    }
    if (!*out) rc = scal__fail(SCAL_ENOMEM, "out of memory reading attribute '%s'", name);
    goto done;
fail:
    free(*out);
    *out = NULL;
    rc = scal__fail(SCAL_EFORMAT, "attribute '%s' is not a readable string", name);
done:
    if (space >= 0) H5Sclose(space);
    if (mtype >= 0) H5Tclose(mtype);
    if (ftype >= 0) H5Tclose(ftype);
    if (attr >= 0) H5Aclose(attr);
    return rc;
}

/* A string dataset that is never appended to (a run file's) and small is stored compact, in its
 * object header, as small fixed tables are (write_table): no chunk index. Its elements are
 * 16-byte global heap ids whatever the strings' lengths; the strings themselves are in the heap.
 * Others are chunked and extendible, for scal_h5_append_strings. */
#define SCAL_H5_VLEN_REF_BYTES 16u
/* The largest dataset (its elements' bytes in the file) stored compact: well within the 64 KiB an
 * object header message holds. */
#define SCAL_H5_COMPACT_BYTES (16u << 10)

static int write_strings(hid_t loc, const char *name, const char *const *strings, size_t n,
                         bool fixed)
{
    int rc = SCAL_OK;
    hsize_t dims[1] = {n}, maxdims[1] = {H5S_UNLIMITED}, chunk[1] = {256};
    bool compact = fixed && n <= SCAL_H5_COMPACT_BYTES / SCAL_H5_VLEN_REF_BYTES;
    hid_t type = vlen_string(), space = -1, dcpl = -1, dset = -1;
    space = H5Screate_simple(1, dims, compact ? NULL : maxdims);
    dcpl = compact ? compact_dcpl() : H5Pcreate(H5P_DATASET_CREATE);
    if (type < 0 || space < 0 || dcpl < 0 || (!compact && H5Pset_chunk(dcpl, 1, chunk) < 0))
        goto fail;
    dset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) goto fail;
    if (n > 0 && H5Dwrite(dset, type, H5S_ALL, H5S_ALL, xfer(), strings) < 0) goto fail;
    goto done;
fail:
    rc = scal__fail(SCAL_EHDF5, "cannot write string dataset '%s'", name);
done:
    if (dset >= 0) H5Dclose(dset);
    if (dcpl >= 0 && !compact) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return rc;
}

int scal_h5_write_strings(hid_t loc, const char *name, const char *const *strings, size_t n)
{
    return write_strings(loc, name, strings, n, false);
}

int scal_h5_write_strings_fixed(hid_t loc, const char *name, const char *const *strings, size_t n)
{
    return write_strings(loc, name, strings, n, true);
}

int scal_h5_append_strings(hid_t loc, const char *name, const char *const *strings, size_t n)
{
    int rc = SCAL_OK;
    hid_t dset = -1, fspace = -1, mspace = -1, type = -1;
    hsize_t old = 0, start[1], count[1] = {n}, newdims[1];
    if (!scal_h5_exists(loc, name)) return scal_h5_write_strings(loc, name, strings, n);
    if (n == 0) return SCAL_OK;
    type = vlen_string_type();
    dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (dset < 0) goto fail;
    fspace = H5Dget_space(dset);
    if (fspace < 0 || H5Sget_simple_extent_dims(fspace, &old, NULL) != 1) goto fail;
    H5Sclose(fspace);
    fspace = -1;
    newdims[0] = old + n;
    if (H5Dset_extent(dset, newdims) < 0 || (fspace = H5Dget_space(dset)) < 0) goto fail;
    start[0] = old;
    if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0) goto fail;
    if ((mspace = H5Screate_simple(1, count, NULL)) < 0) goto fail;
    if (H5Dwrite(dset, type, mspace, fspace, xfer(), strings) < 0) goto fail;
    goto done;
fail:
    rc = scal__fail(SCAL_EHDF5, "cannot append %zu strings to '%s'", n, name);
done:
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
    if (dset >= 0) H5Dclose(dset);
    H5Tclose(type);
    return rc;
}

void scal_h5_free_strings(char **strings, size_t n)
{
    if (!strings) return;
    for (size_t i = 0; i < n; i++)
        free(strings[i]);
    free(strings);
}

/* Reads the count strings of dset into out[] (strdup'd): SCAL_ENOMEM, or SCAL_EFORMAT when HDF5
 * cannot read them. */
static int read_string_values(hid_t dset, hid_t ftype, hid_t space, size_t count, char **out)
{
    int rc = SCAL_OK;
    if (H5Tis_variable_str(ftype) > 0) {
        char **raw = calloc(count, sizeof(*raw));
        hid_t mtype = vlen_string_type();
        if (!raw) rc = SCAL_ENOMEM;
        if (raw && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, xfer(), raw) < 0) rc = SCAL_EFORMAT;
        for (size_t i = 0; i < count && rc == SCAL_OK; i++)
            if (!(out[i] = strdup(raw[i] ? raw[i] : ""))) rc = SCAL_ENOMEM;
        if (raw && rc != SCAL_EFORMAT) H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, raw);
        free(raw);
        H5Tclose(mtype);
        return rc;
    }
    size_t size = H5Tget_size(ftype);
    char *buf = calloc(count, size + 1);
    hid_t mtype = H5Tcopy(H5T_C_S1);
    H5Tset_size(mtype, size + 1);
    if (!buf) rc = SCAL_ENOMEM;
    if (buf && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, xfer(), buf) < 0) rc = SCAL_EFORMAT;
    for (size_t i = 0; i < count && rc == SCAL_OK; i++)
        if (!(out[i] = strdup(buf + i * (size + 1)))) rc = SCAL_ENOMEM;
    free(buf);
    H5Tclose(mtype);
    return rc;
}

int scal_h5_read_strings(hid_t loc, const char *name, char ***out, size_t *n)
{
    int rc = SCAL_OK;
    hid_t dset = -1, space = -1, ftype = -1;
    char file[512];
    hssize_t count = 0;
    *out = NULL;
    *n = 0;
    if (!scal_h5_exists(loc, name))
        return scal__fail(SCAL_EFORMAT, "'%s': dataset '%s' is missing",
                          file_of(loc, file, sizeof(file)), name);
    dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (dset >= 0) {
        ftype = H5Dget_type(dset);
        space = H5Dget_space(dset);
    }
    if (ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_STRING ||
        H5Sget_simple_extent_ndims(space) != 1 || (count = H5Sget_simple_extent_npoints(space)) < 0)
        goto fail;
    /* per string: the pointer, and a fixed-length string's bytes */
    if ((rc = scal_h5_check_size(dset, (uint64_t)count, sizeof(char *) + H5Tget_size(ftype),
                                 name)) < 0)
        goto done;
    if (!(*out = calloc((size_t)count + 1, sizeof(**out)))) {
        rc = SCAL_ENOMEM;
        goto fail;
    }
    if ((rc = read_string_values(dset, ftype, space, (size_t)count, *out)) < 0) goto fail;
    *n = (size_t)count;
    goto done;
fail:
    rc = rc == SCAL_ENOMEM
             ? scal__fail(SCAL_ENOMEM, "'%s': out of memory reading '%s'",
                          file_of(loc, file, sizeof(file)), name)
             : scal__fail(SCAL_EFORMAT,
                          "'%s': dataset '%s' is damaged or not a readable 1-D string dataset",
                          file_of(loc, file, sizeof(file)), name);
    scal_h5_free_strings(*out, (size_t)(count > 0 ? count : 0));
    *out = NULL;
done:
    if (space >= 0) H5Sclose(space);
    if (ftype >= 0) H5Tclose(ftype);
    if (dset >= 0) H5Dclose(dset);
    return rc;
}

static hid_t native_type(enum scal_h5_ftype t)
{
    switch (t) {
    case SCAL_H5_U8:
        return H5T_NATIVE_UINT8;
    case SCAL_H5_I32:
        return H5T_NATIVE_INT32;
    case SCAL_H5_U32:
        return H5T_NATIVE_UINT32;
    case SCAL_H5_I64:
        return H5T_NATIVE_INT64;
    case SCAL_H5_U64:
        return H5T_NATIVE_UINT64;
    case SCAL_H5_F64:
        return H5T_NATIVE_DOUBLE;
    }
    return H5I_INVALID_HID;
}

/* One member's memory type: the enum of regions.kind / runs.status (when writing, ftype < 0, or
 * when the file stores an enum: HDF5 converts enum to enum by name, never integer to enum), else
 * the native integer or float. *owned: the caller closes it (a predefined type is not copied: the
 * compound's H5Tinsert copies it). */
static hid_t member_type(const char *table, const struct scal_h5_field *f, hid_t ftype, bool *owned)
{
    const char *(*name_of)(int);
    int n = 0;
    *owned = false;
    if (!scal_column_enum(table, f->name, &name_of, &n)) return native_type(f->type);
    if (ftype >= 0) {
        int idx = H5Tget_member_index(ftype, f->name);
        if (idx < 0 || H5Tget_member_class(ftype, (unsigned)idx) != H5T_ENUM)
            return native_type(f->type);
    }
    hid_t t = H5Tenum_create(H5T_NATIVE_UINT8);
    for (int v = 0; t >= 0 && v < n; v++) {
        uint8_t u = (uint8_t)v;
        if (H5Tenum_insert(t, name_of(v), &u) < 0) {
            H5Tclose(t);
            t = H5I_INVALID_HID;
        }
    }
    *owned = t >= 0;
    return t;
}

/* A member appended to the table after ftype's file was written (ftype >= 0: an existing file). */
static bool absent_added_later(const char *table, const struct scal_h5_field *f, hid_t ftype)
{
    return ftype >= 0 && scal_column_added_later(table, f->name) &&
           H5Tget_member_index(ftype, f->name) < 0;
}

hid_t scal_h5_compound_type(const char *table, const struct scal_h5_field *fields, size_t nfields,
                            size_t struct_size, hid_t ftype)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, struct_size);
    for (size_t i = 0; t >= 0 && i < nfields; i++) {
        if (absent_added_later(table, &fields[i], ftype)) continue;
        bool owned;
        hid_t mt = member_type(table, &fields[i], ftype, &owned);
        if (mt < 0 || H5Tinsert(t, fields[i].name, fields[i].offset, mt) < 0) {
            H5Tclose(t);
            t = H5I_INVALID_HID;
        }
        if (owned) H5Tclose(mt);
    }
    return t;
}

/* A 1-D attribute of n (at least 1) variable-length UTF-8 strings. */
static int write_attr_strings(hid_t obj, const char *name, const char *const *values, size_t n)
{
    hid_t type = vlen_string();
    return type < 0 ? scal__fail(SCAL_EHDF5, "cannot write attribute '%s'", name)
                    : write_attr_n(obj, name, type, n, values);
}

/* The column_units and column_descriptions attributes of a new table, in member order. */
static int write_column_meta(hid_t dset, const char *name, const struct scal_h5_field *fields,
                             size_t nfields)
{
    const char *units[64], *descriptions[64];
    if (nfields > 64) return scal__fail(SCAL_EHDF5, "table '%s' has too many members", name);
    for (size_t i = 0; i < nfields; i++)
        scal_column_meta(name, fields[i].name, &units[i], &descriptions[i]);
    int rc = write_attr_strings(dset, SCAL_ATTR_COLUMN_UNITS, units, nfields);
    if (rc == SCAL_OK)
        rc = write_attr_strings(dset, SCAL_ATTR_COLUMN_DESCRIPTIONS, descriptions, nfields);
    return rc;
}

/* The file type of a table: the members of its rows packed in the order of their offsets, as
 * H5Tpack makes it of the rows' memory type (scal_h5_compound_type), so files do not carry the C
 * struct's padding. Made directly, with where each member lies in a row and in the packed row, so
 * that rows are packed by plain copies and the write converts nothing: HDF5's compound conversion
 * (its path search among every registered conversion and its background buffer) and the copies of
 * a type of many members cost more than this. The field list is checked as H5Tinsert would check
 * the memory type: members inside the row and not overlapping (a snapshot's table is written with
 * the field list it records); H5Tinsert itself refuses a name twice. */
struct packing {
    hid_t ftype;
    size_t psize, n;
    size_t *at; /* per member in packed order: offset in the row, offset packed, size */
};

static void packing_free(struct packing *p)
{
    if (p->ftype >= 0) H5Tclose(p->ftype);
    free(p->at);
    p->ftype = H5I_INVALID_HID, p->at = NULL;
}

static int pack_fields(const char *table, const struct scal_h5_field *fields, size_t nfields,
                       size_t struct_size, struct packing *p)
{
    static const size_t size_of[] = {1, 4, 4, 8, 8, 8}; /* by enum scal_h5_ftype */
    size_t *order = NULL;
    const char *(*name_of)(int);
    int nvalues;
    p->ftype = H5I_INVALID_HID, p->psize = 0, p->n = nfields;
    p->at = calloc(3 * nfields + 1, sizeof(*p->at));
    order = calloc(nfields + 1, sizeof(*order));
    if (!p->at || !order) goto fail;
    for (size_t i = 0; i < nfields; i++) { /* by offset, stable (H5Tpack's sort) */
        size_t j = i;
        if ((unsigned)fields[i].type > SCAL_H5_F64) goto fail;
        for (; j > 0 && fields[order[j - 1]].offset > fields[i].offset; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (size_t j = 0; j < nfields; j++) {
        const struct scal_h5_field *f = &fields[order[j]];
        size_t size = scal_column_enum(table, f->name, &name_of, &nvalues) ? 1 : size_of[f->type];
        if (f->offset > struct_size || size > struct_size - f->offset ||
            (j > 0 && f->offset < p->at[3 * (j - 1)] + p->at[3 * (j - 1) + 2]))
            goto fail;
        p->at[3 * j] = f->offset, p->at[3 * j + 1] = p->psize, p->at[3 * j + 2] = size;
        p->psize += size;
    }
    p->ftype = nfields ? H5Tcreate(H5T_COMPOUND, p->psize) : H5I_INVALID_HID;
    for (size_t j = 0; p->ftype >= 0 && j < nfields; j++) {
        bool owned;
        const struct scal_h5_field *f = &fields[order[j]];
        hid_t mt = member_type(table, f, H5I_INVALID_HID, &owned);
        if (mt < 0 || H5Tinsert(p->ftype, f->name, p->at[3 * j + 1], mt) < 0) {
            H5Tclose(p->ftype);
            p->ftype = H5I_INVALID_HID;
        }
        if (owned) H5Tclose(mt);
    }
    if (p->ftype < 0) goto fail;
    free(order);
    return SCAL_OK;
fail:
    free(order);
    packing_free(p);
    return SCAL_EHDF5;
}

/* The rows copied into the packed layout; NULL when out of memory. */
static void *packed_rows(const struct packing *p, const void *rows, size_t nrows,
                         size_t struct_size)
{
    unsigned char *out = nrows && p->psize > SIZE_MAX / nrows ? NULL : malloc(p->psize * nrows);
    for (size_t r = 0; out && r < nrows; r++)
        for (size_t k = 0; k < p->n; k++)
            memcpy(out + r * p->psize + p->at[3 * k + 1],
                   (const unsigned char *)rows + r * struct_size + p->at[3 * k], p->at[3 * k + 2]);
    return out;
}

/* A table that is never appended to (a run file's) and small (a few rows) is stored compact, in its
 * object header: no chunk index, no filter (deflate's state alone, ~256 KiB to set up per dataset,
 * costs more than the rows would save). Larger ones, and every table that may grow, are chunked
 * with shuffle and deflate. */
static int write_table(hid_t loc, const char *name, const struct scal_h5_field *fields,
                       size_t nfields, size_t struct_size, const void *rows, size_t nrows,
                       bool fixed)
{
    int rc = SCAL_OK;
    hsize_t dims[1] = {nrows}, maxdims[1] = {H5S_UNLIMITED};
    hsize_t chunk[1] = {nrows > 1024 ? 1024 : (nrows < 64 ? 64 : nrows)};
    hid_t space = -1, dcpl = -1, dset = -1;
    struct packing p = {.ftype = H5I_INVALID_HID};
    void *packed = NULL;
    bool compact = false;
    if (pack_fields(name, fields, nfields, struct_size, &p) < 0) goto fail;
    compact = fixed && nrows * p.psize <= SCAL_H5_COMPACT_BYTES;
    space = H5Screate_simple(1, dims, compact ? NULL : maxdims);
    dcpl = compact ? compact_dcpl() : H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0) goto fail;
    if (!compact && (H5Pset_chunk(dcpl, 1, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
                     H5Pset_deflate(dcpl, 4) < 0))
        goto fail;
    dset = H5Dcreate2(loc, name, p.ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) goto fail;
    if (write_column_meta(dset, name, fields, nfields) < 0) goto fail;
    if (nrows > 0) {
        if (!(packed = packed_rows(&p, rows, nrows, struct_size))) {
            rc = scal__fail(SCAL_ENOMEM, "out of memory writing %zu rows of table '%s'", nrows,
                            name);
            goto done;
        }
        if (H5Dwrite(dset, p.ftype, H5S_ALL, H5S_ALL, xfer(), packed) < 0) goto fail;
    }
    goto done;
fail:
    rc = scal__fail(SCAL_EHDF5, "cannot write table '%s'", name);
done:
    free(packed);
    if (dset >= 0) H5Dclose(dset);
    if (dcpl >= 0 && !compact) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    packing_free(&p);
    return rc;
}

int scal_h5_write_table(hid_t loc, const char *name, const struct scal_h5_field *fields,
                        size_t nfields, size_t struct_size, const void *rows, size_t nrows)
{
    return write_table(loc, name, fields, nfields, struct_size, rows, nrows, false);
}

int scal_h5_write_table_fixed(hid_t loc, const char *name, const struct scal_h5_field *fields,
                              size_t nfields, size_t struct_size, const void *rows, size_t nrows)
{
    return write_table(loc, name, fields, nfields, struct_size, rows, nrows, true);
}

int scal_h5_appender_open(hid_t loc, const char *name, const struct scal_h5_field *fields,
                          size_t nfields, size_t struct_size, struct scal_h5_appender *a)
{
    hid_t ftype = H5I_INVALID_HID;
    a->dset = a->mtype = H5I_INVALID_HID;
    a->name = name;
    if (!scal_h5_exists(loc, name)) {
        int rc = scal_h5_write_table(loc, name, fields, nfields, struct_size, NULL, 0);
        if (rc < 0) return rc;
    }
    a->dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (a->dset >= 0) ftype = H5Dget_type(a->dset);
    if (ftype >= 0) a->mtype = scal_h5_compound_type(name, fields, nfields, struct_size, ftype);
    if (ftype >= 0) H5Tclose(ftype);
    if (a->mtype < 0) {
        scal_h5_appender_close(a);
        return scal__fail(SCAL_EHDF5, "cannot open table '%s' to append to it", name);
    }
    return SCAL_OK;
}

int scal_h5_appender_add(struct scal_h5_appender *a, const void *rows, size_t nrows)
{
    int rc = SCAL_OK;
    hid_t fspace = -1, mspace = -1;
    hsize_t old = 0, start[1], count[1] = {nrows}, newdims[1];
    if (nrows == 0) return SCAL_OK;
    fspace = H5Dget_space(a->dset);
    if (fspace < 0 || H5Sget_simple_extent_dims(fspace, &old, NULL) != 1) goto fail;
    H5Sclose(fspace);
    fspace = -1;
    newdims[0] = old + nrows;
    if (H5Dset_extent(a->dset, newdims) < 0) goto fail;
    fspace = H5Dget_space(a->dset);
    start[0] = old;
    if (fspace < 0 || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
        goto fail;
    mspace = H5Screate_simple(1, count, NULL);
    if (mspace < 0 || H5Dwrite(a->dset, a->mtype, mspace, fspace, xfer(), rows) < 0) goto fail;
    goto done;
fail:
    rc = scal__fail(SCAL_EHDF5, "cannot append %zu rows to table '%s'", nrows, a->name);
done:
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
    return rc;
}

void scal_h5_appender_close(struct scal_h5_appender *a)
{
    if (a->mtype >= 0) H5Tclose(a->mtype);
    if (a->dset >= 0) H5Dclose(a->dset);
    a->dset = a->mtype = H5I_INVALID_HID;
}

int scal_h5_append_table(hid_t loc, const char *name, const struct scal_h5_field *fields,
                         size_t nfields, size_t struct_size, const void *rows, size_t nrows)
{
    struct scal_h5_appender a;
    if (!scal_h5_exists(loc, name))
        return scal_h5_write_table(loc, name, fields, nfields, struct_size, rows, nrows);
    if (nrows == 0) return SCAL_OK;
    int rc = scal_h5_appender_open(loc, name, fields, nfields, struct_size, &a);
    if (rc == SCAL_OK) rc = scal_h5_appender_add(&a, rows, nrows);
    scal_h5_appender_close(&a);
    return rc;
}

int64_t scal_h5_table_rows(hid_t loc, const char *name)
{
    hsize_t dims[1] = {0};
    hid_t dset, space;
    char file[512];
    if (!scal_h5_exists(loc, name))
        return scal__fail(SCAL_EFORMAT, "'%s': table '%s' is missing",
                          file_of(loc, file, sizeof(file)), name);
    dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (dset < 0)
        return scal__fail(SCAL_EFORMAT, "'%s': table '%s' cannot be opened",
                          file_of(loc, file, sizeof(file)), name);
    space = H5Dget_space(dset);
    int nd = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
    if (space >= 0) H5Sclose(space);
    H5Dclose(dset);
    if (nd != 1)
        return scal__fail(SCAL_EFORMAT, "'%s': table '%s' is not one-dimensional",
                          file_of(loc, file, sizeof(file)), name);
    return (int64_t)dims[0];
}

/* SCAL_OK when the compound type ftype has every member the reader needs. */
static int has_members(hid_t ftype, const struct scal_h5_field *fields, size_t nfields,
                       const char *file, const char *name)
{
    if (ftype < 0 || H5Tget_class(ftype) != H5T_COMPOUND)
        return scal__fail(SCAL_EFORMAT, "'%s': table '%s' is not a compound dataset", file, name);
    /* HDF5 converts members at the offsets the file states without checking them against the
     * row size: a damaged offset would make it read outside the row */
    size_t row = H5Tget_size(ftype);
    int nm = H5Tget_nmembers(ftype);
    for (int i = 0; i < nm; i++) {
        hid_t mt = H5Tget_member_type(ftype, (unsigned)i);
        size_t off = H5Tget_member_offset(ftype, (unsigned)i), size = mt >= 0 ? H5Tget_size(mt) : 0;
        if (mt >= 0) H5Tclose(mt);
        if (mt < 0 || size == 0 || off > row || size > row - off)
            return scal__fail(SCAL_EFORMAT,
                              "'%s': table '%s' is damaged (member %d lies outside its row)", file,
                              name, i);
    }
    for (size_t i = 0; i < nfields; i++)
        if (H5Tget_member_index(ftype, fields[i].name) < 0 &&
            !scal_column_added_later(name, fields[i].name))
            return scal__fail(SCAL_EFORMAT, "'%s': table '%s' has no member '%s'", file, name,
                              fields[i].name);
    return SCAL_OK;
}

int scal_h5_read_table(hid_t loc, const char *name, const struct scal_h5_field *fields,
                       size_t nfields, size_t struct_size, void **rows, size_t *nrows)
{
    int rc = SCAL_OK;
    hid_t dset = -1, ftype = -1, space = -1, mtype = -1;
    hsize_t dims[1] = {0};
    char file[512];
    *rows = NULL;
    *nrows = 0;
    file_of(loc, file, sizeof(file));
    if (!scal_h5_exists(loc, name))
        return scal__fail(SCAL_EFORMAT, "'%s': table '%s' is missing", file, name);
    dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (dset < 0) return scal__fail(SCAL_EFORMAT, "'%s': table '%s' cannot be opened", file, name);
    ftype = H5Dget_type(dset);
    space = H5Dget_space(dset);
    if ((rc = has_members(ftype, fields, nfields, file, name)) < 0) goto done;
    if (H5Sget_simple_extent_dims(space, dims, NULL) != 1) {
        rc = scal__fail(SCAL_EFORMAT, "'%s': table '%s' is not one-dimensional", file, name);
        goto done;
    }
    if ((rc = scal_h5_check_size(dset, dims[0], H5Tget_size(ftype), name)) < 0) goto done;
    mtype = scal_h5_compound_type(name, fields, nfields, struct_size, ftype);
    *rows = calloc(dims[0] ? dims[0] : 1, struct_size);
    if (!*rows) {
        rc = scal__fail(SCAL_ENOMEM, "'%s': out of memory reading %llu rows of '%s'", file,
                        (unsigned long long)dims[0], name);
        goto done;
    }
    for (size_t i = 0; i < nfields; i++) /* members the file predates: NaN (f64) or 0 */
        if (fields[i].type == SCAL_H5_F64 && absent_added_later(name, &fields[i], ftype))
            for (hsize_t k = 0; k < dims[0]; k++)
                *(double *)((char *)*rows + k * struct_size + fields[i].offset) = NAN;
    if (dims[0] > 0 && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, xfer(), *rows) < 0) {
        rc = scal__fail(SCAL_EFORMAT,
                        "'%s': table '%s' cannot be read (damaged, or member types do not "
                        "convert)",
                        file, name);
        free(*rows);
        *rows = NULL;
        goto done;
    }
    *nrows = (size_t)dims[0];
done:
    if (mtype >= 0) H5Tclose(mtype);
    if (space >= 0) H5Sclose(space);
    if (ftype >= 0) H5Tclose(ftype);
    H5Dclose(dset);
    return rc;
}

/* Whether rows recorded with the member list `from` lie exactly as the caller's fields say: the
 * same members in the same order, with the same type tags and offsets, in rows of the same size
 * (a snapshot made by this build's tool). The two compound types convert_rows would build are then
 * equal (enums made from the same tags on both sides), and HDF5 converts between equal types by
 * leaving the rows as they are, padding and enum values included. Each member is checked to lie
 * inside the row, as has_members checks for the conversion: a copy reads the n rows of that size
 * the snapshot holds (run_snapshot.c checked that it holds them), as the conversion's does. */
static bool same_layout(const char *table, const struct scal_h5_field *from, size_t nfrom,
                        size_t from_size, const struct scal_h5_field *fields, size_t nfields,
                        size_t struct_size)
{
    static const size_t size_of[] = {1, 4, 4, 8, 8, 8}; /* by enum scal_h5_ftype */
    const char *(*name_of)(int);
    int nvalues = 0;
    if (nfrom != nfields || from_size != struct_size) return false;
    for (size_t i = 0; i < nfields; i++) {
        if (from[i].type != fields[i].type || from[i].offset != fields[i].offset ||
            (unsigned)fields[i].type > SCAL_H5_F64 || strcmp(from[i].name, fields[i].name) != 0)
            return false;
        if (fields[i].offset > struct_size ||
            size_of[fields[i].type] > struct_size - fields[i].offset)
            return false;
        /* an enum member is one byte whatever its tag (member_type) */
        if (scal_column_enum(table, fields[i].name, &name_of, &nvalues) &&
            fields[i].type != SCAL_H5_U8)
            return false;
    }
    return true;
}

int scal_h5_convert_rows(const char *source, const char *name, const struct scal_h5_field *from,
                         size_t nfrom, size_t from_size, const void *from_rows, size_t n,
                         const struct scal_h5_field *fields, size_t nfields, size_t struct_size,
                         void **rows)
{
    int rc = SCAL_OK;
    size_t size = from_size > struct_size ? from_size : struct_size;
    void *bkg = NULL;
    *rows = NULL;
    /* the rows recorded as the caller lays them out (this build's snapshots): HDF5's conversion
     * would only copy them, at the price of two compound types and a conversion path */
    if (same_layout(name, from, nfrom, from_size, fields, nfields, struct_size)) {
        if ((n && struct_size > SIZE_MAX / n) || !(*rows = malloc(n ? n * struct_size : 1)))
            return scal__fail(SCAL_ENOMEM, "'%s': out of memory reading %zu rows of '%s'", source,
                              n, name);
        if (n) memcpy(*rows, from_rows, n * struct_size);
        return SCAL_OK;
    }
    /* the rows' own type as they were recorded (enums as a writer makes them), then the reader's
     * by name from it: the conversion scal_h5_read_table has HDF5 make from a file's type */
    hid_t stype = scal_h5_compound_type(name, from, nfrom, from_size, H5I_INVALID_HID);
    hid_t mtype = H5I_INVALID_HID;
    if (stype < 0) {
        rc =
            scal__fail(SCAL_EFORMAT, "'%s': table '%s' has members of no known type", source, name);
        goto done;
    }
    if ((rc = has_members(stype, fields, nfields, source, name)) < 0) goto done;
    mtype = scal_h5_compound_type(name, fields, nfields, struct_size, stype);
    if (n && size > SIZE_MAX / n) {
        rc = scal__fail(SCAL_ENOMEM, "'%s': table '%s' is too large", source, name);
        goto done;
    }
    *rows = malloc(n ? n * size : 1);
    bkg = calloc(n ? n : 1, struct_size);
    if (!*rows || !bkg) {
        rc = scal__fail(SCAL_ENOMEM, "'%s': out of memory reading %zu rows of '%s'", source, n,
                        name);
        goto done;
    }
    for (size_t i = 0; i < nfields; i++) /* members the rows predate: NaN (f64) or 0 */
        if (fields[i].type == SCAL_H5_F64 && absent_added_later(name, &fields[i], stype))
            for (size_t k = 0; k < n; k++)
                *(double *)((char *)bkg + k * struct_size + fields[i].offset) = NAN;
    if (n) memcpy(*rows, from_rows, n * from_size);
    if (mtype < 0 || (n && H5Tconvert(stype, mtype, n, *rows, bkg, H5P_DEFAULT) < 0)) {
        rc = scal__fail(SCAL_EFORMAT,
                        "'%s': table '%s' cannot be read (member types do not convert)", source,
                        name);
        goto done;
    }
    if (size > struct_size && n) {
        void *fit = realloc(*rows, n * struct_size);
        if (fit) *rows = fit;
    }
done:
    if (rc < 0) {
        free(*rows);
        *rows = NULL;
    }
    free(bkg);
    if (mtype >= 0) H5Tclose(mtype);
    if (stype >= 0) H5Tclose(stype);
    return rc;
}
