// SPDX-License-Identifier: BSD-3-Clause
// The measured program of the run-file writer tests: one parallel region, then
//   (no argument)       returns from main;
//   pause               says "ready" and waits for a signal;
//   exit                calls exit(3) inside the region (OpenMP finalize is skipped);
//   fork                a forked child runs a region of its own and ends, then the parent ends;
//   closefds            closes every descriptor above 2 and makes a socket pair of its own (it gets
//                       the lowest numbers, the tool's socket's), then returns;
//   hold                a forked child waits for the end of its stdin, the parent says "ready"
//                       and waits for a signal;
//   many N              runs N more parallel regions (a long trace under SCAL_TRACE), then returns;
//   linger GATE DONE LOG  appends "start" to LOG and leaves a child in its process group that,
//                         once a byte came through the fifo GATE, appends "child-end" to LOG and
//                         says so through the fifo DONE.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void log_line(const char *log, const char *line)
{
    FILE *f = fopen(log, "a");
    if (f) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    int n = 0;
    bool in_region_exit = argc > 1 && !strcmp(argv[1], "exit");
#pragma omp parallel
    {
#pragma omp atomic
        n++;
        if (in_region_exit) {
#pragma omp barrier
#pragma omp master
            exit(3);
#pragma omp barrier
        }
    }
    for (int k = argc > 2 && !strcmp(argv[1], "many") ? atoi(argv[2]) : 0; k > 0; k--) {
#pragma omp parallel
        {
#pragma omp atomic
            n++;
        }
    }
    if (argc > 1 && !strcmp(argv[1], "fork")) {
        pid_t child = fork();
        if (child == 0) {
#pragma omp parallel
            {
#pragma omp atomic
                n++;
            }
            _exit(0);
        }
        int status = 0;
        if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return 1;
    }
    if (argc > 1 && !strcmp(argv[1], "closefds")) {
        int sv[2];
        close_range(3, ~0u, 0);
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
    }
    if (argc > 1 && !strcmp(argv[1], "hold") && fork() == 0) {
        char c;
        while (read(0, &c, 1) > 0)
            ;
        _exit(0);
    }
    if (argc > 1 && (!strcmp(argv[1], "pause") || !strcmp(argv[1], "hold"))) {
        printf("ready\n");
        fflush(stdout);
        for (;;)
            pause();
    }
    if (argc > 4 && !strcmp(argv[1], "linger")) {
        log_line(argv[4], "start");
        fflush(NULL);
        if (fork() == 0) {
            char c = 0;
            int fd = open(argv[2], O_RDONLY);
            if (fd < 0 || read(fd, &c, 1) != 1) _exit(1);
            close(fd);
            log_line(argv[4], "child-end");
            fd = open(argv[3], O_WRONLY);
            if (fd < 0 || write(fd, &c, 1) != 1) _exit(1);
            _exit(0);
        }
    }
    return n > 0 ? 0 : 1;
}
