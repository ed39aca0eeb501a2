// SPDX-License-Identifier: BSD-3-Clause
// The wait of a rank that a signal ends for the other ranks' files (rank_wait.h). Woken by inotify
// on the files' directory (a rename or a close after writing), else by a short poll; bounded.
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mpi_rank.h"
#include "run_snapshot.h"
#include "tool.h"
#include "rank_wait.h"

/* Ranks whose files are looked for individually; beyond, only the bound ends the wait. */
#define RANKS_LOOKED_FOR 4096
/* Without inotify, how often the files are looked for. */
#define POLL_MS 10

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Whether path exists, written since this process started (not a file of an earlier run). */
static bool written_here(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9 >=
                                       (double)(int64_t)scal_tool_state.tool_start_unix;
}

/* Whether every rank but this one has left its run file or its snapshot; *next: the first rank
 * not seen yet (the ranks before it are not looked for again). */
static bool others_done(const char *output, const struct scal_mpi_rank *me, int32_t *next)
{
    char name[4200], snap[4300];
    for (; *next < me->size; ++*next) {
        if (*next == me->rank) continue;
        scal_mpi_rank_file_name(output, *next, name, sizeof(name));
        snprintf(snap, sizeof(snap), "%s" SCAL_SNAP_SUFFIX, name);
        if (!written_here(snap) && !written_here(name)) return false;
    }
    return true;
}

void scal_rank_wait_for_others(void)
{
    const struct scal_config *cfg = &scal_tool_state.cfg;
    struct scal_mpi_rank me;
    scal_mpi_rank_detect(&me);
    if (me.rank < 0 || me.size < 2 || cfg->rank_wait_ms == 0) return;
    uint64_t deadline = now_ms() + cfg->rank_wait_ms;
    /* the names are known only for SCAL_OUTPUT naming a file (as scal run does) */
    bool named = cfg->output[0] && !cfg->output_is_dir && me.size <= RANKS_LOOKED_FOR;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", named ? cfg->output : ".");
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else
        slash[slash == dir] = '\0';
    int fd = named ? inotify_init1(IN_NONBLOCK | IN_CLOEXEC) : -1;
    if (fd >= 0 && inotify_add_watch(fd, dir, IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE) < 0) {
        close(fd);
        fd = -1;
    }
    int32_t next = 0;
    for (;;) {
        if (named && others_done(cfg->output, &me, &next)) break;
        uint64_t now = now_ms();
        if (now >= deadline) break;
        uint64_t left = deadline - now;
        if (fd < 0 && named && left > POLL_MS) left = POLL_MS;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, fd >= 0 ? 1 : 0, (int)left) > 0) {
            char events[4096];
            while (read(fd, events, sizeof(events)) > 0) {
            } /* what changed is looked at above */
        }
    }
    if (fd >= 0) close(fd);
}
