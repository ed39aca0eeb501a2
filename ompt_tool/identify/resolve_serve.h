/* SPDX-License-Identifier: BSD-3-Clause */
/* The writer process's side of a resolution request (writer_link.h's "resolve-fd"): the request in
 * the memfd `fd` is resolved here (libdw linked into scal-run-writer) and the answers written over
 * it. The modules' code is read from their files, mapped at the addresses the measured process has
 * them at (with MAP_FIXED_NOREPLACE: never over a mapping of this process), each file checked
 * against the module's build ID first. SCAL_OK; SCAL_EUNAVAIL (and the message) when some code
 * could not be read so (a module without build ID, replaced or deleted since it was loaded, or an
 * address this process uses): the measured process then resolves in itself, where it can. */
#ifndef SCAL_RESOLVE_SERVE_H
#define SCAL_RESOLVE_SERVE_H

int scal_resolve_serve(int fd);

#endif
