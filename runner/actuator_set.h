/* SPDX-License-Identifier: BSD-3-Clause */
/* The actuators of a campaign, loaded as plugins: each saves what it changes once, applies a value
 * before every run and restores everything at the end and on every exit path. */
#ifndef SCAL_ACTUATOR_SET_H
#define SCAL_ACTUATOR_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin_loader.h"

#define SCAL_MAX_ACTUATORS 8

struct scal_actuator {
    struct scal_loaded_plugin lp;
    scal_actuator_state *state;
    bool saved;
};

struct scal_actuator_set {
    struct scal_actuator a[SCAL_MAX_ACTUATORS];
    size_t n;
};

/* Loads and starts the actuator `name` with "option=value" settings; unavailable is an error
 * (the user asked for it) with the reason in why. Returns its index. */
int scal_actuators_add(struct scal_actuator_set *s, const char *name, const char *const *settings,
                       size_t nsettings, char *why, size_t whylen);
/* save() of every actuator, once. */
int scal_actuators_save(struct scal_actuator_set *s, char *why, size_t whylen);
int scal_actuators_apply(struct scal_actuator_set *s, int index, const char *value,
                         struct scal_launch *launch, char *why, size_t whylen);
int scal_actuators_observe(struct scal_actuator_set *s, int index, char *out, size_t len);
/* restore() of every saved actuator, last first; keeps going on errors, reports the first. */
int scal_actuators_restore(struct scal_actuator_set *s, char *why, size_t whylen);
void scal_actuators_free(struct scal_actuator_set *s);

#endif
