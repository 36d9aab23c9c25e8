/*
 * The opcode table: every opcode Gantry knows, its parameters and their
 * defaults (those of Ganeti 3.0, so Ganeti's own clients can send their
 * opcodes unchanged), visibility, locks and logical unit.
 */
#include "gnt-error.h"
#include "gnt-job-status.h"
#include "gnt-json.h"
#include "gnt-cmdlib.h"

static gboolean
validate_non_negative(JsonNode *value, GError **error)
{
	if (json_node_get_double(value) < 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "must not be negative");
		return FALSE;
	}
	return TRUE;
}

/* A delay of at most a year, repeated at most 1000 times: each repetition
 * adds a log entry, and a job's record is rewritten on every one. */
#define TEST_DELAY_MAX_DURATION (365.0 * 24 * 3600)
#define TEST_DELAY_MAX_REPEAT	1000

static gboolean
validate_delay_duration(JsonNode *value, GError **error)
{
	gdouble duration = json_node_get_double(value);

	if (!(duration >= 0 && duration <= TEST_DELAY_MAX_DURATION)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "must be between 0 and %.0f seconds", TEST_DELAY_MAX_DURATION);
		return FALSE;
	}
	return TRUE;
}

static gboolean
validate_delay_repeat(JsonNode *value, GError **error)
{
	gint64 repeat = json_node_get_int(value);

	if (repeat < 0 || repeat > TEST_DELAY_MAX_REPEAT) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "must be between 0 and %d",
			    TEST_DELAY_MAX_REPEAT);
		return FALSE;
	}
	return TRUE;
}

static gboolean
validate_priority(JsonNode *value, GError **error)
{
	gint64 prio = json_node_get_int(value);

	if (prio < GNT_OP_PRIO_HIGHEST || prio > GNT_OP_PRIO_LOWEST) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "must be between %d and %d",
			    GNT_OP_PRIO_HIGHEST, GNT_OP_PRIO_LOWEST);
		return FALSE;
	}
	return TRUE;
}

/* [[job_id, [final status, ...]], ...]; job_id an int (negative: relative)
 * or a decimal string */
static gboolean
validate_depends(JsonNode *value, GError **error)
{
	JsonArray *deps = json_node_get_array(value);

	for (guint i = 0; i < json_array_get_length(deps); i++) {
		JsonNode *dep = json_array_get_element(deps, i);
		JsonNode *id;
		JsonArray *statuses;

		if (!JSON_NODE_HOLDS_ARRAY(dep) ||
		    json_array_get_length(json_node_get_array(dep)) != 2) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "entry %u must be [job_id, [statuses]]", i);
			return FALSE;
		}
		id = json_array_get_element(json_node_get_array(dep), 0);
		if (!gnt_json_node_is_int(id) &&
		    !(JSON_NODE_HOLDS_VALUE(id) && json_node_get_value_type(id) == G_TYPE_STRING)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "entry %u: the job ID must be an integer or a string", i);
			return FALSE;
		}
		if (!JSON_NODE_HOLDS_ARRAY(json_array_get_element(json_node_get_array(dep), 1))) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "entry %u: the statuses must be a list", i);
			return FALSE;
		}
		statuses = json_array_get_array_element(json_node_get_array(dep), 1);
		for (guint j = 0; j < json_array_get_length(statuses); j++) {
			JsonNode *st = json_array_get_element(statuses, j);
			const gchar *str = NULL;
			GntJobStatus status;
			if (!gnt_json_node_get_string(st, "a dependency status", &str, error))
				return FALSE;
			if (!gnt_job_status_from_string(str, &status) ||
			    !gnt_job_status_is_finalized(status)) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "entry %u: '%s' is not a final job status", i, str);
				return FALSE;
			}
		}
	}
	return TRUE;
}

/* [[source, text, timestamp_ns], ...] */
static gboolean
validate_reason(JsonNode *value, GError **error)
{
	JsonArray *trail = json_node_get_array(value);

	for (guint i = 0; i < json_array_get_length(trail); i++) {
		JsonNode *entry = json_array_get_element(trail, i);
		JsonArray *arr;
		if (!JSON_NODE_HOLDS_ARRAY(entry) ||
		    json_array_get_length(json_node_get_array(entry)) != 3) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "entry %u must be [source, text, timestamp]", i);
			return FALSE;
		}
		arr = json_node_get_array(entry);
		if (!gnt_json_node_is_number(json_array_get_element(arr, 2))) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "entry %u: the timestamp must be a number", i);
			return FALSE;
		}
	}
	return TRUE;
}

const GntParamDef gnt_op_common_params[] = {
	{.name = "dry_run", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "debug_level",
	 .type = GNT_PARAM_TYPE_INT,
	 GNT_PARAM_OPTIONAL,
	 .validate = validate_non_negative},
	{.name = "priority",
	 .type = GNT_PARAM_TYPE_INT,
	 .default_json = "0",
	 .validate = validate_priority},
	{.name = "depends",
	 .type = GNT_PARAM_TYPE_LIST,
	 GNT_PARAM_OPTIONAL,
	 .validate = validate_depends},
	{.name = "comment", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "reason",
	 .type = GNT_PARAM_TYPE_LIST,
	 .default_json = "[]",
	 .validate = validate_reason},
	{NULL},
};

static const GntParamDef test_delay_params[] = {
	{.name = "duration", .type = GNT_PARAM_TYPE_NUMBER, .validate = validate_delay_duration},
	{.name = "on_master", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "on_nodes", .type = GNT_PARAM_TYPE_STRING_LIST, .default_json = "[]"},
	{.name = "on_node_uuids", .type = GNT_PARAM_TYPE_STRING_LIST, GNT_PARAM_OPTIONAL},
	{.name = "repeat",
	 .type = GNT_PARAM_TYPE_INT,
	 .default_json = "0",
	 .validate = validate_delay_repeat},
	{.name = "interruptible", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "no_locks", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{NULL},
};

static const GntOpDef op_test_delay = {
	.id = "OP_TEST_DELAY",
	.summary_param = "duration",
	.params = test_delay_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};

/* Ganeti's OP_TEST_DUMMY, plus a private and a secret value with public
 * digests to check them against, so tests can prove where each kind of
 * value goes (and where it never goes). */
static const GntParamDef test_dummy_params[] = {
	{.name = "result", .type = GNT_PARAM_TYPE_ANY, GNT_PARAM_OPTIONAL},
	{.name = "messages", .type = GNT_PARAM_TYPE_STRING_LIST, GNT_PARAM_OPTIONAL},
	{.name = "fail", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "submit_jobs", .type = GNT_PARAM_TYPE_LIST, GNT_PARAM_OPTIONAL},
	{.name = "private_value",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .visibility = GNT_PARAM_PRIVATE},
	{.name = "secret_value",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .visibility = GNT_PARAM_SECRET},
	{.name = "private_sha256", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "secret_sha256", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{NULL},
};

static const GntOpDef op_test_dummy = {
	.id = "OP_TEST_DUMMY",
	.params = test_dummy_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};

static const GntParamDef no_params[] = {{NULL}};

static const GntOpDef op_cluster_destroy = {
	.id = "OP_CLUSTER_DESTROY",
	.params = no_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};

const GntOpDef *const gnt_op_defs_core[] = {
	&op_cluster_destroy,
	&op_test_delay,
	&op_test_dummy,
	NULL,
};

const GntOpDef *const *const gnt_op_tables[] = {
	gnt_op_defs_core,   gnt_op_defs_instance, gnt_op_defs_node,
	gnt_op_defs_backup, gnt_op_defs_verify,	  gnt_op_defs_group,
	gnt_op_defs_image,  gnt_op_defs_template, NULL,
};

const GntOpTable gnt_cmdlib_op_table = {
	.parts = gnt_op_tables,
	.common_params = gnt_op_common_params,
	.ganeti_op_ids = gnt_op_ids_ganeti,
};
