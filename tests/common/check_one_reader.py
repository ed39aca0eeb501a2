# SPDX-License-Identifier: BSD-3-Clause
# One reader of run and campaign files into memory (issue 26): scal show, export, report and model
# read a file's tables through common/campaign_reader.c only, and a run file's thread count has
# one derivation (scal_format_run_threads, called by that reader only). Fails, naming file and
# line, when another file of cli/ or postproc/ reads one of those tables or opens a file itself,
# or when anything else derives the thread count.
#
#   check_one_reader.py SOURCE_ROOT
import os
import re
import sys

READER = "common/campaign_reader.c"
# the tables the one reader holds in memory (layout.h's scal_table_<name>)
TABLES = ("configs", "runs", "campaign_regions", "run_regions", "region_stats", "thread_stats",
          "run_sensor_values", "sensor_values", "plugin_states", "config_ranks",
          "rank_region_stats", "region_rank_summary", "trace_instances", "trace_states")
READ_CALLS = re.compile(r"\b(scal_table_read|scal_table_read_opt|scal_table_read_run_rows|"
                        r"scal_h5_read_table|scal_h5_read_strings)\s*\(")
# files of cli/ and postproc/ that open files for another purpose than reading them into memory
OPENS_ALLOWED = {
    "cli/cmd_check.c": "scal check: the validator's report on a file, no table in memory",
    "postproc/plugins/h5out.c": "writes the analysis file and joins it to the campaign's /regions",
    "postproc/model/region.c": "the inputs' sizes of the report's sources (a plugin's host "
                               "does not hand them over yet)",
}
READS_ALLOWED = {
    READER: "the one reader",
    "postproc/plugins/h5out.c": OPENS_ALLOWED["postproc/plugins/h5out.c"],
    "postproc/model/region.c": OPENS_ALLOWED["postproc/model/region.c"],
}


def strip_comments(text):
    """C comments replaced by spaces, newlines kept (line numbers stay right)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def call_args(text, start):
    """The text of a call's arguments from the '(' at start to its matching ')'."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    return text[start + 1:]


def sources(root, folders):
    for folder in folders:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, root), path


def main():
    root = sys.argv[1]
    problems = []
    table_names = "|".join(TABLES)
    names_table = re.compile(r"&\s*scal_table_(%s)\b|scal_table_(%s)\.name|\"(campaign/)?(%s|inputs)\""
                             % (table_names, table_names, table_names))
    for rel, path in sources(root, ("cli", "postproc")):
        text = strip_comments(open(path, encoding="utf-8").read())
        line = lambda pos: text.count("\n", 0, pos) + 1  # noqa: E731
        if rel not in READS_ALLOWED:
            for m in READ_CALLS.finditer(text):
                args = call_args(text, m.end() - 1)
                hit = names_table.search(args)
                if hit:
                    problems.append("%s:%d: %s reads %s: a second reader of a file into memory "
                                    "(read it through %s)" % (rel, line(m.start()), m.group(1),
                                                              hit.group(0), READER))
        if rel not in OPENS_ALLOWED:
            for m in re.finditer(r"\bscal_h5file_open\s*\(", text):
                problems.append("%s:%d: opens a run or campaign file itself (read it through %s)"
                                % (rel, line(m.start()), READER))
    # the thread count of a run file: one rule (scal_format.c), one caller (the reader)
    for rel, path in sources(root, ("cli", "postproc", "common", "runner", "plugins", "python")):
        if rel in (READER, "common/scal_format.c", "common/scal_format.h"):
            continue
        text = strip_comments(open(path, encoding="utf-8").read())
        for m in re.finditer(r"\bscal_format_run_threads\s*\(|\"requested_threads\"", text):
            problems.append("%s:%d: derives a run file's thread count (only %s calls "
                            "scal_format_run_threads)" % (rel, text.count("\n", 0, m.start()) + 1,
                                                          READER))
    for p in problems:
        print(p)
    if problems:
        print("%d places read run or campaign files beside the one reader" % len(problems))
        return 1
    print("one reader: %s" % READER)
    return 0


if __name__ == "__main__":
    sys.exit(main())
