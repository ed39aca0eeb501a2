// SPDX-License-Identifier: BSD-3-Clause
// A region in an inlined, namespaced C++ function whose body calls a helper defined further down:
// the region is named after the source function (demangled, not the physical main or a mangled
// name) and its range is the pragma's own block (the inlined helper's lines do not count).
//
// RUN[inlined_clang]: OMP_NUM_THREADS=2 %prog
// RUN[inlined_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// CHECK step: count=3 function=physics::step file=*inlined.cpp
#include <cstdio>

namespace physics {
static double helper(double x);

inline __attribute__((always_inline)) void step(double *a, int n)
{
// REGION step: parallel @LINE+1 line_last=@LINE+3
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        a[i] = helper(a[i]);
}

// Padding: the helper sits well below the region.
//
//
//
//
//
static double helper(double x)
{
    return x * 0.5 + 1.0;
}
} // namespace physics

int main()
{
    static double a[4096];
    for (int k = 0; k < 3; k++)
        physics::step(a, 4096);
    std::printf("inlined: %.3f\n", a[7]);
    return 0;
}
