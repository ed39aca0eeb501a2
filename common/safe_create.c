// SPDX-License-Identifier: BSD-3-Clause
// Exclusive file creation at an unpredictable temporary name, then a rename into place.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "safe_create.h"
#include "scal/status.h"

int scal_safe_check_final(const char *final, bool replace)
{
    struct stat st;
    if (lstat(final, &st) < 0) {
        if (errno == ENOENT) return SCAL_OK;
        return scal__fail(SCAL_EIO, "cannot look at '%s': %s", final, strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return scal__fail(SCAL_EEXIST,
                          "'%s' exists and is not a regular file (%s): refused, choose another "
                          "output",
                          final,
                          S_ISLNK(st.st_mode)    ? "a symbolic link"
                          : S_ISDIR(st.st_mode)  ? "a directory"
                          : S_ISFIFO(st.st_mode) ? "a fifo"
                                                 : "a device or socket");
    if (!replace)
        return scal__fail(SCAL_EEXIST, "'%s' exists: refused, choose another output", final);
    return SCAL_OK;
}

int scal_safe_create_temp(const char *final, bool replace, char *tmp, size_t len)
{
    int fd = scal_safe_create_open(final, replace, tmp, len);
    if (fd < 0) return fd;
    close(fd);
    return SCAL_OK;
}

int scal_safe_create_open(const char *final, bool replace, char *tmp, size_t len)
{
    int rc = scal_safe_check_final(final, replace);
    if (rc < 0) return rc;
    const char *slash = strrchr(final, '/');
    const char *base = slash ? slash + 1 : final;
    int dirlen = slash ? (int)(slash - final + 1) : 0;
    if ((size_t)snprintf(tmp, len, "%.*s.%s.XXXXXX", dirlen, final, base) >= len)
        return scal__fail(SCAL_EINVAL, "path too long: '%s'", final);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return scal__fail(errno == EACCES || errno == EPERM ? SCAL_EPERM : SCAL_EIO,
                          "cannot create a file next to '%s': %s", final, strerror(errno));
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) < 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return scal__fail(SCAL_EIO, "cannot set the mode of '%s': %s", tmp, strerror(e));
    }
    return fd;
}

/* An unpredictable name in final's directory that does not exist yet: ".BASE.XXXXXXXXXXXX". */
static int temp_name(const char *final, char *tmp, size_t len)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char r[12];
    const char *slash = strrchr(final, '/');
    const char *base = slash ? slash + 1 : final;
    int dirlen = slash ? (int)(slash - final + 1) : 0;
    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
        return scal__fail(SCAL_EIO, "cannot draw a temporary name: %s", strerror(errno));
    char suffix[sizeof(r) + 1];
    for (size_t i = 0; i < sizeof(r); i++)
        suffix[i] = alphabet[r[i] % (sizeof(alphabet) - 1)];
    suffix[sizeof(r)] = 0;
    if ((size_t)snprintf(tmp, len, "%.*s.%s.%s", dirlen, final, base, suffix) >= len)
        return scal__fail(SCAL_EINVAL, "path too long: '%s'", final);
    return SCAL_OK;
}

int scal_safe_create_with(const char *final, bool replace, char *tmp, size_t len,
                          int (*create)(const char *tmp, void *ctx), void *ctx)
{
    int rc = scal_safe_check_final(final, replace);
    for (int tries = 0; rc == SCAL_OK; tries++) {
        struct stat st;
        if (tries == 100)
            return scal__fail(SCAL_EEXIST, "cannot create a file next to '%s': 100 names taken",
                              final);
        if ((rc = temp_name(final, tmp, len)) < 0) break;
        if (lstat(tmp, &st) == 0 || errno != ENOENT) continue; /* taken: another name */
        /* its own error (a name planted since is refused by the exclusive create, not opened) */
        return create(tmp, ctx);
    }
    return rc;
}

static int sync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* The directory holding path, so that the rename itself is durable. */
static void sync_dir_of(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path + (slash == path)) : 1,
             slash ? path : ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) fsync(fd), close(fd);
}

static int publish(const char *tmp, const char *final, bool replace, bool durable)
{
    int rc = scal_safe_check_final(final, replace);
    if (rc == SCAL_OK && durable && sync_path(tmp) < 0)
        rc = scal__fail(SCAL_EIO, "cannot write '%s' to disk: %s", final, strerror(errno));
    if (rc == SCAL_OK && replace && rename(tmp, final) < 0)
        rc = scal__fail(SCAL_EIO, "cannot rename '%s' to '%s': %s", tmp, final, strerror(errno));
    if (rc == SCAL_OK && !replace && renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE)) {
        /* file systems without RENAME_NOREPLACE: link() refuses an existing name too */
        if (errno != EINVAL && errno != ENOSYS)
            rc = scal__fail(errno == EEXIST ? SCAL_EEXIST : SCAL_EIO, "cannot create '%s': %s",
                            final, strerror(errno));
        else if (link(tmp, final) < 0)
            rc = scal__fail(errno == EEXIST ? SCAL_EEXIST : SCAL_EIO, "cannot create '%s': %s",
                            final, strerror(errno));
        else
            unlink(tmp);
    }
    if (rc < 0)
        unlink(tmp);
    else if (durable)
        sync_dir_of(final);
    return rc;
}

int scal_safe_publish(const char *tmp, const char *final, bool replace)
{
    return publish(tmp, final, replace, true);
}

int scal_safe_publish_nosync(const char *tmp, const char *final, bool replace)
{
    return publish(tmp, final, replace, false);
}

int scal_safe_mkdir(const char *path)
{
    struct stat st;
    if (mkdir(path, 0777) == 0) return SCAL_OK;
    int e = errno;
    if (e != EEXIST)
        return scal__fail(e == EACCES || e == EPERM ? SCAL_EPERM : SCAL_EIO,
                          "cannot create directory '%s': %s", path, strerror(e));
    if (lstat(path, &st) < 0)
        return scal__fail(SCAL_EIO, "cannot look at '%s': %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return scal__fail(SCAL_EEXIST,
                          "'%s' exists and is not a directory (%s): refused, choose another output",
                          path, S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
    return SCAL_OK;
}

int scal_safe_copy_temp(const char *src, const char *final, bool replace, char *tmp, size_t len)
{
    char buf[65536];
    int out = scal_safe_create_open(final, replace, tmp, len), rc = SCAL_OK;
    if (out < 0) return out;
    int in = open(src, O_RDONLY | O_CLOEXEC);
    ssize_t n = 0;
    errno = 0;
    while (in >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    if (in < 0 || n < 0)
        rc = scal__fail(SCAL_EIO, "cannot copy '%s' to '%s': %s", src, final,
                        strerror(errno ? errno : ENOSPC));
    if (in >= 0) close(in);
    if (close(out) < 0 && rc == SCAL_OK)
        rc = scal__fail(SCAL_EIO, "cannot write '%s': %s", final, strerror(errno));
    if (rc < 0) unlink(tmp);
    return rc;
}

int scal_safe_copy(const char *src, const char *final, bool replace)
{
    char tmp[3 * 4096];
    int rc = scal_safe_copy_temp(src, final, replace, tmp, sizeof(tmp));
    return rc < 0 ? rc : scal_safe_publish(tmp, final, replace);
}
