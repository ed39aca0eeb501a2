/* SPDX-License-Identifier: BSD-3-Clause */
/* A rank that a signal ends waits, once its own data is kept, until the other ranks of its job have
 * kept theirs (bounded by SCAL_RANK_WAIT_MS), before it dies. Launchers end the grace period of
 * every rank when the first one dies: Open MPI's mpirun sends SIGTERM, sleep()s its
 * odls_base_sigkill_timeout and sends SIGKILL to all, and the SIGCHLD of the first rank to die cuts
 * that sleep short, so the slower ranks were killed while they wrote. */
#ifndef SCAL_TOOL_RANK_WAIT_H
#define SCAL_TOOL_RANK_WAIT_H

/* Waits, when this process is one of several MPI ranks (mpi_rank.h), until every other rank's run
 * file (or, under scal run, its snapshot F.snap) written since this process started exists beside
 * this rank's, or SCAL_RANK_WAIT_MS has passed. The run files' names are known when SCAL_OUTPUT
 * names a file; otherwise (default names carry each rank's process id) only the bound ends it.
 * Returns at once for a process that is not a rank of several, or with SCAL_RANK_WAIT_MS=0. */
void scal_rank_wait_for_others(void);

#endif
