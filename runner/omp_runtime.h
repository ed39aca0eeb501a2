/* SPDX-License-Identifier: BSD-3-Clause */
/* Which OpenMP runtime a program uses, read from its ELF file, and how to measure it: libomp
 * directly; libgomp (no OMPT) by preloading libomp, whose GOMP compatibility layer takes over. */
#ifndef SCAL_OMP_RUNTIME_H
#define SCAL_OMP_RUNTIME_H

#include <stddef.h>

enum scal_omp_kind {
    SCAL_OMP_LIBOMP = 1,  /* LLVM libomp / Intel libiomp5: OMPT, measured as is */
    SCAL_OMP_LIBGOMP = 2, /* GCC's runtime: measured through libomp (LD_PRELOAD) */
    SCAL_OMP_STATIC = 3,  /* OpenMP runtime linked statically: cannot be measured */
    SCAL_OMP_NONE = 4,    /* no OpenMP in the program itself (maybe in a library it loads) */
};

/* Resolves program (PATH search when it has no '/') into path and classifies it. A missing or
 * unreadable program, or one that is not an ELF executable, is an error with the reason recorded
 * by scal__fail. */
int scal_omp_inspect(const char *program, char *path, size_t pathlen, enum scal_omp_kind *kind);

/* The libomp shared object to preload for libgomp programs: $SCAL_LIBOMP, or the first found of
 * the usual install locations. SCAL_ENOENT (scal__fail says what to install) when none is. */
int scal_omp_find_libomp(char *path, size_t len);

#endif
