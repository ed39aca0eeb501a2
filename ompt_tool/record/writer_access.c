// SPDX-License-Identifier: BSD-3-Clause
// The writer's side of the accessor table (tool_access.h): keeps the table the tool passed at flush
// and implements, on top of it, the tool's functions the writer's sources call by their usual
// names.
#include "errmsg.h"
#include "fork_hook.h"
#include "tool_access.h"
#include "writer_link.h"

static const struct scal_tool_access *tool;

int scal_writer_attach(const struct scal_tool_access *access)
{
    if (!access || access->struct_size < sizeof(*access))
        return scal__fail(
            SCAL_EABI,
            "libscal_ompt_writer.so needs a tool accessor table of %zu bytes, the tool "
            "gave %zu (a writer from another build of scal?)",
            sizeof(*access), access ? access->struct_size : 0);
    tool = access;
    return SCAL_OK;
}

struct scal_tool *scal_writer_tool_state(void)
{
    return tool->state;
}

void scal_diag_count(enum scal_diag_id id)
{
    atomic_fetch_add_explicit(&tool->diag_counters[id], 1, memory_order_relaxed);
}

uint64_t scal_diag_value(enum scal_diag_id id)
{
    return atomic_load_explicit(&tool->diag_counters[id], memory_order_relaxed);
}

const char *scal_diag_name(enum scal_diag_id id)
{
    return tool->diag_name(id);
}

const char *scal_diag_text(enum scal_diag_id id)
{
    return tool->diag_text(id);
}

size_t scal_diag_messages(const char *const **out)
{
    return tool->diag_messages(out);
}

uint32_t scal_nodes_count(void)
{
    return tool->nodes_count();
}

const struct scal_node *scal_node_get(uint32_t id)
{
    return tool->node_get(id);
}

uint32_t scal_node_lookup(uint8_t kind, int32_t parent, uint64_t key, const char *name,
                          int32_t gap_prev, int32_t gap_next)
{
    return tool->node_lookup(kind, parent, key, name, gap_prev, gap_next);
}

uint32_t scal_threads_count(void)
{
    return tool->threads_count();
}

struct scal_thread *scal_thread_at(uint32_t i)
{
    return tool->thread_at(i);
}

struct scal_node_stats *scal_thread_row(struct scal_thread *t, uint32_t node)
{
    return tool->thread_row(t, node);
}

struct scal_node_stats *scal_thread_row_if_any(const struct scal_thread *t, uint32_t node)
{
    return tool->thread_row_if_any(t, node);
}

void scal_stats_add_time(struct scal_node_stats *s, uint64_t ns)
{
    tool->stats_add_time(s, ns);
}

void scal_stats_add_team(struct scal_node_stats *s, int32_t requested, int32_t actual)
{
    tool->stats_add_team(s, requested, actual);
}

void scal_hist_bucket_bounds(uint32_t bucket, double *lo_ns, double *hi_ns)
{
    tool->hist_bucket_bounds(bucket, lo_ns, hi_ns);
}

bool scal_callsite_in_runtime(const void *codeptr)
{
    return tool->callsite_in_runtime(codeptr);
}

uint64_t scal_wall_ns(uint32_t node, uint64_t end_ns)
{
    return tool->wall_ns(node, end_ns);
}

bool scal_module_of(uint64_t addr, const char **path, uint64_t *base)
{
    return tool->module_of(addr, path, base);
}

const char *scal_fork_hook_entry(uint64_t addr)
{
    return tool->fork_hook_entry(addr);
}

int scal_writer_link_hand(const char *snap, unsigned flags, char *final, size_t len)
{
    return tool->hand_to_writer(snap, flags, final, len);
}

int scal_writer_link_hand_fd(int snap_fd, unsigned flags, char *final, size_t len)
{
    return tool->hand_fd_to_writer(snap_fd, flags, final, len);
}

bool scal_module_noted(uint32_t i, uint64_t *lo, uint64_t *hi, uint64_t *base, const char **path)
{
    return tool->module_noted(i, lo, hi, base, path);
}

int scal_writer_link_resolve(int request_fd)
{
    return tool->resolve_by_writer(request_fd);
}
