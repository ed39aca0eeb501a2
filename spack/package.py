# SPDX-License-Identifier: BSD-3-Clause
# Spack package for scal: scalability analysis for OpenMP programs.
#
#   spack repo add <scal>/spack-repo  (or copy this file to <repo>/packages/scal/package.py)
#   spack install scal +papi +cairo
#
# Version constraints stay at or below what Debian 12 ships (hdf5 1.10.8, papi 7.0.0,
# llvm-openmp 14.0.6, elfutils 0.188, cairo 1.16, jansson 2.14) so system packages work as externals.

from spack.package import *


class Scal(CMakePackage):
    """scal measures OpenMP programs over threads x inputs x frequencies x repetitions and reports
    how the whole program and each nested parallel region scale: an OMPT tool (libscal_ompt.so),
    sensor/actuator plugins, a campaign runner and PaScal Viewer-style diagrams."""

    homepage = "https://github.com/scal-hpc/scal"
    git = "https://github.com/scal-hpc/scal.git"

    maintainers("scal-hpc")
    license("BSD-3-Clause")

    version("develop", branch="main")

    variant("papi", default=True, description="PAPI hardware/software counter sensor plugin")
    variant("cairo", default=True, description="PNG scalability diagrams and charts (cairo)")
    variant("tests", default=False, description="Build the test suite (needs clang/libomp)")

    depends_on("c", type="build")
    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("hdf5@1.10:~mpi")
    depends_on("elfutils@0.170:")
    depends_on("jansson@2.10:")
    depends_on("llvm-openmp@12:", type=("build", "link", "run", "test"))
    depends_on("papi@6:", when="+papi")
    depends_on("cairo@1.14:+png+ft", when="+cairo")

    def cmake_args(self):
        return [
            self.define_from_variant("SCAL_ENABLE_PAPI", "papi"),
            self.define_from_variant("SCAL_ENABLE_CAIRO", "cairo"),
            self.define_from_variant("SCAL_ENABLE_TESTS", "tests"),
            self.define("SCAL_ENABLE_BENCH", False),
            self.define("OMP_TOOLS_INCLUDE_DIR", self.spec["llvm-openmp"].prefix.include),
        ]

    def setup_run_environment(self, env):
        # OMP_TOOL_LIBRARIES=$SCAL_OMPT_TOOL ./app measures a program without the runner.
        env.set("SCAL_OMPT_TOOL", join_path(self.prefix.lib, "libscal_ompt.so"))
