# SPDX-License-Identifier: BSD-3-Clause
# The benchmarks' --csv output: one row per measurement, the columns named by the first row's keys.
# Scripts import it after adding bench/ to sys.path.
import csv


def write_rows(path, rows):
    if not path or not rows:
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
