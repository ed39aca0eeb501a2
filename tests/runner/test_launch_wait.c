// SPDX-License-Identifier: BSD-3-Clause
// The runner's wait for a run (runner/launch.c) is driven by events: a program whose child outlives
// it is waited for until that child ends, with a handful of wake-ups (a polling wait wakes every
// few milliseconds); a timeout stops the group; a crash of another process of the group is said.
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch.h"
#include "scal_test.h"

/* Wake-ups a run may take without polling: SIGCHLD per process, end of file on each output pipe,
 * a little output, and the deadlines; a 20 ms (or 1 ms) polling period over the 300 ms of the
 * first case would take 15 (or 300). */
#define MAX_WAKEUPS 8

static int run(const char *script, double timeout_s, struct scal_run_result *r)
{
    char *const argv[] = {"/bin/sh", "-c", (char *)script};
    struct scal_run_launch l;
    int rc = scal_launch_init(&l, argv, 3);
    if (rc == SCAL_OK) rc = scal_launch_run(&l, timeout_s, NULL, r);
    scal_launch_free(&l);
    return rc;
}

int main(void)
{
    char dir[] = "/tmp/scal-launch-wait-XXXXXX", mark[64], script[512];
    struct scal_run_result r;
    struct stat st;
    CHECK(mkdtemp(dir) != NULL);
    snprintf(mark, sizeof(mark), "%s/mark", dir);

    /* the program ends at once; its child, without the output pipes, ends 0.3 s later */
    snprintf(script, sizeof(script),
             "(exec >/dev/null 2>&1 </dev/null; sleep 0.3; : > %s) & echo started", mark);
    CHECK(run(script, 0, &r) == SCAL_OK);
    CHECK(r.exit_code == 0 && !r.timed_out && !r.launch_failed, "exit %d", r.exit_code);
    CHECK(stat(mark, &st) == 0, "the run ended before the program's child");
    CHECK(r.wakeups <= MAX_WAKEUPS, "%u wake-ups: the wait polls", r.wakeups);
    CHECK(strstr(r.stdout_tail, "started") != NULL, "stdout tail '%s'", r.stdout_tail);
    unlink(mark);

    /* the same with the child holding the output pipes open */
    snprintf(script, sizeof(script), "(sleep 0.3; : > %s) & exit 3", mark);
    CHECK(run(script, 0, &r) == SCAL_OK);
    CHECK(r.exit_code == 3, "exit %d", r.exit_code);
    CHECK(stat(mark, &st) == 0, "the run ended before the program's child");
    CHECK(r.wakeups <= MAX_WAKEUPS, "%u wake-ups: the wait polls", r.wakeups);
    unlink(mark);

    /* a timeout stops the whole group (SIGTERM) at its deadline, not at a polling period */
    CHECK(run("sleep 30 & sleep 30", 0.2, &r) == SCAL_OK);
    CHECK(r.timed_out && r.signal == SIGTERM, "timed out %d, signal %d", r.timed_out, r.signal);
    CHECK(r.wakeups <= MAX_WAKEUPS, "%u wake-ups: the wait polls", r.wakeups);

    /* another process of the group crashes (as the tool's writer did): said in the stderr tail */
    CHECK(run("(exec sh -c 'kill -SEGV $$') & exit 0", 0, &r) == SCAL_OK);
    CHECK(r.exit_code == 0 && r.others_killed == 1, "exit %d, %u crashed", r.exit_code,
          r.others_killed);
    CHECK(strstr(r.stderr_tail, "scal: process ") && strstr(r.stderr_tail, "signal 11"),
          "stderr tail '%s'", r.stderr_tail);
    CHECK(r.wakeups <= MAX_WAKEUPS, "%u wake-ups: the wait polls", r.wakeups);

    rmdir(dir);
    return scal_test_result("test_launch_wait");
}
