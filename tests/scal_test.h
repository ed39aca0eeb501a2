/* SPDX-License-Identifier: BSD-3-Clause */
/* The C unit tests' one helper header: checks that count and print failures (CHECK, CHECK_STR,
 * CHECK_RC), main's exit status, fake sysfs trees in temporary directories, running a check as an
 * unprivileged user, and (for tests linked with the plugin host) loading a built plugin through
 * the real loader. Header-only; tests exit 77 (skipped) when the machine lacks something. */
#ifndef SCAL_TEST_H
#define SCAL_TEST_H

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SCAL_TEST_SKIP 77

/* Failed checks of this process (weak: one counter for every file of a test program). */
__attribute__((weak)) int scal_test_failures;

/* fmt is CHECK's message after one space (which keeps the format of a CHECK without a message from
 * being empty: gcc's -Wformat-zero-length). */
__attribute__((format(printf, 4, 5))) static inline void
scal_test_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
    va_list ap;
    const char *msg = fmt + 1;
    fprintf(stderr, "%s:%d: check failed: %s%s", file, line, expr, msg[0] ? ": " : "");
    va_start(ap, fmt);
    vfprintf(stderr, msg, ap);
    va_end(ap);
    fputc('\n', stderr);
    scal_test_failures++;
}

/* CHECK(cond) or CHECK(cond, "printf format", args...): the message explains a failure. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) scal_test_fail(__FILE__, __LINE__, #cond, " " __VA_ARGS__);                   \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *got_ = (got), *want_ = (want);                                                 \
        CHECK(got_ &&strcmp(got_, want_) == 0, "'%s', expected '%s'", got_ ? got_ : "(null)",      \
              want_);                                                                              \
    } while (0)

/* CHECK that a status is rc and, when sub is not NULL, that the message why contains sub. */
#define CHECK_RC(status, rc, why, sub)                                                             \
    do {                                                                                           \
        int st_ = (status);                                                                        \
        const char *sub_ = (sub);                                                                  \
        CHECK(st_ == (rc) && (!sub_ || strstr((why), sub_)), "returned %d '%s', expected %d%s%s",  \
              st_, (why), (rc), sub_ ? " with " : "", sub_ ? sub_ : "");                           \
    } while (0)

/* main's exit status: 0 when every check passed (and says so), else 1. */
static inline int scal_test_result(const char *test)
{
    if (scal_test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", test, scal_test_failures);
        return 1;
    }
    printf("%s: all checks passed\n", test);
    return 0;
}

/* ---- fake sysfs trees ---------------------------------------------------------------------- */

/* A new empty directory (mode 0755, so an unprivileged child can read it); malloc'd path. */
static inline char *scal_test_tree_new(void)
{
    const char *tmp = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s/scal-test-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(buf)) {
        perror("mkdtemp");
        abort();
    }
    chmod(buf, 0755);
    return strdup(buf);
}

/* Writes text to root/rel as given, creating the directories (aborts on failure; returns true so
 * that writes chain with &&). */
static inline bool scal_test_tree_write(const char *root, const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", root, rel[0] == '/' ? rel + 1 : rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot create %s: %s\n", path, strerror(errno));
        abort();
    }
    fputs(text, f);
    fclose(f);
    return true;
}

/* Writes text + "\n" (how sysfs shows a value). */
static inline void scal_test_tree_put(const char *root, const char *rel, const char *text)
{
    char line[4096];
    snprintf(line, sizeof(line), "%s\n", text);
    scal_test_tree_write(root, rel, line);
}

/* root/rel's content without the trailing newline in a static buffer; NULL when unreadable. rel
 * "" reads root itself. */
static inline const char *scal_test_tree_get(const char *root, const char *rel)
{
    static char buf[4096];
    char path[4096];
    snprintf(path, sizeof(path), "%s%s%s", root, rel[0] ? "/" : "", rel[0] == '/' ? rel + 1 : rel);
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return buf;
}

/* Calls fn(path, rel, arg) for every file under dir (rel: the part below the walk's root); with
 * remove_dirs, removes each directory once its contents were visited (fn removes the files). */
static inline void scal_test_walk(const char *dir, size_t rootlen,
                                  void (*fn)(const char *path, const char *rel, void *arg),
                                  void *arg, bool remove_dirs)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            scal_test_walk(path, rootlen, fn, arg, remove_dirs);
        else
            fn(path, path + rootlen, arg);
    }
    if (d) closedir(d);
    if (remove_dirs) rmdir(dir);
}

struct scal_test_lines {
    char **line;
    size_t n, len;
};

static inline void scal_test_snap_one(const char *path, const char *rel, void *arg)
{
    struct scal_test_lines *l = arg;
    const char *content = scal_test_tree_get(path, "");
    size_t add = strlen(rel) + strlen(content ? content : "?") + 3;
    char **grown = realloc(l->line, (l->n + 1) * sizeof(*grown));
    if (!grown || !(grown[l->n] = malloc(add))) abort();
    l->line = grown;
    snprintf(l->line[l->n++], add, "%s=%s\n", rel, content ? content : "?");
    l->len += add;
}

static inline int scal_test_cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under root as sorted "rel=content" lines (malloc'd): equal trees give equal
 * text. */
static inline char *scal_test_tree_snapshot(const char *root)
{
    struct scal_test_lines l = {0};
    scal_test_walk(root, strlen(root), scal_test_snap_one, &l, false);
    qsort(l.line, l.n, sizeof(*l.line), scal_test_cmp_line);
    char *out = malloc(l.len + 1);
    size_t used = 0;
    if (!out) abort();
    out[0] = '\0';
    for (size_t i = 0; i < l.n; i++) {
        used += (size_t)snprintf(out + used, l.len + 1 - used, "%s", l.line[i]);
        free(l.line[i]);
    }
    free(l.line);
    return out;
}

static inline void scal_test_rm_one(const char *path, const char *rel, void *arg)
{
    unlink(path);
}

/* Removes root recursively and frees it. */
static inline void scal_test_tree_free(char *root)
{
    if (!root) return;
    scal_test_walk(root, strlen(root), scal_test_rm_one, NULL, true);
    free(root);
}

/* What a test loads in a child that drops root privileges, readable by that child: as root, a copy
 * of path (mode 0644) in a new 0755 tree (*tree, freed with scal_test_tree_free), because the
 * build directory may sit in a private (0700) directory such as Spack's stage; otherwise path
 * itself (*tree NULL). Returns a malloc'd path. */
static inline char *scal_test_readable_copy(const char *path, char **tree)
{
    *tree = NULL;
    if (geteuid() != 0) return strdup(path);
    FILE *in = fopen(path, "rb");
    if (!in) {
        perror(path);
        abort();
    }
    const char *base = strrchr(path, '/');
    char *root = scal_test_tree_new(), copy[4200], chunk[65536];
    snprintf(copy, sizeof(copy), "%s/%s", root, base ? base + 1 : path);
    FILE *out = fopen(copy, "wb");
    size_t n;
    while (out && (n = fread(chunk, 1, sizeof(chunk), in)) > 0)
        if (fwrite(chunk, 1, n, out) != n) break;
    if (!out || ferror(in) || fclose(out) != 0 || chmod(copy, 0644) != 0) {
        perror(copy);
        abort();
    }
    fclose(in);
    *tree = root;
    return strdup(copy);
}

/* Runs fn(arg) where a mode 0444 file cannot be written: in-process for a normal user; as root, in
 * a child that became nobody (65534), whose failed checks are added here. Returns false when it
 * could not drop privileges (the caller notes the skip). */
static inline bool scal_test_unprivileged(void (*fn)(void *), void *arg)
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
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
            _exit(SCAL_TEST_SKIP);
        scal_test_failures = 0;
        fn(arg);
        _exit(scal_test_failures ? 1 : 0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        fprintf(stderr, "unprivileged child failed\n");
        scal_test_failures++;
        return true;
    }
    if (WEXITSTATUS(status) == SCAL_TEST_SKIP) return false;
    if (WEXITSTATUS(status) != 0) scal_test_failures++;
    return true;
}

#if __has_include("plugin_loader.h")
#include "plugin_loader.h"

/* (Re)loads the plugin at path into p through the real loader, with nsettings "option=value"
 * settings and, when sysfs_root is not NULL, SCAL_SYSFS_ROOT set to it for the load (the host's
 * root in the one sysfs-root rule). Returns the loader's status with the reason in why. */
static inline int scal_test_load(struct scal_loaded_plugin *p, const char *path, int kind,
                                 const char *const *settings, size_t nsettings,
                                 const char *sysfs_root, char *why, size_t whylen)
{
    if (p->desc) scal_plugin_unload(p);
    if (sysfs_root)
        setenv("SCAL_SYSFS_ROOT", sysfs_root, 1);
    else
        unsetenv("SCAL_SYSFS_ROOT");
    why[0] = '\0';
    int rc = scal_plugin_load(path, kind, settings, nsettings, p, why, whylen);
    unsetenv("SCAL_SYSFS_ROOT");
    if (rc != SCAL_OK) fprintf(stderr, "loading %s: %s\n", path, why);
    return rc;
}

/* scal_test_load without settings, printing the reason; false on failure. */
static inline bool scal_test_load_ok(struct scal_loaded_plugin *p, const char *path, int kind)
{
    char why[SCAL_PLUGIN_WHY_MAX];
    return scal_test_load(p, path, kind, NULL, 0, NULL, why, sizeof(why)) == SCAL_OK;
}

/* Actuator tests: reloads the actuator already loaded in p with settings (a NULL-terminated list
 * or NULL) and the host's sysfs root, then starts it (init). */
static inline int scal_test_start_actuator(struct scal_loaded_plugin *p,
                                           const char *const *settings, const char *sysfs_root,
                                           scal_actuator_state **state, char *why, size_t whylen)
{
    char path[SCAL_PLUGIN_PATH_MAX];
    size_t n = 0;
    snprintf(path, sizeof(path), "%s", p->path);
    while (settings && settings[n])
        n++;
    int rc = scal_test_load(p, path, SCAL_PLUGIN_ACTUATOR, settings, n, sysfs_root, why, whylen);
    return rc != SCAL_OK ? rc : p->desc->actuator->init(&p->env, state, why, whylen);
}

/* Sensor tests: reloads the sensor already loaded in p with nsettings settings and the host's
 * sysfs root (NULL: unset). */
static inline int scal_test_reload_sensor(struct scal_loaded_plugin *p, const char *const *settings,
                                          size_t nsettings, const char *sysfs_root)
{
    char path[SCAL_PLUGIN_PATH_MAX], why[SCAL_PLUGIN_WHY_MAX];
    snprintf(path, sizeof(path), "%s", p->path);
    return scal_test_load(p, path, SCAL_PLUGIN_SENSOR, settings, nsettings, sysfs_root, why,
                          sizeof(why));
}
#endif

#endif
