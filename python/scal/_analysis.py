# SPDX-License-Identifier: BSD-3-Clause
# scal.analysis: what scal report computed (CAMPAIGN.analysis.h5, schemas/README-analysis.md) as one
# long pandas table, one row per matrix cell.
import errno
import os

import h5py
import numpy as np
import pandas as pd

from ._file import FORMAT_CAMPAIGN, ScalFileError, _text

FORMAT_ANALYSIS = "scal-analysis"
COLUMNS = ("region", "region_id", "slice", "metric", "unit", "input", "input_to", "threads", "threads_to", "value")


def _analysis_path(path):
    """The analysis file of path: path itself, or the CAMPAIGN.analysis.h5 beside a campaign."""
    with h5py.File(path, "r") as h5:
        fmt = _text(h5.attrs.get("scal_format", ""))
    if fmt == FORMAT_ANALYSIS:
        return path
    if fmt == FORMAT_CAMPAIGN:
        stem = path[:-3] if path.endswith(".h5") else path
        beside = stem + ".analysis.h5"
        if os.path.exists(beside):
            return beside
        raise ScalFileError(path, "no analysis beside it (%s): run scal report on it first" % beside)
    raise ScalFileError(path, "neither a campaign nor a scal report analysis file (scal_format %r)" % fmt)


def _rows(ds, inputs, threads):
    """(input, input_to, threads, threads_to, value) of every cell of one matrix, by its axes."""
    values = np.atleast_2d(ds[()])
    a0, a1 = _text(ds.attrs.get("axis0", "")), _text(ds.attrs.get("axis1", ""))
    out = []
    for y in range(values.shape[0]):
        for x in range(values.shape[1]):
            i = (inputs[y], None) if a0 == "input" else (inputs[y], inputs[y + 1]) if a0 == "input_step" else (None, None)
            t = (threads[x], None) if a1 == "threads" else (threads[x], threads[x + 1]) if a1 == "threads_step" else (None, None)
            out.append((i[0], i[1], t[0], t[1], float(values[y, x])))
    return out


def _attr_value(v):
    """An attribute as Python: text, a number, or a list (e.g. @input_sizes, one per input)."""
    if isinstance(v, (bytes, str)):
        return _text(v)
    if isinstance(v, np.ndarray) and v.size != 1:
        return [_text(x) if isinstance(x, (bytes, str)) else x.item() for x in v.ravel()]
    return v.item() if hasattr(v, "item") else v


def analysis(path):
    """The matrices ``scal report`` wrote for a campaign, as one DataFrame with a row per cell.

    ``path`` is the campaign file (its ``CAMPAIGN.analysis.h5`` beside it is read) or the analysis
    file itself. Columns: ``region`` (the label), ``region_id`` (the campaign's /regions id, <NA>
    for a region only found in other files), ``slice`` (the frequency slice, "" without),
    ``metric`` (``time``, ``speedup``, ``efficiency``, ``diff_strong``, ``sensor:<name>``, ...),
    ``unit``, ``input`` and ``threads`` (the cell's row and column; a difference matrix's cell goes
    from ``input``/``threads`` to ``input_to``/``threads_to``, <NA> otherwise; both <NA> for a
    scalar such as ``rank``), ``value`` (NaN: a missing cell, never 0).

    ``df.attrs`` holds the analysis' attributes (``statistic``, ``baseline_threads``,
    ``baseline_note``, ``noise_cv``, ``created_utc``, ``input_sizes`` as a list) and its
    campaign-wide ``notes``; findings are
    in ``df.attrs["findings"]`` by region label.

    Raises FileNotFoundError for a missing file and scal.ScalFileError (naming the file) for a file
    that is neither."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    try:
        path = _analysis_path(path)
        h5 = h5py.File(path, "r")
    except OSError as e:
        raise ScalFileError(path, "not an HDF5 file scal can open (%s)" % e) from None
    with h5:
        if "analysis" not in h5:
            raise ScalFileError(path, "no /analysis group")
        g = h5["analysis"]
        inputs = [_text(s) for s in g["inputs"][()]]
        threads = [int(t) for t in g["threads"][()]]
        rows, findings = [], {}
        for slug in g["regions"]:
            rg = g["regions"][slug]
            label = _text(rg.attrs.get("label", slug))
            rid = int(rg.attrs["region_id"]) if "region_id" in rg.attrs else None
            if "findings" in rg:
                findings[label] = [_text(s) for s in rg["findings"][()]]
            # sub-groups are frequency slices, except each one's `model` group (read with h5py:
            # schemas/README-analysis.md, "Models")
            groups = [(rg, "")] + [(rg[k], _text(rg[k].attrs.get("slice", k))) for k in rg
                                   if isinstance(rg[k], h5py.Group) and k != "model"]
            for grp, sl in groups:
                for name, ds in grp.items():
                    if not isinstance(ds, h5py.Dataset) or name == "findings" or ds.dtype.kind not in "fiu":
                        continue
                    unit = _text(ds.attrs.get("unit", ""))
                    rows += [(label, rid, sl, name, unit) + cell for cell in _rows(ds, inputs, threads)]
        attrs = {k: _attr_value(v) for k, v in g.attrs.items()}
        attrs["notes"] = [_text(s) for s in g["notes"][()]] if "notes" in g else []
        attrs["findings"] = findings
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    for col in ("region_id", "threads", "threads_to"):
        df[col] = df[col].astype("Int64")
    df["input"] = pd.Categorical(df["input"], categories=inputs, ordered=True)
    df["input_to"] = pd.Categorical(df["input_to"], categories=inputs, ordered=True)
    df.attrs.update(attrs)
    return df
