// SPDX-License-Identifier: BSD-3-Clause
// The writer process of a direct run (writer_link.h). It is started as posix_spawn starts a program
// (clones that share this process's memory, with this thread suspended until the exec: no copy of
// the program's memory, safe after MPI_Init), but through a middle process that starts the writer
// and ends at once: the writer is an orphan (its parent is init, or the nearest subreaper), never a
// child the program could reap, wait for or be told about. The middle process itself has no exit
// signal (a "clone" child: the program's wait()/waitpid(-1) never report it, only __WCLONE/__WALL
// do, and its end sends the program no SIGCHLD), and never execs (an exec would make its exit
// signal SIGCHLD again); it is reaped here the moment the writer has exec'd. The program's start
// waits for that exec only. The writer runs in a session of its own (the terminal's ^C and a
// runner's process-group waits are the program's), with stdin a socket to this process and
// stdout/stderr /dev/null (a pipe reading the program's output never waits for it). The socket is
// close-on-exec here and closed in forked children, so only this process holds it: when it dies
// without handing anything over (SIGKILL), the writer reads EOF and exits without writing.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scal/status.h"
#include "run_snapshot.h"
#include "tool.h"
#include "writer_link.h"
#include "writer_program.h"

static int link_fd = -1;
static dev_t link_dev;
static ino_t link_ino;

/* ThreadSanitizer intercepts clone() and fails on a child sharing the memory: its builds start the
 * writer with posix_spawn, whose first process forks the writer proper and exits at once (reaped
 * here, before the program can see it). */
#if defined(__SANITIZE_THREAD__)
#define SCAL_SPAWN_WITH_POSIX_SPAWN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SCAL_SPAWN_WITH_POSIX_SPAWN 1
#endif
#endif

#ifdef SCAL_SPAWN_WITH_POSIX_SPAWN
static pid_t spawn_writer(const char *prog, int fd)
{
    char *argv[] = {(char *)prog, SCAL_WRITER_SERVE_ARG, SCAL_WRITER_FORK_ARG, NULL};
    char **env = scal_writer_environment();
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t all;
    pid_t pid = -1;
    if (!env) return -1;
    sigfillset(&all); /* as the clones below leave them: the writer unblocks them */
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK);
    if (posix_spawn(&pid, prog, &fa, &attr, argv, env) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    free(env);
    if (pid > 0) /* its first process only forks the writer proper and exits */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    return pid;
}
#else
struct spawn_args {
    const char *prog;
    char **argv, **env;
    int fd;
    void *writer_stack; /* its top */
};

/* The writer, between its clone and its exec, and the middle process: both share this process's
 * memory (this thread waits), so they make raw system calls only (no sanitizer interceptor, no
 * lock; the errno they may set is this thread's, restored after), with every signal blocked (a
 * handler of the program's must never run there); the writer unblocks them and resets the
 * dispositions it inherits (run_writer_main.c). Nothing they do can fail the program: any failure
 * ends them, and the tool then sees EOF on the socket. */
static int writer_child(void *arg)
{
    const struct spawn_args *a = arg;
    long null;
    syscall(SYS_setsid);
    if (a->fd == 0)
        syscall(SYS_fcntl, 0, F_SETFD, 0); /* keep it across the exec */
    else
        syscall(SYS_dup3, a->fd, 0, 0);
    for (int to = 1; to <= 2; to++) {
        null = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY, 0);
        if (null >= 0 && null != to) syscall(SYS_dup3, null, to, 0), syscall(SYS_close, null);
    }
    syscall(SYS_close_range, 3u, ~0u, 0u);
    syscall(SYS_execve, a->prog, a->argv, a->env);
    syscall(SYS_exit, 127);
    return 127;
}

/* Starts the writer (an orphan as soon as this ends) and ends once it has exec'd (CLONE_VFORK). */
static int middle_child(void *arg)
{
    struct spawn_args *a = arg;
    clone(writer_child, a->writer_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, a);
    syscall(SYS_exit, 0);
    return 0;
}

static pid_t spawn_writer(const char *prog, int fd)
{
    char *argv[] = {(char *)prog, SCAL_WRITER_SERVE_ARG, NULL};
    struct spawn_args a = {prog, argv, scal_writer_environment(), fd, NULL};
    const size_t stack_size = 64 << 10; /* two: the middle process's and the writer's */
    sigset_t all, old;
    pid_t pid = -1;
    if (!a.env) return -1;
    void *stack = mmap(NULL, 2 * stack_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack != MAP_FAILED) {
        int saved_errno = errno;
        a.writer_stack = (char *)stack + 2 * stack_size;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        /* no exit signal in the flags: a clone child (see the top of this file) */
        pid = clone(middle_child, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK, &a);
        if (pid > 0) /* it has ended or is ending (CLONE_VFORK lets go at its exit) */
            while (waitpid(pid, NULL, __WCLONE) < 0 && errno == EINTR)
                ;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        munmap(stack, 2 * stack_size); /* both have exec'd or ended */
        errno = saved_errno;
    }
    free(a.env);
    return pid;
}
#endif

void scal_writer_link_start(void)
{
    const struct scal_config *cfg = &scal_tool_state.cfg;
    char prog[4300];
    int sv[2];
    struct stat st;
    if (link_fd >= 0 || !cfg->enabled || !cfg->wait_writer || cfg->snapshot_only) return;
    if (!scal_writer_program((const void *)scal_writer_link_start, prog, sizeof(prog))) return;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return;
    pid_t pid = spawn_writer(prog, sv[1]);
    close(sv[1]);
    if (pid < 0 || fstat(sv[0], &st) != 0) {
        close(sv[0]);
        return;
    }
    link_dev = st.st_dev;
    link_ino = st.st_ino;
    link_fd = sv[0];
}

void scal_writer_link_forget(void)
{
    if (link_fd >= 0) close(link_fd);
    link_fd = -1;
}

/* Whether link_fd is still the socket opened at start (a program may close descriptors it did not
 * open, and the number may name one of its own files by now). */
static bool link_is_ours(void)
{
    struct stat st;
    return link_fd >= 0 && fstat(link_fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
           st.st_dev == link_dev && st.st_ino == link_ino;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static bool send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Whether buf (n bytes) ends with the verdict line: the answer is complete (the writer's own end,
 * which closes the socket, is not waited for). */
static bool has_verdict(const char *buf, size_t n)
{
    if (n == 0 || buf[n - 1] != '\n') return false;
    size_t i = n - 1;
    while (i > 0 && buf[i - 1] != '\n')
        i--;
    return !strncmp(buf + i, "ok ", 3) || !strncmp(buf + i, "error ", 6);
}

/* The writer's answer, read within the bound up to its verdict (or EOF): its length, or -1 (error,
 * timeout: *timed_out says which). Signals that interrupt the wait do not end it. */
static ssize_t read_answer(int fd, char *buf, size_t len, int bound_ms, bool *timed_out)
{
    size_t n = 0;
    uint64_t deadline = now_ms() + (uint64_t)bound_ms;
    *timed_out = false;
    buf[0] = '\0';
    while (n + 1 < len) {
        uint64_t now = now_ms();
        if (now >= deadline) {
            *timed_out = true;
            return -1;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, (int)(deadline - now));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) continue; /* the deadline, checked above */
        ssize_t got = recv(fd, buf + n, len - 1 - n, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return -1;
        if (got == 0) break;
        n += (size_t)got;
        if (has_verdict(buf, n)) break;
    }
    buf[n] = '\0';
    return (ssize_t)n;
}

/* The answer's last line (its verdict); the lines before it are the writer's notes (another
 * process of the run wrote the file's name first, ...), said on this process's stderr. */
static char *verdict(char *answer)
{
    char *line = answer, *nl;
    while ((nl = strchr(line, '\n')) != NULL && nl[1] != '\0') {
        *nl = '\0';
        fprintf(stderr, "%s\n", line);
        line = nl + 1;
    }
    if (nl) *nl = '\0';
    return line;
}

/* The request, with the snapshot's descriptor attached when it is handed over in memory. */
static bool send_request(int fd, const char *msg, size_t n, int snap_fd)
{
    if (snap_fd < 0) return send_all(fd, msg, n);
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct iovec iov = {(void *)msg, n};
    struct msghdr mh = {.msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = control.buf,
                        .msg_controllen = sizeof(control.buf)};
    memset(control.buf, 0, sizeof(control.buf));
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &snap_fd, sizeof(int));
    ssize_t w;
    while ((w = sendmsg(fd, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    if (w <= 0) return false;
    return (size_t)w == n || send_all(fd, msg + w, n - (size_t)w); /* the descriptor went first */
}

static int hand(const char *snap, int snap_fd, unsigned flags, char *final, size_t len)
{
    char *why = final; /* an error's message takes the run file's place */
    char msg[4400], answer[8192];
    bool timed_out = false;
    if (!link_is_ours()) {
        link_fd = -1;
        return SCAL_ENOENT;
    }
    int fd = link_fd;
    link_fd = -1; /* one request per writer */
    int n = snap_fd >= 0 ? snprintf(msg, sizeof(msg), "convert-fd %u\n", flags)
                         : snprintf(msg, sizeof(msg), "convert %u %s\n", flags, snap);
    if (n <= 0 || (size_t)n >= sizeof(msg) || !send_request(fd, msg, (size_t)n, snap_fd)) {
        close(fd);
        return SCAL_ENOENT; /* the writer is gone: the caller writes another way */
    }
    ssize_t got = read_answer(fd, answer, sizeof(answer), SCAL_WRITER_REPLY_MS, &timed_out);
    close(fd);
    char *last = got >= 0 ? verdict(answer) : answer;
    if (got >= 0 && strncmp(last, "ok ", 3) != 0 && strncmp(last, "error ", 6) != 0) got = -1;
    if (got < 0 && timed_out) {
        snprintf(why, len, "the run-file writer did not answer within %d s (it goes on writing %s)",
                 SCAL_WRITER_REPLY_MS / 1000, snap_fd >= 0 ? "the run file" : snap);
        return SCAL_ETIMEDOUT;
    }
    if (got < 0) {
        /* it died with the snapshot: a file is still there unless the run file is written; one in
         * memory is still the caller's */
        struct stat st;
        if (snap_fd >= 0 ? fstat(snap_fd, &st) != 0 || st.st_size > 0 : access(snap, F_OK) == 0)
            return SCAL_ENOENT;
        /* the writer removes the snapshot file, or empties the one in memory, once the run file is
         * in place: writing it again would make a second run file */
        snprintf(why, len, "the run-file writer ended without saying whether it wrote %s",
                 snap_fd >= 0 ? "the run file" : snap);
        return SCAL_ECHILD;
    }
    if (!strncmp(last, "ok ", 3)) {
        snprintf(final, len, "%s", last + 3);
        return SCAL_OK;
    }
    int status = SCAL_EIO;
    int used = 0;
    if (sscanf(last, "error %d %n", &status, &used) == 1 && used > 0 && status < 0) {
        snprintf(why, len, "%s", last + used);
        return status;
    }
    snprintf(why, len, "the run-file writer answered '%s'", last);
    return SCAL_EIO;
}

int scal_writer_link_resolve(int request_fd)
{
    char answer[8192];
    bool timed_out = false;
    static const char msg[] = "resolve-fd\n";
    if (!link_is_ours()) return SCAL_ENOENT;
    if (!send_request(link_fd, msg, sizeof(msg) - 1, request_fd)) {
        scal_writer_link_forget();
        return SCAL_ENOENT;
    }
    ssize_t got = read_answer(link_fd, answer, sizeof(answer), SCAL_WRITER_RESOLVE_MS, &timed_out);
    char *last = got >= 0 ? verdict(answer) : answer;
    if (got > 0 && !strcmp(last, "ok resolved")) return SCAL_OK;
    int status = SCAL_EUNAVAIL;
    if (got > 0 && sscanf(last, "error %d", &status) == 1 && status < 0) return status;
    scal_writer_link_forget(); /* gone or stuck: the run file is written another way */
    return timed_out ? SCAL_ETIMEDOUT : SCAL_EUNAVAIL; /* the caller resolves by itself */
}

int scal_writer_link_hand(const char *snap, unsigned flags, char *final, size_t len)
{
    return hand(snap, -1, flags, final, len);
}

int scal_writer_link_hand_fd(int snap_fd, unsigned flags, char *final, size_t len)
{
    return hand(NULL, snap_fd, flags, final, len);
}
