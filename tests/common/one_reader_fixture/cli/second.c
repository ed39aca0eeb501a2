// SPDX-License-Identifier: BSD-3-Clause
// A planted second reader: check_one_reader.py must name both lines.
#include "scal_format.h"

int second_reader(hid_t f, void **rows, size_t *n)
{
    int32_t threads, team;
    scal_format_run_threads(f, &threads, &team);
    return scal_table_read(f, &scal_table_configs, rows, n);
}
