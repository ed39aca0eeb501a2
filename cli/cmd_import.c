// SPDX-License-Identifier: BSD-3-Clause
// `scal import`: converts a PaScal Viewer JSON file into a scal campaign file.
#include <getopt.h>
#include <stdio.h>

#include "commands.h"
#include "errmsg.h"
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
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        if (c == 'o')
            out = optarg;
        else if (c == 'f')
            force = 1;
        else {
            fprintf(
                c == 'h' ? stdout : stderr,
                "usage: scal import PASCAL.json -o CAMPAIGN.h5 [--force]\n\n"
                "Converts a PaScal Viewer / SPERF JSON file (regions, executions per argument,\n"
                "runs with threads and time) into a campaign file for `scal report`. An existing\n"
                "CAMPAIGN.h5 is replaced only with --force.\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (optind + 1 != argc || !out) {
        fprintf(stderr, "usage: scal import PASCAL.json -o CAMPAIGN.h5\n");
        return 2;
    }
    int rc = scal_import_pascal(argv[optind], out, force);
    if (rc < 0) {
        fprintf(stderr, "scal import: %s\n", scal__last_error(rc));
        return 1;
    }
    return 0;
}
