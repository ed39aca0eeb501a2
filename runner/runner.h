/* SPDX-License-Identifier: BSD-3-Clause */
/* `scal run`: runs a campaign (or resumes one) and returns the process exit status:
 * 0 every run ok, 1 some runs failed (all recorded), 2 usage or set-up error, 130 interrupted. */
#ifndef SCAL_RUNNER_H
#define SCAL_RUNNER_H

#include <stddef.h>

int scal_runner_main(int argc, char **argv);
/* `scal run` without Slurm options: the local executor (runner.c). */
int scal_runner_local_main(int argc, char **argv);
/* How `scal merge` reads an input given as "-": open makes a readable private copy of standard
 * input (its path in tmp; NULL on failure with a scal__fail message), done removes it, msg names
 * the copy "-" in a message; the scal command's stdin_file, stdin_file_done and stdin_file_msg. */
struct scal_merge_stdin {
    const char *(*open)(const char *arg, char *tmp, size_t len);
    void (*done)(const char *arg, const char *tmp);
    const char *(*msg)(const char *msg, const char *tmp, char *out, size_t len);
};

/* `scal merge A.h5 B.h5 ... -o C.h5 [-q]`; piped NULL: "-" is refused */
int scal_merge_main(int argc, char **argv, const struct scal_merge_stdin *piped);

#endif
