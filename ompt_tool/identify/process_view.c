// SPDX-License-Identifier: BSD-3-Clause
// process_view.h: lookups in the request's modules (in the loader's order) and its GOT slots
// (sorted by address).
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loaded_object.h"
#include "process_view.h"

static struct scal_view *current;
/* The trampolines the tool pointed slots at (one per fork entry, whatever the slots), looked up at
 * every call's destination. */
#define MAX_HOOKED 64
static const struct scal_rq_slot *hooked[MAX_HOOKED];
static uint32_t nhooked;

void scal_view_use(struct scal_view *v)
{
    current = v;
    nhooked = 0;
    for (uint32_t i = 0; v && i < v->rq->nslots; i++) {
        const struct scal_rq_slot *s = &v->rq->slots[i];
        bool known = false;
        for (uint32_t k = 0; k < nhooked && !known; k++)
            known = hooked[k]->value == s->value;
        if (s->hooked[0] && !known && nhooked < MAX_HOOKED) hooked[nhooked++] = s;
    }
}

struct scal_view *scal_view_current(void)
{
    return current;
}

static const struct scal_rq_segment *segment_at(const struct scal_rq_module *m, uint64_t addr)
{
    for (uint32_t k = 0; k < m->nsegs; k++)
        if (addr >= m->segs[k].lo && addr - m->segs[k].lo < m->segs[k].mem_size) return &m->segs[k];
    return NULL;
}

const struct scal_rq_module *scal_view_module_at(uint64_t addr)
{
    for (uint32_t i = 0; current && i < current->rq->nmodules; i++)
        if (segment_at(&current->rq->modules[i], addr)) return &current->rq->modules[i];
    return NULL;
}

bool scal_view_noted(uint64_t addr, const char **path, uint64_t *base)
{
    for (uint32_t i = current ? current->rq->nnoted : 0; i-- > 0;) {
        const struct scal_rq_noted *n = &current->rq->noted[i];
        if (addr > n->lo && addr <= n->hi) {
            *path = n->path;
            *base = n->base;
            return true;
        }
    }
    return false;
}

const struct scal_rq_module *scal_view_loaded(uint64_t addr, uint64_t noted_addr)
{
    const char *noted = NULL;
    uint64_t noted_base = 0;
    bool was_noted = scal_view_noted(noted_addr, &noted, &noted_base);
    const struct scal_rq_module *m = scal_view_module_at(addr);
    if (!m) return NULL;
    if (was_noted && !scal_module_still_noted(m->base, m->name, noted_base, noted)) return NULL;
    return m;
}

/* The pages a segment's file bytes are mapped on: [*lo, *hi). */
static void file_pages(const struct scal_rq_segment *s, uint64_t *lo, uint64_t *hi)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    *lo = s->lo & ~(page - 1);
    *hi = (s->lo + s->file_size + page - 1) & ~(page - 1);
}

/* The module's segment whose file pages hold addr. */
static const struct scal_rq_segment *file_segment_at(const struct scal_rq_module *m, uint64_t addr)
{
    for (uint32_t k = 0; k < m->nsegs; k++) {
        uint64_t lo, hi;
        file_pages(&m->segs[k], &lo, &hi);
        if (m->segs[k].file_size && addr >= lo && addr < hi) return &m->segs[k];
    }
    return NULL;
}

bool scal_view_readable(uint64_t lo, uint64_t hi)
{
    const struct scal_rq_module *m = NULL;
    for (uint32_t i = 0; current && !m && i < current->rq->nmodules; i++)
        if (file_segment_at(&current->rq->modules[i], lo)) m = &current->rq->modules[i];
    /* the range may run on into the module's next segment (a scan window past the end of code) */
    for (uint64_t at = lo; m && at < hi;) {
        const struct scal_rq_segment *s = file_segment_at(m, at);
        uint64_t page_lo, page_hi;
        if (!s) return false;
        if (!current->make_readable(current, m, s)) {
            current->incomplete = true;
            return false;
        }
        file_pages(s, &page_lo, &page_hi);
        at = page_hi;
    }
    return m != NULL && hi > lo;
}

const struct scal_rq_slot *scal_view_slot(uint64_t slot)
{
    const struct scal_rq_slot *s = current ? current->rq->slots : NULL;
    size_t lo = 0, hi = current ? current->rq->nslots : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].slot == slot) return &s[mid];
        if (s[mid].slot < slot)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool scal_view_word(uint64_t at, uint64_t *value)
{
    const struct scal_rq_slot *s = scal_view_slot(at);
    if (s) {
        *value = s->value;
        return true;
    }
    const struct scal_rq_module *m = scal_view_module_at(at);
    if (!m || scal_view_module_at(at + sizeof(*value) - 1) != m) return false;
    if (current->read_word && current->read_word(current, at, value)) return true;
    current->incomplete = true;
    return false;
}

const char *scal_view_hooked(uint64_t value)
{
    for (uint32_t i = 0; i < nhooked; i++)
        if (hooked[i]->value == value) return hooked[i]->hooked;
    return NULL;
}

void scal_view_build_id(const struct scal_rq_module *m, char *out, size_t len)
{
    size_t o = 0;
    if (len) out[0] = '\0';
    for (uint32_t k = 0; m && k < m->build_id_len && o + 3 < len; k++)
        o += (size_t)snprintf(out + o, len - o, "%02x", m->build_id[k]);
}
