// SPDX-License-Identifier: BSD-3-Clause
// Anomaly counters (hot path, relaxed atomics) and a bounded list of messages (cold paths only).
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tool.h"

_Atomic uint64_t scal_diag_counters[SCAL_DIAG_COUNT];

static const char *const names[] = {
#define SCAL_DIAG_NAME(name, text) #name,
    SCAL_DIAG_MAP(SCAL_DIAG_NAME)
#undef SCAL_DIAG_NAME
};
static const char *const texts[] = {
#define SCAL_DIAG_TEXT(name, text) text,
    SCAL_DIAG_MAP(SCAL_DIAG_TEXT)
#undef SCAL_DIAG_TEXT
};

const char *scal_diag_name(enum scal_diag_id id)
{
    return id < SCAL_DIAG_COUNT ? names[id] : "unknown";
}

const char *scal_diag_text(enum scal_diag_id id)
{
    return id < SCAL_DIAG_COUNT ? texts[id] : "unknown";
}

#define MAX_MESSAGES 32
static char message_store[MAX_MESSAGES][512];
static const char *message_ptrs[MAX_MESSAGES];
static size_t message_count;

/* Called only from initialisation and flush, which do not run concurrently. */
void scal_diag_message(const char *fmt, ...)
{
    va_list ap;
    if (message_count >= MAX_MESSAGES) return;
    va_start(ap, fmt);
    vsnprintf(message_store[message_count], sizeof(message_store[0]), fmt, ap);
    va_end(ap);
    message_ptrs[message_count] = message_store[message_count];
    message_count++;
}

size_t scal_diag_messages(const char *const **out)
{
    *out = message_ptrs;
    return message_count;
}
