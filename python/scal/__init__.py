# SPDX-License-Identifier: BSD-3-Clause
"""scal's run and campaign files as tidy pandas tables.

    import scal
    df = scal.load("app.h5")                  # one row per (run, region), everything decoded
    regions = scal.tree("app.h5")             # the region tree, indexed by region_id
    E = scal.matrix(df, "whole program")      # threads x input efficiency, as scal report draws it
    a = scal.analysis("app.h5")               # what scal report computed (app.analysis.h5), a row per cell
    th = scal.to_thicket("app.thicket.json")  # scal export --format thicket, as a Thicket (needs thicket)

Reads files written by libscal_ompt.so (run files) and by scal run, merge and import (campaign
files), schema version 1 (schemas/README.md). Needs h5py, numpy and pandas (Debian: python3-h5py,
python3-numpy, python3-pandas).
"""
from ._analysis import analysis
from ._file import ScalFileError
from ._frame import load, tree
from ._matrix import matrix
from ._thicket import to_thicket
from ._version import __version__

__all__ = ["load", "tree", "matrix", "analysis", "to_thicket", "ScalFileError", "__version__"]
