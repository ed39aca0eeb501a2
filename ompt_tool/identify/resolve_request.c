// SPDX-License-Identifier: BSD-3-Clause
// resolve_request.h: the request's and the answers' bytes (common/bytes.h: the machine's own byte
// order; both ends are one build on one machine). A version word starts each: a writer program of
// another build refuses the request, and the measured process resolves in itself.
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "errmsg.h"
#include "resolve_request.h"
#include "tool.h"

#define REQUEST_VERSION 0x53525131u /* "SRQ1" */
#define ANSWERS_VERSION 0x53524131u /* "SRA1" */
#define MAX_ITEMS (1u << 24)        /* of any one kind: bounds what garbage may allocate */

void scal_rq_encode(const struct scal_rq *rq, struct scal_bytes *b)
{
    scal_bytes_u32(b, REQUEST_VERSION);
    scal_bytes_u32(b, (uint32_t)rq->pid);
    scal_bytes_u32(b, (rq->lines ? 1u : 0u) | (rq->has_demangler ? 2u : 0u));
    scal_bytes_u32(b, rq->nmodules);
    for (uint32_t i = 0; i < rq->nmodules; i++) {
        const struct scal_rq_module *m = &rq->modules[i];
        scal_bytes_str(b, m->path);
        scal_bytes_str(b, m->name);
        scal_bytes_u64(b, m->base);
        scal_bytes_u64(b, m->lo);
        scal_bytes_u64(b, m->hi);
        scal_bytes_u32(b, m->is_program ? 1u : 0u);
        scal_bytes_u32(b, m->build_id_len);
        scal_bytes_put(b, m->build_id, m->build_id_len);
        scal_bytes_u32(b, m->nsegs);
        for (uint32_t k = 0; k < m->nsegs; k++) {
            scal_bytes_u64(b, m->segs[k].lo);
            scal_bytes_u64(b, m->segs[k].mem_size);
            scal_bytes_u64(b, m->segs[k].file_size);
            scal_bytes_u64(b, m->segs[k].offset);
            scal_bytes_u32(b, m->segs[k].flags);
        }
    }
    scal_bytes_u32(b, rq->nslots);
    for (uint32_t i = 0; i < rq->nslots; i++) {
        scal_bytes_u64(b, rq->slots[i].slot);
        scal_bytes_u64(b, rq->slots[i].value);
        scal_bytes_str(b, rq->slots[i].name);
        scal_bytes_str(b, rq->slots[i].hooked);
    }
    scal_bytes_u32(b, rq->nnoted);
    for (uint32_t i = 0; i < rq->nnoted; i++) {
        scal_bytes_u64(b, rq->noted[i].lo);
        scal_bytes_u64(b, rq->noted[i].hi);
        scal_bytes_u64(b, rq->noted[i].base);
        scal_bytes_str(b, rq->noted[i].path);
    }
    scal_bytes_u32(b, rq->nnodes);
    for (uint32_t i = 0; i < rq->nnodes; i++) {
        const struct scal_rq_node *n = &rq->nodes[i];
        scal_bytes_u64(b, n->ra);
        scal_bytes_u64(b, n->body);
        scal_bytes_u32(b, (uint32_t)n->kind);
        scal_bytes_str(b, n->symbol);
    }
}

/* calloc of n items, refused past MAX_ITEMS (and for n = 0 a valid pointer all the same). */
static void *items(struct scal_cursor *c, uint32_t n, size_t size)
{
    void *p = !c->bad && n <= MAX_ITEMS ? calloc(n ? n : 1, size) : NULL;
    if (!p) c->bad = true;
    return p;
}

int scal_rq_decode(const void *p, size_t len, struct scal_rq *rq)
{
    struct scal_cursor c = {p, (const unsigned char *)p + len, false};
    memset(rq, 0, sizeof(*rq));
    if (scal_cursor_u32(&c) != REQUEST_VERSION)
        return scal__fail(SCAL_EFORMAT, "not a resolution request of this version of scal");
    rq->pid = (int32_t)scal_cursor_u32(&c);
    uint32_t flags = scal_cursor_u32(&c);
    rq->lines = flags & 1u;
    rq->has_demangler = flags & 2u;
    rq->nmodules = scal_cursor_u32(&c);
    rq->modules = items(&c, rq->nmodules, sizeof(*rq->modules));
    for (uint32_t i = 0; !c.bad && i < rq->nmodules; i++) {
        struct scal_rq_module *m = &rq->modules[i];
        m->path = scal_cursor_strdup(&c);
        m->name = scal_cursor_strdup(&c);
        m->base = scal_cursor_u64(&c);
        m->lo = scal_cursor_u64(&c);
        m->hi = scal_cursor_u64(&c);
        m->is_program = scal_cursor_u32(&c) & 1u;
        m->build_id_len = scal_cursor_u32(&c);
        if (m->build_id_len > sizeof(m->build_id)) c.bad = true;
        if (!c.bad) scal_cursor_get(&c, m->build_id, m->build_id_len);
        m->nsegs = scal_cursor_u32(&c);
        m->segs = items(&c, m->nsegs, sizeof(*m->segs));
        for (uint32_t k = 0; !c.bad && k < m->nsegs; k++) {
            m->segs[k].lo = scal_cursor_u64(&c);
            m->segs[k].mem_size = scal_cursor_u64(&c);
            m->segs[k].file_size = scal_cursor_u64(&c);
            m->segs[k].offset = scal_cursor_u64(&c);
            m->segs[k].flags = scal_cursor_u32(&c);
        }
    }
    rq->nslots = scal_cursor_u32(&c);
    rq->slots = items(&c, rq->nslots, sizeof(*rq->slots));
    for (uint32_t i = 0; !c.bad && i < rq->nslots; i++) {
        rq->slots[i].slot = scal_cursor_u64(&c);
        rq->slots[i].value = scal_cursor_u64(&c);
        rq->slots[i].name = scal_cursor_strdup(&c);
        rq->slots[i].hooked = scal_cursor_strdup(&c);
        if (i && rq->slots[i].slot <= rq->slots[i - 1].slot) c.bad = true; /* sorted, distinct */
    }
    rq->nnoted = scal_cursor_u32(&c);
    rq->noted = items(&c, rq->nnoted, sizeof(*rq->noted));
    for (uint32_t i = 0; !c.bad && i < rq->nnoted; i++) {
        rq->noted[i].lo = scal_cursor_u64(&c);
        rq->noted[i].hi = scal_cursor_u64(&c);
        rq->noted[i].base = scal_cursor_u64(&c);
        rq->noted[i].path = scal_cursor_strdup(&c);
    }
    rq->nnodes = scal_cursor_u32(&c);
    rq->nodes = items(&c, rq->nnodes, sizeof(*rq->nodes));
    for (uint32_t i = 0; !c.bad && i < rq->nnodes; i++) {
        struct scal_rq_node *n = &rq->nodes[i];
        n->ra = scal_cursor_u64(&c);
        n->body = scal_cursor_u64(&c);
        n->kind = (int32_t)scal_cursor_u32(&c);
        n->symbol = scal_cursor_strdup(&c);
    }
    if (!c.bad && c.p == c.end) return SCAL_OK;
    scal_rq_release(rq);
    return scal__fail(SCAL_EFORMAT, "a resolution request that is cut short or malformed");
}

void scal_rq_release(struct scal_rq *rq)
{
    for (uint32_t i = 0; rq->modules && i < rq->nmodules; i++) {
        free(rq->modules[i].path);
        free(rq->modules[i].name);
        free(rq->modules[i].segs);
    }
    for (uint32_t i = 0; rq->slots && i < rq->nslots; i++) {
        free(rq->slots[i].name);
        free(rq->slots[i].hooked);
    }
    for (uint32_t i = 0; rq->noted && i < rq->nnoted; i++)
        free(rq->noted[i].path);
    for (uint32_t i = 0; rq->nodes && i < rq->nnodes; i++)
        free(rq->nodes[i].symbol);
    free(rq->modules);
    free(rq->slots);
    free(rq->noted);
    free(rq->nodes);
    memset(rq, 0, sizeof(*rq));
}

void scal_rq_put_resolved(struct scal_bytes *b, const struct scal_resolved *r)
{
    scal_bytes_str(b, r->module);
    scal_bytes_str(b, r->build_id);
    scal_bytes_u64(b, r->offset);
    scal_bytes_str(b, r->file);
    scal_bytes_u32(b, (uint32_t)r->line_first);
    scal_bytes_u32(b, (uint32_t)r->line_last);
    scal_bytes_str(b, r->function);
    scal_bytes_u32(b, (r->via_tail_call ? 1u : 0u) | (r->gomp ? 2u : 0u));
}

void scal_rq_get_resolved(struct scal_cursor *c, struct scal_resolved *r)
{
    scal_cursor_str(c, r->module, sizeof(r->module));
    scal_cursor_str(c, r->build_id, sizeof(r->build_id));
    r->offset = scal_cursor_u64(c);
    scal_cursor_str(c, r->file, sizeof(r->file));
    r->line_first = (int)scal_cursor_u32(c);
    r->line_last = (int)scal_cursor_u32(c);
    scal_cursor_str(c, r->function, sizeof(r->function));
    uint32_t flags = scal_cursor_u32(c);
    r->via_tail_call = flags & 1u;
    r->gomp = flags & 2u;
}

void scal_rq_put_answers_header(struct scal_bytes *b, uint32_t n)
{
    scal_bytes_u32(b, ANSWERS_VERSION);
    scal_bytes_u32(b, n);
}

void scal_rq_put_answer(struct scal_bytes *b, int status, const struct scal_resolved *r)
{
    scal_bytes_u32(b, (uint32_t)status);
    scal_rq_put_resolved(b, r);
}

int64_t scal_rq_get_answers_header(struct scal_cursor *c)
{
    if (scal_cursor_u32(c) != ANSWERS_VERSION) return -1;
    uint32_t n = scal_cursor_u32(c);
    return c->bad ? -1 : (int64_t)n;
}

int scal_rq_get_answer(struct scal_cursor *c, struct scal_resolved *r)
{
    int status = (int)scal_cursor_u32(c);
    scal_rq_get_resolved(c, r);
    return c->bad ? SCAL_EFORMAT : status;
}
