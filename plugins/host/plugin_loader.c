// SPDX-License-Identifier: BSD-3-Clause
// Locates libscal_<name>.so in the plugin search path, loads it and checks its descriptor against
// this host's ABI; every failure names the file, the symbol and the reason.
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin_loader.h"

#ifndef SCAL_PLUGIN_INSTALL_FULL_DIR
#define SCAL_PLUGIN_INSTALL_FULL_DIR "/usr/local/lib/scal/plugins"
#endif

static void append_dir(char *out, size_t len, const char *dir)
{
    if (!dir || !*dir) return;
    char real[PATH_MAX];
    struct stat sb;
    if (!realpath(dir, real) || stat(real, &sb) != 0 || !S_ISDIR(sb.st_mode)) return;
    /* skip duplicates: the build tree's bin/ and lib/ lead to the same plugin directory */
    size_t n = strlen(real);
    for (const char *p = out; (p = strstr(p, real)) != NULL; p += n)
        if ((p == out || p[-1] == ':') && (p[n] == ':' || p[n] == 0)) return;
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s%s", used ? ":" : "", real);
}

/* <dir of file>/scal/plugins (a library in lib/) and <dir of file>/../lib/scal/plugins (bin/). */
static void append_relative(char *out, size_t len, const char *file)
{
    char dir[PATH_MAX], cand[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s", file);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    *slash = 0;
    snprintf(cand, sizeof(cand), "%s/scal/plugins", dir);
    append_dir(out, len, cand);
    snprintf(cand, sizeof(cand), "%s/../lib/scal/plugins", dir);
    append_dir(out, len, cand);
}

void scal_plugin_search_path(char *out, size_t len)
{
    out[0] = 0;
    const char *user = getenv("SCAL_PLUGIN_PATH");
    if (user) {
        char *copy = strdup(user), *save = NULL;
        for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save))
            append_dir(out, len, d);
        free(copy);
    }
    Dl_info self;
    if (dladdr((void *)scal_plugin_search_path, &self) && self.dli_fname &&
        strchr(self.dli_fname, '/'))
        append_relative(out, len, self.dli_fname);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = 0;
        append_relative(out, len, exe);
    }
    append_dir(out, len, SCAL_PLUGIN_INSTALL_FULL_DIR);
}

int scal_plugin_foreach_file(int (*fn)(const char *path, const char *name, void *arg), void *arg)
{
    char dirs[8192], seen[8192] = ",";
    scal_plugin_search_path(dirs, sizeof(dirs));
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        DIR *dh = opendir(d);
        if (!dh) continue;
        struct dirent **list = NULL;
        closedir(dh);
        int n = scandir(d, &list, NULL, alphasort);
        for (int i = 0; i < n; i++) {
            const char *f = list[i]->d_name;
            size_t fl = strlen(f);
            char name[64], path[SCAL_PLUGIN_PATH_MAX], key[80];
            if (fl > 12 && !strncmp(f, "libscal_", 8) && !strcmp(f + fl - 3, ".so") &&
                fl - 11 < sizeof(name)) {
                snprintf(name, sizeof(name), "%.*s", (int)(fl - 11), f + 8);
                snprintf(key, sizeof(key), ",%s,", name);
                if (!strstr(seen, key) && strlen(seen) + strlen(name) + 2 < sizeof(seen)) {
                    strcat(seen, name);
                    strcat(seen, ",");
                    snprintf(path, sizeof(path), "%s/%s", d, f);
                    if (fn(path, name, arg)) {
                        for (; i < n; i++)
                            free(list[i]);
                        free(list);
                        return 1;
                    }
                }
            }
            free(list[i]);
        }
        free(list);
    }
    return 0;
}

static int find_by_name(const char *name, char *path, size_t len, char *why, size_t whylen)
{
    char dirs[8192];
    scal_plugin_search_path(dirs, sizeof(dirs));
    char *save = NULL;
    char copy[8192];
    snprintf(copy, sizeof(copy), "%s", dirs);
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/libscal_%s.so", d, name);
        if (access(path, F_OK) == 0) return SCAL_OK;
    }
    snprintf(why, whylen,
             "no plugin '%s': libscal_%s.so is in none of the plugin directories (%s); set "
             "SCAL_PLUGIN_PATH or give the file's path",
             name, name, dirs[0] ? dirs : "none found");
    return SCAL_ENOENT;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case SCAL_PLUGIN_SENSOR:
        return "sensor";
    case SCAL_PLUGIN_ACTUATOR:
        return "actuator";
    case SCAL_PLUGIN_POSTPROC:
        return "post-processing";
    default:
        return "unknown";
    }
}

/* The descriptor must be of this ABI major and carry the operations its kind needs. */
static int check_descriptor(const struct scal_plugin_desc *d, const char *path, int want, char *why,
                            size_t whylen)
{
    if (!d) {
        snprintf(why, whylen, "'%s': %s() returned no descriptor", path, SCAL_PLUGIN_ENTRY_NAME);
        return SCAL_EABI;
    }
    if ((d->abi_version >> 16) != SCAL_PLUGIN_ABI_MAJOR) {
        snprintf(why, whylen, "'%s': plugin ABI %u.%u, this scal has %d.%d", path,
                 d->abi_version >> 16, d->abi_version & 0xffff, SCAL_PLUGIN_ABI_MAJOR,
                 SCAL_PLUGIN_ABI_MINOR);
        return SCAL_EABI;
    }
    if (d->struct_size < offsetof(struct scal_plugin_desc, postproc) || !d->name || !*d->name) {
        snprintf(why, whylen, "'%s': descriptor too small (%u bytes) or without a name", path,
                 d->struct_size);
        return SCAL_EABI;
    }
    if (want && (int)d->kind != want) {
        snprintf(why, whylen, "'%s': plugin '%s' is a %s plugin, not a %s plugin", path, d->name,
                 kind_name(d->kind), kind_name(want));
        return SCAL_EINVAL;
    }
    bool ok = d->kind == SCAL_PLUGIN_SENSOR ? d->sensor && d->sensor->init && d->sensor->metrics
              : d->kind == SCAL_PLUGIN_ACTUATOR
                  ? d->actuator && d->actuator->init && d->actuator->apply && d->actuator->restore
                  : d->kind == SCAL_PLUGIN_POSTPROC;
    if (!ok) {
        snprintf(why, whylen,
                 "'%s': %s plugin '%s' lacks required operations (init/metrics or "
                 "init/apply/restore)",
                 path, kind_name(d->kind), d->name);
        return SCAL_EABI;
    }
    return SCAL_OK;
}

int scal_plugin_load(const char *name_or_path, int want, const char *const *settings,
                     size_t nsettings, struct scal_loaded_plugin *p, char *why, size_t whylen)
{
    int rc;
    memset(p, 0, sizeof(*p));
    if (!name_or_path || !*name_or_path) {
        snprintf(why, whylen, "empty plugin name");
        return SCAL_EINVAL;
    }
    if (strchr(name_or_path, '/')) {
        snprintf(p->path, sizeof(p->path), "%s", name_or_path);
        if (access(p->path, F_OK) != 0) {
            snprintf(why, whylen, "plugin file '%s': %s", p->path, strerror(errno));
            return SCAL_ENOENT;
        }
    } else if ((rc = find_by_name(name_or_path, p->path, sizeof(p->path), why, whylen)) < 0) {
        return rc;
    }
    p->handle = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
    if (!p->handle) {
        snprintf(why, whylen, "cannot load '%s' (not a loadable shared object?): %s", p->path,
                 dlerror());
        return SCAL_EDLOPEN;
    }
    scal_plugin_entry_fn entry =
        (scal_plugin_entry_fn)(uintptr_t)dlsym(p->handle, SCAL_PLUGIN_ENTRY_NAME);
    if (!entry) {
        snprintf(why, whylen, "'%s' has no entry symbol '%s': not a scal plugin", p->path,
                 SCAL_PLUGIN_ENTRY_NAME);
        rc = SCAL_ENOSYM;
        goto fail;
    }
    p->desc = entry();
    rc = check_descriptor(p->desc, p->path, want, why, whylen);
    if (rc < 0) goto fail;
    snprintf(p->name, sizeof(p->name), "%s", p->desc->name);
    rc = scal_plugin_options_resolve(p, settings, nsettings, why, whylen);
    if (rc < 0) goto fail;
    const char *root = scal_plugin_option(&p->options, "sysfs_root");
    const char *global = getenv("SCAL_SYSFS_ROOT");
    /* an explicit per-plugin root wins over SCAL_SYSFS_ROOT, which wins over the default "/" */
    char env[256];
    snprintf(env, sizeof(env), "SCAL_%s_SYSFS_ROOT", p->name);
    for (char *c = env; *c; c++)
        if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
    bool explicit_root = getenv(env) != NULL;
    for (size_t k = 0; k < nsettings; k++)
        if (!strncmp(settings[k], "sysfs_root=", 11)) explicit_root = true;
    snprintf(p->sysfs_root, sizeof(p->sysfs_root), "%s",
             explicit_root && root ? root
             : global && *global   ? global
             : root                ? root
                                   : "/");
    p->env.struct_size = sizeof(p->env);
    p->env.options = &p->options;
    p->env.get_option = scal_plugin_option;
    p->env.sysfs_root = p->sysfs_root;
    return SCAL_OK;
fail:
    dlclose(p->handle);
    p->handle = NULL;
    p->desc = NULL;
    return rc;
}

void scal_plugin_unload(struct scal_loaded_plugin *p)
{
    scal_plugin_options_free(&p->options);
    /* Plugins stay mapped: libraries they pull in (PAPI) may keep process-wide state and exit
     * handlers; unloading them under those is the classic dlclose crash. */
    p->handle = NULL;
    p->desc = NULL;
}
