// SPDX-License-Identifier: BSD-3-Clause
// `scal report`: loads the campaign and the post-processing plugins (through the one plugin
// loader), runs the analyses in dependency order, then the outputs.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "errmsg.h"
#include "plugin_loader.h"
#include "report.h"
#include "safe_create.h"

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

/* The post-processing plugins of the search path, sorted by name. */
struct pp_plugins {
    struct scal_loaded_plugin **p;
    size_t n;
    const struct scal_report_options *o;
    const struct scal_pp_host *api; /* where notes go; NULL when only listing */
    int rc;                         /* an error that stops the report */
};

static int load_one(const char *path, const char *file_name, void *arg)
{
    struct pp_plugins *l = arg;
    const char *settings[32];
    char why[SCAL_PLUGIN_WHY_MAX] = "", msg[SCAL_PLUGIN_WHY_MAX + 64];
    size_t ns = l->o ? scal_plugin_settings_for(l->o->plugin_opts, l->o->nplugin_opts, file_name,
                                                settings, 32)
                     : 0;
    struct scal_loaded_plugin *p = calloc(1, sizeof(*p));
    struct scal_loaded_plugin **grown = realloc(l->p, (l->n + 1) * sizeof(*grown));
    if (grown) l->p = grown;
    if (!p || !grown) {
        free(p);
        l->rc = SCAL_ENOMEM;
        return 1;
    }
    int rc = scal_plugin_load(path, SCAL_PLUGIN_POSTPROC, settings, ns, p, why, sizeof(why));
    if (rc < 0 && p->kind && p->kind != SCAL_PLUGIN_POSTPROC) { /* a sensor or an actuator */
        free(p);
        return 0;
    }
    if (rc < 0 && ns) { /* the user set options of this plugin: its failure is an error */
        free(p);
        l->rc = scal__fail(rc, "%s", why);
        return 1;
    }
    if (rc < 0) { /* reported; the other plugins still run */
        snprintf(msg, sizeof(msg), "a plugin file was not loaded: %s", why);
        if (l->api) l->api->note(l->api, -1, msg);
        free(p);
        return 0;
    }
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->p[i]->name, p->name)) { /* an earlier directory wins */
            scal_plugin_unload(p);
            free(p);
            return 0;
        }
    l->p[l->n++] = p;
    return 0;
}

static int cmp_plugin(const void *a, const void *b)
{
    return strcmp((*(struct scal_loaded_plugin *const *)a)->name,
                  (*(struct scal_loaded_plugin *const *)b)->name);
}

static void plugins_free(struct pp_plugins *l)
{
    for (size_t i = 0; i < l->n; i++) {
        scal_plugin_unload(l->p[i]);
        free(l->p[i]);
    }
    free(l->p);
    l->p = NULL;
    l->n = 0;
}

static int plugins_load(struct pp_plugins *l, const struct scal_report_options *o,
                        const struct scal_pp_host *api)
{
    *l = (struct pp_plugins){.o = o, .api = api};
    scal_plugin_foreach_file(o ? o->plugin_dir : NULL, load_one, l);
    if (l->rc < 0) return l->rc;
    if (l->n) qsort(l->p, l->n, sizeof(*l->p), cmp_plugin);
    for (size_t k = 0; o && k < o->nplugin_opts; k++) { /* every --plugin-opt names a plugin */
        const char *opt = o->plugin_opts[k], *dot = strchr(opt, '.');
        bool found = false;
        for (size_t i = 0; dot && i < l->n; i++)
            found |= strlen(l->p[i]->name) == (size_t)(dot - opt) &&
                     !strncmp(l->p[i]->name, opt, (size_t)(dot - opt));
        if (!found)
            return scal__fail(SCAL_EINVAL,
                              "--plugin-opt '%s': no post-processing plugin of that name (use "
                              "PLUGIN.OPTION=VALUE; see scal report --list)",
                              opt);
    }
    return 0;
}

static int run_one(struct pp_host *h, const struct scal_loaded_plugin *p, int *first_err)
{
    const struct scal_pp_host *api = pp_host_api(h);
    char why[512] = "";
    char msg[700];
    pp_host_set_env(h, &p->env);
    int rc = p->desc->postproc->run(api, why, sizeof(why));
    pp_host_set_env(h, NULL);
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

/* One campaign analysed: the plugins loaded, the analyses run in dependency order. */
struct pp_session {
    struct pp_campaign c;
    struct pp_host *h;
    struct pp_plugins all;
    struct avail av;
    bool *done;
    int first_err;
};

static void session_free(struct pp_session *s)
{
    free(s->done);
    free(s->av.names);
    plugins_free(&s->all);
    pp_host_free(s->h);
    pp_campaign_free(&s->c);
    memset(s, 0, sizeof(*s));
}

static int session_analyse(struct pp_session *s, const struct scal_report_options *o)
{
    struct pp_campaign *c = &s->c;
    int rc;
    if (!o->nfiles) return scal__fail(SCAL_EINVAL, "no input file");
    if ((rc = pp_campaign_load_axes(c, o->files, o->nfiles, o->axes)) < 0) return rc;
    if ((rc = pp_host_create(&s->h, c, o)) < 0) return rc;
    const struct scal_pp_host *api = pp_host_api(s->h);
    for (size_t i = 0; i < c->nnotes; i++)
        api->note(api, -1, c->notes[i]);
    if (*api->baseline_note) api->note(api, -1, api->baseline_note);
    if (c->nthreads < 2 && !c->single_run) {
        char buf[200];
        snprintf(buf, sizeof(buf),
                 "only one thread count (%d): speedup, efficiency and the scalability diagrams "
                 "need at least two; tables only",
                 c->threads[0]);
        api->note(api, -1, buf);
    }
    if (c->ninputs < 2 && !c->single_run)
        api->note(api, -1, "only one input: the input-growth and weak-scaling diagrams are empty");
    if ((rc = plugins_load(&s->all, o, api)) < 0) return rc;
    struct scal_loaded_plugin **pl = s->all.p;
    size_t npl = s->all.n;
    if (npl == 0) {
        char dirs[8192];
        scal_plugin_search_path(dirs, sizeof(dirs), o->plugin_dir);
        return scal__fail(SCAL_ENOENT, "no post-processing plugin found in '%s'", dirs);
    }
    for (int which = 0; which < 2; which++) { /* every name in --only/--skip must exist */
        const char *list = which ? o->skip : o->only;
        for (const char *p = list; p && *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            bool found = false;
            for (size_t i = 0; i < npl; i++)
                found |= strlen(pl[i]->name) == len && !strncmp(pl[i]->name, p, len);
            if (!found && len)
                return scal__fail(SCAL_EINVAL,
                                  "no post-processing plugin named '%.*s' (--%s); "
                                  "see scal report --list",
                                  (int)len, p, which ? "skip" : "only");
            p += len + (e ? 1 : 0);
        }
    }
    if (!(s->done = calloc(npl, sizeof(*s->done)))) return SCAL_ENOMEM;
    for (size_t i = 0; i < npl; i++)
        if ((o->only && !in_list(o->only, pl[i]->name)) || in_list(o->skip, pl[i]->name))
            s->done[i] = true;
    for (const char *const *m = api->metrics(api, 0, 0); *m; m++)
        if ((rc = avail_add(&s->av, *m)) < 0) return rc;
    /* Analyses in dependency order: run whatever has its needs, until nothing more can run. */
    for (bool progress = true; progress;) {
        progress = false;
        for (size_t i = 0; i < npl; i++) {
            const struct scal_postproc_ops *ops = pl[i]->desc->postproc;
            if (s->done[i] || ops->stage != SCAL_PP_ANALYSIS || missing_need(&s->av, ops)) continue;
            s->done[i] = progress = true;
            if (run_one(s->h, pl[i], &s->first_err) < 0) continue;
            for (const char *const *p = ops->produces; p && *p; p++)
                if ((rc = avail_add(&s->av, *p)) < 0) return rc;
        }
    }
    for (size_t i = 0; i < npl; i++) {
        const struct scal_postproc_ops *ops = pl[i]->desc->postproc;
        const char *need = s->done[i] ? NULL : missing_need(&s->av, ops);
        if (need) {
            char buf[300];
            snprintf(buf, sizeof(buf),
                     "plugin %s skipped: it needs '%s', which no selected plugin "
                     "produced",
                     pl[i]->name, need);
            api->note(api, -1, buf);
            s->done[i] = true;
        }
    }
    return SCAL_OK;
}

static void pass_notes(const struct scal_pp_host *api, void (*note_cb)(void *, const char *),
                       void *arg)
{
    const char *const *notes;
    size_t n = note_cb ? api->notes(api, -1, &notes) : 0;
    for (size_t i = 0; i < n; i++)
        note_cb(arg, notes[i]);
}

int scal_report_run(const struct scal_report_options *o,
                    void (*note_cb)(void *arg, const char *text), void *arg)
{
    struct pp_session s = {0};
    int rc = session_analyse(&s, o);
    if (rc < 0) goto out;
    if ((rc = pp_host_select(s.h, o->region_pattern, o->min_share, o->top)) < 0) goto out;
    if ((rc = scal_safe_mkdir(o->output_dir)) < 0) goto out;
    for (size_t i = 0; i < s.all.n; i++)
        if (!s.done[i] && s.all.p[i]->desc->postproc->stage == SCAL_PP_OUTPUT) {
            s.done[i] = true;
            run_one(s.h, s.all.p[i], &s.first_err);
        }
    pass_notes(pp_host_api(s.h), note_cb, arg);
    rc = s.first_err;
out:
    session_free(&s);
    return rc;
}

int scal_report_compare(const struct scal_report_options *o, const char *before, const char *after,
                        void (*note_cb)(void *arg, const char *text), void *arg)
{
    struct pp_session s[2] = {0};
    const char *files[2][2] = {{before, NULL}, {after, NULL}};
    int rc = SCAL_OK;
    for (int k = 0; k < 2 && rc == SCAL_OK; k++) {
        struct scal_report_options ok = *o;
        ok.files = files[k];
        ok.nfiles = 1;
        ok.no_write = true;
        rc = session_analyse(&s[k], &ok);
        if (rc == SCAL_OK) rc = s[k].first_err;
    }
    if (rc == SCAL_OK) rc = scal_safe_mkdir(o->output_dir);
    if (rc == SCAL_OK)
        rc = pp_compare_write(o->output_dir, &s[0].c, pp_host_api(s[0].h), &s[1].c,
                              pp_host_api(s[1].h), before, after);
    /* index.html: the page of AFTER with its compare view (the page plugin draws compare_diff) */
    for (size_t i = 0; rc == SCAL_OK && i < s[1].all.n; i++)
        if (!strcmp(s[1].all.p[i]->name, "page")) {
            int first_err = 0;
            run_one(s[1].h, s[1].all.p[i], &first_err);
            rc = first_err;
        }
    if (rc == SCAL_OK) pass_notes(pp_host_api(s[1].h), note_cb, arg);
    session_free(&s[0]);
    session_free(&s[1]);
    return rc;
}

int scal_report_list(const char *dir, void (*cb)(void *, const struct scal_report_plugin_info *),
                     void *arg)
{
    struct scal_report_options o = {.plugin_dir = dir};
    struct pp_plugins l;
    int rc = plugins_load(&l, &o, NULL);
    for (size_t i = 0; rc == 0 && i < l.n; i++) {
        const struct scal_plugin_desc *d = l.p[i]->desc;
        struct scal_report_plugin_info info = {0};
        snprintf(info.name, sizeof(info.name), "%s", l.p[i]->name);
        snprintf(info.path, sizeof(info.path), "%s", l.p[i]->path);
        info.description = d->description ? d->description : "";
        info.stage = d->postproc->stage;
        info.needs = d->postproc->needs;
        info.produces = d->postproc->produces;
        info.options = d->options;
        cb(arg, &info);
    }
    plugins_free(&l);
    return rc;
}
