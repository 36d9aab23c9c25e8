/*
 * /2/jobs, /2/jobs/{id} and /2/jobs/{id}/wait: rlib2's R_2_jobs,
 * R_2_jobs_id and R_2_jobs_id_wait (Ganeti 3.0): QueryJobs, CancelJob and
 * WaitForJobChange. Job IDs are JSON integers in every answer.
 */
#include "gnt-rapi-resources-private.h"

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-luxi-codec.h"

/* rlib2.J_FIELDS_BULK and J_FIELDS */
static const gchar *const job_fields_bulk[] = {
	"id", "ops", "status", "summary", "opstatus", "received_ts", "start_ts", "end_ts", NULL,
};
static const gchar *const job_fields[] = {
	"id",	    "ops",    "status", "summary",  "opstatus", "received_ts",
	"start_ts", "end_ts", "oplog",	"opresult", NULL,
};
static const gchar *const id_field[] = {"id", NULL};

/* where "status" is in both lists */
#define STATUS_INDEX 2

/* rlib2._WFJC_TIMEOUT: how long /wait waits for a change */
#define WAIT_TIMEOUT_S 10

/* The job ID of the path ({id} is all digits): one that does not fit is
 * not a job there can be. */
static gboolean
path_job_id(GntRapiRequest *request, gint64 *job_id, GError **error)
{
	guint64 value = 0;

	if (!g_ascii_string_to_unsigned(request->args[0], 10, 0, G_MAXINT64, &value, NULL)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "Job '%s' not found",
			    request->args[0]);
		return FALSE;
	}
	*job_id = (gint64)value;
	return TRUE;
}

/* QueryJobs(@job_id or all, @fields): the answer, rows in *@rows. */
static JsonNode *
query_jobs(GntRapiRequest *request, gint64 job_id, const gchar *const *fields, JsonArray **rows,
	   GError **error)
{
	g_autoptr(JsonNode) result = NULL;
	JsonArray *args = json_array_new();

	if (job_id < 0) {
		json_array_add_null_element(args);
	} else {
		JsonArray *ids = json_array_new();

		json_array_add_int_element(ids, job_id);
		json_array_add_array_element(args, ids);
	}
	json_array_add_array_element(args, gnt_rapi_strv_to_array(fields));
	result = gnt_rapi_call(request, "QueryJobs", args, error);
	if (result == NULL ||
	    !gnt_rapi_result_get_rows(result, g_strv_length((gchar **)fields), rows, error))
		return NULL;
	return g_steal_pointer(&result);
}

JsonNode *
gnt_rapi_get_jobs(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonNode) result = NULL;
	JsonArray *rows = NULL;
	JsonArray *list;
	gboolean bulk = FALSE;

	if (!gnt_rapi_request_get_flag(request, "bulk", &bulk, error))
		return NULL;
	result = query_jobs(request, -1, bulk ? job_fields_bulk : id_field, &rows, error);
	if (result == NULL)
		return NULL;
	if (!bulk)
		return gnt_rapi_uri_list(rows, "/2/jobs/", "id");
	list = json_array_new();
	for (guint i = 0; i < json_array_get_length(rows); i++)
		json_array_add_object_element(
			list, gnt_rapi_row_to_object(job_fields_bulk,
						     json_array_get_array_element(rows, i)));
	return gnt_json_node_new_array(list);
}

static JsonNode *
fetch_job(GntRapiRequest *request, gpointer user_data, GntRapiCacheVerdict *verdict, GError **error)
{
	gint64 job_id = *(gint64 *)user_data;
	g_autoptr(JsonNode) result = NULL;
	JsonArray *rows = NULL;
	JsonArray *row;
	const gchar *status;

	result = query_jobs(request, job_id, job_fields, &rows, error);
	if (result == NULL)
		return NULL;
	/* QueryJobs answers a row of nulls (the ID aside) for an unknown job */
	row = json_array_get_length(rows) == 1 ? json_array_get_array_element(rows, 0) : NULL;
	if (row == NULL || JSON_NODE_HOLDS_NULL(json_array_get_element(row, STATUS_INDEX))) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "Job %" G_GINT64_FORMAT " not found", job_id);
		return NULL;
	}
	/* a finished job changes no more; its end may have changed the cluster */
	status = json_array_get_string_element(row, STATUS_INDEX);
	*verdict = gnt_rapi_job_status_is_final(status) ? GNT_RAPI_CACHE_STORE_CHANGED
							: GNT_RAPI_CACHE_SKIP;
	return gnt_json_node_new_object(gnt_rapi_row_to_object(job_fields, row));
}

JsonNode *
gnt_rapi_get_job(GntRapiRequest *request, GError **error)
{
	g_autofree gchar *key = NULL;
	gint64 job_id = 0;

	if (!path_job_id(request, &job_id, error))
		return NULL;
	key = g_strdup_printf("job\n%" G_GINT64_FORMAT, job_id);
	return gnt_rapi_cache_lookup(request, key, fetch_job, &job_id, error);
}

JsonNode *
gnt_rapi_delete_job(GntRapiRequest *request, GError **error)
{
	JsonArray *args;
	gint64 job_id = 0;

	if (!path_job_id(request, &job_id, error))
		return NULL;
	/* [success, message] as CancelJob answers it */
	args = json_array_new();
	json_array_add_int_element(args, job_id);
	return gnt_rapi_call(request, "CancelJob", args, error);
}

JsonNode *
gnt_rapi_get_job_wait(GntRapiRequest *request, GError **error)
{
	g_autoptr(GError) error_local = NULL;
	g_autoptr(JsonNode) result = NULL;
	JsonObject *body = NULL;
	JsonObject *answer;
	JsonArray *pair;
	JsonArray *args;
	JsonNode *fields;
	JsonNode *prev_info;
	JsonNode *prev_serial;
	gint64 job_id = 0;

	if (!path_job_id(request, &job_id, error) ||
	    !gnt_rapi_request_get_body_object(request, TRUE, &body, error))
		return NULL;
	fields = json_object_get_member(body, "fields");
	prev_info = json_object_get_member(body, "previous_job_info");
	prev_serial = json_object_get_member(body, "previous_log_serial");
	if (fields == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Required parameter 'fields' is missing");
		return NULL;
	}
	if (!gnt_rapi_node_is_string_list(fields)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "The 'fields' parameter should be a list of strings, not %s",
			    gnt_json_node_type_name(fields));
		return NULL;
	}
	if (prev_info != NULL && !JSON_NODE_HOLDS_NULL(prev_info) &&
	    !JSON_NODE_HOLDS_ARRAY(prev_info)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "The 'previous_job_info' parameter should be a list, not %s",
			    gnt_json_node_type_name(prev_info));
		return NULL;
	}
	if (prev_serial != NULL && !JSON_NODE_HOLDS_NULL(prev_serial) &&
	    !gnt_json_node_is_int(prev_serial)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "The 'previous_log_serial' parameter should be a number, not %s",
			    gnt_json_node_type_name(prev_serial));
		return NULL;
	}

	args = json_array_new();
	json_array_add_int_element(args, job_id);
	json_array_add_element(args, json_node_ref(fields));
	json_array_add_element(args, prev_info != NULL ? json_node_ref(prev_info)
						       : gnt_json_node_new_null());
	json_array_add_element(args, prev_serial != NULL ? json_node_ref(prev_serial)
							 : gnt_json_node_new_null());
	json_array_add_int_element(args, WAIT_TIMEOUT_S);
	result = gnt_rapi_call(request, "WaitForJobChange", args, &error_local);
	if (result == NULL) {
		if (g_strcmp0(gnt_luxi_client_get_error_class(request->luxi),
			      GNT_LUXI_EXC_JOB_LOST) == 0)
			g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
				    "Job %" G_GINT64_FORMAT " not found", job_id);
		else
			g_propagate_error(error, g_steal_pointer(&error_local));
		return NULL;
	}
	/* constants.JOB_NOTCHANGED: nothing changed within the timeout */
	if (JSON_NODE_HOLDS_VALUE(result) && json_node_get_value_type(result) == G_TYPE_STRING)
		return gnt_json_node_new_null();
	/* the job moved on: what it did may show in cached answers */
	gnt_rapi_cache_changed();
	pair = JSON_NODE_HOLDS_ARRAY(result) ? json_node_get_array(result) : NULL;
	if (pair == NULL || json_array_get_length(pair) != 2) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
			    "the master daemon answered WaitForJobChange of job %" G_GINT64_FORMAT
			    " with %s, not a pair",
			    job_id, gnt_json_node_type_name(result));
		return NULL;
	}
	answer = json_object_new();
	json_object_set_member(answer, "job_info", json_node_ref(json_array_get_element(pair, 0)));
	json_object_set_member(answer, "log_entries",
			       json_node_ref(json_array_get_element(pair, 1)));
	return gnt_json_node_new_object(answer);
}
