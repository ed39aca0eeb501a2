// SPDX-License-Identifier: BSD-3-Clause
// The one plugin loader on fixture plugins: struct_size checks of the descriptor and of operation
// tables (size 0, too small, older and smaller, newer and larger) for sensors and post-processing
// plugins, the defaults of optional operations, the kind check, options and the sysfs-root rule.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_loader.h"
#include "scal_test.h"

static const char *dir;

static int load(const char *name, int want, const char *const *settings, size_t n,
                struct scal_loaded_plugin *p, char *why, size_t whylen)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/libscal_%s.so", dir, name);
    why[0] = '\0';
    return scal_plugin_load(path, want, settings, n, p, why, whylen);
}

static void refused(const char *name, int want, int rc, const char *const *subs)
{
    struct scal_loaded_plugin p;
    char why[SCAL_PLUGIN_WHY_MAX];
    CHECK_RC(load(name, want, NULL, 0, &p, why, sizeof(why)), rc, why, NULL);
    CHECK(p.desc == NULL && p.handle == NULL, "%s: nothing to close after a failure", name);
    CHECK(strstr(why, dir) != NULL, "%s: the message names the file: %s", name, why);
    for (size_t i = 0; subs[i]; i++)
        CHECK(strstr(why, subs[i]) != NULL, "%s: '%s' lacks '%s'", name, why, subs[i]);
}

static void test_sizes(void)
{
    refused("zeroops", SCAL_PLUGIN_SENSOR, SCAL_EABI,
            (const char *[]){"scal_plugin_entry()->sensor operation table", "is 0 bytes",
                             "too small to hold init and metrics", NULL});
    refused("smalldesc", 0, SCAL_EABI,
            (const char *[]){"scal_plugin_entry() descriptor of sensor plugin 'smalldesc'",
                             "too small to hold its operation table", NULL});
    refused("pp_zeroops", SCAL_PLUGIN_POSTPROC, SCAL_EABI,
            (const char *[]){"scal_plugin_entry()->postproc operation table", "is 0 bytes",
                             "too small to hold run", NULL});
    refused("pp_small", SCAL_PLUGIN_POSTPROC, SCAL_EABI,
            (const char *[]){"->postproc operation table", "too small to hold run", NULL});
    refused("wrongkind", SCAL_PLUGIN_SENSOR, SCAL_EINVAL,
            (const char *[]){"is a actuator plugin, not a sensor plugin", NULL});
    struct scal_loaded_plugin p;
    char why[SCAL_PLUGIN_WHY_MAX];
    load("wrongkind", SCAL_PLUGIN_POSTPROC, NULL, 0, &p, why, sizeof(why));
    CHECK(p.kind == SCAL_PLUGIN_ACTUATOR, "the kind found is kept after a refusal: %d", p.kind);
    refused("abi_future", 0, SCAL_EABI, (const char *[]){"plugin ABI 2.0", NULL});

    /* An older, smaller table: what lies beyond its struct_size is never called (it aborts). */
    CHECK_RC(load("oldops", SCAL_PLUGIN_SENSOR, NULL, 0, &p, why, sizeof(why)), SCAL_OK, why, NULL);
    if (p.desc) {
        const struct scal_sensor_ops *o = p.desc->sensor;
        double v[1];
        scal_sensor_thread *t = (scal_sensor_thread *)&p;
        CHECK(o->struct_size == sizeof(*o), "the host's table is full size: %u", o->struct_size);
        CHECK(o->timing == 0, "run and region timing dropped without read/thread_read: %u",
              o->timing);
        CHECK(o->read(NULL, v) == SCAL_EUNAVAIL && o->thread_read(NULL, NULL, v) == SCAL_EUNAVAIL,
              "default reads");
        CHECK(o->thread_init(NULL, &t, why, sizeof(why)) == SCAL_OK && t == NULL,
              "default thread_init: no per-thread state");
        o->thread_fini(NULL, NULL);
        o->fini(NULL);
        CHECK(p.desc->struct_size == sizeof(*p.desc), "descriptor copy size");
        scal_plugin_unload(&p);
    }
    /* A newer, larger table loads; members past this host's table are ignored. */
    CHECK_RC(load("newops", SCAL_PLUGIN_SENSOR, NULL, 0, &p, why, sizeof(why)), SCAL_OK, why, NULL);
    if (p.desc) {
        CHECK(p.desc->sensor->timing == SCAL_SENSOR_RUN, "timing %u", p.desc->sensor->timing);
        scal_plugin_unload(&p);
    }
}

static void test_actuator_defaults(void)
{
    struct scal_loaded_plugin p;
    char why[SCAL_PLUGIN_WHY_MAX], out[32] = "x";
    CHECK_RC(load("minact", SCAL_PLUGIN_ACTUATOR, NULL, 0, &p, why, sizeof(why)), SCAL_OK, why,
             NULL);
    if (!p.desc) return;
    const struct scal_actuator_ops *o = p.desc->actuator;
    CHECK(o->test(NULL, why, sizeof(why)) == SCAL_OK && o->save(NULL, why, sizeof(why)) == SCAL_OK,
          "default test and save succeed");
    CHECK(o->observe(NULL, out, sizeof(out)) == SCAL_EUNAVAIL && out[0] == '\0',
          "default observe: nothing to report");
    CHECK(o->restore(NULL, why, sizeof(why)) == SCAL_OK, "the plugin's own restore");
    o->fini(NULL);
    scal_plugin_unload(&p);
}

/* The plugin's sysfs_root option when the user set it, else SCAL_SYSFS_ROOT, else "/"; the
 * option's default ("/" here) never counts. */
static void test_sysfs_root(void)
{
    struct scal_loaded_plugin p;
    char why[SCAL_PLUGIN_WHY_MAX];
    const char *const own[] = {"sysfs_root=/from/setting"};
    struct {
        const char *global, *plugin_env;
        const char *const *settings;
        const char *want;
    } cases[] = {
        {NULL, NULL, NULL, "/"},
        {"/from/global", NULL, NULL, "/from/global"},
        {"/from/global", "/from/plugin/env", NULL, "/from/plugin/env"},
        {"/from/global", "/from/plugin/env", own, "/from/setting"},
        {NULL, NULL, own, "/from/setting"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (cases[i].global)
            setenv("SCAL_SYSFS_ROOT", cases[i].global, 1);
        else
            unsetenv("SCAL_SYSFS_ROOT");
        if (cases[i].plugin_env)
            setenv("SCAL_NEWOPS_SYSFS_ROOT", cases[i].plugin_env, 1);
        else
            unsetenv("SCAL_NEWOPS_SYSFS_ROOT");
        CHECK_RC(
            load("newops", 0, cases[i].settings, cases[i].settings ? 1 : 0, &p, why, sizeof(why)),
            SCAL_OK, why, NULL);
        if (!p.desc) continue;
        CHECK(strcmp(p.env.sysfs_root, cases[i].want) == 0, "case %zu: root '%s', want '%s'", i,
              p.env.sysfs_root, cases[i].want);
        scal_plugin_unload(&p);
    }
    unsetenv("SCAL_SYSFS_ROOT");
    unsetenv("SCAL_NEWOPS_SYSFS_ROOT");
}

static void test_options(void)
{
    struct scal_loaded_plugin p;
    char why[SCAL_PLUGIN_WHY_MAX];
    CHECK_RC(load("pp_opt", SCAL_PLUGIN_POSTPROC, NULL, 0, &p, why, sizeof(why)), SCAL_OK, why,
             NULL);
    if (p.desc) {
        CHECK_STR(p.env.get_option(p.env.options, "greeting"), "hello");
        CHECK(p.env.get_option(p.env.options, "nosuch") == NULL, "unknown option");
        scal_plugin_unload(&p);
    }
    setenv("SCAL_PP_OPT_GREETING", "from-env", 1);
    CHECK_RC(load("pp_opt", SCAL_PLUGIN_POSTPROC, NULL, 0, &p, why, sizeof(why)), SCAL_OK, why,
             NULL);
    if (p.desc) {
        CHECK_STR(p.env.get_option(p.env.options, "greeting"), "from-env");
        scal_plugin_unload(&p);
    }
    const char *const set[] = {"greeting=from-setting"};
    CHECK_RC(load("pp_opt", SCAL_PLUGIN_POSTPROC, set, 1, &p, why, sizeof(why)), SCAL_OK, why,
             NULL);
    if (p.desc) {
        CHECK_STR(p.env.get_option(p.env.options, "greeting"), "from-setting");
        scal_plugin_unload(&p);
    }
    unsetenv("SCAL_PP_OPT_GREETING");
    const char *const bad[] = {"nosuch=1"};
    CHECK_RC(load("pp_opt", SCAL_PLUGIN_POSTPROC, bad, 1, &p, why, sizeof(why)), SCAL_EINVAL, why,
             "plugin 'pp_opt' has no option 'nosuch' (its options: greeting, sysfs_root)");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    test_sizes();
    test_actuator_defaults();
    test_sysfs_root();
    test_options();
    return scal_test_result("test_loader");
}
