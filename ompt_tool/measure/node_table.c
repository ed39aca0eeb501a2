// SPDX-License-Identifier: BSD-3-Clause
// The global table of region nodes: lock-free lookups, rare insertions serialised by a spin flag.
//
// Lookups run in OMPT callbacks on any thread. A slot of the hash index is published (release)
// only after its node is completely written, so a reader that sees the slot (acquire) sees the
// node. Insertions happen once per distinct node; they take `insert_lock` so that ids stay dense
// and every node exists once.
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static struct scal_node *nodes;
static _Atomic uint32_t *slots; /* node id + 1, 0 = empty */
static uint32_t capacity, nslots_mask;
static _Atomic uint32_t count;
static atomic_flag insert_lock = ATOMIC_FLAG_INIT;
/* Names of user regions live in one arena reserved at initialisation: NAME_ARENA_PER_NODE bytes per
 * node on average, each name cut to NAME_MAX_BYTES (with its terminating zero). */
#define NAME_ARENA_PER_NODE 64
#define NAME_MAX_BYTES 256
static char *name_arena;
static size_t name_arena_size, name_arena_used;

/* MurmurHash3's 64-bit finaliser (fmix64). */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static uint64_t hash_key(uint8_t kind, int32_t parent, uint64_t key, uint64_t body, int32_t gp,
                         int32_t gn)
{
    return mix(key ^ mix(body) ^
               mix(((uint64_t)kind << 56) ^ ((uint64_t)(uint32_t)parent << 20) ^
                   ((uint64_t)(uint32_t)gp << 8) ^ (uint64_t)(uint32_t)gn));
}

static bool same(const struct scal_node *n, uint8_t kind, int32_t parent, uint64_t key,
                 uint64_t body, const char *name, int32_t gp, int32_t gn)
{
    if (n->kind != kind || n->parent != parent || n->key != key || n->body != body) return false;
    if (kind == SCAL_KIND_SERIAL) return n->gap_prev == gp && n->gap_next == gn;
    if (kind == SCAL_KIND_USER) return n->name && name && strcmp(n->name, name) == 0;
    return true;
}

int scal_nodes_init(uint32_t cap)
{
    uint32_t ns = 1;
    while (ns < cap * 2) /* the index stays at most half full: short probe chains */
        ns <<= 1;
    name_arena_size = (size_t)cap * NAME_ARENA_PER_NODE;
    /* one reservation: nodes, then the index, then the names */
    size_t at_slots = scal_cache_align((size_t)cap * sizeof(*nodes));
    size_t at_names = scal_cache_align(at_slots + (size_t)ns * sizeof(*slots));
    unsigned char *base = scal_reserve_zeroed(at_names + name_arena_size);
    if (!base) return -1;
    nodes = (struct scal_node *)base;
    slots = (_Atomic uint32_t *)(base + at_slots);
    name_arena = (char *)(base + at_names);
    capacity = cap;
    nslots_mask = ns - 1;
    /* Root: id 0. The last id is reserved for the overflow node. */
    nodes[0] = (struct scal_node){
        .key = 0, .parent = -1, .kind = SCAL_KIND_ROOT, .gap_prev = -1, .gap_next = -1};
    nodes[cap - 1] = (struct scal_node){.key = 0,
                                        .parent = 0,
                                        .kind = SCAL_KIND_USER,
                                        .depth = 1,
                                        .gap_prev = -1,
                                        .gap_next = -1,
                                        .name = "(regions beyond SCAL_MAX_REGIONS)"};
    atomic_store(&count, 1);
    return 0;
}

static const char *copy_name(const char *name)
{
    size_t len = strlen(name) + 1;
    if (len > NAME_MAX_BYTES) len = NAME_MAX_BYTES;
    if (name_arena_used + len > name_arena_size) return "(name arena full)";
    char *p = name_arena + name_arena_used;
    memcpy(p, name, len - 1);
    p[len - 1] = '\0';
    name_arena_used += len;
    return p;
}

static uint32_t lookup(uint8_t kind, int32_t parent, uint64_t key, uint64_t body, const char *name,
                       int32_t gap_prev, int32_t gap_next)
{
    uint64_t h = hash_key(kind, parent, key, body, gap_prev, gap_next);
    uint32_t i = (uint32_t)h & nslots_mask;
    for (;;) {
        uint32_t v = atomic_load_explicit(&slots[i], memory_order_acquire);
        if (v == 0) break;
        if (same(&nodes[v - 1], kind, parent, key, body, name, gap_prev, gap_next)) return v - 1;
        i = (i + 1) & nslots_mask;
    }
    /* Not found: insert under the lock, probing again from the start of the chain. */
    while (atomic_flag_test_and_set_explicit(&insert_lock, memory_order_acquire)) {
    }
    uint32_t id;
    i = (uint32_t)h & nslots_mask;
    for (;;) {
        uint32_t v = atomic_load_explicit(&slots[i], memory_order_acquire);
        if (v == 0) break;
        if (same(&nodes[v - 1], kind, parent, key, body, name, gap_prev, gap_next)) {
            atomic_flag_clear_explicit(&insert_lock, memory_order_release);
            return v - 1;
        }
        i = (i + 1) & nslots_mask;
    }
    id = atomic_load_explicit(&count, memory_order_relaxed);
    if (id >= capacity - 1) {
        /* Full: the overflow node (pre-built as the last id) joins the dense id range once. */
        if (id == capacity - 1) atomic_store_explicit(&count, capacity, memory_order_release);
        atomic_flag_clear_explicit(&insert_lock, memory_order_release);
        scal_diag_count(SCAL_DIAG_regions_overflow);
        return capacity - 1;
    }
    struct scal_node *n = &nodes[id];
    n->key = key;
    n->body = body;
    n->parent = parent;
    n->kind = kind;
    n->depth = parent >= 0 ? nodes[parent].depth + 1 : 0;
    n->gap_prev = gap_prev;
    n->gap_next = gap_next;
    n->name = kind == SCAL_KIND_USER && name ? copy_name(name) : NULL;
    /* its module, in case the program unloads it before the run file is written */
    if (kind == SCAL_KIND_PARALLEL || kind == SCAL_KIND_TASK) scal_module_note(key);
    if (body) scal_module_note(body);
    atomic_store_explicit(&count, id + 1, memory_order_release);
    atomic_store_explicit(&slots[i], id + 1, memory_order_release);
    atomic_flag_clear_explicit(&insert_lock, memory_order_release);
    return id;
}

uint32_t scal_node_lookup(uint8_t kind, int32_t parent, uint64_t key, const char *name,
                          int32_t gap_prev, int32_t gap_next)
{
    return lookup(kind, parent, key, 0, name, gap_prev, gap_next);
}

uint32_t scal_node_lookup_fork(int32_t parent, uint64_t codeptr, uint64_t body)
{
    return lookup(SCAL_KIND_PARALLEL, parent, codeptr, body, NULL, -1, -1);
}

uint32_t scal_nodes_count(void)
{
    return atomic_load_explicit(&count, memory_order_acquire);
}

const struct scal_node *scal_node_get(uint32_t id)
{
    return id < capacity ? &nodes[id] : NULL;
}
