// SPDX-License-Identifier: BSD-3-Clause
// A tiny stand-in for the plugin host in sensor tests: loads a plugin by path, checks its
// descriptor and hands it options given as "name=value" strings.
#define _XOPEN_SOURCE 700
#include "fake_host.h"

#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fake_failures;

static const char *fake_get_option(const struct scal_options *opts, const char *name)
{
    const struct scal_option_desc *d = opts->desc;
    while (d && d->name && strcmp(d->name, name) != 0)
        d++;
    if (!d || !d->name) return NULL; // not an option of this plugin
    size_t n = strlen(name);
    for (size_t i = 0; i < opts->nset; i++)
        if (strncmp(opts->set[i], name, n) == 0 && opts->set[i][n] == '=')
            return opts->set[i] + n + 1;
    return d->default_value;
}

bool fake_load(struct fake_plugin *p, const char *path, const char *expect_name)
{
    memset(p, 0, sizeof(*p));
    p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->dl) {
        fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
        return false;
    }
    scal_plugin_entry_fn entry = NULL;
    void *sym = dlsym(p->dl, SCAL_PLUGIN_ENTRY_NAME);
    memcpy(&entry, &sym, sizeof(entry));
    const struct scal_plugin_desc *d = entry ? entry() : NULL;
    const char *bad = NULL;
    if (!entry)
        bad = "no entry symbol " SCAL_PLUGIN_ENTRY_NAME;
    else if (!d)
        bad = "entry returned NULL";
    else if ((d->abi_version >> 16) != SCAL_PLUGIN_ABI_MAJOR)
        bad = "ABI major differs";
    else if (d->struct_size < offsetof(struct scal_plugin_desc, sensor) + sizeof(d->sensor))
        bad = "descriptor too small";
    else if (d->kind != SCAL_PLUGIN_SENSOR || !d->sensor)
        bad = "not a sensor";
    else if (!d->name || strcmp(d->name, expect_name) != 0)
        bad = "unexpected name";
    else if (!d->version || !d->description || !d->options)
        bad = "version, description or options missing";
    else if (!d->sensor->init || !d->sensor->metrics || !d->sensor->fini)
        bad = "init, metrics or fini missing";
    else if (d->sensor->struct_size != sizeof(struct scal_sensor_ops))
        bad = "sensor ops size differs";
    if (bad) {
        fprintf(stderr, "%s: %s\n", path, bad);
        dlclose(p->dl);
        p->dl = NULL;
        return false;
    }
    p->desc = d;
    p->ops = d->sensor;
    p->options.desc = d->options;
    p->env.struct_size = sizeof(p->env);
    p->env.options = &p->options;
    p->env.get_option = fake_get_option;
    p->env.sysfs_root = "/";
    return true;
}

void fake_options(struct fake_plugin *p, const char *const *set, size_t nset,
                  const char *sysfs_root)
{
    p->options.nset = nset < FAKE_MAX_OPTIONS ? nset : FAKE_MAX_OPTIONS;
    for (size_t i = 0; i < p->options.nset; i++)
        p->options.set[i] = set[i];
    p->env.sysfs_root = sysfs_root ? sysfs_root : "/";
}

void fake_unload(struct fake_plugin *p, bool close)
{
    if (p->dl && close) dlclose(p->dl);
    memset(p, 0, sizeof(*p));
}

int fake_metric_index(const struct scal_metric_desc *m, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0) return (int)i;
    return -1;
}

int fake_result(const char *test)
{
    if (fake_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", test, fake_failures);
        return 1;
    }
    printf("%s: all checks passed\n", test);
    return 0;
}

char *fake_tmpdir(char *buf, size_t len)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, len, "%s/scal-sensors-XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(buf)) {
        fprintf(stderr, "mkdtemp %s: %s\n", buf, strerror(errno));
        return NULL;
    }
    chmod(buf, 0755); // readable by the unprivileged child of the permission test
    return buf;
}

bool fake_write(const char *root, const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "mkdir %s: %s\n", path, strerror(errno));
            return false;
        }
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    fputs(text, f);
    return fclose(f) == 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void fake_rmtree(const char *root)
{
    if (root && root[0]) nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
