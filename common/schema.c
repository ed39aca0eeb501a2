// SPDX-License-Identifier: BSD-3-Clause
// Finding and parsing the schema files (jansson).
#include "schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exe_path.h"
#include "scal/status.h"

static char found_dir[4096];

static json_t *try_dir(const char *dir, const char *format, int64_t version)
{
    char path[4300];
    json_error_t jerr;
    snprintf(path, sizeof(path), "%s/%s-%lld.json", dir, format, (long long)version);
    if (access(path, R_OK) != 0) return NULL;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (doc) snprintf(found_dir, sizeof(found_dir), "%s", dir);
    return doc;
}

json_t *schema_load(const char *format, int64_t version, char *err, size_t errlen)
{
    char dir[4300];
    const char *env = getenv("SCAL_SCHEMA_DIR");
    json_t *doc = NULL;
    if (env && *env && (doc = try_dir(env, format, version))) return doc;
    char rel[512];
    snprintf(rel, sizeof(rel), "../%s/schemas", SCAL_DATA_INSTALL_DIR);
    if (scal_exe_relative(rel, dir, sizeof(dir)) == SCAL_OK &&
        (doc = try_dir(dir, format, version)))
        return doc;
    snprintf(err, errlen,
             "no schema %s-%lld.json found (looked in $SCAL_SCHEMA_DIR and ../%s/schemas next "
             "to scal)",
             format, (long long)version, SCAL_DATA_INSTALL_DIR);
    return NULL;
}

const char *schema_dir(void)
{
    return found_dir;
}
