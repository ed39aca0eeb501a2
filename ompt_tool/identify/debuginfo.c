// SPDX-License-Identifier: BSD-3-Clause
// debuginfo.h: a module's files found on this machine only, never through debuginfod.
#define _GNU_SOURCE
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32.h"
#include "debuginfo.h"

/* True when the file at fd is the module's debug file: the same build ID, or, for a module without
 * one, the CRC-32 of the whole file the link gives (as GDB and libdw check it). */
static bool matches(int fd, Dwfl_Module *mod, GElf_Word crc)
{
    const unsigned char *want;
    GElf_Addr at;
    int n = dwfl_module_build_id(mod, &want, &at);
    if (n > 0) {
        const void *got;
        Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
        bool same = elf && dwelf_elf_gnu_build_id(elf, &got) == n && !memcmp(got, want, (size_t)n);
        elf_end(elf);
        return same;
    }
    unsigned char buf[1 << 16];
    uint32_t sum = 0;
    ssize_t got;
    off_t off = 0;
    while ((got = pread(fd, buf, sizeof(buf), off)) > 0) {
        sum = scal_crc32(sum, buf, (size_t)got);
        off += got;
    }
    return got == 0 && sum == crc;
}

int scal_find_local_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                              Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                              GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                          debuglink_crc, debuginfo_file_name);
    if (fd >= 0 || !debuglink_file || !debuglink_file[0] || strchr(debuglink_file, '/') ||
        !file_name || file_name[0] != '/')
        return fd;
    const char *slash = strrchr(file_name, '/');
    int dir = (int)(slash - file_name);
    char path[4096];
    for (int i = 0; i < 3; i++) {
        int n = i == 0 ? snprintf(path, sizeof(path), "%.*s/%s", dir, file_name, debuglink_file)
                : i == 1
                    ? snprintf(path, sizeof(path), "%.*s/.debug/%s", dir, file_name, debuglink_file)
                    : snprintf(path, sizeof(path), "/usr/lib/debug%.*s/%s", dir, file_name,
                               debuglink_file);
        if (n <= 0 || (size_t)n >= sizeof(path) || !strcmp(path, file_name)) continue;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        if (matches(fd, mod, debuglink_crc) && (*debuginfo_file_name = strdup(path))) return fd;
        close(fd);
    }
    return -1;
}

int scal_find_elf_by_name(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                          char **file_name, Elf **elfp)
{
    (void)mod, (void)userdata, (void)base, (void)elfp;
    if (!name || name[0] != '/') return -1;
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && !(*file_name = strdup(name))) {
        close(fd);
        return -1;
    }
    return fd;
}
