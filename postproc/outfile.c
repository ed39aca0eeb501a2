// SPDX-License-Identifier: BSD-3-Clause
// The report's output files: each created exclusively under an unpredictable temporary name and
// renamed into place (common/safe_create), in directories that are never symbolic links.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "report.h"
#include "safe_create.h"

int pp_out_mkdirs(const char *dir, const char *rel)
{
    char path[4096];
    int rc = scal_safe_mkdir(dir);
    for (const char *p = strchr(rel, '/'); rc == SCAL_OK && p; p = strchr(p + 1, '/')) {
        if ((size_t)snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(p - rel), rel) >=
            sizeof(path))
            return scal__fail(SCAL_EINVAL, "path too long: '%s/%s'", dir, rel);
        rc = scal_safe_mkdir(path);
    }
    return rc;
}

int pp_out_create(struct pp_outputs *o, const char *rel, FILE **out)
{
    char final[4096], tmp[4200];
    *out = NULL;
    for (const char *c = rel; *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : c + strlen(c))
        if (*rel == '/' || !strncmp(c, "../", 3) || !strcmp(c, ".."))
            return scal__fail(SCAL_EINVAL, "output name '%s' leaves the output directory", rel);
    if ((size_t)snprintf(final, sizeof(final), "%s/%s", o->dir, rel) >= sizeof(final))
        return scal__fail(SCAL_EINVAL, "path too long: '%s/%s'", o->dir, rel);
    int rc = pp_out_mkdirs(o->dir, rel);
    if (rc < 0) return rc;
    struct pp_outfile *grown = realloc(o->v, (o->n + 1) * sizeof(*grown));
    if (!grown) return scal__fail(SCAL_ENOMEM, "out of memory creating '%s'", final);
    o->v = grown;
    int fd = scal_safe_create_open(final, true, tmp, sizeof(tmp));
    if (fd < 0) return fd;
    struct pp_outfile *e = &o->v[o->n];
    e->f = fdopen(fd, "w");
    e->tmp = strdup(tmp);
    e->final = strdup(final);
    if (!e->f || !e->tmp || !e->final) {
        if (e->f)
            fclose(e->f);
        else
            close(fd);
        unlink(tmp);
        free(e->tmp);
        free(e->final);
        return scal__fail(SCAL_ENOMEM, "out of memory creating '%s'", final);
    }
    o->n++;
    *out = e->f;
    return SCAL_OK;
}

int pp_out_commit(struct pp_outputs *o, FILE *f, bool ok)
{
    size_t i = 0;
    while (i < o->n && o->v[i].f != f)
        i++;
    if (i == o->n) return scal__fail(SCAL_EINVAL, "not an output file of this report");
    struct pp_outfile e = o->v[i];
    o->v[i] = o->v[--o->n];
    int rc = SCAL_OK;
    if (ferror(e.f) | fclose(e.f)) rc = scal__fail(SCAL_EIO, "cannot write '%s'", e.final);
    if (rc == SCAL_OK && ok)
        rc = scal_safe_publish_nosync(e.tmp, e.final, true); /* removes tmp on error */
    else
        unlink(e.tmp);
    free(e.tmp);
    free(e.final);
    return rc;
}

void pp_outputs_free(struct pp_outputs *o)
{
    while (o->n)
        pp_out_commit(o, o->v[o->n - 1].f, false);
    free(o->v);
    o->v = NULL;
}
