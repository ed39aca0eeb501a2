/* SPDX-License-Identifier: BSD-3-Clause */
/* How the tool and its writer library start the writer program (writer_link.c: the writer process
 * started with the tool; writer.c: the one started for a snapshot when that one is missing).
 * Inline: the two live in different libraries. */
#ifndef SCAL_TOOL_WRITER_PROGRAM_H
#define SCAL_TOOL_WRITER_PROGRAM_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_snapshot.h"

extern char **environ;

/* The writer program beside the library holding `anchor` (one of its functions), as plugins are
 * (lib/scal/scal-run-writer). */
static inline bool scal_writer_program(const void *anchor, char *out, size_t len)
{
    Dl_info self;
    if (!dladdr(anchor, &self) || !self.dli_fname) return false;
    const char *slash = strrchr(self.dli_fname, '/');
    int n = snprintf(out, len, "%.*s%s" SCAL_SNAP_WRITER_REL,
                     slash ? (int)(slash - self.dli_fname) : 0, self.dli_fname, slash ? "/" : "");
    return n > 0 && (size_t)n < len;
}

/* The program's environment without LD_PRELOAD (the tool preloaded into the writer would start a
 * writer of its own; a preloaded runtime is the program's affair): the strings are the program's,
 * the array is to be freed. NULL when out of memory. */
static inline char **scal_writer_environment(void)
{
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    char **env = calloc(n + 1, sizeof(*env));
    if (!env) return NULL;
    n = 0;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) != 0) env[n++] = *e;
    return env;
}

#endif
