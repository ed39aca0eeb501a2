# SPDX-License-Identifier: BSD-3-Clause
# Region labels: the Python copy of scal's ONE label rule.
from ._file import ScalFileError

KIND_ROOT, KIND_PARALLEL, KIND_SERIAL, KIND_USER, KIND_TASK = 0, 1, 2, 3, 4


def _base_name(path):
    return path.rpartition("/")[2]


def region_labels(f, rows):
    """The display label of every row of a /regions table (run file or campaign), in row order.

    This mirrors label_of() and check_row() in common/region_identity.c (scal_region_labels), the
    rule the C tools (scal show, scal report) use; tests/python compares the two on real files
    (``scal show --csv``), so change both together:

    - the root: "whole program";
    - a parallel region with a source line: "<file base name>:<first>-<last> (<function>)", just
      "<first>" when last <= first, without " (<function>)" when the function is unknown;
      without a line (or file): the stored name, else "<module base name>+0x<offset hex>";
    - a task construct: as a parallel region, prefixed by "task ";
    - a user region: its name;
    - a serial gap: "serial: <previous label> -> <next label>" ("start"/"end" at the ends).

    ``f`` is the open ScalFile (its string table), ``rows`` the numpy structured array. Raises
    ScalFileError for the rows the C rule refuses (ids that are not row numbers, references to
    later rows, unknown kinds)."""
    n = len(rows)
    text = {}
    for member in ("name", "file", "function", "module"):
        text[member] = f.text(rows[member]) if n else []
    labels = []
    for i in range(n):
        r = rows[i]
        kind, parent = int(r["kind"]), int(r["parent"])
        prev, nxt = int(r["gap_prev"]), int(r["gap_next"])
        if int(r["id"]) != i:
            raise ScalFileError(f.path, "/regions row %d has id %d" % (i, int(r["id"])))
        if parent >= i:
            raise ScalFileError(f.path, "/regions row %d: parent %d is not an earlier row" % (i, parent))
        if kind == KIND_SERIAL and (prev >= i or nxt >= i):
            raise ScalFileError(f.path, "/regions row %d: serial gap refers to a later row" % i)
        if kind > KIND_TASK:
            raise ScalFileError(f.path, "/regions row %d: unknown kind %d" % (i, kind))
        file, fn, name = text["file"][i], text["function"][i], text["name"][i]
        first, last = int(r["line_first"]), int(r["line_last"])
        if kind == KIND_ROOT:
            label = "whole program"
        elif kind == KIND_USER:
            label = name
        elif kind in (KIND_PARALLEL, KIND_TASK):
            k = "task " if kind == KIND_TASK else ""
            if first < 0 or not file:
                offset = int(r["offset"])
                # C's "%#" PRIx64 prints 0 without the 0x prefix
                label = name or "%s%s+%s" % (k, _base_name(text["module"][i]), "%#x" % offset if offset else "0")
            else:
                lines = "%d-%d" % (first, last) if last > first else "%d" % first
                label = "%s%s:%s (%s)" % (k, _base_name(file), lines, fn) if fn else "%s%s:%s" % (k, _base_name(file), lines)
        else:
            label = "serial: %s -> %s" % (labels[prev] if prev >= 0 else "start", labels[nxt] if nxt >= 0 else "end")
        labels.append(label)
    return labels
