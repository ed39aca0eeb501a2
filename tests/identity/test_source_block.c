// SPDX-License-Identifier: BSD-3-Clause
// Unit test of ompt_tool/identify/source_block.c: the last line of a directive's structured block.
#include <stdio.h>
#include <string.h>

#include "source_block.h"

static int failures;

static void expect(const char *what, const char *text, int pragma_line, int want)
{
    int got = scal_source_block_last(text, strlen(text), pragma_line);
    if (got != want) {
        fprintf(stderr, "FAIL: %s: line %d gives %d, want %d\n", what, pragma_line, got, want);
        failures++;
    }
}

int main(void)
{
    expect("compound", "int x;\n#pragma omp parallel\n{\n  f();\n}\nint y;\n", 2, 5);
    expect("one statement", "#pragma omp parallel\n  f(a,\n    b);\ng();\n", 1, 3);
    expect("stacked directives", "#pragma omp parallel\n#pragma omp single\n{ f(); }\n", 1, 3);
    expect("continued directive", "#pragma omp parallel \\\n  num_threads(2)\nf();\n", 1, 3);
    expect("for loop", "#pragma omp parallel for\nfor (i = 0; i < n; i++)\n  a[i] = 0;\n", 1, 3);
    expect("for loop body", "#pragma omp for\nfor (;;) {\n  if (x) break;\n}\n", 1, 4);
    expect("if-else", "#pragma omp task\nif (a)\n  f();\nelse\n  g();\nh();\n", 1, 5);
    expect("if without else", "#pragma omp task\nif (a)\n  f();\nh();\n", 1, 3);
    expect("do-while", "#pragma omp task\ndo {\n  f();\n} while (x);\ng();\n", 1, 4);
    expect("while", "#pragma omp task\nwhile (x)\n  f();\n", 1, 3);
    expect("braces in comments and literals",
           "#pragma omp parallel\n{\n  // }\n  /* } */ s = \"}\"; c = '}';\n}\n", 1, 5);
    expect("lambda in a statement", "#pragma omp task\nrun([&] {\n  f();\n});\n", 1, 4);
    expect("nested directive inside", "#pragma omp parallel\n{\n#pragma omp task\n{ f(); }\n}\n", 1,
           5);
    expect("try-catch", "#pragma omp parallel\ntry {\n  f();\n} catch (int) {\n  g();\n}\nh();\n",
           1, 6);
    expect("not a directive", "int x;\nf();\n", 2, -1);
    expect("other pragma", "#pragma once\nf();\n", 1, -1);
    expect("no end", "#pragma omp parallel\n{\n  f();\n", 1, -1);
    expect("line beyond the text", "f();\n", 9, -1);
    if (!failures) printf("test_source_block: all passed\n");
    return failures ? 1 : 0;
}
