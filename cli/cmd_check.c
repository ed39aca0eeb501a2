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
#include "stdin_file.h"
#include "h5util.h"
#include "safe_open.h"
#include "scal/status.h"
#include "validate.h"

struct checker {
    const char *path;
    unsigned problems;
    json_t *list; /* --json: the problems' texts (the first 50), else NULL (printed) */
};

static json_t *json_out; /* --json: one object per file, printed at the end; NULL: text */

static void problem(void *arg, const char *text)
{
    struct checker *c = arg;
    if (c->list) {
        if (c->problems < 50) json_array_append_new(c->list, json_string(text));
    } else if (c->problems < 50) {
        printf("%s: %s\n", c->path, text);
    } else if (c->problems == 50) {
        printf("%s: more problems not shown\n", c->path);
    }
    c->problems++;
}

/* 0 ok, 1 problems. The open has read the whole file in a probe process (the validator's reads
 * first): what follows cannot crash on a damaged file. Messages name the file as given (arg: "-"
 * for standard input, whose private copy is path). */
static int check_file(const char *path, const char *arg)
{
    char msg[2048];
    struct scal_h5file f;
    struct checker c = {arg, 0, json_out ? json_array() : NULL};
    json_t *o = json_out ? json_pack("{s:s}", "file", arg) : NULL;
    if (o) json_array_append_new(json_out, o);
    int rc = scal_h5file_open(path, SCAL_OPEN_READ, &f);
    if (rc < 0) {
        const char *e = strcmp(path, arg)
                            ? stdin_file_msg(scal__last_error(rc), path, msg, sizeof(msg))
                            : scal__last_error(rc);
        if (!o) printf("%s\n", e);
        if (o) json_object_set_new(o, "ok", json_false());
        if (o) json_object_set_new(o, "problems", json_pack("[s]", e));
        json_decref(c.list);
        return 1;
    }
    scal_validate(&f, problem, &c); /* the layout against the schema, then the content */
    if (o) {                        /* --json: what the text says, as members */
        json_object_set_new(o, "ok", json_boolean(c.problems == 0));
        json_object_set_new(o, "format", json_string(f.format));
        json_object_set_new(o, "version", json_integer(f.version));
        json_object_set_new(o, "regions", json_integer(scal_h5_table_rows(f.id, "regions")));
        if (f.campaign)
            json_object_set_new(o, "runs", json_integer(scal_h5_table_rows(f.id, "runs")));
        json_object_set_new(o, "problems", c.list);
    } else if (c.problems == 0) {
        int64_t nregions = scal_h5_table_rows(f.id, "regions");
        if (!f.campaign)
            printf("%s: ok (%s v%lld, %lld regions)\n", arg, f.format, (long long)f.version,
                   (long long)nregions);
        else
            printf("%s: ok (%s v%lld, %lld runs, %lld regions)\n", arg, f.format,
                   (long long)f.version, (long long)scal_h5_table_rows(f.id, "runs"),
                   (long long)nregions);
    }
    scal_h5file_close(&f);
    return c.problems ? 1 : 0;
}

int scal_cmd_check(int argc, char **argv)
{
    int status = 0, nfiles = 0;
    bool options = true;
    for (int i = 1; i < argc && options; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: scal check [--json] [--] FILE... (FILE '-': standard input)\n\n"
                   "Validates run files and campaign files: the layout against "
                   "schemas/<format>-<version>.json\n"
                   "(attributes, groups, tables and their members' types), then the content "
                   "(string indices,\n"
                   "the region tree, references between tables, one run per configuration and "
                   "repetition).\nPrints 'FILE: ok (...)' or one line per problem. Every reader "
                   "(show, report, export,\nmerge, run --resume, the Python package) makes the "
                   "same checks and refuses what check\nrejects. Exit status: 0 all files ok, 1 a "
                   "file has problems, 2 usage error.\n"
                   "Schemas are read from $SCAL_SCHEMA_DIR or the install's "
                   "share/scal/schemas.\n"
                   "--json prints one array: per file {file, ok, format, version, regions, runs,\n"
                   "problems} (the first 50 problems).\n");
            return 0;
        }
        if (!strcmp(argv[i], "--json")) continue;
        if (!strcmp(argv[i], "--")) {
            options = false;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "scal check: unknown option '%s'; see 'scal check --help'\n", argv[i]);
            return 2;
        }
    }
    options = true;
    for (int i = 1; i < argc && options; i++)
        if (!strcmp(argv[i], "--json") && !json_out)
            json_out = json_array();
        else if (!strcmp(argv[i], "--"))
            options = false;
    options = true;
    for (int i = 1; i < argc; i++) {
        if (options && (!strcmp(argv[i], "--json") || !strcmp(argv[i], "--"))) {
            options = strcmp(argv[i], "--") != 0;
            continue;
        }
        nfiles++;
        char tmp[4096] = "";
        const char *file = stdin_file(argv[i], tmp, sizeof(tmp)); /* "-": standard input */
        if (!file) fprintf(stderr, "scal check: %s\n", scal__last_error(SCAL_EIO));
        if (!file || check_file(file, argv[i])) status = 1;
        stdin_file_done(argv[i], tmp);
    }
    if (!nfiles) {
        fprintf(stderr, "scal check: no file given; usage: scal check [--json] FILE...\n");
        json_decref(json_out);
        return 2;
    }
    if (json_out) {
        json_dumpf(json_out, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(json_out);
    }
    return status;
}
