// SPDX-License-Identifier: BSD-3-Clause
// The floor: a minimal OMPT tool that registers the callbacks scal registers and only timestamps
// each event into a small thread-local ring. What it costs is what OMPT dispatch plus a clock read
// cost; scal's added cost is compared against this one.
//
// FLOOR_SYNC=0 registers only thread_begin, parallel_begin/end and implicit_task (the issue's
// minimal floor); the default also registers sync_region, mutex_acquire/acquired, work,
// task_create and task_schedule: the same set as scal (ompt_tool/measure/callbacks.c,
// scal_callbacks_register).
#include <omp-tools.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING 4096
static _Thread_local uint64_t ring[RING];
static _Thread_local unsigned pos;

static inline void stamp(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ring[pos++ & (RING - 1)] = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_parallel_begin(ompt_data_t *e, const ompt_frame_t *f, ompt_data_t *p, unsigned r,
                              int fl, const void *c)
{
    stamp();
}
static void on_parallel_end(ompt_data_t *p, ompt_data_t *e, int fl, const void *c)
{
    stamp();
}
static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *p, ompt_data_t *t, unsigned n,
                             unsigned i, int fl)
{
    stamp();
}
static void on_sync_region(ompt_sync_region_t k, ompt_scope_endpoint_t ep, ompt_data_t *p,
                           ompt_data_t *t, const void *c)
{
    stamp();
}
static void on_mutex_acquire(ompt_mutex_t k, unsigned h, unsigned i, ompt_wait_id_t w,
                             const void *c)
{
    stamp();
}
static void on_mutex_acquired(ompt_mutex_t k, ompt_wait_id_t w, const void *c)
{
    stamp();
}
static void on_work(ompt_work_t w, ompt_scope_endpoint_t ep, ompt_data_t *p, ompt_data_t *t,
                    uint64_t n, const void *c)
{
    stamp();
}

static void on_task_create(ompt_data_t *e, const ompt_frame_t *f, ompt_data_t *n, int fl, int d,
                           const void *c)
{
    stamp();
}
static void on_task_schedule(ompt_data_t *p, ompt_task_status_t s, ompt_data_t *n)
{
    stamp();
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *d)
{
    stamp();
}

static int floor_initialize(ompt_function_lookup_t lookup, int dev, ompt_data_t *data)
{
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    const char *v = getenv("FLOOR_SYNC");
    set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
    set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
    set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
    set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
    if (!v || strcmp(v, "0") != 0) {
        set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
        set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
        set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
        set(ompt_callback_work, (ompt_callback_t)on_work);
        set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
        set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
    }
    return 1;
}

static void floor_finalize(ompt_data_t *data) {}

__attribute__((visibility("default"))) ompt_start_tool_result_t *ompt_start_tool(unsigned v,
                                                                                 const char *rt)
{
    static ompt_start_tool_result_t result = {floor_initialize, floor_finalize, {0}};
    return &result;
}
