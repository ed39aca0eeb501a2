// SPDX-License-Identifier: BSD-3-Clause
// A slice of a campaign: FILE.slots beside FILE.h5 lists the run slots of the plan that this file
// runs (an executor's share: a Slurm array task's piece). --resume reads it; files are written
// through exclusive temporary names.
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign.h"
#include "errmsg.h"
#include "safe_create.h"
#include "scal/status.h"

#define SLOTS_HEADER "# scal run --slurm: the run slots of this piece, one a line; plan slots "

int scal_campaign_text_write(const char *path, const char *text)
{
    char tmp[PATH_MAX + 128];
    int fd = scal_safe_create_open(path, true, tmp, sizeof(tmp));
    if (fd < 0) return fd;
    FILE *f = fdopen(fd, "w"); /* the exclusive creation's descriptor, never a re-open by name */
    if (!f) close(fd);
    bool ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) {
        unlink(tmp);
        return scal__fail(SCAL_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
    return scal_safe_publish(tmp, path, true);
}

int scal_campaign_slice_write(const char *path, const uint32_t *slots, size_t n)
{
    size_t cap = 128 + n * 12;
    char *text = malloc(cap);
    if (!text) return scal__fail(SCAL_ENOMEM, "out of memory for %zu slots", n);
    size_t used = (size_t)snprintf(text, cap, "%s(0-based)\n", SLOTS_HEADER);
    for (size_t k = 0; k < n; k++)
        used += (size_t)snprintf(text + used, cap - used, "%u\n", slots[k]);
    int rc = scal_campaign_text_write(path, text);
    free(text);
    return rc;
}

int scal_campaign_slice_read(const char *path, size_t nslots, uint8_t *slice)
{
    FILE *f = fopen(path, "r");
    if (!f) return scal__fail(SCAL_EIO, "cannot read '%s': %s", path, strerror(errno));
    char line[256];
    int rc = SCAL_OK, lineno = 0;
    while (rc == SCAL_OK && fgets(line, sizeof(line), f)) {
        lineno++;
        if (lineno == 1 && strncmp(line, SLOTS_HEADER, strlen(SLOTS_HEADER)))
            rc = scal__fail(SCAL_EFORMAT, "'%s' is not a slice written by scal run --slurm", path);
        if (line[0] == '#' || rc < 0) continue;
        char *end;
        errno = 0;
        unsigned long v = strtoul(line, &end, 10);
        if (end == line || (*end && *end != '\n') || errno || v >= nslots)
            rc = scal__fail(SCAL_EFORMAT, "'%s', line %d: not a run slot of the plan (0 to %zu)",
                            path, lineno, nslots - 1);
        else
            slice[v] = 1;
    }
    fclose(f);
    return rc;
}

int scal_campaign_slice_apply(const char *output, const struct scal_run_plan *plan, uint8_t *done,
                              size_t *ndone)
{
    size_t n = strlen(output);
    if (n < 4 || strcmp(output + n - 3, ".h5")) return SCAL_OK;
    char slots[PATH_MAX + 16];
    snprintf(slots, sizeof(slots), "%.*s.slots", (int)(n - 3), output);
    if (access(slots, F_OK) != 0) return SCAL_OK;
    uint8_t *slice = calloc(plan->nslots ? plan->nslots : 1, 1);
    if (!slice) return SCAL_ENOMEM;
    int rc = scal_campaign_slice_read(slots, plan->nslots, slice);
    for (size_t s = 0; rc == SCAL_OK && s < plan->nslots; s++)
        if (!slice[s] && !done[s]) {
            done[s] = 1; /* another slice's */
            (*ndone)++;
        }
    free(slice);
    return rc;
}
