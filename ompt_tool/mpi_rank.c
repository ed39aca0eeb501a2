// SPDX-License-Identifier: BSD-3-Clause
// MPI rank detection from the launcher's environment, and the per-rank run-file name.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_rank.h"

/* A non-negative whole number below 2^31, else -1. */
static int32_t env_index(const char *name)
{
    const char *v = getenv(name);
    char *end = NULL;
    if (!v || !*v || *v == '-' || *v == '+') return -1;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n < 0 || n > INT32_MAX) return -1;
    return (int32_t)n;
}

void scal_mpi_rank_detect(struct scal_mpi_rank *out)
{
    static const struct {
        const char *rank, *size, *requires;
    } sources[] = {
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL},
        {"PMI_RANK", "PMI_SIZE", NULL},
        {"PMIX_RANK", NULL, NULL},
        {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_STEP_NUM_TASKS"},
    };
    out->rank = out->size = -1;
    out->source = "";
    for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
        int32_t rank = env_index(sources[i].rank);
        if (rank < 0 || (sources[i].requires && env_index(sources[i].requires) < 1)) continue;
        int32_t size = sources[i].size ? env_index(sources[i].size) : -1;
        if (size < 1) size = env_index("SLURM_STEP_NUM_TASKS");
        if (size < 1) size = env_index("SLURM_NTASKS");
        out->rank = rank;
        out->size = size >= 1 && size > rank ? size : -1;
        out->source = sources[i].rank;
        return;
    }
}

void scal_mpi_rank_file_name(const char *path, int32_t rank, char *out, size_t len)
{
    size_t n = strlen(path);
    if (n > 3 && !strcmp(path + n - 3, ".h5"))
        snprintf(out, len, "%.*s.rank%d.h5", (int)(n - 3), path, (int)rank);
    else
        snprintf(out, len, "%s.rank%d", path, (int)rank);
}
