/* SPDX-License-Identifier: BSD-3-Clause */
/* Campaign progress on stderr: a bar (runs done/total, elapsed, ETA, current configuration) on a
 * terminal, one line per run otherwise. */
#ifndef SCAL_PROGRESS_H
#define SCAL_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct scal_progress {
    bool tty, quiet;
    size_t total, done;
    double t0;
};

void scal_progress_start(struct scal_progress *p, size_t total, bool quiet);
/* Before a run starts: what is about to run. */
void scal_progress_begin(struct scal_progress *p, const char *config_text);
/* After a run: its outcome ("ok 1.23 s", "FAILED exit 3", ...). */
void scal_progress_end(struct scal_progress *p, const char *config_text, const char *outcome);
/* A line of its own (warnings, notes), keeping the bar intact. */
void scal_progress_note(struct scal_progress *p, const char *text);
void scal_progress_stop(struct scal_progress *p);
double scal_progress_elapsed(const struct scal_progress *p);
void scal_format_duration(double s, char *out, size_t len);

#endif
