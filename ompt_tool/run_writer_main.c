// SPDX-License-Identifier: BSD-3-Clause
// scal-run-writer SNAPSHOT...: writes the HDF5 run file each run snapshot describes, then removes
// the snapshot. The tool starts it at the end of a measured process (in a session of its own, not
// waited for unless SCAL_WAIT_WRITER=1), so that the program never maps HDF5; by hand it writes
// the run file of a snapshot a killed writer left behind.
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "run_snapshot_h5.h"

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: scal-run-writer SNAPSHOT...\n\n"
                "Writes the HDF5 run file that each run snapshot (.<run file>.snap.XXXXXX, left\n"
                "by libscal_ompt.so) describes, then removes the snapshot.\n");
        return argc < 2 ? 2 : 0;
    }
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        int rc = scal_snap_convert(argv[i], 0, NULL, 0);
        if (rc < 0) {
            fprintf(stderr, "scal: %s\n", scal__last_error(rc));
            failed = 1;
        }
    }
    return failed;
}
