// SPDX-License-Identifier: BSD-3-Clause
// tail_calls.c built without debug information (-g0, not stripped, as release builds are): no
// pragma lines, but every outlined body is still its own node, named by its module and offset.
//
// RUN[tail_calls_nodebug]: OMP_NUM_THREADS=2 %prog
// REGION[tail_calls_nodebug] all: parallel nodes=6 line_first=-1 offset>0
// CHECK[tail_calls_nodebug] all: distinct(name)=6 distinct(count)=4 sum(count)=19
// CHECK[tail_calls_nodebug] /diagnostics: tail_call_unresolved=0
#include "tail_calls.c"
