// SPDX-License-Identifier: BSD-3-Clause
// A tiny stand-in for the plugin host in sensor tests: loads a plugin by path, checks its
// descriptor and hands it options given as "name=value" strings.
#ifndef SCAL_TESTS_FAKE_HOST_H
#define SCAL_TESTS_FAKE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "scal/plugin.h"

#define FAKE_MAX_OPTIONS 16

struct scal_options {
    const struct scal_option_desc *desc; // the plugin's table, for defaults and known names
    const char *set[FAKE_MAX_OPTIONS];   // "name=value"
    size_t nset;
};

struct fake_plugin {
    void *dl;
    const struct scal_plugin_desc *desc;
    const struct scal_sensor_ops *ops;
    struct scal_options options;
    struct scal_plugin_env env;
};

// Loads the sensor plugin at path and checks its descriptor (ABI, size, kind, name, options
// table, mandatory ops). Prints what is wrong and returns false on failure.
bool fake_load(struct fake_plugin *p, const char *path, const char *expect_name);
// Sets options ("name=value", kept by pointer) and env->sysfs_root (NULL for "/").
void fake_options(struct fake_plugin *p, const char *const *set, size_t nset,
                  const char *sysfs_root);
// Forgets the plugin; dlclose()s it when close is true. (libpapi stays loaded: it cannot be
// unloaded cleanly, and LeakSanitizer names its allocations only while it is mapped.)
void fake_unload(struct fake_plugin *p, bool close);

// Index of a metric by name in the plugin's list, or -1.
int fake_metric_index(const struct scal_metric_desc *m, size_t n, const char *name);

// A fresh temporary directory (mode 0755) for fake sysfs trees; NULL on failure.
char *fake_tmpdir(char *buf, size_t len);
// Writes text to root/rel, creating the directories on the way. False (printed) on failure.
bool fake_write(const char *root, const char *rel, const char *text);
// Removes a directory tree.
void fake_rmtree(const char *root);

// Test bookkeeping: CHECK prints the failed condition and counts it.
extern int fake_failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            fake_failures++;                                                                       \
        }                                                                                          \
    } while (0)
// Exit status for main: 0 when every check passed.
int fake_result(const char *test);

#endif
