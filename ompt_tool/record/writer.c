// SPDX-License-Identifier: BSD-3-Clause
// The run file: merges every thread's per-node statistics, resolves region identities and records
// the file's content as a run snapshot (common/run_snapshot.h) beside the run file's place; a
// writer process (scal-run-writer, started here and not waited for) or the runner turns it into
// HDF5. The measured process never maps HDF5.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "identity_cache.h"
#include "region_identity.h"
#include "resolve_client.h"
#include "safe_create.h"
#include "scal/export.h"
#include "scal/version.h"
#include "strtab.h"
#include "tool.h"
#include "mpi_rank.h"
#include "writer.h"
#include "writer_link.h"
#include "writer_program.h"
#include "trace_buf.h"

/* Everything merged for one node across threads. */
struct merged {
    uint64_t count, sum, min, max;
    double mean, m2;
    bool exact;
    int32_t req_min, req_max, act_min, act_max;
    uint64_t work, work_max, work_min, bar, bar_max, lock, lock_max, loops, iters;
    double inst_mean_work;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Median over every thread's rows of a node: exact from the kept samples while each row kept all
 * of its instances, else from the merged log-linear histogram (<= 2.2 % relative error). */
/* A group: the table nodes that share one source identity (e.g. copies of an unrolled loop's
 * region); rows are merged over every thread and every node of the group. */
struct group {
    const uint32_t *nodes;
    uint32_t n;
};
#define FOR_EACH_ROW(g, s)                                                                         \
    for (uint32_t gi_ = 0, nthreads_ = scal_threads_count(); gi_ < (g)->n; gi_++)                  \
        for (uint32_t ti_ = 0; ti_ < nthreads_; ti_++)                                             \
            if (((s) = scal_thread_row_if_any(scal_thread_at(ti_), (g)->nodes[gi_])) != NULL)

static double median_ns(const struct group *g, uint64_t total, bool *exact)
{
    const struct scal_node_stats *s;
    bool all_kept = true;
    FOR_EACH_ROW(g, s)
    if (s->count > s->nsamples) all_kept = false;
    *exact = all_kept;
    if (total == 0) return 0.0;
    if (all_kept) {
        uint64_t *v = malloc(total * sizeof(*v));
        size_t n = 0;
        if (!v) return NAN;
        FOR_EACH_ROW(g, s)
        for (uint32_t k = 0; k < s->nsamples && n < total; k++)
            v[n++] = s->samples[k];
        qsort(v, n, sizeof(*v), cmp_u64);
        double m = n % 2 ? (double)v[n / 2] : 0.5 * ((double)v[n / 2 - 1] + (double)v[n / 2]);
        free(v);
        return m;
    }
    double rank = 0.5 * (double)total, cum = 0.0;
    for (uint32_t b = 0; b < SCAL_HIST_BUCKETS; b++) {
        double inb = 0.0;
        FOR_EACH_ROW(g, s)
        inb += s->hist[b];
        if (inb > 0 && cum + inb >= rank) {
            double lo, hi;
            scal_hist_bucket_bounds(b, &lo, &hi);
            return lo + (hi - lo) * (rank - cum) / inb;
        }
        cum += inb;
    }
    return NAN;
}

static void merge_group(const struct group *g, struct merged *m)
{
    const struct scal_node_stats *s;
    memset(m, 0, sizeof(*m));
    m->min = UINT64_MAX;
    m->work_min = 0;
    m->req_min = m->act_min = INT32_MAX;
    bool any_work_min = false;
    FOR_EACH_ROW(g, s)
    {
        if (s->count == 0) { /* loops only (a member row without instances) */
            m->loops += s->loops;
            m->iters += s->loop_iterations;
            continue;
        }
        /* Each row's (count, mean, M2) from its shifted sums, combined as in Chan et al. */
        double mean_s = (double)s->shift_ns + s->sum_d / (double)s->count;
        double m2_s = s->sum_d2 - s->sum_d * s->sum_d / (double)s->count;
        if (m2_s < 0) m2_s = 0;
        uint64_t n = m->count + s->count;
        double delta = mean_s - m->mean;
        m->mean += delta * (double)s->count / (double)n;
        m->m2 += m2_s + delta * delta * (double)m->count * (double)s->count / (double)n;
        m->count = n;
        m->sum += s->sum_ns;
        if (s->min_ns < m->min) m->min = s->min_ns;
        if (s->max_ns > m->max) m->max = s->max_ns;
        if (s->team_req_min < m->req_min) m->req_min = s->team_req_min;
        if (s->team_req_max > m->req_max) m->req_max = s->team_req_max;
        if (s->team_act_min < m->act_min) m->act_min = s->team_act_min;
        if (s->team_act_max > m->act_max) m->act_max = s->team_act_max;
        m->work += s->work_ns;
        m->work_max += s->work_inst_max_ns;
        if (s->work_inst_min_ns != UINT64_MAX) {
            m->work_min += s->work_inst_min_ns;
            any_work_min = true;
        }
        m->bar += s->barrier_ns;
        m->bar_max += s->barrier_inst_max_ns;
        m->lock += s->lock_ns;
        m->lock_max += s->lock_inst_max_ns;
        m->loops += s->loops;
        m->iters += s->loop_iterations;
        m->inst_mean_work += s->inst_mean_work_ns;
    }
    if (!any_work_min) m->work_min = 0;
    if (m->count == 0) m->min = 0;
}

static double s_of(uint64_t ns)
{
    return (double)ns * 1e-9;
}

static const char *basename_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

bool scal_writer_saw_gomp;

/* Identity strings of one node. Parallel nodes share resolutions by address. */
struct identity {
    uint32_t name, module, build_id, file, function;
    int32_t line_first, line_last;
    uint64_t offset;
    bool gomp; /* forked through gcc's GOMP entry points */
};

/* A node's identity from its resolution (rc: its status). */
static void identity_from(struct scal_strtab *st, const struct scal_node *n, int rc,
                          struct scal_resolved *res, struct identity *out)
{
    char label[8192];
    if (rc < 0) {
        scal_diag_count(SCAL_DIAG_resolve_failed);
        res->offset = n->key; /* no module: the address keeps distinct regions distinct */
    } else if (res->line_first < 0)
        scal_diag_count(SCAL_DIAG_regions_without_source);
    out->module = (uint32_t)scal_strtab_add(st, res->module);
    out->build_id = (uint32_t)scal_strtab_add(st, res->build_id);
    out->offset = res->offset;
    out->file = (uint32_t)scal_strtab_add(st, res->file);
    out->function = (uint32_t)scal_strtab_add(st, res->function);
    out->line_first = res->line_first;
    out->line_last = res->line_last;
    const char *k = n->kind == SCAL_KIND_TASK ? "task " : "";
    if (res->gomp) scal_writer_saw_gomp = true;
    out->gomp = res->gomp;
    if (res->via_tail_call && res->file[0]) {
        /* the caller's line is not the pragma's: named honestly, identified by address */
        scal_diag_count(SCAL_DIAG_tail_call_unresolved);
        snprintf(label, sizeof(label), "%s:%d (via tail call)", basename_of(res->file),
                 res->line_first);
        out->line_first = out->line_last = -1;
    } else if (scal_callsite_in_runtime((const void *)(uintptr_t)n->key) && !n->body)
        snprintf(label, sizeof(label),
                 "nested region (call site lost to a tail call into the OpenMP runtime)");
    else if (res->file[0] && res->line_last >= res->line_first)
        snprintf(label, sizeof(label), "%s%s:%d-%d", k, basename_of(res->file), res->line_first,
                 res->line_last);
    else if (res->file[0])
        snprintf(label, sizeof(label), "%s%s:%d", k, basename_of(res->file), res->line_first);
    else
        snprintf(label, sizeof(label), "%s%s+%#llx", k,
                 res->function[0] ? res->function : basename_of(res->module),
                 (unsigned long long)res->offset);
    out->name = (uint32_t)scal_strtab_add(st, label);
}

struct resolving {
    struct scal_strtab *st;
    struct identity *ids;
    const uint32_t *pending; /* node ids, one per node resolved */
    const int *cached;       /* their identity cache lookups (0: to be stored, -1: uncacheable) */
    struct scal_idcache *cache;
};

static void resolved_one(uint32_t i, int rc, const struct scal_resolved *r, void *data)
{
    struct resolving *z = data;
    struct scal_resolved res = *r;
    const struct scal_node *n = scal_node_get(z->pending[i]);
    if (rc == SCAL_OK && z->cached[i] == 0)
        scal_idcache_store(z->cache, n->key, n->body, n->kind, &res);
    identity_from(z->st, n, rc, &res, &z->ids[z->pending[i]]);
}

/* Every node's identity: the root, user regions and serial gaps by name; the others from the
 * identity cache, or resolved (all the cache misses at once: resolve_client.h). Nodes with one
 * call site, body and kind share one resolution. */
static int resolve_identities(struct scal_strtab *st, uint32_t nnodes, struct identity *ids)
{
    bool lines = scal_tool_state.cfg.resolve_lines;
    struct scal_idcache *cache = lines
                                     ? scal_idcache_open(scal_tool_state.cfg.identity_cache,
                                                         scal_tool_state.cfg.identity_cache_default)
                                     : NULL;
    struct scal_resolved *res = malloc(sizeof(*res));
    uint32_t *same = calloc(nnodes ? nnodes : 1, sizeof(*same));
    uint32_t *pending = calloc(nnodes ? nnodes : 1, sizeof(*pending));
    int *cached = calloc(nnodes ? nnodes : 1, sizeof(*cached));
    struct scal_unresolved *todo = calloc(nnodes ? nnodes : 1, sizeof(*todo));
    uint32_t npending = 0;
    int rc = res && same && pending && cached && todo ? SCAL_OK : SCAL_ENOMEM;
    for (uint32_t id = 0; rc == SCAL_OK && id < nnodes; id++) {
        const struct scal_node *n = scal_node_get(id);
        struct identity *out = &ids[id];
        memset(out, 0, sizeof(*out));
        out->line_first = out->line_last = -1;
        same[id] = id;
        if (n->kind == SCAL_KIND_ROOT) {
            out->name = (uint32_t)scal_strtab_add(st, scal_program_name());
            continue;
        }
        if (n->kind == SCAL_KIND_USER) {
            out->name = (uint32_t)scal_strtab_add(st, n->name ? n->name : "");
            continue;
        }
        if (n->kind == SCAL_KIND_SERIAL) {
            out->name = (uint32_t)scal_strtab_add(st, "serial");
            continue;
        }
        for (uint32_t k = 1; k < id; k++) {
            const struct scal_node *o = scal_node_get(k);
            if (o->kind == n->kind && o->key == n->key && o->body == n->body) {
                same[id] = k;
                break;
            }
        }
        if (same[id] != id) continue;
        int hit = scal_idcache_lookup(cache, n->key, n->body, n->kind, res);
        if (hit == 1) {
            identity_from(st, n, SCAL_OK, res, out);
            continue;
        }
        cached[npending] = hit;
        todo[npending] = (struct scal_unresolved){n->key, n->body, n->kind};
        pending[npending++] = id;
    }
    if (rc == SCAL_OK && npending) {
        bool by_writer = false;
        struct resolving z = {st, ids, pending, cached, cache};
        if (lines) scal_diag_count(SCAL_DIAG_dwarf_opens);
        rc = scal_resolve_nodes(todo, npending, lines, resolved_one, &z, &by_writer);
    }
    for (uint32_t id = 0; rc == SCAL_OK && id < nnodes; id++)
        if (same[id] != id) ids[id] = ids[same[id]];
    free(res);
    free(same);
    free(pending);
    free(cached);
    free(todo);
    scal_idcache_close(cache);
    return rc == SCAL_ENOMEM ? scal__fail(rc, "out of memory naming %u regions", nnodes) : rc;
}

/* Closes what is still open at write time: the root, the final serial gap, and regions interrupted
 * by exit() or a signal (their instance ends now; counted in the diagnostics). After exit() inside
 * a parallel region or a signal, other threads may still be running their regions while this reads
 * their stacks: a deliberate best-effort read (the alternative is losing the run), kept out of
 * TSan's view. At a normal end every other thread is idle. */
__attribute__((no_sanitize("thread"))) static void close_open_regions(uint64_t end_ns)
{
    uint32_t nthreads = scal_threads_count();
    for (uint32_t i = 0; i < nthreads; i++) {
        struct scal_thread *t = scal_thread_at(i);
        if (!t) continue;
        for (uint32_t d = t->depth; d-- > 0;) {
            struct scal_frame *f = &t->frames[d];
            if (f->role == SCAL_FRAME_ROOT) continue;
            scal_diag_count(SCAL_DIAG_open_at_exit);
            if (f->role == SCAL_FRAME_ENCOUNTER) /* its node is set at push, never lazy */
                scal_stats_add_time(scal_thread_row(t, f->node), end_ns - f->begin_ns);
        }
        if (t->is_initial && t->depth >= 1 && t->frames[0].role == SCAL_FRAME_ROOT) {
            struct scal_frame *root = &t->frames[0];
            t->depth = 1;
            if (root->last_child_node >= 0 || scal_nodes_count() > 1) {
                uint32_t gap =
                    scal_node_lookup(SCAL_KIND_SERIAL, 0, 0, NULL, root->last_child_node, -1);
                scal_stats_add_time(scal_thread_row(t, gap), end_ns > root->last_child_end_ns
                                                                 ? end_ns - root->last_child_end_ns
                                                                 : 0);
                scal_stats_add_team(scal_thread_row(t, gap), 1, 1);
            }
            struct scal_node_stats *rs = scal_thread_row(t, 0);
            if (rs->count == 0) scal_stats_add_time(rs, end_ns - scal_tool_state.start_ns);
            t->depth = 0;
        }
    }
}

/* Unifies nodes with the same region identity (common/region_identity.h): an unrolled loop or an
 * inlined function gives one pragma several call sites. Parents and gap neighbours always precede
 * the nodes that name them in the node table, as the identity rule requires. out_of[old] = new
 * id. */
static int unify(const struct identity *ids, const struct scal_strtab *st, uint32_t nnodes,
                 uint32_t *out_of, uint32_t *nnew)
{
    struct scal_strtab keys;
    char **idents = NULL;
    struct scal_region_id_row *rows = calloc(nnodes ? nnodes : 1, sizeof(*rows));
    int rc = scal_strtab_init(&keys);
    if (rc < 0 || !rows) {
        free(rows);
        if (rc == SCAL_OK) scal_strtab_free(&keys);
        return scal__fail(SCAL_ENOMEM, "out of memory unifying %u regions", nnodes);
    }
    for (uint32_t id = 0; id < nnodes; id++) {
        const struct scal_node *n = scal_node_get(id);
        rows[id] = (struct scal_region_id_row){.id = id,
                                               .parent = n->parent,
                                               .kind = n->kind,
                                               .name = ids[id].name,
                                               .module = ids[id].module,
                                               .offset = ids[id].offset,
                                               .file = ids[id].file,
                                               .line_first = ids[id].line_first,
                                               .line_last = ids[id].line_last,
                                               .function = ids[id].function,
                                               .gap_prev = n->gap_prev,
                                               .gap_next = n->gap_next};
    }
    rc = scal_region_identities(rows, nnodes, st->strings, st->count, &idents);
    for (uint32_t id = 0; id < nnodes && rc == SCAL_OK; id++) {
        int64_t k = scal_strtab_add(&keys, idents[id]);
        if (k < 0) rc = (int)k;
        out_of[id] = (uint32_t)(k - 1); /* index 0 of a strtab is "" */
    }
    *nnew = (uint32_t)keys.count - 1;
    scal_region_identities_free(idents, nnodes);
    scal_strtab_free(&keys);
    free(rows);
    return rc;
}

/* Orders the table nodes by unified region: the group of new id k is members[first[k] ..
 * first[k + 1]) (a counting sort of out_of; first has nnew + 1 entries). */
static int group_by_region(const uint32_t *out_of, uint32_t nnodes, uint32_t nnew, uint32_t *first,
                           uint32_t *members)
{
    uint32_t *fill = calloc(nnew + 1, sizeof(*fill));
    if (!fill) return scal__fail(SCAL_ENOMEM, "out of memory merging %u regions", nnodes);
    for (uint32_t id = 0; id < nnodes; id++)
        first[out_of[id] + 1]++;
    for (uint32_t k = 0; k < nnew; k++)
        first[k + 1] += first[k];
    for (uint32_t id = 0; id < nnodes; id++)
        members[first[out_of[id]] + fill[out_of[id]]++] = id;
    free(fill);
    return SCAL_OK;
}

/* The identity (from the group's first node) and the merged time statistics of region nid. */
static void fill_region_row(struct scal_region_row *r, uint32_t nid, const struct group *g,
                            const struct identity *ids, const uint32_t *out_of)
{
    uint32_t rep = g->nodes[0];
    const struct scal_node *n = scal_node_get(rep);
    struct merged m;
    merge_group(g, &m);
    r->id = nid;
    r->parent = n->parent >= 0 ? (int32_t)out_of[n->parent] : -1;
    r->depth = n->depth;
    r->kind = n->kind;
    r->name = ids[rep].name;
    r->module = ids[rep].module;
    r->build_id = ids[rep].build_id;
    r->offset = ids[rep].offset;
    r->file = ids[rep].file;
    r->line_first = ids[rep].line_first;
    r->line_last = ids[rep].line_last;
    r->function = ids[rep].function;
    r->gap_prev = n->gap_prev >= 0 ? (int32_t)out_of[n->gap_prev] : -1;
    r->gap_next = n->gap_next >= 0 ? (int32_t)out_of[n->gap_next] : -1;
    r->count = m.count;
    r->time_total_s = s_of(m.sum);
    r->time_min_s = s_of(m.min);
    r->time_max_s = s_of(m.max);
    r->time_mean_s = m.count ? s_of(m.sum) / (double)m.count : 0.0;
    r->time_var_s2 = m.count > 1 ? m.m2 / (double)(m.count - 1) * 1e-18 : 0.0;
    bool exact = true;
    r->time_median_s = median_ns(g, m.count, &exact) * 1e-9;
    r->median_exact = exact;
    r->team_requested_min = m.req_min == INT32_MAX ? -1 : m.req_min;
    r->team_requested_max = m.req_min == INT32_MAX ? -1 : m.req_max;
    r->team_actual_min = m.act_min == INT32_MAX ? -1 : m.act_min;
    r->team_actual_max = m.act_min == INT32_MAX ? -1 : m.act_max;
    r->work_total_s = s_of(m.work);
    r->work_inst_max_s = s_of(m.work_max);
    r->work_inst_min_s = s_of(m.work_min);
    r->barrier_total_s = s_of(m.bar);
    r->barrier_inst_max_s = s_of(m.bar_max);
    r->lock_total_s = s_of(m.lock);
    r->lock_inst_max_s = s_of(m.lock_max);
    r->imbalance = m.work_max > 0 ? 1.0 - m.inst_mean_work / (double)m.work_max : 0.0;
    r->loops = m.loops;
    r->loop_iterations = m.iters;
    /* gcc inlines static loop schedules: the runtime, hence OMPT, never sees those loops */
    r->loops_unknown = n->kind == SCAL_KIND_PARALLEL && ids[rep].gomp;
}

/* time_wall_s of region row r (rows before it are filled): parallel and user regions, the union
 * of their instances' intervals over threads (wall.c); root and serial gaps, which one thread runs
 * one after the other, their summed time; task constructs, whose pieces run interleaved on any
 * thread, their summed time as an upper bound. Every value is clamped to the summed time and to
 * the parent's wall time (the union can count a begin racing an end twice). */
static void fill_wall(struct scal_region_row *rows, uint32_t nid, const struct group *g,
                      uint64_t end_ns)
{
    struct scal_region_row *r = &rows[nid];
    double wall = r->time_total_s;
    if (r->kind == SCAL_KIND_PARALLEL || r->kind == SCAL_KIND_USER) {
        uint64_t ns = 0;
        for (uint32_t i = 0; i < g->n; i++)
            ns += scal_wall_ns(g->nodes[i], end_ns);
        wall = s_of(ns);
    }
    if (wall > r->time_total_s) wall = r->time_total_s;
    if (r->parent >= 0 && (uint32_t)r->parent < nid && wall > rows[r->parent].time_wall_s)
        wall = rows[r->parent].time_wall_s;
    r->time_wall_s = wall;
}

/* The /threads rows gathered so far. */
struct thread_rows {
    struct scal_thread_row *rows;
    size_t n, cap;
};

/* Appends region nid's rows of /threads (per team index, summed over every row of its group) and
 * fills the region's per-thread work summary. */
static int add_team_rows(const struct group *g, uint32_t nid, struct thread_rows *out,
                         struct scal_region_row *r)
{
    const struct scal_node_stats *s;
    uint32_t tracked = 0, nmembers = 0;
    FOR_EACH_ROW(g, s)
    if (s->team_tracked > tracked) tracked = s->team_tracked;
    double wmax = 0, wmin = INFINITY, wsum = 0;
    for (uint32_t k = 0; k < tracked; k++) {
        struct scal_team_total sum = {0};
        FOR_EACH_ROW(g, s)
        {
            if (k >= s->team_tracked) continue;
            sum.instances += s->team[k].instances;
            sum.work_ns += s->team[k].work_ns;
            sum.barrier_ns += s->team[k].barrier_ns;
            sum.lock_ns += s->team[k].lock_ns;
        }
        if (!sum.instances) continue;
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 256;
            struct scal_thread_row *grown = realloc(out->rows, cap * sizeof(*grown));
            if (!grown) return scal__fail(SCAL_ENOMEM, "out of memory for per-thread rows");
            out->rows = grown;
            out->cap = cap;
        }
        out->rows[out->n++] = (struct scal_thread_row){
            nid, k, sum.instances, s_of(sum.work_ns), s_of(sum.barrier_ns), s_of(sum.lock_ns)};
        double w = s_of(sum.work_ns);
        wmax = w > wmax ? w : wmax;
        wmin = w < wmin ? w : wmin;
        wsum += w;
        nmembers++;
    }
    r->threads = nmembers;
    r->thread_work_max_s = nmembers ? wmax : 0.0;
    r->thread_work_min_s = nmembers ? wmin : 0.0;
    r->thread_work_mean_s = nmembers ? wsum / nmembers : 0.0;
    return SCAL_OK;
}

/* /regions and /threads: the table's nodes, resolved and unified by source identity, one row per
 * region with its statistics merged over threads and nodes. *max_team: the largest team seen;
 * *region_of_node: node id -> region id in the file, for the sensor and trace rows (the caller
 * frees it). */
static int write_regions(struct scal_snap_builder *file, struct scal_strtab *st, uint32_t nnodes,
                         int32_t *max_team, uint32_t **region_of_node, uint64_t end_ns)
{
    int rc = SCAL_OK;
    uint32_t nnew = 0;
    struct identity *ids = calloc(nnodes ? nnodes : 1, sizeof(*ids));
    uint32_t *out_of = calloc(nnodes ? nnodes : 1, sizeof(*out_of));
    uint32_t *members = calloc(nnodes ? nnodes : 1, sizeof(*members));
    uint32_t *first = calloc(nnodes + 1, sizeof(*first));
    struct scal_region_row *rows = calloc(nnodes ? nnodes : 1, sizeof(*rows));
    struct thread_rows trows = {0};
    if (!rows || !ids || !out_of || !members || !first) {
        rc = scal__fail(SCAL_ENOMEM, "out of memory merging %u regions", nnodes);
        goto done;
    }
    rc = resolve_identities(st, nnodes, ids);
    if (rc == SCAL_OK) rc = unify(ids, st, nnodes, out_of, &nnew);
    if (rc == SCAL_OK) rc = group_by_region(out_of, nnodes, nnew, first, members);
    if (rc < 0) goto done;
    *max_team = 0;
    for (uint32_t nid = 0; nid < nnew; nid++) {
        struct group g = {members + first[nid], first[nid + 1] - first[nid]};
        struct scal_region_row *r = &rows[nid];
        fill_region_row(r, nid, &g, ids, out_of);
        fill_wall(rows, nid, &g, end_ns);
        if (r->kind == SCAL_KIND_PARALLEL && r->team_actual_max > *max_team)
            *max_team = r->team_actual_max;
        rc = add_team_rows(&g, nid, &trows, r);
        if (rc < 0) goto done;
    }
    rc = scal_snap_table(file, "/", "regions", scal_table_run_regions.fields,
                         scal_table_run_regions.nfields, scal_table_run_regions.row_size, rows,
                         nnew);
    if (rc == SCAL_OK)
        rc = scal_snap_table(file, "/", "threads", scal_table_threads.fields,
                             scal_table_threads.nfields, scal_table_threads.row_size, trows.rows,
                             trows.n);
    if (rc == SCAL_OK) {
        *region_of_node = out_of;
        out_of = NULL;
    }
done:
    free(trows.rows);
    free(rows);
    free(first);
    free(members);
    free(out_of);
    free(ids);
    return rc;
}

static int write_trace(struct scal_snap_builder *file, const uint32_t *region_of_node)
{
    size_t ni = 0, ns = 0;
    uint64_t dropped = 0;
    uint32_t nthreads = scal_threads_count();
    int rc = SCAL_OK;
    for (uint32_t i = 0; i < nthreads; i++) {
        const struct scal_thread *t = scal_thread_at(i);
        if (t && t->trace) {
            ni += t->trace->ninstances;
            ns += t->trace->nstates;
            dropped += t->trace->dropped;
        }
    }
    struct scal_trace_instance_row *inst = malloc((ni ? ni : 1) * sizeof(*inst));
    struct scal_trace_state_row *states = malloc((ns ? ns : 1) * sizeof(*states));
    const char *g = "/trace";
    if (!inst || !states) {
        rc = scal__fail(SCAL_ENOMEM, "out of memory for /trace");
        goto done;
    }
    ni = ns = 0;
    const uint32_t *remap = region_of_node;
    for (uint32_t i = 0; i < nthreads; i++) {
        const struct scal_thread *t = scal_thread_at(i);
        if (!t || !t->trace) continue;
        memcpy(inst + ni, t->trace->instances, t->trace->ninstances * sizeof(*inst));
        memcpy(states + ns, t->trace->states, t->trace->nstates * sizeof(*states));
        ni += t->trace->ninstances;
        ns += t->trace->nstates;
    }
    /* a row's node is one of the table's (a worker's frame not yet told its node is a bug) */
    uint32_t nnodes = scal_nodes_count();
    for (size_t k = 0; remap && k < ni; k++)
        inst[k].region = inst[k].region < nnodes ? remap[inst[k].region] : UINT32_MAX;
    for (size_t k = 0; remap && k < ns; k++)
        states[k].region = states[k].region < nnodes ? remap[states[k].region] : UINT32_MAX;
    scal_snap_group(file, g);
    rc |= scal_snap_attr_i64(file, g, "capacity_per_thread", scal_tool_state.cfg.trace_entries);
    rc |= scal_snap_attr_i64(file, g, "recorded", (int64_t)(ni + ns));
    rc |= scal_snap_attr_i64(file, g, "dropped", (int64_t)dropped);
    rc |= scal_snap_table(file, g, "instances", scal_table_trace_instances.fields,
                          scal_table_trace_instances.nfields, scal_table_trace_instances.row_size,
                          inst, ni);
    rc |= scal_snap_table(file, g, "states", scal_table_trace_states.fields,
                          scal_table_trace_states.nfields, scal_table_trace_states.row_size, states,
                          ns);
done:
    free(inst);
    free(states);
    return rc < 0 ? (file->err ? file->err : rc) : SCAL_OK;
}

static uint64_t diagnostics_total(void)
{
    uint64_t total = 0;
    for (int i = 0; i < SCAL_DIAG_COUNT; i++) {
        /* A documented bound and a property of the binary, not measurement errors. */
        if (i == SCAL_DIAG_trace_dropped || i == SCAL_DIAG_regions_without_source) continue;
        /* how identities were found (the cache's own trouble is handled: it is rewritten) */
        if (i >= SCAL_DIAG_identity_cache_hits && i <= SCAL_DIAG_dwarf_opens) continue;
        if (i == SCAL_DIAG_threads_parked) continue; /* the flush's own doing */
        total += scal_diag_value(i);
    }
    return total;
}

/* /diagnostics: one int64 attribute per counter, "descriptions" saying what each counts
 * ("name: description", in counter order) and the messages of the cold paths. */
static int write_diagnostics(struct scal_snap_builder *file)
{
    int rc = SCAL_OK;
    const char *const *messages;
    size_t nmsg = scal_diag_messages(&messages);
    char text[SCAL_DIAG_COUNT][256];
    const char *descriptions[SCAL_DIAG_COUNT];
    const char *g = "/diagnostics";
    scal_snap_group(file, g);
    rc |= scal_snap_attr_i64(file, g, "errors_total", (int64_t)diagnostics_total());
    for (int i = 0; i < SCAL_DIAG_COUNT; i++) {
        rc |= scal_snap_attr_i64(file, g, scal_diag_name(i), (int64_t)scal_diag_value(i));
        snprintf(text[i], sizeof(text[i]), "%s: %s", scal_diag_name(i), scal_diag_text(i));
        descriptions[i] = text[i];
    }
    rc |= scal_snap_strings(file, g, "descriptions", descriptions, SCAL_DIAG_COUNT);
    rc |= scal_snap_strings(file, g, "messages", messages, nmsg);
    return rc < 0 ? file->err : SCAL_OK;
}

/* The default file name: scal-<program>-<pid>.h5, or scal-<program>-r<rank>-<pid>.h5 for an MPI
 * rank (mpi_rank.h). */
static void default_name(char *out, size_t len)
{
    struct scal_mpi_rank mpi;
    scal_mpi_rank_detect(&mpi);
    if (mpi.rank >= 0)
        snprintf(out, len, "scal-%s-r%d-%d.h5", scal_program_name(), (int)mpi.rank,
                 (int)scal_tool_state.measured_pid);
    else
        snprintf(out, len, "scal-%s-%d.h5", scal_program_name(), (int)scal_tool_state.measured_pid);
}

static void output_path(char *out, size_t len)
{
    const struct scal_config *cfg = &scal_tool_state.cfg;
    char name[512];
    struct scal_mpi_rank mpi;
    scal_mpi_rank_detect(&mpi);
    default_name(name, sizeof(name));
    if (!cfg->output[0])
        snprintf(out, len, "%s", name);
    else if (cfg->output_is_dir) {
        if (access(cfg->output, W_OK) == 0)
            snprintf(out, len, "%s%s%s", cfg->output,
                     cfg->output[strlen(cfg->output) - 1] == '/' ? "" : "/", name);
        else
            snprintf(out, len, "%s", name);
    } else if (mpi.rank >= 0) /* one file name for every rank: each rank writes its own */
        scal_mpi_rank_file_name(cfg->output, mpi.rank, out, len);
    else
        snprintf(out, len, "%s", cfg->output);
}

/* Records the whole run file's content. */
static int record_run(struct scal_snap_builder *file, uint64_t end_ns)
{
    int rc = SCAL_OK;
    struct scal_strtab st;
    int32_t max_team = 0;
    uint32_t *region_of_node = NULL;
    if (scal_strtab_init(&st) < 0) return SCAL_ENOMEM;
    scal_snap_attr_str(file, "/", SCAL_ATTR_FORMAT, SCAL_FORMAT_RUN);
    scal_snap_attr_i64(file, "/", SCAL_ATTR_SCHEMA_VERSION, SCAL_SCHEMA_VERSION);
    rc = scal_snap_attr_str(file, "/", SCAL_ATTR_TOOL_VERSION, SCAL_VERSION_STRING);
    if (rc == SCAL_OK)
        rc = write_regions(file, &st, scal_nodes_count(), &max_team, &region_of_node, end_ns);
    if (rc == SCAL_OK && scal_tool_state.cfg.trace_entries) rc = write_trace(file, region_of_node);
    if (rc == SCAL_OK && scal_tool_state.sensors &&
        scal_sensor_session_write(scal_tool_state.sensors, file, &st, scal_nodes_count(),
                                  region_of_node) < 0)
        scal_diag_count(SCAL_DIAG_sensor_errors);
    if (rc == SCAL_OK) rc = scal_write_run_meta(file, end_ns, max_team);
    if (rc == SCAL_OK) rc = write_diagnostics(file);
    if (rc == SCAL_OK)
        rc = scal_snap_strings(file, "/", "strings", (const char *const *)st.strings, st.count);
    scal_strtab_free(&st);
    free(region_of_node);
    return rc < 0 ? rc : file->err;
}

/* The header fields of the snapshot of the run file `path`. */
static struct scal_snap_info snapshot_info(const char *path)
{
    const struct scal_tool *ts = &scal_tool_state;
    struct scal_snap_info info = {.pid = ts->measured_pid,
                                  .tool_start_unix = ts->tool_start_unix,
                                  .flags = ts->cfg.verbose ? SCAL_SNAP_VERBOSE : 0};
    snprintf(info.final_path, sizeof(info.final_path), "%s", path);
    return info;
}

/* Above this size the snapshot goes through a file even to the writer process: a copy in memory
 * (which no one can page out) would double a large trace's memory at the end of a job whose memory
 * is capped. */
#define SCAL_SNAP_IN_MEMORY_MAX (32u << 20)

/* Hands the snapshot of the run file `path` to the writer process in memory (a memfd: no file is
 * made beside the run file, and the writer reads no file). SCAL_OK, SCAL_ETIMEDOUT (the writer
 * goes on with it) or SCAL_ECHILD (it died once the run file was in place: writing it again would
 * make a second one), with the message or the run file's name in `final`; any other status (no
 * writer, no memfd, the writer could not write or died): the caller takes the way through a
 * snapshot file, which keeps the measurements whatever happens next. */
static int hand_in_memory(const struct scal_snap_builder *b, const char *path, char *final,
                          size_t len)
{
    struct scal_snap_info info = snapshot_info(path);
    if (b->len > SCAL_SNAP_IN_MEMORY_MAX) return SCAL_ENOENT;
    int fd = memfd_create("scal-run-snapshot", MFD_CLOEXEC);
    if (fd < 0) return SCAL_ENOENT;
    int rc = scal_snap_write(b, &info, fd, "(the run snapshot in memory)");
    if (rc == SCAL_OK) rc = scal_writer_link_hand_fd(fd, SCAL_SNAP_CONVERT_QUIET, final, len);
    close(fd);
    return rc;
}

/* Saves the snapshot of the run file `path` under an unpredictable temporary name beside it
 * (".<name>.snap.XXXXXX", created exclusively: a link planted there is never followed); a path
 * that exists and is not a regular file (a device such as /dev/null, a fifo, a directory, a link)
 * is refused, never replaced. snap receives the snapshot's name once it exists. */
static int save_snapshot(const struct scal_snap_builder *b, const char *path, char *snap,
                         size_t len)
{
    char name[4300];
    struct scal_snap_info info = snapshot_info(path);
    snprintf(name, sizeof(name), "%s" SCAL_SNAP_SUFFIX, path);
    int rc = scal_safe_check_final(path, true);
    int fd = rc == SCAL_OK ? scal_safe_create_open(name, true, snap, len) : rc;
    if (fd < 0) return fd;
    rc = scal_snap_write(b, &info, fd, snap);
    if (close(fd) != 0 && rc == SCAL_OK)
        rc = scal__fail(SCAL_EIO, "cannot write '%s': %s", snap, strerror(errno));
    return rc;
}

SCAL_EXPORT int scal_write_run_file(const struct scal_tool_access *tool, uint64_t end_ns);

/* Starts the writer program on the snapshot, which writes the HDF5 run file: with SCAL_WRITER=
 * detached this process is the program's forked copy and becomes the writer (exec); else (the
 * writer process started with the tool is missing, or the fork failed) the writer is started in a
 * session of its own (the terminal's ^C is the program's, not the writer's; stdout is not kept
 * open) and waited for unless SCAL_WRITER=detached. The writer inherits stderr for its errors. */
static int start_writer(const char *snap)
{
    char prog[4300] = "";
    scal_writer_program((const void *)scal_write_run_file, prog, sizeof(prog));
    char *argv[] = {prog, (char *)snap, NULL};
    char **env = scal_writer_environment();
    if (!env) return scal__fail(SCAL_ENOMEM, "out of memory starting the run-file writer");
    if (scal_tool_state.in_writer_copy) {
        /* This process is the measured program's forked copy (flush.c): it becomes the writer,
         * keeping no descriptor of the program's but stderr (stdin and stdout are /dev/null). */
        close_range(3, ~0u, 0);
        execve(prog, argv, env);
        int e = errno;
        free(env);
        return scal__fail(SCAL_EIO, "cannot start the run-file writer '%s': %s", prog, strerror(e));
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none;
    sigemptyset(&none);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int err = posix_spawn(&pid, prog, &fa, &attr, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    free(env);
    if (err != 0)
        return scal__fail(SCAL_EIO, "cannot start the run-file writer '%s': %s", prog,
                          strerror(err));
    if (scal_tool_state.cfg.wait_writer) {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return scal__fail(SCAL_ECHILD, "the run-file writer '%s' failed (status %#x)", prog,
                              status);
    }
    return SCAL_OK;
}

/* The count of measurement problems, said once the run file's name is known. */
static void report_problems(const char *path)
{
    uint64_t problems = diagnostics_total();
    if (problems)
        fprintf(stderr, "scal: %llu measurement problem(s); see /diagnostics in %s\n",
                (unsigned long long)problems, path);
}

SCAL_EXPORT int scal_write_run_file(const struct scal_tool_access *tool, uint64_t end_ns)
{
    char path[4200], snap[4300];
    struct scal_snap_builder b;
    int rc = scal_writer_attach(tool);
    if (rc < 0) {
        fprintf(stderr, "scal: measurements lost: %s\n", scal__last_error(rc));
        return rc;
    }
    close_open_regions(end_ns);
    scal_snap_builder_init(&b);
    rc = record_run(&b, end_ns);
    bool recorded = rc == SCAL_OK;
    output_path(path, sizeof(path));
    snap[0] = '\0';
    if (recorded && scal_tool_state.cfg.wait_writer && !scal_tool_state.cfg.snapshot_only) {
        char final[4300];
        int handed = hand_in_memory(&b, path, final, sizeof(final));
        if (handed == SCAL_OK || handed == SCAL_ETIMEDOUT || handed == SCAL_ECHILD) {
            scal_snap_builder_free(&b);
            if (handed != SCAL_OK || scal_tool_state.cfg.verbose)
                fprintf(stderr, handed == SCAL_OK ? "scal: wrote %s\n" : "scal: %s\n", final);
            report_problems(handed == SCAL_OK ? final : path);
            return handed;
        }
    }
    if (recorded) rc = save_snapshot(&b, path, snap, sizeof(snap));
    if (recorded && rc < 0 && scal_tool_state.cfg.output[0]) {
        /* The requested place is unusable: keep the data in the current directory rather than lose
         * it. */
        char first[1200];
        snprintf(first, sizeof(first), "%s", scal__last_error(rc));
        if (snap[0]) unlink(snap);
        default_name(path, sizeof(path));
        fprintf(stderr, "scal: %s (SCAL_OUTPUT='%s'); writing %s instead\n", first,
                scal_tool_state.cfg.output, path);
        snap[0] = '\0';
        rc = save_snapshot(&b, path, snap, sizeof(snap));
    }
    scal_snap_builder_free(&b);
    if (rc < 0) {
        fprintf(stderr, "scal: measurements lost: %s\n", scal__last_error(rc));
        if (snap[0]) unlink(snap);
        return rc;
    }
    report_problems(path);
    if (scal_tool_state.cfg.snapshot_only) {
        /* scal run: the runner turns F.snap into F with the HDF5 it has loaded anyway */
        char left[4300];
        snprintf(left, sizeof(left), "%s" SCAL_SNAP_SUFFIX, path);
        if (rename(snap, left) != 0) {
            fprintf(stderr, "scal: cannot rename '%s' to '%s': %s\n", snap, left, strerror(errno));
            return SCAL_EIO;
        }
        return SCAL_OK;
    }
    rc = SCAL_ENOENT;
    if (scal_tool_state.cfg.wait_writer) {
        /* the writer process started with the tool (writer_link.h) writes it while we wait */
        char final[4300];
        rc = scal_writer_link_hand(snap, SCAL_SNAP_CONVERT_QUIET, final, sizeof(final));
        if (rc == SCAL_OK && scal_tool_state.cfg.verbose)
            fprintf(stderr, "scal: wrote %s\n", final);
        if (rc < 0 && rc != SCAL_ENOENT) rc = scal__fail(rc, "%s", final);
    }
    if (rc == SCAL_ENOENT) rc = start_writer(snap);
    if (rc < 0)
        fprintf(stderr,
                "scal: %s; the measurements are kept in %s (scal-run-writer %s writes the run "
                "file)\n",
                scal__last_error(rc), snap, snap);
    return rc;
}
