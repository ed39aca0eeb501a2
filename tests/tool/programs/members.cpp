// SPDX-License-Identifier: BSD-3-Clause
// Regions in member functions of a C++ program that uses nothing of the C++ library, so that the
// linker leaves libstdc++ out and the process has no demangler: the functions are still named by
// their class (from DWARF), as in programs that load libstdc++.
//
// RUN[members_clang]: OMP_NUM_THREADS=2 %prog
// RUN[members_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// CHECK run: stdout="members: done*"
// CHECK step: count=3 function=numerics::Solver::step
// CHECK relax: count=6 function=numerics::Solver::relax
#include <cstdio>

static volatile int sink;

namespace numerics
{
struct Solver {
    int n = 3;
    void step()
    {
// REGION step: parallel @LINE+1
#pragma omp parallel
        {
            sink += n;
        }
    }
    void relax()
    {
// REGION relax: parallel @LINE+1
#pragma omp parallel
        {
            sink -= n;
        }
    }
};
} // namespace numerics

int main()
{
    numerics::Solver s;
    for (int i = 0; i < 3; i++) {
        s.step();
        s.relax();
        s.relax();
    }
    std::printf("members: done\n");
    return 0;
}
