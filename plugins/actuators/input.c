// SPDX-License-Identifier: BSD-3-Clause
/* The input actuator: a run's input as the {input} placeholder, optionally an environment
 * variable and/or extra arguments. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_util.h"
#include "scal/plugin.h"

struct scal_actuator_state {
    char *env_name; /* option env, NULL when unset */
    bool append;    /* option append */
    char *value;    /* the last applied value, NULL before the first apply */
};

static int input_init(const struct scal_plugin_env *env, scal_actuator_state **state, char *why,
                      size_t whylen)
{
    scal_actuator_state *s = calloc(1, sizeof(*s));
    const char *name = scal__option(env, "env");
    if (!s) goto nomem;
    if (name && name[0] != '\0') {
        s->env_name = strdup(name);
        if (!s->env_name) goto nomem;
    }
    s->append = scal__truthy(scal__option(env, "append"));
    *state = s;
    return SCAL_OK;
nomem:
    if (s) free(s->env_name);
    free(s);
    return scal__why(why, whylen, SCAL_ENOMEM, "input: out of memory");
}

/* Appends the value's whitespace-separated words as arguments. */
static int append_words(const char *value, struct scal_launch *launch, char *why, size_t whylen)
{
    char *copy = strdup(value);
    const char **words = calloc(strlen(value) / 2 + 1, sizeof(*words));
    size_t n = 0;
    int rc = SCAL_OK;
    if (!copy || !words) {
        rc = scal__why(why, whylen, SCAL_ENOMEM, "input: out of memory");
        goto out;
    }
    for (char *p = copy; *p;) {
        while (*p && isspace((unsigned char)*p))
            *p++ = '\0';
        if (!*p) break;
        words[n++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
    if (n > 0) {
        rc = launch->append_args(launch, words, n);
        if (rc != SCAL_OK)
            rc = scal__why(why, whylen, rc, "input: cannot append the arguments '%s'", value);
    }
out:
    free(words);
    free(copy);
    return rc;
}

static int input_apply(scal_actuator_state *state, const char *value, struct scal_launch *launch,
                       char *why, size_t whylen)
{
    const char *v = value ? value : "";
    if (!launch)
        return scal__why(why, whylen, SCAL_EINVAL, "input: needs a launch to set the input '%s'",
                         v);
    int rc = launch->set_placeholder(launch, "input", v);
    if (rc != SCAL_OK)
        return scal__why(why, whylen, rc, "input: cannot set placeholder {input}='%s'", v);
    if (state->env_name) {
        rc = launch->set_env(launch, state->env_name, v);
        if (rc != SCAL_OK)
            return scal__why(why, whylen, rc, "input: cannot set %s='%s'", state->env_name, v);
    }
    if (state->append) {
        rc = append_words(v, launch, why, whylen);
        if (rc != SCAL_OK) return rc;
    }
    char *copy = strdup(v);
    if (!copy) return scal__why(why, whylen, SCAL_ENOMEM, "input: out of memory");
    free(state->value);
    state->value = copy;
    return SCAL_OK;
}

static int input_observe(scal_actuator_state *state, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", state->value ? state->value : "");
    return SCAL_OK;
}

static void input_fini(scal_actuator_state *state)
{
    if (!state) return;
    free(state->env_name);
    free(state->value);
    free(state);
}

static const struct scal_actuator_ops input_ops = {
    .struct_size = sizeof(struct scal_actuator_ops),
    .init = input_init,
    .apply = input_apply, /* changes only the launch: test, save and restore are the host's */
    .observe = input_observe,
    .fini = input_fini,
};

static const struct scal_option_desc input_options[] = {
    {"env", SCAL_OPT_STRING, NULL, "also pass the input in this environment variable"},
    {"append", SCAL_OPT_BOOL, "false",
     "append the input's words as arguments (programs without an {input} placeholder)"},
    {0},
};

static const struct scal_plugin_desc input_desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(struct scal_plugin_desc),
    .name = "input",
    .version = "1",
    .kind = SCAL_PLUGIN_ACTUATOR,
    .description = "Program input: sets the {input} placeholder, optionally an environment "
                   "variable or extra arguments",
    .options = input_options,
    .actuator = &input_ops,
};

SCAL_PLUGIN_DEFINE(input_desc)
