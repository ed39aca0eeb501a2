// SPDX-License-Identifier: BSD-3-Clause
// A program that overwrites its options in main, as some benchmark suites do ("-n 30 -c" becomes
// "-* 30 -*" in /proc/self/cmdline), before its first parallel region (check_argv.py).
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-') memset(argv[i] + 1, '*', strlen(argv[i] + 1));
    int n = 0;
#pragma omp parallel reduction(+ : n)
    n += 1;
    printf("%d\n", n);
    return 0;
}
