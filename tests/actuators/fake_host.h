// SPDX-License-Identifier: BSD-3-Clause
/* A minimal stand-in for the plugin host in the actuator tests: loads a plugin, resolves options,
 * records what a launch was told, and builds fake sysfs trees. */
#ifndef SCAL_TESTS_FAKE_HOST_H
#define SCAL_TESTS_FAKE_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "scal/plugin.h"

extern int fake_failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            fake_failures++;                                                                       \
        }                                                                                          \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *got_ = (got), *want_ = (want);                                                 \
        if (!got_ || strcmp(got_, want_) != 0) {                                                   \
            fprintf(stderr, "%s:%d: %s is '%s', expected '%s'\n", __FILE__, __LINE__, #got,        \
                    got_ ? got_ : "(null)", want_);                                                \
            fake_failures++;                                                                       \
        }                                                                                          \
    } while (0)

/* CHECK that a status is rc and, when sub is not NULL, that the message contains sub. */
#define CHECK_RC(status, rc, why, sub)                                                             \
    do {                                                                                           \
        int st_ = (status);                                                                        \
        const char *sub_ = (sub);                                                                  \
        if (st_ != (rc) || (sub_ && !strstr((why), sub_))) {                                       \
            fprintf(stderr, "%s:%d: %s returned %d '%s', expected %d with '%s'\n", __FILE__,       \
                    __LINE__, #status, st_, (why), (rc), sub_ ? sub_ : "");                        \
            fake_failures++;                                                                       \
        }                                                                                          \
    } while (0)

struct fake_plugin {
    void *dl;
    const struct scal_plugin_desc *desc;
    const struct scal_actuator_ops *ops;
};

/* dlopens path, checks the ABI and that it is a complete actuator; prints and returns false on
 * failure. */
bool fake_load(const char *path, struct fake_plugin *p);
void fake_unload(struct fake_plugin *p);

#define FAKE_MAX_OPTS 16
struct scal_options {
    const struct scal_option_desc *table;
    char names[FAKE_MAX_OPTS][64];
    char values[FAKE_MAX_OPTS][512];
    size_t n;
};

struct fake_env {
    struct scal_plugin_env env;
    struct scal_options opts;
};

/* Fills fe from "name=value" strings (NULL-terminated list or NULL) and a sysfs root (NULL: "/").
 */
void fake_env_init(struct fake_env *fe, const struct fake_plugin *p, const char *const *opts,
                   const char *sysfs_root);
/* fake_env_init + the plugin's init. */
int fake_start(const struct fake_plugin *p, struct fake_env *fe, const char *const *opts,
               const char *sysfs_root, scal_actuator_state **state, char *why, size_t whylen);

#define FAKE_MAX_ITEMS 64
struct fake_launch {
    struct scal_launch base; /* first: the plugin sees this */
    char *env_names[FAKE_MAX_ITEMS], *env_values[FAKE_MAX_ITEMS];
    size_t nenv;
    char *ph_names[FAKE_MAX_ITEMS], *ph_values[FAKE_MAX_ITEMS];
    size_t nph;
    char *args[FAKE_MAX_ITEMS];
    size_t nargs;
    char *cpus; /* the last set_cpus list, NULL when never called */
};

/* abi_1_1 false builds an ABI 1.0 launch (struct_size without set_cpus). */
void fake_launch_init(struct fake_launch *l, bool abi_1_1);
void fake_launch_free(struct fake_launch *l);
const char *fake_launch_env(const struct fake_launch *l, const char *name);
const char *fake_launch_placeholder(const struct fake_launch *l, const char *name);

/* A new empty directory (mkdtemp); malloc'd path. */
char *fake_tree_new(void);
/* Writes text + "\n" to root/rel, creating the directories. */
void fake_tree_put(const char *root, const char *rel, const char *text);
/* root/rel's content without the trailing newline in a static buffer; NULL when unreadable. */
const char *fake_tree_get(const char *root, const char *rel);
/* Every regular file under root as sorted "rel=content" lines (malloc'd). */
char *fake_tree_snapshot(const char *root);
/* Runs fn(arg) where a mode 0444 file cannot be written: in-process for a normal user; as root, in
 * a child that became nobody (65534). Adds the child's failures; returns false when it could not
 * drop privileges (the caller notes the skip). */
bool fake_unprivileged(void (*fn)(void *), void *arg);
/* Removes root recursively and frees it. */
void fake_tree_free(char *root);

#endif
