// SPDX-License-Identifier: BSD-3-Clause
// Cost of the wall-time hooks (ompt_tool/measure/wall.c) per region instance: one scal_wall_enter
// and one scal_wall_exit, on one node by one thread (a region one thread encounters) and by two
// threads at once (a nested region both threads of a team encounter: the node's cache line moves
// between them). Prints ns per instance, the median of 7 runs of COUNT instances, for 1 and 2
// threads.
//   wall_hooks [COUNT]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "tool.h"

static long count = 2000000;

static void *loop(void *arg)
{
    uint32_t node = (uint32_t)(uintptr_t)arg;
    for (long i = 0; i < count; i++) {
        uint64_t t = (uint64_t)i * 1000;
        scal_wall_enter(node, t);
        scal_wall_exit(node, t + 500);
    }
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc > 1) count = atol(argv[1]);
    if (count <= 0 || scal_wall_init(4) != 0) return 1;
    for (int threads = 1; threads <= 2; threads++) {
        double ns[7];
        for (int r = 0; r < 7; r++) {
            pthread_t th[2];
            uint64_t t0 = scal_now_ns();
            for (int k = 0; k < threads; k++)
                pthread_create(&th[k], NULL, loop, (void *)(uintptr_t)1);
            for (int k = 0; k < threads; k++)
                pthread_join(th[k], NULL);
            ns[r] = (double)(scal_now_ns() - t0) / (double)count;
        }
        qsort(ns, 7, sizeof(ns[0]), cmp);
        printf("%d thread%s on one node: %.1f ns per instance (enter + exit)\n", threads,
               threads > 1 ? "s" : "", ns[3]);
    }
    return 0;
}
