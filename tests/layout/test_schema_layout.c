// SPDX-License-Identifier: BSD-3-Clause
// The machine-readable schemas and the C layout (common/layout.h) describe the same tables: same
// members, same order, same types. Fails when one changes without the other.
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "column_meta.h"
#include "layout.h"

static int failures;

static const char *type_of(enum scal_h5_ftype t)
{
    static const char *const names[] = {"u8", "i32", "u32", "i64", "u64", "f64"};
    return names[t];
}

static json_t *find_table(json_t *schema, const char *path)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(schema, "tables"), i, t)
    {
        if (!strcmp(json_string_value(json_object_get(t, "path")), path)) return t;
    }
    return NULL;
}

static void compare(json_t *schema, const char *file, const struct scal_table_desc *d)
{
    json_t *t = find_table(schema, d->name);
    if (!t) {
        printf("FAIL: %s has no table '%s'\n", file, d->name);
        failures++;
        return;
    }
    json_t *members = json_object_get(t, "members");
    if (json_array_size(members) != d->nfields) {
        printf("FAIL: %s table '%s' has %zu members, layout.h has %zu\n", file, d->name,
               json_array_size(members), d->nfields);
        failures++;
    }
    for (size_t i = 0; i < d->nfields && i < json_array_size(members); i++) {
        json_t *m = json_array_get(members, i);
        const char *name = json_string_value(json_object_get(m, "name"));
        const char *type = json_string_value(json_object_get(m, "type"));
        if (strcmp(name, d->fields[i].name) || strcmp(type, type_of(d->fields[i].type))) {
            printf("FAIL: %s table '%s' member %zu is %s %s, layout.h says %s %s\n", file, d->name,
                   i, type, name, type_of(d->fields[i].type), d->fields[i].name);
            failures++;
        }
    }
}

int main(int argc, char **argv)
{
    char path[4096];
    json_error_t err;
    if (argc < 2) return 2;
    snprintf(path, sizeof(path), "%s/scal-run-1.json", argv[1]);
    json_t *run = json_load_file(path, 0, &err);
    snprintf(path, sizeof(path), "%s/scal-campaign-1.json", argv[1]);
    json_t *campaign = json_load_file(path, 0, &err);
    if (!run || !campaign) {
        printf("FAIL: cannot parse the schemas in %s: %s (line %d)\n", argv[1], err.text, err.line);
        return 1;
    }
    const struct scal_table_desc *run_tables[] = {
        &scal_table_run_regions,  &scal_table_threads,       &scal_table_trace_instances,
        &scal_table_trace_states, &scal_table_sensor_values, &scal_table_sensor_samples,
        &scal_table_plugin_states};
    const struct scal_table_desc *campaign_tables[] = {&scal_table_configs,
                                                       &scal_table_runs,
                                                       &scal_table_campaign_regions,
                                                       &scal_table_region_stats,
                                                       &scal_table_thread_stats,
                                                       &scal_table_run_sensor_values,
                                                       &scal_table_run_sensor_samples,
                                                       &scal_table_run_plugin_states,
                                                       &scal_table_config_ranks,
                                                       &scal_table_run_ranks,
                                                       &scal_table_rank_region_stats,
                                                       &scal_table_region_rank_summary};
    size_t checked = 0;
    for (size_t i = 0; i < sizeof(run_tables) / sizeof(run_tables[0]); i++, checked++)
        compare(run, "scal-run-1.json", run_tables[i]);
    for (size_t i = 0; i < sizeof(campaign_tables) / sizeof(campaign_tables[0]); i++, checked++)
        compare(campaign, "scal-campaign-1.json", campaign_tables[i]);
    /* Every table of layout.h belongs to one of the two schemas. */
    size_t all = 0;
    while (scal_all_tables[all])
        all++;
    if (all != checked) {
        printf("FAIL: layout.h has %zu tables, the test knows %zu: add the new table to a schema "
               "and here\n",
               all, checked);
        failures++;
    }
    /* Every member of every table has a description (units may be "" for ids and indices). */
    for (size_t i = 0; scal_all_tables[i]; i++) {
        const struct scal_table_desc *d = scal_all_tables[i];
        for (size_t k = 0; k < d->nfields; k++) {
            const char *units, *description;
            if (!scal_column_meta(d->name, d->fields[k].name, &units, &description) ||
                !description[0]) {
                printf("FAIL: /%s member '%s' has no description in common/column_meta.c\n",
                       d->name, d->fields[k].name);
                failures++;
            }
        }
    }
    if (json_integer_value(json_object_get(run, "version")) != SCAL_SCHEMA_VERSION ||
        strcmp(json_string_value(json_object_get(run, "format")), SCAL_FORMAT_RUN)) {
        printf("FAIL: scal-run-1.json format/version differ from layout.h\n");
        failures++;
    }
    json_decref(run);
    json_decref(campaign);
    if (!failures) printf("PASS: %zu tables match between schemas/ and common/layout.h\n", checked);
    return failures ? 1 : 0;
}
