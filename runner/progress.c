// SPDX-License-Identifier: BSD-3-Clause
// Progress output of `scal run` (see progress.h).
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void scal_format_duration(double s, char *out, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(out, len, "%ldh%02ldm%02lds", t / 3600, t / 60 % 60, t % 60);
    else if (t >= 60)
        snprintf(out, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(out, len, "%.1fs", s);
}

double scal_progress_elapsed(const struct scal_progress *p)
{
    return now_s() - p->t0;
}

void scal_progress_start(struct scal_progress *p, size_t total, bool quiet)
{
    p->tty = isatty(2);
    p->quiet = quiet;
    p->total = total;
    p->done = 0;
    p->t0 = now_s();
}

static void bar(struct scal_progress *p, const char *what)
{
    char el[32], eta[32] = "?";
    double e = scal_progress_elapsed(p);
    scal_format_duration(e, el, sizeof(el));
    if (p->done)
        scal_format_duration(e / (double)p->done * (double)(p->total - p->done), eta, sizeof(eta));
    int width = 24, fill = p->total ? (int)((double)width * (double)p->done / (double)p->total) : 0;
    char b[32];
    memset(b, '#', (size_t)fill);
    memset(b + fill, '.', (size_t)(width - fill));
    b[width] = 0;
    fprintf(stderr, "\r\033[K[%s] %zu/%zu runs  %s elapsed  ETA %s  %s", b, p->done, p->total, el,
            eta, what);
    fflush(stderr);
}

void scal_progress_begin(struct scal_progress *p, const char *config_text)
{
    if (!p->quiet && p->tty) bar(p, config_text);
}

void scal_progress_end(struct scal_progress *p, const char *config_text, const char *outcome)
{
    p->done++;
    if (p->quiet) return;
    if (p->tty) {
        bar(p, outcome);
        return;
    }
    char eta[32];
    scal_format_duration(scal_progress_elapsed(p) / (double)p->done * (double)(p->total - p->done),
                         eta, sizeof(eta));
    fprintf(stderr, "scal run: %zu/%zu %s: %s (about %s left)\n", p->done, p->total, config_text,
            outcome, eta);
}

void scal_progress_note(struct scal_progress *p, const char *text)
{
    if (p->tty && !p->quiet) fprintf(stderr, "\r\033[K");
    fprintf(stderr, "scal run: %s\n", text);
}

void scal_progress_stop(struct scal_progress *p)
{
    if (p->tty && !p->quiet) fprintf(stderr, "\r\033[K");
}
