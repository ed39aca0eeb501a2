// SPDX-License-Identifier: BSD-3-Clause
// Listing 4 of the PaScal Analyzer paper: the same loop with a reduction and with a critical
// section.
//
//   listing4 OPS
//
// Expectations (see tests/tool/README.md):
// RUN[listing4]: OMP_NUM_THREADS=4 %prog 20000
// CHECK[listing4] red: loops=1 loop_iterations=20000 lock_total_s<crit.lock_total_s*0.1
// CHECK[listing4] crit: loops=1 loop_iterations=20000 lock_total_s>0 team_actual_max=4
// CHECK[listing4] red,crit: loops_unknown=0
// Every diagnostics counter (22, ompt_tool/tool.h SCAL_DIAG_MAP) is described in the run file.
// CHECK[listing4] /diagnostics/descriptions: rows=23 values~"regions_overflow: region nodes*"
// CHECK[listing4] /diagnostics/descriptions: values~"threads_beyond_max: threads beyond*"
//
// A gcc-built copy (libgomp has no OMPT) runs against libomp's GOMP layer:
// RUN[gcc_through_libomp]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog 5000
// CHECK[gcc_through_libomp] crit: lock_total_s>0 team_actual_max=2
// gcc inlines the loops' static schedule: the runtime never sees them, their count is unknown
// CHECK[gcc_through_libomp] red,crit: loops=0 loops_unknown=1
//
// A copy without debug information, stripped: the regions are named by symbol+offset.
// RUN[no_debug_info]: OMP_NUM_THREADS=2 %prog
// REGION[no_debug_info] both: parallel nodes=2 line_first=-1 file= offset>0
// CHECK[no_debug_info] both: module=*tool_listing4_nodebug name=*+0x*
//
// The tool loaded through LD_PRELOAD instead of OMP_TOOL_LIBRARIES:
// RUN[ld_preload]: LD_PRELOAD=%tool OMP_TOOL_LIBRARIES= %prog
// REGION[ld_preload]: parallel nodes>=1
//
// SCAL_ENABLE=0: libomp finds the tool, the tool declines and nothing is written; the same run
// with the tool enabled writes its file.
// RUN[disabled]: SCAL_ENABLE=0 OMP_TOOL_VERBOSE_INIT=stdout OMP_NUM_THREADS=2 %prog 2000
// CHECK[disabled] run: output=absent files=
// CHECK[disabled] run: stdout="*libscal_ompt.so... Found but not using the OMPT interface*"
// RUN[disabled] enabled: OMP_NUM_THREADS=2 %prog 2000
// CHECK[disabled] enabled: output=written
//
// Bad settings: the program runs unchanged, scal says what is wrong, the data is kept in the
// working directory when SCAL_OUTPUT cannot be used.
// RUN[bad_environment] nodir: SCAL_OUTPUT=/nonexistent-scal-dir/ OMP_NUM_THREADS=2 %prog 2000
// CHECK[bad_environment] nodir: stderr=*scal:* stderr="*does not exist*" files=scal-*.h5
// RUN[bad_environment] proc: SCAL_OUTPUT=/proc/scal-cannot-write.h5 OMP_NUM_THREADS=2 %prog 2000
// CHECK[bad_environment] proc: stderr=*scal:* stderr="*cannot create*" files=scal-*.h5
// RUN[bad_environment] trace: -u SCAL_OUTPUT SCAL_TRACE=lots OMP_NUM_THREADS=2 %prog 2000
// CHECK[bad_environment] trace: stderr=*scal:* stderr=*SCAL_TRACE* files=scal-*.h5
// RUN[bad_environment] max: -u SCAL_OUTPUT SCAL_MAX_REGIONS=-5 OMP_NUM_THREADS=2 %prog 2000
// CHECK[bad_environment] max: stderr=*scal:* stderr=*SCAL_MAX_REGIONS* files=scal-*.h5
// RUN[bad_environment] enable: -u SCAL_OUTPUT SCAL_ENABLE=maybe OMP_NUM_THREADS=2 %prog 2000
// CHECK[bad_environment] enable: stderr=*scal:* stderr=*SCAL_ENABLE* files=scal-*.h5
// CHECK[bad_environment] nodir,proc,trace,max,enable: stdout="*listing4: sum*"
#include <stdio.h>
#include <stdlib.h>

static unsigned long anyop(void)
{
    volatile unsigned long x = 0;
    for (int k = 0; k < 200; k++)
        x += (unsigned long)k;
    return x;
}

int main(int argc, char **argv)
{
    unsigned long sum = 0;
    int ops = argc > 1 ? atoi(argv[1]) : 20000;

    // REGION[listing4,gcc_through_libomp] red: parallel @LINE+1
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int i = 0; i < ops; i++) {
        sum += anyop();
    }

    // REGION[listing4,gcc_through_libomp] crit: parallel @LINE+1
#pragma omp parallel for schedule(static)
    for (int i = 0; i < ops; i++) {
#pragma omp critical
        sum += anyop();
    }
    printf("listing4: sum %lu\n", sum);
    return 0;
}
