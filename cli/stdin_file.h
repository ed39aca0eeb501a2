/* SPDX-License-Identifier: BSD-3-Clause */
/* "-" as a file argument: standard input, copied to a private temporary file first (HDF5 reads
 * files, not pipes). */
#ifndef SCAL_CLI_STDIN_FILE_H
#define SCAL_CLI_STDIN_FILE_H

#include <stddef.h>

/* arg itself, or for "-" the path of a new private file ($TMPDIR or /tmp) holding all of standard
 * input, written into tmp (remove it with stdin_file_done). NULL on failure, with a scal__fail
 * message. */
const char *stdin_file(const char *arg, char *tmp, size_t len);
/* Removes the temporary file of stdin_file, if one was made. */
void stdin_file_done(const char *arg, const char *tmp);
/* msg with the temporary copy's path (tmp, "" when none) replaced by "-", so that messages name
 * standard input as the user did; out holds the result (len bytes), msg is returned unchanged
 * when it does not name tmp. */
const char *stdin_file_msg(const char *msg, const char *tmp, char *out, size_t len);

#endif
