/* SPDX-License-Identifier: BSD-3-Clause */
/* Half of the planted circle (see gap.h). */
#include "gap.h"

int team_settle(int depth)
{
    return depth > 0 ? gap_settle(depth - 1) : 0;
}
