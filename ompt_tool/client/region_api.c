// SPDX-License-Identifier: BSD-3-Clause
// libscal: the user region API a program links; forwards to libscal_ompt.so when it is loaded.
//
// The OpenMP runtime dlopen()s the tool with RTLD_LOCAL, so the program cannot see the tool's
// symbols; instead the tool finds scal_api_attach (exported by this library, which the program
// links) with dlsym(RTLD_DEFAULT) and hands over its entry points. Without the tool, `ops` stays
// NULL and every call returns at once.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

#include "scal/scal.h"

static _Atomic(const struct scal_api_ops *) attached_ops;

int scal_api_attach(const struct scal_api_ops *ops)
{
    if (!ops || ops->version < 1 || ops->struct_size < sizeof(struct scal_api_ops))
        return SCAL_EABI;
    atomic_store_explicit(&attached_ops, ops, memory_order_release);
    return SCAL_OK;
}

void scal_api_detach(void)
{
    atomic_store_explicit(&attached_ops, NULL, memory_order_release);
}

int scal_tool_active(void)
{
    return atomic_load_explicit(&attached_ops, memory_order_acquire) != NULL;
}

/* The OpenMP runtime starts the tool lazily, at its own first use. A region opened before the
 * program's first OpenMP construct would be missed, so the first call asks the runtime (if the
 * program has one) to initialise now, through a symbol looked up at run time: libscal itself does
 * not depend on any OpenMP runtime. */
static void start_openmp_runtime_once(void)
{
    static atomic_flag tried = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&tried)) return;
    int (*get_max_threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    if (get_max_threads) (void)get_max_threads();
}

int scal_region_begin(const char *name)
{
    const struct scal_api_ops *ops = atomic_load_explicit(&attached_ops, memory_order_acquire);
    if (!name || !*name) return SCAL_EINVAL;
    if (!ops) {
        start_openmp_runtime_once();
        ops = atomic_load_explicit(&attached_ops, memory_order_acquire);
    }
    return ops ? ops->region_begin(name) : SCAL_OK;
}

int scal_region_end(const char *name)
{
    const struct scal_api_ops *ops = atomic_load_explicit(&attached_ops, memory_order_acquire);
    if (!name || !*name) return SCAL_EINVAL;
    return ops ? ops->region_end(name) : SCAL_OK;
}
