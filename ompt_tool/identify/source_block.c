// SPDX-License-Identifier: BSD-3-Clause
// The last line of an OpenMP construct's structured block, read from the program's source: one
// definition of a region's line range for every compiler. The line tables cannot give it alike:
// clang outlines task bodies elsewhere, gcc's rows of a body include inlined callees, and either
// may drop the rows of a closing brace when optimising.
//
// The block is the statement after the directive line (and after further directive lines: a
// construct such as `parallel` followed by `single` or `for`): a compound statement ends at its
// closing brace; for/while/switch/if(-else)/do-while/try-catch statements end where their last
// sub-statement ends; any other statement at its semicolon outside brackets. Comments, string and
// character literals, line continuations and preprocessor lines are skipped. Runs in the writer
// (never in a callback).
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_block.h"

#define MAX_SOURCE_BYTES (64u << 20)
#define MAX_NESTING 256

struct lexer {
    const char *s, *end;
    int line;
    /* the current token */
    const char *tok;
    size_t len;
    int tok_line;
};

/* Skips blanks, comments and preprocessor lines (a '#' first on its line), counting lines. */
static void skip_space(struct lexer *x)
{
    bool line_start = false;
    while (x->s < x->end) {
        char c = *x->s;
        if (c == '\n') {
            x->line++;
            x->s++;
            line_start = true;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            x->s++;
        } else if (c == '\\' && x->s + 1 < x->end && x->s[1] == '\n') {
            x->s += 2;
            x->line++;
        } else if (c == '/' && x->s + 1 < x->end && x->s[1] == '/') {
            while (x->s < x->end && *x->s != '\n') {
                if (*x->s == '\\' && x->s + 1 < x->end && x->s[1] == '\n') {
                    x->line++;
                    x->s++;
                }
                x->s++;
            }
        } else if (c == '/' && x->s + 1 < x->end && x->s[1] == '*') {
            x->s += 2;
            while (x->s + 1 < x->end && !(x->s[0] == '*' && x->s[1] == '/')) {
                if (*x->s == '\n') x->line++;
                x->s++;
            }
            x->s = x->s + 2 <= x->end ? x->s + 2 : x->end;
        } else if (c == '#' && line_start) {
            while (x->s < x->end && *x->s != '\n') {
                if (*x->s == '\\' && x->s + 1 < x->end && x->s[1] == '\n') {
                    x->line++;
                    x->s++;
                }
                x->s++;
            }
        } else {
            return;
        }
    }
}

/* Reads the next token: an identifier or number, a literal, or one punctuation character. */
static bool next(struct lexer *x)
{
    skip_space(x);
    if (x->s >= x->end) return false;
    x->tok = x->s;
    x->tok_line = x->line;
    char c = *x->s;
    if (isalnum((unsigned char)c) || c == '_') {
        while (x->s < x->end && (isalnum((unsigned char)*x->s) || *x->s == '_'))
            x->s++;
    } else if (c == '"' || c == '\'') {
        x->s++;
        while (x->s < x->end && *x->s != c && *x->s != '\n') {
            if (*x->s == '\\' && x->s + 1 < x->end) x->s++;
            x->s++;
        }
        if (x->s < x->end && *x->s == c) x->s++;
    } else {
        x->s++;
    }
    x->len = (size_t)(x->s - x->tok);
    return true;
}

static bool is(const struct lexer *x, const char *word)
{
    return x->len == strlen(word) && !memcmp(x->tok, word, x->len);
}

/* Skips a bracketed group whose opening token is current; false at the end of the text. */
static bool skip_group(struct lexer *x)
{
    int depth = 0;
    do {
        char c = x->len == 1 ? *x->tok : 0;
        if (c == '(' || c == '[' || c == '{') depth++;
        if (c == ')' || c == ']' || c == '}') depth--;
        if (depth == 0) return true;
    } while (next(x));
    return false;
}

/* Parses the statement starting at the current token; leaves its last token current. */
static bool statement(struct lexer *x, int nesting)
{
    if (nesting > MAX_NESTING) return false;
    if (is(x, "{")) return skip_group(x);
    if (is(x, "for") || is(x, "while") || is(x, "switch") || is(x, "if")) {
        bool is_if = is(x, "if");
        if (!next(x)) return false;
        if (is(x, "constexpr") && !next(x)) return false; /* C++ if constexpr */
        if (!is(x, "(") || !skip_group(x) || !next(x) || !statement(x, nesting + 1)) return false;
        if (is_if) {
            /* look ahead for else */
            struct lexer save = *x;
            if (next(x) && is(x, "else")) return next(x) && statement(x, nesting + 1);
            *x = save;
        }
        return true;
    }
    if (is(x, "do")) {
        if (!next(x) || !statement(x, nesting + 1) || !next(x) || !is(x, "while")) return false;
        return next(x) && skip_group(x) && next(x) && is(x, ";");
    }
    if (is(x, "try")) {
        if (!next(x) || !statement(x, nesting + 1)) return false;
        for (;;) {
            struct lexer save = *x;
            if (!next(x) || !is(x, "catch")) {
                *x = save;
                return true;
            }
            if (!next(x) || !skip_group(x) || !next(x) || !statement(x, nesting + 1)) return false;
        }
    }
    /* an expression or declaration statement: up to its semicolon outside brackets */
    do {
        if (is(x, ";")) return true;
        if (x->len == 1 && (*x->tok == '(' || *x->tok == '[' || *x->tok == '{') && !skip_group(x))
            return false;
    } while (next(x));
    return false;
}

int scal_source_block_last(const char *text, size_t size, int pragma_line)
{
    struct lexer x = {text, text + size, 1, NULL, 0, 0};
    /* to the start of the directive's line */
    while (x.line < pragma_line && x.s < x.end)
        if (*x.s++ == '\n') x.line++;
    if (x.line != pragma_line) return -1;
    const char *p = x.s;
    while (p < x.end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= x.end || *p != '#') return -1;
    p++;
    while (p < x.end && (*p == ' ' || *p == '\t'))
        p++;
    if (x.end - p < 6 || memcmp(p, "pragma", 6) != 0) return -1;
    p += 6;
    while (p < x.end && (*p == ' ' || *p == '\t'))
        p++;
    if (x.end - p < 3 || memcmp(p, "omp", 3) != 0) return -1;
    /* the directive line itself is skipped as a preprocessor line: start just before it */
    x.s = x.s > text ? x.s - 1 : x.s;
    if (x.s == text && *x.s != '\n') {
        /* the directive is on the file's first line: step over it by hand */
        while (x.s < x.end && *x.s != '\n')
            x.s++;
    } else {
        x.line--; /* the '\n' before the directive is counted again */
    }
    if (!next(&x) || !statement(&x, 0)) return -1;
    return x.tok_line;
}

int scal_source_block_last_in_file(const char *path, int pragma_line)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    int last = -1;
    long size;
    if (!f) return -1;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 &&
        (unsigned long)size <= MAX_SOURCE_BYTES && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)size)) && fread(buf, 1, (size_t)size, f) == (size_t)size)
        last = scal_source_block_last(buf, (size_t)size, pragma_line);
    free(buf);
    fclose(f);
    return last;
}
