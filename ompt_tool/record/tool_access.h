/* SPDX-License-Identifier: BSD-3-Clause */
/* The one door from the run-file writer into the tool: libscal_ompt.so exports nothing but
 * ompt_start_tool, and libscal_ompt_writer.so (loaded only at flush) does not link against it.
 * The tool passes this const table of its state and functions to the writer's entry instead;
 * writer_access.c gives the writer's sources the tool's usual names on top of it. The table is
 * versioned by its size: members are only ever appended. Free of HDF5 (the tool includes it). */
#ifndef SCAL_TOOL_ACCESS_H
#define SCAL_TOOL_ACCESS_H

#include "tool.h"

struct scal_tool_access {
    size_t struct_size; /* sizeof(struct scal_tool_access) of the tool that filled it */
    struct scal_tool *state;
    _Atomic uint64_t *diag_counters; /* SCAL_DIAG_COUNT of them */
    const char *(*diag_name)(enum scal_diag_id id);
    const char *(*diag_text)(enum scal_diag_id id);
    size_t (*diag_messages)(const char *const **out);
    uint32_t (*nodes_count)(void);
    const struct scal_node *(*node_get)(uint32_t id);
    uint32_t (*node_lookup)(uint8_t kind, int32_t parent, uint64_t key, const char *name,
                            int32_t gap_prev, int32_t gap_next);
    uint32_t (*threads_count)(void);
    struct scal_thread *(*thread_at)(uint32_t i);
    struct scal_node_stats *(*thread_row)(struct scal_thread *t, uint32_t node);
    struct scal_node_stats *(*thread_row_if_any)(const struct scal_thread *t, uint32_t node);
    void (*stats_add_time)(struct scal_node_stats *s, uint64_t ns);
    void (*stats_add_team)(struct scal_node_stats *s, int32_t requested, int32_t actual);
    void (*hist_bucket_bounds)(uint32_t bucket, double *lo_ns, double *hi_ns);
    bool (*callsite_in_runtime)(const void *codeptr);
    uint64_t (*wall_ns)(uint32_t node, uint64_t end_ns);
    bool (*module_of)(uint64_t addr, const char **path, uint64_t *base);
    const char *(*fork_hook_entry)(uint64_t addr); /* fork_hook.h */
    /* writer_link.h: hands the snapshot to the writer process started with the tool */
    int (*hand_to_writer)(const char *snap, unsigned flags, char *final, size_t len);
    /* the same of a snapshot in memory, open at snap_fd (added last: the table only grows) */
    int (*hand_fd_to_writer)(int snap_fd, unsigned flags, char *final, size_t len);
    /* modules.c's table of noted modules, and the writer process's resolution of a request in
     * memory (writer_link.h; added last: the table only grows) */
    bool (*module_noted)(uint32_t i, uint64_t *lo, uint64_t *hi, uint64_t *base, const char **path);
    int (*resolve_by_writer)(int request_fd);
};

/* The writer library, found next to libscal_ompt.so, and its one exported entry: writes the run
 * file from what `tool` shows (called once, from the flush). */
#define SCAL_WRITER_LIBRARY "libscal_ompt_writer.so"
#define SCAL_WRITER_ENTRY "scal_write_run_file"
typedef int (*scal_write_run_file_fn)(const struct scal_tool_access *tool, uint64_t end_ns);

#endif
