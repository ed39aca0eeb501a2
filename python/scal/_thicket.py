# SPDX-License-Identifier: BSD-3-Clause
# scal.to_thicket: the output of `scal export --format thicket` as an LLNL Thicket, one profile per
# run with the run's configuration as its metadata row.
import json


def profiles(path):
    """The profiles of a ``scal export --format thicket`` file: a list of (metadata dict, Hatchet
    literal graph), one per run."""
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or doc.get("format") != "scal-thicket-1":
        raise ValueError("%s: not a scal Thicket export (scal export FILE --format thicket)" % path)
    return [(p["metadata"], p["graph"]) for p in doc["profiles"]]


def to_thicket(path):
    """A Thicket (``thicket.Thicket``, not a dependency of scal: import fails without it) of every
    profile in a ``scal export --format thicket`` file: each run's tree through
    ``Thicket.from_literal``, its metadata columns (run, threads, team, input, input_size,
    repetition, status, frequency_khz) set, then ``Thicket.concat_thickets``."""
    import thicket as tt  # noqa: PLC0415  (optional)

    parts = []
    for md, graph in profiles(path):
        th = tt.Thicket.from_literal(graph)
        for key, value in md.items():
            th.metadata[key] = value
        parts.append(th)
    return parts[0] if len(parts) == 1 else tt.Thicket.concat_thickets(parts)
