# SPDX-License-Identifier: BSD-3-Clause
# Fails when libscal_ompt.so's target carries HDF5 include directories or definitions, or when one of
# its sources reaches <hdf5.h> (built with a poisoned hdf5.h first on the include path, with and
# without the plugin host).
cmake_minimum_required(VERSION 3.18)
string(REPLACE "|" ";" hdf5_dirs "${HDF5_DIRS}")
string(REPLACE "|" ";" tool_includes "${TOOL_INCLUDES}")
foreach(dir ${hdf5_dirs})
  if(dir IN_LIST tool_includes)
    message(FATAL_ERROR "scal_ompt has HDF5's include directory ${dir}: the tool must not see HDF5")
  endif()
endforeach()
string(TOLOWER "${TOOL_INCLUDES}|${TOOL_DEFINES}" flags)
if(flags MATCHES "hdf5")
  message(FATAL_ERROR "scal_ompt's include directories or definitions mention HDF5: ${TOOL_INCLUDES} ${TOOL_DEFINES}")
endif()
string(REPLACE "|" ";" probes "${PROBES}")
foreach(probe ${probes})
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${probe} -- -j1
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the tool's sources do not compile without HDF5 (${probe}):\n${out}")
  endif()
endforeach()
message(STATUS "libscal_ompt.so's sources compile without HDF5 headers")
