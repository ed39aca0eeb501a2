# SPDX-License-Identifier: BSD-3-Clause
"""scal's run and campaign files as tidy pandas tables.

    import scal
    df = scal.load("app.h5")                  # one row per (run, region), everything decoded
    regions = scal.tree("app.h5")             # the region tree, indexed by region_id
    E = scal.matrix(df, "whole program")      # threads x input efficiency, as scal report draws it

Reads files written by libscal_ompt.so (run files) and by scal run, merge and import (campaign
files), schema version 1 (schemas/README.md). Needs h5py, numpy and pandas (Debian: python3-h5py,
python3-numpy, python3-pandas).
"""
from ._file import ScalFileError
from ._frame import load, tree
from ._matrix import matrix

__all__ = ["load", "tree", "matrix", "ScalFileError"]
