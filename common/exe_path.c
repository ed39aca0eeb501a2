// SPDX-License-Identifier: BSD-3-Clause
// Paths relative to the running executable (/proc/self/exe).
#include "exe_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "scal/status.h"

int scal_exe_relative(const char *rel, char *out, size_t len)
{
    char exe[PATH_MAX], path[PATH_MAX * 2], real[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        if (len) out[0] = '\0';
        return scal__fail(SCAL_ENOENT, "cannot find the running executable (/proc/self/exe)");
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    snprintf(path, sizeof(path), "%s/%s", exe, rel);
    snprintf(out, len, "%s", realpath(path, real) ? real : path);
    return SCAL_OK;
}
