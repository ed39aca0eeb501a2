// SPDX-License-Identifier: BSD-3-Clause
// `scal export FILE --format F [-o OUT]`: a run or campaign file for the tools users already have
// (Extra-P, Hatchet/Thicket, Chrome/Perfetto, spreadsheets and pandas).
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "errmsg.h"
#include "export.h"
#include "safe_create.h"
#include "scal/status.h"
#include "stdin_file.h"
#include "suggest.h"

#define EXPORT_MAX_SIZES 256

enum export_format {
    EXPORT_CSV,
    EXPORT_EXTRAP,
    EXPORT_HATCHET,
    EXPORT_THICKET,
    EXPORT_CHROME,
    EXPORT_NONE
};
static const char *const format_names[] = {"csv", "extrap", "hatchet", "thicket", "chrome", NULL};

struct export_args {
    const char *file, *output;
    enum export_format format;
    bool force;
    struct export_size sizes[EXPORT_MAX_SIZES];
    struct export_opts opts;
};

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: scal export FILE --format csv|extrap|hatchet|thicket|chrome [options]\n"
        "       (FILE '-': standard input)\n\n"
        "  csv      one row per (run, region): configuration, region identity and label,\n"
        "           statistics at full precision, sensor values; empty cells when missing\n"
        "  extrap   Extra-P JSON Lines: one measurement a line (threads and input size as\n"
        "           parameters, the region's call path; metrics time, work, barrier wait,\n"
        "           lock wait and every sensor metric) of each successful run\n"
        "  hatchet  Hatchet's literal format: the region tree per (threads, input), medians of\n"
        "           the successful repetitions (time (inc), time, count, work, waits)\n"
        "  thicket  one profile per successful run: its configuration as metadata and its\n"
        "           region tree as a Hatchet literal (python: scal.to_thicket(file))\n"
        "  chrome   Chrome/Perfetto trace events of a run file recorded with SCAL_TRACE=N:\n"
        "           a lane per thread, a region's span on the lane of every member of\n"
        "           its team, work, barrier and lock waits as spans inside it\n\n"
        "options:\n"
        "  -o, --output OUT    write OUT (created anew; default: standard output)\n"
        "      --force         replace an existing OUT\n"
        "      --size LABEL=N  the numeric size of input LABEL (Extra-P needs numbers; by\n"
        "                      default the size given at scal run --size, else the label\n"
        "                      when it is a number)\n"
        "      --all-runs      extrap/hatchet/thicket: also runs that did not succeed\n"
        "  -q, --quiet         no notes on standard error (regions left out), only errors\n");
}

static int parse_size(const char *v, struct export_args *a)
{
    const char *eq = strrchr(v, '=');
    char *end = NULL;
    if (!eq) return scal__fail(SCAL_EINVAL, "--size '%s' is not LABEL=N", v);
    double size = strtod(eq + 1, &end);
    if (end == eq + 1 || *end)
        return scal__fail(SCAL_EINVAL, "--size '%s': '%s' is not a number", v, eq + 1);
    if (eq == v) return scal__fail(SCAL_EINVAL, "--size '%s' names no input label", v);
    /* a repeated --size for one label: the last one counts, as for every other option */
    size_t k = 0;
    while (k < a->opts.nsizes && !(strlen(a->sizes[k].label) == (size_t)(eq - v) &&
                                   !strncmp(a->sizes[k].label, v, (size_t)(eq - v))))
        k++;
    if (k == EXPORT_MAX_SIZES)
        return scal__fail(SCAL_EINVAL, "more than %d --size", EXPORT_MAX_SIZES);
    if (k == a->opts.nsizes) a->opts.nsizes++;
    struct export_size *s = &a->sizes[k];
    snprintf(s->label, sizeof(s->label), "%.*s", (int)(eq - v), v);
    s->size = size;
    return SCAL_OK;
}

static int parse(int argc, char **argv, struct export_args *a)
{
    static const char *const options[] = {"--format",   "--output", "--force", "--size",
                                          "--all-runs", "--quiet",  "--help",  NULL};
    a->format = EXPORT_NONE;
    a->opts.sizes = a->sizes;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        bool value = !strcmp(o, "--format") || !strcmp(o, "-f") || !strcmp(o, "--output") ||
                     !strcmp(o, "-o") || !strcmp(o, "--size");
        if (value && i + 1 >= argc) return scal__fail(SCAL_EINVAL, "%s needs a value", o);
        if (!strcmp(o, "--format") || !strcmp(o, "-f")) {
            const char *f = argv[++i];
            for (a->format = 0; format_names[a->format] && strcmp(format_names[a->format], f);)
                a->format++;
            if (a->format == EXPORT_NONE) {
                const char *near = scal_suggest(f, format_names);
                return scal__fail(
                    SCAL_EINVAL,
                    "unknown format '%s'%s%s%s (csv, extrap, hatchet, thicket, chrome)", f,
                    near ? ": did you mean '" : "", near ? near : "", near ? "'?" : "");
            }
        } else if (!strcmp(o, "--output") || !strcmp(o, "-o")) {
            a->output = argv[++i];
            if (!*a->output) return scal__fail(SCAL_EINVAL, "%s needs a file name, not ''", o);
            if (!strcmp(a->output, "-")) a->output = NULL; /* standard output */
        } else if (!strcmp(o, "--size")) {
            int rc = parse_size(argv[++i], a);
            if (rc < 0) return rc;
        } else if (!strcmp(o, "--force")) {
            a->force = true;
        } else if (!strcmp(o, "--all-runs")) {
            a->opts.all_runs = true;
        } else if (!strcmp(o, "-q") || !strcmp(o, "--quiet")) {
            a->opts.quiet = true;
        } else if (o[0] == '-' && o[1]) {
            const char *near = scal_suggest(o, options);
            return scal__fail(SCAL_EINVAL, "unknown option '%s'%s%s%s", o,
                              near ? ": did you mean '" : "", near ? near : "", near ? "'?" : "");
        } else if (a->file) {
            return scal__fail(SCAL_EINVAL, "one FILE only ('%s' and '%s')", a->file, o);
        } else {
            a->file = o;
        }
    }
    if (!a->file) return scal__fail(SCAL_EINVAL, "no FILE given (see 'scal export --help')");
    if (a->format == EXPORT_NONE)
        return scal__fail(SCAL_EINVAL,
                          "no --format given (csv, extrap, hatchet, thicket or chrome)");
    return SCAL_OK;
}

/* Every --size names an input of the file: a typo would otherwise be ignored in silence. */
static int check_sizes(const struct export_args *a, const struct tidy *t)
{
    for (size_t k = 0; k < a->opts.nsizes; k++) {
        size_t i = 0;
        while (i < t->r.ninputs && strcmp(t->r.inputs[i], a->sizes[k].label))
            i++;
        if (i < t->r.ninputs) continue;
        const char **names = calloc(t->r.ninputs + 1, sizeof(*names));
        const char *near = NULL;
        if (names) {
            for (i = 0; i < t->r.ninputs; i++)
                names[i] = t->r.inputs[i];
            near = scal_suggest(a->sizes[k].label, names);
        }
        int rc = scal__fail(SCAL_EINVAL, "--size %s: %s has no input labelled '%s'%s%s%s",
                            a->sizes[k].label, t->r.f.path, a->sizes[k].label,
                            near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        free(names);
        return rc;
    }
    return SCAL_OK;
}

static int write_format(const struct export_args *a, const struct tidy *t, FILE *out)
{
    switch (a->format) {
    case EXPORT_CSV:
        return export_csv(t, &a->opts, out);
    case EXPORT_EXTRAP:
        return export_extrap(t, &a->opts, out);
    case EXPORT_HATCHET:
        return export_hatchet(t, &a->opts, out);
    case EXPORT_THICKET:
        return export_thicket(t, &a->opts, out);
    default:
        return export_chrome(t, out);
    }
}

/* Writes to a new file beside OUT (created exclusively, at an unpredictable name) and renames it
 * over OUT once complete: a reader never sees half an export, and a link planted at OUT's name
 * is replaced, never followed. */
static int write_file(const struct export_args *a, const struct tidy *t)
{
    struct stat st;
    if (lstat(a->output, &st) == 0 && (!a->force || !S_ISREG(st.st_mode)))
        return scal__fail(SCAL_EEXIST, "'%s' exists%s", a->output,
                          S_ISREG(st.st_mode) ? " (--force replaces it)"
                                              : " and is not a regular file");
    char tmp[PATH_MAX + 64];
    int fd = scal_safe_create_open(a->output, a->force, tmp, sizeof(tmp));
    if (fd < 0) return fd;
    FILE *out = fdopen(fd, "w");
    int rc = out ? write_format(a, t, out) : scal__fail(SCAL_EIO, "cannot write '%s'", tmp);
    if (out && fflush(out) != 0 && rc == SCAL_OK)
        rc = scal__fail(SCAL_EIO, "cannot write '%s': %s", tmp, strerror(errno));
    if (out ? fclose(out) != 0 : close(fd) != 0) {
        if (rc == SCAL_OK) rc = scal__fail(SCAL_EIO, "cannot write '%s': %s", tmp, strerror(errno));
    }
    if (rc < 0) {
        unlink(tmp);
        return rc;
    }
    return scal_safe_publish(tmp, a->output, a->force);
}

int scal_cmd_export(int argc, char **argv)
{
    struct export_args a;
    struct tidy t;
    memset(&a, 0, sizeof(a));
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    int rc = parse(argc, argv, &a);
    if (rc < 0) {
        fprintf(stderr, "scal export: %s\n", scal__last_error(rc));
        return 2;
    }
    bool usage_error = false;
    char tmp[4096] = "";
    const char *file = stdin_file(a.file, tmp, sizeof(tmp)); /* "-": standard input */
    memset(&t, 0, sizeof(t));
    rc = file ? tidy_load(file, a.format == EXPORT_CHROME ? SCAL_READ_TRACE : 0, &t) : SCAL_EIO;
    if (rc == SCAL_OK && (rc = check_sizes(&a, &t)) < 0) usage_error = true;
    if (rc == SCAL_OK) rc = a.output ? write_file(&a, &t) : write_format(&a, &t, stdout);
    if (rc < 0) fprintf(stderr, "scal export: %s\n", scal__last_error(rc));
    tidy_free(&t);
    stdin_file_done(a.file, tmp);
    return rc < 0 ? (usage_error ? 2 : 1) : 0;
}
