// SPDX-License-Identifier: BSD-3-Clause
// A plugin's options: defaults from its descriptor, then SCAL_<PLUGIN>_<OPTION> from the
// environment, then "option=value" settings from the command line; values checked against types.
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plugin_loader.h"

const char *scal_plugin_option(const struct scal_options *opts, const char *name)
{
    if (!opts || !name) return NULL;
    for (size_t i = 0; i < opts->count; i++)
        if (!strcmp(opts->descs[i].name, name)) return opts->values[i];
    return NULL;
}

void scal_plugin_options_free(struct scal_options *opts)
{
    for (size_t i = 0; opts->values && i < opts->count; i++)
        free(opts->values[i]);
    free(opts->values);
    free(opts->explicit_v);
    opts->values = NULL;
    opts->explicit_v = NULL;
    opts->count = 0;
}

static bool valid_value(enum scal_option_type type, const char *v)
{
    char *end = NULL;
    errno = 0;
    switch (type) {
    case SCAL_OPT_INT:
        (void)strtoll(v, &end, 0);
        return *v && !*end && !errno;
    case SCAL_OPT_DOUBLE:
        (void)strtod(v, &end);
        return *v && !*end && !errno;
    case SCAL_OPT_BOOL: {
        static const char *const words[] = {"0", "1", "true", "false", "yes", "no", "on", "off"};
        for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
            if (!strcasecmp(v, words[i])) return true;
        return false;
    }
    default:
        return true;
    }
}

static const char *type_name(enum scal_option_type type)
{
    switch (type) {
    case SCAL_OPT_INT:
        return "an integer";
    case SCAL_OPT_DOUBLE:
        return "a number";
    case SCAL_OPT_BOOL:
        return "a boolean (1/0, true/false, yes/no, on/off)";
    case SCAL_OPT_LIST:
        return "a comma-separated list";
    default:
        return "text";
    }
}

void scal_plugin_option_env_name(char *out, size_t len, const char *plugin, const char *option)
{
    snprintf(out, len, "SCAL_%s_%s", plugin, option);
    for (char *c = out; *c; c++)
        *c = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
}

static int set_value(struct scal_options *o, size_t i, const char *v, const char *from,
                     const char *plugin, char *why, size_t whylen)
{
    if (!valid_value(o->descs[i].type, v)) {
        snprintf(why, whylen, "plugin '%s': option '%s' must be %s, not '%s' (from %s)", plugin,
                 o->descs[i].name, type_name(o->descs[i].type), v, from);
        return SCAL_EINVAL;
    }
    char *copy = strdup(v);
    if (!copy) return SCAL_ENOMEM;
    free(o->values[i]);
    o->values[i] = copy;
    return SCAL_OK;
}

static void list_options(const struct scal_options *o, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < o->count && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", o->descs[i].name);
    if (!o->count) snprintf(out, len, "none");
}

int scal_plugin_options_resolve(struct scal_loaded_plugin *p, const char *const *settings,
                                size_t nsettings, char *why, size_t whylen)
{
    struct scal_options *o = &p->options;
    const struct scal_option_desc *d = p->desc->options;
    int rc = SCAL_OK;
    o->descs = d;
    o->count = 0;
    while (d && d[o->count].name)
        o->count++;
    o->values = calloc(o->count ? o->count : 1, sizeof(*o->values));
    o->explicit_v = calloc(o->count ? o->count : 1, sizeof(*o->explicit_v));
    if (!o->values || !o->explicit_v) {
        scal_plugin_options_free(o);
        snprintf(why, whylen, "plugin '%s': out of memory for its options", p->desc->name);
        return SCAL_ENOMEM;
    }
    char env[256];
    for (size_t i = 0; i < o->count && rc == SCAL_OK; i++) {
        scal_plugin_option_env_name(env, sizeof(env), p->desc->name, d[i].name);
        const char *v = getenv(env);
        if (v) {
            rc = set_value(o, i, v, env, p->desc->name, why, whylen);
            o->explicit_v[i] = true;
        } else if (d[i].default_value)
            rc = set_value(o, i, d[i].default_value, "its default", p->desc->name, why, whylen);
    }
    for (size_t k = 0; k < nsettings && rc == SCAL_OK; k++) {
        const char *eq = strchr(settings[k], '=');
        size_t nlen = eq ? (size_t)(eq - settings[k]) : strlen(settings[k]);
        size_t i;
        for (i = 0; i < o->count; i++)
            if (strlen(d[i].name) == nlen && !strncmp(d[i].name, settings[k], nlen)) break;
        if (!eq || i == o->count) {
            char names[256];
            list_options(o, names, sizeof(names));
            snprintf(why, whylen,
                     eq ? "plugin '%s' has no option '%.*s' (its options: %s)"
                        : "plugin '%s': '%.*s' is not OPTION=VALUE (its options: %s)",
                     p->desc->name, (int)nlen, settings[k], names);
            rc = SCAL_EINVAL;
            break;
        }
        rc = set_value(o, i, eq + 1, "the command line", p->desc->name, why, whylen);
        o->explicit_v[i] = true;
    }
    if (rc < 0) scal_plugin_options_free(o);
    return rc;
}

size_t scal_plugin_settings_for(const char *const *opts, size_t nopts, const char *plugin,
                                const char **out, size_t max)
{
    size_t n = 0, plen = strlen(plugin);
    for (size_t i = 0; i < nopts && n < max; i++)
        if (!strncmp(opts[i], plugin, plen) && opts[i][plen] == '.') out[n++] = opts[i] + plen + 1;
    return n;
}
