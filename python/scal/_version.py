# SPDX-License-Identifier: BSD-3-Clause
# The package's version: scal's (project(VERSION) in the top-level CMakeLists.txt; a test keeps the
# two equal), read by pyproject.toml too.
__version__ = "0.2.0"
