#pragma once

#include <json-glib/json-glib.h>

#include "gnt-job-status.h"
#include "gnt-queue.h"

G_BEGIN_DECLS

/*
 * The "job" query resource (Ganeti's job fields, see doc/query.md) over the
 * stored job records the queue hands out: Ganeti's job-file JSON {"id",
 * "ops": [{"input", "status", "result", "log", "priority",
 * "start_timestamp", "exec_timestamp", "end_timestamp"}],
 * "received_timestamp", "start_timestamp", "end_timestamp"}. Timestamps stay
 * [sec, usec] pairs. Everything here runs on the queue's thread.
 */

/* Ganeti's job status from the statuses of the opcodes of @job (an opcode
 * without a valid status counts as error). */
GntJobStatus
gnt_job_record_calc_status(JsonObject *job);

/* Ganeti's job priority: the lowest priority of the unfinished opcodes, 0
 * when every opcode is finished (a missing opcode priority counts as 0). */
gint64
gnt_job_record_calc_priority(JsonObject *job);

/* The summary of one opcode input: OP_ID without "OP_", plus "(value)" of
 * the opcode's described field when it has one ("TEST_DELAY(2.5)");
 * "INVALID_OP" if @input has no OP_ID. (transfer full) */
gchar *
gnt_job_op_summary(JsonNode *input);

/* QueryFields("job", @fields): the definitions; NULL or empty: every field;
 * unknown names get kind "unknown". GNT_ERROR_INVALID if @fields holds a
 * non-string. (transfer full) */
JsonNode *
gnt_job_query_fields(JsonArray *fields, GError **error);

/*
 * Query("job", @fields, @filter): {"fields", "data"} with [status, value]
 * cells. Selecting "archived" or filtering on it includes archived jobs. A
 * filter naming job IDs only (["==", "id", 7] or an "|" of those) looks
 * those jobs up instead of scanning; one that is not found (or archived,
 * when archived jobs are not included) still gives a row with the id and
 * RS_UNAVAIL cells. GNT_ERROR_INVALID for a bad filter or field list;
 * store failures are passed on. (transfer full)
 */
JsonNode *
gnt_job_query(GntQueue *queue, JsonArray *fields, JsonNode *filter, GError **error);

/*
 * QueryJobs(@ids, @fields): a list of rows of bare values. @ids: ints or
 * decimal strings (gnt_job_id_from_json()); NULL or empty: every live job,
 * in ascending order (and the archived ones when "archived" is selected).
 * A job not found gives a row with the id and nulls. GNT_ERROR_INVALID
 * "Unknown output fields selected: x" for unknown fields, or for a bad ID.
 * (transfer full)
 */
JsonNode *
gnt_job_query_jobs(GntQueue *queue, JsonArray *ids, JsonArray *fields, GError **error);

/* One row of bare values of @job, for WaitForJobChange; @fields NULL: every
 * field. GNT_ERROR_INVALID for unknown fields or a record without a valid
 * "id". (transfer full) */
JsonArray *
gnt_job_query_values(JsonObject *job, gboolean archived, JsonArray *fields, GError **error);

/* The log entries of @job with a serial above @prev_serial (-1: all), across
 * all its opcodes, in serial order. Malformed entries are skipped.
 * (transfer full) */
JsonArray *
gnt_job_query_log_since(JsonObject *job, gint64 prev_serial);

G_END_DECLS
