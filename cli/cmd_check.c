// SPDX-License-Identifier: BSD-3-Clause
// `scal check FILE...`: validates run and campaign files against schemas/ and checks their content
// (string indices, region tree, references between tables).
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "column_meta.h"
#include "errmsg.h"
#include "h5util.h"
#include "layout.h"
#include "safe_open.h"
#include "scal_format.h"
#include "scal/status.h"
#include "schema.h"

struct checker {
    const char *path;
    struct scal_h5file *f;
    json_t *schema;
    unsigned problems;
};

static void problem(struct checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct checker *c, const char *fmt, ...)
{
    va_list ap;
    if (c->problems < 50) {
        printf("%s: ", c->path);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
    } else if (c->problems == 50) {
        printf("%s: more problems not shown\n", c->path);
    }
    c->problems++;
}

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

/* column_units / column_descriptions: optional (files written before them stay valid), but when
 * present a string per member of the table. */
static void check_column_meta(struct checker *c, const char *path, hid_t d, hid_t t)
{
    const char *names[] = {SCAL_ATTR_COLUMN_UNITS, SCAL_ATTR_COLUMN_DESCRIPTIONS};
    int nmembers = H5Tget_nmembers(t);
    for (size_t k = 0; k < 2; k++) {
        if (!scal_h5_attr_exists(d, names[k])) continue;
        hid_t a = H5Aopen(d, names[k], H5P_DEFAULT), s = a >= 0 ? H5Aget_space(a) : -1;
        hid_t at = a >= 0 ? H5Aget_type(a) : -1;
        hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
        if (at < 0 || H5Tget_class(at) != H5T_STRING || n != nmembers)
            problem(c, "/%s: attribute '%s' is not %d strings (one per member)", path, names[k],
                    nmembers);
        if (at >= 0) H5Tclose(at);
        if (s >= 0) H5Sclose(s);
        if (a >= 0) H5Aclose(a);
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
        H5Tclose(mt);
    }
    check_column_meta(c, path, d, t);
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

static void check_string(struct checker *c, const char *table, size_t row, const char *member,
                         uint32_t idx)
{
    if (idx >= c->f->nstrings)
        problem(c, "/%s row %zu: %s refers to string %u, but /strings has %zu", table, row, member,
                idx, c->f->nstrings);
}

/* The region tree: ids are row numbers, parents precede children, depths follow, kinds are known,
 * serial gaps name existing neighbours. */
static void check_regions(struct checker *c, const struct scal_region_id_row *rows, size_t stride,
                          size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct scal_region_id_row *r = (const void *)((const char *)rows + i * stride);
        if (r->id != i) problem(c, "/regions row %zu: id is %u", i, r->id);
        if (r->kind > SCAL_KIND_TASK) problem(c, "/regions row %zu: unknown kind %u", i, r->kind);
        if (i == 0 && (r->kind != SCAL_KIND_ROOT || r->parent != -1))
            problem(c, "/regions row 0 is not the root (kind %u, parent %d)", r->kind, r->parent);
        if (i > 0) {
            if (r->parent < 0 || (size_t)r->parent >= n)
                problem(c, "/regions row %zu: parent %d does not exist", i, r->parent);
            else if ((size_t)r->parent >= i)
                problem(c,
                        "/regions row %zu: parent %d is not an earlier row (the tree has a cycle "
                        "or is out of order)",
                        i, r->parent);
            else {
                const struct scal_region_id_row *p =
                    (const void *)((const char *)rows + (size_t)r->parent * stride);
                if (r->depth != p->depth + 1)
                    problem(c, "/regions row %zu: depth %u under a parent of depth %u", i, r->depth,
                            p->depth);
            }
        }
        if (r->gap_prev < -1 || (r->gap_prev >= 0 && (size_t)r->gap_prev >= n))
            problem(c, "/regions row %zu: gap_prev %d does not exist", i, r->gap_prev);
        if (r->gap_next < -1 || (r->gap_next >= 0 && (size_t)r->gap_next >= n))
            problem(c, "/regions row %zu: gap_next %d does not exist", i, r->gap_next);
        check_string(c, "regions", i, "name", r->name);
        check_string(c, "regions", i, "module", r->module);
        check_string(c, "regions", i, "build_id", r->build_id);
        check_string(c, "regions", i, "file", r->file);
        check_string(c, "regions", i, "function", r->function);
    }
}

/* Reads a table only when the schema part above found it well-formed. */
static int read_rows(struct checker *c, const struct scal_table_desc *d, void **rows, size_t *n)
{
    int rc = scal_table_read(c->f->id, d, rows, n);
    if (rc < 0) problem(c, "%s", scal__last_error(rc));
    return rc;
}

static void check_run_content(struct checker *c)
{
    struct scal_region_row *regions = NULL;
    struct scal_thread_row *threads = NULL;
    size_t nregions = 0, nthreads = 0;
    if (read_rows(c, &scal_table_run_regions, (void **)&regions, &nregions) == 0) {
        if (nregions == 0) problem(c, "/regions is empty (every run has at least the root)");
        /* The identity members lead struct scal_region_row exactly as in struct scal_region_id_row.
         */
        check_regions(c, (const struct scal_region_id_row *)regions, sizeof(*regions), nregions);
    }
    if (scal_h5_exists(c->f->id, "threads") &&
        read_rows(c, &scal_table_threads, (void **)&threads, &nthreads) == 0)
        for (size_t i = 0; i < nthreads; i++)
            if (threads[i].region >= nregions)
                problem(c, "/threads row %zu: region %u does not exist", i, threads[i].region);
    free(regions);
    free(threads);
}

static bool id_in(const uint32_t *ids, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id) return true;
    return false;
}

static void check_campaign_content(struct checker *c)
{
    struct scal_config_row *configs = NULL;
    struct scal_run_row *runs = NULL;
    struct scal_region_id_row *regions = NULL;
    struct scal_region_stat_row *stats = NULL;
    size_t nconfigs = 0, nruns = 0, nregions = 0, nstats = 0;
    uint32_t *config_ids = NULL, *run_ids = NULL;
    if (read_rows(c, &scal_table_configs, (void **)&configs, &nconfigs) < 0 ||
        read_rows(c, &scal_table_runs, (void **)&runs, &nruns) < 0 ||
        read_rows(c, &scal_table_campaign_regions, (void **)&regions, &nregions) < 0 ||
        read_rows(c, &scal_table_region_stats, (void **)&stats, &nstats) < 0)
        goto done;
    config_ids = calloc(nconfigs + 1, sizeof(*config_ids));
    run_ids = calloc(nruns + 1, sizeof(*run_ids));
    if (!config_ids || !run_ids) goto done;
    for (size_t i = 0; i < nconfigs; i++) {
        config_ids[i] = configs[i].id;
        check_string(c, "configs", i, "input_label", configs[i].input_label);
        check_string(c, "configs", i, "affinity", configs[i].affinity);
        check_string(c, "configs", i, "argv", configs[i].argv);
        if (configs[i].threads < 1)
            problem(c, "/configs row %zu: %d threads", i, configs[i].threads);
    }
    for (size_t i = 0; i < nruns; i++) {
        run_ids[i] = runs[i].id;
        if (!id_in(config_ids, nconfigs, runs[i].config))
            problem(c, "/runs row %zu: configuration %u does not exist", i, runs[i].config);
        if (runs[i].status > SCAL_RUN_NODATA)
            problem(c, "/runs row %zu: unknown status %u", i, runs[i].status);
        check_string(c, "runs", i, "message", runs[i].message);
        check_string(c, "runs", i, "stdout_tail", runs[i].stdout_tail);
        check_string(c, "runs", i, "stderr_tail", runs[i].stderr_tail);
    }
    if (nregions) check_regions(c, regions, sizeof(*regions), nregions);
    for (size_t i = 0; i < nstats; i++) {
        if (!id_in(run_ids, nruns, stats[i].run))
            problem(c, "/region_stats row %zu: run %u does not exist", i, stats[i].run);
        if (stats[i].region >= nregions)
            problem(c, "/region_stats row %zu: region %u does not exist", i, stats[i].region);
    }
done:
    free(config_ids);
    free(run_ids);
    free(configs);
    free(runs);
    free(regions);
    free(stats);
}

/* 0 ok, 1 problems. The open has read the whole file in a probe process: what follows cannot
 * crash on a damaged file. */
static int check_file(const char *path)
{
    char err[1024];
    struct scal_h5file f;
    struct checker c = {path, &f, NULL, 0};
    int rc = scal_h5file_open(path, SCAL_OPEN_READ, &f);
    if (rc < 0) {
        printf("%s\n", scal__last_error(rc));
        return 1;
    }
    c.schema = schema_load(f.format, f.version, err, sizeof(err));
    if (!c.schema) {
        printf("%s: %s\n", path, err);
        scal_h5file_close(&f);
        return 1;
    }
    check_against_schema(&c);
    if (c.problems == 0) { /* content checks need a well-formed layout */
        if (f.campaign)
            check_campaign_content(&c);
        else
            check_run_content(&c);
    }
    if (c.problems == 0) {
        int64_t nregions = scal_h5_table_rows(f.id, "regions");
        if (!f.campaign)
            printf("%s: ok (%s v%lld, %lld regions)\n", path, f.format, (long long)f.version,
                   (long long)nregions);
        else
            printf("%s: ok (%s v%lld, %lld runs, %lld regions)\n", path, f.format,
                   (long long)f.version, (long long)scal_h5_table_rows(f.id, "runs"),
                   (long long)nregions);
    }
    json_decref(c.schema);
    scal_h5file_close(&f);
    return c.problems ? 1 : 0;
}

int scal_cmd_check(int argc, char **argv)
{
    int status = 0, nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: scal check FILE...\n\n"
                   "Validates run files and campaign files: the layout against "
                   "schemas/<format>-<version>.json\n"
                   "(attributes, groups, tables and their members' types), then the content "
                   "(string indices,\n"
                   "the region tree, references between tables). Prints 'FILE: ok (...)' or one "
                   "line per\n"
                   "problem. Exit status: 0 all files ok, 1 a file has problems, 2 usage error.\n"
                   "Schemas are read from $SCAL_SCHEMA_DIR or the install's "
                   "share/scal/schemas.\n");
            return 0;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "scal check: unknown option '%s'; see 'scal check --help'\n", argv[i]);
            return 2;
        }
    }
    for (int i = 1; i < argc; i++) {
        nfiles++;
        if (check_file(argv[i])) status = 1;
    }
    if (!nfiles) {
        fprintf(stderr, "scal check: no file given; usage: scal check FILE...\n");
        return 2;
    }
    return status;
}
