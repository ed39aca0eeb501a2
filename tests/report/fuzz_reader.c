// SPDX-License-Identifier: BSD-3-Clause
// Deterministic mutation fuzzing of every reader of scal files: a fixed number of mutants (bits
// flipped, truncated, bytes overwritten) from a fixed seed, each read in its own child process by
// the reader itself (campaign loader, run-file reader, `scal merge`, `scal run --resume`), with no
// guard between the reader and the signal: a child that dies of a signal is a crash, and there
// must be none. The unmutated file must load, so a reader that fails on everything fails here.
//
//   fuzz_reader campaign|run|merge|resume SEED.h5 WORKDIR COUNT [SCAL]
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign_writer.h"
#include "errmsg.h"
#include "report.h"

static const char *kind, *scal, *work;

/* The reader, in the child: 0 loaded, 1 refused cleanly. */
static int read_file(const char *path, unsigned n)
{
    if (!strcmp(kind, "campaign")) {
        struct pp_campaign c;
        const char *files[] = {path};
        int rc = pp_campaign_load(&c, files, 1);
        if (rc == 0) pp_campaign_free(&c);
        return rc == 0 ? 0 : 1;
    }
    if (!strcmp(kind, "run")) {
        struct scal_cw_payload p;
        int rc = scal_cw_payload_from_run_file(path, &p);
        if (rc == 0) scal_cw_payload_free(&p);
        return rc == 0 ? 0 : 1;
    }
    /* merge and resume: the scal program itself, exec'd in this child */
    char out[1200];
    snprintf(out, sizeof(out), "%s/merged-%u.h5", work, n);
    unlink(out);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0), dup2(null, 1), dup2(null, 2);
    if (!strcmp(kind, "merge"))
        execl(scal, scal, "merge", path, "-o", out, (char *)NULL);
    else
        execl(scal, scal, "run", "--resume", path, "--dry-run", "-q", (char *)NULL);
    _exit(127);
}

/* -1: killed by a signal, else the child's exit status. */
static int in_child(const char *path, unsigned n)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(read_file(path, n));
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

static int write_file(const char *path, const unsigned char *b, long n)
{
    FILE *o = fopen(path, "wb");
    if (!o) return -1;
    size_t w = fwrite(b, 1, (size_t)n, o);
    return fclose(o) == 0 && w == (size_t)n ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 5 ||
        (strcmp(argv[1], "campaign") && strcmp(argv[1], "run") && strcmp(argv[1], "merge") &&
         strcmp(argv[1], "resume")) ||
        (argc < 6 && (!strcmp(argv[1], "merge") || !strcmp(argv[1], "resume")))) {
        fprintf(stderr,
                "usage: fuzz_reader campaign|run|merge|resume SEED.h5 WORKDIR COUNT [SCAL]\n");
        return 2;
    }
    kind = argv[1], work = argv[3], scal = argc > 5 ? argv[5] : "";
    unsigned count = (unsigned)atoi(argv[4]);
    FILE *f = fopen(argv[2], "rb");
    if (!f) return 2;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n), *mut = malloc((size_t)n);
    if (!buf || !mut || n <= 0 || fread(buf, 1, (size_t)n, f) != (size_t)n) return 2;
    fclose(f);
    char path[1024];
    snprintf(path, sizeof(path), "%s/mutant-%s.h5", work, kind);
    if (write_file(path, buf, n) < 0 || in_child(path, 0) != 0) {
        printf("FAIL: fuzz_reader %s: the unmutated file %s does not load\n", kind, argv[2]);
        return 1;
    }
    unsigned seed = 12345, crashes = 0, loaded = 0;
    for (unsigned it = 1; it <= count; it++) {
        memcpy(mut, buf, (size_t)n);
        long len = n;
        int how = rand_r(&seed) % 3;
        if (how == 0)
            for (int k = 0; k < 1 + rand_r(&seed) % 8; k++)
                mut[rand_r(&seed) % n] ^= (unsigned char)(1u << (rand_r(&seed) % 8));
        else if (how == 1)
            len = rand_r(&seed) % n;
        else {
            long at = rand_r(&seed) % n;
            for (long k = at; k < n && k < at + 64; k++)
                mut[k] = (unsigned char)rand_r(&seed);
        }
        if (write_file(path, mut, len) < 0) return 2;
        int st = in_child(path, it);
        if (st < 0) {
            char keep[1100];
            snprintf(keep, sizeof(keep), "%s/crash-%s-%u.h5", work, kind, it);
            rename(path, keep);
            printf("fuzz_reader %s: mutant %u killed by signal %d (kept as %s)\n", kind, it, -st,
                   keep);
            crashes++;
        }
        loaded += st == 0;
    }
    printf("fuzz_reader %s: %u mutants, %u still loadable, %u crashes\n", kind, count, loaded,
           crashes);
    return crashes ? 1 : 0;
}
