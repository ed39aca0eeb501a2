/* SPDX-License-Identifier: BSD-3-Clause */
/* `scal run`: runs a campaign (or resumes one) and returns the process exit status:
 * 0 every run ok, 1 some runs failed (all recorded), 2 usage or set-up error, 130 interrupted. */
#ifndef SCAL_RUNNER_H
#define SCAL_RUNNER_H

int scal_runner_main(int argc, char **argv);
/* `scal run` without Slurm options: the local executor (runner.c). */
int scal_runner_local_main(int argc, char **argv);
/* `scal merge A.h5 B.h5 ... -o C.h5` */
int scal_merge_main(int argc, char **argv);

#endif
