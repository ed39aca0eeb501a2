// SPDX-License-Identifier: BSD-3-Clause
// `scal import`: converts a PaScal Viewer JSON file into a scal campaign file.
#include <getopt.h>
#include <stdio.h>

#include "commands.h"
#include "errmsg.h"
#include "suggest.h"
#include "report.h"

int scal_cmd_import(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"force", no_argument, NULL, 'f'},
                                             {NULL, 0, NULL, 0}};
    const char *out = NULL;
    int c, force = 0;
    optind = 1;
    opterr = 0; /* one line of ours instead of getopt's */
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        char near[80];
        if (c == 'o') {
            out = optarg;
        } else if (c == 'f') {
            force = 1;
        } else if (c == 'h') {
            printf("usage: scal import PASCAL.json -o CAMPAIGN.h5 [--force]\n\n"
                   "Converts a PaScal Viewer / SPERF JSON file (regions, executions per argument,\n"
                   "runs with threads and time) into a campaign file for `scal report`. An\n"
                   "existing CAMPAIGN.h5 is replaced only with --force. Exit status: 0 done, 2 a "
                   "usage\n"
                   "error or an input that is not PaScal JSON (at most 16 MB), 1 another error.\n");
            return 0;
        } else if (c == ':') {
            fprintf(stderr, "scal import: option '%s' needs a value\n", argv[optind - 1]);
            return 2;
        } else {
            const char *bad = argv[optind - 1];
            if (scal_suggest_option(bad, longopts, near, sizeof(near)))
                fprintf(stderr, "scal import: unknown option '%s'; did you mean '%s'?\n", bad,
                        near);
            else
                fprintf(stderr, "scal import: unknown option '%s' (see 'scal import --help')\n",
                        bad);
            return 2;
        }
    }
    if (optind + 1 != argc || !out) {
        fprintf(stderr, "scal import: %s (usage: scal import PASCAL.json -o CAMPAIGN.h5)\n",
                !out ? "no output file given" : "one PASCAL.json file");
        return 2;
    }
    int rc = scal_import_pascal(argv[optind], out, force);
    if (rc < 0) {
        fprintf(stderr, "scal import: %s\n", scal__last_error(rc));
        /* a bad input (not JSON, not PaScal's layout, no runs) or output like a usage error */
        return rc == SCAL_EFORMAT || rc == SCAL_EEMPTY || rc == SCAL_EINVAL || rc == SCAL_EEXIST ||
                       rc == SCAL_ENOENT
                   ? 2
                   : 1;
    }
    return 0;
}
