// SPDX-License-Identifier: BSD-3-Clause
// Reads the SCAL_* environment variables into the tool's configuration, with defaults for bad
// values.
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "scal/version.h"
#include "tool.h"

/* SCAL_OUTPUT leaves this much room for the file name the writer appends to a directory. */
#define FILE_NAME_ROOM 64
/* The root, the overflow node and room for a few regions. */
#define MIN_REGIONS 16

static void note(struct scal_config *cfg, const char *fmt, ...)
{
    size_t used = strlen(cfg->messages);
    va_list ap;
    if (used + 2 >= sizeof(cfg->messages)) return;
    va_start(ap, fmt);
    vsnprintf(cfg->messages + used, sizeof(cfg->messages) - used, fmt, ap);
    va_end(ap);
    used = strlen(cfg->messages);
    snprintf(cfg->messages + used, sizeof(cfg->messages) - used, "\n");
}

/* 1 true, 0 false, -1 not a boolean. */
static int parse_bool(const char *v)
{
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no",
                                                                                "off"};
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(v, yes[i])) return 1;
        if (!strcasecmp(v, no[i])) return 0;
    }
    return -1;
}

static bool env_bool(struct scal_config *cfg, const char *name, bool dflt)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    int b = parse_bool(v);
    if (b < 0) {
        note(cfg, "scal: %s='%s' is not a boolean (use 1/0, true/false, yes/no, on/off); using %s",
             name, v, dflt ? "1" : "0");
        return dflt;
    }
    return b;
}

static uint32_t env_count(struct scal_config *cfg, const char *name, uint32_t dflt, uint32_t lo,
                          uint32_t hi)
{
    const char *v = getenv(name);
    char *end = NULL;
    if (!v || !*v) return dflt;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || *end || v[0] == '-' || n < lo || n > hi) {
        note(cfg, "scal: %s='%s' is not a whole number from %u to %u; using %u", name, v, lo, hi,
             dflt);
        return dflt;
    }
    return (uint32_t)n;
}

static void load_output(struct scal_config *cfg)
{
    const char *v = getenv("SCAL_OUTPUT");
    struct stat st;
    if (!v || !*v) return;
    if (strlen(v) >= sizeof(cfg->output) - FILE_NAME_ROOM) {
        note(cfg,
             "scal: SCAL_OUTPUT is longer than %zu characters; writing to the current directory",
             sizeof(cfg->output) - FILE_NAME_ROOM);
        return;
    }
    snprintf(cfg->output, sizeof(cfg->output), "%s", v);
    size_t len = strlen(v);
    cfg->output_is_dir = v[len - 1] == '/' || (stat(v, &st) == 0 && S_ISDIR(st.st_mode));
    if (cfg->output_is_dir && stat(v, &st) != 0)
        note(cfg,
             "scal: SCAL_OUTPUT directory '%s' does not exist (%s); the run file will be written "
             "to the current directory instead",
             v, strerror(errno));
}

/* The user's identity cache: $XDG_CACHE_HOME (an absolute path, as its specification says) or
 * ~/.cache, then scal/identities-VERSION (a version's resolutions are never taken for another's).
 * false (and "") when neither is known. */
static bool default_identity_cache(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = -1;
    if (xdg && xdg[0] == '/')
        n = snprintf(out, len, "%s/scal/identities-%s", xdg, SCAL_VERSION_STRING);
    else if (home && home[0] == '/')
        n = snprintf(out, len, "%s/.cache/scal/identities-%s", home, SCAL_VERSION_STRING);
    if (n <= 0 || (size_t)n >= len) out[0] = '\0';
    return out[0] != '\0';
}

void scal_config_load(struct scal_config *cfg)
{
    const char *v;
    memset(cfg, 0, sizeof(*cfg));
    cfg->enabled = env_bool(cfg, "SCAL_ENABLE", true);
    cfg->max_regions =
        env_count(cfg, "SCAL_MAX_REGIONS", SCAL_DEFAULT_MAX_REGIONS, MIN_REGIONS, 1u << 20);
    cfg->max_team = env_count(cfg, "SCAL_MAX_TEAM", SCAL_DEFAULT_MAX_TEAM, 1, 1u << 16);
    cfg->max_threads = env_count(cfg, "SCAL_MAX_THREADS", SCAL_DEFAULT_MAX_THREADS, 1, 1u << 20);
    cfg->max_depth = SCAL_MAX_DEPTH;
    cfg->resolve_lines = env_bool(cfg, "SCAL_RESOLVE", true);
    v = getenv("SCAL_IDENTITY_CACHE");
    if (v)
        snprintf(cfg->identity_cache, sizeof(cfg->identity_cache), "%s", v);
    else
        cfg->identity_cache_default =
            default_identity_cache(cfg->identity_cache, sizeof(cfg->identity_cache));
    cfg->verbose = env_bool(cfg, "SCAL_VERBOSE", false);
    /* SCAL_WRITER=wait (default): the run file is complete when the process has ended;
     * detached: written after it ended, by a copy of the process (SCAL_WAIT_WRITER=0 before) */
    cfg->wait_writer = env_bool(cfg, "SCAL_WAIT_WRITER", true);
    v = getenv("SCAL_WRITER");
    if (v && *v) {
        if (!strcmp(v, "wait") || !strcmp(v, "detached"))
            cfg->wait_writer = !strcmp(v, "wait");
        else
            note(cfg, "scal: SCAL_WRITER='%s' is neither 'wait' nor 'detached'; using '%s'", v,
                 cfg->wait_writer ? "wait" : "detached");
    }
    cfg->snapshot_only = env_bool(cfg, "SCAL_SNAPSHOT_ONLY", false);
    cfg->rank_wait_ms =
        env_count(cfg, "SCAL_RANK_WAIT_MS", SCAL_DEFAULT_RANK_WAIT_MS, 0, 600000); /* rank_wait.h */
    v = getenv("SCAL_TRACE");
    if (v && *v) {
        int b = parse_bool(v);
        if (b == 0)
            cfg->trace_entries = 0;
        else if (b == 1 && strcmp(v, "1") != 0)
            cfg->trace_entries = SCAL_DEFAULT_TRACE_ENTRIES;
        else
            cfg->trace_entries = env_count(cfg, "SCAL_TRACE", 0, 1, 1u << 28);
        if (cfg->trace_entries == 1) cfg->trace_entries = SCAL_DEFAULT_TRACE_ENTRIES; /* "on" */
    }
    v = getenv("SCAL_PLUGINS");
    if (v) snprintf(cfg->plugins, sizeof(cfg->plugins), "%s", v);
    load_output(cfg);
}
