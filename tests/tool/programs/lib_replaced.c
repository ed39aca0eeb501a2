// SPDX-License-Identifier: BSD-3-Clause
// A library replaced by another build while the program runs (rebuilt in place): the program
// dlopen()s a copy of its library, runs a region there, then renames another build of the library
// over that copy before it ends. At the end the tool reads the debug information of the file at the
// library's path, which is now another build's (its lines are 100 further on): it must not name the
// region with that build's lines (the identity cache would keep them under the loaded build's ID).
// The region keeps its function, and at most its own lines.
//
// One source, three builds: with -DSCAL_DL_LIBRARY the library (tool_lib_replaced_lib.so), with
// -DSCAL_DL_LIBRARY -DSCAL_REBUILT its rebuild (tool_lib_replaced_rebuilt.so), without them the
// program, which copies the library beside itself, loads the copy and replaces it.
//
// RUN[lib_replaced]: OMP_NUM_THREADS=2 %prog
// CHECK run: stdout="lib_replaced: replaced*"
// REGION lib: parallel module=*tool_lib_replaced_copy.so function=in_library
// CHECK lib: count=1 line_first<100 line_last<100
#include <stdio.h>

#ifdef SCAL_DL_LIBRARY
#ifdef SCAL_REBUILT
#line 100
#endif
__attribute__((visibility("default"))) void in_library(int *sink);
void in_library(int *sink)
{
#pragma omp parallel
    {
#pragma omp atomic
        (*sink)++;
    }
}
#else
#include <dlfcn.h>

#include "beside_program.h"

static int copy(const char *from, const char *to)
{
    char buf[65536];
    size_t n;
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    int rc = in && out ? 0 : -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        if (fwrite(buf, 1, n, out) != n) rc = -1;
    if (in) fclose(in);
    if (out && fclose(out) != 0) rc = -1;
    return rc;
}

int main(void)
{
    int sink = 0;
    char lib[4096], rebuilt[4096], path[4096], next[4096];
    if (beside_program("tool_lib_replaced_lib.so", lib, sizeof(lib)) < 0 ||
        beside_program("tool_lib_replaced_rebuilt.so", rebuilt, sizeof(rebuilt)) < 0 ||
        beside_program("tool_lib_replaced_copy.so", path, sizeof(path)) < 0 ||
        beside_program("tool_lib_replaced_next.so", next, sizeof(next)) < 0 || copy(lib, path) ||
        copy(rebuilt, next))
        return 2;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void (*fn)(int *) = h ? (void (*)(int *))dlsym(h, "in_library") : NULL;
    if (!fn) {
        fprintf(stderr, "lib_replaced: %s\n", dlerror());
        return 1;
    }
    fn(&sink);
    if (rename(next, path) != 0) return 3; /* the rebuild, put in place as a linker does */
    printf("lib_replaced: replaced, %d\n", sink);
    return 0;
}
#endif
