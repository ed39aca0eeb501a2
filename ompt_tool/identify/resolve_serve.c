// SPDX-License-Identifier: BSD-3-Clause
// resolve_serve.h.
#define _GNU_SOURCE
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "errmsg.h"
#include "process_view.h"
#include "resolve_serve.h"
#include "tool.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The demangler of libstdc++ (linked statically from libstdc++.a), used only for programs that
 * have one of their own (process_view.h). */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* A module's file: not opened yet (fd -2), refused (-1), or open and checked. */
struct mirror {
    int fd;
    off_t size;
    bool *mapped; /* per segment */
};

struct mirrors {
    struct mirror *m; /* per module of the request */
    uint64_t page;
    const char *refused; /* the first module whose code could not be mapped */
};

static bool same_build(int fd, const struct scal_rq_module *m)
{
    const void *id;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    bool same = elf && m->build_id_len &&
                dwelf_elf_gnu_build_id(elf, &id) == (ssize_t)m->build_id_len &&
                !memcmp(id, m->build_id, m->build_id_len);
    elf_end(elf);
    return same;
}

static bool open_module(struct mirror *f, const struct scal_rq_module *m)
{
    struct stat st;
    f->fd = m->path[0] == '/' ? open(m->path, O_RDONLY | O_CLOEXEC) : -1;
    if (f->fd >= 0 && (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode) || !same_build(f->fd, m) ||
                       !(f->mapped = calloc(m->nsegs ? m->nsegs : 1, sizeof(bool))))) {
        close(f->fd);
        f->fd = -1;
    }
    f->size = f->fd >= 0 ? st.st_size : 0;
    return f->fd >= 0;
}

static bool map_segment(struct scal_view *v, const struct scal_rq_module *m,
                        const struct scal_rq_segment *s)
{
    struct mirrors *ms = v->backend;
    struct mirror *f = &ms->m[m - v->rq->modules];
    size_t k = (size_t)(s - m->segs);
    if (f->fd == -2 && !open_module(f, m)) f->fd = -1;
    if (f->fd < 0) {
        if (!ms->refused) ms->refused = m->path;
        return false;
    }
    if (f->mapped[k]) return true;
    uint64_t lo = s->lo & ~(ms->page - 1), off = s->offset & ~(ms->page - 1);
    uint64_t len = (s->lo + s->file_size - lo + ms->page - 1) & ~(ms->page - 1);
    void *want = (void *)(uintptr_t)lo;
    void *got =
        lo - off == s->lo - s->offset && off + len <= (uint64_t)f->size + ms->page - 1
            ? mmap(want, len, PROT_READ, MAP_PRIVATE | MAP_FIXED_NOREPLACE, f->fd, (off_t)off)
            : MAP_FAILED;
    if (got != MAP_FAILED && got != want) { /* a kernel before 4.17 took the address as a hint */
        munmap(got, len);
        got = MAP_FAILED;
    }
    if (got == MAP_FAILED) {
        if (!ms->refused) ms->refused = m->path;
        return false;
    }
    f->mapped[k] = true;
    return true;
}

static void unmap_all(const struct scal_rq *rq, struct mirrors *ms)
{
    for (uint32_t i = 0; i < rq->nmodules; i++) {
        struct mirror *f = &ms->m[i];
        const struct scal_rq_module *m = &rq->modules[i];
        for (uint32_t k = 0; f->fd >= 0 && k < m->nsegs; k++)
            if (f->mapped[k]) {
                uint64_t lo = m->segs[k].lo & ~(ms->page - 1);
                munmap((void *)(uintptr_t)lo,
                       m->segs[k].lo + m->segs[k].file_size - lo + ms->page - 1);
            }
        if (f->fd >= 0) close(f->fd);
        free(f->mapped);
    }
    free(ms->m);
}

static int read_request(int fd, void **p, size_t *len)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0 || !(*p = malloc((size_t)st.st_size)))
        return scal__fail(SCAL_EIO, "cannot read the resolution request");
    if (pread(fd, *p, (size_t)st.st_size, 0) != st.st_size) {
        free(*p);
        return scal__fail(SCAL_EIO, "cannot read the resolution request: %s", strerror(errno));
    }
    *len = (size_t)st.st_size;
    return SCAL_OK;
}

int scal_resolve_serve(int fd)
{
    void *p = NULL;
    size_t len = 0;
    struct scal_rq rq;
    struct scal_bytes answers = {0};
    int rc = read_request(fd, &p, &len);
    if (rc == SCAL_OK) rc = scal_rq_decode(p, len, &rq);
    free(p);
    if (rc < 0) return rc;
    elf_version(EV_CURRENT);
    struct mirrors ms = {calloc(rq.nmodules ? rq.nmodules : 1, sizeof(struct mirror)),
                         (uint64_t)sysconf(_SC_PAGESIZE), NULL};
    for (uint32_t i = 0; ms.m && i < rq.nmodules; i++)
        ms.m[i].fd = -2;
    struct scal_view v = {.rq = &rq, .make_readable = map_segment, .backend = &ms};
    v.demangle = rq.has_demangler ? __cxa_demangle : NULL;
    rc = ms.m ? scal_resolve_request(&v, &answers) : SCAL_ENOMEM;
    if (ms.m) unmap_all(&rq, &ms);
    if (rc == SCAL_OK && v.incomplete)
        rc = scal__fail(SCAL_EUNAVAIL, "cannot read the code of %s here",
                        ms.refused ? ms.refused : "a module");
    scal_rq_release(&rq);
    size_t done = 0;
    if (rc == SCAL_OK && ftruncate(fd, 0) != 0) rc = SCAL_EIO;
    while (rc == SCAL_OK && done < answers.len) {
        ssize_t w = pwrite(fd, answers.p + done, answers.len - done, (off_t)done);
        if (w <= 0)
            rc = scal__fail(SCAL_EIO, "cannot write the resolution's answers");
        else
            done += (size_t)w;
    }
    free(answers.p);
    return rc;
}
