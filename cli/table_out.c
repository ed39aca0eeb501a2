// SPDX-License-Identifier: BSD-3-Clause
// Text tables: aligned columns for terminals, RFC 4180 CSV or JSON for scripts.
#include "table_out.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int table_init(struct table_out *t, size_t ncols, const char *const *header, const bool *right)
{
    memset(t, 0, sizeof(*t));
    t->ncols = ncols;
    t->right = calloc(ncols, sizeof(*t->right));
    if (!t->right) return -1;
    if (right) memcpy(t->right, right, ncols * sizeof(*right));
    return table_add_row(t, header);
}

int table_add_row(struct table_out *t, const char *const *cells)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **grown = realloc(t->cells, cap * t->ncols * sizeof(*grown));
        if (!grown) return -1;
        t->cells = grown;
        t->cap = cap;
    }
    for (size_t c = 0; c < t->ncols; c++) {
        t->cells[t->nrows * t->ncols + c] = strdup(cells[c] ? cells[c] : "");
        if (!t->cells[t->nrows * t->ncols + c]) return -1;
    }
    t->nrows++;
    return 0;
}

void table_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void print_csv_cell(FILE *out, const char *s)
{
    /* The aligned view indents labels with spaces; CSV carries the depth in its own column. */
    while (*s == ' ')
        s++;
    table_csv_field(out, s);
}

/* A cell of a number column: an integer, a number, null when empty (else the text itself). */
static json_t *cell_json(const char *cell, bool number)
{
    char *end = NULL;
    if (!number) return json_string(cell);
    if (!*cell) return json_null();
    long long i = strtoll(cell, &end, 10);
    if (!*end) return json_integer(i);
    double v = strtod(cell, &end);
    return !*end && isfinite(v) ? json_real(v) : json_string(cell);
}

static void print_json(const struct table_out *t, FILE *out)
{
    json_t *rows = json_array();
    for (size_t r = 1; r < t->nrows; r++) {
        json_t *o = json_object();
        for (size_t c = 0; c < t->ncols; c++) {
            json_t *j = cell_json(t->cells[r * t->ncols + c], t->right[c]);
            json_object_set_new(o, t->cells[c], j ? j : json_null());
        }
        json_array_append_new(rows, o);
    }
    json_dumpf(rows, out, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    fputc('\n', out);
    json_decref(rows);
}

void table_print(const struct table_out *t, FILE *out, enum table_format format)
{
    bool csv = format == TABLE_CSV;
    if (format == TABLE_JSON) {
        print_json(t, out);
        return;
    }
    size_t *width = calloc(t->ncols, sizeof(*width));
    if (!width) return;
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            size_t w = strlen(t->cells[r * t->ncols + c]);
            if (w > width[c]) width[c] = w;
        }
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            const char *cell = t->cells[r * t->ncols + c];
            if (csv) {
                if (c) fputc(',', out);
                print_csv_cell(out, cell);
            } else {
                bool last = c + 1 == t->ncols;
                if (c) fputs("  ", out);
                if (t->right[c])
                    fprintf(out, "%*s", (int)width[c], cell);
                else if (last)
                    fputs(cell, out);
                else
                    fprintf(out, "%-*s", (int)width[c], cell);
            }
        }
        fputc('\n', out);
        if (!csv && r == 0) {
            size_t total = 0;
            for (size_t c = 0; c < t->ncols; c++)
                total += width[c] + (c ? 2 : 0);
            for (size_t i = 0; i < total; i++)
                fputc('-', out);
            fputc('\n', out);
        }
    }
    free(width);
}

void table_free(struct table_out *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->right);
    memset(t, 0, sizeof(*t));
}
