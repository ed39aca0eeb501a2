#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# The schemas list every table member's units, description and (regions.kind, runs.status) enum,
# the same strings the writers put in column_units / column_descriptions; scal check validates a
# file's attributes and enums against them: a wrong unit, description or enum name is a problem.
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

scal, prog, schemas, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, failures, finish  # noqa: E402  (tests/scal_check.py)


KIND = {"root": 0, "parallel": 1, "serial": 2, "user": 3, "task": 4}
STATUS = {"ok": 0, "failed": 1, "signaled": 2, "timeout": 3, "launch-error": 4, "no-data": 5}
PLUGIN_KIND = {"none": 0, "sensor": 1, "actuator": 2, "postproc": 3}
docs = {n: json.load(open(os.path.join(schemas, n + "-1.json"))) for n in ("scal-run", "scal-campaign")}
for name, doc in docs.items():
    members = [(t["path"], m) for t in doc["tables"] for m in t["members"]]
    check(all("units" in m and m.get("description") for _, m in members),
          "%s: every member of every table has units and a description (%d members)" % (name, len(members)))
    enums = {(p.split("/")[-1], m["name"]): m.get("enum") for p, m in members if m.get("enum")}
    want = {("regions", "kind"): KIND, ("plugins", "kind"): PLUGIN_KIND}
    if name == "scal-campaign":
        want[("runs", "status")] = STATUS
    check(enums == want, "%s: regions.kind, plugins.kind%s are listed as enums" % (name, "" if name == "scal-run"
                                                                                  else " and runs.status"))
    # uint32 ids have no -1; the signed ones of the sensor tables do, and say so
    for p, m in members:
        if m["name"] in ("region", "thread"):
            check(("-1" in m["description"]) == (m["type"] == "i32"),
                  "%s /%s.%s (%s): -1 described only where it can be stored" % (name, p, m["name"], m["type"]))
    imb = [m for _, m in members if m["name"] == "imbalance"]
    check(imb and all(m["description"] == "load imbalance: 1 - mean work per thread / busiest thread's work"
                      for m in imb), "%s: imbalance described as what is stored (1 - mean/max)" % name)
    undescribed = [d["path"] for d in doc.get("datasets", []) if not d.get("description")]
    if name == "scal-campaign":
        undescribed += [a.get("path") or a["name"] for g in doc["groups"] for a in g.get("attributes", []) + g.get("datasets", [])
                        if not a.get("description")]
    check(not undescribed, "%s: /strings%s described %r" % (name, " and /campaign/*" if name == "scal-campaign" else "",
                                                           undescribed))

r = subprocess.run([scal, "run", "-q", "-c", "1,2", "-i", "10", "--keep-runs", "-o", "c.h5", "--", prog,
                    "{input}"], cwd=work, capture_output=True, text=True,
                   env=dict(os.environ, OMP_WAIT_POLICY="passive"))
camp, runfile = os.path.join(work, "c.h5"), os.path.join(work, "c.h5.runs", "run-000000.h5")
for path, doc in ((camp, docs["scal-campaign"]), (runfile, docs["scal-run"])):
    with h5py.File(path, "r") as f:
        same = True
        for t in doc["tables"]:
            if t["path"] not in f:
                continue
            d = f[t["path"]]
            units = dict(zip(d.dtype.names, d.attrs["column_units"]))
            descs = dict(zip(d.dtype.names, d.attrs["column_descriptions"]))
            for m in t["members"]:
                same &= units[m["name"]] == m["units"] and descs[m["name"]] == m["description"]
        check(same, "%s: the written column attributes are the schema's" % os.path.basename(path))
    r = subprocess.run([scal, "check", path], capture_output=True, text=True)
    check(r.returncode == 0, "scal check accepts %s: %s" % (os.path.basename(path), r.stdout.strip()))


def mutate(name, fn):
    path = os.path.join(work, name + ".h5")
    shutil.copy(camp, path)
    with h5py.File(path, "r+") as f:
        fn(f)
    return subprocess.run([scal, "check", path], capture_output=True, text=True)


def set_attr(f, table, attr, member, value):
    d = f[table]
    v = list(d.attrs[attr])
    v[list(d.dtype.names).index(member)] = value
    d.attrs[attr] = np.array(v, dtype=h5py.string_dtype())


r = mutate("units", lambda f: set_attr(f, "runs", "column_units", "wall_s", "ms"))
check(r.returncode == 1 and "/runs member 'wall_s': column_units is 'ms', the schema says 's'" in r.stdout,
      "a wrong unit is named: %r" % r.stdout.strip())
r = mutate("description", lambda f: set_attr(f, "region_stats", "column_descriptions", "imbalance", "?"))
check(r.returncode == 1 and "/region_stats member 'imbalance': column_descriptions is '?'" in r.stdout,
      "a wrong description is named: %r" % r.stdout.strip())


def older_texts(f):  # what files written before the descriptions were corrected say
    set_attr(f, "region_stats", "column_descriptions", "imbalance", "load imbalance: thread_work_max_s / thread_work_mean_s - 1")
    set_attr(f, "region_stats", "column_descriptions", "region", "region id (joinable with /regions.id), -1: the whole run")


r = mutate("older", older_texts)
check(r.returncode == 0, "the descriptions earlier versions wrote stay valid: %r" % r.stdout.strip())


def bad_enum(f):
    d = f["runs"]
    rows, attrs = d[...], dict(d.attrs)
    bogus = h5py.enum_dtype(dict(STATUS, crashed=9), basetype="u1")
    dt = np.dtype([(n, bogus if n == "status" else rows.dtype[n]) for n in rows.dtype.names])
    new = np.zeros(rows.shape, dt)
    for n in rows.dtype.names:
        new[n] = rows[n]
    del f["runs"]
    nd = f.create_dataset("runs", data=new, maxshape=(None,), chunks=True)
    for k, v in attrs.items():
        nd.attrs[k] = v


r = mutate("enum", bad_enum)
check(r.returncode == 1 and "/runs member 'status': enum of 7 names, the schema lists 6" in r.stdout and
      "enum name 'crashed' = 9 is not in the schema" in r.stdout, "an enum beyond the schema is named: %r"
      % r.stdout.strip())
finish()
