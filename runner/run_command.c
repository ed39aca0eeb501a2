// SPDX-License-Identifier: BSD-3-Clause
// `scal run`: picks the executor of the campaign. Slurm options (--slurm, --collect, ...) go to
// the Slurm executor (slurm.c), everything else to the local one (runner.c); both plan and create
// the campaign through campaign.h, and neither calls the other.
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "run_plan.h"
#include "runner.h"
#include "scal/status.h"
#include "slurm.h"

/* The value of --resume before the program ("--resume F" or "--resume=F"), or NULL. */
static const char *resume_of(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--") || a[0] != '-') return NULL;
        if (!strncmp(a, "--resume=", 9)) return a + 9;
        if (!strcmp(a, "--resume")) return i + 1 < argc ? argv[i + 1] : NULL;
        if (!scal_run_plan_is_flag(a) && !strchr(a, '=')) i++;
    }
    return NULL;
}

static bool help_of(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
    return false;
}

int scal_runner_main(int argc, char **argv)
{
    if (!help_of(argc, argv) && scal_slurm_wanted(argc, argv)) return scal_slurm_main(argc, argv);
    /* a campaign whose Slurm pieces are still out is resumed by --slurm or collected first */
    const char *resume = resume_of(argc, argv);
    int rc = resume ? scal_slurm_check_resume(resume) : SCAL_OK;
    if (rc < 0) {
        fprintf(stderr, "scal run: %s\n", scal__last_error(rc));
        return 2;
    }
    return scal_runner_local_main(argc, argv);
}
