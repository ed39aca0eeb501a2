// SPDX-License-Identifier: BSD-3-Clause
// Small helpers shared by the sensor plugins: read one-line sysfs/procfs files under a root.
#include "sysfs_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int scal__sysfs_read_text(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    size_t used = 0;
    int rc = 0;
    for (;;) {
        if (used + 1 >= len) {
            rc = -EFBIG;
            break;
        }
        ssize_t n = read(fd, buf + used, len - 1 - used);
        if (n < 0) {
            if (errno == EINTR) continue;
            rc = -errno;
            break;
        }
        if (n == 0) break;
        used += (size_t)n;
    }
    close(fd);
    if (rc < 0) return rc;
    while (used > 0 && (buf[used - 1] == '\n' || buf[used - 1] == ' ' || buf[used - 1] == '\t'))
        used--;
    buf[used] = '\0';
    return 0;
}

int scal__sysfs_read_u64(const char *path, uint64_t *out)
{
    char text[32];
    int rc = scal__sysfs_read_text(path, text, sizeof(text));
    if (rc < 0) return rc;
    if (text[0] < '0' || text[0] > '9') return -EINVAL;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0') return -EINVAL;
    *out = (uint64_t)v;
    return 0;
}

void scal__sysfs_root(const struct scal_plugin_env *env, char *out, size_t outlen)
{
    const char *root = NULL;
    if (env && env->get_option) root = env->get_option(env->options, "sysfs_root");
    if ((!root || !root[0]) && env &&
        env->struct_size >= offsetof(struct scal_plugin_env, sysfs_root) + sizeof(env->sysfs_root))
        root = env->sysfs_root;
    if (!root || !root[0]) root = "/";
    snprintf(out, outlen, "%s", root);
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] == '/')
        out[--n] = '\0';
}
