// SPDX-License-Identifier: BSD-3-Clause
/* A minimal stand-in for the plugin host in the actuator tests: loads a plugin, resolves options,
 * records what a launch was told, and builds fake sysfs trees. */
#define _GNU_SOURCE
#include "fake_host.h"

#include <dlfcn.h>
#include <grp.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int fake_failures;

bool fake_load(const char *path, struct fake_plugin *p)
{
    memset(p, 0, sizeof(*p));
    p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->dl) {
        fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
        return false;
    }
    scal_plugin_entry_fn entry = (scal_plugin_entry_fn)dlsym(p->dl, SCAL_PLUGIN_ENTRY_NAME);
    if (!entry) {
        fprintf(stderr, "no entry point [%s] in %s\n", SCAL_PLUGIN_ENTRY_NAME, path);
        goto fail;
    }
    p->desc = entry();
    const struct scal_plugin_desc *d = p->desc;
    if (!d || d->abi_version >> 16 != SCAL_PLUGIN_ABI_MAJOR ||
        d->abi_version != SCAL_PLUGIN_ABI_VERSION || d->struct_size != sizeof(*d)) {
        fprintf(stderr, "%s: bad descriptor or ABI\n", path);
        goto fail;
    }
    if (d->kind != SCAL_PLUGIN_ACTUATOR || !d->name || !d->version || strcmp(d->version, "1") ||
        !d->description || !d->options || !d->actuator || d->sensor || d->postproc) {
        fprintf(stderr, "%s: not a complete actuator descriptor\n", path);
        goto fail;
    }
    size_t nopts = 0;
    while (d->options[nopts].name && nopts < FAKE_MAX_OPTS)
        nopts++;
    if (d->options[nopts].name) {
        fprintf(stderr, "%s: option table not terminated\n", path);
        goto fail;
    }
    p->ops = d->actuator;
    if (p->ops->struct_size != sizeof(*p->ops) || !p->ops->init || !p->ops->test || !p->ops->save ||
        !p->ops->apply || !p->ops->observe || !p->ops->restore || !p->ops->fini) {
        fprintf(stderr, "%s: incomplete actuator ops\n", path);
        goto fail;
    }
    return true;
fail:
    dlclose(p->dl);
    p->dl = NULL;
    return false;
}

void fake_unload(struct fake_plugin *p)
{
    if (p->dl) dlclose(p->dl);
    memset(p, 0, sizeof(*p));
}

/* Like the real host: the set value, else the default, NULL for an option the plugin lacks. */
static const char *fake_get_option(const struct scal_options *o, const char *name)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->names[i], name) == 0) return o->values[i];
    for (const struct scal_option_desc *d = o->table; d && d->name; d++)
        if (strcmp(d->name, name) == 0) return d->default_value;
    return NULL;
}

void fake_env_init(struct fake_env *fe, const struct fake_plugin *p, const char *const *opts,
                   const char *sysfs_root)
{
    memset(fe, 0, sizeof(*fe));
    fe->opts.table = p->desc->options;
    for (size_t i = 0; opts && opts[i] && fe->opts.n < FAKE_MAX_OPTS; i++) {
        const char *eq = strchr(opts[i], '=');
        if (!eq) continue;
        snprintf(fe->opts.names[fe->opts.n], sizeof(fe->opts.names[0]), "%.*s", (int)(eq - opts[i]),
                 opts[i]);
        snprintf(fe->opts.values[fe->opts.n], sizeof(fe->opts.values[0]), "%s", eq + 1);
        fe->opts.n++;
    }
    fe->env.struct_size = sizeof(fe->env);
    fe->env.options = &fe->opts;
    fe->env.get_option = fake_get_option;
    fe->env.sysfs_root = sysfs_root ? sysfs_root : "/";
}

int fake_start(const struct fake_plugin *p, struct fake_env *fe, const char *const *opts,
               const char *sysfs_root, scal_actuator_state **state, char *why, size_t whylen)
{
    fake_env_init(fe, p, opts, sysfs_root);
    why[0] = '\0';
    return p->ops->init(&fe->env, state, why, whylen);
}

static struct fake_launch *launch_of(struct scal_launch *l)
{
    return (struct fake_launch *)l->host_data;
}

/* Sets name=value in a name/value array, replacing an earlier value. */
static int record(char **names, char **values, size_t *n, const char *name, const char *value)
{
    size_t i = 0;
    while (i < *n && strcmp(names[i], name) != 0)
        i++;
    if (i == FAKE_MAX_ITEMS) return SCAL_ENOMEM;
    char *v = strdup(value);
    if (!v) return SCAL_ENOMEM;
    if (i == *n) {
        if (!(names[i] = strdup(name))) {
            free(v);
            return SCAL_ENOMEM;
        }
        (*n)++;
    } else {
        free(values[i]);
    }
    values[i] = v;
    return SCAL_OK;
}

static int fake_set_env(struct scal_launch *launch, const char *name, const char *value)
{
    struct fake_launch *l = launch_of(launch);
    return record(l->env_names, l->env_values, &l->nenv, name, value);
}

static int fake_set_placeholder(struct scal_launch *launch, const char *name, const char *value)
{
    struct fake_launch *l = launch_of(launch);
    return record(l->ph_names, l->ph_values, &l->nph, name, value);
}

static int fake_append_args(struct scal_launch *launch, const char *const *args, size_t nargs)
{
    struct fake_launch *l = launch_of(launch);
    for (size_t i = 0; i < nargs; i++) {
        if (l->nargs == FAKE_MAX_ITEMS || !(l->args[l->nargs] = strdup(args[i])))
            return SCAL_ENOMEM;
        l->nargs++;
    }
    return SCAL_OK;
}

static int fake_set_cpus(struct scal_launch *launch, const char *cpulist)
{
    struct fake_launch *l = launch_of(launch);
    free(l->cpus);
    l->cpus = strdup(cpulist);
    return l->cpus ? SCAL_OK : SCAL_ENOMEM;
}

void fake_launch_init(struct fake_launch *l, bool abi_1_1)
{
    memset(l, 0, sizeof(*l));
    l->base.struct_size = abi_1_1 ? sizeof(l->base) : offsetof(struct scal_launch, set_cpus);
    l->base.set_env = fake_set_env;
    l->base.set_placeholder = fake_set_placeholder;
    l->base.append_args = fake_append_args;
    l->base.host_data = l;
    /* An ABI 1.0 host's struct ends before set_cpus; a plugin reading it anyway would crash here.
     */
    l->base.set_cpus = abi_1_1 ? fake_set_cpus : (int (*)(struct scal_launch *, const char *))1;
}

void fake_launch_free(struct fake_launch *l)
{
    for (size_t i = 0; i < l->nenv; i++) {
        free(l->env_names[i]);
        free(l->env_values[i]);
    }
    for (size_t i = 0; i < l->nph; i++) {
        free(l->ph_names[i]);
        free(l->ph_values[i]);
    }
    for (size_t i = 0; i < l->nargs; i++)
        free(l->args[i]);
    free(l->cpus);
    memset(l, 0, sizeof(*l));
}

static const char *lookup(char *const *names, char *const *values, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return values[i];
    return NULL;
}

const char *fake_launch_env(const struct fake_launch *l, const char *name)
{
    return lookup(l->env_names, l->env_values, l->nenv, name);
}

const char *fake_launch_placeholder(const struct fake_launch *l, const char *name)
{
    return lookup(l->ph_names, l->ph_values, l->nph, name);
}

char *fake_tree_new(void)
{
    const char *tmp = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s/scal-actuators-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(buf)) {
        perror("mkdtemp");
        abort();
    }
    chmod(buf, 0755); /* traversable by an unprivileged child (fake_unprivileged) */
    return strdup(buf);
}

static void mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
}

void fake_tree_put(const char *root, const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", root, rel[0] == '/' ? rel + 1 : rel);
    mkdirs(path);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot create %s: %s\n", path, strerror(errno));
        abort();
    }
    fprintf(f, "%s\n", text);
    fclose(f);
}

const char *fake_tree_get(const char *root, const char *rel)
{
    static char buf[4096];
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", root, rel[0] == '/' ? rel + 1 : rel);
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return buf;
}

/* nftw has no user pointer: the snapshot under construction lives here (tests are single-threaded).
 */
static struct {
    const char *root;
    char **lines;
    size_t n, cap;
} snap;

static int snap_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    if (type != FTW_F) return 0;
    const char *rel = path + strlen(snap.root);
    const char *content = fake_tree_get(snap.root, rel);
    char *line = NULL;
    if (asprintf(&line, "%s=%s", rel, content ? content : "(unreadable)") < 0) abort();
    if (snap.n == snap.cap) {
        snap.cap = snap.cap ? snap.cap * 2 : 64;
        snap.lines = realloc(snap.lines, snap.cap * sizeof(*snap.lines));
        if (!snap.lines) abort();
    }
    snap.lines[snap.n++] = line;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *fake_tree_snapshot(const char *root)
{
    snap.root = root;
    snap.n = 0;
    nftw(root, snap_one, 16, FTW_PHYS);
    qsort(snap.lines, snap.n, sizeof(*snap.lines), cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < snap.n; i++)
        len += strlen(snap.lines[i]) + 1;
    char *out = malloc(len), *p = out;
    if (!out) abort();
    *p = '\0';
    for (size_t i = 0; i < snap.n; i++) {
        p += sprintf(p, "%s\n", snap.lines[i]);
        free(snap.lines[i]);
    }
    free(snap.lines);
    memset(&snap, 0, sizeof(snap));
    return out;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    if (type == FTW_DP || type == FTW_D)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void fake_tree_free(char *root)
{
    if (!root) return;
    nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(root);
}

bool fake_unprivileged(void (*fn)(void *), void *arg)
{
    if (geteuid() != 0) {
        fn(arg);
        return true;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        abort();
    }
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(77);
        fake_failures = 0;
        fn(arg);
        _exit(fake_failures ? 1 : 0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        fprintf(stderr, "unprivileged child failed\n");
        fake_failures++;
        return true;
    }
    if (WEXITSTATUS(status) == 77) return false;
    if (WEXITSTATUS(status) != 0) fake_failures++;
    return true;
}
