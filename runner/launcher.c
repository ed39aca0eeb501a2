// SPDX-License-Identifier: BSD-3-Clause
// The MPI launcher template of scal run --ranks: placeholders, shell-like word splitting through
// wordexp(3) without command substitution, and prepending to a launch's command line.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wordexp.h>

#include "errmsg.h"
#include "launcher.h"

/* The template with every {ranks} and {threads} replaced by the numbers (malloc'ed). */
static char *fill(const char *tmpl, int32_t ranks, int32_t threads)
{
    static const char *const names[] = {"{ranks}", "{threads}"};
    char num[2][16];
    snprintf(num[0], sizeof(num[0]), "%d", (int)ranks);
    snprintf(num[1], sizeof(num[1]), "%d", (int)threads);
    size_t len = strlen(tmpl) * 4 + 64, o = 0; /* numbers are at most as long as 4 placeholders */
    char *out = malloc(len);
    if (!out) return NULL;
    for (const char *c = tmpl; *c && o + 16 < len;) {
        int k = !strncmp(c, names[0], strlen(names[0]))   ? 0
                : !strncmp(c, names[1], strlen(names[1])) ? 1
                                                          : -1;
        if (k >= 0) {
            o += (size_t)snprintf(out + o, len - o, "%s", num[k]);
            c += strlen(names[k]);
        } else
            out[o++] = *c++;
    }
    out[o] = 0;
    return out;
}

static const char *wordexp_problem(int rc)
{
    switch (rc) {
    case WRDE_BADCHAR:
        return "an unquoted character the shell treats specially (one of | & ; < > ( ) { } or a "
               "newline): quote it";
    case WRDE_BADVAL:
        return "an undefined environment variable";
    case WRDE_CMDSUB:
        return "command substitution ($(...) or `...`), which scal does not run";
    case WRDE_NOSPACE:
        return "out of memory";
    case WRDE_SYNTAX:
        return "a shell syntax error (an unbalanced quote?)";
    }
    return "an error";
}

int scal_launcher_words(const char *tmpl, int32_t ranks, int32_t threads, char ***words, size_t *n)
{
    wordexp_t we;
    *words = NULL;
    *n = 0;
    char *text = fill(tmpl, ranks, threads);
    if (!text) return scal__fail(SCAL_ENOMEM, "out of memory for the launcher template");
    int rc = wordexp(text, &we, WRDE_NOCMD | WRDE_UNDEF);
    free(text);
    if (rc != 0) {
        if (rc == WRDE_NOSPACE) wordfree(&we);
        return scal__fail(SCAL_EINVAL, "bad --launcher '%s': %s", tmpl, wordexp_problem(rc));
    }
    if (we.we_wordc == 0) {
        wordfree(&we);
        return scal__fail(SCAL_EINVAL, "bad --launcher '%s': no command", tmpl);
    }
    char **v = calloc(we.we_wordc + 1, sizeof(*v));
    for (size_t i = 0; v && i < we.we_wordc; i++)
        if (!(v[i] = strdup(we.we_wordv[i]))) {
            scal_launcher_free(v, i);
            v = NULL;
        }
    *n = v ? we.we_wordc : 0;
    wordfree(&we);
    if (!v) return scal__fail(SCAL_ENOMEM, "out of memory for the launcher template");
    *words = v;
    return SCAL_OK;
}

void scal_launcher_free(char **words, size_t n)
{
    for (size_t i = 0; words && i < n; i++)
        free(words[i]);
    free(words);
}

int scal_launcher_prepend(struct scal_run_launch *l, const char *tmpl, int32_t ranks,
                          int32_t threads)
{
    char **words = NULL;
    size_t n = 0;
    int rc = scal_launcher_words(tmpl, ranks, threads, &words, &n);
    if (rc < 0) return rc;
    char **v = realloc(l->argv, (l->argc + n + 1) * sizeof(*v));
    if (!v) {
        scal_launcher_free(words, n);
        return SCAL_ENOMEM;
    }
    l->argv = v;
    memmove(v + n, v, (l->argc + 1) * sizeof(*v)); /* with the terminating NULL */
    memcpy(v, words, n * sizeof(*v));
    l->argc += n;
    free(words); /* the strings now belong to l */
    return SCAL_OK;
}
