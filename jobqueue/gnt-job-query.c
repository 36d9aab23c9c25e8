#include "gnt-job-query.h"
#include "gnt-opcode.h"

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-query.h"

/* ------------------------------------------------------------------ */
/* Reading job records */

/* The opcode records of @job; NULL if "ops" is not a list. */
static JsonArray *
job_ops(JsonObject *job)
{
	JsonArray *ops = NULL;

	return gnt_json_get_array(job, "ops", &ops, NULL) ? ops : NULL;
}

/* Opcode @index of @job as an object, or NULL. */
static JsonObject *
job_op(JsonArray *ops, guint index)
{
	JsonNode *node = json_array_get_element(ops, index);

	return JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

static GntJobStatus
op_status(JsonObject *op)
{
	const gchar *str = NULL;
	GntJobStatus status = GNT_JOB_STATUS_ERROR;

	if (op == NULL || !gnt_json_get_string(op, "status", &str, NULL) ||
	    !gnt_job_status_from_string(str, &status))
		return GNT_JOB_STATUS_ERROR;
	return status;
}

GntJobStatus
gnt_job_record_calc_status(JsonObject *job)
{
	JsonArray *ops = job_ops(job);
	guint n_ops = ops != NULL ? json_array_get_length(ops) : 0;
	g_autofree GntJobStatus *statuses = g_new0(GntJobStatus, MAX(n_ops, 1));

	if (ops == NULL)
		return GNT_JOB_STATUS_ERROR;
	for (guint i = 0; i < n_ops; i++)
		statuses[i] = op_status(job_op(ops, i));
	return gnt_job_status_calc(statuses, n_ops);
}

gint64
gnt_job_record_calc_priority(JsonObject *job)
{
	JsonArray *ops = job_ops(job);
	gboolean any = FALSE;
	gint64 lowest = GNT_OP_PRIO_NORMAL;

	for (guint i = 0; ops != NULL && i < json_array_get_length(ops); i++) {
		JsonObject *op = job_op(ops, i);
		gint64 priority = GNT_OP_PRIO_NORMAL;

		if (gnt_job_status_is_finalized(op_status(op)))
			continue;
		gnt_json_get_int(op, "priority", &priority, NULL);
		lowest = any ? MIN(lowest, priority) : priority;
		any = TRUE;
	}
	return lowest;
}

/* ------------------------------------------------------------------ */
/* Summaries */

/* Appends @value as Python's str() would, lists joined with ",". */
static void
summary_append_value(GString *out, JsonNode *value)
{
	if (JSON_NODE_HOLDS_ARRAY(value)) {
		JsonArray *list = json_node_get_array(value);
		for (guint i = 0; i < json_array_get_length(list); i++) {
			if (i > 0)
				g_string_append_c(out, ',');
			summary_append_value(out, json_array_get_element(list, i));
		}
		return;
	}
	if (!JSON_NODE_HOLDS_VALUE(value)) {
		g_autofree gchar *text = gnt_json_to_string(value);
		g_string_append(out, text);
		return;
	}
	switch (json_node_get_value_type(value)) {
	case G_TYPE_STRING:
		g_string_append(out, json_node_get_string(value));
		break;
	case G_TYPE_INT64:
		g_string_append_printf(out, "%" G_GINT64_FORMAT, json_node_get_int(value));
		break;
	case G_TYPE_DOUBLE: {
		/* Python's str(): "3.0", "2.5", all digits kept */
		g_autofree gchar *text = gnt_json_format_double(json_node_get_double(value));
		g_string_append(out, text);
		break;
	}
	case G_TYPE_BOOLEAN:
		g_string_append(out, json_node_get_boolean(value) ? "True" : "False");
		break;
	default:
		g_string_append(out, "?");
		break;
	}
}

gchar *
gnt_job_op_summary(JsonNode *input)
{
	g_autoptr(GString) out = NULL;
	const gchar *op_id = NULL;
	const GntOpDef *def;
	const gchar *field;
	JsonNode *value;
	JsonObject *obj;

	if (input == NULL || !JSON_NODE_HOLDS_OBJECT(input) ||
	    !gnt_json_get_string(json_node_get_object(input), "OP_ID", &op_id, NULL))
		return g_strdup("INVALID_OP");
	obj = json_node_get_object(input);
	out = g_string_new(g_str_has_prefix(op_id, "OP_") ? op_id + 3 : op_id);
	/* the opcode table names the field that describes it (Ganeti's
	 * OP_DSC_FIELD); unknown opcodes show their name only */
	def = gnt_op_def_lookup(op_id);
	field = def != NULL ? gnt_op_def_get_summary_param(def) : NULL;
	value = field != NULL ? json_object_get_member(obj, field) : NULL;
	if (value != NULL && !JSON_NODE_HOLDS_NULL(value)) {
		g_string_append_c(out, '(');
		summary_append_value(out, value);
		g_string_append_c(out, ')');
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* ------------------------------------------------------------------ */
/* Fields */

/* What a row is computed from: a stored record, or only the ID of a job
 * that was not found. */
typedef struct {
	guint64 id;
	JsonObject *job; /* NULL: not found */
	gboolean archived;
} JobItem;

static gboolean
job_item_init(JobItem *item, JsonObject *job, gboolean archived, GError **error)
{
	item->job = job;
	item->archived = archived;
	if (!gnt_job_id_from_json(json_object_get_member(job, "id"), &item->id, error)) {
		g_prefix_error(error, "job record: 'id': ");
		return FALSE;
	}
	return TRUE;
}

/* The record of @item, or NULL with RS_UNAVAIL. */
static JsonObject *
item_job(gconstpointer item, GntQueryStatus *status)
{
	const JobItem *job_item = item;

	if (job_item->job == NULL)
		*status = GNT_QUERY_STATUS_UNAVAIL;
	return job_item->job;
}

static JsonNode *
get_id(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_int((gint64)((const JobItem *)item)->id);
}

static JsonNode *
get_status(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonObject *job = item_job(item, status);

	if (job == NULL)
		return NULL;
	return gnt_json_node_new_string(gnt_job_status_to_string(gnt_job_record_calc_status(job)));
}

static JsonNode *
get_priority(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonObject *job = item_job(item, status);

	return job != NULL ? gnt_json_node_new_int(gnt_job_record_calc_priority(job)) : NULL;
}

static JsonNode *
get_archived(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonObject *job = item_job(item, status);

	return job != NULL ? gnt_json_node_new_bool(((const JobItem *)item)->archived) : NULL;
}

/* A list with one value per opcode: @func of the opcode record. */
static JsonNode *
per_op(gconstpointer item, GntQueryStatus *status,
       JsonNode *(*func)(JsonObject *op, const gchar *key), const gchar *key)
{
	JsonObject *job = item_job(item, status);
	JsonArray *ops = job != NULL ? job_ops(job) : NULL;
	JsonArray *values;

	if (job == NULL)
		return NULL;
	if (ops == NULL) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	values = json_array_sized_new(json_array_get_length(ops));
	for (guint i = 0; i < json_array_get_length(ops); i++) {
		JsonObject *op = job_op(ops, i);
		json_array_add_element(values,
				       op != NULL ? func(op, key) : gnt_json_node_new_null());
	}
	return gnt_json_node_new_array(values);
}

static JsonNode *
op_member(JsonObject *op, const gchar *key)
{
	JsonNode *value = json_object_get_member(op, key);

	return value != NULL ? json_node_copy(value) : gnt_json_node_new_null();
}

static JsonNode *
op_summary(JsonObject *op, const gchar *key)
{
	g_autofree gchar *summary = gnt_job_op_summary(json_object_get_member(op, "input"));

	return gnt_json_node_new_string(summary);
}

/* A job timestamp; unset ones are RS_UNAVAIL, as in Ganeti. */
static JsonNode *
job_timestamp(gconstpointer item, GntQueryStatus *status, const gchar *key)
{
	JsonObject *job = item_job(item, status);
	JsonNode *value = job != NULL ? json_object_get_member(job, key) : NULL;

	if (value == NULL || JSON_NODE_HOLDS_NULL(value)) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	return json_node_copy(value);
}

/* Field getters that call @helper with fixed arguments. */
#define GETTER(func, helper, ...)                                                                  \
	static JsonNode *func(gconstpointer item, gpointer user_data, GntQueryStatus *status)      \
	{                                                                                          \
		return helper(item, status, __VA_ARGS__);                                          \
	}
GETTER(get_ops, per_op, op_member, "input")
GETTER(get_opresult, per_op, op_member, "result")
GETTER(get_opstatus, per_op, op_member, "status")
GETTER(get_oplog, per_op, op_member, "log")
GETTER(get_opstart, per_op, op_member, "start_timestamp")
GETTER(get_opexec, per_op, op_member, "exec_timestamp")
GETTER(get_opend, per_op, op_member, "end_timestamp")
GETTER(get_oppriority, per_op, op_member, "priority")
GETTER(get_summary, per_op, op_summary, NULL)
GETTER(get_received_ts, job_timestamp, "received_timestamp")
GETTER(get_start_ts, job_timestamp, "start_timestamp")
GETTER(get_end_ts, job_timestamp, "end_timestamp")
#undef GETTER

#define TS_DOC " (tuple containing seconds and microseconds)"

static const GntQueryField job_fields[] = {
	{"id", "ID", GNT_QUERY_KIND_NUMBER, GNT_QUERY_FLAG_JOB_ID, "Job ID", get_id},
	{"status", "Status", GNT_QUERY_KIND_TEXT, GNT_QUERY_FLAG_NONE, "Job status", get_status},
	{"priority", "Priority", GNT_QUERY_KIND_NUMBER, GNT_QUERY_FLAG_NONE,
	 "Current job priority (19 to -20)", get_priority},
	{"archived", "Archived", GNT_QUERY_KIND_BOOL, GNT_QUERY_FLAG_NONE,
	 "Whether job is archived", get_archived},
	{"ops", "OpCodes", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_NONE, "List of all opcodes",
	 get_ops},
	{"opresult", "OpCode_result", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_NONE,
	 "List of opcodes results", get_opresult},
	{"opstatus", "OpCode_status", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_NONE,
	 "List of opcodes status", get_opstatus},
	{"oplog", "OpCode_log", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_NONE,
	 "List of opcode output logs", get_oplog},
	{"opstart", "OpCode_start", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_NONE,
	 "List of opcode start timestamps (before acquiring locks)", get_opstart},
	{"opexec", "OpCode_exec", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_NONE,
	 "List of opcode execution start timestamps (after acquiring locks)", get_opexec},
	{"opend", "OpCode_end", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_NONE,
	 "List of opcode execution end timestamps", get_opend},
	{"oppriority", "OpCode_prio", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_NONE,
	 "List of opcode priorities", get_oppriority},
	{"summary", "Summary", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_NONE,
	 "List of per-opcode summaries", get_summary},
	{"received_ts", "Received", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_SPLIT_TIMESTAMP,
	 "Timestamp of when job was received" TS_DOC, get_received_ts},
	{"start_ts", "Start", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_SPLIT_TIMESTAMP,
	 "Timestamp of job start" TS_DOC, get_start_ts},
	{"end_ts", "End", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_SPLIT_TIMESTAMP,
	 "Timestamp of job end" TS_DOC, get_end_ts},
	{NULL},
};

/* ------------------------------------------------------------------ */
/* Queries */

JsonNode *
gnt_job_query_fields(JsonArray *fields, GError **error)
{
	return gnt_query_fields_response(job_fields, fields, error);
}

/* Rows of the matching jobs, built as Query cells or bare values. */
typedef struct {
	GntQuery *query;
	gboolean bare;
	JsonArray *rows;
	GError *error; /* from the foreach callback */
} Collector;

static void
collector_add(Collector *collector, const JobItem *item)
{
	if (!gnt_query_matches(collector->query, item, NULL))
		return;
	json_array_add_array_element(collector->rows,
				     collector->bare
					     ? gnt_query_build_values(collector->query, item, NULL)
					     : gnt_query_build_row(collector->query, item, NULL));
}

static gboolean
collector_add_record(JsonObject *job, gboolean archived, gpointer user_data)
{
	Collector *collector = user_data;
	JobItem item;

	if (!job_item_init(&item, job, archived, &collector->error))
		return FALSE;
	collector_add(collector, &item);
	return TRUE;
}

static gboolean
collect_all(GntQueue *queue, Collector *collector, gboolean include_archived, GError **error)
{
	if (!gnt_queue_foreach_job(queue, include_archived, collector_add_record, collector, error))
		return FALSE;
	if (collector->error != NULL) {
		g_propagate_error(error, g_steal_pointer(&collector->error));
		return FALSE;
	}
	return TRUE;
}

/* Looks up the jobs @ids (JSON job IDs) in order; a job that is not found,
 * or archived when @include_archived is not set, gives an ID-only item. */
static gboolean
collect_ids(GntQueue *queue, Collector *collector, JsonArray *ids, gboolean include_archived,
	    GError **error)
{
	for (guint i = 0; i < json_array_get_length(ids); i++) {
		g_autoptr(GError) error_local = NULL;
		g_autoptr(JsonObject) job = NULL;
		JobItem item = {0, NULL, FALSE};

		if (!gnt_job_id_from_json(json_array_get_element(ids, i), &item.id, error)) {
			g_prefix_error(error, "job ID %u: ", i);
			return FALSE;
		}
		job = gnt_queue_lookup_job(queue, item.id, &item.archived, &error_local);
		if (job == NULL && !g_error_matches(error_local, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
			g_propagate_error(error, g_steal_pointer(&error_local));
			return FALSE;
		}
		if (job != NULL && (include_archived || !item.archived))
			item.job = job;
		collector_add(collector, &item);
	}
	return TRUE;
}

JsonNode *
gnt_job_query(GntQueue *queue, JsonArray *fields, JsonNode *filter, GError **error)
{
	g_autoptr(GntQuery) query = gnt_query_new(job_fields, fields, filter, error);
	g_autoptr(JsonArray) ids = NULL;
	g_autoptr(JsonArray) rows = json_array_new();
	Collector collector = {query, FALSE, rows, NULL};
	gboolean include_archived;

	g_return_val_if_fail(GNT_IS_QUEUE(queue), NULL);

	if (query == NULL)
		return NULL;
	include_archived = gnt_query_uses_field(query, "archived");
	ids = gnt_query_dup_name_hint(query, "id");
	if (ids != NULL ? !collect_ids(queue, &collector, ids, include_archived, error)
			: !collect_all(queue, &collector, include_archived, error))
		return NULL;
	return gnt_query_build_response(query, g_steal_pointer(&rows));
}

JsonNode *
gnt_job_query_jobs(GntQueue *queue, JsonArray *ids, JsonArray *fields, GError **error)
{
	g_autoptr(GntQuery) query = gnt_query_new(job_fields, fields, NULL, error);
	g_autoptr(JsonArray) rows = json_array_new();
	Collector collector = {query, TRUE, rows, NULL};
	gboolean include_archived;

	g_return_val_if_fail(GNT_IS_QUEUE(queue), NULL);

	if (query == NULL || !gnt_query_check_known_fields(query, error))
		return NULL;
	include_archived = gnt_query_uses_field(query, "archived");
	if (ids != NULL && json_array_get_length(ids) > 0
		    ? !collect_ids(queue, &collector, ids, include_archived, error)
		    : !collect_all(queue, &collector, include_archived, error))
		return NULL;
	return gnt_json_node_new_array(g_steal_pointer(&rows));
}

JsonArray *
gnt_job_query_values(JsonObject *job, gboolean archived, JsonArray *fields, GError **error)
{
	g_autoptr(GntQuery) query = gnt_query_new(job_fields, fields, NULL, error);
	JobItem item;

	g_return_val_if_fail(job != NULL, NULL);

	if (query == NULL || !gnt_query_check_known_fields(query, error) ||
	    !job_item_init(&item, job, archived, error))
		return NULL;
	return gnt_query_build_values(query, &item, NULL);
}

static gint64
log_entry_serial(JsonNode *entry)
{
	JsonArray *list;

	if (!JSON_NODE_HOLDS_ARRAY(entry))
		return -1;
	list = json_node_get_array(entry);
	if (json_array_get_length(list) < 1 ||
	    !gnt_json_node_is_int(json_array_get_element(list, 0)))
		return -1;
	return json_node_get_int(json_array_get_element(list, 0));
}

static gint
compare_log_entries(gconstpointer a, gconstpointer b)
{
	gint64 serial_a = log_entry_serial(*(JsonNode *const *)a);
	gint64 serial_b = log_entry_serial(*(JsonNode *const *)b);

	return (serial_a > serial_b) - (serial_a < serial_b);
}

JsonArray *
gnt_job_query_log_since(JsonObject *job, gint64 prev_serial)
{
	g_autoptr(GPtrArray) entries = g_ptr_array_new();
	JsonArray *ops = job_ops(job);
	JsonArray *result;

	for (guint i = 0; ops != NULL && i < json_array_get_length(ops); i++) {
		JsonObject *op = job_op(ops, i);
		JsonArray *log = NULL;

		if (op == NULL || !gnt_json_get_array(op, "log", &log, NULL))
			continue;
		for (guint n = 0; n < json_array_get_length(log); n++) {
			JsonNode *entry = json_array_get_element(log, n);
			gint64 serial = log_entry_serial(entry);
			if (serial >= 0 && serial > prev_serial)
				g_ptr_array_add(entries, entry);
		}
	}
	g_ptr_array_sort(entries, compare_log_entries);
	result = json_array_sized_new(entries->len);
	for (guint i = 0; i < entries->len; i++)
		json_array_add_element(result, json_node_copy(g_ptr_array_index(entries, i)));
	return result;
}
