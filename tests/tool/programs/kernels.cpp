// SPDX-License-Identifier: BSD-3-Clause
// C++ kernels called the way benchmark drivers call them: virtual methods through one call site,
// lambdas through std::function. Each kernel's body is only a parallel region, so the kernels
// tail-call the runtime (g++ -O2 also leaves some bodies without a concrete DWARF entry): every
// one must be its own node at its own pragma line, named by its demangled function.
//
// The first kernel is the program's first fork: run as users run it, through scal exec (which
// preloads the tool, and for g++ libomp), so that it is seen too.
// RUN[kernels_clang_O0]: OMP_NUM_THREADS=2 %scal-exec %prog
// RUN[kernels_clang_O2]: OMP_NUM_THREADS=2 %scal-exec %prog
// RUN[kernels_gcc_O0]: OMP_NUM_THREADS=2 %scal-exec %prog
// RUN[kernels_gcc_O2]: OMP_NUM_THREADS=2 %scal-exec %prog
// CHECK a: count=3 function=A::run
// CHECK b: count=3 function=B::run
// CHECK first_lambda: count=2 function=main::*::operator()
// CHECK second_lambda: count=2 function=main::*::operator()
// Two instances of one template (one pragma, two bodies, two functions declared on one line):
// CHECK instances: distinct(function)=2 distinct(count)=2 sum(count)=5 function=*tk<1>|*tk<2>
// CHECK /diagnostics: tail_call_unresolved=0
#include <cstdio>
#include <functional>
#include <vector>

struct Kernel {
    virtual void run() = 0;
    virtual ~Kernel() {}
};

struct A : Kernel {
    void run() override
    {
// REGION a: parallel @LINE+1
#pragma omp parallel
        {
            __asm__ volatile("" ::: "memory");
        }
    }
};

struct B : Kernel {
    void run() override
    {
// REGION b: parallel @LINE+1
#pragma omp parallel
        {
            __asm__ volatile("" ::: "memory");
        }
    }
};

namespace ns
{
template <int N> __attribute__((noinline)) void tk()
{
// REGION instances: parallel @LINE+1 nodes=2
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}
} // namespace ns

int main()
{
    std::vector<Kernel *> kernels{new A, new B};
    for (int r = 0; r < 3; r++)
        for (Kernel *k : kernels)
            k->run();
    std::vector<std::function<void()>> lambdas{[] {
// REGION first_lambda: parallel @LINE+1
#pragma omp parallel
                                                   {
                                                       __asm__ volatile("" ::: "memory");
                                                   }
                                               },
                                               [] {
// REGION second_lambda: parallel @LINE+1
#pragma omp parallel
                                                   {
                                                       __asm__ volatile("" ::: "memory");
                                                   }
                                               }};
    for (int r = 0; r < 2; r++)
        for (auto &f : lambdas)
            f();
    void (*volatile instances[2])() = {ns::tk<1>, ns::tk<2>};
    for (volatile int i = 0; i < 5; i++)
        instances[i & 1]();
    for (Kernel *k : kernels)
        delete k;
    std::puts("kernels: done");
    return 0;
}
