/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal state of libscal_ompt.so: configuration, the region-node table, per-thread state and
 * the functions the callbacks, the flush path and the writer share.
 *
 * Concurrency model: every OMPT callback runs on the thread whose event it reports and touches
 * only that thread's state (struct scal_thread), except
 *  - the node table (global; lock-free lookups, insertions of new nodes serialised by a spin flag
 *    because they happen once per distinct node), and
 *  - the per-instance team slots of a parallel region: each team member writes its own slot, the
 *    encountering thread reads them all when it settles the instance, at its next closing barrier
 *    (team.h; release/acquire on the slot's barrier time). Nothing is allocated after a thread's
 *    first event: per-thread memory is reserved then and touched lazily. Anomalies are counted
 *    (struct scal_diag) and reported at flush. */
#ifndef SCAL_TOOL_H
#define SCAL_TOOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "layout.h"
#include "scal/status.h"

/* ---- configuration (config.c) ------------------------------------------------------------- */

/* Defaults of the SCAL_* limits (config.c checks the ranges). */
#define SCAL_DEFAULT_MAX_REGIONS 4096
#define SCAL_DEFAULT_MAX_TEAM 256
#define SCAL_DEFAULT_MAX_THREADS 1024
#define SCAL_DEFAULT_TRACE_ENTRIES 65536 /* SCAL_TRACE=1/on/yes/true */
#define SCAL_DEFAULT_RANK_WAIT_MS 2000   /* longer than mpirun's default 1 s SIGTERM..SIGKILL */
#define SCAL_MAX_DEPTH 64                /* frames per thread: nesting of regions */

struct scal_config {
    bool enabled;
    char output[4096]; /* SCAL_OUTPUT as given ("" = default name in the cwd) */
    bool output_is_dir;
    uint32_t trace_entries; /* SCAL_TRACE: per-thread entries, 0 = off */
    uint32_t max_regions;   /* SCAL_MAX_REGIONS */
    uint32_t max_team;      /* SCAL_MAX_TEAM: team members measured individually */
    uint32_t max_threads;   /* SCAL_MAX_THREADS */
    uint32_t max_depth;     /* nesting depth of the per-thread region stack */
    bool resolve_lines;     /* SCAL_RESOLVE (default on): DWARF lookups at flush */
    /* SCAL_IDENTITY_CACHE: directory of the identity cache ("" = none); unset: the user's own,
     * identity_cache_default (config.c), whose parents the writer creates */
    char identity_cache[4096];
    bool identity_cache_default;
    bool verbose;          /* SCAL_VERBOSE: one line saying where the file went */
    bool wait_writer;      /* SCAL_WRITER=wait (default): the run file is written before exit */
    bool snapshot_only;    /* SCAL_SNAPSHOT_ONLY (scal run): leave <run file>.snap to the caller */
    uint32_t rank_wait_ms; /* SCAL_RANK_WAIT_MS: a rank a signal ends waits for the others' files */
    char plugins[1024];    /* SCAL_PLUGINS */
    char messages[2048];   /* problems with SCAL_* values, printed once at initialisation */
};
/* Reads SCAL_* from the environment; never fails (bad values fall back to defaults and are
 * described in cfg->messages). */
void scal_config_load(struct scal_config *cfg);

/* Per-thread and per-instance data is laid out in cache lines so threads never share one. */
#define SCAL_CACHE_LINE 64
static inline size_t scal_cache_align(size_t n)
{
    return (n + SCAL_CACHE_LINE - 1) & ~(size_t)(SCAL_CACHE_LINE - 1);
}

/* `bytes` of zeroed memory whose pages the OS provides when they are first touched (an anonymous
 * mapping without swap reservation): the tables sized for the configured maxima cost nothing until
 * a region, thread or node uses them (calloc may clear them all at once, a page fault per page at
 * start). NULL when no address space is left. Never released: they live as long as the tool. */
void *scal_reserve_zeroed(size_t bytes);

/* ---- clock ------------------------------------------------------------------------------- */

static inline uint64_t scal_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- diagnostics (diag.c) ---------------------------------------------------------------- */

/* X(name, description). Counters are incremented on any thread with relaxed atomics. */
#define SCAL_DIAG_MAP(X)                                                                           \
    X(regions_overflow, "region nodes beyond SCAL_MAX_REGIONS, counted in the overflow node")      \
    X(stack_overflow, "regions nested deeper than the per-thread stack, not measured")             \
    X(team_beyond_max, "team members beyond SCAL_MAX_TEAM, not measured individually")             \
    X(threads_beyond_max, "threads beyond SCAL_MAX_THREADS, not measured")                         \
    X(unknown_parallel, "implicit tasks of a parallel region the tool did not see begin")          \
    X(unmatched_end, "region ends that did not match the innermost open region")                   \
    X(user_region_mismatch, "scal_region_end names that did not match the open region")            \
    X(open_at_exit, "regions still open when the data was written (closed at that time)")          \
    X(trace_dropped, "trace entries dropped because the trace buffer was full")                    \
    X(resolve_failed, "region addresses in no loaded module")                                      \
    X(regions_without_source,                                                                      \
      "regions without source lines (no debug information; informational)")                        \
    X(tail_call_unresolved,                                                                        \
      "regions reached through a tail call whose pragma was not found (named after the caller)")   \
    X(task_unmatched,                                                                              \
      "task switches away from a task other than the one the thread ran (time until the switch "   \
      "given to the latter)")                                                                      \
    X(tasks_beyond_pool,                                                                           \
      "explicit tasks created while a thread's task records were all in use, not measured")        \
    X(task_left_running,                                                                           \
      "explicit tasks whose end the tool did not see (their time after the last event is lost)")   \
    X(sensor_errors, "sensor plugin errors")                                                       \
    X(write_errors, "errors while writing the output file")                                        \
    X(identity_cache_hits,                                                                         \
      "region identities taken from the identity cache (SCAL_IDENTITY_CACHE; informational)")      \
    X(identity_cache_misses,                                                                       \
      "region identities resolved from DWARF and added to the identity cache (informational)")     \
    X(identity_cache_damaged,                                                                      \
      "identity cache files or records ignored as damaged, or not regular files (rewritten)")      \
    X(identity_cache_write_failed, "identity cache files that could not be written")               \
    X(dwarf_opens, "DWARF sessions opened to resolve region identities (informational)")           \
    X(threads_parked,                                                                              \
      "idle OpenMP threads held asleep while the run file was written (informational)")

enum scal_diag_id {
#define SCAL_DIAG_ENUM(name, text) SCAL_DIAG_##name,
    SCAL_DIAG_MAP(SCAL_DIAG_ENUM)
#undef SCAL_DIAG_ENUM
        SCAL_DIAG_COUNT
};
#ifdef SCAL_TOOL_WRITER
/* In libscal_ompt_writer.so: the tool's counters, through the accessor table (writer_access.c). */
void scal_diag_count(enum scal_diag_id id);
uint64_t scal_diag_value(enum scal_diag_id id);
#else
extern _Atomic uint64_t scal_diag_counters[SCAL_DIAG_COUNT];
static inline void scal_diag_count(enum scal_diag_id id)
{
    atomic_fetch_add_explicit(&scal_diag_counters[id], 1, memory_order_relaxed);
}
#endif
const char *scal_diag_name(enum scal_diag_id id);
const char *scal_diag_text(enum scal_diag_id id);
/* Messages recorded outside the hot path (configuration, flush); bounded. */
void scal_diag_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
size_t scal_diag_messages(const char *const **out);

/* ---- region nodes (node_table.c) ----------------------------------------------------------- */

/* A node of the region tree: (kind, parent, key) where key is the construct's return address
 * (parallel), the name's hash (user), or the neighbouring nodes (serial gaps). Node 0 is the root,
 * the last usable id is the overflow node that absorbs regions beyond the table's capacity. */
struct scal_node {
    uint64_t key;  /* the call site (return address), or a user region's name hash */
    uint64_t body; /* a parallel region's outlined body, when a fork trampoline saw it (0 = not) */
    int32_t parent;
    uint8_t kind;
    uint32_t depth;
    int32_t gap_prev, gap_next;
    const char *name; /* user regions: a copy of the name */
};
int scal_nodes_init(uint32_t capacity);
/* Finds or creates a node. Returns its id (the overflow id when the table is full). */
uint32_t scal_node_lookup(uint8_t kind, int32_t parent, uint64_t key, const char *name,
                          int32_t gap_prev, int32_t gap_next);
/* A parallel region's node: its call site and its outlined body (0 = unknown; fork_hook.h). */
uint32_t scal_node_lookup_fork(int32_t parent, uint64_t codeptr, uint64_t body);
uint32_t scal_nodes_count(void);
const struct scal_node *scal_node_get(uint32_t id);

/* ---- statistics of one node on one thread (stats.c) -------------------------------------- */

#define SCAL_EXACT_SAMPLES 64 /* medians are exact while every thread saw at most this many */
#define SCAL_HIST_SUB_BITS 4  /* 16 log-linear buckets per power of two: <= 2.2 % error */
#define SCAL_HIST_OCTAVES 44  /* 1 ns .. ~4.9 h */
#define SCAL_HIST_BUCKETS (SCAL_HIST_OCTAVES << SCAL_HIST_SUB_BITS)

struct scal_team_total {
    uint64_t instances;
    uint64_t work_ns, barrier_ns, lock_ns;
};

/* Everything one thread accumulated for one node as its encountering thread. */
struct scal_node_stats {
    uint64_t count;
    uint64_t sum_ns, min_ns, max_ns;
    /* Variance from sums shifted by the first sample (no division in the hot path, no cancellation
     * as long as samples stay near the first one's order of magnitude). */
    uint64_t shift_ns;
    double sum_d, sum_d2;
    uint32_t nsamples;
    uint64_t samples[SCAL_EXACT_SAMPLES];
    uint32_t hist[SCAL_HIST_BUCKETS];
    int32_t team_req_min, team_req_max, team_act_min, team_act_max;
    uint64_t work_ns, work_inst_max_ns, work_inst_min_ns;
    uint64_t barrier_ns, barrier_inst_max_ns;
    uint64_t lock_ns, lock_inst_max_ns;
    double inst_mean_work_ns; /* sum over instances of the mean work per member */
    uint64_t loops, loop_iterations;
    uint32_t team_tracked;         /* entries of team[] in use */
    struct scal_team_total team[]; /* per team index, config.max_team entries */
};
size_t scal_node_stats_size(uint32_t max_team);
void scal_stats_add_time(struct scal_node_stats *s, uint64_t ns);
void scal_stats_add_team(struct scal_node_stats *s, int32_t requested, int32_t actual);
void scal_hist_bucket_bounds(uint32_t bucket, double *lo_ns, double *hi_ns);

/* ---- per-thread state (thread_state.c) ---------------------------------------------------- */

/* One member's measurements for one parallel-region instance, written by that member only, read by
 * the encountering thread when it settles the instance (team.h), after the acquire of barrier_ns. A
 * slot from an earlier instance is recognised by work_begin_ns < the instance's begin_ns, so nobody
 * resets slots. One cache line each; relaxed atomics compile to plain moves and keep TSan informed.
 */
struct scal_slot {
    _Atomic uint64_t work_begin_ns;
    _Atomic uint64_t inner_wait_ns; /* explicit and workshare barriers, taskwait, taskgroup */
    _Atomic uint64_t lock_ns;
    _Atomic uint32_t gtid;
    _Atomic uint64_t barrier_ns; /* reaching the region's closing barrier */
    /* explicit-task code this member ran inside the closing barrier: work, not wait */
    _Atomic uint64_t join_task_ns;
} __attribute__((aligned(SCAL_CACHE_LINE)));

/* An ended instance whose per-member sums are not yet in the encountering thread's statistics:
 * settled at that thread's next closing barrier at the same depth (while it waits for its team),
 * before it records another ended instance there, or at flush (team.h). Owner-only; whether one
 * waits is the thread's pending_depths. */
struct scal_team_pending {
    uint64_t begin_ns, end_ns;
    uint32_t node;
    int32_t requested, actual;
    uint8_t set; /* the slot set its members wrote */
};

/* A parallel-region instance, owned by its encountering thread, shared with the team through
 * parallel_data->ptr (tagged with the slot set in use, team.h). Two sets of config.max_team slots
 * follow it in memory, used by alternate instances, so a member finds its slot without reading the
 * instance (whose cache line the encountering thread has just written) and the members of one
 * instance write theirs while the encountering thread still has to settle the previous one. */
struct scal_instance {
    uint32_t node;
    int32_t requested;
    _Atomic int32_t actual;
    _Atomic uint32_t generation; /* incremented (release) at every instance; lazy readers acquire */
    uint64_t begin_ns;
    const void *codeptr; /* the region's codeptr_ra (recognises its join barrier) */
    /* the encountering thread's alone, on its own cache line */
    struct scal_team_pending pending __attribute__((aligned(SCAL_CACHE_LINE)));
} __attribute__((aligned(SCAL_CACHE_LINE)));

/* Member frames of workers learn their node only when something needs it (a nested region, a user
 * region, a sensor): reading it at implicit-task begin would cost a cache miss per region. */
#define SCAL_NODE_LAZY UINT32_MAX

enum scal_frame_role { SCAL_FRAME_ROOT, SCAL_FRAME_ENCOUNTER, SCAL_FRAME_MEMBER };

struct scal_frame {
    uint32_t node;
    uint8_t kind, role;
    bool sensed; /* sensor readings were taken at its level when it opened (scal_sensor_enter) */
    uint32_t team_index;
    uint64_t begin_ns;
    struct scal_instance *inst; /* parallel frames */
    struct scal_slot *slot;     /* member frames: this member's slot, NULL beyond SCAL_MAX_TEAM */
    uint8_t set;                /* encountering frames: the instance's slot set */
    void *task_data;            /* member frames: the implicit task's ompt_data_t */
    uint64_t name_hash;         /* user frames: hash of the name given to scal_region_begin */
    int prev_member;            /* member frames: the enclosing member frame's index, -1 none */
    /* serial-gap tracking for this frame's children (root frame only), with the last gap looked up
     */
    uint64_t last_child_end_ns;
    int32_t last_child_node;
    int32_t gap_cache_prev, gap_cache_next;
    uint32_t gap_cache_node;
    /* encountering frames: the explicit task that encountered the region (it resumes at the end;
     * the region's time is its time) and the thread's task_ns then */
    struct scal_task *saved_task;
    uint64_t saved_task_ns;
};

/* An explicit task the tool saw created, reached through its ompt_data_t (ptr), never through the
 * thread: untied tasks migrate between threads and interleave at any scheduling point. Taken from
 * the creating thread's pool, filled before the runtime publishes the task; afterwards only the
 * thread running the task touches it (the runtime orders the hand-over), and the thread completing
 * it gives it back to its pool (task_pool.c). One cache line: threads never share one. */
struct scal_task {
    uint32_t node;   /* its task construct's node */
    int32_t parent;  /* the region node it belongs to (where it was created) */
    uint64_t own_ns; /* time it ran as task code (not waiting in a taskwait/taskgroup), all parts */
    uint32_t waits;  /* open synchronisation regions of the task (taskwait, taskgroup end) */
    uint32_t depth;  /* frames in use on the thread running it, when it started or resumed there */
    bool taskloop;   /* created by the runtime for a taskloop */
    bool splitter;   /* a taskloop task that created taskloop tasks: the runtime's splitting task */
    struct scal_thread *home; /* the pool it came from */
    struct scal_task *next;   /* free lists */
} __attribute__((aligned(SCAL_CACHE_LINE)));

/* Task records per thread (reserved with the thread's state, touched as used). */
#define SCAL_TASK_RECORDS 65536

/* Entries of a thread's direct-mapped cache of parallel-node lookups (a power of two). */
#define SCAL_NODE_CACHE_SLOTS 64

struct scal_trace_buf;
struct scal_sensor_session;
struct scal_sensor_thread_ctx;

struct scal_thread {
    uint32_t gtid;          /* 0 = the process's initial thread */
    int32_t kernel_tid;     /* gettid(): the flush parks idle threads (park.h) */
    _Atomic int park_state; /* park.c: signalled by the flush, answered by its handler */
    /* depth as of this thread's last implicit-task begin or end (a worker outside every region:
     * 0), for the flush to read (park.c) */
    _Atomic uint32_t depth_published;
    bool is_initial;
    _Atomic bool is_worker; /* a thread the runtime made (thread_begin: ompt_thread_worker) */
    uint32_t depth;         /* frames in use */
    /* bit d: the instance at depth d waits for settlement (team.h); owner-written, read at flush */
    _Atomic uint64_t pending_depths;
    struct scal_frame *frames;
    unsigned char *inst_area; /* per depth: an instance followed by its slots */
    uint32_t *row_of_node;    /* node id -> 1 + index into rows, 0 = none */
    unsigned char *rows;      /* arena of struct scal_node_stats, row_size each */
    uint32_t nrows;
    int member_frame;    /* index of the innermost member frame, -1 = none */
    uint32_t sync_depth; /* open synchronisation regions (taskwait inside a barrier nests) */
    /* Direct-mapped cache of parallel-node lookups: (parent, codeptr, body) -> node. */
    struct {
        uint64_t codeptr, body;
        int32_t parent;
        uint32_t node;
    } node_cache[SCAL_NODE_CACHE_SLOTS];
    uint64_t wait_begin_ns, lock_begin_ns;
    /* the serial gap before the current top-level region, not yet in its node's statistics */
    uint32_t gap_pending_node; /* 0 = none */
    uint64_t gap_pending_ns;
    /* Explicit tasks (task_schedule): the task this thread runs now (NULL: an implicit task). Its
     * time, while it is not inside a synchronisation region, is task code, counted in task_ns
     * (work) and in the task's own time (its task construct's node). */
    struct scal_task *task_cur;
    bool in_task_code;
    uint64_t task_since_ns;
    uint64_t task_ns;             /* all explicit-task code this thread ran */
    uint64_t wait_task_mark;      /* task_ns when the outermost synchronisation region began */
    struct scal_slot *join_slot;  /* the slot of the closing barrier this thread is in, or NULL */
    uint64_t join_task_mark;      /* task_ns when that barrier began */
    const void *taskloop_codeptr; /* the open taskloop's call site (its tasks are created inside the
                                     runtime, with the runtime's own return address) */
    /* task records: this thread's own free list and unused rest, owner-only */
    struct scal_task *task_free;
    struct scal_task *task_records;
    uint32_t task_records_used;
    struct scal_trace_buf *trace;
    struct scal_sensor_thread_ctx *sensors;
    /* records of this pool that other threads completed (a lock-free stack the owner takes whole)
     */
    _Atomic(struct scal_task *) task_remote __attribute__((aligned(SCAL_CACHE_LINE)));
};

/* A frame's level: its index in the thread's stack, which keys the sensor readings taken there. */
static inline uint32_t scal_frame_level(const struct scal_thread *t, const struct scal_frame *f)
{
    return (uint32_t)(f - t->frames);
}

/* The calling thread's state: scal_thread_get (thread_state.h). */
struct scal_instance *scal_thread_inst(struct scal_thread *t, uint32_t depth);

static inline uint32_t scal_frame_node(struct scal_frame *f)
{
    if (__builtin_expect(f->node == SCAL_NODE_LAZY, 0)) {
        (void)atomic_load_explicit(&f->inst->generation, memory_order_acquire);
        f->node = f->inst->node;
    }
    return f->node;
}
/* The node of this thread's innermost frame (0: the root, no frame). */
static inline int32_t scal_innermost_node(struct scal_thread *t)
{
    return t->depth ? (int32_t)scal_frame_node(&t->frames[t->depth - 1]) : 0;
}
/* The node a region, user region or task created now belongs to: the innermost frame's, or the
 * explicit task running at this frame depth (a region created inside a task is the task node's
 * child; one inside a region inside the task is that region's). */
static inline int32_t scal_region_parent(struct scal_thread *t)
{
    struct scal_task *k = t->task_cur;
    if (k && k->depth == t->depth) return (int32_t)k->node;
    return scal_innermost_node(t);
}
/* Thread states for the flush (every thread that ever had an event). */
uint32_t scal_threads_count(void);
struct scal_thread *scal_thread_at(uint32_t i);
int scal_threads_init(void);
/* The stats row of a node on this thread, created on first use. */
struct scal_node_stats *scal_thread_row(struct scal_thread *t, uint32_t node);
struct scal_node_stats *scal_thread_row_if_any(const struct scal_thread *t, uint32_t node);
/* A task record from t's pool (NULL when all are in use), and its return by the thread that
 * completed the task (task_pool.c; no lock, no allocation). */
struct scal_task *scal_task_get(struct scal_thread *t);
void scal_task_put(struct scal_thread *t, struct scal_task *k);

/* ---- global tool state (tool_start.c) ------------------------------------------------------ */

struct scal_tool {
    struct scal_config cfg;
    size_t row_size;
    size_t inst_stride; /* an instance and its two slot sets (team.h) */
    uint64_t start_ns;
    double start_unix;
    char omp_runtime[256];
    struct scal_sensor_session *sensors;
    _Atomic int flushed;
    char exit_reason[64];
    /* /proc/self/cmdline when the tool started: programs may rewrite their argv later */
    char cmdline[8192];
    size_t cmdline_len;
    bool cmdline_at_start;  /* read before main (preloaded tool), else at the first OpenMP call */
    double tool_start_unix; /* CLOCK_REALTIME at ompt_start_tool (exact, unlike start_unix) */
    /* Set by the flush: the measured process (the writer runs in a forked copy of it, whose own
     * pid names nothing), and whether this is that copy (it may exec the writer program). */
    int measured_pid;
    bool in_writer_copy;
};
#ifdef SCAL_TOOL_WRITER
/* In libscal_ompt_writer.so: the tool's state, through the accessor table (writer_access.c). */
struct scal_tool *scal_writer_tool_state(void);
#define scal_tool_state (*scal_writer_tool_state())
#else
extern struct scal_tool scal_tool_state;
#endif

/* ---- trace (trace.c) ----------------------------------------------------------------------- */

struct scal_trace_buf *scal_trace_new(uint32_t entries);
void scal_trace_instance(struct scal_thread *t, uint32_t node, uint64_t begin_ns, uint64_t end_ns);
void scal_trace_state(struct scal_thread *t, uint32_t gtid, uint32_t node, uint8_t state,
                      uint64_t begin_ns, uint64_t end_ns);

/* ---- callbacks (callbacks.c), user regions (user_regions.c) -------------------------------- */

struct ompt_function_lookup_wrapper;
int scal_callbacks_register(void *lookup /* ompt_function_lookup_t */);
void scal_user_regions_attach(void);
void scal_user_regions_detach(void);
/* Opens the root frame on the initial thread. */
void scal_root_open(struct scal_thread *t);
/* Top-level bookkeeping of the initial thread: the serial gap before a new top-level region, and
 * where the last one ended. No-ops below the top level. */
void scal_serial_gap_before(struct scal_thread *t, uint32_t next_node, uint64_t now);
void scal_child_ended(struct scal_thread *t, uint32_t node, uint64_t now);

/* The user-kind node of a name under parent (user_regions.c). */
uint32_t scal_user_node_lookup(int32_t parent, const char *name);

/* ---- modules of region code (modules.c) ----------------------------------------------- */

/* Queues a region's return address whose module is not known yet (at node creation, under the
 * node table's insertion lock; lock-free). */
void scal_module_note(uint64_t addr);
/* Learns the modules of queued addresses from the dynamic loader: only on the initial thread at
 * its top level, and at flush (the loader's lock is never waited for inside a team). */
void scal_modules_refresh(void);
/* The module noted for an address (path and load base), also after it was dlclose()d. */
bool scal_module_of(uint64_t addr, const char **path, uint64_t *base);
/* The i-th module noted (in the order noted; the latest holding an address wins): its addresses
 * (lo, hi], load base and path; false past the last. */
bool scal_module_noted(uint32_t i, uint64_t *lo, uint64_t *hi, uint64_t *base, const char **path);
/* The loaded module holding addr (its link map; *symbol, when not NULL, the nearest symbol's name
 * or NULL), provided it is the one noted for noted_addr when a region's node was made: NULL when
 * that module was unloaded since, or another one took its addresses (the libraries loaded at the
 * end may). module_loaded.c, in the writer's and the resolver's libraries. */
struct link_map;
const struct link_map *scal_module_loaded(uint64_t addr, uint64_t noted_addr, const char **symbol);

/* ---- wall-clock time per node (wall.c) --------------------------------------------------- */

/* Reserves the per-node counters (at initialisation). */
int scal_wall_init(uint32_t capacity);
/* An instance of `node` begins / ends at `now` on the calling thread (any thread; lock-free). */
void scal_wall_enter(uint32_t node, uint64_t now);
void scal_wall_exit(uint32_t node, uint64_t now);
/* The union of the node's instance intervals so far (open ones end at end_ns). */
uint64_t scal_wall_ns(uint32_t node, uint64_t end_ns);

/* ---- the OpenMP runtime's start-up (startup.c) ------------------------------------------- */

#define SCAL_STARTUP_NAME "OpenMP runtime start-up"
#define SCAL_TOOL_STARTUP_NAME "scal tool start-up"
/* The moments that split the start-up between the runtime and the tool, on the initial thread. */
enum scal_startup_mark {
    SCAL_STARTUP_LOADED_BEGIN, /* the library's constructor begins and ends (its work) */
    SCAL_STARTUP_LOADED_END,
    SCAL_STARTUP_TOOL_BEGIN,  /* ompt_start_tool is called: the runtime begins to initialise */
    SCAL_STARTUP_TOOL_PAUSE,  /* ompt_start_tool returns: the runtime initialises itself */
    SCAL_STARTUP_TOOL_RESUME, /* initialize is called */
    SCAL_STARTUP_MARKS
};
void scal_startup_mark(enum scal_startup_mark m);
/* At the end of the tool's initialize: records both nodes (startup.c). */
void scal_startup_end(struct scal_thread *t);

/* ---- call sites (callsite.c) --------------------------------------------------------------- */

/* Learns the address ranges of the OpenMP runtime (from one of its functions) and of this tool. */
void scal_callsite_init(const void *runtime_function);
bool scal_callsite_in_runtime(const void *codeptr);
/* The first return address on the calling thread's stack outside the runtime and the tool. */
const void *scal_callsite_outside_runtime(const void *fallback);
/* The same for a construct whose runtime entry calls further into the runtime before reporting (a
 * taskloop: __kmpc_taskloop -> __kmp_taskloop), so the reported frame is not a tail call's. */
const void *scal_callsite_caller_outside_runtime(const void *fallback);

/* ---- flush (flush.c); the writer library is reached through tool_access.h ---------------- */

/* Writes the run file once (guarded); safe to call from finalize, the destructor, exit and
 * signal paths. reason: "main returned", "exit() called", "signal SIGTERM", ... */
void scal_flush(const char *reason);
void scal_flush_install_handlers(void);

/* ---- resolution of addresses (resolve.c) --------------------------------------------------- */

struct scal_resolved {
    char module[4096];
    char build_id[80];
    uint64_t offset;
    char file[4096];
    int line_first, line_last;
    char function[512];
    bool via_tail_call; /* reached through a tail call whose outlined body was not found */
    bool gomp;          /* forked through gcc's GOMP entry points (libomp's GOMP layer) */
};
struct scal_view;
struct scal_bytes;
/* Resolves every node of the request a view shows (process_view.h): the return address (codeptr_ra)
 * of an OpenMP construct of its region kind (parallel regions' and tasks' are read as call sites
 * too; its body: the outlined body a fork trampoline noted, 0 = none). Puts the answers
 * (resolve_request.h) in `answers`: for each node 0 or a negative status (module unknown), and
 * what was found (fields not found left empty / -1). SCAL_OK, or SCAL_ENOMEM. */
int scal_resolve_request(struct scal_view *v, struct scal_bytes *answers);

/* ---- run metadata (runmeta.c) ------------------------------------------------------------- */

const char *scal_program_name(void);

#endif
