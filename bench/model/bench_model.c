// SPDX-License-Identifier: BSD-3-Clause
// Benchmark of the model search: 300 regions of mixed laws (linear, Amdahl, log-p overhead,
// n log n, USL, saturation) with 3 % noise on a grid of thread counts x input sizes; the CPU time
// of fitting every region (search, cross-validation, bootstrap) and of 8 predictions per region.
// usage: bench_model [--regions N] [--threads T] [--sizes S] [--rounds R]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double law(int k, double n, double p)
{
    switch (k % 6) {
    case 0:
        return 2e-4 * n / p;
    case 1:
        return 1e-4 * n * (0.1 + 0.9 / p);
    case 2:
        return 1e-4 * n / p + 0.02 * log2(p);
    case 3:
        return 1e-5 * n * log2(n) / p;
    case 4:
        return 1e-4 * n * (1 + 0.05 * (p - 1) + 0.002 * p * (p - 1)) / p;
    default:
        return 1e-4 * n / fmin(p, 4);
    }
}

int main(int argc, char **argv)
{
    int regions = 300, nt = 8, ns = 4, rounds = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--regions"))
            regions = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            nt = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sizes"))
            ns = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
    }
    size_t np = (size_t)nt * ns;
    struct scal_model_point *pts = malloc(np * sizeof(*pts));
    struct scal_model *m = malloc(sizeof(*m));
    if (!pts || !m || regions <= 0 || nt <= 0 || ns <= 0 || rounds <= 0) return 2;
    unsigned seed = 1;
    double best = INFINITY, sum = 0, sink = 0;
    size_t reliable = 0;
    for (int round = 0; round < rounds; round++) {
        double t0 = cpu_now();
        reliable = 0;
        for (int r = 0; r < regions; r++) {
            for (int s = 0; s < ns; s++)
                for (int t = 0; t < nt; t++) {
                    seed = seed * 1103515245u + 12345u;
                    double u = ((double)((seed >> 8) & 0xffff) / 65535.0 - 0.5) * 2;
                    double n = 1000.0 * (1 << s), p = t + 1;
                    pts[s * nt + t] =
                        (struct scal_model_point){n, p, law(r, n, p) * (1 + 0.03 * u), 0.02};
                }
            if (scal_model_fit(pts, np, ns >= 3, m) < 0) return 1;
            reliable += m->reliable;
            for (int q = 0; q < 8; q++) {
                double v, lo, hi;
                char why[200];
                scal_model_predict(m, 16000, 8 << (q % 4), &v, &lo, &hi, why, sizeof(why));
                sink += isfinite(v) ? v : 0;
            }
        }
        double dt = cpu_now() - t0;
        best = fmin(best, dt);
        sum += dt;
    }
    printf("model search: %d regions x %d configurations (%d thread counts x %d sizes), fit + "
           "bootstrap + 8 predictions each: min %.3f s, mean %.3f s CPU over %d rounds "
           "(%.2f ms per region; %zu reliable) [%g]\n",
           regions, (int)np, nt, ns, best, sum / rounds, rounds, 1e3 * best / regions, reliable,
           sink > 0 ? 0.0 : 1.0);
    free(pts);
    free(m);
    return 0;
}
