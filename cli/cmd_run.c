// SPDX-License-Identifier: BSD-3-Clause
// `scal run` and `scal merge`: thin entry points into runner/ (scal_runner).
#include "commands.h"
#include "runner.h"
#include "stdin_file.h"

int scal_cmd_run(int argc, char **argv)
{
    return scal_runner_main(argc, argv);
}

int scal_cmd_merge(int argc, char **argv)
{
    static const struct scal_merge_stdin piped = {stdin_file, stdin_file_done, stdin_file_msg};
    return scal_merge_main(argc, argv, &piped); /* "-": standard input's private copy */
}
