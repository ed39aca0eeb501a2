# SPDX-License-Identifier: BSD-3-Clause
# Fails when a library or program of the build tree (bin/, lib/, lib/scal/, lib/scal/plugins/) has
# an empty entry in its run path (RPATH/RUNPATH): the dynamic loader reads it as the current
# directory, so a program measured under libscal_ompt.so would load a libgcc_s.so.1 planted where
# it was started. CMake pads build-tree run paths that way when it edits them at install time
# (CMAKE_NO_BUILTIN_CHRPATH: it relinks instead).
cmake_minimum_required(VERSION 3.18)
file(GLOB files ${BUILD_DIR}/bin/* ${BUILD_DIR}/lib/*.so* ${BUILD_DIR}/lib/scal/*
     ${BUILD_DIR}/lib/scal/plugins/*.so)
set(checked 0)
foreach(f ${files})
  if(IS_DIRECTORY ${f})
    continue()
  endif()
  execute_process(COMMAND ${READELF} -d ${f} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
  if(NOT rc EQUAL 0)
    continue() # not an ELF file (a script)
  endif()
  math(EXPR checked "${checked} + 1")
  string(REGEX MATCHALL "R(UN)?PATH\\)[^\n]*\\[[^]\n]*\\]" paths "${out}")
  foreach(p ${paths})
    string(REGEX REPLACE "^.*\\[(.*)\\]$" "\\1" p "${p}")
    if(p STREQUAL "" OR p MATCHES "^:" OR p MATCHES ":$" OR p MATCHES "::")
      message(FATAL_ERROR "${f}: its run path '${p}' has an empty entry (the current directory)")
    endif()
  endforeach()
endforeach()
if(checked LESS 5)
  message(FATAL_ERROR "only ${checked} ELF files found under ${BUILD_DIR}/bin and lib")
endif()
message(STATUS "${checked} libraries and programs: no empty run-path entry")
