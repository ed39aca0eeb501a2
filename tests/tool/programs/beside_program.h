/* SPDX-License-Identifier: BSD-3-Clause */
/* The path of a file in the test program's own directory (a library it dlopen()s). */
#ifndef SCAL_TEST_BESIDE_PROGRAM_H
#define SCAL_TEST_BESIDE_PROGRAM_H

#include <string.h>
#include <unistd.h>

/* path (len bytes) <- "<directory of /proc/self/exe>/name"; 0, or -1 when it does not fit. */
static int beside_program(const char *name, char *path, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", path, len);
    if (n <= 0 || (size_t)n >= len) return -1;
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (!slash || (size_t)(slash + 1 - path) + strlen(name) + 1 > len) return -1;
    strcpy(slash + 1, name);
    return 0;
}

#endif
