/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI launcher of `scal run --ranks`: a template such as "mpirun -np {ranks}" or
 * "srun -n {ranks} --cpus-per-task {threads}" split into words with the shell's quoting rules
 * (wordexp(3), command substitution refused, no shell run) and put in front of the program. */
#ifndef SCAL_LAUNCHER_H
#define SCAL_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>

#include "launch.h"

/* The template's words with {ranks} and {threads} replaced (*words malloc'ed, NULL-terminated;
 * free with scal_launcher_free). Errors name the template and the problem (scal__fail). */
int scal_launcher_words(const char *tmpl, int32_t ranks, int32_t threads, char ***words, size_t *n);
void scal_launcher_free(char **words, size_t n);
/* Puts the launcher's words in front of l's command line. */
int scal_launcher_prepend(struct scal_run_launch *l, const char *tmpl, int32_t ranks,
                          int32_t threads);

#endif
