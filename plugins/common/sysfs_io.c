// SPDX-License-Identifier: BSD-3-Clause
/* Text files under a sysfs root and CPU lists, shared by the sensor and actuator plugins. */
#include "sysfs_io.h"

#include "plugin_util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void scal__sysfs_path(const char *root, const char *rel, char *out, size_t outlen)
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

/* Reads the whole small file behind fd from offset 0 (sysfs regenerates an attribute's text on
 * every read from 0) into buf, without its trailing whitespace. */
static int read_at_zero(int fd, const char *path, char *buf, size_t buflen, char *why,
                        size_t whylen)
{
    ssize_t got;
    do
        got = pread(fd, buf, buflen > 0 ? buflen - 1 : 0, 0);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        int e = errno;
        return scal__why(why, whylen, errno_status(e), "cannot read %s: %s", path, strerror(e));
    }
    buf[got] = '\0';
    while (got > 0 && isspace((unsigned char)buf[got - 1]))
        buf[--got] = '\0';
    return SCAL_OK;
}

int scal__sysfs_open(const char *root, const char *rel, int *fd, char *path, size_t pathlen,
                     char *why, size_t whylen)
{
    scal__sysfs_path(root, rel, path, pathlen);
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0) {
        int e = errno;
        return scal__why(why, whylen, errno_status(e), "cannot read %s: %s", path, strerror(e));
    }
    return SCAL_OK;
}

int scal__sysfs_read(const char *root, const char *rel, char *buf, size_t buflen, char *why,
                     size_t whylen)
{
    char path[4096];
    int fd;
    int rc = scal__sysfs_open(root, rel, &fd, path, sizeof(path), why, whylen);
    if (rc != SCAL_OK) return rc;
    rc = read_at_zero(fd, path, buf, buflen, why, whylen);
    close(fd);
    return rc;
}

int scal__sysfs_write(const char *root, const char *rel, const char *text, char *why, size_t whylen)
{
    char path[4096];
    scal__sysfs_path(root, rel, path, sizeof(path));
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == EACCES || e == EPERM)
            return scal__why(why, whylen, errno_status(e),
                             "permission denied writing %s (needs root)", path);
        return scal__why(why, whylen, errno_status(e), "cannot write %s: %s", path, strerror(e));
    }
    size_t len = strlen(text), done = 0;
    int rc = SCAL_OK;
    while (done < len) {
        ssize_t put = write(fd, text + done, len - done);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) {
            int e = put < 0 ? errno : EIO;
            rc = scal__why(why, whylen, e == EINVAL ? SCAL_EINVAL : errno_status(e),
                           "cannot write '%s' to %s: %s", text, path, strerror(e));
            break;
        }
        done += (size_t)put;
    }
    if (close(fd) != 0 && rc == SCAL_OK) {
        int e = errno;
        rc = scal__why(why, whylen, e == EINVAL ? SCAL_EINVAL : errno_status(e),
                       "cannot write '%s' to %s: %s", text, path, strerror(e));
    }
    return rc;
}

static int parse_u64(const char *path, const char *buf, uint64_t *value, char *why, size_t whylen)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (!isdigit((unsigned char)buf[0]) || *end != '\0' || errno != 0)
        return scal__why(why, whylen, SCAL_EFORMAT, "%s holds '%s', not a non-negative integer",
                         path, buf);
    *value = (uint64_t)v;
    return SCAL_OK;
}

int scal__sysfs_read_u64(const char *root, const char *rel, uint64_t *value, char *why,
                         size_t whylen)
{
    char buf[64], path[4096];
    int rc = scal__sysfs_read(root, rel, buf, sizeof(buf), why, whylen);
    if (rc != SCAL_OK) return rc;
    scal__sysfs_path(root, rel, path, sizeof(path));
    return parse_u64(path, buf, value, why, whylen);
}

int scal__sysfs_pread_u64(int fd, const char *path, uint64_t *value, char *why, size_t whylen)
{
    char buf[64];
    int rc = read_at_zero(fd, path, buf, sizeof(buf), why, whylen);
    return rc == SCAL_OK ? parse_u64(path, buf, value, why, whylen) : rc;
}

int scal__sysfs_unwritable(const char *path, int e, char *why, size_t whylen)
{
    if (e == ENOENT || e == ENOTDIR)
        return scal__why(why, whylen, SCAL_EUNAVAIL, "%s does not exist", path);
    if (e == EACCES || e == EPERM)
        return scal__why(why, whylen, SCAL_EPERM, "permission denied writing %s (needs root)",
                         path);
    return scal__why(why, whylen, SCAL_EPERM, "cannot write %s: %s", path, strerror(e));
}

bool scal__sysfs_exists(const char *root, const char *rel)
{
    char path[4096];
    struct stat st;
    scal__sysfs_path(root, rel, path, sizeof(path));
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
    if (n == 0) return SCAL_OK;
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
        if (v >= SCAL_SYSFS_MAX_CPUS) return false;
        (*p)++;
    }
    *out = (int)v;
    return true;
}

int scal__cpulist_parse(const char *text, int **cpus, size_t *ncpus, char *why, size_t whylen)
{
    int *v = NULL;
    size_t n = 0, cap = 0;
    int rc = SCAL_OK;
    const char *p = text ? text : "";
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0') {
        rc = scal__why(why, whylen, SCAL_EINVAL, "empty CPU list");
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
                    rc = scal__why(why, whylen, SCAL_ENOMEM, "out of memory parsing CPU list '%s'",
                                   text);
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
    rc = scal__why(why, whylen, SCAL_EINVAL, "'%s' is not a CPU list like 0-3,8 (CPUs below %d)",
                   text, SCAL_SYSFS_MAX_CPUS);
out:
    free(v);
    return rc;
}

int scal__cpulist_format(const int *cpus, size_t ncpus, char *out, size_t outlen)
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

int scal__sysfs_list_cpus(const char *root, const char *sub, int **cpus, size_t *ncpus, char *why,
                          size_t whylen)
{
    char dirpath[4096];
    int *v = NULL;
    size_t n = 0, cap = 0;
    int rc = SCAL_OK;
    scal__sysfs_path(root, "/sys/devices/system/cpu", dirpath, sizeof(dirpath));
    DIR *dir = opendir(dirpath);
    if (!dir) {
        int e = errno;
        rc = scal__why(why, whylen, errno_status(e), "cannot list %s: %s", dirpath, strerror(e));
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
        if (!scal__sysfs_exists(root, rel)) continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            int *nv = realloc(v, ncap * sizeof(*v));
            if (!nv) {
                rc = scal__why(why, whylen, SCAL_ENOMEM, "out of memory listing %s", dirpath);
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
