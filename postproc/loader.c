// SPDX-License-Identifier: BSD-3-Clause
// Finds and loads post-processing plugins (libscal_*.so) through the plugin ABI entry point.
// This is the one function to replace by the shared loader of plugins/host/ once it lands.
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "report.h"

static int cmp_plugin(const void *a, const void *b)
{
    return strcmp(((const struct pp_plugin *)a)->name, ((const struct pp_plugin *)b)->name);
}

static bool have(const struct pp_plugin *p, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(p[i].name, name)) return true;
    return false;
}

/* Opens one shared object; returns 1 when it is a post-processing plugin kept in *p, 0 when it is
 * another kind of plugin (closed), negative on a broken file. */
static int open_one(const char *path, struct pp_plugin *p)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return scal__fail(SCAL_EDLOPEN, "cannot load '%s': %s", path, dlerror());
    scal_plugin_entry_fn entry = (scal_plugin_entry_fn)(uintptr_t)dlsym(h, SCAL_PLUGIN_ENTRY_NAME);
    if (!entry) {
        dlclose(h);
        return scal__fail(SCAL_ENOSYM, "no entry point [%s] in shared library [%s]",
                          SCAL_PLUGIN_ENTRY_NAME, path);
    }
    const struct scal_plugin_desc *d = entry();
    if (!d || (d->abi_version >> 16) != SCAL_PLUGIN_ABI_MAJOR ||
        d->struct_size < offsetof(struct scal_plugin_desc, postproc) + sizeof(d->postproc)) {
        unsigned abi = d ? d->abi_version : 0;
        bool other = d && d->kind != SCAL_PLUGIN_POSTPROC;
        dlclose(h);
        if (other) return 0;
        return scal__fail(SCAL_EABI, "'%s': plugin ABI %u.%u, this scal has %d.%d", path, abi >> 16,
                          abi & 0xffff, SCAL_PLUGIN_ABI_MAJOR, SCAL_PLUGIN_ABI_MINOR);
    }
    if (d->kind != SCAL_PLUGIN_POSTPROC) {
        dlclose(h);
        return 0;
    }
    if (!d->postproc || !d->postproc->run || !d->name) {
        dlclose(h);
        return scal__fail(SCAL_EABI, "'%s': post-processing plugin without name or run()", path);
    }
    /* Post-processing plugins stay mapped (RTLD_NODELETE): the libraries they pull in (cairo,
     * fontconfig) keep process-wide caches that must not be unloaded under them. Other kinds of
     * plugin found in the same directory are closed again right away. */
    void *keep = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE);
    if (keep) dlclose(keep);
    p->handle = h;
    p->desc = d;
    snprintf(p->name, sizeof(p->name), "%s", d->name);
    snprintf(p->path, sizeof(p->path), "%s", path);
    return 1;
}

int pp_plugins_load(const char *dirs, struct pp_plugin **out, size_t *n)
{
    struct pp_plugin *list = NULL;
    size_t count = 0;
    char *copy = strdup(dirs ? dirs : "");
    char *save = NULL;
    int rc = 0;
    if (!copy) return SCAL_ENOMEM;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        struct dirent **ents = NULL;
        int ne = scandir(dir, &ents, NULL, alphasort);
        for (int i = 0; i < ne; i++) {
            const char *nm = ents[i]->d_name;
            size_t len = strlen(nm);
            char path[512];
            struct pp_plugin p = {0};
            if (strncmp(nm, "libscal_", 8) || len < 12 || strcmp(nm + len - 3, ".so")) goto next;
            snprintf(path, sizeof(path), "%s/%s", dir, nm);
            int r = open_one(path, &p);
            if (r < 0 && rc == 0) rc = r; /* reported, the other plugins still load */
            if (r <= 0) goto next;
            if (have(list, count, p.name)) { /* an earlier directory wins */
                dlclose(p.handle);
                goto next;
            }
            struct pp_plugin *nl = realloc(list, (count + 1) * sizeof(*nl));
            if (!nl) {
                dlclose(p.handle);
                rc = SCAL_ENOMEM;
                goto next;
            }
            list = nl;
            list[count++] = p;
        next:
            free(ents[i]);
        }
        free(ents);
    }
    free(copy);
    if (count) qsort(list, count, sizeof(*list), cmp_plugin);
    *out = list;
    *n = count;
    return rc == SCAL_ENOMEM ? rc : (rc < 0 ? 1 : 0); /* 1: some file failed, message recorded */
}

void pp_plugins_free(struct pp_plugin *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i].handle) dlclose(p[i].handle);
    free(p);
}
