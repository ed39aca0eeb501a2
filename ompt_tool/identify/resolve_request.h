/* SPDX-License-Identifier: BSD-3-Clause */
/* A request to resolve region identities, and its answers, as bytes (resolve_request.c owns the
 * format). The measured process gathers in a request what only it can see (its loaded modules and
 * their segments, the GOT slots' bound values, the tool's notes of modules unloaded since, the
 * nodes to resolve); the resolver (resolve.c) reads nothing else of the process, so that it can
 * run in the writer process (scal-run-writer, with libdw linked in) as well as in the measured
 * process (libscal_ompt_resolve.so, when there is no writer process). */
#ifndef SCAL_RESOLVE_REQUEST_H
#define SCAL_RESOLVE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scal_bytes;
struct scal_cursor;
struct scal_resolved;

/* A loaded segment (PT_LOAD) of a module: the file's bytes [offset, offset + file_size) at
 * [lo, lo + file_size) (lo: its address in the process), more memory up to lo + mem_size. */
struct scal_rq_segment {
    uint64_t lo, mem_size, file_size, offset;
    uint32_t flags; /* PF_R, PF_W, PF_X */
};

/* A loaded object, as the dynamic loader lists it. */
struct scal_rq_module {
    char *path;      /* the loader's name; the executable's from /proc/self/exe */
    char *name;      /* the loader's name as it is ("" for the executable) */
    uint64_t base;   /* the load bias */
    uint64_t lo, hi; /* the span of its segments */
    bool is_program; /* the executable (listed first) */
    unsigned char build_id[64];
    uint32_t build_id_len;
    struct scal_rq_segment *segs;
    uint32_t nsegs;
};

/* A GOT slot (one a relocation binds by name): its bound value, the symbol its relocation names,
 * and the fork entry whose trampoline the tool pointed it at ("" for none). */
struct scal_rq_slot {
    uint64_t slot, value;
    char *name, *hooked;
};

/* A module the tool noted when a region's node was made in it (modules.c): it holds the addresses
 * (lo, hi], also once unloaded. */
struct scal_rq_noted {
    uint64_t lo, hi, base;
    char *path;
};

/* A node to resolve; symbol: the nearest dynamic symbol to ra - 1 (dladdr), "" for none. */
struct scal_rq_node {
    uint64_t ra, body;
    int32_t kind;
    char *symbol;
};

struct scal_rq {
    int32_t pid;        /* the measured process */
    bool lines;         /* read DWARF (SCAL_RESOLVE) */
    bool has_demangler; /* the program has __cxa_demangle (a C++ program) */
    struct scal_rq_module *modules;
    uint32_t nmodules;
    struct scal_rq_slot *slots; /* by slot address */
    uint32_t nslots;
    struct scal_rq_noted *noted; /* in the order noted: the last one holding an address wins */
    uint32_t nnoted;
    struct scal_rq_node *nodes;
    uint32_t nnodes;
};

/* Encodes rq into b (b->failed when out of memory). */
void scal_rq_encode(const struct scal_rq *rq, struct scal_bytes *b);
/* Decodes a request into *rq (released with scal_rq_release): SCAL_OK, or SCAL_EFORMAT (with the
 * message) when the bytes are no request of this version, SCAL_ENOMEM. */
int scal_rq_decode(const void *p, size_t len, struct scal_rq *rq);
void scal_rq_release(struct scal_rq *rq);

/* One answer: the status of the node's resolution and what was found (also the identity cache's
 * value, identity_cache.c). */
void scal_rq_put_resolved(struct scal_bytes *b, const struct scal_resolved *r);
void scal_rq_get_resolved(struct scal_cursor *c, struct scal_resolved *r);
/* The answers to a request: its version, then for each node its status and scal_rq_put_resolved. */
void scal_rq_put_answers_header(struct scal_bytes *b, uint32_t n);
void scal_rq_put_answer(struct scal_bytes *b, int status, const struct scal_resolved *r);
/* The number of answers (-1: not answers of this version). */
int64_t scal_rq_get_answers_header(struct scal_cursor *c);
int scal_rq_get_answer(struct scal_cursor *c, struct scal_resolved *r);

#endif
