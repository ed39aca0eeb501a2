// SPDX-License-Identifier: BSD-3-Clause
// Process facts: the command line is the one the program started with, even when the program
// blanks its options later; a child made by fork() never writes under the parent's name (it
// declines); a program exec'd by a child is measured as its own process; processes sharing one
// SCAL_OUTPUT never overwrite each other (the later one writes "<name>.<pid>.h5" and says so).
//
//   processes --blank-me|--share  parent: a region, blanks argv[1], forks a child that runs a
//                                 region and exits, forks a child that execs `processes exec`
//                                 (--blank-me: with SCAL_OUTPUT=exec-child.h5; --share: with the
//                                 parent's SCAL_OUTPUT)
//   processes exec                the exec'd program: one region
//
// The parent's file: its own command line and region; the forked child left no file, the exec'd
// one its own.
// RUN[process_facts]: %prog --blank-me
// CHECK[process_facts] /meta: command_line="*processes --blank-me"
// CHECK[process_facts] run: files=exec-child.h5 stdout="*child ran 2 threads*" stderr=
// REGION[process_facts] parent: parallel @LINE+27 count=1
// Three processes, one SCAL_OUTPUT: two files (the forked child declines; the exec'd child wrote
// while the parent ran), nothing overwritten.
// RUN[process_facts] shared: SCAL_OUTPUT=out.h5 %prog --share
// CHECK[process_facts] shared: files=out.*.h5,out.h5
// CHECK[process_facts] shared: stderr="*out.h5 was written by another process of this run*"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int region(void)
{
    int n = 0;
#pragma omp parallel reduction(+ : n)
    n += 1;
    return n;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "exec")) {
        printf("processes: exec'd child ran %d threads\n", region());
        return 0;
    }
    int n = 0;
#pragma omp parallel reduction(+ : n)
    n += 1;
    if (argc < 2) return 2;
    if (!strcmp(argv[1], "--blank-me"))
        memset(argv[1], ' ', strlen(argv[1])); /* as some benchmark suites do */
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) { /* a forked child: runs a region, exits (flushes through exit()) */
        region();
        exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    pid_t execd = fork();
    if (execd == 0) {
        if (!strncmp(argv[1], " ", 1) && strlen(argv[1]) == strlen("--blank-me"))
            setenv("SCAL_OUTPUT", "exec-child.h5", 1);
        execl("/proc/self/exe", "processes", "exec", (char *)NULL);
        _exit(127);
    }
    int status2 = 0;
    waitpid(execd, &status2, 0);
    printf("processes: %d threads, children exited %d and %d\n", n, WEXITSTATUS(status),
           WEXITSTATUS(status2));
    return WEXITSTATUS(status) || WEXITSTATUS(status2);
}
