# SPDX-License-Identifier: BSD-3-Clause
# Finds omp-tools.h (OMPT's header). It ships with an llvm-openmp install, either in its include
# directory (Spack's llvm-openmp, a standalone libomp build) or, for LLVM's own packages (Debian's
# libomp-14-dev), in the clang resource directory under that prefix (lib/clang/VERSION/include),
# and with clang. Search order: OMP_TOOLS_INCLUDE_DIR, the OpenMP prefix SCAL_OPENMP_ROOT (both
# layouts), then the resource directory of a clang on PATH. Sets SCAL_OMP_TOOLS_HEADER.
function(scal_find_omp_tools_header)
  set(roots ${SCAL_OPENMP_ROOT} $ENV{SCAL_OPENMP_ROOT})
  set(hints ${OMP_TOOLS_INCLUDE_DIR} $ENV{OMP_TOOLS_INCLUDE_DIR})
  foreach(root ${roots})
    list(APPEND hints ${root}/include ${root}/include/openmp)
    file(GLOB resource_dirs LIST_DIRECTORIES true ${root}/lib/clang/*/include ${root}/lib64/clang/*/include
         ${root}/lib/llvm-*/lib/clang/*/include)
    list(APPEND hints ${resource_dirs})
  endforeach()
  if(hints)
    find_file(SCAL_OMP_TOOLS_HEADER omp-tools.h HINTS ${hints} PATH_SUFFIXES openmp NO_DEFAULT_PATH)
  endif()
  if(NOT SCAL_OMP_TOOLS_HEADER)
    find_program(SCAL_CLANG NAMES clang clang-18 clang-17 clang-16 clang-15 clang-14)
    if(SCAL_CLANG)
      execute_process(COMMAND ${SCAL_CLANG} -print-resource-dir OUTPUT_VARIABLE resource
                      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      find_file(SCAL_OMP_TOOLS_HEADER omp-tools.h HINTS ${resource}/include NO_DEFAULT_PATH)
    endif()
  endif()
  if(NOT SCAL_OMP_TOOLS_HEADER)
    message(FATAL_ERROR "omp-tools.h not found: set -DSCAL_OPENMP_ROOT=<llvm-openmp prefix> or "
                        "-DOMP_TOOLS_INCLUDE_DIR=<directory of omp-tools.h>, or install clang")
  endif()
endfunction()
