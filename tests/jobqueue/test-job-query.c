#include "gnt-cmdlib.h"
#include "../config/config-test-json.h"
#include "gnt-error.h"
#include "gnt-job-query.h"
#include "queue-fixture.h"

/* ------------------------------------------------------------------ */

static void
test_fields_golden(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) golden = test_json_load("query-job-fields.json");
	g_autoptr(JsonNode) all = gnt_job_query_fields(NULL, &error);
	g_autoptr(JsonNode) empty = test_json_parse("[]");
	g_autoptr(JsonNode) all2 = gnt_job_query_fields(json_node_get_array(empty), &error);

	g_assert_no_error(error);
	test_json_assert_equal(all, golden);
	test_json_assert_equal(all2, golden);
}

static void
test_fields_selected(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) names = test_json_parse("[\"summary\", \"bogus\", \"id\"]");
	g_autoptr(JsonNode) fields = gnt_job_query_fields(json_node_get_array(names), &error);

	g_assert_no_error(error);
	test_json_assert_text(fields,
			      "{\"fields\": ["
			      "{\"name\": \"summary\", \"title\": \"Summary\", \"kind\": \"other\","
			      " \"doc\": \"List of per-opcode summaries\"},"
			      "{\"name\": \"bogus\", \"title\": \"bogus\", \"kind\": \"unknown\","
			      " \"doc\": \"Unknown field 'bogus'\"},"
			      "{\"name\": \"id\", \"title\": \"ID\", \"kind\": \"number\","
			      " \"doc\": \"Job ID\"}]}");
}

/* Every field of a hand-written record against its golden values. */
static void
test_values_golden(gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) golden = test_json_load(data);
	JsonObject *obj = json_node_get_object(golden);
	JsonObject *record = json_object_get_object_member(obj, "record");
	gboolean archived = json_object_get_boolean_member(obj, "archived");
	JsonObject *expected = json_object_get_object_member(obj, "values");
	g_autoptr(JsonNode) defs = gnt_job_query_fields(NULL, &error);
	JsonArray *fields = json_object_get_array_member(json_node_get_object(defs), "fields");
	g_autoptr(JsonArray) row = gnt_job_query_values(record, archived, NULL, &error);
	g_autoptr(JsonNode) expected_node = json_node_init_object(json_node_alloc(), expected);
	g_autoptr(JsonNode) got = NULL;
	JsonObject *got_obj = json_object_new();

	g_assert_no_error(error);
	g_assert_nonnull(row);
	g_assert_cmpuint(json_array_get_length(row), ==, json_array_get_length(fields));
	for (guint i = 0; i < json_array_get_length(fields); i++) {
		const gchar *name = json_object_get_string_member(
			json_array_get_object_element(fields, i), "name");
		json_object_set_member(got_obj, name,
				       json_node_copy(json_array_get_element(row, i)));
	}
	got = gnt_json_node_new_object(got_obj);
	test_json_assert_equal(got, expected_node);
}

static void
test_values_selected(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) golden = test_json_load("query-job-running.json");
	JsonObject *record = json_object_get_object_member(json_node_get_object(golden), "record");
	g_autoptr(JsonNode)
		names = test_json_parse("[\"summary\", \"id\", \"status\", \"end_ts\", \"id\"]");
	g_autoptr(JsonArray)
		row = gnt_job_query_values(record, FALSE, json_node_get_array(names), &error);
	g_autoptr(JsonNode) row_node = NULL;

	g_assert_no_error(error);
	row_node = gnt_json_node_new_array(g_steal_pointer(&row));
	test_json_assert_text(row_node,
			      "[[\"TEST_DUMMY\", \"TEST_DELAY(1.0)\", \"CLUSTER_DESTROY\"], 7,"
			      " \"running\", null, 7]");
}

static void
test_values_unknown_field(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) golden = test_json_load("query-job-delay.json");
	JsonObject *record = json_object_get_object_member(json_node_get_object(golden), "record");
	g_autoptr(JsonNode) names = test_json_parse("[\"id\", \"nope\", \"status\", \"worse\"]");
	g_autoptr(JsonArray)
		row = gnt_job_query_values(record, FALSE, json_node_get_array(names), &error);

	g_assert_null(row);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "Unknown output fields selected: nope, worse");
}

static void
test_values_bad_id(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) record = test_json_parse("{\"id\": \"x7\", \"ops\": []}");
	g_autoptr(JsonArray)
		row = gnt_job_query_values(json_node_get_object(record), FALSE, NULL, &error);

	g_assert_null(row);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_true(g_str_has_prefix(error->message, "job record: 'id': "));
}

/* ------------------------------------------------------------------ */

static JsonObject *
record_with_ops(const gchar *statuses, const gchar *priorities)
{
	g_auto(GStrv) names = g_strsplit(statuses, ",", -1);
	g_auto(GStrv) prios = priorities != NULL ? g_strsplit(priorities, ",", -1) : NULL;
	JsonObject *job = json_object_new();
	JsonArray *ops = json_array_new();

	json_object_set_int_member(job, "id", 1);
	for (guint i = 0; names[i] != NULL && names[i][0] != '\0'; i++) {
		JsonObject *op = json_object_new();
		json_object_set_string_member(op, "status", names[i]);
		if (prios != NULL && prios[i] != NULL && prios[i][0] != '\0')
			json_object_set_int_member(op, "priority",
						   g_ascii_strtoll(prios[i], NULL, 10));
		json_array_add_object_element(ops, op);
	}
	json_object_set_array_member(job, "ops", ops);
	return job;
}

static const struct {
	const gchar *ops;
	GntJobStatus status;
} status_cases[] = {
	/* all success: success */
	{"success", GNT_JOB_STATUS_SUCCESS},
	{"success,success,success", GNT_JOB_STATUS_SUCCESS},
	/* success and queued are skipped: the default is queued */
	{"queued", GNT_JOB_STATUS_QUEUED},
	{"success,queued", GNT_JOB_STATUS_QUEUED},
	{"queued,queued,success", GNT_JOB_STATUS_QUEUED},
	/* the last waiting or running status seen */
	{"waiting,queued", GNT_JOB_STATUS_WAITING},
	{"success,running,queued", GNT_JOB_STATUS_RUNNING},
	{"running,waiting", GNT_JOB_STATUS_WAITING},
	{"waiting,running", GNT_JOB_STATUS_RUNNING},
	{"success,waiting,success", GNT_JOB_STATUS_WAITING},
	/* the first error, canceling or canceled fixes the status */
	{"error", GNT_JOB_STATUS_ERROR},
	{"success,error,error", GNT_JOB_STATUS_ERROR},
	{"running,error,canceled", GNT_JOB_STATUS_ERROR},
	{"canceling,canceling", GNT_JOB_STATUS_CANCELING},
	{"success,canceling,error", GNT_JOB_STATUS_CANCELING},
	{"canceled,canceled", GNT_JOB_STATUS_CANCELED},
	{"waiting,canceled,error", GNT_JOB_STATUS_CANCELED},
	{"queued,error", GNT_JOB_STATUS_ERROR},
	/* an opcode without a valid status counts as error */
	{"success,bogus,running", GNT_JOB_STATUS_ERROR},
};

static void
test_status(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(status_cases); i++) {
		g_autoptr(JsonObject) job = record_with_ops(status_cases[i].ops, NULL);
		GntJobStatus got = gnt_job_record_calc_status(job);

		g_test_message("ops %s", status_cases[i].ops);
		g_assert_cmpstr(gnt_job_status_to_string(got), ==,
				gnt_job_status_to_string(status_cases[i].status));
	}
}

static void
test_status_not_a_list(void)
{
	g_autoptr(JsonNode) job = test_json_parse("{\"id\": 1, \"ops\": {}}");

	g_assert_cmpint(gnt_job_record_calc_status(json_node_get_object(job)), ==,
			GNT_JOB_STATUS_ERROR);
}

static const struct {
	const gchar *ops;
	const gchar *priorities;
	gint64 priority;
} priority_cases[] = {
	{"queued", "10", 10},
	{"queued,queued", "10,-10", -10},
	{"success,running,queued", "-20,0,10", 0},
	{"success,error", "-10,-10", 0},
	{"canceled,waiting", "-20,5", 5},
	{"queued,queued", ",10", 0}, /* a missing priority counts as 0 */
	{"success", "19", 0},
};

static void
test_priority(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(priority_cases); i++) {
		g_autoptr(JsonObject)
			job = record_with_ops(priority_cases[i].ops, priority_cases[i].priorities);

		g_assert_cmpint(gnt_job_record_calc_priority(job), ==, priority_cases[i].priority);
	}
}

static const struct {
	const gchar *input;
	const gchar *summary;
} summary_cases[] = {
	{"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 2.5}", "TEST_DELAY(2.5)"},
	{"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 10}", "TEST_DELAY(10)"},
	{"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0.001}", "TEST_DELAY(0.001)"},
	{"{\"OP_ID\": \"OP_TEST_DELAY\"}", "TEST_DELAY"},
	{"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": null}", "TEST_DELAY"},
	{"{\"OP_ID\": \"OP_TEST_DUMMY\", \"result\": 1}", "TEST_DUMMY"},
	{"{\"OP_ID\": \"OP_CLUSTER_DESTROY\"}", "CLUSTER_DESTROY"},
	{"{\"OP_ID\": \"OP_INSTANCE_STARTUP\", \"instance_name\": \"inst1\"}",
	 "INSTANCE_STARTUP(inst1)"},
	{"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": [\"a\", 1, true]}",
	 "INSTANCE_CREATE(a,1,True)"},
	{"{\"OP_ID\": \"CUSTOM\"}", "CUSTOM"},
	{"{\"duration\": 1}", "INVALID_OP"},
	{"{\"OP_ID\": 3}", "INVALID_OP"},
	{"[\"OP_TEST_DELAY\"]", "INVALID_OP"},
};

static void
test_summary(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(summary_cases); i++) {
		g_autoptr(JsonNode) input = test_json_parse(summary_cases[i].input);
		g_autofree gchar *summary = gnt_job_op_summary(input);

		g_assert_cmpstr(summary, ==, summary_cases[i].summary);
	}
	{
		g_autofree gchar *summary = gnt_job_op_summary(NULL);
		g_assert_cmpstr(summary, ==, "INVALID_OP");
	}
}

static void
test_log_since(void)
{
	/* serials are shared across the opcodes; entries come out in serial order */
	g_autoptr(JsonNode) job = test_json_parse(
		"{\"id\": 3, \"ops\": ["
		"{\"status\": \"success\", \"log\": [[1, [1, 0], \"message\", \"a\"],"
		" [3, [3, 0], \"message\", \"c\"]]},"
		"{\"status\": \"running\", \"log\": [[2, [2, 0], \"message\", \"b\"],"
		" \"junk\", [], [\"x\"], [5, [5, 0], \"message\", \"e\"],"
		" [4, [4, 0], \"remote-import\", {\"x\": 1}]]},"
		"{\"status\": \"queued\"},"
		"{\"status\": \"queued\", \"log\": null}, 7]}");
	JsonObject *obj = json_node_get_object(job);
	g_autoptr(JsonNode) all = gnt_json_node_new_array(gnt_job_query_log_since(obj, -1));
	g_autoptr(JsonNode) zero = gnt_json_node_new_array(gnt_job_query_log_since(obj, 0));
	g_autoptr(JsonNode) after2 = gnt_json_node_new_array(gnt_job_query_log_since(obj, 2));
	g_autoptr(JsonNode) after5 = gnt_json_node_new_array(gnt_job_query_log_since(obj, 5));
	const gchar *all_text = "[[1, [1, 0], \"message\", \"a\"], [2, [2, 0], \"message\", \"b\"],"
				" [3, [3, 0], \"message\", \"c\"],"
				" [4, [4, 0], \"remote-import\", {\"x\": 1}],"
				" [5, [5, 0], \"message\", \"e\"]]";

	test_json_assert_text(all, all_text);
	test_json_assert_text(zero, all_text);
	test_json_assert_text(after2, "[[3, [3, 0], \"message\", \"c\"],"
				      " [4, [4, 0], \"remote-import\", {\"x\": 1}],"
				      " [5, [5, 0], \"message\", \"e\"]]");
	test_json_assert_text(after5, "[]");
}

static void
test_log_since_golden(void)
{
	g_autoptr(JsonNode) golden = test_json_load("query-job-error.json");
	JsonObject *record = json_object_get_object_member(json_node_get_object(golden), "record");
	g_autoptr(JsonNode) after1 = gnt_json_node_new_array(gnt_job_query_log_since(record, 1));

	test_json_assert_text(after1, "[[2, [1700000201, 2], \"message\", \"* disk 0 failed\"]]");
}

/* ------------------------------------------------------------------ */
/* Over a real queue: jobs 1..3 finished, job 1 archived */

static void
queue_with_jobs_set_up(QueueFx *fx, gconstpointer data)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	gboolean archived = FALSE;

	queue_fx_set_up(fx, data);
	gnt_queue_start(fx->queue);
	for (guint64 i = 1; i <= 3; i++) {
		guint64 id = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}",
							      NULL));
		g_autofree gchar *status = queue_fx_wait_final(fx, id);
		g_assert_cmpuint(id, ==, i);
		g_assert_cmpstr(status, ==, "success");
	}
	gnt_queue_archive_async(fx->queue, 1, async_result_cb, &res);
	g_assert_true(
		gnt_queue_archive_finish(fx->queue, queue_fx_wait_result(&res), &archived, &error));
	g_assert_no_error(error);
	g_assert_true(archived);
}

/* The "data" of Query("job", @fields, @filter). */
static JsonNode *
query_data(QueueFx *fx, const gchar *fields, const gchar *filter)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) fields_node = test_json_parse(fields);
	g_autoptr(JsonNode) filter_node = test_json_parse(filter);
	g_autoptr(JsonNode) response =
		gnt_job_query(fx->queue, json_node_get_array(fields_node), filter_node, &error);

	g_assert_no_error(error);
	g_assert_nonnull(response);
	return json_node_copy(json_object_get_member(json_node_get_object(response), "data"));
}

static const struct {
	const gchar *fields;
	const gchar *filter;
	const gchar *data;
} queue_query_cases[] = {
	/* live jobs only, unless "archived" is asked for */
	{"[\"id\", \"status\", \"summary\"]", "null",
	 "[[[0, 2], [0, \"success\"], [0, [\"TEST_DELAY(0)\"]]],"
	 " [[0, 3], [0, \"success\"], [0, [\"TEST_DELAY(0)\"]]]]"},
	{"[\"id\", \"archived\"]", "null",
	 "[[[0, 2], [0, false]], [[0, 3], [0, false]], [[0, 1], [0, true]]]"},
	{"[\"id\"]", "[\"?\", \"archived\"]", "[[[0, 1]]]"},
	{"[\"id\", \"nope\"]", "[\">\", \"id\", 2]", "[[[0, 3], [1, null]]]"},
	/* IDs are looked up; missing ones (and archived ones, unless asked
	 * for) still give a row */
	{"[\"id\", \"status\"]", "[\"==\", \"id\", 1]", "[[[0, 1], [3, null]]]"},
	{"[\"id\", \"archived\"]", "[\"==\", \"id\", 1]", "[[[0, 1], [0, true]]]"},
	{"[\"id\", \"status\"]", "[\"|\", [\"==\", \"id\", \"3\"], [\"==\", \"id\", 99]]",
	 "[[[0, 3], [0, \"success\"]], [[0, 99], [3, null]]]"},
	{"[\"id\"]", "[\"|\"]", "[]"},
};

static void
test_queue_query(QueueFx *fx, gconstpointer data)
{
	for (guint i = 0; i < G_N_ELEMENTS(queue_query_cases); i++) {
		g_autoptr(JsonNode) got =
			query_data(fx, queue_query_cases[i].fields, queue_query_cases[i].filter);
		test_json_assert_text(got, queue_query_cases[i].data);
	}
}

static void
test_queue_query_response(QueueFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) fields = test_json_parse("[\"id\", \"x\"]");
	g_autoptr(JsonNode) filter = test_json_parse("[\"==\", \"id\", 2]");
	g_autoptr(JsonNode)
		response = gnt_job_query(fx->queue, json_node_get_array(fields), filter, &error);

	g_assert_no_error(error);
	test_json_assert_text(response,
			      "{\"fields\": ["
			      "{\"name\": \"id\", \"title\": \"ID\", \"kind\": \"number\","
			      " \"doc\": \"Job ID\"},"
			      "{\"name\": \"x\", \"title\": \"x\", \"kind\": \"unknown\","
			      " \"doc\": \"Unknown field 'x'\"}],"
			      " \"data\": [[[0, 2], [1, null]]]}");
}

static void
test_queue_query_bad_filter(QueueFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) fields = test_json_parse("[\"id\"]");
	g_autoptr(JsonNode) filter = test_json_parse("[\"==\", \"idd\", 2]");
	g_autoptr(JsonNode)
		response = gnt_job_query(fx->queue, json_node_get_array(fields), filter, &error);

	g_assert_null(response);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "unknown field 'idd' in filter");
}

static JsonNode *
query_jobs(QueueFx *fx, const gchar *ids, const gchar *fields, GError **error)
{
	g_autoptr(JsonNode) ids_node = test_json_parse(ids);
	g_autoptr(JsonNode) fields_node = test_json_parse(fields);

	return gnt_job_query_jobs(
		fx->queue, JSON_NODE_HOLDS_ARRAY(ids_node) ? json_node_get_array(ids_node) : NULL,
		json_node_get_array(fields_node), error);
}

static void
test_queue_query_jobs(QueueFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) all = query_jobs(fx, "null", "[\"id\", \"status\"]", &error);
	g_autoptr(JsonNode) none = query_jobs(fx, "[]", "[\"id\"]", &error);
	g_autoptr(JsonNode) some =
		query_jobs(fx, "[3, \"2\", 99, 1]", "[\"id\", \"status\", \"opstatus\"]", &error);
	g_autoptr(JsonNode) with_archive = query_jobs(fx, "[1]", "[\"archived\", \"id\"]", &error);

	g_assert_no_error(error);
	test_json_assert_text(all, "[[2, \"success\"], [3, \"success\"]]");
	test_json_assert_text(none, "[[2], [3]]");
	test_json_assert_text(some,
			      "[[3, \"success\", [\"success\"]], [2, \"success\", [\"success\"]],"
			      " [99, null, null], [1, null, null]]");
	test_json_assert_text(with_archive, "[[true, 1]]");
}

static void
test_queue_query_jobs_errors(QueueFx *fx, gconstpointer data)
{
	{
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) rows = query_jobs(fx, "[2]", "[\"id\", \"bogus\"]", &error);
		g_assert_null(rows);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_cmpstr(error->message, ==, "Unknown output fields selected: bogus");
	}
	{
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) rows = query_jobs(fx, "[2, \"x\"]", "[\"id\"]", &error);
		g_assert_null(rows);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_true(g_str_has_prefix(error->message, "job ID 1: "));
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	gnt_opcode_register_table(&gnt_cmdlib_op_table); /* the real opcodes */
	g_test_add_func("/job-query/fields/golden", test_fields_golden);
	g_test_add_func("/job-query/fields/selected", test_fields_selected);
	g_test_add_data_func("/job-query/values/delay", "query-job-delay.json", test_values_golden);
	g_test_add_data_func("/job-query/values/running", "query-job-running.json",
			     test_values_golden);
	g_test_add_data_func("/job-query/values/error", "query-job-error.json", test_values_golden);
	g_test_add_func("/job-query/values/selected", test_values_selected);
	g_test_add_func("/job-query/values/unknown-field", test_values_unknown_field);
	g_test_add_func("/job-query/values/bad-id", test_values_bad_id);
	g_test_add_func("/job-query/status", test_status);
	g_test_add_func("/job-query/status/not-a-list", test_status_not_a_list);
	g_test_add_func("/job-query/priority", test_priority);
	g_test_add_func("/job-query/summary", test_summary);
	g_test_add_func("/job-query/log-since", test_log_since);
	g_test_add_func("/job-query/log-since/golden", test_log_since_golden);
#define ADD(path, func)                                                                            \
	g_test_add(path, QueueFx, NULL, queue_with_jobs_set_up, func, queue_fx_tear_down)
	ADD("/job-query/queue/query", test_queue_query);
	ADD("/job-query/queue/query-response", test_queue_query_response);
	ADD("/job-query/queue/query-bad-filter", test_queue_query_bad_filter);
	ADD("/job-query/queue/query-jobs", test_queue_query_jobs);
	ADD("/job-query/queue/query-jobs-errors", test_queue_query_jobs_errors);
#undef ADD
	return g_test_run();
}
