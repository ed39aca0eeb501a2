/* SPDX-License-Identifier: BSD-3-Clause */
/* The run-file writer process of a direct run (writer_link.c): started when the tool starts, it
 * loads HDF5 while the program runs and waits on a socket; at the end the flush hands it the run
 * snapshot and waits (bounded) until the run file is in place, so that the file exists, complete,
 * once the measured process has exited. Free of HDF5 and libdw. */
#ifndef SCAL_TOOL_WRITER_LINK_H
#define SCAL_TOOL_WRITER_LINK_H

#include <stddef.h>

/* How long the flush waits for the writer's answer before it gives up (and the program ends): the
 * writer, which has the snapshot by then, still writes the file. */
#define SCAL_WRITER_REPLY_MS 30000
/* How long the flush waits for the writer to resolve region identities: reading the DWARF of a
 * large C++ program can take minutes, and the process, which would do the same work, gains
 * nothing by giving up earlier; the bound only ends a writer that hangs. */
#define SCAL_WRITER_RESOLVE_MS 600000

/* Starts the writer process (a clone that execs at once: never a fork of the program), unless the
 * tool writes otherwise (SCAL_WRITER=detached, SCAL_SNAPSHOT_ONLY=1, SCAL_ENABLE=0) or it already
 * runs. A failure is not an error: the flush then starts a writer for the snapshot itself. */
void scal_writer_link_start(void);
/* Hands the snapshot at `snap` to the writer and waits for its answer: 0 and the run file's name in
 * `final` when it wrote it; a negative status and the message in `final` when it could not;
 * SCAL_ENOENT when there is no writer (never started, died before writing, or its socket is no
 * longer ours): the snapshot is then still there for another way.
 * flags: SCAL_SNAP_CONVERT_* (run_snapshot_h5.h). */
int scal_writer_link_hand(const char *snap, unsigned flags, char *final, size_t len);
/* The same of a snapshot in memory, open at snap_fd (a memfd): a copy of the descriptor goes over
 * the socket, and no file is made. SCAL_ENOENT also when the writer died after taking it: the
 * caller still has it. */
int scal_writer_link_hand_fd(int snap_fd, unsigned flags, char *final, size_t len);
/* Has the writer process resolve the region identities of the request (resolve_request.h) in the
 * memfd request_fd: SCAL_OK when the answers are in it, written over the request; else a negative
 * status (SCAL_ENOENT: no writer; SCAL_EUNAVAIL: it cannot, being built without libdw or unable to
 * read a module's code) and the request is to be resolved in this process. The writer then still
 * takes the snapshot (scal_writer_link_hand*), unless it is gone. */
int scal_writer_link_resolve(int request_fd);
/* A forked child of the program (atfork): the writer is its parent's, not its own. */
void scal_writer_link_forget(void);

/* The protocol on the socket:
 *   tool:   first, when the identity cache missed regions, "resolve-fd\n" with the request's
 *           descriptor (a memfd) attached (SCM_RIGHTS)
 *   writer: "ok resolved\n" (the answers written over the request) or "error <status>
 *           <message>\n", and it waits for the next request
 *   tool:   "convert <flags> <snapshot path>\n", or "convert-fd <flags>\n" with the snapshot's
 *           descriptor attached (SCM_RIGHTS)
 *   writer: what it would have said on stderr (lines starting "scal: "), then "ok <run file>\n"
 *           or "error <status> <message>\n", then it ends
 * EOF before a request (the program ended without a flush, or was killed): the writer exits
 * without writing anything. */
#define SCAL_WRITER_SERVE_ARG "--serve"
/* After SCAL_WRITER_SERVE_ARG (ThreadSanitizer builds, writer_link.c): the first process forks the
 * writer proper and exits. */
#define SCAL_WRITER_FORK_ARG "--fork"

#endif
