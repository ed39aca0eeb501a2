// SPDX-License-Identifier: BSD-3-Clause
// `scal report`: loads the campaign, runs the analysis plugins in dependency order, then the
// outputs.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "errmsg.h"
#include "report.h"

static bool in_list(const char *list, const char *name)
{
    if (!list) return false;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return true;
        p += len + (e ? 1 : 0);
    }
    return false;
}

struct avail {
    const char **names;
    size_t n;
};

static bool avail_has(const struct avail *a, const char *name)
{
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->names[i], name)) return true;
    return false;
}

static int avail_add(struct avail *a, const char *name)
{
    if (avail_has(a, name)) return 0;
    const char **n = realloc(a->names, (a->n + 1) * sizeof(*n));
    if (!n) return SCAL_ENOMEM;
    a->names = n;
    n[a->n++] = name;
    return 0;
}

static const char *missing_need(const struct avail *a, const struct scal_postproc_ops *ops)
{
    for (const char *const *p = ops->needs; p && *p; p++)
        if (!avail_has(a, *p)) return *p;
    return NULL;
}

static int run_one(const struct scal_pp_host *api, const struct pp_plugin *p, int *first_err)
{
    char why[512] = "";
    char msg[700];
    int rc = p->desc->postproc->run(api, why, sizeof(why));
    if (rc == SCAL_EUNAVAIL) {
        snprintf(msg, sizeof(msg), "plugin %s had nothing to do: %s", p->name, why);
        api->note(api, -1, msg);
    } else if (rc < 0) {
        snprintf(msg, sizeof(msg), "plugin %s failed: %s (%s)", p->name,
                 *why ? why : scal__last_error(rc), scal_strerror(rc));
        api->note(api, -1, msg);
        if (*first_err == 0) *first_err = scal__fail(rc, "%s", msg);
    }
    return rc;
}

int scal_report_run(const struct scal_report_options *o,
                    void (*note_cb)(void *arg, const char *text), void *arg)
{
    struct pp_campaign c = {0};
    struct pp_host *h = NULL;
    struct pp_plugin *pl = NULL;
    size_t npl = 0;
    struct avail av = {0};
    bool *done = NULL;
    int first_err = 0, rc;
    if (!o->nfiles) return scal__fail(SCAL_EINVAL, "no input file");
    if ((rc = pp_campaign_load(&c, o->files, o->nfiles)) < 0) return rc;
    if ((rc = pp_host_create(&h, &c, o)) < 0) goto out;
    const struct scal_pp_host *api = pp_host_api(h);
    for (size_t i = 0; i < c.nnotes; i++)
        api->note(api, -1, c.notes[i]);
    if (*api->baseline_note) api->note(api, -1, api->baseline_note);
    if (c.nthreads < 2 && !c.single_run) {
        char buf[200];
        snprintf(buf, sizeof(buf),
                 "only one thread count (%d): speedup, efficiency and the scalability diagrams "
                 "need at least two; tables only",
                 c.threads[0]);
        api->note(api, -1, buf);
    }
    if (c.ninputs < 2 && !c.single_run)
        api->note(api, -1, "only one input: the input-growth and weak-scaling diagrams are empty");
    int lr = pp_plugins_load(o->plugin_dirs, &pl, &npl);
    if (lr < 0) {
        rc = lr;
        goto out;
    }
    if (lr > 0) {
        char buf[700];
        snprintf(buf, sizeof(buf), "a plugin file was not loaded: %s",
                 scal__last_error(SCAL_EDLOPEN));
        api->note(api, -1, buf);
    }
    if (npl == 0) {
        rc = scal__fail(SCAL_ENOENT, "no post-processing plugin found in '%s'",
                        o->plugin_dirs ? o->plugin_dirs : "");
        goto out;
    }
    for (int which = 0; which < 2; which++) { /* every name in --only/--skip must exist */
        const char *list = which ? o->skip : o->only;
        for (const char *p = list; p && *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            bool found = false;
            for (size_t i = 0; i < npl; i++)
                found |= strlen(pl[i].name) == len && !strncmp(pl[i].name, p, len);
            if (!found && len) {
                rc = scal__fail(SCAL_EINVAL,
                                "no post-processing plugin named '%.*s' (--%s); "
                                "see scal report --list",
                                (int)len, p, which ? "skip" : "only");
                goto out;
            }
            p += len + (e ? 1 : 0);
        }
    }
    if (!(done = calloc(npl, sizeof(*done)))) {
        rc = SCAL_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < npl; i++)
        if ((o->only && !in_list(o->only, pl[i].name)) || in_list(o->skip, pl[i].name))
            done[i] = true;
    for (const char *const *m = api->metrics(api, 0, 0); *m; m++)
        if ((rc = avail_add(&av, *m)) < 0) goto out;
    /* Analyses in dependency order: run whatever has its needs, until nothing more can run. */
    for (bool progress = true; progress;) {
        progress = false;
        for (size_t i = 0; i < npl; i++) {
            const struct scal_postproc_ops *ops = pl[i].desc->postproc;
            if (done[i] || ops->stage != SCAL_PP_ANALYSIS || missing_need(&av, ops)) continue;
            done[i] = progress = true;
            if (run_one(api, &pl[i], &first_err) < 0) continue;
            for (const char *const *p = ops->produces; p && *p; p++)
                if ((rc = avail_add(&av, *p)) < 0) goto out;
        }
    }
    for (size_t i = 0; i < npl; i++) {
        const struct scal_postproc_ops *ops = pl[i].desc->postproc;
        const char *need = done[i] ? NULL : missing_need(&av, ops);
        if (need) {
            char buf[300];
            snprintf(buf, sizeof(buf),
                     "plugin %s skipped: it needs '%s', which no selected plugin "
                     "produced",
                     pl[i].name, need);
            api->note(api, -1, buf);
            done[i] = true;
        }
    }
    pp_host_select(h, o->region_pattern, o->top);
    if (mkdir(o->output_dir, 0777) < 0 && errno != EEXIST) {
        rc = scal__fail(SCAL_EIO, "cannot create output directory '%s': %s", o->output_dir,
                        strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < npl; i++)
        if (!done[i] && pl[i].desc->postproc->stage == SCAL_PP_OUTPUT) {
            done[i] = true;
            run_one(api, &pl[i], &first_err);
        }
    if (note_cb) {
        const char *const *notes;
        size_t n = api->notes(api, -1, &notes);
        for (size_t i = 0; i < n; i++)
            note_cb(arg, notes[i]);
    }
    rc = first_err;
out:
    free(done);
    free(av.names);
    pp_plugins_free(pl, npl);
    pp_host_free(h);
    pp_campaign_free(&c);
    return rc;
}

int scal_report_list(const char *dirs, void (*cb)(void *, const struct scal_report_plugin_info *),
                     void *arg)
{
    struct pp_plugin *pl = NULL;
    size_t n = 0;
    int rc = pp_plugins_load(dirs, &pl, &n);
    if (rc < 0) return rc;
    for (size_t i = 0; i < n; i++) {
        struct scal_report_plugin_info info = {0};
        snprintf(info.name, sizeof(info.name), "%s", pl[i].name);
        snprintf(info.path, sizeof(info.path), "%s", pl[i].path);
        info.description = pl[i].desc->description ? pl[i].desc->description : "";
        info.stage = pl[i].desc->postproc->stage;
        info.needs = pl[i].desc->postproc->needs;
        info.produces = pl[i].desc->postproc->produces;
        cb(arg, &info);
    }
    pp_plugins_free(pl, n);
    return 0;
}
