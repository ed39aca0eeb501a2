// SPDX-License-Identifier: BSD-3-Clause
// `scal report --compare BEFORE AFTER`: per region matched by identity, the efficiency difference
// after - before over the cells (input label, thread count) both campaigns have; regions ranked by
// the mean difference (improvements first); compare.txt, compare.csv and compare.html.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "plugins/json_out.h"
#include "report.h"

struct cmp_region {
    size_t ra, rb; /* region index after / before */
    double mean;
    size_t n;
    double *d; /* ninputs(after) x nthreads(after), NaN where a side has no value */
};

static double eff_at(const struct scal_pp_host *h, size_t r, size_t y, size_t x)
{
    const struct scal_pp_matrix *e = h->get(h, r, 0, "efficiency");
    return e && y < e->rows && x < e->cols ? e->values[y * e->cols + x] : NAN;
}

static long find_input(const struct scal_pp_host *h, const char *label)
{
    for (size_t i = 0; i < h->ninputs; i++)
        if (!strcmp(h->inputs[i], label)) return (long)i;
    return -1;
}

static long find_threads(const struct scal_pp_host *h, int32_t t)
{
    for (size_t i = 0; i < h->nthreads; i++)
        if (h->threads[i] == t) return (long)i;
    return -1;
}

static int cmp_mean(const void *x, const void *y)
{
    const struct cmp_region *a = x, *b = y;
    if (isnan(a->mean) != isnan(b->mean)) return isnan(a->mean) ? 1 : -1;
    return (a->mean < b->mean) - (a->mean > b->mean);
}

static const char compare_js[] =
    "const D=JSON.parse(document.getElementById('scal-data').textContent);\n"
    "function mix(a,b,t){return a.map((v,i)=>Math.round(v+(b[i]-v)*t))}\n"
    "function hex(v){return[(v>>16)&255,(v>>8)&255,v&255]}\n"
    "function col(v,m){const t=m>0?Math.min(1,Math.abs(v)/m):0;return'rgb('+mix(hex(0xFFFFFF),"
    "hex(v>=0?0x004337:0x5D3506),t).join(',')+')'}\n"
    "let m=0;for(const R of D.regions)for(const r of R.d)for(const v of r)if(v!==null)"
    "m=Math.max(m,Math.abs(v));\n"
    "const NS='http://www.w3.org/2000/svg';const body=document.getElementById('list');\n"
    "for(const R of D.regions){const d=document.createElement('div');d.className='region';"
    "d.dataset.label=R.label;const h=document.createElement('h3');h.textContent=R.label+"
    "'  mean '+(R.mean===null?'no common cell':(R.mean>=0?'+':'')+R.mean.toFixed(3))+' ('+R.n+"
    "' cells)';d.append(h);const s=document.createElementNS(NS,'svg');const cw=40,ch=18;"
    "s.setAttribute('width',60+cw*D.threads.length);s.setAttribute('height',20+ch*D.inputs.length);"
    "D.inputs.forEach((inp,y)=>{const t=document.createElementNS(NS,'text');t.setAttribute('x',56);"
    "t.setAttribute('y',(D.inputs.length-1-y)*ch+13);t.setAttribute('text-anchor','end');"
    "t.textContent=inp;s.append(t);D.threads.forEach((th,x)=>{const v=R.d[y][x];"
    "const r=document.createElementNS(NS,'rect');r.setAttribute('x',60+x*cw);"
    "r.setAttribute('y',(D.inputs.length-1-y)*ch);r.setAttribute('width',cw-1);"
    "r.setAttribute('height',ch-1);r.setAttribute('class','cell');r.setAttribute('fill',"
    "v===null?'#bfbfbf':col(v,m));const tt=document.createElementNS(NS,'title');tt.textContent="
    "'input '+inp+', '+th+' threads: '+(v===null?'not in both':(v>=0?'+':'')+v.toFixed(3));"
    "r.append(tt);s.append(r)})});D.threads.forEach((th,x)=>{const t=document.createElementNS(NS,"
    "'text');t.setAttribute('x',60+x*cw+cw/2);t.setAttribute('y',ch*D.inputs.length+14);"
    "t.setAttribute('text-anchor','middle');t.textContent=th;s.append(t)});d.append(s);body.append("
    "d)}\n"
    "document.getElementById('scale').textContent='one shared scale: \\u00b1'+m.toFixed(3)+"
    "' (green: after is better, brown: worse)';\n";

static int write_outputs(const char *dir, const struct scal_pp_host *a,
                         const struct scal_pp_host *b, const struct cmp_region *cr, size_t n,
                         const char *before, const char *after, size_t only_before,
                         size_t only_after)
{
    struct pp_outputs out = {.dir = dir};
    size_t ni = a->ninputs, nt = a->nthreads;
    int rc = SCAL_OK;
    FILE *f;
    if ((rc = pp_out_create(&out, "compare.txt", &f)) < 0) return rc;
    fprintf(f,
            "scal report --compare\n\nbefore: %s\nafter:  %s\n\nregions matched by identity, "
            "ranked by the mean efficiency difference after - before over the cells both have "
            "(positive: improved):\n",
            before, after);
    for (size_t i = 0; i < n; i++) {
        if (isnan(cr[i].mean))
            fprintf(f, "  %8s  (%3zu cells)  %s\n", "-", cr[i].n, a->regions[cr[i].ra].label);
        else
            fprintf(f, "  %+8.3f  (%3zu cells)  %s  %s\n", cr[i].mean, cr[i].n,
                    a->regions[cr[i].ra].label,
                    cr[i].mean > 0.02    ? "improved"
                    : cr[i].mean < -0.02 ? "regressed"
                                         : "unchanged");
    }
    fprintf(f, "\nregions only before: %zu; only after: %zu\n", only_before, only_after);
    if ((rc = pp_out_commit(&out, f, true)) < 0 || (rc = pp_out_create(&out, "compare.csv", &f)) < 0)
        goto out;
    fprintf(f, "region,input,threads,efficiency_before,efficiency_after,difference\n");
    for (size_t i = 0; i < n; i++)
        for (size_t y = 0; y < ni; y++)
            for (size_t x = 0; x < nt; x++) {
                double d = cr[i].d[y * nt + x];
                if (isnan(d)) continue;
                double ea = eff_at(a, cr[i].ra, y, x);
                fprintf(f, "\"%s\",%s,%d,%.9g,%.9g,%.9g\n", a->regions[cr[i].ra].label,
                        a->inputs[y], a->threads[x], ea - d, ea, d);
            }
    (void)b;
    if ((rc = pp_out_commit(&out, f, true)) < 0 || (rc = pp_out_create(&out, "compare.html", &f)) < 0)
        goto out;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>scal "
               "compare</title>\n<style>body{font:13px 'DejaVu Sans',sans-serif}"
               "svg text{font:10px sans-serif}h3{font-size:13px;margin:10px 0 2px}</style>"
               "</head><body>\n<h2>efficiency after &minus; before</h2><div id=\"scale\"></div>"
               "<div id=\"list\"></div>\n<script type=\"application/json\" id=\"scal-data\">"
               "{\"inputs\":[");
    for (size_t y = 0; y < ni; y++) {
        if (y) fputc(',', f);
        pp_json_str(f, a->inputs[y]);
    }
    fputs("],\"threads\":[", f);
    for (size_t x = 0; x < nt; x++)
        fprintf(f, "%s%d", x ? "," : "", a->threads[x]);
    fputs("],\"regions\":[", f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n{\"label\":" : "\n{\"label\":", f);
        pp_json_str(f, a->regions[cr[i].ra].label);
        if (isnan(cr[i].mean))
            fprintf(f, ",\"mean\":null,\"n\":%zu,\"d\":[", cr[i].n);
        else
            fprintf(f, ",\"mean\":%.6g,\"n\":%zu,\"d\":[", cr[i].mean, cr[i].n);
        for (size_t y = 0; y < ni; y++) {
            fputs(y ? ",[" : "[", f);
            for (size_t x = 0; x < nt; x++) {
                double d = cr[i].d[y * nt + x];
                if (isnan(d))
                    fprintf(f, "%snull", x ? "," : "");
                else
                    fprintf(f, "%s%.6g", x ? "," : "", d);
            }
            fputc(']', f);
        }
        fputs("]}", f);
    }
    fprintf(f, "]}</script>\n<script>\n%s</script></body></html>\n", compare_js);
    rc = pp_out_commit(&out, f, true);
out:
    pp_outputs_free(&out);
    return rc;
}

int pp_compare_write(const char *dir, const struct pp_campaign *cb, const struct scal_pp_host *b,
                     const struct pp_campaign *ca, const struct scal_pp_host *a, const char *before,
                     const char *after)
{
    size_t ni = a->ninputs, nt = a->nthreads, n = 0, only_after = 0;
    struct cmp_region *cr = calloc(ca->nregions ? ca->nregions : 1, sizeof(*cr));
    bool *matched = calloc(cb->nregions ? cb->nregions : 1, sizeof(*matched));
    int rc = SCAL_ENOMEM;
    if (!cr || !matched) goto out;
    for (size_t ra = 0; ra < ca->nregions; ra++) {
        long rb = -1;
        for (size_t k = 0; k < cb->nregions && rb < 0; k++)
            if (!strcmp(cb->regions[k].key, ca->regions[ra].key)) rb = (long)k;
        if (rb < 0) {
            only_after++;
            continue;
        }
        matched[rb] = true;
        struct cmp_region *c = &cr[n++];
        c->ra = ra, c->rb = (size_t)rb;
        if (!(c->d = malloc(ni * nt * sizeof(*c->d)))) goto out;
        double sum = 0;
        for (size_t y = 0; y < ni; y++)
            for (size_t x = 0; x < nt; x++) {
                long yb = find_input(b, a->inputs[y]), xb = find_threads(b, a->threads[x]);
                double d = yb < 0 || xb < 0 ? NAN
                                            : eff_at(a, ra, y, x) -
                                                  eff_at(b, (size_t)rb, (size_t)yb, (size_t)xb);
                c->d[y * nt + x] = d;
                if (!isnan(d)) sum += d, c->n++;
            }
        c->mean = c->n ? sum / (double)c->n : NAN;
    }
    size_t only_before = 0;
    for (size_t k = 0; k < cb->nregions; k++)
        only_before += !matched[k];
    qsort(cr, n, sizeof(*cr), cmp_mean);
    rc = write_outputs(dir, a, b, cr, n, before, after, only_before, only_after);
out:
    for (size_t i = 0; cr && i < n; i++)
        free(cr[i].d);
    free(cr);
    free(matched);
    return rc;
}
