// SPDX-License-Identifier: BSD-3-Clause
// The layout half of the validator (validate.h): a file's attributes, groups and tables against
// schemas/<format>-<version>.json (members and their types, enums, column metadata).
#include "validate_layout.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "column_meta.h"
#include "h5util.h"
#include "schema.h"
#include "scal_format.h"

struct checker {
    const struct scal_h5file *f;
    json_t *schema;
    struct scal__problems *out;
};

#define problem(c, ...) scal__problem((c)->out, __VA_ARGS__)

/* The schema type name of an HDF5 member type ("u8" ... "f64"), or "other". */
static const char *type_name(hid_t t)
{
    H5T_class_t cls = H5Tget_class(t);
    size_t size = H5Tget_size(t);
    if (cls == H5T_FLOAT) return size == 8 ? "f64" : "other";
    if (cls == H5T_ENUM) { /* regions.kind, runs.status: an enum over u8 is a u8 member */
        hid_t base = H5Tget_super(t);
        const char *name = base >= 0 ? type_name(base) : "other";
        if (base >= 0) H5Tclose(base);
        return name;
    }
    if (cls != H5T_INTEGER) return "other";
    bool sign = H5Tget_sign(t) == H5T_SGN_2;
    switch (size) {
    case 1:
        return sign ? "i8" : "u8";
    case 4:
        return sign ? "i32" : "u32";
    case 8:
        return sign ? "i64" : "u64";
    }
    return "other";
}

static const char *attr_kind(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = a >= 0 ? H5Aget_type(a) : -1;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    return cls == H5T_STRING    ? "string"
           : cls == H5T_INTEGER ? "int"
           : cls == H5T_FLOAT   ? "float"
                                : "other";
}

static void check_attributes(struct checker *c, hid_t obj, const char *where, json_t *attrs)
{
    size_t i;
    json_t *a;
    json_array_foreach(attrs, i, a)
    {
        const char *name = json_string_value(json_object_get(a, "name"));
        const char *type = json_string_value(json_object_get(a, "type"));
        bool required = json_is_true(json_object_get(a, "required"));
        if (!name || !type) continue;
        if (!scal_h5_attr_exists(obj, name)) {
            if (required) problem(c, "%s: attribute '%s' is missing", where, name);
            continue;
        }
        const char *kind = attr_kind(obj, name);
        if (strcmp(kind, type) != 0 && !(strcmp(type, "float") == 0 && strcmp(kind, "int") == 0))
            problem(c, "%s: attribute '%s' is %s, expected %s", where, name, kind, type);
    }
}

/* A 1-D string attribute of a table (column_units, column_descriptions) as n strings, or NULL. */
static char **read_string_attr(hid_t d, const char *name, size_t *n)
{
    hid_t a = H5Aopen(d, name, H5P_DEFAULT), s = a >= 0 ? H5Aget_space(a) : -1;
    hid_t at = a >= 0 ? H5Aget_type(a) : -1, mt = H5Tcopy(H5T_C_S1);
    hssize_t k = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    char **v = NULL;
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5T_CSET_UTF8);
    if (at >= 0 && H5Tget_class(at) == H5T_STRING && H5Tis_variable_str(at) > 0 && k > 0 &&
        (v = calloc((size_t)k, sizeof(*v))) && H5Aread(a, mt, v) < 0) {
        free(v);
        v = NULL;
    }
    *n = v ? (size_t)k : 0;
    H5Tclose(mt);
    if (at >= 0) H5Tclose(at);
    if (s >= 0) H5Sclose(s);
    if (a >= 0) H5Aclose(a);
    return v;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* column_units / column_descriptions: optional (files written before them stay valid), but when
 * present a string per member, each the one the schema lists for that member. */
static void check_column_meta(struct checker *c, const char *path, hid_t d, hid_t t,
                              json_t *members)
{
    const char *names[] = {SCAL_ATTR_COLUMN_UNITS, SCAL_ATTR_COLUMN_DESCRIPTIONS};
    const char *keys[] = {"units", "description"};
    int nmembers = H5Tget_nmembers(t);
    for (size_t k = 0; k < 2; k++) {
        if (!scal_h5_attr_exists(d, names[k])) continue;
        size_t n = 0;
        char **v = read_string_attr(d, names[k], &n);
        if (!v || n != (size_t)nmembers) {
            problem(c, "/%s: attribute '%s' is not %d strings (one per member)", path, names[k],
                    nmembers);
            free_strings(v, n);
            continue;
        }
        size_t i;
        json_t *m;
        json_array_foreach(members, i, m)
        {
            const char *name = json_string_value(json_object_get(m, "name"));
            const char *want = json_string_value(json_object_get(m, keys[k]));
            int idx = name ? H5Tget_member_index(t, name) : -1;
            if (!want || idx < 0) continue;
            /* a text an earlier version wrote ("former_descriptions") is still valid */
            json_t *former = json_object_get(m, k ? "former_descriptions" : "former_units"), *f;
            size_t j;
            bool old = false;
            json_array_foreach(former, j, f) old |=
                !strcmp(v[idx] ? v[idx] : "", json_string_value(f));
            if (!old && strcmp(v[idx] ? v[idx] : "", want))
                problem(c, "/%s member '%s': %s is '%s', the schema says '%s'", path, name,
                        names[k], v[idx] ? v[idx] : "", want);
        }
        free_strings(v, n);
    }
}

/* A member the schema lists with an enum: an HDF5 enum holding exactly those names and values
 * (a plain integer member, as earlier versions wrote, is accepted). */
static void check_enum(struct checker *c, const char *path, const char *name, hid_t mt,
                       json_t *want)
{
    if (!json_is_object(want) || H5Tget_class(mt) != H5T_ENUM) return;
    int n = H5Tget_nmembers(mt);
    if (n != (int)json_object_size(want))
        problem(c, "/%s member '%s': enum of %d names, the schema lists %zu", path, name, n,
                json_object_size(want));
    for (int k = 0; k < n; k++) {
        char *label = H5Tget_member_name(mt, (unsigned)k);
        long long value = -1;
        unsigned char raw[8] = {0};
        hid_t base = H5Tget_super(mt);
        if (H5Tget_member_value(mt, (unsigned)k, raw) >= 0 && base >= 0 &&
            H5Tconvert(base, H5T_NATIVE_LLONG, 1, raw, NULL, H5P_DEFAULT) >= 0)
            memcpy(&value, raw, sizeof(value));
        if (base >= 0) H5Tclose(base);
        json_t *v = label ? json_object_get(want, label) : NULL;
        if (!json_is_integer(v) || json_integer_value(v) != value)
            problem(c, "/%s member '%s': enum name '%s' = %lld is not in the schema", path, name,
                    label ? label : "?", value);
        H5free_memory(label);
    }
}

static void check_table_members(struct checker *c, const char *path, json_t *members)
{
    hid_t d = H5Dopen2(c->f->id, path, H5P_DEFAULT), t = d >= 0 ? H5Dget_type(d) : -1;
    size_t i;
    json_t *m;
    if (t < 0 || H5Tget_class(t) != H5T_COMPOUND) {
        problem(c, "/%s is not a table (compound dataset)", path);
        goto done;
    }
    json_array_foreach(members, i, m)
    {
        const char *name = json_string_value(json_object_get(m, "name"));
        const char *type = json_string_value(json_object_get(m, "type"));
        int idx = H5Tget_member_index(t, name);
        if (idx < 0 && json_is_true(json_object_get(m, "added_later")))
            continue; /* a file written before the member was added */
        if (idx < 0) {
            problem(c, "/%s has no member '%s'", path, name);
            continue;
        }
        hid_t mt = H5Tget_member_type(t, (unsigned)idx);
        if (strcmp(type_name(mt), type) != 0)
            problem(c, "/%s member '%s' is %s, expected %s", path, name, type_name(mt), type);
        check_enum(c, path, name, mt, json_object_get(m, "enum"));
        H5Tclose(mt);
    }
    check_column_meta(c, path, d, t, members);
done:
    if (t >= 0) H5Tclose(t);
    if (d >= 0) H5Dclose(d);
}

static void check_against_schema(struct checker *c)
{
    size_t i;
    json_t *g, *d, *t;
    check_attributes(c, c->f->id, "/", json_object_get(c->schema, "attributes"));
    json_array_foreach(json_object_get(c->schema, "groups"), i, g)
    {
        const char *path = json_string_value(json_object_get(g, "path"));
        if (!scal_h5_exists(c->f->id, path)) {
            if (json_is_true(json_object_get(g, "required")))
                problem(c, "group /%s is missing", path);
            continue;
        }
        hid_t gid = H5Gopen2(c->f->id, path, H5P_DEFAULT);
        if (gid < 0) {
            problem(c, "/%s is not a group", path);
            continue;
        }
        char where[256];
        snprintf(where, sizeof(where), "/%s", path);
        check_attributes(c, gid, where, json_object_get(g, "attributes"));
        H5Gclose(gid);
        size_t k;
        json_array_foreach(json_object_get(g, "datasets"), k, d)
        {
            const char *dpath = json_string_value(json_object_get(d, "path"));
            if (!scal_h5_exists(c->f->id, dpath) && json_is_true(json_object_get(d, "required")))
                problem(c, "dataset /%s is missing", dpath);
        }
    }
    json_array_foreach(json_object_get(c->schema, "datasets"), i, d)
    {
        const char *path = json_string_value(json_object_get(d, "path"));
        if (!scal_h5_exists(c->f->id, path) && json_is_true(json_object_get(d, "required")))
            problem(c, "dataset /%s is missing", path);
    }
    json_array_foreach(json_object_get(c->schema, "tables"), i, t)
    {
        const char *path = json_string_value(json_object_get(t, "path"));
        if (!scal_h5_exists(c->f->id, path)) {
            if (json_is_true(json_object_get(t, "required")))
                problem(c, "table /%s is missing", path);
            continue;
        }
        check_table_members(c, path, json_object_get(t, "members"));
    }
}

size_t scal__validate_layout(const struct scal_h5file *f, struct scal__problems *p)
{
    char err[1024];
    size_t before = p->count;
    struct checker c = {f, NULL, p};
    c.schema = schema_load(f->format, f->version, err, sizeof(err));
    if (!c.schema) {
        problem(&c, "%s", err);
        return p->count - before;
    }
    check_against_schema(&c);
    json_decref(c.schema);
    return p->count - before;
}
