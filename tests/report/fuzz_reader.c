// SPDX-License-Identifier: BSD-3-Clause
// Deterministic mutation fuzzing of the campaign reader: flips, truncates and overwrites bytes of
// a valid campaign file and loads each mutant in a child process; no child may die of a signal.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "report.h"

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n), *mut = malloc(n);
    if (fread(buf, 1, n, f) != (size_t)n) return 2;
    fclose(f);
    char path[1024];
    snprintf(path, sizeof(path), "%s/mutant.h5", argv[2]);
    double limit = atof(argv[3]);
    unsigned seed = 12345;
    time_t start = time(NULL);
    size_t iters = 0, ok = 0;
    while (difftime(time(NULL), start) < limit && iters < 100000) {
        memcpy(mut, buf, n);
        long len = n;
        int kind = rand_r(&seed) % 3;
        if (kind == 0)
            for (int k = 0; k < 1 + rand_r(&seed) % 8; k++)
                mut[rand_r(&seed) % n] ^= 1u << (rand_r(&seed) % 8);
        else if (kind == 1)
            len = rand_r(&seed) % n;
        else {
            long at = rand_r(&seed) % n;
            for (long k = at; k < n && k < at + 64; k++)
                mut[k] = (unsigned char)rand_r(&seed);
        }
        FILE *o = fopen(path, "wb");
        fwrite(mut, 1, len, o);
        fclose(o);
        /* One child per mutant, so that a crash the safe open missed shows as a signal. */
        pid_t pid = fork();
        if (pid == 0) {
            struct pp_campaign c;
            const char *files[] = {path};
            int rc = pp_campaign_load(&c, files, 1);
            if (rc == 0) pp_campaign_free(&c);
            _exit(rc == 0 ? 0 : 1);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFSIGNALED(status)) {
            char keep[1100];
            snprintf(keep, sizeof(keep), "%s/crash-%zu.h5", argv[2], iters);
            rename(path, keep);
            printf("fuzz_reader: mutant %zu killed by signal %d (kept as %s)\n", iters,
                   WTERMSIG(status), keep);
            return 1;
        }
        ok += WEXITSTATUS(status) == 0;
        iters++;
    }
    printf("fuzz_reader: %zu mutants, %zu still loadable, no crash\n", iters, ok);
    return iters > 0 ? 0 : 1;
}
