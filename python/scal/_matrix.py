# SPDX-License-Identifier: BSD-3-Clause
# scal.matrix: the thread x input matrix of one region that scal report's diagrams draw.
import numbers

import numpy as np
import pandas as pd

METRICS = ("time", "speedup", "efficiency")


def _select(ok, region):
    """The rows of one region: by region_id (an int) or by label (a str naming exactly one node)."""
    if isinstance(region, numbers.Integral) and not isinstance(region, bool):
        sel = ok[ok["region_id"] == region]
        if sel.empty:
            raise ValueError("no region with region_id %d in the successful runs" % region)
        return sel
    sel = ok[ok["region"] == region]
    ids = sorted(int(i) for i in sel["region_id"].dropna().unique())
    if not ids:
        raise ValueError("no region %r in the successful runs (regions: %s)" % (region, ", ".join(map(repr, ok["region"].dropna().unique()[:20]))))
    if len(ids) > 1:
        raise ValueError("%r labels %d region nodes (region_id %s, the same code under different parents): pass a region_id" % (region, len(ids), ", ".join(map(str, ids))))
    return sel


def matrix(df, region, metric="efficiency"):
    """The thread x input matrix of one region, as scal report's diagrams draw it.

    ``df`` is a DataFrame from ``scal.load`` (or a filtered part of one); ``region`` a label (the
    ``region`` column; it must name one region node) or a ``region_id``. Only runs with status ok
    count. T(p, input) is the median over repetitions of the region's wall time ``wall_s`` (its
    summed time ``total_s`` for files from before ``wall_s``) for p requested threads (times
    that are zero, negative or NaN are left out, as scal report does); with b
    the smallest thread count of the successful runs in ``df`` (the baseline, 1 when present):

    - ``metric="time"``: T(p, input) in seconds;
    - ``metric="speedup"``: S = T(b, input) / T(p, input);
    - ``metric="efficiency"`` (the default): E = T(b, input) / ((p / b) * T(p, input)).

    Returns a DataFrame indexed by ``threads`` (every thread count of the successful runs in ``df``,
    ascending) with one column per input (those in ``df``, in plan order). A configuration where the
    region did not run is NaN: a gap, as in the diagrams. (scal report divides by the team sizes
    OpenMP reported instead of the requested ones; the two agree unless ``team`` differs from
    ``threads``.) Raises ValueError for an unknown metric or region, a label that names several
    region nodes, or a ``df`` that mixes CPU frequencies (select one first)."""
    if metric not in METRICS:
        raise ValueError("metric must be one of %s, not %r" % (", ".join(METRICS), metric))
    ok = df[(df["status"] == "ok") & df["threads"].notna()]
    if ok.empty:
        raise ValueError("no successful run with a thread count in the data")
    freqs = ok["frequency_khz"].astype("float64").fillna(-1).unique()
    if len(freqs) > 1:
        raise ValueError("the runs use %d CPU frequencies: select one, e.g. df[df.frequency_khz == %d]" % (len(freqs), int(max(freqs))))
    sel = _select(ok, region)
    threads = pd.Index(sorted(int(t) for t in ok["threads"].unique()), name="threads")
    col = df["input"]  # load() makes it categorical in plan order; otherwise: order of appearance
    categories = col.cat.categories if isinstance(col.dtype, pd.CategoricalDtype) else pd.Index(col.dropna().unique())
    present = set(ok["input"].dropna())
    inputs = pd.CategoricalIndex([c for c in categories if c in present], categories=categories, ordered=True, name="input")
    # as scal report: the wall time (the summed time in files from before it); zero, negative or
    # NaN times are left out
    sel = sel.assign(time_s=sel["wall_s"].where(sel["wall_s"] > 0, sel["total_s"]) if "wall_s" in sel else sel["total_s"])
    sel = sel[sel["time_s"] > 0]
    t = sel.assign(threads=sel["threads"].astype(np.int64)).groupby(["threads", "input"], observed=True)["time_s"].median()
    time = t.unstack("input").reindex(index=threads, columns=inputs).astype("float64")
    if metric == "time":
        return time
    base = threads[0]
    speedup = time.rtruediv(time.loc[base], axis="columns")
    if metric == "speedup":
        return speedup
    return speedup.div(np.asarray(threads, dtype=np.float64) / base, axis="index")
