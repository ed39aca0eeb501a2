// SPDX-License-Identifier: BSD-3-Clause
// `scal exec [options] [--] PROGRAM [ARGS...]`: one measured run of a program, without a campaign.
// The tool by its absolute path, libomp for gcc-built programs, and the run file's path said at
// the end. The program's exit status is scal exec's.
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "errmsg.h"
#include "measure.h"
#include "scal/status.h"

/* Shell conventions for a program that cannot be run. */
#define EXEC_STATUS_NOT_RUNNABLE 126
#define EXEC_STATUS_NOT_FOUND 127
#define EXEC_STATUS_SIGNALED 128

struct exec_opts {
    const char *output; /* -o: FILE or DIR/ ; NULL: $SCAL_OUTPUT or the default name */
    const char *tool;   /* --tool */
    bool quiet;
    char **program; /* PROGRAM ARGS..., NULL-terminated (argv's tail) */
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: scal exec [options] [--] PROGRAM [ARGS...]\n\n"
            "Runs PROGRAM once under the scal tool and says where its run file is, once it is\n"
            "complete (each measured process waits for its run-file writer: SCAL_WAIT_WRITER=1).\n"
            "gcc-built (libgomp) programs run against LLVM's libomp, whose GOMP layer has OMPT.\n"
            "The tool is preloaded (LD_PRELOAD), into wrappers too, so that it sees the program's\n"
            "first parallel region (not in sanitized builds of scal).\n"
            "The exit status is always the program's (128+N when killed by signal N), with or\n"
            "without a run file (a program without OpenMP writes none: scal exec says so).\n"
            "Region names found in DWARF are kept for later runs of the same binary in\n"
            "~/.cache/scal (or $XDG_CACHE_HOME/scal); SCAL_IDENTITY_CACHE=DIR puts them in DIR,\n"
            "SCAL_IDENTITY_CACHE=\"\" keeps none.\n\n"
            "options:\n"
            "  -o, --output FILE|DIR/  the run file (default: $SCAL_OUTPUT, else\n"
            "                          scal-PROGRAM-PID.h5 in the current directory)\n"
            "      --tool PATH         the tool library (default: libscal_ompt.so of this scal)\n"
            "  -q, --quiet             no lines from scal exec unless something is wrong\n"
            "  -h, --help              this text\n");
}

static int parse(int argc, char **argv, struct exec_opts *o)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-') break;
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->quiet = true;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--tool")) {
            if (i + 1 >= argc) return scal__fail(SCAL_EINVAL, "%s needs a value", a);
            *(strcmp(a, "--tool") ? &o->output : &o->tool) = argv[++i];
        } else {
            return scal__fail(SCAL_EINVAL, "unknown option '%s' (see 'scal exec --help')", a);
        }
    }
    if (i >= argc) return scal__fail(SCAL_EINVAL, "no program given (see 'scal exec --help')");
    o->program = argv + i;
    return SCAL_OK;
}

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        if (argv[i][0] != '-') return false;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return true;
    }
    return false;
}

/* The absolute run-file path for the child pid: FILE as given, DIR/ plus the tool's default name,
 * or the default name in the current directory. */
static int run_file_path(const char *output, const struct scal_measure *m, pid_t pid, char *out,
                         size_t len)
{
    char cwd[PATH_MAX];
    const char *base = strrchr(m->program_path, '/');
    base = base ? base + 1 : m->program_path;
    if (!getcwd(cwd, sizeof(cwd)))
        return scal__fail(SCAL_EIO, "cannot read the current directory: %s", strerror(errno));
    const char *dir = cwd, *sep = "/";
    if (output && *output && output[strlen(output) - 1] != '/') {
        snprintf(out, len, "%s%s%s", output[0] == '/' ? "" : cwd, output[0] == '/' ? "" : "/",
                 output);
        return SCAL_OK;
    }
    if (output && *output) {
        dir = output;
        sep = "";
    }
    if (dir[0] == '/')
        snprintf(out, len, "%s%sscal-%s-%d.h5", dir, sep, base, (int)pid);
    else
        snprintf(out, len, "%s/%s%sscal-%s-%d.h5", cwd, dir, sep, base, (int)pid);
    return SCAL_OK;
}

/* The output as the tool will take it: an existing directory named without its slash is that
 * directory; the directory a run file goes to must exist before the program runs (the tool would
 * fall back to the program's working directory). */
static int resolve_output(const char *given, char *out, size_t len)
{
    char dir[PATH_MAX];
    struct stat st;
    out[0] = '\0';
    if (!given || !*given) return SCAL_OK;
    if (given[strlen(given) - 1] != '/' && stat(given, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(out, len, "%s/", given);
        return SCAL_OK;
    }
    snprintf(out, len, "%s", given);
    snprintf(dir, sizeof(dir), "%s", given);
    char *slash = strrchr(dir, '/');
    if (!slash) return SCAL_OK;
    slash[slash == dir ? 1 : 0] = '\0';
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return scal__fail(SCAL_ENOENT, "the run file's directory '%s' does not exist", dir);
    return SCAL_OK;
}

/* What is at the run file's path before the run: a file left there by an earlier run must not be
 * taken for this run's (the tool renames a new file into place: another inode). */
struct file_id {
    bool exists;
    dev_t dev;
    ino_t ino;
};

static struct file_id file_id_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return (struct file_id){false, 0, 0};
    return (struct file_id){true, st.st_dev, st.st_ino};
}

/* Says where this run's file is, or why there is none (never changing the exit status: it is the
 * program's). */
static void report_run_file(const char *file, struct file_id before, int status, bool quiet,
                            bool no_openmp)
{
    struct file_id after = file_id_of(file);
    if (after.exists && !(before.exists && before.dev == after.dev && before.ino == after.ino)) {
        if (!quiet) fprintf(stderr, "scal exec: run file: %s\n", file);
        return;
    }
    if (no_openmp) {
        fprintf(stderr,
                "scal exec: this run wrote no run file at %s%s: no OpenMP runtime started the "
                "tool (the program links none itself); the exit status is the program's\n",
                file, before.exists ? " (the file there is an earlier run's)" : "");
        return;
    }
    fprintf(stderr,
            "scal exec: this run wrote no run file at %s%s: the program %s before the OpenMP "
            "runtime started the tool, or the tool wrote elsewhere (its message, if any, is "
            "above; a program that changed directory gets scal-PROGRAM-PID.h5 there)\n",
            file, before.exists ? " (the file there is an earlier run's)" : "",
            WIFSIGNALED(status) ? "was killed" : "ended");
}

/* scal_measure_env's setter in the child about to become the program. */
static int set_own_env(void *unused, const char *name, const char *value)
{
    return setenv(name, value, 1) == 0 ? SCAL_OK : SCAL_ENOMEM;
}

/* In the child: the environment of a measured run, then the program. Never returns. */
static void exec_measured(const struct exec_opts *o, const struct scal_measure *m)
{
    char file[PATH_MAX * 2];
    if (run_file_path(o->output, m, getpid(), file, sizeof(file)) < 0 ||
        scal_measure_env(m, set_own_env, NULL) < 0 || setenv("SCAL_OUTPUT", file, 1) != 0 ||
        /* every measured process waits for its run file's writer: the file is complete when
         * scal exec names it */
        setenv("SCAL_WAIT_WRITER", "1", 1) != 0)
        _exit(EXEC_STATUS_NOT_RUNNABLE);
    execv(m->program_path, o->program);
    fprintf(stderr, "scal exec: cannot run '%s': %s\n", m->program_path, strerror(errno));
    _exit(errno == ENOENT ? EXEC_STATUS_NOT_FOUND : EXEC_STATUS_NOT_RUNNABLE);
}

int scal_cmd_exec(int argc, char **argv)
{
    struct exec_opts o = {0};
    struct scal_measure m;
    if (wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    int rc = parse(argc, argv, &o);
    if (rc < 0) {
        fprintf(stderr, "scal exec: %s\n", scal__last_error(rc));
        return 2;
    }
    char output[PATH_MAX + 1];
    if ((rc = resolve_output(o.output ? o.output : getenv("SCAL_OUTPUT"), output, sizeof(output))) <
        0) {
        fprintf(stderr, "scal exec: %s\n", scal__last_error(rc));
        return 2;
    }
    o.output = output;
    if ((rc = scal_measure_prepare(o.program[0], o.tool, &m)) < 0) {
        fprintf(stderr, "scal exec: %s\n", scal__last_error(rc));
        return rc == SCAL_ENOENT ? EXEC_STATUS_NOT_FOUND : EXEC_STATUS_NOT_RUNNABLE;
    }
    if (m.omp == SCAL_OMP_LIBGOMP && !o.quiet)
        fprintf(stderr, "scal exec: '%s' uses GCC's libgomp (no OMPT): running it against %s\n",
                m.program_path, m.libomp);
    if (m.omp == SCAL_OMP_NONE)
        fprintf(stderr,
                "scal exec: '%s' has no OpenMP runtime of its own: only regions of libraries it "
                "loads can be measured\n",
                m.program_path);
    fflush(NULL);
    /* Like system(): the terminal's ^C and ^\ are for the program; scal exec waits for it. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    /* the run file's path with the child's pid is known only after the fork: an explicit FILE
     * (the only name an earlier run can have left) is looked at now */
    char file[PATH_MAX * 2];
    struct file_id before = {false, 0, 0};
    if (o.output[0] && o.output[strlen(o.output) - 1] != '/' &&
        run_file_path(o.output, &m, 0, file, sizeof(file)) == SCAL_OK)
        before = file_id_of(file);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "scal exec: cannot start '%s': %s\n", m.program_path, strerror(errno));
        return EXEC_STATUS_NOT_RUNNABLE;
    }
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        exec_measured(&o, &m);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    int exit_status = WIFEXITED(status)     ? WEXITSTATUS(status)
                      : WIFSIGNALED(status) ? EXEC_STATUS_SIGNALED + WTERMSIG(status)
                                            : EXEC_STATUS_NOT_RUNNABLE;
    if (run_file_path(o.output, &m, pid, file, sizeof(file)) < 0) {
        fprintf(stderr, "scal exec: %s\n", scal__last_error(SCAL_EIO));
        return exit_status;
    }
    report_run_file(file, before, status, o.quiet, m.omp == SCAL_OMP_NONE);
    return exit_status;
}
