# SPDX-License-Identifier: BSD-3-Clause
# Opening a scal file: telling run files from campaigns, refusing anything else with the file's name
# in the message, and reading tables and the string table.
import errno
import os

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


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class ScalFile:
    """An open scal file: ``format`` is FORMAT_RUN or FORMAT_CAMPAIGN, ``strings`` the /strings table
    as a numpy array of str with one extra "" at the end (see ``text``)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        if not os.path.exists(self.path):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), self.path)
        try:
            self.h5 = h5py.File(self.path, "r")
        except OSError as e:
            raise ScalFileError(self.path, "not an HDF5 file scal can open (%s)" % e) from None
        try:
            self._check()
            strings = self.h5["strings"].asstr()[()] if "strings" in self.h5 else []
            self.strings = np.array([s if s is not None else "" for s in strings] + [""], dtype=object)
        except BaseException:
            self.h5.close()
            raise

    def _check(self):
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
        if name not in self.h5:
            return None
        return self.h5[name][()]

    def text(self, indices):
        """Decodes string indices (any integer array) into a numpy object array of str; an index
        outside /strings is "" (as scal's C readers do)."""
        idx = np.asarray(indices, dtype=np.int64)
        n = len(self.strings) - 1
        return self.strings[np.where((idx >= 0) & (idx < n), idx, n)]

    def str_list(self, name):
        """A 1-D string dataset as a list of str ([] when absent)."""
        if name not in self.h5:
            return []
        return [_text(s) for s in self.h5[name][()]]

    def attrs(self, group):
        """The attributes of ``group`` as a dict of Python values ({} when absent)."""
        if group not in self.h5:
            return {}
        return {k: (_text(v) if isinstance(v, (bytes, str)) else v) for k, v in self.h5[group].attrs.items()}
