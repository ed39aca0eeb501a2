// SPDX-License-Identifier: BSD-3-Clause
/* Small helpers shared by the actuator plugins: text files under a sysfs root and CPU lists. */
#include "sysfs_io.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

void sysfs_path(const char *root, const char *rel, char *out, size_t outlen)
{
    size_t n = root ? strlen(root) : 0;
    while (n > 0 && root[n - 1] == '/')
        n--;
    snprintf(out, outlen, "%.*s%s%s", (int)n, n ? root : "", rel[0] == '/' ? "" : "/", rel);
}

static int errno_status(int e)
{
    if (e == ENOENT || e == ENOTDIR) return SCAL_ENOENT;
    if (e == EACCES || e == EPERM || e == EROFS) return SCAL_EPERM;
    return SCAL_EIO;
}

int sysfs_read(const char *root, const char *rel, char *buf, size_t buflen, char *why,
               size_t whylen)
{
    char path[4096];
    sysfs_path(root, rel, path, sizeof(path));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(why, whylen, "cannot read %s: %s", path, strerror(e));
        return errno_status(e);
    }
    ssize_t got;
    do
        got = read(fd, buf, buflen > 0 ? buflen - 1 : 0);
    while (got < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    if (got < 0) {
        snprintf(why, whylen, "cannot read %s: %s", path, strerror(e));
        return errno_status(e);
    }
    buf[got] = '\0';
    while (got > 0 && isspace((unsigned char)buf[got - 1]))
        buf[--got] = '\0';
    return SCAL_OK;
}

int sysfs_write(const char *root, const char *rel, const char *text, char *why, size_t whylen)
{
    char path[4096];
    sysfs_path(root, rel, path, sizeof(path));
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == EACCES || e == EPERM)
            snprintf(why, whylen, "permission denied writing %s (needs root)", path);
        else
            snprintf(why, whylen, "cannot write %s: %s", path, strerror(e));
        return errno_status(e);
    }
    size_t len = strlen(text), done = 0;
    int rc = SCAL_OK;
    while (done < len) {
        ssize_t put = write(fd, text + done, len - done);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) {
            int e = put < 0 ? errno : EIO;
            snprintf(why, whylen, "cannot write '%s' to %s: %s", text, path, strerror(e));
            rc = e == EINVAL ? SCAL_EINVAL : errno_status(e);
            break;
        }
        done += (size_t)put;
    }
    if (close(fd) != 0 && rc == SCAL_OK) {
        int e = errno;
        snprintf(why, whylen, "cannot write '%s' to %s: %s", text, path, strerror(e));
        rc = e == EINVAL ? SCAL_EINVAL : errno_status(e);
    }
    return rc;
}

int sysfs_read_long(const char *root, const char *rel, long *value, char *why, size_t whylen)
{
    char buf[64];
    int rc = sysfs_read(root, rel, buf, sizeof(buf), why, whylen);
    if (rc != SCAL_OK) return rc;
    char *end = NULL;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (end == buf || *end != '\0' || errno != 0 || v < 0) {
        char path[4096];
        sysfs_path(root, rel, path, sizeof(path));
        snprintf(why, whylen, "%s holds '%s', not a non-negative integer", path, buf);
        return SCAL_EFORMAT;
    }
    *value = v;
    return SCAL_OK;
}

int sysfs_unwritable(const char *path, int e, char *why, size_t whylen)
{
    if (e == ENOENT || e == ENOTDIR) {
        snprintf(why, whylen, "%s does not exist", path);
        return SCAL_EUNAVAIL;
    }
    if (e == EACCES || e == EPERM)
        snprintf(why, whylen, "permission denied writing %s (needs root)", path);
    else
        snprintf(why, whylen, "cannot write %s: %s", path, strerror(e));
    return SCAL_EPERM;
}

bool sysfs_exists(const char *root, const char *rel)
{
    char path[4096];
    struct stat st;
    sysfs_path(root, rel, path, sizeof(path));
    return stat(path, &st) == 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorts and removes duplicates in place; returns the new count. */
static size_t sort_unique(int *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof(*v), cmp_int);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[k - 1]) v[k++] = v[i];
    return k;
}

static bool parse_cpu(const char **p, int *out)
{
    if (!isdigit((unsigned char)**p)) return false;
    long v = 0;
    while (isdigit((unsigned char)**p)) {
        v = v * 10 + (**p - '0');
        if (v >= SYSFS_MAX_CPUS) return false;
        (*p)++;
    }
    *out = (int)v;
    return true;
}

int cpulist_parse(const char *text, int **cpus, size_t *ncpus, char *why, size_t whylen)
{
    int *v = NULL;
    size_t n = 0, cap = 0;
    int rc = SCAL_OK;
    const char *p = text ? text : "";
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0') {
        snprintf(why, whylen, "empty CPU list");
        rc = SCAL_EINVAL;
        goto out;
    }
    for (;;) {
        int lo, hi;
        if (!parse_cpu(&p, &lo)) goto bad;
        hi = lo;
        if (*p == '-') {
            p++;
            if (!parse_cpu(&p, &hi) || hi < lo) goto bad;
        }
        for (int c = lo; c <= hi; c++) {
            if (n == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                int *nv = realloc(v, ncap * sizeof(*v));
                if (!nv) {
                    snprintf(why, whylen, "out of memory parsing CPU list '%s'", text);
                    rc = SCAL_ENOMEM;
                    goto out;
                }
                v = nv;
                cap = ncap;
            }
            v[n++] = c;
        }
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0') break;
        if (*p != ',') goto bad;
        p++;
    }
    n = sort_unique(v, n);
    *cpus = v;
    *ncpus = n;
    v = NULL;
    goto out;
bad:
    snprintf(why, whylen, "'%s' is not a CPU list like 0-3,8 (CPUs below %d)", text,
             SYSFS_MAX_CPUS);
    rc = SCAL_EINVAL;
out:
    free(v);
    return rc;
}

int cpulist_format(const int *cpus, size_t ncpus, char *out, size_t outlen)
{
    size_t used = 0;
    if (outlen == 0) return SCAL_ERANGE;
    out[0] = '\0';
    for (size_t i = 0; i < ncpus;) {
        size_t j = i;
        while (j + 1 < ncpus && cpus[j + 1] == cpus[j] + 1)
            j++;
        int w;
        if (j == i)
            w = snprintf(out + used, outlen - used, "%s%d", used ? "," : "", cpus[i]);
        else
            w = snprintf(out + used, outlen - used, "%s%d-%d", used ? "," : "", cpus[i], cpus[j]);
        if (w < 0 || (size_t)w >= outlen - used) return SCAL_ERANGE;
        used += (size_t)w;
        i = j + 1;
    }
    return SCAL_OK;
}

int sysfs_list_cpus(const char *root, const char *sub, int **cpus, size_t *ncpus, char *why,
                    size_t whylen)
{
    char dirpath[4096];
    int *v = NULL;
    size_t n = 0, cap = 0;
    int rc = SCAL_OK;
    sysfs_path(root, "/sys/devices/system/cpu", dirpath, sizeof(dirpath));
    DIR *dir = opendir(dirpath);
    if (!dir) {
        int e = errno;
        snprintf(why, whylen, "cannot list %s: %s", dirpath, strerror(e));
        rc = errno_status(e);
        goto out;
    }
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        const char *p = de->d_name;
        int cpu;
        if (strncmp(p, "cpu", 3) != 0) continue;
        p += 3;
        if (!parse_cpu(&p, &cpu) || *p != '\0') continue;
        char rel[128];
        if (sub)
            snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/%s/%s", de->d_name, sub);
        else
            snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/%s", de->d_name);
        if (!sysfs_exists(root, rel)) continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            int *nv = realloc(v, ncap * sizeof(*v));
            if (!nv) {
                snprintf(why, whylen, "out of memory listing %s", dirpath);
                rc = SCAL_ENOMEM;
                goto out;
            }
            v = nv;
            cap = ncap;
        }
        v[n++] = cpu;
    }
    *ncpus = sort_unique(v, n);
    *cpus = v;
    v = NULL;
out:
    if (dir) closedir(dir);
    free(v);
    return rc;
}

const char *sysfs_option(const struct scal_plugin_env *env, const char *name)
{
    if (!env ||
        env->struct_size < offsetof(struct scal_plugin_env, get_option) + sizeof(env->get_option) ||
        !env->get_option)
        return NULL;
    return env->get_option(env->options, name);
}

const char *sysfs_root_of(const struct scal_plugin_env *env)
{
    const char *opt = sysfs_option(env, "sysfs_root");
    if (opt && opt[0] != '\0' && strcmp(opt, "/") != 0) return opt;
    if (env &&
        env->struct_size >=
            offsetof(struct scal_plugin_env, sysfs_root) + sizeof(env->sysfs_root) &&
        env->sysfs_root && env->sysfs_root[0] != '\0')
        return env->sysfs_root;
    return "/";
}

bool sysfs_truthy(const char *text)
{
    if (!text) return false;
    return strcmp(text, "1") == 0 || strcasecmp(text, "true") == 0 ||
           strcasecmp(text, "yes") == 0 || strcasecmp(text, "on") == 0;
}
