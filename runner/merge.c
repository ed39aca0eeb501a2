// SPDX-License-Identifier: BSD-3-Clause
// `scal merge`: placeholder replaced below.
#include "runner.h"
int scal_merge_main(int argc, char **argv)
{
    return 2;
}
