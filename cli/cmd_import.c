// SPDX-License-Identifier: BSD-3-Clause
// `scal import`: converts a PaScal Viewer JSON file into a scal campaign file.
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "errmsg.h"
#include "report.h"
#include "stdin_file.h"
#include "suggest.h"

/* --size LABEL=N: an input's numeric size, a number greater than 0 (as scal run --size). */
static int parse_size(const char *v, struct scal_import_size *s)
{
    const char *eq = strrchr(v, '=');
    char *end = NULL;
    if (!eq) return scal__fail(SCAL_EINVAL, "--size '%s' is not LABEL=N", v);
    if (eq == v) return scal__fail(SCAL_EINVAL, "--size '%s' names no input label", v);
    s->size = strtod(eq + 1, &end);
    if (end == eq + 1 || *end)
        return scal__fail(SCAL_EINVAL, "--size '%s': '%s' is not a number", v, eq + 1);
    if (!isfinite(s->size) || s->size <= 0)
        return scal__fail(SCAL_EINVAL,
                          "bad --size '%s': the input's size as a number greater than 0", v);
    char *label = strndup(v, (size_t)(eq - v));
    if (!label) return scal__fail(SCAL_ENOMEM, "out of memory");
    s->label = label;
    return SCAL_OK;
}

static void usage(void)
{
    printf("usage: scal import PASCAL.json -o CAMPAIGN.h5 [--size LABEL=N]... [--force]\n\n"
           "Converts a PaScal Viewer / SPERF JSON file (regions, executions per argument,\n"
           "runs with threads and time) into a campaign file for `scal report`. PASCAL.json\n"
           "given as - is read from standard input.\n\n"
           "  -o, --output FILE   the campaign file (created; an existing one is replaced only\n"
           "                      with --force)\n"
           "      --size LABEL=N  the numeric size of the input whose argument is LABEL (a\n"
           "                      number > 0; repeatable, the last one for a label counts),\n"
           "                      stored as /campaign@input_sizes for scal model and the\n"
           "                      Extra-P export (without it a numeric label is its own size)\n"
           "      --force         replace an existing CAMPAIGN.h5\n\n"
           "Exit status: 0 done, 2 a usage error or an input that is not PaScal JSON (at most\n"
           "16 MB), 1 another error.\n");
}

static int import_status(int rc)
{
    if (rc >= 0) return 0;
    fprintf(stderr, "scal import: %s\n", scal__last_error(rc));
    /* a bad input (not JSON, not PaScal's layout, no runs) or output like a usage error */
    return rc == SCAL_EFORMAT || rc == SCAL_EEMPTY || rc == SCAL_EINVAL || rc == SCAL_EEXIST ||
                   rc == SCAL_ENOENT
               ? 2
               : 1;
}

int scal_cmd_import(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"force", no_argument, NULL, 'f'},
                                             {"size", required_argument, NULL, 's'},
                                             {NULL, 0, NULL, 0}};
    const char *out = NULL;
    int c, status = -1;
    struct scal_import_size *sizes = calloc((size_t)argc, sizeof(*sizes));
    struct scal_import_opts o = {.sizes = sizes};
    if (!sizes) return import_status(scal__fail(SCAL_ENOMEM, "out of memory"));
    optind = 1;
    opterr = 0; /* one line of ours instead of getopt's */
    while (status < 0 && (c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        char near[80];
        if (c == 'o') {
            out = optarg;
        } else if (c == 'f') {
            o.force = true;
        } else if (c == 's') {
            int rc = parse_size(optarg, &sizes[o.nsizes]);
            if (rc < 0) status = import_status(rc);
            o.nsizes += rc == SCAL_OK;
        } else if (c == 'h') {
            usage();
            status = 0;
        } else if (c == ':') {
            fprintf(stderr, "scal import: option '%s' needs a value\n", argv[optind - 1]);
            status = 2;
        } else {
            const char *bad = argv[optind - 1];
            if (scal_suggest_option(bad, longopts, near, sizeof(near)))
                fprintf(stderr, "scal import: unknown option '%s'; did you mean '%s'?\n", bad,
                        near);
            else
                fprintf(stderr, "scal import: unknown option '%s' (see 'scal import --help')\n",
                        bad);
            status = 2;
        }
    }
    if (status < 0 && (optind + 1 != argc || !out || !*out || !strcmp(out, "-"))) {
        fprintf(stderr, "scal import: %s (usage: scal import PASCAL.json -o CAMPAIGN.h5)\n",
                !out || !*out        ? "no output file given"
                : optind + 1 != argc ? "one PASCAL.json file"
                                     : "-o -: a campaign is an HDF5 file, give it a name");
        status = 2;
    }
    if (status < 0) {
        const char *arg = argv[optind];
        char tmp[4096] = "";
        const char *json = stdin_file(arg, tmp, sizeof(tmp)); /* "-": standard input */
        o.name = arg; /* messages name standard input "-", as the other commands do */
        status = import_status(json ? scal_import_pascal(json, out, &o) : SCAL_EIO);
        if (json) stdin_file_done(arg, tmp);
    }
    for (size_t k = 0; k < o.nsizes; k++)
        free((char *)sizes[k].label);
    free(sizes);
    return status;
}
