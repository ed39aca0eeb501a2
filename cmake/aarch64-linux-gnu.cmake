# SPDX-License-Identifier: BSD-3-Clause
# Cross-building scal for aarch64 Linux with clang against a Debian arm64 sysroot (the arm64
# packages unpacked by `scripts/install-deps.sh --aarch64 DIR`), the programs run under
# qemu-aarch64-static. Used by `scripts/test.sh --aarch64`:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#         -DSCAL_AARCH64_SYSROOT=/path/to/sysroot
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(SCAL_AARCH64_SYSROOT "" CACHE PATH "Debian arm64 sysroot (scripts/install-deps.sh --aarch64 DIR)")
if(NOT SCAL_AARCH64_SYSROOT AND DEFINED ENV{SCAL_AARCH64_SYSROOT})
  set(SCAL_AARCH64_SYSROOT "$ENV{SCAL_AARCH64_SYSROOT}")
endif()
if(NOT IS_DIRECTORY "${SCAL_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu")
  message(FATAL_ERROR "SCAL_AARCH64_SYSROOT='${SCAL_AARCH64_SYSROOT}' is no arm64 sysroot "
                      "(make one with scripts/install-deps.sh --aarch64 DIR)")
endif()
# try_compile projects see the same sysroot
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SCAL_AARCH64_SYSROOT)
set(ENV{SCAL_AARCH64_SYSROOT} "${SCAL_AARCH64_SYSROOT}")

set(CMAKE_SYSROOT "${SCAL_AARCH64_SYSROOT}")
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_ASM_COMPILER clang)
set(CMAKE_ASM_COMPILER_TARGET aarch64-linux-gnu)
# lld links any target; libomp lives beside the other LLVM libraries, not on the default path
set(_scal_omp "${SCAL_AARCH64_SYSROOT}/usr/lib/llvm-14/lib")
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT "-fuse-ld=lld -L${_scal_omp}")
endforeach()

set(CMAKE_FIND_ROOT_PATH "${SCAL_AARCH64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER) # python3, gcc, qemu: the build machine's
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# HDF5's compiler wrapper (h5cc) would be the build machine's: find the sysroot's files instead
set(HDF5_C_COMPILER_EXECUTABLE "" CACHE FILEPATH "no h5cc when cross-building")
set(ENV{PKG_CONFIG_LIBDIR}
    "${SCAL_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${SCAL_AARCH64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${SCAL_AARCH64_SYSROOT}")
set(ENV{PKG_CONFIG_PATH} "")

# Programs built here run under qemu-user, which finds the dynamic loader and every library in the
# sysroot (-L). ctest runs target programs through it; scripts pass it on (SCAL_EMULATOR).
find_program(SCAL_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(SCAL_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${SCAL_QEMU_AARCH64};-L;${SCAL_AARCH64_SYSROOT}")
endif()

# The test programs built by other compilers (tests/tool): the same target and sysroot.
set(SCAL_GCC aarch64-linux-gnu-gcc-12 CACHE STRING "gcc for aarch64")
set(SCAL_GXX aarch64-linux-gnu-g++-12 CACHE STRING "g++ for aarch64")
set(SCAL_CLANGXX "clang++;--target=aarch64-linux-gnu;--sysroot=${SCAL_AARCH64_SYSROOT};-fuse-ld=lld;-L${_scal_omp}"
    CACHE STRING "clang++ for aarch64")
