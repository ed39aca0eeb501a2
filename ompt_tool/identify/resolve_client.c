// SPDX-License-Identifier: BSD-3-Clause
// resolve_client.h. The request carries what only this process can see: its loaded objects (from
// the loader's list), the values bound in their GOT slots, the tool's notes of modules unloaded
// since, and the nodes. It goes to the writer process in a memfd, which the answers overwrite.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bytes.h"
#include "errmsg.h"
#include "fork_hook.h"
#include "grow.h"
#include "loaded_object.h"
#include "resolve_client.h"
#include "resolve_link.h"
#include "resolve_request.h"
#include "tool.h"
#include "writer_link.h"

struct gathered {
    struct scal_rq *rq;
    bool first, failed;
    size_t modules_cap, slots_cap;
};

static int add_slot(uintptr_t slot, const char *name, void *data)
{
    struct gathered *g = data;
    struct scal_rq *rq = g->rq;
    if (scal_grow((void **)&rq->slots, &g->slots_cap, rq->nslots, sizeof(*rq->slots), 256) < 0) {
        g->failed = true;
        return 1;
    }
    uint64_t value = __atomic_load_n((const uint64_t *)slot, __ATOMIC_RELAXED);
    const char *hooked = scal_fork_hook_entry(value);
    rq->slots[rq->nslots++] =
        (struct scal_rq_slot){slot, value, (char *)name, (char *)(hooked ? hooked : "")};
    return 0;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct gathered *g = data;
    struct scal_rq *rq = g->rq;
    struct scal_loaded_object o;
    scal_loaded_object_of(info, g->first, &o);
    g->first = false;
    if (!o.hi || strstr(o.name, "linux-vdso") || strstr(o.name, "linux-gate")) return 0;
    if (scal_grow((void **)&rq->modules, &g->modules_cap, rq->nmodules, sizeof(*rq->modules), 32) <
        0) {
        g->failed = true;
        return 1;
    }
    struct scal_rq_module *m = &rq->modules[rq->nmodules];
    memset(m, 0, sizeof(*m));
    m->name = (char *)o.name;
    m->path = (char *)(o.name[0] ? o.name : scal_executable_path());
    m->base = o.base;
    m->lo = o.lo;
    m->hi = o.hi;
    m->is_program = o.is_program;
    size_t id_len = 0;
    const unsigned char *id = scal_loaded_build_id(info, &id_len);
    if (id && id_len <= sizeof(m->build_id)) {
        memcpy(m->build_id, id, id_len);
        m->build_id_len = (uint32_t)id_len;
    }
    m->segs = calloc(info->dlpi_phnum ? info->dlpi_phnum : 1, sizeof(*m->segs));
    if (!m->segs) {
        g->failed = true;
        return 1;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        m->segs[m->nsegs++] = (struct scal_rq_segment){info->dlpi_addr + ph->p_vaddr, ph->p_memsz,
                                                       ph->p_filesz, ph->p_offset, ph->p_flags};
    }
    rq->nmodules++;
    /* the runtime's slots and this library's: their code is never read as a region's call site
     * (one read would find no slot, and the writer process would leave the resolution here) */
    bool own =
        o.text_lo && o.text_lo < o.text_hi &&
        (scal_callsite_in_runtime((const void *)o.text_lo) ||
         ((uintptr_t)scal_resolve_nodes >= o.text_lo && (uintptr_t)scal_resolve_nodes < o.text_hi));
    if (!own) scal_loaded_slots(info, add_slot, g);
    return g->failed;
}

static int by_slot(const void *a, const void *b)
{
    uint64_t x = ((const struct scal_rq_slot *)a)->slot, y = ((const struct scal_rq_slot *)b)->slot;
    return x < y ? -1 : x > y;
}

/* The request's bytes into b. Strings point into the loader's and the tool's own memory. */
static int gather(const struct scal_unresolved *nodes, uint32_t n, bool lines, struct scal_bytes *b)
{
    struct scal_rq rq = {.pid = (int32_t)getpid(), .lines = lines};
    struct gathered g = {&rq, true, false, 0, 0};
    rq.has_demangler = dlsym(RTLD_DEFAULT, "__cxa_demangle") != NULL;
    dl_iterate_phdr(add_module, &g);
    if (rq.nslots) qsort(rq.slots, rq.nslots, sizeof(*rq.slots), by_slot);
    uint32_t k = 0; /* one slot bound by two relocations is one */
    for (uint32_t i = 0; i < rq.nslots; i++)
        if (!k || rq.slots[i].slot != rq.slots[k - 1].slot) rq.slots[k++] = rq.slots[i];
    rq.nslots = k;
    uint64_t lo, hi, base;
    const char *path;
    while (scal_module_noted(rq.nnoted, &lo, &hi, &base, &path))
        rq.nnoted++;
    rq.noted = calloc(rq.nnoted ? rq.nnoted : 1, sizeof(*rq.noted));
    rq.nodes = calloc(n ? n : 1, sizeof(*rq.nodes));
    for (uint32_t i = 0; rq.noted && i < rq.nnoted; i++) {
        scal_module_noted(i, &rq.noted[i].lo, &rq.noted[i].hi, &rq.noted[i].base, &path);
        rq.noted[i].path = (char *)path;
    }
    for (uint32_t i = 0; rq.nodes && i < n; i++) {
        const char *symbol = NULL;
        (void)scal_module_loaded(nodes[i].ra - 1, nodes[i].ra, &symbol);
        rq.nodes[i] = (struct scal_rq_node){nodes[i].ra, nodes[i].body, nodes[i].kind,
                                            (char *)(symbol ? symbol : "")};
    }
    rq.nnodes = n;
    if (!g.failed && rq.noted && rq.nodes) scal_rq_encode(&rq, b);
    int rc = g.failed || !rq.noted || !rq.nodes || b->failed ? SCAL_ENOMEM : SCAL_OK;
    for (uint32_t i = 0; i < rq.nmodules; i++)
        free(rq.modules[i].segs);
    free(rq.modules);
    free(rq.slots);
    free(rq.noted);
    free(rq.nodes);
    return rc == SCAL_OK ? SCAL_OK
                         : scal__fail(rc, "out of memory gathering %u regions to resolve", n);
}

/* The writer process's answers to the request in b: SCAL_OK and *answers (malloc'd), or a
 * negative status (no writer process, or it cannot). */
static int ask_writer(const struct scal_bytes *b, void **answers, size_t *len)
{
    int fd = memfd_create("scal-resolve-request", MFD_CLOEXEC);
    size_t done = 0;
    while (fd >= 0 && done < b->len) {
        ssize_t w = write(fd, b->p + done, b->len - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    int rc = fd >= 0 && done == b->len ? scal_writer_link_resolve(fd) : SCAL_EIO;
    off_t size = rc == SCAL_OK ? lseek(fd, 0, SEEK_END) : -1;
    unsigned char *p = size > 0 ? malloc((size_t)size) : NULL;
    if (rc == SCAL_OK && (!p || pread(fd, p, (size_t)size, 0) != size)) rc = SCAL_EIO;
    if (fd >= 0) close(fd);
    if (rc < 0) {
        free(p);
        return rc;
    }
    *answers = p;
    *len = (size_t)size;
    return SCAL_OK;
}

int scal_resolve_nodes(const struct scal_unresolved *nodes, uint32_t n, bool lines,
                       void (*each)(uint32_t i, int status, const struct scal_resolved *r,
                                    void *data),
                       void *data, bool *by_writer)
{
    struct scal_bytes b = {0};
    void *answers = NULL;
    size_t len = 0;
    struct scal_resolved *res = malloc(sizeof(*res));
    int rc = res ? gather(nodes, n, lines, &b) : SCAL_ENOMEM;
    *by_writer = rc == SCAL_OK && ask_writer(&b, &answers, &len) == SCAL_OK;
    if (rc == SCAL_OK && !*by_writer) rc = scal_resolve_in_process(b.p, b.len, &answers, &len);
    free(b.p);
    const unsigned char *a = answers;
    struct scal_cursor c = {a, a ? a + len : a, false};
    if (rc == SCAL_OK && scal_rq_get_answers_header(&c) != (int64_t)n) rc = SCAL_EFORMAT;
    for (uint32_t i = 0; i < n && res; i++) {
        int status = rc == SCAL_OK ? scal_rq_get_answer(&c, res) : rc;
        if (status == SCAL_EFORMAT && rc == SCAL_OK) rc = status; /* the rest: unresolved */
        if (rc < 0 || status < 0) {
            memset(res, 0, sizeof(*res)); /* named by address */
            res->line_first = res->line_last = -1;
            res->offset = nodes[i].ra;
        }
        each(i, rc < 0 ? rc : status, res, data);
    }
    bool had_memory = res != NULL;
    free(answers);
    free(res);
    return had_memory ? SCAL_OK : scal__fail(SCAL_ENOMEM, "out of memory resolving %u regions", n);
}
