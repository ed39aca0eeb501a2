// SPDX-License-Identifier: BSD-3-Clause
// Closest known word to a mistyped one (optimal string alignment distance).
#include "suggest.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#define SUGGEST_MAX_LEN 64 /* longer words are not commands or options: no suggestion */
#define SUGGEST_MAX_OPTIONS 64

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    return d[la][lb];
}

const char *scal_suggest(const char *word, const char *const *candidates)
{
    size_t len = strlen(word), limit = len / 3 > 1 ? len / 3 : 1, best_d = limit + 1;
    const char *best = NULL;
    if (len > SUGGEST_MAX_LEN) return NULL;
    for (size_t i = 0; candidates[i]; i++) {
        if (strlen(candidates[i]) > SUGGEST_MAX_LEN) continue;
        size_t dd = distance(word, candidates[i]);
        if (dd < best_d) {
            best_d = dd;
            best = candidates[i];
        }
    }
    return best;
}

const char *scal_suggest_option(const char *word, const struct option *longopts, char *buf,
                                size_t len)
{
    char names[SUGGEST_MAX_OPTIONS][SUGGEST_MAX_LEN + 3];
    const char *list[SUGGEST_MAX_OPTIONS + 1];
    size_t n = 0;
    for (; longopts[n].name && n < SUGGEST_MAX_OPTIONS; n++) {
        snprintf(names[n], sizeof(names[n]), "--%s", longopts[n].name);
        list[n] = names[n];
    }
    list[n] = NULL;
    const char *near = scal_suggest(word, list);
    if (!near) return NULL;
    snprintf(buf, len, "%s", near);
    return buf;
}
