// SPDX-License-Identifier: BSD-3-Clause
// Building and running one launch: placeholders, environment, CPU set, fork/exec without a shell,
// output tails, timeout (SIGTERM to the process group, then SIGKILL).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"

extern char **environ;

static int set_env(struct scal_launch *api, const char *name, const char *value)
{
    struct scal_run_launch *l = (struct scal_run_launch *)api;
    size_t nlen = strlen(name);
    size_t size = nlen + strlen(value) + 2;
    char *entry = malloc(size);
    if (!entry) return SCAL_ENOMEM;
    snprintf(entry, size, "%s=%s", name, value);
    for (size_t i = 0; i < l->nenv; i++)
        if (!strncmp(l->env[i], name, nlen) && l->env[i][nlen] == '=') {
            free(l->env[i]);
            l->env[i] = entry;
            return SCAL_OK;
        }
    char **e = realloc(l->env, (l->nenv + 2) * sizeof(*e));
    if (!e) {
        free(entry);
        return SCAL_ENOMEM;
    }
    l->env = e;
    e[l->nenv++] = entry;
    e[l->nenv] = NULL;
    return SCAL_OK;
}

static int insert_args(struct scal_run_launch *l, size_t at, const char *const *args, size_t n)
{
    char **v = realloc(l->argv, (l->argc + n + 1) * sizeof(*v));
    if (!v) return SCAL_ENOMEM;
    l->argv = v;
    memmove(v + at + n, v + at, (l->argc - at + 1) * sizeof(*v));
    for (size_t k = 0; k < n; k++)
        if (!(v[at + k] = strdup(args[k]))) return SCAL_ENOMEM;
    l->argc += n;
    return SCAL_OK;
}

static int append_args(struct scal_launch *api, const char *const *args, size_t n)
{
    struct scal_run_launch *l = (struct scal_run_launch *)api;
    return insert_args(l, l->argc, args, n);
}

/* An argument that is exactly "{name}" becomes the value's words (split on blanks, no shell, so
 * "-i '1000 2000'" gives two arguments); inside a longer argument the text is replaced. */
static int set_placeholder(struct scal_launch *api, const char *name, const char *value)
{
    struct scal_run_launch *l = (struct scal_run_launch *)api;
    char ph[128];
    snprintf(ph, sizeof(ph), "{%s}", name);
    size_t plen = strlen(ph);
    for (size_t i = 1; i < l->argc; i++) {
        if (!strcmp(l->argv[i], ph)) {
            char *copy = strdup(value), *save = NULL;
            const char *words[256];
            size_t n = 0;
            if (!copy) return SCAL_ENOMEM;
            for (char *w = strtok_r(copy, " \t\n", &save); w && n < 256;
                 w = strtok_r(NULL, " \t\n", &save))
                words[n++] = w;
            free(l->argv[i]);
            memmove(l->argv + i, l->argv + i + 1, (l->argc - i) * sizeof(*l->argv));
            l->argc--;
            int rc = insert_args(l, i, words, n);
            free(copy);
            if (rc < 0) return rc;
            i += n ? n - 1 : 0;
            if (!n) i--;
            continue;
        }
        char *at;
        while ((at = strstr(l->argv[i], ph)) != NULL) {
            size_t pre = (size_t)(at - l->argv[i]);
            size_t size = strlen(l->argv[i]) - plen + strlen(value) + 1;
            char *s = malloc(size);
            if (!s) return SCAL_ENOMEM;
            snprintf(s, size, "%.*s%s%s", (int)pre, l->argv[i], value, at + plen);
            free(l->argv[i]);
            l->argv[i] = s;
        }
    }
    return SCAL_OK;
}

static int set_cpus(struct scal_launch *api, const char *cpulist)
{
    struct scal_run_launch *l = (struct scal_run_launch *)api;
    free(l->cpus);
    l->cpus = strdup(cpulist);
    return l->cpus ? SCAL_OK : SCAL_ENOMEM;
}

int scal_launch_init(struct scal_run_launch *l, char *const *program, size_t nprogram)
{
    memset(l, 0, sizeof(*l));
    l->api.struct_size = sizeof(l->api);
    l->api.set_env = set_env;
    l->api.set_placeholder = set_placeholder;
    l->api.append_args = append_args;
    l->api.set_cpus = set_cpus;
    l->argv = calloc(nprogram + 1, sizeof(*l->argv));
    size_t ne = 0;
    while (environ[ne])
        ne++;
    l->env = calloc(ne + 1, sizeof(*l->env));
    if (!l->argv || !l->env) return SCAL_ENOMEM;
    for (size_t i = 0; i < nprogram; i++)
        if (!(l->argv[l->argc++] = strdup(program[i]))) return SCAL_ENOMEM;
    for (size_t i = 0; i < ne; i++)
        if (!(l->env[l->nenv++] = strdup(environ[i]))) return SCAL_ENOMEM;
    return SCAL_OK;
}

void scal_launch_free(struct scal_run_launch *l)
{
    for (size_t i = 0; l->argv && i < l->argc; i++)
        free(l->argv[i]);
    for (size_t i = 0; l->env && i < l->nenv; i++)
        free(l->env[i]);
    free(l->argv), free(l->env), free(l->cpus);
    memset(l, 0, sizeof(*l));
}

static void append_quoted(char *out, size_t len, const char *arg)
{
    size_t used = strlen(out);
    bool plain = *arg != 0;
    for (const char *c = arg; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%", *c))
            plain = false;
    if (plain) {
        snprintf(out + used, len - used, "%s%s", used ? " " : "", arg);
        return;
    }
    used += (size_t)snprintf(out + used, len - used, "%s'", used ? " " : "");
    for (const char *c = arg; *c && used + 5 < len; c++)
        used += (size_t)(*c == '\'' ? snprintf(out + used, len - used, "'\\''")
                                    : snprintf(out + used, len - used, "%c", *c));
    if (used < len) snprintf(out + used, len - used, "'");
}

void scal_launch_command_text(const struct scal_run_launch *l, char *out, size_t len)
{
    out[0] = 0;
    for (size_t i = 0; i < l->argc; i++)
        append_quoted(out, len, l->argv[i]);
}

char *scal_launch_command_alloc(const struct scal_run_launch *l)
{
    size_t len = 1;
    for (size_t i = 0; i < l->argc; i++)
        len += 4 * strlen(l->argv[i]) + 8; /* every character quoted, quotes and a blank */
    char *out = malloc(len);
    if (out) scal_launch_command_text(l, out, len);
    return out;
}

void scal_launch_env_text(const struct scal_run_launch *l, char *out, size_t len)
{
    out[0] = 0;
    for (size_t i = 0; i < l->nenv; i++) {
        bool same = false;
        for (char **e = environ; *e && !same; e++)
            same = !strcmp(*e, l->env[i]);
        if (!same) append_quoted(out, len, l->env[i]);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void keep_tail(char *tail, const char *buf, size_t n)
{
    size_t have = strlen(tail);
    if (n >= SCAL_TAIL_BYTES - 1) {
        memcpy(tail, buf + n - (SCAL_TAIL_BYTES - 1), SCAL_TAIL_BYTES - 1);
        tail[SCAL_TAIL_BYTES - 1] = 0;
        return;
    }
    if (have + n >= SCAL_TAIL_BYTES) {
        size_t drop = have + n - (SCAL_TAIL_BYTES - 1);
        memmove(tail, tail + drop, have - drop + 1);
        have -= drop;
    }
    memcpy(tail + have, buf, n);
    tail[have + n] = 0;
}

/* A CPU list as a set (parsed before the child is started: the child only applies it). */
static void parse_cpus(const char *list, cpu_set_t *set)
{
    CPU_ZERO(set);
    char *copy = strdup(list), *save = NULL;
    for (char *item = copy ? strtok_r(copy, ",", &save) : NULL; item;
         item = strtok_r(NULL, ",", &save)) {
        int a = atoi(item), b = a;
        const char *dash = strchr(item, '-');
        if (dash) b = atoi(dash + 1);
        for (int c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET(c, set);
    }
    free(copy);
}

static void on_child(int sig)
{
    (void)sig; /* only interrupts ppoll in wait_group */
}

/* Reads what the program wrote into its stdout or stderr pipe (closing it at end of file). */
static void drain(struct pollfd *fds, struct scal_run_result *r)
{
    for (int k = 0; k < 2; k++) {
        if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buf[4096];
        ssize_t got = read(fds[k].fd, buf, sizeof(buf));
        if (got > 0)
            keep_tail(k ? r->stderr_tail : r->stdout_tail, buf, (size_t)got);
        else if (got == 0 || errno != EINTR) {
            close(fds[k].fd);
            fds[k].fd = -1;
        }
        fds[k].revents = 0;
    }
}

static bool crash_signal(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGILL || sig == SIGFPE ||
           sig == SIGSYS || sig == SIGTRAP;
}

/* Reaps what has ended of the run: the program itself (its status, its wall time), then the rest
 * of its process group, re-parented to the runner (PR_SET_CHILD_SUBREAPER): the tool's writer
 * must have finished before the run is committed and the next run starts. Another process of the
 * group that crashed (a fault or an abort) is said in the stderr tail, as the tool's own lines are
 * (the run file's writer crashing leaves no file, and the reason must not read as "the tool was not
 * loaded"). True when nobody of the group is left. */
static bool reap(pid_t pid, bool *main_done, double t0, struct scal_run_result *r)
{
    int status;
    if (!*main_done) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got != pid) return false;
        *main_done = true;
        r->wall_s = now_s() - t0;
        if (WIFEXITED(status)) r->exit_code = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) r->signal = WTERMSIG(status), r->exit_code = -1;
    }
    for (;;) {
        pid_t got = waitpid(-pid, &status, WNOHANG);
        if (got < 0) return errno != EINTR; /* ECHILD: nobody of the group is left */
        if (got == 0) return false;
        if (WIFSIGNALED(status) && crash_signal(WTERMSIG(status))) {
            char line[160];
            snprintf(line, sizeof(line),
                     "\nscal: process %d of the run (the tool's writer or a child of the program) "
                     "was killed by signal %d (%s)\n",
                     (int)got, WTERMSIG(status), strsignal(WTERMSIG(status)));
            keep_tail(r->stderr_tail, line, strlen(line));
            r->others_killed++;
        }
    }
}

/* Waits for the run by events, never by polling: SIGCHLD (unblocked only inside ppoll, so that
 * none is missed between a reap and the wait), the output pipes, and the next deadline (the
 * timeout, then the SIGKILL that follows a SIGTERM). The runner's SIGINT, SIGTERM and SIGHUP set
 * *interrupted: they too are unblocked only inside ppoll. The runner is single-threaded, so the
 * signals come to this thread. */
static void wait_group(pid_t pid, struct pollfd *fds, double timeout_s, volatile int *interrupted,
                       double t0, struct scal_run_result *r)
{
    struct sigaction chld = {.sa_handler = on_child, .sa_flags = SA_NOCLDSTOP}, old_chld;
    sigset_t wake, old_mask, wait_mask;
    sigemptyset(&wake);
    sigaddset(&wake, SIGCHLD);
    sigaddset(&wake, SIGINT);
    sigaddset(&wake, SIGTERM);
    sigaddset(&wake, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &wake, &old_mask);
    sigaction(SIGCHLD, &chld, &old_chld);
    wait_mask = old_mask;
    sigdelset(&wait_mask, SIGCHLD);
    bool main_done = false, term_sent = false;
    double deadline = timeout_s > 0 ? t0 + timeout_s : 0; /* 0: none */
    while (!reap(pid, &main_done, t0, r)) {
        double t = now_s();
        bool stop = interrupted && *interrupted;
        if (!term_sent && (stop || (deadline > 0 && t >= deadline))) {
            r->timed_out = !stop;
            kill(-pid, SIGTERM); /* the tool writes what it has on SIGTERM */
            term_sent = true;
            deadline = t + 5;
            continue;
        }
        if (term_sent && deadline > 0 && t >= deadline) {
            kill(-pid, SIGKILL);
            deadline = 0;
            continue;
        }
        struct timespec left, *limit = NULL;
        if (deadline > 0) {
            double s = deadline - t;
            left.tv_sec = (time_t)s;
            left.tv_nsec = (long)((s - (double)left.tv_sec) * 1e9);
            limit = &left;
        }
        r->wakeups++;
        if (ppoll(fds, 2, limit, &wait_mask) > 0) drain(fds, r);
    }
    sigaction(SIGCHLD, &old_chld, NULL);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
}

int scal_launch_run(struct scal_run_launch *l, double timeout_s, volatile int *interrupted,
                    struct scal_run_result *r)
{
    int out[2] = {-1, -1}, err[2] = {-1, -1}, exec_err[2] = {-1, -1};
    memset(r, 0, sizeof(*r));
    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 || pipe2(exec_err, O_CLOEXEC) < 0) {
        snprintf(r->message, sizeof(r->message), "cannot create pipes: %s", strerror(errno));
        r->launch_failed = true;
        return SCAL_EIO;
    }
    struct timeval tv;
    gettimeofday(&tv, NULL);
    r->started_unix = (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
    double t0 = now_s();
    pid_t parent = getpid();
    /* orphans of the run (the tool's writer) become our children, so that we can wait for them */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    cpu_set_t cpus;
    if (l->cpus) parse_cpus(l->cpus, &cpus);
    /* vfork: the runner's pages are neither copied nor made copy-on-write for a child that execs
     * at once (with HDF5's caches in its heap that was most of a run's cost here). The child only
     * makes system calls until exec; signals stay blocked until it has reset their handlers, so
     * none of the runner's handlers can run in it. */
    sigset_t all, old_mask;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old_mask);
    pid_t pid = vfork();
    if (pid == 0) {
        setpgid(0, 0); /* its own group: a timeout stops the program and its children */
        /* the program dies with the runner (even a SIGKILLed one): no orphan keeps running beside
         * the run --resume starts again */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        /* never the terminal: a program reading it would stop the whole campaign */
        int in = open(l->stdin_path ? l->stdin_path : "/dev/null", O_RDONLY | O_CLOEXEC);
        if (in < 0 || dup2(in, 0) < 0) {
            int e = errno;
            if (write(exec_err[1], &e, sizeof(e)) < 0) _exit(127);
            _exit(127);
        }
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        for (int sig = 1; sig < NSIG; sig++)
            sigaction(sig, &dfl, NULL); /* fails harmlessly for SIGKILL, SIGSTOP and holes */
        sigset_t none;
        sigemptyset(&none);
        dup2(out[1], 1);
        dup2(err[1], 2);
        if (l->cpus) sched_setaffinity(0, sizeof(cpus), &cpus);
        pthread_sigmask(SIG_SETMASK, &none, NULL);
        execvpe(l->argv[0], l->argv, l->env);
        int e = errno;
        if (write(exec_err[1], &e, sizeof(e)) < 0) _exit(127);
        _exit(127);
    }
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    close(out[1]), close(err[1]), close(exec_err[1]);
    if (pid < 0) {
        snprintf(r->message, sizeof(r->message), "cannot fork: %s", strerror(fork_errno));
        close(out[0]), close(err[0]), close(exec_err[0]);
        r->launch_failed = true;
        return SCAL_EIO;
    }
    setpgid(pid, pid);
    struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    wait_group(pid, fds, timeout_s, interrupted, t0, r);
    for (int k = 0; k < 2; k++) /* what is left in the pipes */
        if (fds[k].fd >= 0) {
            char buf[4096];
            ssize_t got;
            fcntl(fds[k].fd, F_SETFL, O_NONBLOCK);
            while ((got = read(fds[k].fd, buf, sizeof(buf))) > 0)
                keep_tail(k ? r->stderr_tail : r->stdout_tail, buf, (size_t)got);
            close(fds[k].fd);
        }
    int e = 0;
    if (read(exec_err[0], &e, sizeof(e)) == sizeof(e)) {
        r->launch_failed = true;
        snprintf(r->message, sizeof(r->message), "cannot start '%s': %s", l->argv[0], strerror(e));
    }
    close(exec_err[0]);
    return SCAL_OK;
}
