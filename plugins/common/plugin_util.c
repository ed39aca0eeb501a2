// SPDX-License-Identifier: BSD-3-Clause
/* Helpers every built-in plugin shares: error details into `why`, options, the sysfs root,
 * strict number parsing. */
#include "plugin_util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int scal__why(char *why, size_t whylen, int status, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return status;
}

const char *scal__option(const struct scal_plugin_env *env, const char *name)
{
    if (!env ||
        env->struct_size < offsetof(struct scal_plugin_env, get_option) + sizeof(env->get_option) ||
        !env->get_option)
        return NULL;
    return env->get_option(env->options, name);
}

bool scal__truthy(const char *text)
{
    if (!text) return false;
    return strcmp(text, "1") == 0 || strcasecmp(text, "true") == 0 ||
           strcasecmp(text, "yes") == 0 || strcasecmp(text, "on") == 0;
}

const char *scal__sysfs_root(const struct scal_plugin_env *env)
{
    if (env &&
        env->struct_size >=
            offsetof(struct scal_plugin_env, sysfs_root) + sizeof(env->sysfs_root) &&
        env->sysfs_root && env->sysfs_root[0] != '\0')
        return env->sysfs_root;
    return "/";
}

bool scal__parse_positive(const char *text, long max, long *value)
{
    if (!text || !isdigit((unsigned char)text[0])) return false;
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end != '\0' || errno != 0 || v <= 0 || v > max) return false;
    *value = v;
    return true;
}
