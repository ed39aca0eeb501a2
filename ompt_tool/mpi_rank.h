/* SPDX-License-Identifier: BSD-3-Clause */
/* Which MPI rank this process is, from the launcher's environment (no MPI library involved): the
 * run file's name and /meta carry it so that the ranks of one job never overwrite each other. */
#ifndef SCAL_MPI_RANK_H
#define SCAL_MPI_RANK_H

#include <stddef.h>
#include <stdint.h>

struct scal_mpi_rank {
    int32_t rank;       /* -1: not launched as an MPI rank */
    int32_t size;       /* ranks of the job, -1 when the launcher does not say */
    const char *source; /* the variable the rank came from ("" when none), static storage */
};

/* Reads, in this order, OMPI_COMM_WORLD_RANK (Open MPI's mpirun), PMI_RANK (MPICH/Hydra, Intel
 * MPI), PMIX_RANK (PMIx launchers, srun --mpi=pmix) and SLURM_PROCID (srun; only inside a job step,
 * i.e. with SLURM_STEP_NUM_TASKS set, so that a plain program in a batch script is not a rank). A
 * value that is not a whole number is ignored. The size comes from the matching variable
 * (OMPI_COMM_WORLD_SIZE, PMI_SIZE, then SLURM_STEP_NUM_TASKS / SLURM_NTASKS). */
void scal_mpi_rank_detect(struct scal_mpi_rank *out);

/* The run file's name for a rank: "X.h5" becomes "X.rank<R>.h5" (a name without ".h5" gets
 * ".rank<R>" appended); the default name is scal-<program>-r<R>-<pid>.h5. */
void scal_mpi_rank_file_name(const char *path, int32_t rank, char *out, size_t len);

#endif
