/* SPDX-License-Identifier: BSD-3-Clause */
/* Declarations of every `scal` subcommand listed in commands.def. */
#ifndef SCAL_CLI_COMMANDS_H
#define SCAL_CLI_COMMANDS_H

#define SCAL_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef SCAL_COMMAND

#endif
