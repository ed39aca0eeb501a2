// SPDX-License-Identifier: BSD-3-Clause
// `scal plugins [NAME ...]`: every plugin in the search path (or the ones named) with its kind,
// version, options, and whether it is available on this machine and why not; --json for scripts.
// Plugins are named, never paths: a path would run any file's constructor in scal.
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "plugin_loader.h"

struct listing {
    const char *kind; /* filter, NULL: all */
    unsigned shown, broken, unavailable;
    json_t *plugins, *broken_list; /* --json: collected here, printed at the end; NULL: text */
};

static const char *kind_text(int kind)
{
    return kind == SCAL_PLUGIN_SENSOR     ? "sensor"
           : kind == SCAL_PLUGIN_ACTUATOR ? "actuator"
           : kind == SCAL_PLUGIN_POSTPROC ? "postproc"
                                          : "?";
}

static const char *type_text(enum scal_option_type t)
{
    switch (t) {
    case SCAL_OPT_INT:
        return "int";
    case SCAL_OPT_DOUBLE:
        return "number";
    case SCAL_OPT_BOOL:
        return "bool";
    case SCAL_OPT_LIST:
        return "list";
    default:
        return "text";
    }
}

/* Tries the plugin here: sensors are started and stopped, actuators started and tested. */
static int probe(struct scal_loaded_plugin *p, char *why, size_t whylen, char *extra, size_t elen,
                 json_t *metrics)
{
    const struct scal_plugin_desc *d = p->desc;
    int rc = SCAL_OK;
    extra[0] = 0;
    why[0] = 0;
    if (d->kind == SCAL_PLUGIN_SENSOR) {
        scal_sensor_state *st = NULL;
        rc = d->sensor->init(&p->env, &st, why, whylen);
        if (rc < 0) return rc;
        const struct scal_metric_desc *m = NULL;
        size_t n = d->sensor->metrics(st, &m), used = 0;
        for (size_t i = 0; i < n && used < elen; i++)
            used += (size_t)snprintf(extra + used, elen - used, "%s%s [%s]", i ? ", " : "",
                                     m[i].name, m[i].unit);
        for (size_t i = 0; metrics && i < n; i++)
            json_array_append_new(metrics,
                                  json_pack("{s:s,s:s}", "name", m[i].name, "unit", m[i].unit));
        d->sensor->fini(st);
    } else if (d->kind == SCAL_PLUGIN_ACTUATOR) {
        scal_actuator_state *st = NULL;
        rc = d->actuator->init(&p->env, &st, why, whylen);
        if (rc < 0) return rc;
        rc = d->actuator->test(st, why, whylen);
        if (rc == 0) {
            char now[256] = "";
            if (d->actuator->observe(st, now, sizeof(now)) == 0 && now[0])
                snprintf(extra, elen, "current setting: %s", now);
        }
        d->actuator->fini(st);
    }
    return rc;
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* The JSON object of one plugin: what the text listing says, metrics and options as arrays. */
static json_t *plugin_json(const struct scal_loaded_plugin *p, int rc, const char *why,
                           const char *extra, json_t *metrics)
{
    const struct scal_plugin_desc *d = p->desc;
    json_t *o = json_pack("{s:s,s:s,s:o,s:o,s:s,s:b}", "name", d->name, "kind", kind_text(d->kind),
                          "version", str_or_null(d->version), "description",
                          str_or_null(d->description), "file", p->path, "available", rc >= 0);
    json_t *opts = json_array();
    for (size_t i = 0; d->options && d->options[i].name; i++)
        json_array_append_new(opts,
                              json_pack("{s:s,s:s,s:o,s:o}", "name", d->options[i].name, "type",
                                        type_text(d->options[i].type), "default",
                                        str_or_null(d->options[i].default_value), "description",
                                        str_or_null(d->options[i].description)));
    json_object_set_new(o, "options", opts);
    if (rc < 0) json_object_set_new(o, "why", json_string(why[0] ? why : "initialisation failed"));
    if (d->kind == SCAL_PLUGIN_SENSOR)
        json_object_set(o, "metrics", metrics);
    else if (extra[0])
        json_object_set_new(o, "state", json_string(extra));
    return o;
}

static void show(struct listing *l, struct scal_loaded_plugin *p)
{
    char why[SCAL_PLUGIN_WHY_MAX], extra[1024];
    const struct scal_plugin_desc *d = p->desc;
    json_t *metrics = l->plugins ? json_array() : NULL;
    int rc = probe(p, why, sizeof(why), extra, sizeof(extra), metrics);
    if (l->plugins) {
        json_array_append_new(l->plugins, plugin_json(p, rc, why, extra, metrics));
        json_decref(metrics);
        l->shown++;
        l->unavailable += rc < 0;
        return;
    }
    printf("%-12s %-9s v%-4s %s\n", d->name, kind_text(d->kind), d->version ? d->version : "?",
           d->description ? d->description : "");
    printf("    file: %s\n", p->path);
    if (rc < 0) {
        printf("    available: no: %s\n", why[0] ? why : "initialisation failed");
        l->unavailable++;
    } else {
        printf("    available: yes\n");
    }
    if (extra[0]) printf("    %s%s\n", d->kind == SCAL_PLUGIN_SENSOR ? "metrics: " : "", extra);
    for (size_t i = 0; d->options && d->options[i].name; i++)
        printf("    option %s (%s, default %s): %s\n", d->options[i].name,
               type_text(d->options[i].type),
               d->options[i].default_value ? d->options[i].default_value : "none",
               d->options[i].description ? d->options[i].description : "");
    l->shown++;
}

static int list_one(const char *path, const char *name, void *arg)
{
    struct listing *l = arg;
    struct scal_loaded_plugin p;
    char why[SCAL_PLUGIN_WHY_MAX];
    if (scal_plugin_load(path, 0, NULL, 0, &p, why, sizeof(why)) < 0) {
        if (l->broken_list)
            json_array_append_new(
                l->broken_list, json_pack("{s:s,s:s,s:s}", "name", name, "file", path, "why", why));
        else
            printf("%-12s BROKEN: %s\n", name, why);
        l->broken++;
        return 0;
    }
    if (!l->kind || !strcmp(l->kind, kind_text(p.desc->kind))) show(l, &p);
    scal_plugin_unload(&p);
    return 0;
}

static void usage(FILE *out)
{
    fputs(
        "usage: scal plugins [--kind sensor|actuator|postproc] [--json] [NAME ...]\n\n"
        "Lists the plugins scal finds (SCAL_PLUGIN_PATH, then the built-in directory) with their\n"
        "kind, options and whether they work on this machine (and why not); with NAMEs, only\n"
        "those. A plugin is named (papi: libscal_papi.so), never given as a path: to make one\n"
        "findable, put its directory in SCAL_PLUGIN_PATH (absolute, owned by you or root and\n"
        "writable by nobody else, as the file itself).\n"
        "Options are set as SCAL_<PLUGIN>_<OPTION>=VALUE in the environment or with\n"
        "`scal run` / `scal report --plugin-opt PLUGIN.OPTION=VALUE`.\n\n"
        "  --kind K   only plugins of kind K\n"
        "  --json     one JSON object: directories, plugins (name, kind, version, description,\n"
        "             file, available, why, metrics or state, options) and broken files\n",
        out);
}

/* A NAME that is not a plugin name (a path, most often): a usage error, before anything is
 * loaded. */
static int not_a_name(const char *arg)
{
    if (strchr(arg, '/'))
        fprintf(stderr,
                "scal plugins: '%s' is a path; plugins are named, never loaded from a path: put "
                "the directory holding libscal_NAME.so in SCAL_PLUGIN_PATH (an absolute "
                "directory owned by you or root and writable by nobody else, the file too) and "
                "give NAME\n",
                arg);
    else
        fprintf(stderr,
                "scal plugins: '%s' is not a plugin name (letters, digits, '_' and '-', at most "
                "48); see 'scal plugins --help'\n",
                arg);
    return 2;
}

/* --json: the whole listing as one object on standard output. */
static void print_json(struct listing *l, const char *dirs, json_t *missing)
{
    json_t *d = json_array();
    for (const char *s = dirs; s && *s;) {
        const char *end = strchr(s, ':');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        if (n) json_array_append_new(d, json_stringn(s, n));
        s += n + (end != NULL);
    }
    json_t *o = json_pack("{s:o,s:O,s:O,s:O}", "directories", d, "plugins", l->plugins, "broken",
                          l->broken_list, "not_found", missing);
    json_dumpf(o, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
    json_decref(o);
}

int scal_cmd_plugins(int argc, char **argv)
{
    struct listing l = {0};
    int named = 0, missing = 0;
    json_t *not_found = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--json") && !l.plugins) {
            l.plugins = json_array(), l.broken_list = json_array(), not_found = json_array();
            continue;
        }
        if (!strcmp(argv[i], "--kind") && i + 1 < argc) {
            l.kind = argv[++i];
            if (strcmp(l.kind, "sensor") && strcmp(l.kind, "actuator") &&
                strcmp(l.kind, "postproc")) {
                fprintf(stderr, "scal plugins: unknown kind '%s' (sensor, actuator or postproc)\n",
                        l.kind);
                return 2;
            }
            continue;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "scal plugins: unknown option '%s'; see 'scal plugins --help'\n",
                    argv[i]);
            return 2;
        }
        if (!scal_plugin_name_ok(argv[i])) {
            json_decref(l.plugins), json_decref(l.broken_list), json_decref(not_found);
            return not_a_name(argv[i]);
        }
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            i += !strcmp(argv[i], "--kind");
            continue;
        }
        named++;
        struct scal_loaded_plugin p;
        char why[SCAL_PLUGIN_WHY_MAX];
        if (scal_plugin_load(argv[i], 0, NULL, 0, &p, why, sizeof(why)) < 0) {
            fprintf(stderr, "scal plugins: %s\n", why);
            if (not_found)
                json_array_append_new(not_found,
                                      json_pack("{s:s,s:s}", "name", argv[i], "why", why));
            missing++;
            continue;
        }
        show(&l, &p);
        scal_plugin_unload(&p);
    }
    char dirs[8192];
    scal_plugin_search_path(dirs, sizeof(dirs), NULL);
    if (!named) {
        if (!l.plugins) printf("plugin directories: %s\n\n", dirs[0] ? dirs : "(none found)");
        scal_plugin_foreach_file(NULL, list_one, &l);
        if (!l.plugins)
            printf("\n%u plugins, %u unavailable here, %u broken\n", l.shown, l.unavailable,
                   l.broken);
    }
    if (l.plugins) print_json(&l, dirs, not_found);
    json_decref(l.plugins);
    json_decref(l.broken_list);
    json_decref(not_found);
    return missing ? 1 : 0;
}
