// SPDX-License-Identifier: BSD-3-Clause
// scal-run-writer SNAPSHOT...: writes the HDF5 run file each run snapshot describes, then removes
// the snapshot; by hand it writes the run file of a snapshot a killed writer left behind.
//
// scal-run-writer --serve: the writer process of a direct run (ompt_tool/record/writer_link.h),
// started by the tool when the program starts (an orphan from the start: a middle process that
// started it has ended; with --fork, in ThreadSanitizer builds, its first process forks it and
// ends), with stdin a socket to the measured process and every signal blocked. It loads HDF5 and
// makes the empty file while the program runs, then waits for one request; on EOF (the program
// ended without a flush, or was killed) it exits without writing anything.
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <unistd.h>

#include <hdf5.h>

#include "errmsg.h"
#ifdef SCAL_WRITER_RESOLVES
#include "resolve_serve.h"
#endif
#include "h5util.h"
#include "run_snapshot_h5.h"
#include "scal/status.h"
#include "writer_link.h"

static void answer_n(const char *line, size_t n)
{
    while (n) {
        ssize_t w = send(0, line, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return; /* the program is gone: the file is written all the same */
        line += w;
        n -= (size_t)w;
    }
}

static void answer(const char *line)
{
    answer_n(line, strlen(line));
}

/* Reads from the socket (stdin), keeping a descriptor that came along (the snapshot in memory:
 * the first one only; any other is closed). */
static ssize_t receive(char *buf, size_t len, int *fd)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct iovec iov = {buf, len};
    struct msghdr mh = {.msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = control.buf,
                        .msg_controllen = sizeof(control.buf)};
    ssize_t got = recvmsg(0, &mh, MSG_CMSG_CLOEXEC);
    for (struct cmsghdr *c = got >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int one;
            memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (*fd < 0)
                *fd = one;
            else
                close(one);
        }
    }
    return got;
}

/* A resolution request (writer_link.h): answered "ok resolved" with the answers in its memfd, or
 * "error" when this writer cannot (built without libdw, or unable to read a module's code). */
static void resolve(int fd)
{
    char reply[1200];
#ifdef SCAL_WRITER_RESOLVES
    int rc = scal_resolve_serve(fd);
#else
    (void)fd;
    int rc = scal__fail(SCAL_EUNAVAIL, "this run-file writer was built without libdw");
#endif
    if (rc == SCAL_OK)
        snprintf(reply, sizeof(reply), "ok resolved\n");
    else
        snprintf(reply, sizeof(reply), "error %d %s\n", rc, scal__last_error(rc));
    answer(reply);
}

static int serve(bool fork_first)
{
    char req[8192], final[4300], reply[8192];
    size_t n = 0;
    sigset_t none;
    /* what the program ignored stays ignored across the exec: these are ours again */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL); /* blocked by the tool from its clone to our exec */
    if (fork_first) {
        pid_t pid = fork();
        if (pid != 0) _exit(pid < 0 ? 1 : 0); /* the tool reaps this one; without a fork: give up */
    }
    scal_h5_quiet();
    /* the library's start-up and the empty file, while the program runs */
    hid_t file = scal_snap_memory_file();
    int snap_fd = -1;
    char *nl = NULL;
    for (;;) {
        while (n + 1 < sizeof(req)) {
            ssize_t got = receive(req + n, sizeof(req) - 1 - n, &snap_fd);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) _exit(0); /* no request: nothing to write */
            n += (size_t)got;
            if (memchr(req, '\n', n)) break;
        }
        req[n] = '\0';
        nl = strchr(req, '\n');
        if (!nl || strncmp(req, "resolve-fd\n", 11) != 0 || snap_fd < 0) break;
        resolve(snap_fd); /* the regions the identity cache missed, before the snapshot */
        close(snap_fd);
        snap_fd = -1;
        n -= 11;
        memmove(req, req + 11, n);
    }
    unsigned flags = 0;
    int used = 0;
    bool in_memory = nl && snap_fd >= 0 && sscanf(req, "convert-fd %u%n", &flags, &used) == 1;
    if (!nl || (!in_memory && (sscanf(req, "convert %u %n", &flags, &used) != 1 || used <= 0))) {
        answer("error -1 the run-file writer got a request it does not understand\n");
        return 2;
    }
    *nl = '\0';
    /* what the conversion says on stderr goes to the program's stderr, through the answer */
    int notes = memfd_create("scal-writer-notes", MFD_CLOEXEC); /* in memory: no file made */
    if (notes >= 0 && dup2(notes, 2) < 0) close(notes), notes = -1;
    int rc = in_memory ? scal_snap_convert_fd_in(file, snap_fd, "(handed over in memory)", flags,
                                                 final, sizeof(final))
                       : scal_snap_convert_in(file, req + used, flags, final, sizeof(final));
    if (notes >= 0) {
        char buf[4400];
        ssize_t got;
        fflush(stderr);
        lseek(notes, 0, SEEK_SET);
        while ((got = read(notes, buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR))
            if (got > 0) answer_n(buf, (size_t)got);
        close(notes);
    }
    if (rc == 0)
        snprintf(reply, sizeof(reply), "ok %s\n", final);
    else
        snprintf(reply, sizeof(reply), "error %d %s\n", rc, scal__last_error(rc));
    answer(reply);
    /* The file is written and closed (plain write(2)), and the program waited only for the answer:
     * HDF5's own teardown at exit would only keep a core busy while the program ends. */
    _exit(rc == 0 ? 0 : 1);
}

/* The writer lives for one file: the heap HDF5 grows is never given back in between (glibc trims
 * the top of the heap and unmaps large blocks at free, and the next allocation faults the same
 * pages in again: 35 of a one-region file's ~570 page faults here). */
static void keep_heap(void)
{
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TOP_PAD, 1 << 20);
}

int main(int argc, char **argv)
{
    keep_heap();
    /* no descriptor of the program's beyond the socket and /dev/null (the tool closes them before
     * the exec where the kernel can: close_range needs Linux 5.9 and may be refused by seccomp) */
    closefrom(3);
    if (argc >= 2 && !strcmp(argv[1], SCAL_WRITER_SERVE_ARG))
        return serve(argc == 3 && !strcmp(argv[2], SCAL_WRITER_FORK_ARG));
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: scal-run-writer SNAPSHOT...\n\n"
                "Writes the HDF5 run file that each run snapshot (.<run file>.snap.XXXXXX, left\n"
                "by libscal_ompt.so) describes, then removes the snapshot.\n");
        return argc < 2 ? 2 : 0;
    }
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        int rc = scal_snap_convert(argv[i], 0, NULL, 0);
        if (rc < 0) {
            fprintf(stderr, "scal: %s\n", scal__last_error(rc));
            failed = 1;
        }
    }
    return failed;
}
