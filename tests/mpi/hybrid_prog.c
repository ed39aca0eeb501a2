// SPDX-License-Identifier: BSD-3-Clause
// A hybrid MPI + OpenMP program shaped like real ones: MPI_Init, then OpenMP regions whose counts
// depend on the rank (rank r runs region "step" 3 + r times), a reduction over the ranks, and
// MPI_Finalize. HYBRID_KILL_RANK=R makes rank R kill itself (SIGKILL, no chance to write its run
// file) once rank 0 has told it that it finished its regions: synchronised on messages, not time.
// HYBRID_TERM_ALL=1 makes every rank end by SIGTERM (raised by itself) once all have finished
// their regions (a barrier), as when a whole job is cancelled.
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static double work(int n)
{
    double sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < n; i++)
        sum += (double)i * 0.5;
    return sum;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    const char *kill_env = getenv("HYBRID_KILL_RANK");
    int kill_rank = kill_env ? atoi(kill_env) : -1;

    double local = 0;
    for (int step = 0; step < 3 + rank; step++) /* rank-dependent count: 3 + rank instances */
        local += work(n * (rank + 1));
#pragma omp parallel /* once per rank */
    {
        __asm__ volatile("" ::: "memory");
    }

    if (kill_rank > 0 && kill_rank < size) {
        int done = 1;
        if (rank == 0) MPI_Send(&done, 1, MPI_INT, kill_rank, 7, MPI_COMM_WORLD);
        if (rank == kill_rank) {
            MPI_Recv(&done, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            raise(SIGKILL);
        }
    }
    const char *term_all = getenv("HYBRID_TERM_ALL");
    if (term_all && atoi(term_all) == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        raise(SIGTERM);
    }
    double total = 0;
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("ranks %d threads %d total %.1f\n", size, omp_get_max_threads(), total);
    MPI_Finalize();
    return 0;
}
