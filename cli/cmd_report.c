// SPDX-License-Identifier: BSD-3-Clause
// `scal report`: matrices, findings and PaScal Viewer diagrams of one or more campaign files.
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "errmsg.h"
#include "report.h"
#include "stdin_file.h"
#include "suggest.h"

/* A mistyped or incomplete option: one line, with the closest option, exit status 2. */
static int usage_error(const char *bad, bool missing_value, const struct option *longopts)
{
    char near[80];
    if (missing_value)
        fprintf(stderr, "scal report: option '%s' needs a value (see 'scal report --help')\n", bad);
    else if (scal_suggest_option(bad, longopts, near, sizeof(near)))
        fprintf(stderr, "scal report: unknown option '%s'; did you mean '%s'?\n", bad, near);
    else
        fprintf(stderr, "scal report: unknown option '%s' (see 'scal report --help')\n", bad);
    return 2;
}

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: scal report FILE... [-o DIR] [options]\n"
        "       scal report --compare BEFORE AFTER [-o DIR] [options]\n\n"
        "Speedup/efficiency matrices, findings and scalability diagrams of campaign files\n"
        "(several are merged) or of a single run file (tables only). FILE '-': standard\n"
        "input (once; nothing is written into it, as with --no-write).\n\n"
        "  -o, --output DIR        output directory (created; default: the first file's name\n"
        "                          without .h5, plus -report; stdin-report for '-')\n"
        "  -q, --quiet             no notes on standard error (summary.txt has them), only\n"
        "                          errors\n"
        "      --only LIST         run only these plugins (comma-separated)\n"
        "      --skip LIST         do not run these plugins\n"
        "      --list              list the post-processing plugins and exit\n"
        "      --mode MODE         discrete (default), smooth or both\n"
        "      --stat STAT         median (default), mean, min or max of the repetitions\n"
        "      --top K             draw only the K regions losing most core-seconds\n"
        "                          (default: the 10 first; the page holds every region)\n"
        "      --transpose         diagrams with inputs across and thread counts up\n"
        "      --axes A            MPI campaigns: cores (default: ranks x threads across) or\n"
        "                          ranks,threads[:INPUT] (threads across, ranks up, one input)\n"
        "      --all               draw the diagrams and charts of every region\n"
        "      --at THREADS,INPUT  rank by that one cell (default: the whole matrix)\n"
        "      --min-share P       draw only regions with at least P %% of the program's time\n"
        "      --region PATTERN    draw only regions whose label matches (fnmatch; matching\n"
        "                          nothing is an error)\n"
        "      --diff-scale S      colour scale of the difference panels: shared (default,\n"
        "                          one symmetric scale for the three), fixed (+-1) or own\n"
        "      --no-write          do not write /analysis into the campaign file\n"
        "      --format LIST       diagram files: png (default), svg, pdf (comma-separated)\n"
        "      --compare           two campaigns: efficiency after - before per region,\n"
        "                          ranked by improvement (index.html with the compare\n"
        "                          view, compare.txt, compare.csv)\n"
        "      --plugin-dir DIR    search DIR for plugins first (after SCAL_PLUGIN_PATH)\n"
        "      --plugin-opt P.O=V  option O of plugin P (repeatable), e.g. diagrams.jobs=1;\n"
        "                          also SCAL_<P>_<O>=V in the environment\n");
}

static bool quiet;            /* -q: no notes (they are in summary.txt); errors still shown */
static char stdin_copy[4096]; /* "-": the private copy of standard input ("" when none) */

/* A message on standard error, naming standard input "-" as the user did. */
static void say(const char *what, const char *text)
{
    char buf[4096];
    fprintf(stderr, "scal report: %s%s\n", what,
            stdin_file_msg(text, stdin_copy, buf, sizeof(buf)));
}

static void print_note(void *arg, const char *text)
{
    if (!quiet) say("note: ", text);
}

static void print_plugin(void *arg, const struct scal_report_plugin_info *p)
{
    printf("%-10s %-8s %s\n", p->name, p->stage == SCAL_PP_ANALYSIS ? "analysis" : "output",
           p->description);
    if (p->needs && *p->needs) {
        printf("%-19s needs:", "");
        for (const char *const *s = p->needs; *s; s++)
            printf(" %s", *s);
        printf("\n");
    }
    if (p->produces && *p->produces) {
        printf("%-19s produces:", "");
        for (const char *const *s = p->produces; *s; s++)
            printf(" %s", *s);
        printf("\n");
    }
    for (const struct scal_option_desc *o = p->options; o && o->name; o++)
        printf("%-19s option %s (default %s): %s\n", "", o->name,
               o->default_value ? o->default_value : "none", o->description ? o->description : "");
    printf("%-19s %s\n", "", p->path);
}

int scal_cmd_report(int argc, char **argv)
{
    enum {
        O_ONLY = 256,
        O_SKIP,
        O_LIST,
        O_MODE,
        O_STAT,
        O_TOP,
        O_REGION,
        O_NOWRITE,
        O_PDIR,
        O_POPT,
        O_AT,
        O_MINSHARE,
        O_DIFFSCALE,
        O_COMPARE,
        O_FORMAT,
        O_ALL,
        O_TRANSPOSE,
        O_AXES
    };
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"only", required_argument, NULL, O_ONLY},
                                             {"skip", required_argument, NULL, O_SKIP},
                                             {"list", no_argument, NULL, O_LIST},
                                             {"mode", required_argument, NULL, O_MODE},
                                             {"stat", required_argument, NULL, O_STAT},
                                             {"top", required_argument, NULL, O_TOP},
                                             {"region", required_argument, NULL, O_REGION},
                                             {"no-write", no_argument, NULL, O_NOWRITE},
                                             {"plugin-dir", required_argument, NULL, O_PDIR},
                                             {"plugin-opt", required_argument, NULL, O_POPT},
                                             {"at", required_argument, NULL, O_AT},
                                             {"min-share", required_argument, NULL, O_MINSHARE},
                                             {"diff-scale", required_argument, NULL, O_DIFFSCALE},
                                             {"compare", no_argument, NULL, O_COMPARE},
                                             {"format", required_argument, NULL, O_FORMAT},
                                             {"all", no_argument, NULL, O_ALL},
                                             {"transpose", no_argument, NULL, O_TRANSPOSE},
                                             {"axes", required_argument, NULL, O_AXES},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    struct scal_report_options o = {.mode = SCAL_PP_DISCRETE, .stat = "median"};
    bool list = false, compare = false, all = false;
    const char *opts[64];
    char at_opt[300], model_at[300], scale_opt[64], format_opt[300], outbuf[4096];
    int c;
    optind = 1;
    opterr = 0; /* one line of ours instead of getopt's message and the whole usage text */
    quiet = false;
    while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o.output_dir = optarg;
            break;
        case 'q':
            quiet = true;
            break;
        case O_ONLY:
            o.only = optarg;
            break;
        case O_SKIP:
            o.skip = optarg;
            break;
        case O_LIST:
            list = true;
            break;
        case O_MODE:
            if (!strcmp(optarg, "discrete"))
                o.mode = SCAL_PP_DISCRETE;
            else if (!strcmp(optarg, "smooth"))
                o.mode = SCAL_PP_SMOOTH;
            else if (!strcmp(optarg, "both"))
                o.mode = SCAL_PP_BOTH;
            else {
                fprintf(stderr, "scal report: --mode must be discrete, smooth or both\n");
                return 2;
            }
            break;
        case O_STAT:
            if (strcmp(optarg, "median") && strcmp(optarg, "mean") && strcmp(optarg, "min") &&
                strcmp(optarg, "max")) {
                fprintf(stderr, "scal report: --stat must be median, mean, min or max\n");
                return 2;
            }
            o.stat = optarg;
            break;
        case O_TOP: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1) {
                fprintf(stderr, "scal report: --top needs a positive number\n");
                return 2;
            }
            o.top = (size_t)v;
            break;
        }
        case O_REGION:
            o.region_pattern = optarg;
            break;
        case O_NOWRITE:
            o.no_write = true;
            break;
        case O_PDIR:
            o.plugin_dir = optarg;
            break;
        case O_POPT: {
            const char *dot = strchr(optarg, '.'), *eq = strchr(optarg, '=');
            if (!dot || dot == optarg || !eq || eq < dot + 2) {
                fprintf(stderr, "scal report: bad --plugin-opt '%s': use PLUGIN.OPTION=VALUE\n",
                        optarg);
                return 2;
            }
            if (o.nplugin_opts == sizeof(opts) / sizeof(opts[0])) {
                fprintf(stderr, "scal report: too many --plugin-opt\n");
                return 2;
            }
            opts[o.nplugin_opts++] = optarg;
            o.plugin_opts = opts;
            break;
        }
        case O_AT:
            if (!strchr(optarg, ',')) {
                fprintf(stderr, "scal report: --at needs THREADS,INPUT (e.g. --at 8,large)\n");
                return 2;
            }
            snprintf(at_opt, sizeof(at_opt), "findings.at=%s", optarg);
            snprintf(model_at, sizeof(model_at), "model.at=%s", optarg); /* the models' too */
            if (o.nplugin_opts + 1 < sizeof(opts) / sizeof(opts[0]))
                opts[o.nplugin_opts++] = at_opt, opts[o.nplugin_opts++] = model_at;
            o.plugin_opts = opts;
            break;
        case O_MINSHARE: {
            char *end;
            double v = strtod(optarg, &end);
            if (*end || !(v >= 0 && v <= 100)) {
                fprintf(stderr, "scal report: --min-share needs a percentage from 0 to 100\n");
                return 2;
            }
            o.min_share = v;
            break;
        }
        case O_DIFFSCALE:
            if (strcmp(optarg, "shared") && strcmp(optarg, "fixed") && strcmp(optarg, "own")) {
                fprintf(stderr, "scal report: --diff-scale must be shared, fixed or own\n");
                return 2;
            }
            snprintf(scale_opt, sizeof(scale_opt), "diagrams.diff_scale=%s", optarg);
            if (o.nplugin_opts < sizeof(opts) / sizeof(opts[0])) opts[o.nplugin_opts++] = scale_opt;
            o.plugin_opts = opts;
            break;
        case O_COMPARE:
            compare = true;
            break;
        case O_ALL:
            all = true;
            break;
        case O_AXES:
            if (pp_axes_check(optarg) < 0) {
                fprintf(stderr, "scal report: %s\n", scal__last_error(SCAL_EINVAL));
                return 2;
            }
            o.axes = optarg;
            break;
        case O_TRANSPOSE:
            if (o.nplugin_opts < sizeof(opts) / sizeof(opts[0]))
                opts[o.nplugin_opts++] = "diagrams.transpose=1";
            o.plugin_opts = opts;
            break;
        case O_FORMAT:
            snprintf(format_opt, sizeof(format_opt), "diagrams.format=%s", optarg);
            if (o.nplugin_opts < sizeof(opts) / sizeof(opts[0]))
                opts[o.nplugin_opts++] = format_opt;
            o.plugin_opts = opts;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return usage_error(argv[optind - 1], c == ':', longopts);
        }
    }
    if (list) {
        int rc = scal_report_list(o.plugin_dir, print_plugin, NULL);
        if (rc < 0) {
            fprintf(stderr, "scal report: %s\n", scal__last_error(rc));
            return 1;
        }
        return 0;
    }
    if (optind >= argc) {
        fprintf(stderr, "scal report: no campaign or run file given (see 'scal report --help')\n");
        return 2;
    }
    stdin_copy[0] = '\0';
    int dash = -1; /* "-": standard input, copied once into a private file (cli/stdin_file.c) */
    for (int i = optind; i < argc; i++)
        if (!strcmp(argv[i], "-")) {
            if (dash >= 0) {
                fprintf(stderr, "scal report: standard input ('-') can be read only once\n");
                return 2;
            }
            dash = i;
        }
    if (!o.output_dir) { /* `scal report C.h5` writes C-report/ (the runner prints that line) */
        const char *f = dash == optind ? "stdin" : argv[optind];
        size_t n = strlen(f);
        if (n > 3 && !strcmp(f + n - 3, ".h5")) n -= 3;
        snprintf(outbuf, sizeof(outbuf), "%.*s-%s", (int)n, f, compare ? "compare" : "report");
        o.output_dir = outbuf;
    }
    o.files = (const char *const *)(argv + optind);
    o.nfiles = (size_t)(argc - optind);
    /* Diagram and chart PNGs: the whole program and the 10 first regions by rank unless the user
     * chose the regions (--all, --top, --region); index.html holds every region. */
    static const char *const unlimit[] = {"diagrams.limit=0", "charts.limit=0", "csv.limit=0"};
    for (int k = 0; k < 3 && (all || o.top || o.region_pattern); k++)
        if (o.nplugin_opts < sizeof(opts) / sizeof(opts[0])) opts[o.nplugin_opts++] = unlimit[k];
    o.plugin_opts = opts;
    if (compare && o.nfiles != 2) {
        fprintf(stderr, "scal report: --compare needs exactly two files, BEFORE and AFTER\n");
        return 2;
    }
    if (dash >= 0) {
        if (!stdin_file("-", stdin_copy, sizeof(stdin_copy))) {
            stdin_copy[0] = '\0';
            say("", scal__last_error(SCAL_EIO));
            return 1;
        }
        argv[dash] = stdin_copy;
        o.no_write = true; /* the analysis would go beside the copy, which is removed */
    }
    int rc = compare ? scal_report_compare(&o, o.files[0], o.files[1], print_note, NULL)
                     : scal_report_run(&o, print_note, NULL);
    if (rc < 0) say("", scal__last_error(rc));
    if (dash >= 0) stdin_file_done("-", stdin_copy);
    return rc < 0 ? 1 : 0;
}
