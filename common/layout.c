// SPDX-License-Identifier: BSD-3-Clause
// Field lists of scal's HDF5 tables, generated from the X-macros in layout.h.
#include "layout.h"

#define FIELD_OF(T) FIELD_##T
#define SCAL_FIELD_ENTRY(T, h5, ctype, member) {#member, h5, offsetof(T, member)},
#define REGION_ENTRY(h5, ctype, member) SCAL_FIELD_ENTRY(struct scal_region_row, h5, ctype, member)
#define STAT_ENTRY(h5, ctype, member)                                                              \
    SCAL_FIELD_ENTRY(struct scal_region_stat_row, h5, ctype, member)
#define THREAD_ENTRY(h5, ctype, member) SCAL_FIELD_ENTRY(struct scal_thread_row, h5, ctype, member)
#define THREAD_STAT_ENTRY(h5, ctype, member)                                                       \
    SCAL_FIELD_ENTRY(struct scal_thread_stat_row, h5, ctype, member)
#define TI_ENTRY(h5, ctype, member)                                                                \
    SCAL_FIELD_ENTRY(struct scal_trace_instance_row, h5, ctype, member)
#define TS_ENTRY(h5, ctype, member) SCAL_FIELD_ENTRY(struct scal_trace_state_row, h5, ctype, member)
#define CONFIG_ENTRY(h5, ctype, member) SCAL_FIELD_ENTRY(struct scal_config_row, h5, ctype, member)
#define RUN_ENTRY(h5, ctype, member) SCAL_FIELD_ENTRY(struct scal_run_row, h5, ctype, member)
#define RID_ENTRY(h5, ctype, member) SCAL_FIELD_ENTRY(struct scal_region_id_row, h5, ctype, member)

#define SV_ENTRY(h5, ctype, member)                                                                \
    SCAL_FIELD_ENTRY(struct scal_sensor_value_row, h5, ctype, member)
#define SS_ENTRY(h5, ctype, member)                                                                \
    SCAL_FIELD_ENTRY(struct scal_sensor_sample_row, h5, ctype, member)
#define PS_ENTRY(h5, ctype, member)                                                                \
    SCAL_FIELD_ENTRY(struct scal_plugin_state_row, h5, ctype, member)
#define RSV_ENTRY(h5, ctype, member)                                                               \
    SCAL_FIELD_ENTRY(struct scal_run_sensor_value_row, h5, ctype, member)
#define RSS_ENTRY(h5, ctype, member)                                                               \
    SCAL_FIELD_ENTRY(struct scal_run_sensor_sample_row, h5, ctype, member)
#define RPS_ENTRY(h5, ctype, member)                                                               \
    SCAL_FIELD_ENTRY(struct scal_run_plugin_state_row, h5, ctype, member)

#define CR_ENTRY(h5, ctype, member) SCAL_FIELD_ENTRY(struct scal_config_rank_row, h5, ctype, member)
#define RR_ENTRY(h5, ctype, member) SCAL_FIELD_ENTRY(struct scal_run_rank_row, h5, ctype, member)
#define RRS_ENTRY(h5, ctype, member)                                                               \
    SCAL_FIELD_ENTRY(struct scal_rank_region_stat_row, h5, ctype, member)
#define RSUM_ENTRY(h5, ctype, member)                                                              \
    SCAL_FIELD_ENTRY(struct scal_region_rank_summary_row, h5, ctype, member)

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct scal_h5_field region_fields[] = {SCAL_REGION_IDENTITY_FIELDS(REGION_ENTRY)
                                                         SCAL_REGION_STATS_FIELDS(REGION_ENTRY)};
static const struct scal_h5_field region_stat_fields[] = {
    {"run", SCAL_H5_U32, offsetof(struct scal_region_stat_row, run)},
    {"region", SCAL_H5_U32, offsetof(struct scal_region_stat_row, region)},
    SCAL_REGION_STATS_FIELDS(STAT_ENTRY)};
static const struct scal_h5_field thread_fields[] = {SCAL_THREAD_FIELDS(THREAD_ENTRY)};
static const struct scal_h5_field thread_stat_fields[] = {
    {"run", SCAL_H5_U32, offsetof(struct scal_thread_stat_row, run)},
    SCAL_THREAD_FIELDS(THREAD_STAT_ENTRY)};
static const struct scal_h5_field trace_instance_fields[] = {SCAL_TRACE_INSTANCE_FIELDS(TI_ENTRY)};
static const struct scal_h5_field trace_state_fields[] = {SCAL_TRACE_STATE_FIELDS(TS_ENTRY)};
static const struct scal_h5_field config_fields[] = {SCAL_CONFIG_FIELDS(CONFIG_ENTRY)};
static const struct scal_h5_field run_fields[] = {SCAL_RUN_FIELDS(RUN_ENTRY)};
static const struct scal_h5_field region_id_fields[] = {SCAL_REGION_IDENTITY_FIELDS(RID_ENTRY)};

static const struct scal_h5_field sensor_value_fields[] = {SCAL_SENSOR_VALUE_FIELDS(SV_ENTRY)};
static const struct scal_h5_field sensor_sample_fields[] = {SCAL_SENSOR_SAMPLE_FIELDS(SS_ENTRY)};
static const struct scal_h5_field plugin_state_fields[] = {SCAL_PLUGIN_STATE_FIELDS(PS_ENTRY)};
static const struct scal_h5_field run_sensor_value_fields[] = {
    {"run", SCAL_H5_U32, offsetof(struct scal_run_sensor_value_row, run)},
    SCAL_SENSOR_VALUE_FIELDS(RSV_ENTRY)};
static const struct scal_h5_field run_sensor_sample_fields[] = {
    {"run", SCAL_H5_U32, offsetof(struct scal_run_sensor_sample_row, run)},
    SCAL_SENSOR_SAMPLE_FIELDS(RSS_ENTRY)};
static const struct scal_h5_field run_plugin_state_fields[] = {
    {"run", SCAL_H5_U32, offsetof(struct scal_run_plugin_state_row, run)},
    SCAL_PLUGIN_STATE_FIELDS(RPS_ENTRY)};

static const struct scal_h5_field config_rank_fields[] = {SCAL_CONFIG_RANK_FIELDS(CR_ENTRY)};
static const struct scal_h5_field run_rank_fields[] = {SCAL_RUN_RANK_FIELDS(RR_ENTRY)};
static const struct scal_h5_field rank_region_stat_fields[] = {
    {"run", SCAL_H5_U32, offsetof(struct scal_rank_region_stat_row, run)},
    {"rank", SCAL_H5_I32, offsetof(struct scal_rank_region_stat_row, rank)},
    {"region", SCAL_H5_U32, offsetof(struct scal_rank_region_stat_row, region)},
    SCAL_REGION_STATS_FIELDS(RRS_ENTRY)};
static const struct scal_h5_field region_rank_summary_fields[] = {
    SCAL_REGION_RANK_SUMMARY_FIELDS(RSUM_ENTRY)};

#define TABLE(var, path, fields, T)                                                                \
    const struct scal_table_desc var = {path, fields, N(fields), sizeof(T)};
TABLE(scal_table_run_regions, "regions", region_fields, struct scal_region_row)
TABLE(scal_table_threads, "threads", thread_fields, struct scal_thread_row)
TABLE(scal_table_trace_instances, "trace/instances", trace_instance_fields,
      struct scal_trace_instance_row)
TABLE(scal_table_trace_states, "trace/states", trace_state_fields, struct scal_trace_state_row)
TABLE(scal_table_configs, "configs", config_fields, struct scal_config_row)
TABLE(scal_table_runs, "runs", run_fields, struct scal_run_row)
TABLE(scal_table_campaign_regions, "regions", region_id_fields, struct scal_region_id_row)
TABLE(scal_table_region_stats, "region_stats", region_stat_fields, struct scal_region_stat_row)
TABLE(scal_table_thread_stats, "thread_stats", thread_stat_fields, struct scal_thread_stat_row)
TABLE(scal_table_sensor_values, "sensors/values", sensor_value_fields, struct scal_sensor_value_row)
TABLE(scal_table_sensor_samples, "sensors/samples", sensor_sample_fields,
      struct scal_sensor_sample_row)
TABLE(scal_table_plugin_states, "sensors/plugins", plugin_state_fields,
      struct scal_plugin_state_row)
TABLE(scal_table_run_sensor_values, "sensor_values", run_sensor_value_fields,
      struct scal_run_sensor_value_row)
TABLE(scal_table_run_sensor_samples, "sensor_samples", run_sensor_sample_fields,
      struct scal_run_sensor_sample_row)
TABLE(scal_table_run_plugin_states, "plugins", run_plugin_state_fields,
      struct scal_run_plugin_state_row)
TABLE(scal_table_config_ranks, "config_ranks", config_rank_fields, struct scal_config_rank_row)
TABLE(scal_table_run_ranks, "run_ranks", run_rank_fields, struct scal_run_rank_row)
TABLE(scal_table_rank_region_stats, "rank_region_stats", rank_region_stat_fields,
      struct scal_rank_region_stat_row)
TABLE(scal_table_region_rank_summary, "region_rank_summary", region_rank_summary_fields,
      struct scal_region_rank_summary_row)

const struct scal_table_desc *const scal_all_tables[] = {&scal_table_run_regions,
                                                         &scal_table_threads,
                                                         &scal_table_trace_instances,
                                                         &scal_table_trace_states,
                                                         &scal_table_configs,
                                                         &scal_table_runs,
                                                         &scal_table_campaign_regions,
                                                         &scal_table_region_stats,
                                                         &scal_table_thread_stats,
                                                         &scal_table_sensor_values,
                                                         &scal_table_sensor_samples,
                                                         &scal_table_plugin_states,
                                                         &scal_table_run_sensor_values,
                                                         &scal_table_run_sensor_samples,
                                                         &scal_table_run_plugin_states,
                                                         &scal_table_config_ranks,
                                                         &scal_table_run_ranks,
                                                         &scal_table_rank_region_stats,
                                                         &scal_table_region_rank_summary,
                                                         NULL};

const char *scal_region_kind_name(int kind)
{
    switch (kind) {
    case SCAL_KIND_ROOT:
        return "root";
    case SCAL_KIND_PARALLEL:
        return "parallel";
    case SCAL_KIND_SERIAL:
        return "serial";
    case SCAL_KIND_USER:
        return "user";
    case SCAL_KIND_TASK:
        return "task";
    }
    return "unknown";
}

const char *scal_run_status_name(int status)
{
    switch (status) {
    case SCAL_RUN_OK:
        return "ok";
    case SCAL_RUN_FAILED:
        return "failed";
    case SCAL_RUN_SIGNALED:
        return "signaled";
    case SCAL_RUN_TIMEOUT:
        return "timeout";
    case SCAL_RUN_LAUNCH:
        return "launch-error";
    case SCAL_RUN_NODATA:
        return "no-data";
    }
    return "unknown";
}
