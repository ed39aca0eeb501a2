// SPDX-License-Identifier: BSD-3-Clause
// A campaign's actuators (see actuator_set.h).
#include <stdio.h>
#include <string.h>

#include "actuator_set.h"

int scal_actuators_add(struct scal_actuator_set *s, const char *name, const char *const *settings,
                       size_t nsettings, char *why, size_t whylen)
{
    if (s->n == SCAL_MAX_ACTUATORS) {
        snprintf(why, whylen, "too many actuators");
        return SCAL_ERANGE;
    }
    struct scal_actuator *a = &s->a[s->n];
    char reason[SCAL_PLUGIN_WHY_MAX] = "";
    int rc = scal_plugin_load(name, SCAL_PLUGIN_ACTUATOR, settings, nsettings, &a->lp, reason,
                              sizeof(reason));
    if (rc < 0) {
        snprintf(why, whylen, "actuator '%s': %s", name, reason);
        return rc;
    }
    const struct scal_actuator_ops *ops = a->lp.desc->actuator;
    rc = ops->init(&a->lp.env, &a->state, reason, sizeof(reason));
    if (rc == SCAL_OK) rc = ops->test(a->state, reason, sizeof(reason));
    if (rc < 0) {
        snprintf(why, whylen, "actuator '%s' unavailable: %s", name,
                 reason[0] ? reason : scal_strerror(rc));
        if (a->state) ops->fini(a->state);
        scal_plugin_unload(&a->lp);
        return rc;
    }
    return (int)s->n++;
}

int scal_actuators_save(struct scal_actuator_set *s, char *why, size_t whylen)
{
    for (size_t i = 0; i < s->n; i++) {
        struct scal_actuator *a = &s->a[i];
        char reason[SCAL_PLUGIN_WHY_MAX] = "";
        if (a->saved) continue;
        int rc = a->lp.desc->actuator->save(a->state, reason, sizeof(reason));
        if (rc < 0) {
            snprintf(why, whylen, "actuator '%s' cannot save the current setting: %s", a->lp.name,
                     reason);
            return rc;
        }
        a->saved = true;
    }
    return SCAL_OK;
}

int scal_actuators_apply(struct scal_actuator_set *s, int index, const char *value,
                         struct scal_launch *launch, char *why, size_t whylen)
{
    struct scal_actuator *a = &s->a[index];
    char reason[SCAL_PLUGIN_WHY_MAX] = "";
    int rc = a->lp.desc->actuator->apply(a->state, value, launch, reason, sizeof(reason));
    if (rc < 0)
        snprintf(why, whylen, "actuator '%s' cannot apply '%s': %s", a->lp.name, value,
                 reason[0] ? reason : scal_strerror(rc));
    return rc;
}

int scal_actuators_observe(struct scal_actuator_set *s, int index, char *out, size_t len)
{
    struct scal_actuator *a = &s->a[index];
    out[0] = 0;
    return a->lp.desc->actuator->observe(a->state, out, len);
}

int scal_actuators_restore(struct scal_actuator_set *s, char *why, size_t whylen)
{
    int first = SCAL_OK;
    for (size_t i = s->n; i-- > 0;) {
        struct scal_actuator *a = &s->a[i];
        char reason[SCAL_PLUGIN_WHY_MAX] = "";
        if (!a->saved) continue;
        int rc = a->lp.desc->actuator->restore(a->state, reason, sizeof(reason));
        if (rc < 0 && first == SCAL_OK) {
            first = rc;
            snprintf(why, whylen, "actuator '%s' could not restore the machine: %s", a->lp.name,
                     reason);
        }
    }
    return first;
}

void scal_actuators_free(struct scal_actuator_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->a[i].state) s->a[i].lp.desc->actuator->fini(s->a[i].state);
        scal_plugin_unload(&s->a[i].lp);
    }
    s->n = 0;
}
