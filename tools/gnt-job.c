/* gnt-job: job-related commands, after Ganeti's lib/client/gnt_job.py. */
#include <stdio.h>
#include <string.h>

#include "gnt-cli-objects.h"
#include "gnt-json.h"

static const gchar *const list_default_fields[] = {"id", "status", "summary", NULL};

/* --pending/--running/--error/--finished/--queued/--waiting: the last given wins */
static const gchar *const *opt_status_filter;
static gboolean opt_archived;
static gboolean opt_force;
static gboolean opt_kill;
static gboolean opt_yes_do_it;

static gboolean
status_filter_cb(const gchar *name, const gchar *value, gpointer data, GError **error)
{
	static const gchar *const pending[] = {"canceling", "queued", "waiting", NULL};
	static const gchar *const running[] = {"running", NULL};
	static const gchar *const failed[] = {"error", NULL};
	static const gchar *const finished[] = {"canceled", "error", "success", NULL};
	static const gchar *const queued[] = {"queued", NULL};
	static const gchar *const waiting[] = {"waiting", NULL};
	static const struct {
		const gchar *option;
		const gchar *const *statuses;
	} filters[] = {{"--pending", pending},	 {"--running", running}, {"--error", failed},
		       {"--finished", finished}, {"--queued", queued},	 {"--waiting", waiting}};

	for (guint i = 0; i < G_N_ELEMENTS(filters); i++) {
		if (g_strcmp0(name, filters[i].option) == 0)
			opt_status_filter = filters[i].statuses;
	}
	return TRUE;
}

#define STATUS_OPTION(name, help)                                                                  \
	{                                                                                          \
		name, 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer)status_filter_cb,  \
			help, NULL                                                                 \
	}
#define PENDING_OPTION STATUS_OPTION("pending", "Select jobs pending execution or being cancelled")
#define QUEUED_OPTION  STATUS_OPTION("queued", "Select queued jobs only")
#define WAITING_OPTION STATUS_OPTION("waiting", "Select waiting jobs only")
#define FORCE_OPTION                                                                               \
	{                                                                                          \
		"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Force the operation", NULL        \
	}

/* ---- helpers ---- */

static gboolean
parse_job_id(GntCli *cli, const gchar *text, guint64 *job_id, GError **error)
{
	if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXINT64, job_id, NULL)) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "Invalid job ID passed: '%s'", text);
		return FALSE;
	}
	return TRUE;
}

/* ["|", [op, field, v1], [op, field, v2], ...] (MakeSimpleFilter) */
static JsonArray *
new_or_filter(void)
{
	JsonArray *filter = json_array_new();

	json_array_add_string_element(filter, "|");
	return filter;
}

static void
add_equal(JsonArray *filter, const gchar *field, JsonNode *value)
{
	JsonArray *cond = json_array_new();

	json_array_add_string_element(cond, "==");
	json_array_add_string_element(cond, field);
	json_array_add_element(cond, value);
	json_array_add_array_element(filter, cond);
}

static JsonArray *
status_filter(const gchar *const *statuses)
{
	JsonArray *filter = new_or_filter();

	for (guint i = 0; statuses[i] != NULL; i++)
		add_equal(filter, "status", gnt_json_node_new_string(statuses[i]));
	return filter;
}

/* The job IDs of @args as ["|", ["==", "id", N], ...], or NULL for none. */
static gboolean
id_filter(GntCli *cli, gchar **args, JsonArray **filter, GError **error)
{
	g_autoptr(JsonArray) ids = NULL;

	*filter = NULL;
	if (args[0] == NULL)
		return TRUE;
	ids = new_or_filter();
	for (guint i = 0; args[i] != NULL; i++) {
		guint64 id;

		if (!parse_job_id(cli, args[i], &id, error))
			return FALSE;
		add_equal(ids, "id", gnt_json_node_new_int((gint64)id));
	}
	*filter = g_steal_pointer(&ids);
	return TRUE;
}

static gchar *
format_op_timestamps(JsonNode *value)
{
	g_autoptr(JsonArray) texts = json_array_new();
	g_autoptr(JsonNode) node = NULL;
	JsonArray *items = JSON_NODE_HOLDS_ARRAY(value) ? json_node_get_array(value) : NULL;

	for (guint i = 0; items != NULL && i < json_array_get_length(items); i++) {
		g_autofree gchar *text = gnt_cli_format_timestamp(json_array_get_element(items, i));
		json_array_add_string_element(texts, text);
	}
	node = gnt_json_node_new_array(g_steal_pointer(&texts));
	return gnt_cli_py_str(node);
}

/* _JOB_LIST_FORMAT */
static const GntCliFormatOverride job_list_format[] = {
	{"summary", gnt_cli_format_comma_list, FALSE},
	{"opstart", format_op_timestamps, FALSE},
	{"opexec", format_op_timestamps, FALSE},
	{"opend", format_op_timestamps, FALSE},
	{NULL},
};

/* ---- list, list-fields ---- */

static const GOptionEntry list_entries[] = {
	PENDING_OPTION,
	STATUS_OPTION("running", "Show jobs currently running only"),
	STATUS_OPTION("error", "Show failed jobs only"),
	STATUS_OPTION("finished", "Show finished jobs only"),
	{"archived", 0, 0, G_OPTION_ARG_NONE, &opt_archived,
	 "Include archived jobs in list (slow and expensive)", NULL},
	{NULL},
};

static gint
list_jobs(GntCli *cli, gchar **args)
{
	const GntCliOptions *opts = gnt_cli_get_options(cli);
	g_auto(GStrv) fields = gnt_cli_parse_fields(opts->output, list_default_fields);
	g_autoptr(JsonArray) names = NULL;
	g_autoptr(JsonArray) filter = NULL;
	g_autoptr(GError) error = NULL;
	gint exit_code = 0;

	if (opt_archived && !g_strv_contains((const gchar *const *)fields, "archived")) {
		gsize n = g_strv_length(fields);

		fields = g_renew(gchar *, fields, n + 2);
		fields[n] = g_strdup("archived");
		fields[n + 1] = NULL;
	}
	if (!id_filter(cli, args, &names, &error))
		return gnt_cli_fail(cli, error);
	if (opt_status_filter != NULL)
		filter = status_filter(opt_status_filter);
	if (names != NULL && filter != NULL) {
		JsonArray *both = json_array_new();

		json_array_add_string_element(both, "&");
		json_array_add_array_element(both, g_steal_pointer(&names));
		json_array_add_array_element(both, g_steal_pointer(&filter));
		filter = both;
	} else if (names != NULL) {
		filter = g_steal_pointer(&names);
	}
	if (!gnt_cli_generic_list(cli, "job", fields,
				  filter != NULL ? gnt_json_node_new_array(g_steal_pointer(&filter))
						 : NULL,
				  job_list_format, &exit_code, &error))
		return gnt_cli_fail(cli, error);
	return exit_code;
}

static const GntCliListSpec list_spec = {"job"};

/* ---- archive, autoarchive ---- */

static gint
archive_jobs(GntCli *cli, gchar **args)
{
	gint exit_code = 0;

	for (guint i = 0; args[i] != NULL; i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonArray) call_args = json_array_new();
		g_autoptr(JsonNode) result = NULL;
		guint64 id;

		if (!parse_job_id(cli, args[i], &id, &error))
			return gnt_cli_fail(cli, error);
		json_array_add_int_element(call_args, (gint64)id);
		result = gnt_cli_call_array(cli, "ArchiveJob", g_steal_pointer(&call_args), &error);
		if (result == NULL)
			return gnt_cli_fail(cli, error);
		if (json_node_get_value_type(result) != G_TYPE_BOOLEAN ||
		    !json_node_get_boolean(result)) {
			g_printerr("Failed to archive job with ID '%s'\n", args[i]);
			exit_code = 1;
		}
	}
	return exit_code;
}

static gint
auto_archive_jobs(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) call_args = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	g_autofree gchar *archived = NULL;
	g_autofree gchar *left = NULL;
	gint64 age = -1;

	if (g_strcmp0(args[0], "all") != 0 && !gnt_cli_parse_timespec(args[0], &age, &error))
		return gnt_cli_fail(cli, error);
	json_array_add_int_element(call_args, age);
	json_array_add_int_element(call_args, (180 - 1) / 2); /* the Python client's timeout */
	result = gnt_cli_call_array(cli, "AutoArchiveJobs", g_steal_pointer(&call_args), &error);
	if (result == NULL)
		return gnt_cli_fail(cli, error);
	if (!JSON_NODE_HOLDS_ARRAY(result) ||
	    json_array_get_length(json_node_get_array(result)) != 2) {
		g_set_error(&error, GNT_ERROR, GNT_ERROR_INVALID,
			    "AutoArchiveJobs answered a %s, not [archived, left]",
			    gnt_json_node_type_name(result));
		return gnt_cli_fail(cli, error);
	}
	archived = gnt_cli_py_str(json_array_get_element(json_node_get_array(result), 0));
	left = gnt_cli_py_str(json_array_get_element(json_node_get_array(result), 1));
	g_print("Archived %s jobs, %s unchecked left\n", archived, left);
	return 0;
}

/* ---- cancel, change-priority (_MultiJobAction) ---- */

typedef JsonArray *(*JobActionArgs)(guint64 job_id);

/* The jobs matching the status filter, after showing them and asking. */
static gboolean
select_jobs_by_status(GntCli *cli, const gchar *question, GArray *ids, gint *exit_code,
		      GError **error)
{
	g_autoptr(JsonObject) response = NULL;
	g_autoptr(GPtrArray) lines = NULL;
	JsonArray *data = NULL;
	gboolean unknown = FALSE;

	response = gnt_cli_query(cli, "job", (gchar **)list_default_fields,
				 gnt_json_node_new_array(status_filter(opt_status_filter)), error);
	if (response == NULL || !gnt_json_get_array(response, "data", &data, error))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(data); i++) {
		JsonArray *row = json_array_get_array_element(data, i);
		JsonArray *cell = json_array_get_array_element(row, 0);
		gint64 id;

		if (!gnt_json_node_get_int(json_array_get_element(cell, 1), "a job id", &id, error))
			return FALSE;
		g_array_append_val(ids, id);
	}
	if (ids->len == 0) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_WRONG_STATE,
					 "No jobs with the requested status have been found");
		return FALSE;
	}
	if (opt_force)
		return TRUE;
	lines = gnt_cli_format_query_result(response, job_list_format, TRUE, NULL, &unknown, error);
	if (lines == NULL)
		return FALSE;
	for (guint i = 0; i < lines->len; i++)
		g_print("%s\n", (const gchar *)g_ptr_array_index(lines, i));
	if (!gnt_cli_ask_user(question)) {
		*exit_code = GNT_CLI_EXIT_CONFIRMATION;
		g_array_set_size(ids, 0);
	}
	return TRUE;
}

static gint
multi_job_action(GntCli *cli, gchar **args, const gchar *method, const gchar *question,
		 JsonNode *extra_arg)
{
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(gint64));
	g_autoptr(GError) error = NULL;
	gint exit_code = 0;

	if ((args[0] != NULL) == (opt_status_filter != NULL)) {
		gnt_cli_set_prereq_error(
			cli, &error, GNT_ERROR_INVALID,
			"Either a status filter or job ID(s) must be specified and "
			"never both");
		return gnt_cli_fail(cli, error);
	}
	if (opt_status_filter != NULL) {
		if (!select_jobs_by_status(cli, question, ids, &exit_code, &error))
			return gnt_cli_fail(cli, error);
	}
	for (guint i = 0; args[i] != NULL; i++) {
		guint64 id;

		if (!parse_job_id(cli, args[i], &id, &error))
			return gnt_cli_fail(cli, error);
		g_array_append_val(ids, id);
	}
	for (guint i = 0; i < ids->len; i++) {
		g_autoptr(JsonArray) call_args = json_array_new();
		g_autoptr(JsonNode) result = NULL;
		JsonArray *answer;
		g_autofree gchar *message = NULL;

		json_array_add_int_element(call_args, g_array_index(ids, gint64, i));
		json_array_add_element(call_args, json_node_copy(extra_arg));
		result = gnt_cli_call_array(cli, method, g_steal_pointer(&call_args), &error);
		if (result == NULL)
			return gnt_cli_fail(cli, error);
		answer = JSON_NODE_HOLDS_ARRAY(result) ? json_node_get_array(result) : NULL;
		if (answer == NULL || json_array_get_length(answer) != 2) {
			g_set_error(&error, GNT_ERROR, GNT_ERROR_INVALID,
				    "%s answered a %s, not [success, message]", method,
				    gnt_json_node_type_name(result));
			return gnt_cli_fail(cli, error);
		}
		if (json_node_get_value_type(json_array_get_element(answer, 0)) != G_TYPE_BOOLEAN ||
		    !json_array_get_boolean_element(answer, 0))
			exit_code = 1;
		message = gnt_cli_py_str(json_array_get_element(answer, 1));
		g_print("%s\n", message);
	}
	return exit_code;
}

static const GOptionEntry cancel_entries[] = {
	FORCE_OPTION,
	{"kill", 0, 0, G_OPTION_ARG_NONE, &opt_kill,
	 "Accepted for compatibility: a running job cannot be cancelled", NULL},
	PENDING_OPTION,
	QUEUED_OPTION,
	WAITING_OPTION,
	{"yes-do-it", 0, 0, G_OPTION_ARG_NONE, &opt_yes_do_it, "Really use --kill", NULL},
	{NULL},
};

static gint
cancel_jobs(GntCli *cli, gchar **args)
{
	g_autoptr(JsonNode) kill = gnt_json_node_new_bool(opt_kill);
	g_autoptr(GError) error = NULL;

	if (opt_kill && !opt_yes_do_it) {
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID,
					 "The --kill option must be confirmed with --yes-do-it");
		return gnt_cli_fail(cli, error);
	}
	return multi_job_action(
		cli, args, "CancelJob",
		opt_kill ? "KILL job(s) listed above?" : "Cancel job(s) listed above?", kill);
}

static const GOptionEntry change_priority_entries[] = {
	FORCE_OPTION, PENDING_OPTION, QUEUED_OPTION, WAITING_OPTION, {NULL},
};

static gint
change_priority(GntCli *cli, gchar **args)
{
	const GntCliOptions *opts = gnt_cli_get_options(cli);
	g_autoptr(JsonNode) priority = NULL;

	if (!opts->priority_set) {
		g_printerr("--priority option must be given.\n");
		return 1;
	}
	priority = gnt_json_node_new_int(opts->priority);
	return multi_job_action(cli, args, "ChangeJobPriority",
				"Change priority of job(s) listed above?", priority);
}

/* ---- info ---- */

static JsonNode *
cell_value(JsonArray *row, guint index, gint64 *status)
{
	JsonArray *cell = json_array_get_array_element(row, index);

	*status = json_array_get_int_element(cell, 0);
	return json_array_get_element(cell, 1);
}

static gboolean
is_timestamp(JsonNode *node)
{
	return node != NULL && JSON_NODE_HOLDS_ARRAY(node) &&
	       json_array_get_length(json_node_get_array(node)) == 2;
}

static gdouble
timestamp_delta(JsonNode *from, JsonNode *to)
{
	JsonArray *a = json_node_get_array(from);
	JsonArray *b = json_node_get_array(to);

	return (gdouble)(json_array_get_int_element(b, 0) - json_array_get_int_element(a, 0)) +
	       (gdouble)(json_array_get_int_element(b, 1) - json_array_get_int_element(a, 1)) /
		       1000000.0;
}

/* _ListJobTimestamp */
static void
add_job_timestamp(GntCliInfo *info, const gchar *name, JsonNode *ts, JsonNode *prior)
{
	g_autofree gchar *text = NULL;
	g_autofree gchar *time_text = NULL;
	g_autofree gchar *delta = NULL;

	if (!is_timestamp(ts)) {
		g_autofree gchar *value = gnt_cli_py_str(ts);

		text = g_strdup_printf("unknown (%s)", value);
		gnt_cli_info_add(info, name, "job_timestamp", gnt_cli_info_new_text(text));
		return;
	}
	delta = is_timestamp(prior) ? g_strdup_printf(" (delta %.6fs)", timestamp_delta(prior, ts))
				    : g_strdup("");
	time_text = gnt_cli_format_timestamp(ts);
	text = g_strconcat(time_text, delta, NULL);
	gnt_cli_info_add(info, name, "job_timestamp", gnt_cli_info_new_text(text));
}

/* _ListOpcodeTimestamp */
static void
add_opcode_timestamp(GntCliInfo *info, const gchar *name, JsonNode *ts)
{
	g_autofree gchar *text = is_timestamp(ts) ? gnt_cli_format_timestamp(ts) : g_strdup("N/A");

	gnt_cli_info_add(info, name, "opcode_timestamp", gnt_cli_info_new_text(text));
}

static GntCliInfo *
opcode_log_info(JsonNode *log)
{
	GntCliInfo *entries = gnt_cli_info_new_list();

	for (guint i = 0; i < gnt_cli_list_length(log); i++) {
		JsonNode *entry = gnt_cli_list_item(log, i);
		GntCliInfo *item = gnt_cli_info_new_dict();
		g_autofree gchar *time_text = gnt_cli_format_timestamp(gnt_cli_list_item(entry, 1));
		g_autofree gchar *serial = gnt_cli_py_str(gnt_cli_list_item(entry, 0));
		g_autofree gchar *type = gnt_cli_py_str(gnt_cli_list_item(entry, 2));
		g_autofree gchar *message =
			gnt_cli_format_log_message(type, gnt_cli_list_item(entry, 3));

		gnt_cli_info_add_text(item, "Time", time_text);
		gnt_cli_info_add_printf(item, "Content", "[%s, %s, %s]", serial, type, message);
		gnt_cli_info_append(entries, item);
	}
	return entries;
}

/* Field order of the info query; see the selected_fields of ShowJobs. */
enum {
	INFO_ID,
	INFO_STATUS,
	INFO_OPS,
	INFO_OPRESULT,
	INFO_OPSTATUS,
	INFO_OPLOG,
	INFO_OPSTART,
	INFO_OPEXEC,
	INFO_OPEND,
	INFO_RECEIVED,
	INFO_START,
	INFO_END,
	INFO_N_FIELDS
};

static const gchar *const info_fields[] = {"id",       "status",      "ops",	  "opresult",
					   "opstatus", "oplog",	      "opstart",  "opexec",
					   "opend",    "received_ts", "start_ts", "end_ts",
					   NULL};
G_STATIC_ASSERT(G_N_ELEMENTS(info_fields) == INFO_N_FIELDS + 1);

static GntCliInfo *
opcodes_info(JsonNode **values)
{
	GntCliInfo *opcodes = gnt_cli_info_new_list();
	guint n = gnt_cli_list_length(values[INFO_OPS]);

	for (guint f = INFO_OPRESULT; f <= INFO_OPEND; f++)
		n = MIN(n, gnt_cli_list_length(values[f])); /* zip() stops at the shortest */
	for (guint i = 0; i < n; i++) {
		GntCliInfo *op = gnt_cli_info_new_dict();
		JsonNode *input = gnt_cli_list_item(values[INFO_OPS], i);
		JsonNode *op_id =
			JSON_NODE_HOLDS_OBJECT(input)
				? json_object_get_member(json_node_get_object(input), "OP_ID")
				: NULL;

		gnt_cli_info_add(op, "Opcode", NULL, gnt_cli_info_new_json(op_id));
		gnt_cli_info_add(
			op, "Status", NULL,
			gnt_cli_info_new_json(gnt_cli_list_item(values[INFO_OPSTATUS], i)));
		add_opcode_timestamp(op, "Processing start",
				     gnt_cli_list_item(values[INFO_OPSTART], i));
		add_opcode_timestamp(op, "Execution start",
				     gnt_cli_list_item(values[INFO_OPEXEC], i));
		add_opcode_timestamp(op, "Processing end",
				     gnt_cli_list_item(values[INFO_OPEND], i));
		gnt_cli_info_add(op, "Input fields", NULL, gnt_cli_info_new_json(input));
		gnt_cli_info_add(
			op, "Result", NULL,
			gnt_cli_info_new_json(gnt_cli_list_item(values[INFO_OPRESULT], i)));
		gnt_cli_info_add(op, "Execution log", NULL,
				 opcode_log_info(gnt_cli_list_item(values[INFO_OPLOG], i)));
		gnt_cli_info_append(opcodes, op);
	}
	return opcodes;
}

static GntCliInfo *
job_info(JsonNode **values)
{
	GntCliInfo *info = gnt_cli_info_new_dict();
	JsonNode *received = values[INFO_RECEIVED];
	JsonNode *end = values[INFO_END];

	gnt_cli_info_add(info, "Job ID", NULL, gnt_cli_info_new_json(values[INFO_ID]));
	gnt_cli_info_add(info, "Status", NULL, gnt_cli_info_new_json(values[INFO_STATUS]));
	add_job_timestamp(info, "Received", received, NULL);
	add_job_timestamp(info, "Processing start", values[INFO_START], received);
	add_job_timestamp(info, "Processing end", end, values[INFO_START]);
	if (is_timestamp(end) && is_timestamp(received))
		gnt_cli_info_add_printf(info, "Total processing time", "%.6f seconds",
					timestamp_delta(received, end));
	else
		gnt_cli_info_add_text(info, "Total processing time", "N/A");
	gnt_cli_info_add(info, "Opcodes", NULL, opcodes_info(values));
	return info;
}

static gboolean
query_jobs_info(GntCli *cli, gchar **args, JsonArray **rows, GError **error)
{
	g_autoptr(JsonObject) response = NULL;
	JsonArray *filter = NULL;
	JsonArray *data = NULL;

	if (!id_filter(cli, args, &filter, error))
		return FALSE;
	response = gnt_cli_query(cli, "job", (gchar **)info_fields, gnt_json_node_new_array(filter),
				 error);
	if (response == NULL || !gnt_json_get_array(response, "data", &data, error))
		return FALSE;
	*rows = json_array_ref(data);
	return TRUE;
}

/* Whether the answer has a row for job @id. */
static gboolean
rows_have_job(JsonArray *rows, guint64 id)
{
	for (guint r = 0; r < json_array_get_length(rows); r++) {
		gint64 status;
		JsonNode *value =
			cell_value(json_array_get_array_element(rows, r), INFO_ID, &status);

		if (status == 0 && gnt_json_node_is_int(value) &&
		    (guint64)json_node_get_int(value) == id)
			return TRUE;
	}
	return FALSE;
}

static gint
show_jobs(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) rows = NULL;
	g_autoptr(GntCliInfo) container = gnt_cli_info_new_list();
	g_autofree gchar *text = NULL;

	if (!query_jobs_info(cli, args, &rows, &error))
		return gnt_cli_fail(cli, error);
	for (guint r = 0; r < json_array_get_length(rows); r++) {
		JsonNode *row = json_array_get_element(rows, r);
		JsonNode *values[INFO_N_FIELDS];
		gint64 status = 0;

		if (!JSON_NODE_HOLDS_ARRAY(row) ||
		    json_array_get_length(json_node_get_array(row)) != INFO_N_FIELDS)
			continue;
		for (guint f = 0; f < INFO_N_FIELDS; f++) {
			gint64 cell_status;

			values[f] = cell_value(json_node_get_array(row), f, &cell_status);
			if (f == INFO_STATUS)
				status = cell_status;
		}
		if (status != 0) {
			g_autofree gchar *id = gnt_cli_py_str(values[INFO_ID]);
			g_autofree gchar *missing = g_strdup_printf("Job ID %s not found", id);

			gnt_cli_info_append(container, gnt_cli_info_new_text(missing));
			continue;
		}
		gnt_cli_info_append(container, job_info(values));
	}
	/* a server that leaves unknown IDs out: report them the same way */
	for (guint i = 0; args[i] != NULL; i++) {
		guint64 id = 0;

		if (parse_job_id(cli, args[i], &id, NULL) && !rows_have_job(rows, id)) {
			g_autofree gchar *missing =
				g_strdup_printf("Job ID %" G_GUINT64_FORMAT " not found", id);
			gnt_cli_info_append(container, gnt_cli_info_new_text(missing));
		}
	}
	text = gnt_cli_info_format(container);
	g_print("%s\n", text);
	return 0;
}

/* ---- watch, wait ---- */

static gint
poll_one(GntCli *cli, const gchar *arg, GntCliPollReport report)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) results = NULL;
	guint64 id;
	gint exit_code = 1;

	if (!parse_job_id(cli, arg, &id, &error))
		return gnt_cli_fail(cli, error);
	if (report == GNT_CLI_POLL_STDIO) {
		g_autofree gchar *msg = g_strdup_printf("Output from job %s follows", arg);
		g_autofree gchar *line = g_strnfill(strlen(msg), '-');

		g_print("%s\n%s\n", msg, line);
	}
	results = gnt_cli_poll_job(cli, id, report, &error);
	if (results == NULL) {
		g_autofree gchar *text = gnt_cli_format_error(cli, error, &exit_code);

		fflush(stdout);
		g_printerr("Job %s failed: %s\n", arg, text);
		return exit_code;
	}
	return 0;
}

static gint
watch_job(GntCli *cli, gchar **args)
{
	return poll_one(cli, args[0], GNT_CLI_POLL_STDIO);
}

static gint
wait_job(GntCli *cli, gchar **args)
{
	return poll_one(cli, args[0], GNT_CLI_POLL_SILENT);
}

static const GntCliCommand commands[] = {
	{"archive", archive_jobs, 1, -1, GNT_CLI_OPT_NONE, NULL, "<job-id> [<job-id>...]",
	 "Archive specified jobs",
	 "Moves finished jobs to the archive; a job not found or not finished fails."},
	{"autoarchive", auto_archive_jobs, 1, 1, GNT_CLI_OPT_NONE, NULL, "<age>",
	 "Auto archive jobs older than the given age",
	 "<age> is a number of seconds, optionally with the unit s, m, h, d or w (1d, 4w), or "
	 "\"all\" for every finished job. Prints how many jobs were archived and how many "
	 "were left unchecked."},
	{"cancel", cancel_jobs, 0, -1, GNT_CLI_OPT_NONE, cancel_entries,
	 "{[--force] [--kill --yes-do-it] {--pending | --queued | --waiting} | <job-id> "
	 "[<job-id>...]}",
	 "Cancel jobs",
	 "Cancels queued and waiting jobs, given by ID or by a status filter (which lists the "
	 "jobs and asks first, unless --force). Prints the server's answer per job; exits 1 "
	 "if one could not be cancelled."},
	{"change-priority", change_priority, 0, -1, GNT_CLI_OPT_PRIORITY, change_priority_entries,
	 "--priority <priority> {[--force] {--pending | --queued | --waiting} | <job-id> "
	 "[<job-id>...]}",
	 "Change the priority of jobs", NULL},
	{"info", show_jobs, 1, -1, GNT_CLI_OPT_NONE, NULL, "<job-id> [<job-id>...]",
	 "Show detailed information about the specified jobs",
	 "Shows status, timestamps, opcodes (private and secret parameters as the server "
	 "shows them: \"<redacted>\"), results and logs. Unknown IDs are reported as "
	 "\"Job ID N not found\"."},
	{"list", list_jobs, 0, -1, GNT_CLI_OPT_FIELDS | GNT_CLI_OPT_TABLE, list_entries,
	 "[<job-id>...]",
	 "Lists the jobs and their status. The available fields can be shown using the "
	 "\"list-fields\" command. The default field list is (in order): id, status, "
	 "summary.",
	 "Exits 14 if a requested field is unknown."},
	{"list-fields", gnt_cli_list_fields_command, 0, -1, GNT_CLI_OPT_TABLE, NULL,
	 "[<fields>...]", "Lists all available fields for jobs", NULL, &list_spec},
	{"show", show_jobs, 1, -1, GNT_CLI_OPT_NONE, NULL, "<job-id> [<job-id>...]",
	 "Alias of \"info\"", NULL},
	{"wait", wait_job, 1, 1, GNT_CLI_OPT_NONE, NULL, "<job-id>", "Wait for a job to finish",
	 "Waits silently; exits 0 if the job succeeded, 1 (with the error) otherwise."},
	{"watch", watch_job, 1, 1, GNT_CLI_OPT_NONE, NULL, "<job-id>",
	 "Follows a job and prints its output as it arrives",
	 "Prints the job's log lines until it finishes; exits 0 if the job succeeded, 1 (with "
	 "the error) otherwise."},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
