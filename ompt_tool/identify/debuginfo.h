/* SPDX-License-Identifier: BSD-3-Clause */
/* Where the resolver finds a module's ELF file and its separate debug information: on this machine
 * only. libdw's own callbacks (dwfl_standard_find_debuginfo, dwfl_build_id_find_elf) fall back on
 * debuginfod when a file is not found here: they load libdebuginfod, libcurl and ~28 more libraries
 * into the measured process at its end (+6 ms for a program built without -g, here) and, when
 * DEBUGINFOD_URLS is set (Debian sets it in login shells), download over the network while the
 * program ends, waiting up to DEBUGINFOD_TIMEOUT (90 s) for a server. */
#ifndef SCAL_DEBUGINFO_H
#define SCAL_DEBUGINFO_H

#include <elfutils/libdwfl.h>

/* A Dwfl_Callbacks.find_debuginfo: the debug file named by the module's build ID under the debug
 * directories (/usr/lib/debug/.build-id/xx/yyyy.debug), else the one its .gnu_debuglink names, in
 * the module's directory, its .debug/ subdirectory or under /usr/lib/debug, taken only when its
 * build ID is the module's (or, for a module without one, its CRC is the link's). */
int scal_find_local_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                              Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                              GElf_Word debuglink_crc, char **debuginfo_file_name);

/* A Dwfl_Callbacks.find_elf for modules reported by path: the file at that absolute path. */
int scal_find_elf_by_name(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                          char **file_name, Elf **elfp);

#endif
