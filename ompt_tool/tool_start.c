// SPDX-License-Identifier: BSD-3-Clause
// The tool's entry point: ompt_start_tool (the one exported OMPT symbol), initialize and finalize.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fork_hook.h"
#include "park.h"
#include "scal/export.h"
#include "sensor_hooks.h"
#include "team.h"
#include "thread_state.h"
#include "tool.h"
#include "writer_link.h"

struct scal_tool scal_tool_state;

/* The process's start on CLOCK_MONOTONIC, from /proc/self/stat (clock ticks since boot, measured
 * on CLOCK_BOOTTIME); falls back to now. The root node then covers the serial code that ran
 * before the OpenMP runtime started the tool. */
static uint64_t process_start_ns(uint64_t now_mono)
{
    FILE *f = fopen("/proc/self/stat", "r");
    char buf[1024];
    unsigned long long start_ticks = 0;
    struct timespec boot;
    if (!f) return now_mono;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may contain spaces */
    if (!p ||
        sscanf(p + 2,
               "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
               &start_ticks) != 1)
        return now_mono;
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0) return now_mono;
    uint64_t boot_ns = (uint64_t)boot.tv_sec * 1000000000ull + (uint64_t)boot.tv_nsec;
    uint64_t start_boot_ns = start_ticks * (1000000000ull / (uint64_t)hz);
    uint64_t age = boot_ns > start_boot_ns ? boot_ns - start_boot_ns : 0;
    return now_mono > age ? now_mono - age : now_mono;
}

/* The command line as the program was started (read now: some programs blank their options). */
static void keep_command_line(struct scal_tool *st)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    st->cmdline_len = 0;
    if (!f) return;
    st->cmdline_len = fread(st->cmdline, 1, sizeof(st->cmdline) - 1, f);
    st->cmdline[st->cmdline_len] = '\0';
    fclose(f);
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data)
{
    scal_startup_mark(SCAL_STARTUP_TOOL_RESUME);
    struct scal_tool *st = &scal_tool_state;
    struct timespec wall;
    uint64_t now = scal_now_ns();
    clock_gettime(CLOCK_REALTIME, &wall);
    st->start_ns = process_start_ns(now);
    st->start_unix =
        (double)wall.tv_sec + wall.tv_nsec * 1e-9 - (double)(now - st->start_ns) * 1e-9;
    st->row_size = scal_node_stats_size(st->cfg.max_team);
    st->inst_stride = scal_team_stride(st->cfg.max_team);
    if (st->cfg.messages[0])
        fputs(st->cfg.messages, stderr); /* once, at start: bad SCAL_* values */
    if (scal_nodes_init(st->cfg.max_regions) != 0 || scal_threads_init() != 0 ||
        scal_wall_init(st->cfg.max_regions) != 0) {
        fprintf(stderr, "scal: cannot reserve memory for %u regions; not measuring this run\n",
                st->cfg.max_regions);
        return 0;
    }
    if (st->cfg.messages[0]) scal_diag_message("%s", st->cfg.messages);
    scal_callsite_init((const void *)lookup);
    scal_fork_hooks_install((const void *)lookup); /* forks from now on note their bodies */
    scal_park_init((void *)lookup);
    if (scal_callbacks_register((void *)lookup) < 0) {
        fprintf(stderr,
                "scal: the OpenMP runtime offers no ompt_set_callback; not measuring this run\n");
        return 0;
    }
    struct scal_thread *t = scal_thread_get();
    if (t) scal_root_open(t);
    if (st->cfg.plugins[0]) {
        /* node ids stay below max_regions (the overflow node is the last), levels below max_depth
         */
        int rc = scal_sensor_session_open(&st->sensors, st->cfg.plugins, st->cfg.max_regions,
                                          st->cfg.max_depth);
        if (rc < 0)
            scal_diag_message("sensor plugins '%s' could not be started (status %d)",
                              st->cfg.plugins, rc);
        if (t && st->sensors) t->sensors = scal_sensor_thread_attach(st->sensors, t->gtid);
    }
    scal_user_regions_attach();
    scal_flush_install_handlers();
    scal_startup_end(t);
    return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
    scal_flush("program ended (OpenMP finalize)");
}

static void tool_loaded(void);

/* This library is one of LD_PRELOAD's (the dynamic loader splits it at ':' and blanks), so that its
 * constructor runs before main; else the OpenMP runtime dlopen()ed it at its first use. */
static bool preloaded(void)
{
    const char *list = getenv("LD_PRELOAD");
    Dl_info info;
    char self[PATH_MAX], entry[PATH_MAX], real[PATH_MAX];
    if (!list || !dladdr((void *)tool_loaded, &info) || !info.dli_fname ||
        !realpath(info.dli_fname, self))
        return false;
    for (const char *at = list; *at;) {
        size_t n = strcspn(at, ": \t");
        if (n > 0 && n < sizeof(entry)) {
            snprintf(entry, sizeof(entry), "%.*s", (int)n, at);
            if (realpath(entry, real) && !strcmp(real, self)) return true;
        }
        at += n;
        at += *at != 0;
    }
    return false;
}

/* Preloaded (LD_PRELOAD), the tool is loaded before main: it keeps the command line before main can
 * rewrite it, and the program's first fork passes a trampoline too. Loaded by the runtime, this
 * runs inside that first fork, as initialize does (the command line is then read at that call). */
__attribute__((constructor)) static void tool_loaded(void)
{
    static struct scal_config cfg;
    scal_startup_mark(SCAL_STARTUP_LOADED_BEGIN);
    scal_config_load(&cfg);
    if (!cfg.enabled) return;
    if (preloaded()) {
        keep_command_line(&scal_tool_state);
        scal_tool_state.cmdline_at_start = true;
    }
    scal_fork_hooks_install(NULL);
    scal_startup_mark(SCAL_STARTUP_LOADED_END);
}

SCAL_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                      const char *runtime_version)
{
    static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
    scal_startup_mark(SCAL_STARTUP_TOOL_BEGIN);
    scal_config_load(&scal_tool_state.cfg);
    if (!scal_tool_state.cfg.enabled) return NULL; /* SCAL_ENABLE=0: decline */
    if (!scal_tool_state.cmdline_at_start) keep_command_line(&scal_tool_state);
    scal_writer_link_start(); /* loads HDF5 while the program runs (writer_link.h) */
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    scal_tool_state.tool_start_unix = (double)wall.tv_sec + wall.tv_nsec * 1e-9;
    snprintf(scal_tool_state.omp_runtime, sizeof(scal_tool_state.omp_runtime), "%s (OpenMP %u)",
             runtime_version ? runtime_version : "unknown", omp_version);
    scal_startup_mark(SCAL_STARTUP_TOOL_PAUSE);
    return &result;
}
