# SPDX-License-Identifier: BSD-3-Clause
# scal report loads its plugins through the one loader: broken report plugins (operation table of
# size 0 or too small) are noted by file and reason and the report goes on; sensors and actuators
# in the same directory are skipped silently; a report plugin's option comes from its default,
# SCAL_<PLUGIN>_<OPTION> and --plugin-opt (which wins), and unknown ones are refused.
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check  # noqa: E402  (tests/scal_check.py)

scal, gen, fixtures, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
camp = os.path.join(work, "c.h5")
subprocess.run([gen, camp, "--inputs", "2", "--threads", "2"], check=True)


def report(*extra, env=None, want=0):
    cmd = [scal, "report", camp, "-o", os.path.join(work, "out"), "--no-write",
           "--plugin-dir", fixtures, "--only", "pp_opt"] + list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    check(p.returncode == want, "%s: exit %d, wanted %d (%s)" % (" ".join(extra), p.returncode, want, p.stderr[-2000:]))
    return p.stderr


err = report()
check(re.search(r"was not loaded: '.*libscal_pp_zeroops.so': scal_plugin_entry\(\)->postproc operation "
                r"table of plugin 'pp_zeroops' is 0 bytes", err), "a table of size 0 is noted by file and reason")
check(re.search(r"was not loaded: '.*libscal_pp_small.so': .*too small to hold run", err),
      "a table too small for run is noted")
check("note: pp_opt greeting=hello sysfs_root=/\n" in err, "the option's default reaches the plugin")
check(not re.search(r"libscal_(counting|minact|smalldesc|oldops)\.so", err),
      "sensors and actuators in the directory are skipped silently")
check("note: pp_opt greeting=env " in report(env={"SCAL_PP_OPT_GREETING": "env"}),
      "SCAL_<PLUGIN>_<OPTION> sets a report plugin's option")
check("note: pp_opt greeting=cli " in report("--plugin-opt", "pp_opt.greeting=cli", env={"SCAL_PP_OPT_GREETING": "env"}),
      "--plugin-opt wins over the environment")
check("sysfs_root=/x\n" in report(env={"SCAL_SYSFS_ROOT": "/x"}), "SCAL_SYSFS_ROOT reaches report plugins too")
check("plugin 'pp_opt' has no option 'nosuch'" in report("--plugin-opt", "pp_opt.nosuch=1", want=1),
      "an unknown option is refused")
check("'nosuch.x=1': no post-processing plugin of that name" in report("--plugin-opt", "nosuch.x=1", want=1),
      "an option of an unknown plugin is refused")
check("use PLUGIN.OPTION=VALUE" in report("--plugin-opt", "greeting", want=2), "bad --plugin-opt syntax")
p = subprocess.run([scal, "report", "--list", "--plugin-dir", fixtures], capture_output=True, text=True)
check(p.returncode == 0 and "option greeting (default hello)" in p.stdout, "--list shows a plugin's options")
print("all report plugin loading checks passed")
