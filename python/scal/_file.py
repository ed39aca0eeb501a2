# SPDX-License-Identifier: BSD-3-Clause
# Opening a scal file: validated first by scal's own validator (`scal check --json`, in its own
# process: HDF5 can crash or allocate gigabytes on a damaged file), then read through h5py; anything
# wrong is a ScalFileError naming the file.
import errno
import json
import os
import shutil
import subprocess

import h5py
import numpy as np

FORMAT_RUN = "scal-run"
FORMAT_CAMPAIGN = "scal-campaign"
SCHEMA_VERSION = 1

# enum scal_region_kind and enum scal_run_status (common/layout.h), by value.
KIND_NAMES = ("root", "parallel", "serial", "user", "task")
STATUS_NAMES = ("ok", "failed", "signaled", "timeout", "launch-error", "no-data")


class ScalFileError(ValueError):
    """A file that is not a scal run or campaign file, or one whose tables are inconsistent.

    ``path`` is the file; the message names it too."""

    def __init__(self, path, what):
        super().__init__("%s: %s" % (path, what))
        self.path = path


def _scal_executable():
    """scal: $SCAL_EXECUTABLE, the install tree this package is in (PREFIX/bin/scal), or $PATH."""
    env = os.environ.get("SCAL_EXECUTABLE")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))  # PREFIX/lib/python3/dist-packages/scal
    installed = os.path.normpath(os.path.join(here, "..", "..", "..", "..", "bin", "scal"))
    if os.access(installed, os.X_OK):
        return installed
    return shutil.which("scal")


def validate(path):
    """Runs scal's validator on path (the checks every scal reader makes); raises ScalFileError with
    its first problems when the file is damaged or not a scal file."""
    exe = _scal_executable()
    if not exe:
        raise ScalFileError(path, "cannot validate it: scal is not found (set SCAL_EXECUTABLE to the scal program, or put it on PATH)")
    try:
        p = subprocess.run([exe, "check", "--json", "--", path], capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL)
    except OSError as e:
        raise ScalFileError(path, "cannot validate it: cannot run %s (%s)" % (exe, e)) from None
    try:
        verdict = json.loads(p.stdout)[0]
        ok, problems = bool(verdict["ok"]), [str(x) for x in verdict["problems"]]
    except (ValueError, IndexError, KeyError, TypeError):
        raise ScalFileError(path, "cannot validate it: %s check ended with status %d (%s)" % (exe, p.returncode, p.stderr.strip()[-300:])) from None
    if ok and p.returncode == 0:
        return
    more = " (and %d more problems: scal check %s lists them)" % (len(problems) - 1, path) if len(problems) > 1 else ""
    first = problems[0] if problems else "rejected by scal check"
    for prefix in (path + ": ", "'%s': " % path):  # the file is named once, by ScalFileError
        if first.startswith(prefix):
            first = first[len(prefix):]
    raise ScalFileError(path, first + more)


def shown_labels(path):
    """The region labels scal's C readers show for path, in /regions row order, from ``scal show
    --table labels``: how files written before labels were stored (no /regions member ``label``)
    are read, through scal's one label rule. Raises ScalFileError when scal cannot say."""
    exe = _scal_executable()
    if not exe:
        raise ScalFileError(path, "its region labels are not stored (a file from before labels were stored) and scal, which derives them, is not found (set SCAL_EXECUTABLE to the scal program, or put it on PATH)")
    try:
        p = subprocess.run([exe, "show", os.path.abspath(path), "--table", "labels", "--json"], capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL)
    except OSError as e:
        raise ScalFileError(path, "its region labels are not stored and %s, which derives them, cannot run (%s)" % (exe, e)) from None
    try:
        rows = json.loads(p.stdout) if p.returncode == 0 else None
        return [str(r["label"]) for r in sorted(rows, key=lambda r: int(r["id"]))]
    except (ValueError, KeyError, TypeError):
        raise ScalFileError(path, "its region labels are not stored and %s show --table labels ended with status %d (%s)" % (exe, p.returncode, p.stderr.strip()[-300:])) from None


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class ScalFile:
    """An open scal file: ``format`` is FORMAT_RUN or FORMAT_CAMPAIGN, ``strings`` the /strings table
    as a numpy array of str with one extra "" at the end (see ``text``)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        if not os.path.exists(self.path):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), self.path)
        validate(self.path)
        try:
            self.h5 = h5py.File(self.path, "r")
        except (OSError, ValueError) as e:
            raise ScalFileError(self.path, "not an HDF5 file scal can open (%s)" % e) from None
        try:
            self._check()
            strings = self._read(lambda: self.h5["strings"].asstr()[()] if "strings" in self.h5 else [])
            self.strings = np.array([s if s is not None else "" for s in strings] + [""], dtype=object)
        except BaseException:
            self.h5.close()
            raise

    def _read(self, what):
        """what() with h5py's errors on a file changed since it was validated as ScalFileError."""
        try:
            return what()
        except ScalFileError:
            raise
        except (OSError, KeyError, ValueError, TypeError, IndexError, MemoryError, RuntimeError) as e:
            raise ScalFileError(self.path, "cannot be read (%s: %s)" % (type(e).__name__, e)) from None

    def _check(self):
        self._read(self._check_root)

    def _check_root(self):
        fmt = self.h5.attrs.get("scal_format")
        if fmt is None:
            raise ScalFileError(self.path, "not a scal file (no root attribute scal_format)")
        self.format = _text(fmt)
        if self.format not in (FORMAT_RUN, FORMAT_CAMPAIGN):
            raise ScalFileError(self.path, "unknown scal_format %r (expected %r or %r)" % (self.format, FORMAT_RUN, FORMAT_CAMPAIGN))
        version = int(self.h5.attrs.get("scal_schema_version", -1))
        if version != SCHEMA_VERSION:
            raise ScalFileError(self.path, "schema version %d; this package reads version %d" % (version, SCHEMA_VERSION))
        need = ["regions"] + (["configs", "runs", "region_stats"] if self.format == FORMAT_CAMPAIGN else [])
        for name in need:
            if name not in self.h5:
                raise ScalFileError(self.path, "a %s file without /%s" % (self.format, name))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.h5.close()

    @property
    def is_campaign(self):
        return self.format == FORMAT_CAMPAIGN

    def table(self, name):
        """The dataset ``name`` as a numpy structured array (empty when the file has none)."""
        return self._read(lambda: self.h5[name][()] if name in self.h5 else None)

    def text(self, indices):
        """Decodes string indices (any integer array) into a numpy object array of str; an index
        outside /strings is "" (as scal's C readers do)."""
        idx = np.asarray(indices, dtype=np.int64)
        n = len(self.strings) - 1
        return self.strings[np.where((idx >= 0) & (idx < n), idx, n)]

    def str_list(self, name):
        """A 1-D string dataset as a list of str ([] when absent)."""
        return self._read(lambda: [_text(s) for s in self.h5[name][()]] if name in self.h5 else [])

    def attrs(self, group):
        """The attributes of ``group`` as a dict of Python values ({} when absent)."""
        return self._read(lambda: {k: (_text(v) if isinstance(v, (bytes, str)) else v) for k, v in self.h5[group].attrs.items()} if group in self.h5 else {})
