// SPDX-License-Identifier: BSD-3-Clause
// FILE.pieces/: what one `scal run --slurm` submission leaves for its array tasks and for the
// collection: a piece (a copy of the plan) and its slice of run slots per task, the job record,
// and the sbatch options to submit again with. Every file is created exclusively.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "campaign.h"
#include "safe_create.h"
#include "scal/status.h"
#include "slurm.h"

void scal_slurm_pieces_init(struct scal_slurm_pieces *ps, const char *campaign)
{
    memset(ps, 0, sizeof(*ps));
    snprintf(ps->dir, sizeof(ps->dir), "%s.pieces", campaign);
}

void scal_slurm_pieces_free(struct scal_slurm_pieces *ps)
{
    free(ps->arrays);
    ps->arrays = NULL;
    ps->narrays = 0;
}

int scal_slurm_array_add(struct scal_slurm_pieces *ps, const char *job, size_t first, size_t last)
{
    struct scal_slurm_array *a = realloc(ps->arrays, (ps->narrays + 1) * sizeof(*a));
    if (!a) return scal__fail(SCAL_ENOMEM, "out of memory for %zu job arrays", ps->narrays + 1);
    ps->arrays = a;
    a += ps->narrays++;
    snprintf(a->job, sizeof(a->job), "%s", job);
    a->first = first;
    a->last = last;
    size_t n = strlen(ps->job);
    if ((size_t)snprintf(ps->job + n, sizeof(ps->job) - n, "%s%s", n ? "," : "", job) >=
        sizeof(ps->job) - n)
        return scal__fail(SCAL_EINVAL, "too many job arrays (%zu) to record", ps->narrays);
    return SCAL_OK;
}

const char *scal_slurm_piece_job(const struct scal_slurm_pieces *ps, size_t i)
{
    for (size_t k = 0; k < ps->narrays; k++)
        if (i >= ps->arrays[k].first && i <= ps->arrays[k].last) return ps->arrays[k].job;
    return ps->job[0] && !strchr(ps->job, ',') ? ps->job : "none";
}

void scal_slurm_piece_path(const struct scal_slurm_pieces *ps, size_t i, const char *suffix,
                           char *out, size_t len)
{
    snprintf(out, len, "%s/piece-%04zu%s", ps->dir, i, suffix);
}

int scal_slurm_job_read(struct scal_slurm_pieces *ps)
{
    char path[sizeof(ps->dir) + 16], line[256];
    snprintf(path, sizeof(path), "%s/job", ps->dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT
                   ? SCAL_ENOENT
                   : scal__fail(SCAL_EIO, "cannot read '%s': %s", path, strerror(errno));
    int have = 0, rc = SCAL_OK;
    scal_slurm_pieces_free(ps);
    ps->job[0] = 0;
    while (rc == SCAL_OK && fgets(line, sizeof(line), f)) {
        char word[64];
        unsigned long long n, first, last;
        if (sscanf(line, "job %63s", word) == 1) {
            have |= 1; /* the ids come from the array lines (older records: this one job) */
            if (strcmp(word, "none") && !ps->narrays)
                snprintf(ps->job, sizeof(ps->job), "%s", word);
        } else if (sscanf(line, "array %31s %llu %llu", word, &first, &last) == 3) {
            if (ps->narrays == 0) ps->job[0] = 0;
            rc = scal_slurm_array_add(ps, word, (size_t)first, (size_t)last);
        } else if (sscanf(line, "pieces %llu", &n) == 1) {
            ps->npieces = (size_t)n;
            have |= 2;
        }
    }
    fclose(f);
    if (rc == SCAL_OK && have != 3)
        rc = scal__fail(SCAL_EFORMAT, "'%s' is not a job record of scal run --slurm", path);
    return rc;
}

int scal_slurm_job_write(const struct scal_slurm_pieces *ps)
{
    char path[sizeof(ps->dir) + 16];
    size_t cap = sizeof(ps->job) + 256 + ps->narrays * 80;
    char *text = malloc(cap);
    if (!text) return SCAL_ENOMEM;
    size_t used =
        (size_t)snprintf(text, cap,
                         "# scal run --slurm: the job arrays whose tasks fill the pieces "
                         "(array JOB FIRST LAST: pieces FIRST..LAST)\njob %s\npieces %zu\n",
                         ps->job[0] ? ps->job : "none", ps->npieces);
    for (size_t k = 0; k < ps->narrays; k++)
        used += (size_t)snprintf(text + used, cap - used, "array %s %zu %zu\n", ps->arrays[k].job,
                                 ps->arrays[k].first, ps->arrays[k].last);
    snprintf(path, sizeof(path), "%s/job", ps->dir);
    int rc = scal_campaign_text_write(path, text);
    free(text);
    return rc;
}

/* FILE.pieces/ private to this user, as FILE.runs/ is: nobody else can plant a file in it. */
static int private_dir(const char *dir)
{
    return scal_runner_private_dir(dir);
}

int scal_slurm_pieces_create(struct scal_slurm_pieces *ps, const char *campaign,
                             const uint32_t *slots, const size_t *first, size_t npieces)
{
    char plan[PATH_MAX + 32], path[sizeof(ps->dir) + 64], runs[sizeof(ps->dir) + 64];
    snprintf(plan, sizeof(plan), "%s.runs/plan.h5", campaign);
    int rc = private_dir(ps->dir);
    ps->npieces = npieces;
    ps->job[0] = 0;
    scal_slurm_pieces_free(ps);
    /* the record first: a submission killed half-way leaves pieces a collection knows about */
    if (rc == SCAL_OK) rc = scal_slurm_job_write(ps);
    for (size_t i = 0; rc == SCAL_OK && i < npieces; i++) {
        scal_slurm_piece_path(ps, i, ".slots", path, sizeof(path));
        rc = scal_campaign_slice_write(path, slots + first[i], first[i + 1] - first[i]);
        /* the piece's own FILE.runs/ with the plan's copy: a damaged piece is rebuilt as any
         * campaign file is */
        scal_slurm_piece_path(ps, i, ".h5.runs", runs, sizeof(runs));
        if (rc == SCAL_OK) rc = private_dir(runs);
        snprintf(path, sizeof(path), "%s/plan.h5", runs);
        if (rc == SCAL_OK) rc = scal_safe_copy(plan, path, false);
        scal_slurm_piece_path(ps, i, ".h5", path, sizeof(path));
        if (rc == SCAL_OK) rc = scal_safe_copy(plan, path, false);
    }
    return rc;
}

int scal_slurm_options_read(const struct scal_slurm_pieces *ps, char ***opts, size_t *n)
{
    char path[sizeof(ps->dir) + 32], line[4096];
    snprintf(path, sizeof(path), "%s/sbatch-options", ps->dir);
    *opts = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT
                   ? SCAL_OK
                   : scal__fail(SCAL_EIO, "cannot read '%s': %s", path, strerror(errno));
    int rc = SCAL_OK;
    while (rc == SCAL_OK && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '#' || !line[0]) continue;
        char **v = realloc(*opts, (*n + 1) * sizeof(*v));
        if (!v || !(v[*n] = strdup(line))) {
            if (v) *opts = v;
            rc = SCAL_ENOMEM;
            break;
        }
        *opts = v;
        (*n)++;
    }
    fclose(f);
    return rc;
}

int scal_slurm_options_write(const struct scal_slurm_pieces *ps, char *const *opts, size_t n)
{
    char path[sizeof(ps->dir) + 32];
    size_t cap = 128;
    for (size_t k = 0; k < n; k++)
        cap += strlen(opts[k]) + 1;
    char *text = malloc(cap);
    if (!text) return SCAL_ENOMEM;
    size_t used = (size_t)snprintf(
        text, cap, "# scal run --slurm: the sbatch options of the last submission\n");
    for (size_t k = 0; k < n; k++)
        used += (size_t)snprintf(text + used, cap - used, "%s\n", opts[k]);
    snprintf(path, sizeof(path), "%s/sbatch-options", ps->dir);
    int rc = scal_campaign_text_write(path, text);
    free(text);
    return rc;
}

void scal_slurm_piece_remove(const struct scal_slurm_pieces *ps, size_t i, bool failed,
                             bool keep_runs)
{
    char path[sizeof(ps->dir) + 64], kept[sizeof(ps->dir) + 128];
    scal_slurm_piece_path(ps, i, ".h5", path, sizeof(path));
    scal_runner_drop_kept_runs(path, keep_runs); /* the piece's FILE.runs/ */
    /* what is left of it (a piece that never opened) */
    scal_slurm_piece_path(ps, i, ".h5.runs/plan.h5", kept, sizeof(kept));
    unlink(kept);
    scal_slurm_piece_path(ps, i, ".h5.runs", kept, sizeof(kept));
    rmdir(kept);
    unlink(path);
    scal_slurm_piece_path(ps, i, ".slots", path, sizeof(path));
    unlink(path);
    scal_slurm_piece_path(ps, i, ".out", path, sizeof(path));
    if (!failed) {
        unlink(path);
        return;
    }
    /* the output of a task whose runs are missing tells why: kept under the job's name */
    snprintf(kept, sizeof(kept), "%s/failed-%s_%zu.out", ps->dir, scal_slurm_piece_job(ps, i), i);
    rename(path, kept);
}

void scal_slurm_pieces_done(const struct scal_slurm_pieces *ps, bool complete)
{
    char path[sizeof(ps->dir) + 32];
    snprintf(path, sizeof(path), "%s/job", ps->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/job.sh", ps->dir);
    unlink(path);
    if (!complete) return; /* the options and failed tasks' output stay for the next submission */
    snprintf(path, sizeof(path), "%s/sbatch-options", ps->dir);
    unlink(path);
    DIR *d = opendir(ps->dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, "failed-", 7)) {
            char f[sizeof(ps->dir) + 300];
            snprintf(f, sizeof(f), "%s/%s", ps->dir, e->d_name);
            unlink(f);
        }
    if (d) closedir(d);
    rmdir(ps->dir); /* only when empty: --keep-runs files stay */
}

/* ---- a plain --resume of a campaign whose pieces are out ---- */

int scal_slurm_check_resume(const char *campaign)
{
    struct scal_slurm_pieces ps;
    scal_slurm_pieces_init(&ps, campaign);
    int rc = scal_slurm_job_read(&ps);
    scal_slurm_pieces_free(&ps);
    if (rc == SCAL_OK)
        return scal__fail(SCAL_EEXIST,
                          "'%s' has pieces of Slurm array tasks not collected yet (%s%s%s): "
                          "scal run --collect %s first, or scal run --resume %s --slurm",
                          campaign, ps.dir, ps.job[0] ? ", job " : "", ps.job, campaign, campaign);
    return rc == SCAL_ENOENT ? SCAL_OK : rc;
}
