/* SPDX-License-Identifier: BSD-3-Clause */
/* A parallel region's call site read as machine code (x86-64): the runtime entry it calls and the
 * outlined body it hands over, or the function that reached the runtime through a tail call. */
#ifndef SCAL_OUTLINED_H
#define SCAL_OUTLINED_H

#include <stdbool.h>
#include <stdint.h>

enum scal_call_kind {
    SCAL_CALL_UNKNOWN,  /* not readable */
    SCAL_CALL_FORK,     /* a direct call of the runtime's fork entry (or gcc's GOMP_task*): the
                           pragma's own call site */
    SCAL_CALL_TAIL,     /* a direct call of another function, which tail-called the runtime */
    SCAL_CALL_INDIRECT, /* a call through a pointer, which tail-called the runtime */
};

struct scal_callsite_info {
    enum scal_call_kind kind;
    uint64_t outlined;    /* the outlined body's address, 0 = not found */
    uint64_t tail_caller; /* SCAL_CALL_TAIL: the function that tail-called the runtime */
    bool gomp;            /* the fork entry is gcc's (GOMP_*), served by libomp's GOMP layer */
};

/* The symbol containing an address and its start (*start), or NULL. */
typedef const char *(*scal_symbol_fn)(void *ctx, uint64_t addr, uint64_t *start);

/* Classifies the call whose return address is ra (fn_start: start of the function containing
 * it, 0 = unknown). Reads only code of loaded objects. */
struct scal_callsite_info scal_callsite_classify(uint64_t ra, uint64_t fn_start,
                                                 scal_symbol_fn symbol, void *ctx);
/* True when the code in [lo, hi) loads the address `target` (lea target(%rip) or, non-PIE,
 * mov $target): a function handing that outlined body to the runtime. */
bool scal_code_loads(uint64_t lo, uint64_t hi, uint64_t target);
/* In function fn, a tail jump to clang's __kmpc_omp_task (a task created by fn's last statement):
 * the jump's address, 0 = none. */
uint64_t scal_tail_task_jump(uint64_t fn, scal_symbol_fn symbol, void *ctx);
/* clang ".omp_outlined.*" or gcc "*._omp_fn.*". */
bool scal_outlined_name(const char *name);

#endif
