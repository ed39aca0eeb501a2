# SPDX-License-Identifier: BSD-3-Clause
# Fails unless `nm -D --defined-only` of libscal_ompt.so lists ompt_start_tool only, and unless the
# writer library gets along without libscal_ompt.so (no DT_NEEDED entry for it).
cmake_minimum_required(VERSION 3.18)
execute_process(COMMAND ${NM} -D --defined-only ${TOOL} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${TOOL}: ${err}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
set(symbols "")
foreach(line ${lines})
  string(REGEX REPLACE "^.* " "" name "${line}")
  list(APPEND symbols ${name})
endforeach()
if(NOT symbols STREQUAL "ompt_start_tool")
  message(FATAL_ERROR "libscal_ompt.so must export ompt_start_tool only; it exports: ${symbols}")
endif()
execute_process(COMMAND ${READELF} -d ${WRITER} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} failed on ${WRITER}: ${err}")
endif()
if(out MATCHES "NEEDED[^\n]*libscal_ompt\\.so")
  message(FATAL_ERROR "${WRITER} links against libscal_ompt.so; it must use the accessor table")
endif()
message(STATUS "libscal_ompt.so exports ompt_start_tool only; its writer does not link against it")
