// SPDX-License-Identifier: BSD-3-Clause
// Accumulating region instance times: count, sum, min, max, shifted sums for the variance, the
// first samples (exact medians) and a log-linear histogram (approximate medians beyond the
// samples).
#include "tool.h"

size_t scal_node_stats_size(uint32_t max_team)
{
    size_t n = sizeof(struct scal_node_stats) + (size_t)max_team * sizeof(struct scal_team_total);
    return scal_cache_align(n);
}

/* Bucket of a duration: the octave (position of the highest bit) and the next SUB_BITS bits. */
static inline uint32_t bucket_of(uint64_t ns)
{
    if (ns < (1u << SCAL_HIST_SUB_BITS)) return (uint32_t)ns;
    uint32_t msb = 63u - (uint32_t)__builtin_clzll(ns);
    uint32_t sub = (uint32_t)(ns >> (msb - SCAL_HIST_SUB_BITS)) & ((1u << SCAL_HIST_SUB_BITS) - 1);
    uint32_t b = ((msb - SCAL_HIST_SUB_BITS + 1) << SCAL_HIST_SUB_BITS) + sub;
    return b < SCAL_HIST_BUCKETS ? b : SCAL_HIST_BUCKETS - 1;
}

void scal_stats_add_time(struct scal_node_stats *s, uint64_t ns)
{
    if (__builtin_expect(s->count++ == 0, 0)) s->shift_ns = ns;
    s->sum_ns += ns;
    if (ns < s->min_ns) s->min_ns = ns;
    if (ns > s->max_ns) s->max_ns = ns;
    /* one signed conversion (an unsigned 64-bit one is a branch and two); exact below 2^53 ns */
    double d = (double)(int64_t)(ns - s->shift_ns);
    s->sum_d += d;
    s->sum_d2 += d * d;
    if (s->nsamples < SCAL_EXACT_SAMPLES) s->samples[s->nsamples++] = ns;
    s->hist[bucket_of(ns)]++;
}

void scal_stats_add_team(struct scal_node_stats *s, int32_t requested, int32_t actual)
{
    if (requested < s->team_req_min) s->team_req_min = requested;
    if (requested > s->team_req_max) s->team_req_max = requested;
    if (actual < s->team_act_min) s->team_act_min = actual;
    if (actual > s->team_act_max) s->team_act_max = actual;
}

/* Lower and upper bound (ns) of a histogram bucket; used by the writer for the median. */
void scal_hist_bucket_bounds(uint32_t b, double *lo, double *hi)
{
    if (b < (1u << SCAL_HIST_SUB_BITS)) {
        *lo = b;
        *hi = b + 1;
        return;
    }
    uint32_t octave = (b >> SCAL_HIST_SUB_BITS) + SCAL_HIST_SUB_BITS - 1;
    uint32_t sub = b & ((1u << SCAL_HIST_SUB_BITS) - 1);
    double unit = (double)(1ull << (octave - SCAL_HIST_SUB_BITS));
    *lo = (double)(1ull << octave) + sub * unit;
    *hi = *lo + unit;
}
