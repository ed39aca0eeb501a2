// SPDX-License-Identifier: BSD-3-Clause
// `scal check FILE...`: validates run and campaign files against schemas/ and checks their content
// (string indices, region tree, references between tables).
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "errmsg.h"
#include "h5util.h"
#include "safe_open.h"
#include "scal/status.h"
#include "validate.h"

struct checker {
    const char *path;
    unsigned problems;
    json_t *list; /* --json: the problems, else printed */
};

static void problem(void *arg, const char *text)
{
    struct checker *c = arg;
    if (c->list) {
        if (c->problems < 50) json_array_append_new(c->list, json_string(text));
    } else if (c->problems < 50)
        printf("%s: %s\n", c->path, text);
    else if (c->problems == 50)
        printf("%s: more problems not shown\n", c->path);
    c->problems++;
}

/* --json: one line per file, {"file", "ok", "format", "version", "problems": [...]} (the first 50
 * problems), for programs (the Python package validates a file through it before reading it). */
static void print_json(const struct checker *c, const struct scal_h5file *f)
{
    json_t *o = json_pack("{s:s, s:b, s:s, s:I, s:O}", "file", c->path, "ok", c->problems == 0,
                          "format", f ? f->format : "", "version", (json_int_t)(f ? f->version : 0),
                          "problems", c->list);
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    if (text) printf("%s\n", text);
    free(text);
    json_decref(o);
}

/* 0 ok, 1 problems. The open has read the whole file in a probe process: what follows cannot
 * crash on a damaged file. */
static int check_file(const char *path, bool as_json)
{
    struct scal_h5file f;
    struct checker c = {path, 0, as_json ? json_array() : NULL};
    int rc = scal_h5file_open(path, SCAL_OPEN_READ, &f);
    if (rc < 0) {
        if (as_json) {
            c.problems = 1;
            json_array_append_new(c.list, json_string(scal__last_error(rc)));
            print_json(&c, NULL);
        } else {
            printf("%s\n", scal__last_error(rc));
        }
        json_decref(c.list);
        return 1;
    }
    scal_validate(&f, problem, &c);
    if (as_json) {
        print_json(&c, &f);
    } else if (c.problems == 0) {
        int64_t nregions = scal_h5_table_rows(f.id, "regions");
        if (!f.campaign)
            printf("%s: ok (%s v%lld, %lld regions)\n", path, f.format, (long long)f.version,
                   (long long)nregions);
        else
            printf("%s: ok (%s v%lld, %lld runs, %lld regions)\n", path, f.format,
                   (long long)f.version, (long long)scal_h5_table_rows(f.id, "runs"),
                   (long long)nregions);
    }
    json_decref(c.list);
    scal_h5file_close(&f);
    return c.problems ? 1 : 0;
}

int scal_cmd_check(int argc, char **argv)
{
    int status = 0, nfiles = 0;
    bool as_json = false, options = true;
    for (int i = 1; i < argc; i++) {
        if (!options) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: scal check [--json] [--] FILE...\n\n"
                   "Validates run files and campaign files: the layout against "
                   "schemas/<format>-<version>.json\n"
                   "(attributes, groups, tables and their members' types), then the content "
                   "(string indices,\n"
                   "the region tree, references between tables, one run per configuration and "
                   "repetition).\nPrints 'FILE: ok (...)' or one line per problem. Every reader "
                   "(show, report, export,\nmerge, run --resume, the Python package) makes the "
                   "same checks and refuses what check\nrejects.\n\n"
                   "  --json   one JSON object a line per file: file, ok, format, version, "
                   "problems\n\n"
                   "Exit status: 0 all files ok, 1 a file has problems, 2 usage error.\n"
                   "Schemas are read from $SCAL_SCHEMA_DIR or the install's "
                   "share/scal/schemas.\n");
            return 0;
        }
        if (!strcmp(argv[i], "--json"))
            as_json = true;
        else if (!strcmp(argv[i], "--"))
            options = false;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "scal check: unknown option '%s'; see 'scal check --help'\n", argv[i]);
            return 2;
        }
    }
    options = true;
    for (int i = 1; i < argc; i++) {
        if (options && (!strcmp(argv[i], "--json") || !strcmp(argv[i], "--"))) {
            options = strcmp(argv[i], "--") != 0;
            continue;
        }
        nfiles++;
        if (check_file(argv[i], as_json)) status = 1;
    }
    if (!nfiles) {
        fprintf(stderr, "scal check: no file given; usage: scal check FILE...\n");
        return 2;
    }
    return status;
}
