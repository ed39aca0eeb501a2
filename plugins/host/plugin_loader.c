// SPDX-License-Identifier: BSD-3-Clause
// Locates libscal_<name>.so in the plugin search path, loads it, checks its descriptor and
// operation table against this host's ABI (version and struct_size) and fills the defaults of
// optional operations; every failure names the file, the symbol and the reason.
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
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
#ifndef SCAL_PLUGIN_INSTALL_REL_DIR
#define SCAL_PLUGIN_INSTALL_REL_DIR "lib/scal/plugins"
#endif

/* A directory plugins may come from: this user's or root's, writable by nobody else (whoever can
 * write into it chooses the code scal and the measured program run). */
static bool trusted_dir(const struct stat *sb)
{
    return S_ISDIR(sb->st_mode) && !(sb->st_mode & (S_IWGRP | S_IWOTH)) &&
           (sb->st_uid == 0 || sb->st_uid == geteuid());
}

static void append_dir(char *out, size_t len, const char *dir)
{
    if (!dir || !*dir) return;
    char real[PATH_MAX];
    struct stat sb;
    if (!realpath(dir, real) || stat(real, &sb) != 0 || !trusted_dir(&sb)) return;
    /* skip duplicates: the build tree's bin/ and lib/ lead to the same plugin directory */
    size_t n = strlen(real);
    for (const char *p = out; (p = strstr(p, real)) != NULL; p += n)
        if ((p == out || p[-1] == ':') && (p[n] == ':' || p[n] == 0)) return;
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s%s", used ? ":" : "", real);
}

/* <dir of file>/scal/plugins (a library in lib/) and <dir of file>/../lib/scal/plugins (bin/), for
 * scal's own file only (the tool library or the scal program): the install's plugin directory. */
static bool append_relative(char *out, size_t len, const char *file)
{
    size_t before = strlen(out);
    char dir[PATH_MAX], cand[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s", file);
    char *slash = strrchr(dir, '/');
    if (!slash) return false;
    *slash = 0;
    snprintf(cand, sizeof(cand), "%s/scal/plugins", dir);
    append_dir(out, len, cand);
    snprintf(cand, sizeof(cand), "%s/../lib/scal/plugins", dir);
    append_dir(out, len, cand);
    /* a relocated install whose libdir is not lib/ (lib64, lib/<multiarch>) */
    snprintf(cand, sizeof(cand), "%s/../%s", dir, SCAL_PLUGIN_INSTALL_REL_DIR);
    append_dir(out, len, cand);
    return strlen(out) > before;
}

/* With absolute_only (SCAL_PLUGIN_PATH), a relative entry ("." or "") is left out: it would resolve
 * against whatever directory the measured program runs in. */
static void append_list(char *out, size_t len, const char *list, bool absolute_only)
{
    if (!list) return;
    char *copy = strdup(list), *save = NULL;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save))
        if (d[0] == '/' || !absolute_only) append_dir(out, len, d);
    free(copy);
}

void scal_plugin_search_path(char *out, size_t len, const char *extra)
{
    out[0] = 0;
    append_list(out, len, getenv("SCAL_PLUGIN_PATH"), true);
    append_list(out, len, extra, false);
    Dl_info self;
    struct link_map *map = NULL;
    bool found = false;
    if (dladdr1((void *)scal_plugin_search_path, &self, (void **)&map, RTLD_DL_LINKMAP)) {
        /* in the main executable (the scal program: link map name ""), dli_fname is argv[0] as
         * typed, without a slash when scal was found through PATH: /proc/self/exe is scal itself.
         * Never relative to the measured program (/proc/self/exe inside it, where this code is
         * in libscal_ompt.so): a program in /tmp would let anyone put a plugin whose constructor
         * runs inside it. */
        char exe[PATH_MAX];
        ssize_t n = map && map->l_name && !map->l_name[0]
                        ? readlink("/proc/self/exe", exe, sizeof(exe) - 1)
                        : -1;
        if (n > 0) {
            exe[n] = 0;
            found = append_relative(out, len, exe);
        } else if (self.dli_fname && strchr(self.dli_fname, '/')) {
            found = append_relative(out, len, self.dli_fname);
        }
    }
    /* the configured install directory only when scal is not in an install or build tree of its
     * own: a moved install must not load the plugins of the place it was built for */
    if (!found) append_dir(out, len, SCAL_PLUGIN_INSTALL_FULL_DIR);
}

int scal_plugin_foreach_file(const char *extra,
                             int (*fn)(const char *path, const char *name, void *arg), void *arg)
{
    char dirs[8192], seen[8192] = ",";
    scal_plugin_search_path(dirs, sizeof(dirs), extra);
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        struct dirent **list = NULL;
        int n = scandir(d, &list, NULL, alphasort); /* -1 for a missing directory: skipped */
        for (int i = 0; i < n; i++) {
            const char *f = list[i]->d_name;
            size_t fl = strlen(f);
            char name[64], path[SCAL_PLUGIN_PATH_MAX], key[80];
            if (fl > 12 && !strncmp(f, "libscal_", 8) && !strcmp(f + fl - 3, ".so") &&
                fl - 11 < sizeof(name)) {
                snprintf(name, sizeof(name), "%.*s", (int)(fl - 11), f + 8);
                snprintf(key, sizeof(key), ",%s,", name);
                size_t used = strlen(seen);
                if (!strstr(seen, key) && used + strlen(name) + 2 < sizeof(seen)) {
                    snprintf(seen + used, sizeof(seen) - used, "%s,", name);
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

bool scal_plugin_name_ok(const char *name)
{
    if (!name || !*name || strlen(name) > 48) return false;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-') return false;
    return true;
}

static int find_by_name(const char *name, char *path, size_t len, char *why, size_t whylen)
{
    char dirs[8192];
    scal_plugin_search_path(dirs, sizeof(dirs), NULL);
    char *save = NULL;
    char copy[8192];
    snprintf(copy, sizeof(copy), "%s", dirs);
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/libscal_%s.so", d, name);
        if (access(path, F_OK) == 0) return SCAL_OK;
    }
    snprintf(why, whylen,
             "no plugin '%s': libscal_%s.so is in none of the plugin directories (%s); add its "
             "directory to SCAL_PLUGIN_PATH (absolute, owned by you or root, writable by nobody "
             "else)",
             name, name, dirs[0] ? dirs : "none found");
    return SCAL_ENOENT;
}

/* A plugin runs inside scal and the measured program: only a regular file of this user or root
 * that nobody else can change, in a directory nobody else can change. The file is opened once, its
 * directory and itself checked through descriptors, and loaded from that descriptor: nothing can
 * replace it between the check and the load. Returns the descriptor. */
static int open_trusted(const char *path, char *why, size_t whylen)
{
    char dir[SCAL_PLUGIN_PATH_MAX];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path + (slash == path)) : 1,
             slash ? path : ".");
    struct stat ds, st;
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = d >= 0 ? openat(d, slash ? slash + 1 : path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
    int e = errno;
    bool dir_ok = d >= 0 && fstat(d, &ds) == 0 && trusted_dir(&ds);
    if (d >= 0) close(d);
    if (fd < 0) {
        snprintf(why, whylen, "plugin file '%s': %s", path,
                 e == ELOOP ? "a symbolic link (refused)" : strerror(e));
        return e == ENOENT ? SCAL_ENOENT : SCAL_EPERM;
    }
    const char *bad = fstat(fd, &st) != 0                        ? strerror(errno)
                      : !S_ISREG(st.st_mode)                     ? "not a regular file"
                      : (st.st_mode & (S_IWGRP | S_IWOTH))       ? "writable by group or others"
                      : st.st_uid != 0 && st.st_uid != geteuid() ? "owned by another user"
                      : !dir_ok ? "its directory is writable by others or owned by another user"
                                : NULL;
    if (bad) {
        close(fd);
        snprintf(why, whylen,
                 "plugin file '%s' refused: %s (a plugin runs inside scal and the measured "
                 "program)",
                 path, bad);
        return SCAL_EPERM;
    }
    return fd;
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

/* ---- Defaults of optional operations: the only place they are decided. ---- */

static int sensor_no_read(scal_sensor_state *state, double *values)
{
    return SCAL_EUNAVAIL;
}

static int sensor_no_thread_init(scal_sensor_state *state, scal_sensor_thread **thread, char *why,
                                 size_t whylen)
{
    *thread = NULL; /* no per-thread state: thread_read gets NULL */
    return SCAL_OK;
}

static int sensor_no_thread_read(scal_sensor_state *state, scal_sensor_thread *thread,
                                 double *values)
{
    return SCAL_EUNAVAIL;
}

static void sensor_no_thread_fini(scal_sensor_state *state, scal_sensor_thread *thread) {}

static void sensor_no_fini(scal_sensor_state *state) {}

/* test, save, restore: an actuator that changes only the launch has nothing to check, save or
 * put back. */
static int actuator_nothing(scal_actuator_state *state, char *why, size_t whylen)
{
    return SCAL_OK;
}

static int actuator_no_observe(scal_actuator_state *state, char *out, size_t outlen)
{
    if (outlen) out[0] = '\0';
    return SCAL_EUNAVAIL;
}

static void actuator_no_fini(scal_actuator_state *state) {}

/* Copies a plugin's table of src_size bytes into the host's full-size one: members the plugin was
 * built without stay zero (a larger, newer table is cut to what this host knows). */
static void copy_table(void *dst, size_t dst_size, const void *src, uint32_t src_size)
{
    memset(dst, 0, dst_size);
    memcpy(dst, src, src_size < dst_size ? src_size : dst_size);
}

static void default_sensor(struct scal_sensor_ops *o)
{
    if (!o->read) {
        o->read = sensor_no_read;
        o->timing &= ~(uint32_t)(SCAL_SENSOR_RUN | SCAL_SENSOR_SAMPLED);
    }
    if (!o->thread_read) {
        o->thread_read = sensor_no_thread_read;
        o->timing &= ~(uint32_t)SCAL_SENSOR_REGION;
    }
    if (!o->thread_init) o->thread_init = sensor_no_thread_init;
    if (!o->thread_fini) o->thread_fini = sensor_no_thread_fini;
    if (!o->fini) o->fini = sensor_no_fini;
}

static void default_actuator(struct scal_actuator_ops *o)
{
    if (!o->test) o->test = actuator_nothing;
    if (!o->save) o->save = actuator_nothing;
    if (!o->restore) o->restore = actuator_nothing;
    if (!o->observe) o->observe = actuator_no_observe;
    if (!o->fini) o->fini = actuator_no_fini;
}

/* ---- Checks ---- */

#define END_OF(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

/* What a kind needs: the descriptor member holding its table, the table's size here, the least
 * struct_size that still holds the required operations, and their names for messages. */
struct kind_rule {
    size_t desc_end;  /* the descriptor must reach this far */
    size_t ops_size;  /* sizeof the host's table */
    size_t ops_least; /* a table must reach this far */
    const char *member, *required;
};

static bool rule_of(int kind, struct kind_rule *r)
{
    switch (kind) {
    case SCAL_PLUGIN_SENSOR:
        *r = (struct kind_rule){
            END_OF(struct scal_plugin_desc, sensor), sizeof(struct scal_sensor_ops),
            END_OF(struct scal_sensor_ops, metrics), "sensor", "init and metrics"};
        return true;
    case SCAL_PLUGIN_ACTUATOR:
        *r = (struct kind_rule){
            END_OF(struct scal_plugin_desc, actuator), sizeof(struct scal_actuator_ops),
            END_OF(struct scal_actuator_ops, apply), "actuator", "init and apply"};
        return true;
    case SCAL_PLUGIN_POSTPROC:
        *r = (struct kind_rule){END_OF(struct scal_plugin_desc, postproc),
                                sizeof(struct scal_postproc_ops),
                                END_OF(struct scal_postproc_ops, run), "postproc", "run"};
        return true;
    default:
        return false;
    }
}

/* The descriptor must be of this ABI major, large enough for its kind, of the kind wanted, and its
 * operation table large enough for the required operations, which must be set. On success
 * p->desc_copy and p->ops_copy hold the host's view with defaults filled in. */
static int take_descriptor(struct scal_loaded_plugin *p, const struct scal_plugin_desc *d, int want,
                           char *why, size_t whylen)
{
    const char *path = p->path, *sym = SCAL_PLUGIN_ENTRY_NAME;
    struct kind_rule r;
    if (!d) {
        snprintf(why, whylen, "'%s': %s() returned no descriptor", path, sym);
        return SCAL_EABI;
    }
    if ((d->abi_version >> 16) != SCAL_PLUGIN_ABI_MAJOR) {
        snprintf(why, whylen, "'%s': plugin ABI %u.%u, this scal has %d.%d", path,
                 d->abi_version >> 16, d->abi_version & 0xffff, SCAL_PLUGIN_ABI_MAJOR,
                 SCAL_PLUGIN_ABI_MINOR);
        return SCAL_EABI;
    }
    if (d->struct_size < END_OF(struct scal_plugin_desc, kind) || !d->name || !*d->name) {
        snprintf(why, whylen, "'%s': %s() descriptor too small (%u bytes) or without a name", path,
                 sym, d->struct_size);
        return SCAL_EABI;
    }
    p->kind = (int)d->kind;
    if (!rule_of((int)d->kind, &r)) {
        snprintf(why, whylen, "'%s': plugin '%s' has an unknown kind %d", path, d->name,
                 (int)d->kind);
        return SCAL_EABI;
    }
    if (want && (int)d->kind != want) {
        snprintf(why, whylen, "'%s': plugin '%s' is a %s plugin, not a %s plugin", path, d->name,
                 kind_name(d->kind), kind_name(want));
        return SCAL_EINVAL;
    }
    if (d->struct_size < r.desc_end) {
        snprintf(why, whylen,
                 "'%s': %s() descriptor of %s plugin '%s' is %u bytes, too small to hold its "
                 "operation table (%zu bytes at least)",
                 path, sym, kind_name(d->kind), d->name, d->struct_size, r.desc_end);
        return SCAL_EABI;
    }
    copy_table(&p->desc_copy, sizeof(p->desc_copy), d, d->struct_size);
    p->desc_copy.struct_size = sizeof(p->desc_copy);
    const void *table = d->kind == SCAL_PLUGIN_SENSOR     ? (const void *)d->sensor
                        : d->kind == SCAL_PLUGIN_ACTUATOR ? (const void *)d->actuator
                                                          : (const void *)d->postproc;
    uint32_t size = table ? *(const uint32_t *)table : 0;
    if (!table || size < r.ops_least) {
        snprintf(why, whylen,
                 "'%s': %s()->%s operation table of plugin '%s' is %s%u bytes: too small to "
                 "hold %s (%zu bytes at least)",
                 path, sym, r.member, d->name, table ? "" : "missing, ", size, r.required,
                 r.ops_least);
        return SCAL_EABI;
    }
    copy_table(&p->ops_copy, r.ops_size, table, size);
    memcpy(&p->ops_copy, &(uint32_t){(uint32_t)r.ops_size}, sizeof(uint32_t)); /* struct_size */
    bool complete = true;
    if (d->kind == SCAL_PLUGIN_SENSOR) {
        complete = p->ops_copy.sensor.init && p->ops_copy.sensor.metrics;
        default_sensor(&p->ops_copy.sensor);
        p->desc_copy.sensor = &p->ops_copy.sensor;
    } else if (d->kind == SCAL_PLUGIN_ACTUATOR) {
        complete = p->ops_copy.actuator.init && p->ops_copy.actuator.apply;
        default_actuator(&p->ops_copy.actuator);
        p->desc_copy.actuator = &p->ops_copy.actuator;
    } else {
        const struct scal_postproc_ops *o = &p->ops_copy.postproc;
        complete = o->run && (o->stage == SCAL_PP_ANALYSIS || o->stage == SCAL_PP_OUTPUT);
        p->desc_copy.postproc = &p->ops_copy.postproc;
    }
    if (!complete) {
        snprintf(why, whylen, "'%s': %s plugin '%s' lacks required operations (%s%s)", path,
                 kind_name(d->kind), d->name, r.required,
                 d->kind == SCAL_PLUGIN_POSTPROC ? ", stage analysis or output" : "");
        return SCAL_EABI;
    }
    p->desc = &p->desc_copy;
    return SCAL_OK;
}

/* The one sysfs-root rule: the plugin's own sysfs_root option when set by the user (environment
 * or setting, not its default), else $SCAL_SYSFS_ROOT, else "/". */
static void resolve_sysfs_root(struct scal_loaded_plugin *p)
{
    const char *own = NULL, *global = getenv("SCAL_SYSFS_ROOT");
    for (size_t i = 0; i < p->options.count; i++)
        if (!strcmp(p->options.descs[i].name, "sysfs_root") && p->options.explicit_v[i])
            own = p->options.values[i];
    snprintf(p->sysfs_root, sizeof(p->sysfs_root), "%s",
             own && *own         ? own
             : global && *global ? global
                                 : "/");
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
    snprintf(p->name, sizeof(p->name), "%s", name_or_path);
    if (strchr(name_or_path, '/')) {
        snprintf(p->path, sizeof(p->path), "%s", name_or_path);
        if (access(p->path, F_OK) != 0) {
            snprintf(why, whylen, "plugin file '%s': %s", p->path, strerror(errno));
            return SCAL_ENOENT;
        }
    } else if ((rc = find_by_name(name_or_path, p->path, sizeof(p->path), why, whylen)) < 0) {
        return rc;
    }
    int fd = open_trusted(p->path, why, whylen);
    if (fd < 0) return fd;
    char by_fd[64];
    snprintf(by_fd, sizeof(by_fd), "/proc/self/fd/%d", fd);
    p->handle = dlopen(by_fd, RTLD_NOW | RTLD_LOCAL);
    /* kept open while the plugin is mapped (always, see scal_plugin_unload): the loader knows
     * objects by name, and a closed descriptor's number, reused, would name this one again */
    if (!p->handle) close(fd);
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
    rc = take_descriptor(p, entry(), want, why, whylen);
    if (rc < 0) goto fail;
    snprintf(p->name, sizeof(p->name), "%s", p->desc->name);
    rc = scal_plugin_options_resolve(p, settings, nsettings, why, whylen);
    if (rc < 0) goto fail;
    resolve_sysfs_root(p);
    p->env.struct_size = sizeof(p->env);
    p->env.options = &p->options;
    p->env.get_option = scal_plugin_option;
    p->env.sysfs_root = p->sysfs_root;
    return SCAL_OK;
fail:
    dlclose(p->handle);
    close(fd);
    p->handle = NULL;
    p->desc = NULL;
    return rc;
}

void scal_plugin_unload(struct scal_loaded_plugin *p)
{
    scal_plugin_options_free(&p->options);
    /* Plugins stay mapped: libraries they pull in (PAPI, cairo, fontconfig) may keep process-wide
     * state and exit handlers; unloading them under those is the classic dlclose crash. */
    p->handle = NULL;
    p->desc = NULL;
}
