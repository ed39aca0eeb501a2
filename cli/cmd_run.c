// SPDX-License-Identifier: BSD-3-Clause
// `scal run` and `scal merge`: thin entry points into runner/ (scal_runner).
#include "commands.h"
#include "runner.h"

int scal_cmd_run(int argc, char **argv)
{
    return scal_runner_main(argc, argv);
}

int scal_cmd_merge(int argc, char **argv)
{
    return scal_merge_main(argc, argv);
}
