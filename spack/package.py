# SPDX-License-Identifier: BSD-3-Clause
# Spack package for scal: scalability analysis for OpenMP programs.
#
#   spack repo add <scal source>/spack      (this folder is a Spack repository: repo.yaml and
#                                            packages/scal/package.py, a link to this file)
#   spack install scal +papi +cairo %gcc    (or %clang)
#   spack load scal && scal exec -- ./app   (SCAL_OMPT_TOOL, SCAL_LIBOMP and PYTHONPATH are set)
#
# Version constraints stay at or below what Debian 12 ships (hdf5 1.10.8, papi 7.0.0,
# llvm-openmp 14.0.6, elfutils 0.188, cairo 1.16, jansson 2.14) so system packages work as externals.

import os

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
    # One version per release tag, pinned to the tag's commit by its full hash: the release is
    # exactly this tree, whether or not a mirror carries tags. scripts/release.sh adds the line
    # (newest first) when it tags a release; tests/install/check_spack_package.py checks that the
    # newest one is the version CMakeLists.txt declares, so the default version stays current.
    version("0.2.0", tag="v0.2.0", commit="a2869ed5f97721fdc4c99c7782e8584f8451fcd6")
    version("0.1.0", commit="8a1f9b05a43a45ec2c493bba230aa6f1207110da")

    requires("platform=linux", msg="scal measures through OMPT, ELF and /proc: Linux only")

    # Debug information is what names regions by file and line, in scal's own test programs too.
    variant(
        "build_type",
        default="RelWithDebInfo",
        values=("Debug", "Release", "RelWithDebInfo", "MinSizeRel"),
        description="CMake build type",
    )
    variant("papi", default=True, description="PAPI hardware/software counter sensor plugin")
    variant("cairo", default=True, description="PNG scalability diagrams and charts (cairo)")
    variant("python", default=True, description="The Python package scal (pandas DataFrames)")
    variant("tests", default=False, description="Build the test suite (needs clang/libomp)")

    depends_on("c", type="build")
    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("hdf5@1.10:~mpi")
    depends_on("elfutils@0.170:")
    depends_on("zlib-api")  # the run snapshot's checksum (crc32) in the tool's writer
    depends_on("jansson@2.10:")
    # omp-tools.h at build time (from this prefix: its include/ or, for LLVM's own packages, its
    # clang resource directory); libomp at run time, which measures gcc-built (libgomp) programs.
    depends_on("llvm-openmp@12:", type=("build", "run"))
    depends_on("papi@6:", when="+papi")
    # Text in the diagrams needs fontconfig.
    depends_on("cairo@1.14:+png+ft+fc", when="+cairo")
    depends_on("libpng@1.6:", when="+cairo")  # the report encodes its PNG files with libpng
    extends("python", when="+python")
    depends_on("py-h5py", type="run", when="+python")
    depends_on("py-numpy", type="run", when="+python")
    depends_on("py-pandas", type="run", when="+python")
    # The test suite: h5py/numpy checks of the files.
    depends_on("python@3.8:", type=("build", "test"), when="+tests")
    depends_on("py-h5py", type=("build", "test"), when="+tests")
    depends_on("py-numpy", type=("build", "test"), when="+tests")
    # tests/mpi: a hybrid MPI + OpenMP program launched with mpiexec (scal itself needs no MPI)
    depends_on("mpi", type=("build", "test"), when="+tests")
    conflicts(
        "%gcc",
        when="+tests",
        msg="the test suite's OpenMP programs need clang's libomp (OMPT): use %clang, or ~tests",
    )

    def cmake_args(self):
        args = [
            self.define_from_variant("SCAL_ENABLE_PAPI", "papi"),
            self.define_from_variant("SCAL_ENABLE_CAIRO", "cairo"),
            self.define_from_variant("SCAL_ENABLE_TESTS", "tests"),
            self.define_from_variant("SCAL_ENABLE_PYTHON", "python"),
            self.define("SCAL_ENABLE_BENCH", False),
            self.define("SCAL_OPENMP_ROOT", self.spec["llvm-openmp"].prefix),
        ]
        if self.spec.satisfies("+python"):
            args.append(self.define("SCAL_PYTHON_INSTALL_DIR", python_purelib))
        if self.spec.satisfies("+tests"):
            args.append(self.define("SCAL_PYTHON", self.spec["python"].command.path))
        return args

    def libomp(self):
        lib = self.spec["llvm-openmp"].prefix.lib
        for name in ("libomp.so.5", "libomp.so"):
            if os.path.exists(join_path(lib, name)):
                return join_path(lib, name)
        return join_path(lib, "libomp.so")

    def setup_run_environment(self, env):
        # OMP_TOOL_LIBRARIES=$SCAL_OMPT_TOOL ./app measures a program without the runner.
        env.set("SCAL_OMPT_TOOL", join_path(self.prefix.lib, "libscal_ompt.so"))
        # gcc-built programs run against libomp's GOMP layer: scal run and scal exec preload it.
        env.set("SCAL_LIBOMP", self.libomp())

    def test_demo(self):
        """measure the installed demo with scal exec and check its run file with scal check"""
        demo = join_path(self.prefix.share.scal.examples.bin, "scal_demo")
        out = join_path(os.getcwd(), "scal-demo-test.h5")
        scal = which(join_path(self.prefix.bin, "scal"))
        measured = dict(os.environ)
        measured.update(OMP_NUM_THREADS="2")
        # scal exec returns once the run file is complete (the tool's writer finishes after the
        # program), so checking right after it races nothing.
        scal("exec", "-o", out, "--", demo, "10", env=measured)
        report = scal("check", out, output=str, error=str)
        assert ": ok" in report, report

    def test_version(self):
        """scal --version names the commit it was built from"""
        scal = which(join_path(self.prefix.bin, "scal"))
        out = scal("--version", output=str, error=str)
        assert out.startswith("scal %s (" % self.spec.version.up_to(3)) or self.spec.satisfies(
            "@develop"
        ), out
        assert "commit unknown" not in out, out
