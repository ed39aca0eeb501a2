# SPDX-License-Identifier: BSD-3-Clause
# cmake/scal_omp_tools.cmake finds omp-tools.h from an OpenMP prefix in both layouts (Spack's
# llvm-openmp: PREFIX/include; LLVM's packages: PREFIX/lib/clang/VERSION/include) before any clang.
#   cmake -DSRC=<source> -DWORK=<scratch dir> -P check_omp_tools_search.cmake
include(${SRC}/cmake/scal_omp_tools.cmake)
file(REMOVE_RECURSE ${WORK})
foreach(layout include lib/clang/14.0.6/include)
  set(prefix ${WORK}/${layout}-prefix)
  file(WRITE ${prefix}/${layout}/omp-tools.h "/* test */\n")
  unset(SCAL_OMP_TOOLS_HEADER CACHE)
  set(SCAL_OPENMP_ROOT ${prefix})
  set(SCAL_CLANG NOTFOUND) # no clang fallback: the prefix must be enough
  scal_find_omp_tools_header()
  if(NOT SCAL_OMP_TOOLS_HEADER STREQUAL "${prefix}/${layout}/omp-tools.h")
    message(FATAL_ERROR "FAIL: ${layout} layout: found '${SCAL_OMP_TOOLS_HEADER}'")
  endif()
  message("ok: omp-tools.h found in ${layout} of the OpenMP prefix")
endforeach()
file(REMOVE_RECURSE ${WORK})
