// SPDX-License-Identifier: BSD-3-Clause
// Reads a program's DT_NEEDED entries and symbols (libelf) to tell which OpenMP runtime it uses.
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "omp_runtime.h"
#include "scal/status.h"

static int resolve(const char *program, char *path, size_t len)
{
    if (strchr(program, '/')) {
        snprintf(path, len, "%s", program);
        return access(path, X_OK) == 0 ? SCAL_OK : SCAL_ENOENT;
    }
    const char *env = getenv("PATH");
    char *copy = strdup(env ? env : "/usr/bin:/bin"), *save = NULL;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/%s", *d ? d : ".", program);
        if (access(path, X_OK) == 0) {
            free(copy);
            return SCAL_OK;
        }
    }
    free(copy);
    snprintf(path, len, "%s", program);
    errno = ENOENT;
    return SCAL_ENOENT;
}

static bool is_runtime(const char *soname, const char *base)
{
    return !strncmp(soname, base, strlen(base));
}

int scal_omp_inspect(const char *program, char *path, size_t pathlen, enum scal_omp_kind *kind)
{
    if (resolve(program, path, pathlen) < 0)
        return scal__fail(SCAL_ENOENT, "program '%s' %s", program,
                          strchr(program, '/')
                              ? (access(path, F_OK) ? "does not exist" : "is not executable")
                              : "is not in PATH");
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY);
    Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
    if (!e || elf_kind(e) != ELF_K_ELF) {
        if (e) elf_end(e);
        if (fd >= 0) close(fd);
        return scal__fail(SCAL_EFORMAT,
                          "program '%s' is not an ELF executable (a script? then give its "
                          "interpreter and the script as arguments)",
                          path);
    }
    bool omp = false, gomp = false, static_rt = false, uses = false;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) ||
            (sh.sh_type != SHT_DYNAMIC && sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d) continue;
        if (sh.sh_type == SHT_DYNAMIC) {
            for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
                GElf_Dyn dyn;
                if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED) continue;
                const char *n = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
                if (!n) continue;
                if (is_runtime(n, "libomp.so") || is_runtime(n, "libiomp5.so")) omp = true;
                if (is_runtime(n, "libgomp.so")) gomp = true;
            }
            continue;
        }
        for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s)) continue;
            const char *n = elf_strptr(e, sh.sh_link, s.st_name);
            if (!n || (strncmp(n, "__kmpc_", 7) && strncmp(n, "GOMP_", 5) && strncmp(n, "omp_", 4)))
                continue;
            uses = true;
            /* a runtime entry point defined in the program itself: a static runtime */
            if (s.st_shndx != SHN_UNDEF &&
                (!strcmp(n, "__kmpc_fork_call") || !strcmp(n, "GOMP_parallel")))
                static_rt = true;
        }
    }
    elf_end(e);
    close(fd);
    *kind = omp         ? SCAL_OMP_LIBOMP
            : gomp      ? SCAL_OMP_LIBGOMP
            : static_rt ? SCAL_OMP_STATIC
                        : SCAL_OMP_NONE;
    (void)uses;
    return SCAL_OK;
}

int scal_omp_find_libomp(char *path, size_t len)
{
    static const char *const places[] = {"/usr/lib/llvm-18/lib/libomp.so.5",
                                         "/usr/lib/llvm-17/lib/libomp.so.5",
                                         "/usr/lib/llvm-16/lib/libomp.so.5",
                                         "/usr/lib/llvm-15/lib/libomp.so.5",
                                         "/usr/lib/llvm-14/lib/libomp.so.5",
                                         "/usr/lib/x86_64-linux-gnu/libomp.so.5",
                                         "/usr/lib/aarch64-linux-gnu/libomp.so.5",
                                         "/usr/local/lib/libomp.so",
                                         "/usr/lib64/libomp.so"};
    const char *env = getenv("SCAL_LIBOMP");
    if (env && *env) {
        snprintf(path, len, "%s", env);
        if (access(path, R_OK) == 0) return SCAL_OK;
        return scal__fail(SCAL_ENOENT, "SCAL_LIBOMP='%s' cannot be read", env);
    }
    for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++)
        if (access(places[i], R_OK) == 0) {
            snprintf(path, len, "%s", places[i]);
            return SCAL_OK;
        }
    return scal__fail(SCAL_ENOENT,
                      "no libomp.so found (install LLVM's OpenMP runtime, e.g. Debian's "
                      "libomp-dev, or set SCAL_LIBOMP=/path/to/libomp.so)");
}
