// SPDX-License-Identifier: BSD-3-Clause
// A program for campaign tests; its behaviour comes from its input:
//   campaign_prog MS [THREADS]   two parallel regions for about MS milliseconds in all; THREADS
//                                (when given, e.g. from {threads}) sets the team size itself
//   campaign_prog fail           one region, then exit status 3
//   campaign_prog hang           one region, then sleeps until killed
//   campaign_prog ignore MS      always uses 3 threads, whatever OMP_NUM_THREADS says
//   campaign_prog wait FIFO      one region, then writes "running" into FIFO (so a test knows the
//                                run is under way) and sleeps until killed
//   campaign_prog exit1          one region, then exit status 1 (measurements were taken)
//   campaign_prog chdir          changes to / first, then one region (the run file must still
//                                land where scal run expects it)
//   campaign_prog stdin          one region, then prints "stdin: LINE" or "stdin: eof" (reading
//                                a terminal or an open pipe would block)
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void spin_ms(double ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) * 1e-6 < ms);
}

static void regions(double ms, int team)
{
#pragma omp parallel num_threads(team > 0 ? team : omp_get_max_threads()) /* FIRST */
    spin_ms(ms / 2);
#pragma omp parallel num_threads(team > 0 ? team : omp_get_max_threads()) /* SECOND */
    spin_ms(ms / 2);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: campaign_prog MS [THREADS] | fail | hang | ignore MS\n");
        return 2;
    }
    if (!strcmp(argv[1], "fail")) {
        regions(1, 0);
        fprintf(stderr, "failing on purpose\n");
        return 3;
    }
    if (!strcmp(argv[1], "hang")) {
        regions(1, 0);
        for (;;)
            pause();
    }
    if (!strcmp(argv[1], "wait") && argc > 2) {
        regions(1, 0);
        FILE *f = fopen(argv[2], "w"); /* a FIFO: blocks until the test reads it */
        if (!f) return 4;
        fputs("running\n", f);
        fclose(f);
        for (;;)
            pause();
    }
    if (!strcmp(argv[1], "exit1")) {
        regions(1, 0);
        return 1;
    }
    if (!strcmp(argv[1], "chdir")) {
        if (chdir("/") != 0) return 5;
        regions(1, 0);
        return 0;
    }
    if (!strcmp(argv[1], "stdin")) {
        char line[256];
        regions(1, 0);
        if (fgets(line, sizeof(line), stdin))
            printf("stdin: %s", line);
        else
            printf("stdin: eof\n");
        return 0;
    }
    if (!strcmp(argv[1], "ignore")) {
        regions(argc > 2 ? atof(argv[2]) : 10, 3);
        return 0;
    }
    regions(atof(argv[1]), argc > 2 ? atoi(argv[2]) : 0);
    printf("done %s\n", argv[1]);
    return 0;
}
