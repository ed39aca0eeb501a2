// SPDX-License-Identifier: BSD-3-Clause
// `scal merge A.h5 B.h5 ... -o C.h5`: joins campaigns of one program (split across jobs or
// machines) into one: configurations matched by threads, input, frequency and affinity (the same
// configuration with another command line is a conflict), regions unified by identity, runs
// renumbered, a repetition already taken by an earlier file moved to the next free number.
#define _GNU_SOURCE
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign.h"
#include "campaign_writer.h"
#include "errmsg.h"
#include "h5util.h"
#include "runner.h"
#include "safe_create.h"
#include "safe_open.h"
#include "scal_format.h"

struct source {
    const char *path;
    char *program, *command;
    int64_t repetitions;
    char **strings;
    size_t nstrings;
    struct scal_config_row *configs;
    size_t nconfigs;
    struct scal_run_row *runs;
    size_t nruns;
    struct scal_region_id_row *regions;
    size_t nregions;
    struct scal_region_stat_row *stats;
    size_t nstats;
    struct scal_thread_stat_row *threads;
    size_t nthreads;
    struct scal_run_sensor_value_row *values;
    size_t nvalues;
    struct scal_run_sensor_sample_row *samples;
    size_t nsamples;
    struct scal_run_plugin_state_row *plugins;
    size_t nplugins;
    struct scal_config_rank_row *config_ranks; /* MPI campaigns only */
    size_t nconfig_ranks;
    struct scal_run_rank_row *ranks;
    size_t nranks;
    struct scal_rank_region_stat_row *rank_stats;
    size_t nrank_stats;
    struct scal_region_rank_summary_row *rank_summary;
    size_t nrank_summary;
};

/* The MPI ranks of source configuration i, 0 when the campaign has no ranks dimension. */
static int32_t config_ranks(const struct source *s, uint32_t config)
{
    for (size_t k = 0; k < s->nconfig_ranks; k++)
        if (s->config_ranks[k].config == config) return s->config_ranks[k].ranks;
    return 0;
}

static const char *str(const struct source *s, uint32_t i)
{
    return i < s->nstrings ? s->strings[i] : "";
}

static void free_source(struct source *s)
{
    free(s->program), free(s->command), free(s->configs), free(s->runs), free(s->regions);
    free(s->stats), free(s->threads), free(s->values), free(s->samples), free(s->plugins);
    free(s->config_ranks), free(s->ranks), free(s->rank_stats), free(s->rank_summary);
    scal_h5_free_strings(s->strings, s->nstrings);
}

/* /campaign's program, command and repetitions. */
static int read_campaign_group(struct source *s, hid_t f)
{
    hid_t g = H5Gopen2(f, "campaign", H5P_DEFAULT);
    if (g < 0 || scal_h5_attr_get_str(g, "program", &s->program) < 0) {
        if (g >= 0) H5Gclose(g);
        return scal__fail(SCAL_EFORMAT, "'%s': /campaign or its program attribute is missing",
                          s->path);
    }
    if (scal_h5_attr_get_str(g, "command", &s->command) < 0) s->command = strdup("");
    if (scal_h5_attr_get_i64(g, "repetitions", &s->repetitions) < 0) s->repetitions = 0;
    H5Gclose(g);
    return s->command ? SCAL_OK : scal__fail(SCAL_ENOMEM, "out of memory reading '%s'", s->path);
}

static int read_tables(struct source *s, hid_t f)
{
    int rc = scal_table_read(f, &scal_table_configs, (void **)&s->configs, &s->nconfigs);
    if (rc == SCAL_OK) rc = scal_table_read(f, &scal_table_runs, (void **)&s->runs, &s->nruns);
    if (rc == SCAL_OK)
        rc = scal_table_read(f, &scal_table_campaign_regions, (void **)&s->regions, &s->nregions);
    if (rc == SCAL_OK)
        rc = scal_table_read(f, &scal_table_region_stats, (void **)&s->stats, &s->nstats);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_thread_stats, (void **)&s->threads, &s->nthreads);
    if (rc == SCAL_OK)
        rc =
            scal_table_read_opt(f, &scal_table_run_sensor_values, (void **)&s->values, &s->nvalues);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_run_sensor_samples, (void **)&s->samples,
                                 &s->nsamples);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_run_plugin_states, (void **)&s->plugins,
                                 &s->nplugins);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_config_ranks, (void **)&s->config_ranks,
                                 &s->nconfig_ranks);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_run_ranks, (void **)&s->ranks, &s->nranks);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_rank_region_stats, (void **)&s->rank_stats,
                                 &s->nrank_stats);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_region_rank_summary, (void **)&s->rank_summary,
                                 &s->nrank_summary);
    return rc;
}

static int load_source(struct source *s, const char *path)
{
    struct scal_h5file f;
    memset(s, 0, sizeof(*s));
    s->path = path;
    /* the content checks every reader makes (validate.h): the tables below are indexed by it */
    int rc = scal_h5file_open(path, SCAL_OPEN_CAMPAIGN | SCAL_OPEN_VALIDATE, &f);
    if (rc < 0) return rc;
    s->strings = f.strings; /* kept with the source */
    s->nstrings = f.nstrings;
    f.strings = NULL;
    f.nstrings = 0;
    rc = read_campaign_group(s, f.id);
    if (rc == SCAL_OK) rc = read_tables(s, f.id);
    scal_h5file_close(&f);
    return rc;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Rows of one table grouped by run: idx[first[r]..first[r+1]) are the rows of run r. */
struct by_run {
    size_t *idx, *first;
};

static int group(struct by_run *g, size_t nruns, size_t nrows, const void *rows, size_t size)
{
    g->idx = malloc((nrows ? nrows : 1) * sizeof(size_t));
    g->first = calloc(nruns + 2, sizeof(size_t));
    if (!g->idx || !g->first) return SCAL_ENOMEM;
    for (size_t i = 0; i < nrows; i++) {
        uint32_t run =
            *(const uint32_t *)((const char *)rows + i * size); /* run is the 1st member */
        g->first[(run < nruns ? run : nruns) + 1]++;
    }
    for (size_t r = 0; r <= nruns; r++)
        g->first[r + 1] += g->first[r];
    size_t *fill = calloc(nruns + 1, sizeof(size_t));
    if (!fill) return SCAL_ENOMEM;
    for (size_t i = 0; i < nrows; i++) {
        uint32_t run = *(const uint32_t *)((const char *)rows + i * size);
        size_t r = run < nruns ? run : nruns;
        g->idx[g->first[r] + fill[r]++] = i;
    }
    free(fill);
    return SCAL_OK;
}

static void ungroup(struct by_run *g)
{
    free(g->idx), free(g->first);
}

#define GATHER(type, dst, src, g, r, n)                                                            \
    do {                                                                                           \
        n = g.first[r + 1] - g.first[r];                                                           \
        for (size_t k_ = 0; k_ < n; k_++)                                                          \
            dst[k_] = src[g.idx[g.first[r] + k_]];                                                 \
    } while (0)

struct merged {
    struct scal_cw_config *configs;
    size_t nconfigs;
    char **inputs;
    size_t ninputs;
    int32_t *threads;
    size_t nthreads;
};

static int find_or_add_input(struct merged *m, const char *label, uint32_t *idx)
{
    for (size_t i = 0; i < m->ninputs; i++)
        if (!strcmp(m->inputs[i], label)) return (*idx = (uint32_t)i), SCAL_OK;
    char **v = realloc(m->inputs, (m->ninputs + 1) * sizeof(*v));
    if (!v) return SCAL_ENOMEM;
    m->inputs = v;
    if (!(v[m->ninputs] = strdup(label))) return SCAL_ENOMEM;
    *idx = (uint32_t)m->ninputs++;
    return SCAL_OK;
}

static int cmp_i32(const void *a, const void *b)
{
    return *(const int32_t *)a - *(const int32_t *)b;
}

/* Maps every configuration of s into the merged list; a conflict is an error naming both. */
static int merge_configs(struct merged *m, const struct source *s, uint32_t *map)
{
    for (size_t i = 0; i < s->nconfigs; i++) {
        const struct scal_config_row *c = &s->configs[i];
        const char *label = str(s, c->input_label), *aff = str(s, c->affinity);
        const char *argv = str(s, c->argv);
        int32_t ranks = config_ranks(s, (uint32_t)i);
        size_t k;
        for (k = 0; k < m->nconfigs; k++) {
            const struct scal_cw_config *o = &m->configs[k];
            if (o->threads != c->threads || o->frequency_khz != c->frequency_khz ||
                o->ranks != ranks || strcmp(o->input_label, label) || strcmp(o->affinity, aff))
                continue;
            if (strcmp(base(o->argv), base(argv)) && strcmp(o->argv, argv))
                return scal__fail(SCAL_ECONFLICT,
                                  "conflicting configurations: %d threads, input '%s' runs '%s' in "
                                  "one file and '%s' in '%s'",
                                  c->threads, label, o->argv, argv, s->path);
            break;
        }
        if (k == m->nconfigs) {
            struct scal_cw_config *v = realloc(m->configs, (m->nconfigs + 1) * sizeof(*v));
            uint32_t in;
            if (!v || find_or_add_input(m, label, &in) < 0) return SCAL_ENOMEM;
            m->configs = v;
            v[k] =
                (struct scal_cw_config){c->threads, in, label, c->frequency_khz, aff, argv, ranks};
            m->nconfigs++;
            size_t t;
            for (t = 0; t < m->nthreads && m->threads[t] != c->threads; t++) {
            }
            if (t == m->nthreads) {
                int32_t *tv = realloc(m->threads, (m->nthreads + 1) * sizeof(*tv));
                if (!tv) return SCAL_ENOMEM;
                m->threads = tv;
                tv[m->nthreads++] = c->threads;
            }
        }
        map[i] = (uint32_t)k;
    }
    return SCAL_OK;
}

/* Repetition numbers in the merged file, per merged configuration. scal merge numbers each
 * configuration's runs in arrival order; collecting pieces into a campaign (keep_own) keeps a run's
 * own number unless the campaign holds it already, else the next free one. */
struct repetitions {
    uint32_t *next;
    uint8_t *taken; /* keep_own: [config * per + repetition] */
    size_t per;
    bool keep_own;
};

static uint32_t take_repetition(struct repetitions *r, uint32_t config, uint32_t own)
{
    if (!r->keep_own) return r->next[config]++;
    uint8_t *taken = r->taken + (size_t)config * r->per;
    if (own < r->per && !taken[own]) {
        taken[own] = 1;
        return own;
    }
    while (r->next[config] < r->per && taken[r->next[config]])
        r->next[config]++;
    if (r->next[config] < r->per) taken[r->next[config]] = 1;
    return r->next[config]++;
}

static int add_runs(struct scal_cw *w, const struct source *s, const uint32_t *cmap,
                    struct repetitions *reps)
{
    struct by_run gs = {0}, gt = {0}, gv = {0}, gp = {0}, gl = {0}, gr = {0}, grs = {0}, gsum = {0};
    size_t nr = 0;
    for (size_t i = 0; i < s->nruns; i++)
        if (s->runs[i].id + 1 > nr) nr = s->runs[i].id + 1;
    int rc = group(&gs, nr, s->nstats, s->stats, sizeof(*s->stats));
    if (rc == SCAL_OK) rc = group(&gt, nr, s->nthreads, s->threads, sizeof(*s->threads));
    if (rc == SCAL_OK) rc = group(&gv, nr, s->nvalues, s->values, sizeof(*s->values));
    if (rc == SCAL_OK) rc = group(&gp, nr, s->nsamples, s->samples, sizeof(*s->samples));
    if (rc == SCAL_OK) rc = group(&gl, nr, s->nplugins, s->plugins, sizeof(*s->plugins));
    if (rc == SCAL_OK) rc = group(&gr, nr, s->nranks, s->ranks, sizeof(*s->ranks));
    if (rc == SCAL_OK) rc = group(&grs, nr, s->nrank_stats, s->rank_stats, sizeof(*s->rank_stats));
    if (rc == SCAL_OK)
        rc = group(&gsum, nr, s->nrank_summary, s->rank_summary, sizeof(*s->rank_summary));
    struct scal_cw_payload p = {.strings = s->strings,
                                .nstrings = s->nstrings,
                                .regions = s->regions,
                                .nregions = s->nregions};
    p.stats = malloc((s->nstats + 1) * sizeof(*p.stats));
    p.threads = malloc((s->nthreads + 1) * sizeof(*p.threads));
    p.values = malloc((s->nvalues + 1) * sizeof(*p.values));
    p.samples = malloc((s->nsamples + 1) * sizeof(*p.samples));
    p.plugins = malloc((s->nplugins + 1) * sizeof(*p.plugins));
    p.ranks = malloc((s->nranks + 1) * sizeof(*p.ranks));
    p.rank_stats = malloc((s->nrank_stats + 1) * sizeof(*p.rank_stats));
    p.rank_summary = malloc((s->nrank_summary + 1) * sizeof(*p.rank_summary));
    if (!p.stats || !p.threads || !p.values || !p.samples || !p.plugins || !p.ranks ||
        !p.rank_stats || !p.rank_summary)
        rc = SCAL_ENOMEM;
    for (size_t i = 0; i < s->nruns && rc == SCAL_OK; i++) {
        const struct scal_run_row *r = &s->runs[i];
        if (r->config >= s->nconfigs) {
            rc = scal__fail(SCAL_EFORMAT, "'%s': run %u names configuration %u of %zu", s->path,
                            r->id, r->config, s->nconfigs);
            break;
        }
        struct scal_cw_run run = {*r, str(s, r->message), str(s, r->stdout_tail),
                                  str(s, r->stderr_tail)};
        uint32_t c = cmap[r->config];
        run.row.config = c;
        run.row.repetition = take_repetition(reps, c, r->repetition); /* never shared */
        GATHER(struct scal_region_stat_row, p.stats, s->stats, gs, r->id, p.nstats);
        GATHER(struct scal_thread_stat_row, p.threads, s->threads, gt, r->id, p.nthreads);
        GATHER(struct scal_run_sensor_value_row, p.values, s->values, gv, r->id, p.nvalues);
        GATHER(struct scal_run_sensor_sample_row, p.samples, s->samples, gp, r->id, p.nsamples);
        GATHER(struct scal_run_plugin_state_row, p.plugins, s->plugins, gl, r->id, p.nplugins);
        GATHER(struct scal_run_rank_row, p.ranks, s->ranks, gr, r->id, p.nranks);
        GATHER(struct scal_rank_region_stat_row, p.rank_stats, s->rank_stats, grs, r->id,
               p.nrank_stats);
        GATHER(struct scal_region_rank_summary_row, p.rank_summary, s->rank_summary, gsum, r->id,
               p.nrank_summary);
        rc = scal_cw_add_run(w, &run, &p, NULL);
    }
    free(p.stats), free(p.threads), free(p.values), free(p.samples), free(p.plugins);
    free(p.ranks), free(p.rank_stats), free(p.rank_summary);
    ungroup(&gs), ungroup(&gt), ungroup(&gv), ungroup(&gp), ungroup(&gl);
    ungroup(&gr), ungroup(&grs), ungroup(&gsum);
    return rc;
}

static void usage(FILE *out)
{
    fputs("usage: scal merge CAMPAIGN.h5 CAMPAIGN.h5 ... -o MERGED.h5\n\n"
          "Joins campaigns of the same program (split across jobs or machines) into one file.\n"
          "Regions are unified by identity; configurations by threads, input, frequency and\n"
          "affinity (the same configuration with a different command line is refused).\n"
          "Files that contain the same runs (a file twice, or a copy of it) are refused.\n",
          out);
}

/* The files to merge and -o. Returns MERGE_GO, or the exit status when there is nothing to do. */
enum { MERGE_GO = -1 };
static int parse_args(int argc, char **argv, const char **in, size_t *nin, const char **out)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "scal merge: -o needs a file name\n");
                return 2;
            }
            *out = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "scal merge: unknown option '%s'; see 'scal merge --help'\n", argv[i]);
            return 2;
        } else {
            in[(*nin)++] = argv[i];
        }
    }
    if (!*out || *nin < 1) {
        fprintf(stderr, "scal merge: %s\n",
                !*out ? "no output file (-o MERGED.h5)" : "no campaign files to merge");
        return 2;
    }
    if (scal_safe_check_final(*out, false) < 0) {
        fprintf(stderr, "scal merge: %s\n", scal__last_error(SCAL_EEXIST));
        return 2;
    }
    return MERGE_GO;
}

/* Reads every source and joins their configurations (cmap[i]: source i's -> merged). */
static int load_sources(const char *const *in, size_t nin, struct source *src, uint32_t **cmap,
                        struct merged *m)
{
    int rc = SCAL_OK;
    for (size_t i = 0; i < nin && rc == SCAL_OK; i++) {
        rc = load_source(&src[i], in[i]);
        if (rc == SCAL_OK && strcmp(base(src[i].program), base(src[0].program)))
            rc = scal__fail(SCAL_ECONFLICT,
                            "'%s' is a campaign of '%s', '%s' one of '%s': only "
                            "campaigns of the same program can be merged",
                            in[0], src[0].program, in[i], src[i].program);
        if (rc == SCAL_OK && !(cmap[i] = calloc(src[i].nconfigs + 1, sizeof(uint32_t))))
            rc = scal__fail(SCAL_ENOMEM, "out of memory merging '%s'", in[i]);
        if (rc == SCAL_OK) rc = merge_configs(m, &src[i], cmap[i]);
    }
    if (rc == SCAL_OK) qsort(m->threads, m->nthreads, sizeof(*m->threads), cmp_i32);
    return rc;
}

/* A run as merge recognises it in two files: its merged configuration and when it started and
 * how long it took (runs of a real campaign never share these). */
struct run_key {
    uint32_t config;
    double started, wall;
    size_t src, run;
};

static int cmp_key(const void *a, const void *b)
{
    const struct run_key *x = a, *y = b;
    if (x->config != y->config) return x->config < y->config ? -1 : 1;
    if (x->started != y->started) return x->started < y->started ? -1 : 1;
    if (x->wall != y->wall) return x->wall < y->wall ? -1 : 1;
    return x->src < y->src ? -1 : x->src > y->src;
}

/* Merging a file with itself, or with a copy or a merge of it, would count its runs twice. */
static int refuse_shared_runs(const char *const *in, size_t nin, const struct source *src,
                              uint32_t *const *cmap)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < nin; i++)
        n += src[i].nruns;
    struct run_key *keys = malloc((n ? n : 1) * sizeof(*keys));
    if (!keys) return scal__fail(SCAL_ENOMEM, "out of memory for %zu runs", n);
    for (size_t i = 0; i < nin; i++)
        for (size_t r = 0; r < src[i].nruns; r++)
            if (src[i].runs[r].started_unix > 0) /* imported runs have no start time */
                keys[k++] =
                    (struct run_key){cmap[i][src[i].runs[r].config], src[i].runs[r].started_unix,
                                     src[i].runs[r].wall_s, i, r};
    qsort(keys, k, sizeof(*keys), cmp_key);
    int rc = SCAL_OK;
    for (size_t a = 0, b; a < k && rc == SCAL_OK; a = b) {
        for (b = a + 1; b < k && keys[b].config == keys[a].config &&
                        keys[b].started == keys[a].started && keys[b].wall == keys[a].wall;
             b++) {
        }
        if (keys[b - 1].src != keys[a].src)
            rc = scal__fail(SCAL_ECONFLICT,
                            "'%s' and '%s' contain the same run (run %u of the first: same "
                            "configuration, start time and duration): merging them would count "
                            "their runs twice",
                            in[keys[a].src], in[keys[b - 1].src],
                            src[keys[a].src].runs[keys[a].run].id);
    }
    free(keys);
    return rc;
}

/* The merged inputs' numeric sizes (scal run --size, /campaign@input_sizes) from every source, by
 * label; *out NULL when no source has any. A label sized differently in two files is refused. The
 * sources were read through the probe by load_source moments ago. */
static int merge_input_sizes(const char *const *in, size_t nin, const struct merged *m,
                             double **out)
{
    int rc = SCAL_OK;
    *out = NULL;
    for (size_t i = 0; i < nin && rc == SCAL_OK; i++) {
        struct scal_h5file f;
        double *sizes = NULL;
        char **labels = NULL;
        size_t nsizes = 0, nlabels = 0;
        if ((rc = scal_h5file_open(in[i], SCAL_OPEN_CAMPAIGN | SCAL_OPEN_NO_PROBE, &f)) < 0) break;
        rc = scal_format_read_input_sizes(f.id, &sizes, &nsizes);
        if (rc == SCAL_OK && nsizes)
            rc = scal_h5_read_strings(f.id, "campaign/inputs", &labels, &nlabels);
        scal_h5file_close(&f);
        if (rc == SCAL_OK && nsizes && !*out) {
            if (!(*out = malloc((m->ninputs ? m->ninputs : 1) * sizeof(**out))))
                rc = scal__fail(SCAL_ENOMEM, "out of memory merging");
            for (size_t j = 0; rc == SCAL_OK && j < m->ninputs; j++)
                (*out)[j] = NAN;
        }
        for (size_t k = 0; rc == SCAL_OK && k < nlabels && k < nsizes; k++) {
            size_t j = 0;
            while (j < m->ninputs && strcmp(m->inputs[j], labels[k]))
                j++;
            if (j == m->ninputs || !isfinite(sizes[k])) continue;
            if (isfinite((*out)[j]) && (*out)[j] != sizes[k])
                rc = scal__fail(SCAL_ECONFLICT,
                                "input '%s' has size %g in one file and %g in '%s': give each "
                                "input one size",
                                labels[k], (*out)[j], sizes[k], in[i]);
            else
                (*out)[j] = sizes[k];
        }
        scal_h5_free_strings(labels, nlabels);
        free(sizes);
    }
    if (rc < 0) free(*out), *out = NULL;
    return rc;
}

struct new_merged {
    const struct scal_campaign_info *meta;
    const struct merged *m;
    struct scal_cw **w;
};

/* scal_safe_create_with's creation: the merged campaign's plan, left open to add the runs. */
static int create_merged(const char *tmp, void *ctx)
{
    const struct new_merged *nm = ctx;
    return scal_cw_create(tmp, nm->meta, nm->m->configs, nm->m->nconfigs, nm->w);
}

/* Writes the merged campaign to an exclusive temporary name, then moves it to out (never over an
 * existing file). */
static int write_merged(const char *out, const char *const *in, size_t nin,
                        const struct source *src, uint32_t *const *cmap, const struct merged *m)
{
    int64_t reps = 0;
    char note[2048] = "merged from", tmp[4096];
    for (size_t i = 0; i < nin; i++) {
        if (src[i].repetitions > reps) reps = src[i].repetitions;
        size_t used = strlen(note);
        snprintf(note + used, sizeof(note) - used, " %s", in[i]);
    }
    struct scal_campaign_info meta = {.program = src[0].program,
                                      .command = src[0].command,
                                      .order = "merged",
                                      .note = note,
                                      .repetitions = reps,
                                      .inputs = (const char *const *)m->inputs,
                                      .ninputs = m->ninputs,
                                      .threads = m->threads,
                                      .nthreads = m->nthreads};
    struct scal_cw *w = NULL;
    double *sizes = NULL;
    struct repetitions numbers = {.next = calloc(m->nconfigs + 1, sizeof(*numbers.next))};
    int rc = numbers.next ? merge_input_sizes(in, nin, m, &sizes)
                          : scal__fail(SCAL_ENOMEM, "out of memory merging");
    meta.input_sizes = sizes;
    struct new_merged nm = {&meta, m, &w};
    tmp[0] = 0;
    if (rc == SCAL_OK) rc = scal_safe_create_with(out, false, tmp, sizeof(tmp), create_merged, &nm);
    bool made = tmp[0] != 0;
    for (size_t i = 0; i < nin && rc == SCAL_OK; i++)
        rc = add_runs(w, &src[i], cmap[i], &numbers);
    if (w) {
        int crc = scal_cw_close(w);
        if (rc == SCAL_OK) rc = crc;
    }
    if (rc == SCAL_OK)
        rc = scal_safe_publish(tmp, out, false);
    else if (made)
        unlink(tmp);
    free(numbers.next);
    free(sizes);
    return rc;
}

int scal_merge_main(int argc, char **argv)
{
    const char *out = NULL;
    const char **in = calloc((size_t)argc, sizeof(*in));
    size_t nin = 0;
    if (!in) return 2;
    int status = parse_args(argc, argv, in, &nin, &out);
    if (status != MERGE_GO) {
        free(in);
        return status;
    }
    struct source *src = calloc(nin, sizeof(*src));
    uint32_t **cmap = calloc(nin, sizeof(*cmap));
    struct merged m = {0};
    int rc = src && cmap ? load_sources(in, nin, src, cmap, &m)
                         : scal__fail(SCAL_ENOMEM, "out of memory for %zu files", nin);
    if (rc == SCAL_OK) rc = refuse_shared_runs(in, nin, src, cmap);
    if (rc == SCAL_OK) rc = write_merged(out, in, nin, src, cmap, &m);
    if (rc < 0) {
        fprintf(stderr, "scal merge: %s\n", scal__last_error(rc));
    } else {
        size_t runs = 0;
        for (size_t i = 0; i < nin; i++)
            runs += src[i].nruns;
        fprintf(stderr, "scal merge: %zu runs of %zu configurations from %zu files into %s\n", runs,
                m.nconfigs, nin, out);
    }
    for (size_t i = 0; src && i < nin; i++) {
        free_source(&src[i]);
        if (cmap) free(cmap[i]);
    }
    for (size_t i = 0; i < m.ninputs; i++)
        free(m.inputs[i]);
    free(m.inputs), free(m.threads), free(m.configs), free(cmap), free(src);
    free(in);
    return rc < 0 ? 1 : 0;
}

/* ---- collecting the pieces of a Slurm job array into their campaign (scal run --slurm) ------ */

static int cmp_run_key(const void *a, const void *b)
{
    const struct run_key *x = a, *y = b;
    if (x->config != y->config) return x->config < y->config ? -1 : 1;
    if (x->started != y->started) return x->started < y->started ? -1 : 1;
    return x->wall < y->wall ? -1 : x->wall > y->wall;
}

/* Drops the runs of piece s the campaign (source 0) holds already: a piece collected before, whose
 * removal a crash prevented. */
static int drop_collected(const struct source *campaign, struct source *s, const uint32_t *cmap)
{
    struct run_key *keys = malloc((campaign->nruns + 1) * sizeof(*keys));
    if (!keys) return scal__fail(SCAL_ENOMEM, "out of memory for %zu runs", campaign->nruns);
    for (size_t r = 0; r < campaign->nruns; r++)
        keys[r] = (struct run_key){campaign->runs[r].config, campaign->runs[r].started_unix,
                                   campaign->runs[r].wall_s, 0, r};
    qsort(keys, campaign->nruns, sizeof(*keys), cmp_run_key);
    size_t kept = 0;
    for (size_t r = 0; r < s->nruns; r++) {
        struct run_key k = {cmap[s->runs[r].config], s->runs[r].started_unix, s->runs[r].wall_s, 0,
                            0};
        if (!bsearch(&k, keys, campaign->nruns, sizeof(*keys), cmp_run_key))
            s->runs[kept++] = s->runs[r];
    }
    s->nruns = kept;
    free(keys);
    return SCAL_OK;
}

/* The campaign's copy with every piece's runs added, put in its place. */
static int add_pieces(const char *campaign, size_t nin, struct source *src, uint32_t *const *cmap,
                      struct repetitions *reps, size_t *nadded)
{
    char tmp[4096 + 64];
    struct scal_cw *w = NULL;
    int rc = scal_safe_copy_temp(campaign, campaign, true, tmp, sizeof(tmp));
    if (rc < 0) return rc;
    /* the copy of a file the safe open has just read */
    rc = scal_cw_open(tmp, SCAL_OPEN_NO_PROBE, &w);
    for (size_t i = 1; i < nin && rc == SCAL_OK; i++) {
        rc = add_runs(w, &src[i], cmap[i], reps);
        *nadded += src[i].nruns;
    }
    if (w) {
        int crc = scal_cw_close(w);
        if (rc == SCAL_OK) rc = crc;
    }
    if (rc == SCAL_OK) return scal_safe_publish(tmp, campaign, true);
    unlink(tmp);
    return rc;
}

int scal_merge_pieces(const char *campaign, const char *const *pieces, size_t npieces,
                      size_t *nadded)
{
    size_t nin = npieces + 1;
    const char **in = calloc(nin, sizeof(*in));
    struct source *src = calloc(nin, sizeof(*src));
    uint32_t **cmap = calloc(nin, sizeof(*cmap));
    struct merged m = {0};
    struct repetitions reps = {.keep_own = true};
    *nadded = 0;
    int rc = in && src && cmap ? SCAL_OK
                               : scal__fail(SCAL_ENOMEM, "out of memory for %zu pieces", npieces);
    if (rc == SCAL_OK) {
        in[0] = campaign;
        memcpy(in + 1, pieces, npieces * sizeof(*in));
        rc = load_sources(in, nin, src, cmap, &m);
    }
    for (size_t i = 1; rc == SCAL_OK && i < nin; i++)
        if (m.nconfigs != src[0].nconfigs)
            rc = scal__fail(SCAL_ECONFLICT,
                            "'%s' has configurations that the plan of '%s' does not have: it is "
                            "not one of its pieces",
                            in[i], campaign);
    for (size_t i = 1; rc == SCAL_OK && i < nin; i++)
        rc = drop_collected(&src[0], &src[i], cmap[i]);
    if (rc == SCAL_OK) rc = refuse_shared_runs(in + 1, npieces, src + 1, cmap + 1);
    if (rc == SCAL_OK) {
        reps.per = src[0].repetitions > 0 ? (size_t)src[0].repetitions : 1;
        reps.next = calloc(m.nconfigs + 1, sizeof(*reps.next));
        reps.taken = calloc(m.nconfigs * reps.per + 1, 1);
        if (!reps.next || !reps.taken) rc = scal__fail(SCAL_ENOMEM, "out of memory merging");
    }
    for (size_t r = 0; rc == SCAL_OK && r < src[0].nruns; r++) {
        const struct scal_run_row *run = &src[0].runs[r];
        if (run->config < m.nconfigs && run->repetition < reps.per)
            reps.taken[(size_t)run->config * reps.per + run->repetition] = 1;
    }
    if (rc == SCAL_OK) rc = add_pieces(campaign, nin, src, cmap, &reps, nadded);
    for (size_t i = 0; src && i < nin; i++) {
        free_source(&src[i]);
        if (cmap) free(cmap[i]);
    }
    for (size_t i = 0; i < m.ninputs; i++)
        free(m.inputs[i]);
    free(m.inputs), free(m.threads), free(m.configs), free(cmap), free(src), free(in);
    free(reps.next), free(reps.taken);
    return rc;
}
