// SPDX-License-Identifier: BSD-3-Clause
// The identity of a program binary (see program_identity.h).
#include "program_identity.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "scal/status.h"

/* The NT_GNU_BUILD_ID note's bytes as hex into hex (empty when the file has none). */
static void build_id_hex(int fd, char *hex, size_t len)
{
    hex[0] = '\0';
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    if (!e) return;
    Elf_Scn *scn = NULL;
    while (!hex[0] && (scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        GElf_Nhdr nh;
        size_t off = 0, name_off, desc_off, next;
        while (d && !hex[0] && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
                const unsigned char *id = (const unsigned char *)d->d_buf + desc_off;
                size_t n = nh.n_descsz;
                if (2 * n + 1 > len) n = (len - 1) / 2;
                for (size_t i = 0; i < n; i++)
                    snprintf(hex + 2 * i, 3, "%02x", id[i]);
            }
            off = next;
        }
    }
    elf_end(e);
}

int scal_program_identity(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int err = errno;
        if (fd >= 0) close(fd);
        return scal__fail(SCAL_EIO, "cannot read program '%s': %s", path, strerror(err));
    }
    char hex[129];
    build_id_hex(fd, hex, sizeof(hex));
    close(fd);
    if (hex[0]) {
        snprintf(buf, len, "build-id %s, %lld bytes", hex, (long long)st.st_size);
    } else {
        char when[32];
        struct tm tm;
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", gmtime_r(&st.st_mtim.tv_sec, &tm));
        snprintf(buf, len, "%lld bytes, modified %s.%09ldZ", (long long)st.st_size, when,
                 (long)st.st_mtim.tv_nsec);
    }
    return SCAL_OK;
}
