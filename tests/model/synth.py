# SPDX-License-Identifier: BSD-3-Clause
# Synthetic campaigns of known laws for the model tests and the bench: PaScal Viewer JSON (one
# region per law), turned into campaign files by `scal import`; sizes are the numeric input labels.
import json, math, random, subprocess

THREADS = [1, 2, 3, 4, 5, 6, 7, 8]
SIZES = [1000, 2000, 4000, 8000]

# law(n, p) -> seconds; every law but "saturation" and "noise" is in the search space
LAWS = {
    "linear": lambda n, p: 2e-4 * n / p,
    "amdahl": lambda n, p: 1e-4 * n * (0.1 + 0.9 / p),
    "logp": lambda n, p: 1e-4 * n / p + 0.02 * math.log2(p),
    "nlogn": lambda n, p: 1e-5 * n * math.log2(n) / p,
    "usl": lambda n, p: 1e-4 * n * (1 + 0.05 * (p - 1) + 0.002 * p * (p - 1)) / p,
    "saturation": lambda n, p: 1e-4 * n / min(p, 4),
}


def campaign_json(laws, reps=3, noise=0.0, seed=1, threads=THREADS, sizes=SIZES, pure_noise=(),
                  skip=(), labels=None):
    """One region per law (its name is the region's file name); multiplicative noise per
    repetition; regions in pure_noise are uniform noise around 1 s with no law at all; the
    configurations (n, p) in skip are left out (held out); labels: the input labels (default:
    the sizes as numbers)."""
    rnd = random.Random(seed)
    regions = []
    for i, name in enumerate(list(laws) + list(pure_noise)):
        execs = []
        for n in sizes:
            runs = []
            for p in threads:
                if (n, p) in skip:
                    continue
                for k in range(reps):
                    if name in pure_noise:
                        t = rnd.uniform(0.3, 1.7)
                    else:
                        t = LAWS[name](n, p) * (1 + noise * rnd.gauss(0, 1))
                    runs.append({"threads": p, "time": max(t, 1e-9)})
            label = labels[sizes.index(n)] if labels else str(n)
            execs.append({"argument": label, "runs": runs})
        regions.append({"region": f"{10 * i + 10}, {10 * i + 15}", "filename": f"{name}.c",
                        "executions": [execs]})
    return regions


def make_campaign(scal, path_json, path_h5, regions):
    with open(path_json, "w") as f:
        json.dump(regions, f)
    r = subprocess.run([scal, "import", path_json, "-o", path_h5, "--force"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
