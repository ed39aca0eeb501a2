// SPDX-License-Identifier: BSD-3-Clause
// "-" for standard input where scal reads a file: a private temporary copy that HDF5 can open.
#include "stdin_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "scal/status.h"

const char *stdin_file(const char *arg, char *tmp, size_t len)
{
    if (strcmp(arg, "-")) return arg;
    const char *dir = getenv("TMPDIR");
    snprintf(tmp, len, "%s/scal-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp); /* created exclusively, mode 0600 */
    if (fd < 0) {
        scal__fail(SCAL_EIO, "standard input: cannot create '%s': %s", tmp, strerror(errno));
        return NULL;
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
        for (ssize_t off = 0; n > 0 && off < n;) {
            ssize_t w = write(fd, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                n = -1;
                break;
            }
            off += w;
        }
    int err = errno;
    if (close(fd) != 0 && n == 0) n = -1, err = errno;
    if (n < 0) {
        unlink(tmp);
        scal__fail(SCAL_EIO, "standard input: cannot copy it to '%s': %s", tmp, strerror(err));
        return NULL;
    }
    return tmp;
}

void stdin_file_done(const char *arg, const char *tmp)
{
    if (!strcmp(arg, "-") && tmp[0]) unlink(tmp);
}

const char *stdin_file_msg(const char *msg, const char *tmp, char *out, size_t len)
{
    size_t n = strlen(tmp), used = 0;
    if (!n || !strstr(msg, tmp) || !len) return msg;
    for (const char *s = msg; *s && used + 1 < len;) {
        if (!strncmp(s, tmp, n)) {
            out[used++] = '-';
            s += n;
        } else
            out[used++] = *s++;
    }
    out[used] = '\0';
    return out;
}
