// SPDX-License-Identifier: BSD-3-Clause
// Unit test: the HDF5 objects h5util makes once and keeps (the string type, the scalar dataspace,
// the compact layout's creation properties, the transfer properties) are not taken for objects of
// the caller's after H5close() and a new start of the library, which hands out the same ids again:
// an attribute written then is still a string, a small string dataset still compact, a table still
// reads back.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "h5util.h"
#include "scal_test.h"

/* The string attribute `a` of the file at path, or "" when it is not one. */
static void read_str_attr(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t a = f >= 0 ? H5Aopen(f, "a", H5P_DEFAULT) : -1;
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    char *v = NULL;
    if (t >= 0 && H5Tis_variable_str(t) > 0 && H5Aread(a, t, &v) >= 0 && v) {
        snprintf(out, len, "%s", v);
        H5free_memory(v);
    }
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    if (f >= 0) H5Fclose(f);
}

static H5D_layout_t layout_of(const char *path, const char *name)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
    hid_t p = d >= 0 ? H5Dget_create_plist(d) : -1;
    H5D_layout_t l = p >= 0 ? H5Pget_layout(p) : H5D_LAYOUT_ERROR;
    if (p >= 0) H5Pclose(p);
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
    return l;
}

/* Writes the attribute `a` and the small string dataset `s` into a new file at path. */
static int write_file(const char *path, const char *value)
{
    const char *strings[] = {"x", "y"};
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return -1;
    int rc = scal_h5_attr_set_str(f, "a", value);
    if (rc == 0) rc = scal_h5_write_strings_fixed(f, "s", strings, 2);
    H5Fclose(f);
    return rc;
}

int main(void)
{
    char dir[] = "/tmp/scal-h5-reopen-XXXXXX", first[64], second[64], got[64];
    CHECK(mkdtemp(dir) != NULL, "a scratch directory");
    snprintf(first, sizeof(first), "%s/first.h5", dir);
    snprintf(second, sizeof(second), "%s/second.h5", dir);
    scal_h5_quiet();
    CHECK(write_file(first, "hello") == 0, "the first file is written");
    read_str_attr(first, got, sizeof(got));
    CHECK(strcmp(got, "hello") == 0, "its attribute reads back: '%s'", got);

    H5close();
    H5open();
    /* the caller's own objects, made first: they take the ids the kept ones had */
    hsize_t three = 3;
    hid_t mine[] = {H5Tcopy(H5T_NATIVE_INT), H5Screate_simple(1, &three, NULL),
                    H5Pcreate(H5P_DATASET_CREATE), H5Pcreate(H5P_FILE_ACCESS)};
    CHECK(write_file(second, "world") == 0, "after H5close, the second file is written");
    read_str_attr(second, got, sizeof(got));
    CHECK(strcmp(got, "world") == 0, "its attribute is a string that reads back: '%s'", got);
    CHECK(layout_of(second, "s") == H5D_COMPACT, "its small string dataset is compact");
    H5D_layout_t l = H5Pget_layout(mine[2]);
    CHECK(l != H5D_COMPACT, "the caller's creation properties are left as they were (%d)", (int)l);
    H5Tclose(mine[0]);
    H5Sclose(mine[1]);
    H5Pclose(mine[2]);
    H5Pclose(mine[3]);
    unlink(first);
    unlink(second);
    rmdir(dir);
    return scal_test_result("h5_reopen");
}
