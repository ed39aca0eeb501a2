/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON text for the report's HTML pages (index.html, compare.html): header only, static inline. */
#ifndef SCAL_PP_JSON_OUT_H
#define SCAL_PP_JSON_OUT_H

#include <math.h>
#include <stdio.h>

/* A JSON string; "</" is written "<\/" so that no text closes the page's script element. */
static inline void pp_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '/' && p > (const unsigned char *)s && p[-1] == '<')
            fputs("\\/", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* A number, or null for NaN and infinities (never "nan"). */
static inline void pp_json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}
#endif
