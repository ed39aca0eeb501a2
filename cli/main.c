// SPDX-License-Identifier: BSD-3-Clause
// `scal`: one executable, git-style subcommands listed in commands.def.
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "measure.h"
#include "suggest.h"
#include "scal/version.h"

struct command {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
};

static const struct command commands[] = {
#define SCAL_COMMAND(name, fn, summary) {#name, fn, summary},
#include "commands.def"
#undef SCAL_COMMAND
    {NULL, NULL, NULL},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: scal <command> [options] ...\n\n"
                 "Scalability analysis for OpenMP programs.\n\ncommands:\n");
    for (size_t i = 0; commands[i].name; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    char tool[4096];
    scal_measure_default_tool(tool, sizeof(tool));
    fprintf(out,
            "\n`scal <command> --help` describes a command's options; `scal --version` (-V), or\n"
            "`scal <command> --version`, prints the version.\n"
            "Measure one run without a campaign: scal exec ./app, or\n"
            "  OMP_TOOL_LIBRARIES=%s ./app\n",
            tool[0] ? tool : "/path/to/libscal_ompt.so");
}

/* scal --version, scal COMMAND --version: the number and the commit too (builds between releases
 * carry the same number). */
static void print_version(const char *command)
{
    printf("scal%s%s %s", command ? " " : "", command ? command : "", SCAL_VERSION_STRING);
    if (strcmp(SCAL_VERSION_COMMIT, "unknown"))
        printf(" (%s, commit %s)\n", SCAL_VERSION_DESCRIBE, SCAL_VERSION_COMMIT);
    else
        printf(" (commit unknown: built outside git without a release stamp)\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
        print_version(NULL);
        return 0;
    }
    for (size_t i = 0; commands[i].name; i++) {
        if (strcmp(argv[1], commands[i].name)) continue;
        /* `scal <command> --version` / -V, in one place for every command: only as the first
         * argument, so that a program's own -V (scal run ... -- ./app -V) is never taken */
        if (argc > 2 && (!strcmp(argv[2], "--version") || !strcmp(argv[2], "-V"))) {
            print_version(commands[i].name);
            return 0;
        }
        return commands[i].fn(argc - 1, argv + 1);
    }
    const char *names[sizeof(commands) / sizeof(commands[0])];
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        names[i] = commands[i].name;
    const char *near = scal_suggest(argv[1], names);
    if (near)
        fprintf(stderr, "scal: '%s' is not a scal command; did you mean 'scal %s'?\n", argv[1],
                near);
    else
        fprintf(stderr, "scal: '%s' is not a scal command; see 'scal --help'\n", argv[1]);
    return 2;
}
