// SPDX-License-Identifier: BSD-3-Clause
// The writer library refuses an accessor table it does not know (none, or one shorter than its own:
// a writer from another build of scal) with SCAL_EABI instead of reading past the table's end.
#include <dlfcn.h>
#include <stdio.h>

#include "tool_access.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s libscal_ompt_writer.so\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    scal_write_run_file_fn write =
        lib ? (scal_write_run_file_fn)dlsym(lib, SCAL_WRITER_ENTRY) : NULL;
    if (!write) {
        fprintf(stderr, "FAIL: no %s in %s: %s\n", SCAL_WRITER_ENTRY, argv[1], dlerror());
        return 1;
    }
    struct scal_tool_access older = {.struct_size = sizeof(older) - sizeof(void *)};
    int none = write(NULL, 0), short_table = write(&older, 0);
    printf("no table: %d, a table of %zu bytes: %d (SCAL_EABI is %d)\n", none, older.struct_size,
           short_table, SCAL_EABI);
    return none == SCAL_EABI && short_table == SCAL_EABI ? 0 : 1;
}
