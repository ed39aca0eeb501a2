#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Writes the man page scal(1) from the help texts themselves (scal --help, scal COMMAND --help), so
# the page never says something --help does not: gen_man.py SCAL OUT.1 [EMULATOR...] (a cross
# build runs SCAL under its emulator, e.g. qemu-aarch64-static -L SYSROOT)
import datetime
import os
import re
import subprocess
import sys

scal, out = sys.argv[1:3]
emulator = sys.argv[3:]


def run(*args):
    p = subprocess.run([*emulator, scal, *args], capture_output=True, text=True, timeout=60)
    # where this build's tool is says nothing about an installed one
    return re.sub(r"OMP_TOOL_LIBRARIES=/\S*/libscal_ompt\.so", "OMP_TOOL_LIBRARIES=PREFIX/lib/libscal_ompt.so", p.stdout)


def roff(text):
    """Plain text as roff: escapes, and lines that would start a request made safe."""
    lines = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e").replace("-", "\\-")
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


top = run("--help")
version = run("--version").split()[1]
commands = re.findall(r"^  (\w+)\s+(.*)$", top.split("commands:")[1].split("\n\n")[0], re.M)
date = datetime.datetime.utcfromtimestamp(int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or
                                          os.path.getmtime(scal)).strftime("%Y-%m-%d")
page = ['.TH SCAL 1 "%s" "scal %s" "User Commands"' % (date, version),
        ".SH NAME", "scal \\- scalability analysis of OpenMP programs and of each of their parallel regions",
        ".SH SYNOPSIS", ".B scal", ".I command", "[options] ...", ".br", ".B scal", "\\-\\-version | \\-V | \\-\\-help",
        ".SH DESCRIPTION", ".nf", roff(top), ".fi", ".SH COMMANDS"]
for name, summary in commands:
    page += [".SS scal %s" % name, roff(summary), ".PP", ".nf", roff(run(name, "--help")), ".fi"]
page += [".SH EXIT STATUS", "0 success, 1 a failure (named on standard error), 2 a usage error.",
         ".SH SEE ALSO", "The README and schemas/ of the source tree; scal <command> \\-\\-help."]
with open(out + ".tmp", "w") as f:
    f.write("\n".join(page) + "\n")
os.replace(out + ".tmp", out)
