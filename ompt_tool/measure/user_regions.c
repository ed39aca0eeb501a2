// SPDX-License-Identifier: BSD-3-Clause
// User-defined regions (scal_region_begin/end in libscal): nodes that nest with parallel regions.
//
// Runs on the calling application thread; same rules as the OMPT callbacks (no allocation after
// the thread's first event, no locks but the one-time node insertion, no printing).
#include <dlfcn.h>
#include <string.h>

#include "scal/scal.h"
#include "sensor_hooks.h"
#include "thread_state.h"
#include "tool.h"

/* 64-bit FNV-1a of a region name. */
#define FNV_OFFSET_BASIS 1469598103934665603ull
#define FNV_PRIME 1099511628211ull
static uint64_t name_hash(const char *s)
{
    uint64_t h = FNV_OFFSET_BASIS;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * FNV_PRIME;
    return h;
}

uint32_t scal_user_node_lookup(int32_t parent, const char *name)
{
    return scal_node_lookup(SCAL_KIND_USER, parent, name_hash(name), name, -1, -1);
}

static int user_begin(const char *name)
{
    struct scal_thread *t = scal_thread_get();
    if (!t) return SCAL_OK;
    uint64_t now = scal_now_ns();
    int32_t parent = scal_region_parent(t);
    uint64_t hash = name_hash(name);
    uint32_t node = scal_user_node_lookup(parent, name);
    scal_serial_gap_before(t, node, now);
    if (t->depth >= scal_tool_state.cfg.max_depth) {
        scal_diag_count(SCAL_DIAG_stack_overflow);
        return SCAL_ERANGE;
    }
    struct scal_frame *f = &t->frames[t->depth++];
    memset(f, 0, sizeof(*f));
    f->node = node;
    f->kind = SCAL_KIND_USER;
    f->role = SCAL_FRAME_ENCOUNTER;
    f->begin_ns = now;
    f->name_hash = hash; /* matched at the end: the node may be the overflow node */
    f->prev_member = -1;
    f->sensed = t->sensors != NULL;
    scal_wall_enter(node, now);
    if (f->sensed) scal_sensor_enter(t->sensors, scal_frame_level(t, f), 1);
    return SCAL_OK;
}

static int user_end(const char *name)
{
    struct scal_thread *t = scal_thread_get();
    if (!t) return SCAL_OK;
    uint64_t now = scal_now_ns();
    struct scal_frame *f = t->depth ? &t->frames[t->depth - 1] : NULL;
    if (!f || f->kind != SCAL_KIND_USER || f->name_hash != name_hash(name)) {
        scal_diag_count(SCAL_DIAG_user_region_mismatch);
        return SCAL_EINVAL;
    }
    struct scal_node_stats *row = scal_thread_row(t, f->node);
    scal_stats_add_time(row, now - f->begin_ns);
    scal_stats_add_team(row, 1, 1); /* a user region runs on one thread */
    scal_wall_exit(f->node, now);
    if (t->trace) scal_trace_instance(t, f->node, f->begin_ns, now);
    if (f->sensed) scal_sensor_exit(t->sensors, scal_frame_level(t, f), f->node, 0, 1);
    t->depth--;
    scal_child_ended(t, f->node, now);
    return SCAL_OK;
}

static const struct scal_api_ops ops = {
    .version = SCAL_API_VERSION,
    .struct_size = sizeof(struct scal_api_ops),
    .region_begin = user_begin,
    .region_end = user_end,
};

/* libscal is linked by the program, so its symbols are global: find them without linking it. */
void scal_user_regions_attach(void)
{
    int (*attach)(const struct scal_api_ops *) =
        (int (*)(const struct scal_api_ops *))dlsym(RTLD_DEFAULT, "scal_api_attach");
    if (attach) attach(&ops);
}

void scal_user_regions_detach(void)
{
    void (*detach)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "scal_api_detach");
    if (detach) detach();
}
