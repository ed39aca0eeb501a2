# SPDX-License-Identifier: BSD-3-Clause
# scal.load and scal.tree: a run or campaign file as pandas DataFrames with every index, enum and
# sentinel decoded.
import numpy as np
import pandas as pd

from ._file import KIND_NAMES, STATUS_NAMES, ScalFile, ScalFileError, shown_labels

# statistics members (run file /regions, campaign /region_stats) -> load() columns
STAT_COLUMNS = (
    ("count", "count"),
    ("time_total_s", "total_s"),
    ("time_wall_s", "wall_s"),  # added later: NaN for files written before it
    ("time_mean_s", "mean_s"),
    ("time_median_s", "median_s"),
    ("time_min_s", "min_s"),
    ("time_max_s", "max_s"),
    ("work_total_s", "work_s"),
    ("barrier_total_s", "barrier_s"),
    ("lock_total_s", "lock_s"),
    ("imbalance", "imbalance"),
)
RUN_COLUMNS = ("run", "repetition", "input", "threads", "team", "frequency_khz", "status")
REGION_COLUMNS = ("region", "region_id", "parent_id", "kind", "file", "line_begin", "line_end", "function")
INT_COLUMNS = ("threads", "team", "frequency_khz", "region_id", "parent_id", "line_begin", "line_end", "count", "ranks")
# MPI + OpenMP (after the statistics, so that the columns above keep their positions)
MPI_COLUMNS = ("ranks", "rank_imbalance")
# what happened to each run (after those, for the same reason)
RUN_DETAIL_COLUMNS = ("input_size", "exit_code", "signal", "message", "stdout_tail", "stderr_tail")
# per-thread statistics: parallel regions only; serial gaps, user regions and the root have none
THREAD_STAT_COLUMNS = ("work_s", "barrier_s", "lock_s", "imbalance")
# a run file is one configuration; its input is labelled like scal report labels it
RUN_FILE_INPUT = "run"


def _nullable(values):
    """Integers as pandas' nullable Int64, with the file's negative sentinels (-1: not set) as <NA>."""
    s = pd.Series(values).astype("Int64")
    return s.mask(s < 0)


def _kinds(codes):
    return pd.Categorical.from_codes(np.where(np.asarray(codes) < len(KIND_NAMES), codes, -1).astype(int), KIND_NAMES)


def region_labels(f, rows):
    """The label of every /regions row: the one stored with it (the file's writer derived it with
    scal's one rule, common/region_identity.h). Files written before labels were stored, or rows
    without one, are labelled as scal's C readers label them (``scal show --table labels``)."""
    if len(rows) and "label" in rows.dtype.names and (rows["label"] != 0).all():
        return list(f.text(rows["label"]))
    labels = shown_labels(f.path) if len(rows) else []
    if len(labels) != len(rows):
        raise ScalFileError(f.path, "scal show lists %d region labels for %d /regions rows" % (len(labels), len(rows)))
    return labels


def _region_frame(f, rows):
    """Identity members of /regions as the tree()'s columns, one row per region id."""
    return pd.DataFrame(
        {
            "region_id": _nullable(rows["id"]),
            "parent_id": _nullable(rows["parent"]),
            "depth": rows["depth"].astype(np.int64),
            "region": region_labels(f, rows),
            "kind": _kinds(rows["kind"]),
            "file": f.text(rows["file"]),
            "line_begin": _nullable(rows["line_first"]),
            "line_end": _nullable(rows["line_last"]),
            "function": f.text(rows["function"]),
            "module": f.text(rows["module"]),
            "offset": rows["offset"].astype(np.uint64),
            "gap_prev": _nullable(rows["gap_prev"]),
            "gap_next": _nullable(rows["gap_next"]),
        }
    )


def tree(path):
    """The region tree of a run file or campaign file, as a DataFrame indexed by ``region_id``.

    Columns: ``parent_id`` (<NA> for the root), ``depth`` (root 0), ``region`` (the label, as in
    ``scal show`` and ``load()``), ``kind`` (categorical: root, parallel, serial, user, task), ``file``
    (the source path as stored, "" when unknown), ``line_begin``, ``line_end`` (<NA> when unknown),
    ``function`` ("" when unknown), ``module`` and ``offset`` (where the construct is in the binary:
    the identity of regions without debug info), ``gap_prev``, ``gap_next`` (serial gaps: the region before and after, <NA> at the
    program's start and end). Rows are in id order, parents before their children. In a campaign the
    ids are those unified across runs, the ``region_id`` of ``load()``.

    Raises FileNotFoundError for a missing file and scal.ScalFileError (naming the file) for a file
    that is not a scal file."""
    with ScalFile(path) as f:
        return _region_frame(f, f.table("regions")).set_index("region_id")


def _stats_frame(rows):
    names = rows.dtype.names
    out = pd.DataFrame({col: rows[member] if member in names else np.full(len(rows), np.nan)
                        for member, col in STAT_COLUMNS})
    empty = out["count"] == 0
    for col in ("mean_s", "median_s", "min_s", "max_s"):  # no instance: no time statistics
        out.loc[empty, col] = np.nan
    if "threads" in names:  # no team (serial, user, root rows): work, waits and imbalance are missing, not 0
        out.loc[np.asarray(rows["threads"]) == 0, list(THREAD_STAT_COLUMNS)] = np.nan
    return out


def _metric_frame(f, rows):
    """Sensor values of whole teams (thread -1) as one column per metric, "<metric> [<unit>]" (the
    headers of scal show), indexed by (run, region_id). The whole program's row takes the run's
    whole-run value (region -1) when the program has no value of its own, as scal show does."""
    if rows is None or len(rows) == 0:
        return None
    run = rows["run"] if "run" in rows.dtype.names else np.zeros(len(rows), dtype=np.int64)
    sv = pd.DataFrame(
        {
            "run": run.astype(np.int64),
            "region_id": rows["region"].astype(np.int64),
            "metric": f.text(rows["metric"]),
            "unit": f.text(rows["unit"]),
            "value": rows["value"],
        }
    )
    sv = sv[rows["thread"] == -1]
    if sv.empty:
        return None
    names = sv.drop_duplicates("metric")  # a metric's first unit names its column, in order of appearance
    columns = dict(zip(names["metric"], names["metric"] + " [" + names["unit"] + "]"))
    sv = sv.assign(column=sv["metric"].map(columns))
    own = sv[sv["region_id"] >= 0].drop_duplicates(["run", "region_id", "column"], keep="last")
    whole = sv[sv["region_id"] == -1].drop_duplicates(["run", "column"], keep="first").assign(region_id=0)
    both = pd.concat([own, whole]).drop_duplicates(["run", "region_id", "column"], keep="first")
    wide = both.pivot(index=["run", "region_id"], columns="column", values="value")
    return wide.reindex(columns=list(columns.values()))


def _campaign_runs(f):
    """One row per run of a campaign: the RUN_COLUMNS, and the category order of ``input``."""
    configs, runs = f.table("configs"), f.table("runs")
    cfg = pd.DataFrame(
        {
            "config": configs["id"].astype(np.int64),
            "input_index": configs["input"].astype(np.int64),
            "input": f.text(configs["input_label"]),  # "" (no -i): named i<N> below, as scal report does
            "threads": _nullable(configs["threads"]),
            "frequency_khz": _nullable(configs["frequency_khz"]),
        }
    )
    unnamed = cfg["input"] == ""
    cfg.loc[unnamed, "input"] = ["i%d" % (k + 1) for k in cfg.loc[unnamed, "input_index"]]
    # the plan's order for the labels the configurations use (a campaign without -i lists one
    # unnamed input in the plan: no category of its own)
    extra = cfg.sort_values("input_index", kind="stable")["input"]
    plan = [s for s in f.str_list("campaign/inputs") if s in set(extra)]
    inputs = list(dict.fromkeys(plan + [s for s in extra if s not in plan]))
    status = np.asarray(runs["status"]).astype(int)
    sizes = f.attrs("campaign").get("input_sizes") if "campaign" in f.h5 else None
    sizes = list(np.asarray(sizes, dtype=float).ravel()) if sizes is not None else []
    cfg["input_size"] = [sizes[i] if 0 <= i < len(sizes) else np.nan for i in cfg["input_index"]]
    signal = np.asarray(runs["signal"]).astype(np.int64)
    out = pd.DataFrame(
        {
            "run": runs["id"].astype(np.int64),
            "config": runs["config"].astype(np.int64),
            "repetition": runs["repetition"].astype(np.int64),
            "team": _nullable(runs["team_observed"]),
            "status": pd.Categorical.from_codes(np.where(status < len(STATUS_NAMES), status, -1), STATUS_NAMES),
            "exit_code": _nullable(runs["exit_code"]),  # <NA>: killed by a signal, or never started
            "signal": _nullable(np.where(signal > 0, signal, -1)),
            "message": f.text(runs["message"]),
            "stdout_tail": f.text(runs["stdout_tail"]),
            "stderr_tail": f.text(runs["stderr_tail"]),
        }
    )
    cr = f.table("config_ranks")
    if cr is not None and len(cr):
        ranks = pd.DataFrame({"config": cr["config"].astype(np.int64), "ranks": cr["ranks"].astype(np.int64)})
        cfg = cfg.merge(ranks, on="config", how="left")
    else:
        cfg = cfg.assign(ranks=pd.NA)
    out = out.merge(cfg, on="config", how="left").sort_values("run", kind="stable")
    return out, inputs


def _run_file_runs(f):
    meta = f.attrs("meta")
    # scal's one rule (common/scal_format.c, scal_format_run_threads): the requested thread count,
    # else the largest team observed
    requested, observed = int(meta.get("requested_threads", -1)), int(meta.get("max_team_observed", -1))
    one = pd.DataFrame(
        {
            "run": [0],
            "repetition": [0],
            "input": [RUN_FILE_INPUT],
            "threads": _nullable([requested if requested > 0 else observed]),
            "team": _nullable([observed]),
            "frequency_khz": _nullable([-1]),
            "status": pd.Categorical(["ok"], STATUS_NAMES),
            # one rank of an MPI job: the job's size
            "ranks": _nullable([int(meta.get("mpi_size", -1)) if int(meta.get("mpi_rank", -1)) >= 0 else -1]),
            # a run file is written by the program itself: no exit status, message or output
            "input_size": [np.nan],
            "exit_code": _nullable([-1]),
            "signal": _nullable([-1]),
            "message": [""],
            "stdout_tail": [""],
            "stderr_tail": [""],
        }
    )
    return one, [RUN_FILE_INPUT]


def _rank_stats(f, st, per_rank):
    """The (run, region) statistics rows of a campaign with ``rank_imbalance`` (NaN without MPI);
    per_rank: /rank_region_stats rows with their ``rank`` instead of the critical path's, plus the
    /region_stats rows of runs that have none (rank <NA>)."""
    stats = _stats_frame(st).assign(run=st["run"].astype(np.int64), region_id=st["region"].astype(np.int64))
    summary = f.table("region_rank_summary")
    if per_rank:
        rr = f.table("rank_region_stats")
        if rr is not None and len(rr):
            ranked = _stats_frame(rr).assign(
                run=rr["run"].astype(np.int64), region_id=rr["region"].astype(np.int64), rank=rr["rank"].astype(np.int64)
            )
            rest = stats[~stats["run"].isin(ranked["run"])].assign(rank=-1)
            stats = pd.concat([ranked, rest], ignore_index=True)
        else:
            stats = stats.assign(rank=-1)
        stats["rank"] = _nullable(stats["rank"])
    if summary is not None and len(summary):
        imb = pd.DataFrame(
            {
                "run": summary["run"].astype(np.int64),
                "region_id": summary["region"].astype(np.int64),
                "rank_imbalance": summary["rank_imbalance"].astype(float),
            }
        )
        stats = stats.merge(imb, on=["run", "region_id"], how="left")
    else:
        stats = stats.assign(rank_imbalance=np.nan)
    return stats


def load(path, per_rank=False):
    """A run file or a campaign file as one pandas DataFrame with a row per (run, region).

    Columns, in this order:

    - ``run`` (the run id; 0 for a run file), ``repetition``, ``input`` (the input label, an ordered
      categorical in plan order; "run" for a run file), ``threads`` (the requested thread count; for a run file without one, the team observed, as scal export and scal report say),
      ``team`` (the team size OpenMP reported: the largest team of a top-level region), ``frequency_khz``
      (the requested CPU frequency; <NA> when the campaign did not set one), ``status`` (categorical:
      ok, failed, signaled, timeout, launch-error, no-data);
    - ``region`` (the label scal show and scal report print), ``region_id``, ``parent_id`` (<NA> for
      the whole program), ``kind`` (categorical: root, parallel, serial, user, task), ``file`` (the source
      path as stored), ``line_begin``, ``line_end`` (<NA> when unknown), ``function`` (file and
      function are "" when unknown);
    - ``count`` (instances), ``total_s``, ``mean_s``, ``median_s``, ``min_s``, ``max_s`` (time of
      an instance on the encountering thread, the total summed over every thread that encountered
      one; NaN without instances), ``wall_s`` (wall-clock time: the union of the instances'
      intervals, never above the parent's; NaN in files from before it), ``work_s``, ``barrier_s``,
      ``lock_s`` (summed over instances and team members), ``imbalance`` (1 - mean work / max work);
      these four are NaN (missing, not 0) for regions without a team: the whole program, serial
      gaps and user regions;
    - ``ranks`` (the MPI ranks of the run, <NA> when it was not launched as MPI) and ``rank_imbalance``
      (1 - mean / max over the ranks of the region's total time, NaN without ranks); for an MPI run
      the statistics are the critical path's: per region the slowest rank's;
    - ``input_size`` (the numeric size given at ``scal run --size``, NaN without one),
      ``exit_code`` (<NA> when the run was killed by a signal or never started), ``signal`` (<NA>
      without one), ``message`` (why the runner flagged or failed the run, "" otherwise),
      ``stdout_tail`` and ``stderr_tail`` (the last lines of its output); a run file has none of
      these (NaN, <NA>, "");
    - one column per sensor metric, named with its unit like ``"rusage.utime [s]"``: the whole team's
      value (sum over threads, or the process-wide value), inclusive of nested regions; the
      ``whole program`` row carries the whole-run value. Metrics that count (unit "count": PAPI
      counters, context switches, faults) are nullable ``Int64``.

    ``per_rank=True`` gives every MPI rank's rows instead of the critical path's, with a ``rank``
    column after ``ranks`` (<NA> for runs without per-rank data).

    Integer columns that can be missing are pandas' nullable ``Int64``. A run that failed carries no
    region data: it has one row, with its run columns and <NA>/NaN elsewhere, so that
    ``df[df.status != "ok"]`` lists the failures. Rows are sorted by run, then region_id.

    Raises FileNotFoundError for a missing file and scal.ScalFileError (naming the file) for a file
    that is not a scal file."""
    with ScalFile(path) as f:
        regions = _region_frame(f, f.table("regions"))
        if f.is_campaign:
            runs, inputs = _campaign_runs(f)
            st = f.table("region_stats")
            stats = _rank_stats(f, st, per_rank)
            metrics = _metric_frame(f, f.table("sensor_values"))
        else:
            runs, inputs = _run_file_runs(f)
            rows = f.table("regions")
            stats = _stats_frame(rows).assign(run=0, region_id=rows["id"].astype(np.int64), rank_imbalance=np.nan)
            if per_rank:
                meta = f.attrs("meta")
                stats = stats.assign(rank=_nullable([int(meta.get("mpi_rank", -1))] * len(stats)))
            metrics = _metric_frame(f, f.table("sensors/values"))
    df = runs.merge(stats, on="run", how="left")
    df["region_id"] = df["region_id"].astype("Int64")
    df = df.merge(regions.drop(columns=["depth", "module", "offset", "gap_prev", "gap_next"]), on="region_id", how="left")
    df = df.sort_values(["run", "region_id"], kind="stable").reset_index(drop=True)
    df["input"] = pd.Categorical(df["input"], categories=inputs, ordered=True)
    for col in INT_COLUMNS:
        df[col] = df[col].astype("Int64")
    df["kind"] = pd.Categorical(df["kind"], KIND_NAMES)
    mpi = ["ranks"] + (["rank"] if per_rank else []) + ["rank_imbalance"]
    if per_rank:
        df["rank"] = df["rank"].astype("Int64")
    for col in ("exit_code", "signal"):
        df[col] = df[col].astype("Int64")
    columns = list(RUN_COLUMNS) + list(REGION_COLUMNS) + [col for _, col in STAT_COLUMNS] + mpi
    df = df[columns + list(RUN_DETAIL_COLUMNS)]
    if metrics is not None:
        keys = metrics.reset_index().astype({"region_id": "Int64"})  # failed runs have <NA> region ids
        df = df.merge(keys, on=["run", "region_id"], how="left")
        for col in metrics.columns:  # counts are integers, not float64
            if _is_count(col) and df[col].dropna().apply(float.is_integer).all():
                df[col] = df[col].round().astype("Int64")
    return df


def _is_count(column):
    """A metric column "<plugin>.<metric> [<unit>]" whose unit says it counts events."""
    return column.endswith(" [count]")
