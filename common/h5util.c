// SPDX-License-Identifier: BSD-3-Clause
// HDF5 helpers: attributes, vlen string datasets and chunked compound tables, with named errors.
#include "h5util.h"

#include <stdlib.h>
#include <string.h>

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

static hid_t vlen_string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return t;
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

static int write_attr(hid_t obj, const char *name, hid_t type, const void *value)
{
    int rc = SCAL_OK;
    hid_t space = -1, attr = -1;
    if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
    space = H5Screate(H5S_SCALAR);
    if (space < 0) goto fail;
    attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0 || H5Awrite(attr, type, value) < 0) goto fail;
    goto done;
fail:
    rc = scal__fail(SCAL_EHDF5, "cannot write attribute '%s'", name);
done:
    if (attr >= 0) H5Aclose(attr);
    if (space >= 0) H5Sclose(space);
    return rc;
}

int scal_h5_attr_set_str(hid_t obj, const char *name, const char *value)
{
    hid_t t = vlen_string_type();
    const char *v = value ? value : "";
    int rc = write_attr(obj, name, t, &v);
    H5Tclose(t);
    return rc;
}

int scal_h5_attr_set_i64(hid_t obj, const char *name, int64_t value)
{
    return write_attr(obj, name, H5T_NATIVE_INT64, &value);
}

int scal_h5_attr_set_f64(hid_t obj, const char *name, double value)
{
    return write_attr(obj, name, H5T_NATIVE_DOUBLE, &value);
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

int scal_h5_attr_get_f64(hid_t obj, const char *name, double *out)
{
    return read_attr(obj, name, H5T_NATIVE_DOUBLE, out);
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

int scal_h5_write_strings(hid_t loc, const char *name, const char *const *strings, size_t n)
{
    int rc = SCAL_OK;
    hsize_t dims[1] = {n}, maxdims[1] = {H5S_UNLIMITED}, chunk[1] = {256};
    hid_t type = vlen_string_type(), space = -1, dcpl = -1, dset = -1;
    space = H5Screate_simple(1, dims, maxdims);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, chunk) < 0) goto fail;
    dset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) goto fail;
    if (n > 0 && H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, strings) < 0) goto fail;
    goto done;
fail:
    rc = scal__fail(SCAL_EHDF5, "cannot write string dataset '%s'", name);
done:
    if (dset >= 0) H5Dclose(dset);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    H5Tclose(type);
    return rc;
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
    if (H5Dwrite(dset, type, mspace, fspace, H5P_DEFAULT, strings) < 0) goto fail;
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

int scal_h5_read_strings(hid_t loc, const char *name, char ***out, size_t *n)
{
    int rc = SCAL_OK;
    hid_t dset = -1, space = -1, ftype = -1, mtype = -1;
    char **raw = NULL;
    hssize_t count = 0;
    *out = NULL;
    *n = 0;
    if (!scal_h5_exists(loc, name))
        return scal__fail(SCAL_EFORMAT, "dataset '%s' is missing", name);
    dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (dset < 0) goto fail;
    ftype = H5Dget_type(dset);
    space = H5Dget_space(dset);
    if (ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_STRING ||
        H5Sget_simple_extent_ndims(space) != 1)
        goto fail;
    count = H5Sget_simple_extent_npoints(space);
    if (count < 0) goto fail;
    *out = calloc((size_t)count + 1, sizeof(**out));
    if (!*out) goto nomem;
    if (count > 0) {
        if (H5Tis_variable_str(ftype) > 0) {
            raw = calloc((size_t)count, sizeof(*raw));
            mtype = vlen_string_type();
            if (!raw) goto nomem;
            if (H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) < 0) goto fail;
            for (hssize_t i = 0; i < count; i++) {
                (*out)[i] = strdup(raw[i] ? raw[i] : "");
                if (!(*out)[i]) goto nomem;
            }
            H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, raw);
        } else {
            size_t size = H5Tget_size(ftype);
            char *buf = calloc((size_t)count, size + 1);
            mtype = H5Tcopy(H5T_C_S1);
            H5Tset_size(mtype, size + 1);
            if (!buf) goto nomem;
            if (H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
                free(buf);
                goto fail;
            }
            for (hssize_t i = 0; i < count; i++)
                (*out)[i] = strdup(buf + (size_t)i * (size + 1));
            free(buf);
        }
    }
    *n = (size_t)count;
    goto done;
nomem:
    rc = scal__fail(SCAL_ENOMEM, "out of memory reading string dataset '%s'", name);
    goto cleanup_out;
fail:
    rc = scal__fail(SCAL_EFORMAT, "dataset '%s' is not a readable 1-D string dataset", name);
cleanup_out:
    scal_h5_free_strings(*out, (size_t)(count > 0 ? count : 0));
    *out = NULL;
done:
    free(raw);
    if (mtype >= 0) H5Tclose(mtype);
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
    return -1;
}

hid_t scal_h5_compound_type(const struct scal_h5_field *fields, size_t nfields, size_t struct_size)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, struct_size);
    if (t < 0) return t;
    for (size_t i = 0; i < nfields; i++) {
        if (H5Tinsert(t, fields[i].name, fields[i].offset, native_type(fields[i].type)) < 0) {
            H5Tclose(t);
            return -1;
        }
    }
    return t;
}

/* The file type is the memory type packed, so files do not carry the C struct's padding. */
static hid_t packed_copy(hid_t memtype)
{
    hid_t t = H5Tcopy(memtype);
    if (t >= 0) H5Tpack(t);
    return t;
}

int scal_h5_write_table(hid_t loc, const char *name, const struct scal_h5_field *fields,
                        size_t nfields, size_t struct_size, const void *rows, size_t nrows)
{
    int rc = SCAL_OK;
    hsize_t dims[1] = {nrows}, maxdims[1] = {H5S_UNLIMITED};
    hsize_t chunk[1] = {nrows > 1024 ? 1024 : (nrows < 64 ? 64 : nrows)};
    hid_t mtype = scal_h5_compound_type(fields, nfields, struct_size);
    hid_t ftype = -1, space = -1, dcpl = -1, dset = -1;
    if (mtype < 0) goto fail;
    ftype = packed_copy(mtype);
    space = H5Screate_simple(1, dims, maxdims);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (ftype < 0 || space < 0 || dcpl < 0) goto fail;
    if (H5Pset_chunk(dcpl, 1, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, 4) < 0)
        goto fail;
    dset = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) goto fail;
    if (nrows > 0 && H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0) goto fail;
    goto done;
fail:
    rc = scal__fail(SCAL_EHDF5, "cannot write table '%s'", name);
done:
    if (dset >= 0) H5Dclose(dset);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    if (ftype >= 0) H5Tclose(ftype);
    if (mtype >= 0) H5Tclose(mtype);
    return rc;
}

int scal_h5_append_table(hid_t loc, const char *name, const struct scal_h5_field *fields,
                         size_t nfields, size_t struct_size, const void *rows, size_t nrows)
{
    int rc = SCAL_OK;
    hid_t dset = -1, fspace = -1, mspace = -1, mtype = -1;
    hsize_t old = 0, start[1], count[1] = {nrows}, newdims[1];
    if (!scal_h5_exists(loc, name))
        return scal_h5_write_table(loc, name, fields, nfields, struct_size, rows, nrows);
    if (nrows == 0) return SCAL_OK;
    dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (dset < 0) goto fail;
    fspace = H5Dget_space(dset);
    if (fspace < 0 || H5Sget_simple_extent_dims(fspace, &old, NULL) != 1) goto fail;
    H5Sclose(fspace);
    fspace = -1;
    newdims[0] = old + nrows;
    if (H5Dset_extent(dset, newdims) < 0) goto fail;
    fspace = H5Dget_space(dset);
    start[0] = old;
    if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0) goto fail;
    mspace = H5Screate_simple(1, count, NULL);
    mtype = scal_h5_compound_type(fields, nfields, struct_size);
    if (mspace < 0 || mtype < 0) goto fail;
    if (H5Dwrite(dset, mtype, mspace, fspace, H5P_DEFAULT, rows) < 0) goto fail;
    goto done;
fail:
    rc = scal__fail(SCAL_EHDF5, "cannot append %zu rows to table '%s'", nrows, name);
done:
    if (mtype >= 0) H5Tclose(mtype);
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
    if (dset >= 0) H5Dclose(dset);
    return rc;
}

int64_t scal_h5_table_rows(hid_t loc, const char *name)
{
    hsize_t dims[1] = {0};
    hid_t dset, space;
    if (!scal_h5_exists(loc, name)) return scal__fail(SCAL_EFORMAT, "table '%s' is missing", name);
    dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (dset < 0) return scal__fail(SCAL_EFORMAT, "table '%s' cannot be opened", name);
    space = H5Dget_space(dset);
    int nd = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
    if (space >= 0) H5Sclose(space);
    H5Dclose(dset);
    if (nd != 1) return scal__fail(SCAL_EFORMAT, "table '%s' is not one-dimensional", name);
    return (int64_t)dims[0];
}

int scal_h5_read_table(hid_t loc, const char *name, const struct scal_h5_field *fields,
                       size_t nfields, size_t struct_size, void **rows, size_t *nrows)
{
    int rc = SCAL_OK;
    hid_t dset = -1, ftype = -1, space = -1, mtype = -1;
    hsize_t dims[1] = {0};
    *rows = NULL;
    *nrows = 0;
    if (!scal_h5_exists(loc, name)) return scal__fail(SCAL_EFORMAT, "table '%s' is missing", name);
    dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (dset < 0) return scal__fail(SCAL_EFORMAT, "table '%s' cannot be opened", name);
    ftype = H5Dget_type(dset);
    space = H5Dget_space(dset);
    if (ftype < 0 || H5Tget_class(ftype) != H5T_COMPOUND) {
        rc = scal__fail(SCAL_EFORMAT, "table '%s' is not a compound dataset", name);
        goto done;
    }
    if (H5Sget_simple_extent_dims(space, dims, NULL) != 1) {
        rc = scal__fail(SCAL_EFORMAT, "table '%s' is not one-dimensional", name);
        goto done;
    }
    for (size_t i = 0; i < nfields; i++) {
        if (H5Tget_member_index(ftype, fields[i].name) < 0) {
            rc = scal__fail(SCAL_EFORMAT, "table '%s' has no member '%s'", name, fields[i].name);
            goto done;
        }
    }
    mtype = scal_h5_compound_type(fields, nfields, struct_size);
    *rows = calloc(dims[0] ? dims[0] : 1, struct_size);
    if (!*rows) {
        rc = scal__fail(SCAL_ENOMEM, "out of memory reading %llu rows of '%s'",
                        (unsigned long long)dims[0], name);
        goto done;
    }
    if (dims[0] > 0 && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) < 0) {
        rc = scal__fail(SCAL_EFORMAT, "table '%s' cannot be read (member types do not convert)",
                        name);
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
