// SPDX-License-Identifier: BSD-3-Clause
// The identity cache: a region node's resolution (resolve.c: file, lines, function, module, kind
// of call) depends only on its module's code and DWARF, the positions of its call site and
// outlined body in their modules, its kind, whether the process has a C++ demangler and the source
// file read for the block's end. Keyed by all of these, position-independently, it is the same in
// every run of a binary: a campaign of many runs reads the binary's DWARF once.
//
// On disk, in SCAL_IDENTITY_CACHE (scal run: the campaign's private FILE.runs/; unset: the user's
// own, $XDG_CACHE_HOME or ~/.cache, then scal/identities-VERSION), one file per
// module of the call sites, named after its build id (without one: a hash of its path, size and
// modification time): a header, then records [magic, length, CRC-32, payload]. A record that does
// not check out ends the reading (counted, never trusted; the file is rewritten). Writers (MPI
// ranks, other runs) each put a new complete file under an exclusive temporary name and rename it
// over the old one: a reader sees one whole file or the other, and a lost update only costs a
// later miss. A reader opens without following links and without blocking, and reads only a
// regular file of bounded size.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "crc32.h"
#include "identity_cache.h"
#include "loaded_object.h"
#include "resolve_request.h"
#include "safe_create.h"
#include "tool.h"

#define FILE_MAGIC "SCALIDC1"
#define RECORD_MAGIC 0x52434953u     /* "SICR" */
#define MAX_FILE_BYTES (4u << 20)    /* a file beyond this is not read, and kept below it */
#define MAX_RECORD_BYTES (32u << 10) /* the key's two paths and the value's strings */
#define MAX_MODULES 64               /* module files one flush looks at */

/* ---- build ids ----------------------------------------------------------------------------- */

/* The build ID of the object holding an address, in hex (empty when it has none). */
struct build_id_search {
    uintptr_t addr;
    char *out;
    size_t outlen;
    bool found;
};

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    struct build_id_search *s = data;
    bool contains = false;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && s->addr >= lo && s->addr < lo + ph->p_memsz) contains = true;
    }
    if (!contains) return 0;
    size_t n = 0, o = 0;
    const unsigned char *id = scal_loaded_build_id(info, &n);
    for (size_t k = 0; id && k < n && o + 3 < s->outlen; k++)
        o += (size_t)snprintf(s->out + o, s->outlen - o, "%02x", id[k]);
    s->found = o > 0;
    return 1;
}

bool scal_build_id_of(uint64_t addr, char *out, size_t len)
{
    struct build_id_search s = {(uintptr_t)addr, out, len, false};
    if (len) out[0] = '\0';
    dl_iterate_phdr(find_build_id, &s);
    return s.found;
}

/* ---- keys and values ----------------------------------------------------------------------- */

/* A module's path and identity: its build id, else a hash of its path, size and modification time
 * (a rebuilt module without build id differs in one of them). False when it cannot be told. */
static bool module_identity(const struct link_map *lm, uint64_t addr, char *path, size_t plen,
                            char *id, size_t idlen)
{
    if (lm->l_name && lm->l_name[0]) {
        snprintf(path, plen, "%s", lm->l_name);
    } else {
        snprintf(path, plen, "%s", scal_executable_path());
        if (!path[0]) return false;
    }
    if (scal_build_id_of(addr, id, idlen)) return true;
    struct stat st;
    if (stat(path, &st) < 0) return false;
    uint32_t h = scal_crc32(0, path, strlen(path));
    snprintf(id, idlen, "p%08x-%llx-%llx", h, (unsigned long long)st.st_size,
             (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
                 (unsigned long long)st.st_mtim.tv_nsec);
    return true;
}

/* The key of a node into k (and its call site's module identity into ra_id): false when the node
 * cannot be cached. */
static bool make_key(uint64_t ra, uint64_t body, int kind, struct scal_bytes *k, char *ra_id,
                     size_t idlen)
{
    static char path[4096];
    char id[96];
    /* unloaded since, or another module took its addresses: resolved from the file, uncached */
    const struct link_map *lm = scal_module_loaded(ra - 1, ra, NULL);
    if (!lm || !module_identity(lm, ra - 1, path, sizeof(path), ra_id, idlen)) return false;
    bool demangler = dlsym(RTLD_DEFAULT, "__cxa_demangle") != NULL;
    scal_bytes_u32(k, (uint32_t)kind | (demangler ? 0x100u : 0u) | (body ? 0x200u : 0u));
    scal_bytes_u64(k, ra - lm->l_addr);
    scal_bytes_str(k, path);
    scal_bytes_str(k, ra_id);
    if (body) {
        const struct link_map *blm = scal_module_loaded(body, body, NULL);
        if (!blm || !module_identity(blm, body, path, sizeof(path), id, sizeof(id))) return false;
        scal_bytes_u64(k, body - blm->l_addr);
        scal_bytes_str(k, path);
        scal_bytes_str(k, id);
    }
    return !k->failed;
}

/* What the source file read for the block's end looked like (a changed source misses). */
struct stamp {
    uint64_t present, dev, ino, size, mtime_ns;
};

static struct stamp stamp_of(const char *file)
{
    struct stamp s = {0, 0, 0, 0, 0};
    struct stat st;
    if (file[0] && stat(file, &st) == 0)
        s = (struct stamp){1, (uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
                           (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
                               (uint64_t)st.st_mtim.tv_nsec};
    return s;
}

static void put_value(struct scal_bytes *b, const struct scal_resolved *r)
{
    struct stamp s = stamp_of(r->file);
    scal_rq_put_resolved(b, r);
    scal_bytes_put(b, &s, sizeof(s));
}

/* Decodes a value; false when it is malformed or its source file changed. */
static bool get_value(struct scal_cursor *c, struct scal_resolved *r, bool *malformed)
{
    struct stamp s, now;
    scal_rq_get_resolved(c, r);
    scal_cursor_get(c, &s, sizeof(s));
    *malformed = c->bad || c->p != c->end;
    if (*malformed) return false;
    now = stamp_of(r->file);
    return !memcmp(&s, &now, sizeof(s));
}

/* ---- module files -------------------------------------------------------------------------- */

struct record {
    unsigned char *p; /* payload: u32 key length, key, value */
    uint32_t len;
    bool fresh; /* resolved in this process */
};

struct module_file {
    char id[96];
    struct record *rec;
    size_t n, cap;
    bool dirty; /* to write back: new records, or damage seen */
};

struct scal_idcache {
    char dir[4096];
    struct module_file mod[MAX_MODULES];
    size_t nmod;
    struct scal_bytes key; /* the last lookup's */
    char key_id[96];
    struct module_file *key_mod;
};

static void path_of(const struct scal_idcache *c, const char *id, char *out, size_t len)
{
    snprintf(out, len, "%s/idcache-%s.bin", c->dir, id);
}

static bool add_record(struct module_file *m, const unsigned char *payload, uint32_t len,
                       bool fresh)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        struct record *r = realloc(m->rec, cap * sizeof(*r));
        if (!r) return false;
        m->rec = r;
        m->cap = cap;
    }
    unsigned char *p = malloc(len ? len : 1);
    if (!p) return false;
    memcpy(p, payload, len);
    m->rec[m->n++] = (struct record){p, len, fresh};
    return true;
}

/* Reads a module file's records: never through a link, never blocking on a fifo, only a regular
 * file of bounded size; what does not check out is counted and dropped (the file is rewritten). */
static void load(struct scal_idcache *c, struct module_file *m)
{
    char path[4200];
    struct stat st;
    path_of(c, m->id, path, sizeof(path));
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT) { /* a link (ELOOP), or unreadable */
            scal_diag_count(SCAL_DIAG_identity_cache_damaged);
            m->dirty = true;
        }
        return;
    }
    unsigned char *data = NULL;
    size_t got = 0;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)MAX_FILE_BYTES ||
        !(data = malloc((size_t)st.st_size + 1))) {
        scal_diag_count(SCAL_DIAG_identity_cache_damaged);
        m->dirty = true;
        close(fd);
        return;
    }
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, data + got, (size_t)st.st_size - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    bool damaged = got < sizeof(FILE_MAGIC) - 1 || memcmp(data, FILE_MAGIC, sizeof(FILE_MAGIC) - 1);
    size_t at = damaged ? got : sizeof(FILE_MAGIC) - 1;
    while (at < got) {
        uint32_t hdr[3];
        if (got - at < sizeof(hdr)) {
            damaged = true;
            break;
        }
        memcpy(hdr, data + at, sizeof(hdr));
        at += sizeof(hdr);
        if (hdr[0] != RECORD_MAGIC || hdr[1] < 4 || hdr[1] > MAX_RECORD_BYTES ||
            got - at < hdr[1] || scal_crc32(0, data + at, hdr[1]) != hdr[2]) {
            damaged = true;
            break;
        }
        if (!add_record(m, data + at, hdr[1], false)) break;
        at += hdr[1];
    }
    if (damaged) {
        scal_diag_count(SCAL_DIAG_identity_cache_damaged);
        m->dirty = true;
    }
    free(data);
}

static struct module_file *module_file(struct scal_idcache *c, const char *id)
{
    for (size_t i = 0; i < c->nmod; i++)
        if (!strcmp(c->mod[i].id, id)) return &c->mod[i];
    if (c->nmod == MAX_MODULES) return NULL;
    struct module_file *m = &c->mod[c->nmod++];
    memset(m, 0, sizeof(*m));
    snprintf(m->id, sizeof(m->id), "%s", id);
    load(c, m);
    return m;
}

/* The record of a key (its index), or -1. */
static long find(const struct module_file *m, const struct scal_bytes *key)
{
    for (size_t i = m->n; i-- > 0;) { /* the newest first */
        uint32_t klen;
        if (m->rec[i].len < 4) continue;
        memcpy(&klen, m->rec[i].p, 4);
        if (klen == key->len && klen <= m->rec[i].len - 4 && !memcmp(m->rec[i].p + 4, key->p, klen))
            return (long)i;
    }
    return -1;
}

static void drop(struct module_file *m, size_t i)
{
    free(m->rec[i].p);
    memmove(&m->rec[i], &m->rec[i + 1], (m->n - i - 1) * sizeof(*m->rec));
    m->n--;
    m->dirty = true;
}

/* A directory this user owns (a link to one counts: a cache moved to another disk). */
static bool mine(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

/* The two directories above the user's default cache dir (the cache home, ~/.cache or
 * $XDG_CACHE_HOME, and its scal/), made private to the user when missing. Only in a cache home this
 * user owns, or makes in a home it owns: run as root with a user's HOME (sudo -E), the tool would
 * otherwise leave root's directories in the user's home, which the user could not use. */
static bool default_parents_ready(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof(p), "%s", dir);
    char *leaf = strrchr(p, '/');
    if (!leaf || leaf == p) return false;
    *leaf = '\0'; /* .../scal */
    char *scal = strrchr(p, '/');
    if (!scal || scal == p) return false;
    *scal = '\0'; /* the cache home */
    if (!mine(p)) {
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) return false;
        *slash = '\0'; /* the home */
        bool home_mine = mine(p);
        *slash = '/';
        if (!home_mine || mkdir(p, 0700) != 0 || !mine(p)) return false;
    }
    *scal = '/';
    if (mkdir(p, 0700) != 0 && errno != EEXIST) return false;
    return mine(p);
}

struct scal_idcache *scal_idcache_open(const char *dir, bool make_parents)
{
    if (!dir || !dir[0] || strlen(dir) >= sizeof(((struct scal_idcache *)0)->dir)) return NULL;
    if (make_parents && !default_parents_ready(dir)) return NULL;
    if (scal_safe_mkdir(dir) < 0) return NULL;
    struct scal_idcache *c = calloc(1, sizeof(*c));
    if (c) snprintf(c->dir, sizeof(c->dir), "%s", dir);
    return c;
}

/* The node's key and its module's file into c->key and c->key_mod: false when it cannot be cached.
 */
static bool keyed(struct scal_idcache *c, uint64_t ra, uint64_t body, int kind)
{
    c->key.len = 0;
    c->key.failed = false;
    c->key_mod = NULL;
    return make_key(ra, body, kind, &c->key, c->key_id, sizeof(c->key_id)) &&
           (c->key_mod = module_file(c, c->key_id)) != NULL;
}

int scal_idcache_lookup(struct scal_idcache *c, uint64_t ra, uint64_t body, int kind,
                        struct scal_resolved *out)
{
    if (!c || !keyed(c, ra, body, kind)) return -1;
    long i = find(c->key_mod, &c->key);
    if (i >= 0) {
        const struct record *r = &c->key_mod->rec[i];
        struct scal_cursor cur = {r->p + 4 + c->key.len, r->p + r->len, false};
        bool malformed = false;
        memset(out, 0, sizeof(*out));
        if (get_value(&cur, out, &malformed)) {
            scal_diag_count(SCAL_DIAG_identity_cache_hits);
            return 1;
        }
        if (malformed) scal_diag_count(SCAL_DIAG_identity_cache_damaged);
        drop(c->key_mod, (size_t)i); /* stale (its source changed) or malformed */
    }
    scal_diag_count(SCAL_DIAG_identity_cache_misses);
    return 0;
}

void scal_idcache_store(struct scal_idcache *c, uint64_t ra, uint64_t body, int kind,
                        const struct scal_resolved *res)
{
    if (!c || !keyed(c, ra, body, kind) || c->key.failed) return;
    struct scal_bytes b = {0};
    scal_bytes_u32(&b, (uint32_t)c->key.len);
    scal_bytes_put(&b, c->key.p, c->key.len);
    put_value(&b, res);
    if (!b.failed && b.len <= MAX_RECORD_BYTES &&
        add_record(c->key_mod, b.p, (uint32_t)b.len, true))
        c->key_mod->dirty = true;
    free(b.p);
    c->key_mod = NULL;
}

/* Writes a module's file anew: the header, its records (the oldest dropped beyond the bound),
 * under an exclusive temporary name renamed over the old file. Anything in the way that is not a
 * regular file (a planted link, a fifo) is removed, never followed. */
static void write_back(const struct scal_idcache *c, const struct module_file *m)
{
    char path[4200], tmp[4300];
    struct stat st;
    struct scal_bytes b = {0};
    size_t total = sizeof(FILE_MAGIC) - 1, from = 0;
    for (size_t i = 0; i < m->n; i++)
        total += 12 + m->rec[i].len;
    while (total > MAX_FILE_BYTES && from < m->n)
        total -= 12 + m->rec[from++].len;
    scal_bytes_put(&b, FILE_MAGIC, sizeof(FILE_MAGIC) - 1);
    for (size_t i = from; i < m->n; i++) {
        scal_bytes_u32(&b, RECORD_MAGIC);
        scal_bytes_u32(&b, m->rec[i].len);
        scal_bytes_u32(&b, scal_crc32(0, m->rec[i].p, m->rec[i].len));
        scal_bytes_put(&b, m->rec[i].p, m->rec[i].len);
    }
    path_of(c, m->id, path, sizeof(path));
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) unlink(path);
    int fd = b.failed ? -1 : scal_safe_create_open(path, true, tmp, sizeof(tmp));
    if (fd >= 0) {
        size_t done = 0;
        while (done < b.len) {
            ssize_t w = write(fd, b.p + done, b.len - done);
            if (w <= 0) break;
            done += (size_t)w;
        }
        close(fd);
        if (done < b.len || scal_safe_publish_nosync(tmp, path, true) < 0) {
            unlink(tmp);
            scal_diag_count(SCAL_DIAG_identity_cache_write_failed);
        }
    } else {
        scal_diag_count(SCAL_DIAG_identity_cache_write_failed);
    }
    free(b.p);
}

void scal_idcache_close(struct scal_idcache *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->nmod; i++) {
        struct module_file *m = &c->mod[i];
        if (m->dirty) write_back(c, m);
        for (size_t k = 0; k < m->n; k++)
            free(m->rec[k].p);
        free(m->rec);
    }
    free(c->key.p);
    free(c);
}
