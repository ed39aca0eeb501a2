#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fails when the C files of a folder include or call each other in a loop.

Usage: check-circles.py [--dot] DIR...

One node per file. An edge A -> B when A
  - includes B (a "b.h" found in DIR), or
  - calls a function that B defines: a non-static function of a .c file, or any function with a
    body in a header (an inline). A call that A itself or a header it includes (directly or not) defines goes
    there (the #ifdef'd twins of the writer library are not calls across). An inline of x.h
    calling into x.c is no edge: a header and its implementation are one unit.
Declarations are not edges. Comments, strings and preprocessor lines other than #include are
ignored, and every #if branch is read. Prints each cycle found (strongly connected component of
more than one file) and exits 1; exits 0 when the graph is acyclic.
"""
import os
import re
import sys

ATTR = re.compile(r"__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)")
IDENT_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "_Alignof", "_Static_assert",
            "__builtin_expect", "defined", "_Generic", "typeof", "__typeof__", "alignof"}


def strip(text):
    """Comments and string/char literals blanked; preprocessor lines (with continuations) dropped;
    returns (code, includes)."""
    out, includes, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        elif c == "#" and (i == 0 or text[text.rfind("\n", 0, i) + 1:i].strip() == ""):
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] != "\\":
                    break
                j = k + 1
            line = text[i:k]
            m = re.match(r'#\s*include\s*"([^"]+)"', line)
            if m:
                includes.append(m.group(1))
            out.append("\n")
            i = k + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), includes


def functions(code):
    """[(name, is_static, body)] of the function definitions at file scope."""
    found, depth, start, head = [], 0, 0, 0
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                start, header = i, ATTR.sub(" ", code[head:i])
                body_head = header
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                m = re.search(r"([A-Za-z_]\w*)\s*\(", body_head)
                if m and "=" not in body_head[:m.start()]:
                    static = re.search(r"\bstatic\b", body_head[:m.start()]) is not None
                    found.append((m.group(1), static, code[start:i + 1]))
                head = i + 1
        elif c == ";" and depth == 0:
            head = i + 1
    return found


def module(path):
    return os.path.basename(path)


def same_unit(a, b):
    """x.h -> x.c: a header's inline calling its own implementation."""
    return a.endswith(".h") and b.endswith(".c") and a[:-2] == b[:-2]


def graph(dirs):
    files = {}
    for d in dirs:
        for root, _, names in os.walk(d):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    p = os.path.join(root, name)
                    with open(p, encoding="utf-8", errors="replace") as f:
                        files[p] = strip(f.read())
    by_name = {os.path.basename(p): p for p in files}
    defs, bodies = {}, {}
    for p, (code, _) in files.items():
        fns = functions(code)
        bodies[p] = fns
        for name, static, _ in fns:
            if p.endswith(".h") or not static:
                defs.setdefault(name, set()).add(module(p))
    edges = {module(p): set() for p in files}
    for p, (code, includes) in files.items():
        me = module(p)
        near, todo = {me}, [p]
        while todo:  # the headers it includes, directly or through other headers
            for h in files[todo.pop()][1]:
                q = by_name.get(os.path.basename(h))
                if q and module(q) not in near:
                    near.add(module(q))
                    todo.append(q)
        for h in includes:
            if os.path.basename(h) in by_name:
                edges[me].add(module(by_name[os.path.basename(h)]))
        for _, _, body in bodies[p]:
            for name in set(IDENT_CALL.findall(body)) - KEYWORDS:
                targets = defs.get(name, set())
                local = targets & near
                edges[me] |= local if local else targets
        edges[me] = {b for b in edges[me] if b != me and not same_unit(me, b)}
    return edges


def cycles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main(argv):
    dot = "--dot" in argv
    dirs = [a for a in argv if a != "--dot"]
    if not dirs:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for d in dirs:
        if not os.path.isdir(d):
            print(f"check-circles: {d}: not a directory", file=sys.stderr)
            return 2
    edges = graph(dirs)
    if dot:
        print("digraph circles {")
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(f'  "{a}" -> "{b}";')
        print("}")
    found = cycles(edges)
    for comp in found:
        inner = [f"{a} -> {b}" for a in comp for b in sorted(edges[a]) if b in comp]
        print(f"check-circles: cycle among {', '.join(comp)}: {'; '.join(inner)}", file=sys.stderr)
    if not found:
        print(f"check-circles: {len(edges)} files in {' '.join(dirs)}, no cycle")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
