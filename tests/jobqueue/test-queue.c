#include <sqlite3.h>

#include "gnt-cmdlib.h"
#include "gnt-job-store.h"
#include "gnt-job.h"
#include "queue-fixture.h"

static JsonArray *
record_op(JsonObject *record, guint i, const gchar *member)
{
	JsonObject *op =
		json_array_get_object_element(json_object_get_array_member(record, "ops"), i);
	JsonNode *node = json_object_get_member(op, member);

	return node != NULL && JSON_NODE_HOLDS_ARRAY(node) ? json_node_get_array(node) : NULL;
}

static const gchar *
record_op_status(JsonObject *record, guint i)
{
	JsonObject *op =
		json_array_get_object_element(json_object_get_array_member(record, "ops"), i);

	return json_object_get_string_member(op, "status");
}

/* The encoded exception in an opcode result: [class, [message, ...]]. */
static void
assert_op_exception(JsonObject *record, guint i, const gchar *klass, const gchar *message)
{
	JsonArray *result = record_op(record, i, "result");

	g_assert_nonnull(result);
	g_assert_cmpstr(json_array_get_string_element(result, 0), ==, klass);
	g_assert_cmpstr(json_array_get_string_element(json_array_get_array_element(result, 1), 0),
			==, message);
}

static void
test_submit_runs(QueueFx *fx, gconstpointer data)
{
	guint64 id = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL));
	g_autofree gchar *status = queue_fx_wait_final(fx, id);
	g_autoptr(JsonObject) record = queue_fx_record(fx, id);
	JsonObject *op =
		json_array_get_object_element(json_object_get_array_member(record, "ops"), 0);
	JsonObject *input = json_object_get_object_member(op, "input");
	JsonArray *reason = json_object_get_array_member(input, "reason");
	JsonArray *last = json_array_get_array_element(reason, json_array_get_length(reason) - 1);
	g_autofree gchar *text = g_strdup_printf("job=%" G_GUINT64_FORMAT ";index=0", id);

	g_assert_cmpuint(id, ==, 1);
	g_assert_cmpstr(status, ==, "success");
	g_assert_cmpstr(json_array_get_string_element(last, 0), ==, "gnt:opcode:test_delay");
	g_assert_cmpstr(json_array_get_string_element(last, 1), ==, text);
	/* every default is filled in, as Ganeti's clients send them */
	g_assert_true(json_object_get_boolean_member(input, "on_master"));
	g_assert_true(json_object_get_boolean_member(input, "no_locks"));
	g_assert_true(JSON_NODE_HOLDS_NULL(json_object_get_member(op, "result")));
	g_assert_true(JSON_NODE_HOLDS_ARRAY(json_object_get_member(op, "exec_timestamp")));
	g_assert_true(JSON_NODE_HOLDS_ARRAY(json_object_get_member(record, "end_timestamp")));
	g_assert_cmpuint(gnt_queue_get_n_unfinished(fx->queue), ==, 0);
}

static void
test_many_jobs(QueueFx *fx, gconstpointer data)
{
	GPtrArray *jobs = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GArray) ids = NULL;

	for (guint i = 0; i < 200; i++)
		g_ptr_array_add(jobs, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL));
	ids = queue_fx_submit_jobs(fx, jobs);
	g_assert_cmpuint(ids->len, ==, 200);
	for (guint i = 0; i < ids->len; i++) {
		g_autofree gchar *status = queue_fx_wait_final(fx, g_array_index(ids, guint64, i));
		g_assert_cmpuint(g_array_index(ids, guint64, i), ==, i + 1);
		g_assert_cmpstr(status, ==, "success");
	}
}

static void
test_failure_propagates(QueueFx *fx, gconstpointer data)
{
	guint64 id = queue_fx_submit(fx, queue_fx_job("OP_TEST_DUMMY", "{\"fail\": true}",
						      "OP_TEST_DUMMY", "{\"result\": 1}", NULL));
	g_autofree gchar *status = queue_fx_wait_final(fx, id);
	g_autoptr(JsonObject) record = queue_fx_record(fx, id);

	g_assert_cmpstr(status, ==, "error");
	g_assert_cmpstr(record_op_status(record, 0), ==, "error");
	g_assert_cmpstr(record_op_status(record, 1), ==, "error");
	assert_op_exception(record, 0, "OpExecError", "Opcode failure was requested");
	assert_op_exception(record, 1, "OpExecError", "Preceding opcode failed");
}

static void
test_prereq_error(QueueFx *fx, gconstpointer data)
{
	guint64 id = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY",
						      "{\"duration\": 0, \"on_nodes\": [\"nope\"]}",
						      NULL));
	g_autofree gchar *status = queue_fx_wait_final(fx, id);
	g_autoptr(JsonObject) record = queue_fx_record(fx, id);
	JsonArray *args;

	g_assert_cmpstr(status, ==, "error");
	assert_op_exception(record, 0, "OpPrereqError", "node 'nope' does not exist");
	args = json_array_get_array_element(record_op(record, 0, "result"), 1);
	g_assert_cmpstr(json_array_get_string_element(args, 1), ==, "unknown_entity");
}

/* The engine runs only the units its queue was given: an opcode of the
 * table without one fails its job, and the queue goes on. */
static void
test_opcode_without_unit(QueueFx *fx, gconstpointer data)
{
	static const GntLuUnit dummy_only[] = {{"OP_TEST_DUMMY", &gnt_lu_test_dummy}, {NULL}};
	guint64 id;
	g_autofree gchar *status = NULL;
	g_autofree gchar *again = NULL;
	g_autoptr(JsonObject) record = NULL;

	gnt_queue_set_units(fx->queue, dummy_only);
	id = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL));
	status = queue_fx_wait_final(fx, id);
	record = queue_fx_record(fx, id);
	g_assert_cmpstr(status, ==, "error");
	assert_op_exception(record, 0, "OpPrereqError",
			    "no logical unit runs opcode 'OP_TEST_DELAY'");
	id = queue_fx_submit(fx, queue_fx_job("OP_TEST_DUMMY", "{\"result\": 1}", NULL));
	again = queue_fx_wait_final(fx, id);
	g_assert_cmpstr(again, ==, "success");
}

static void
test_dependencies(QueueFx *fx, gconstpointer data)
{
	guint64 a = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0.5}", NULL));
	g_autofree gchar *dep_any =
		g_strdup_printf("{\"depends\": [[%" G_GUINT64_FORMAT ", []]]}", a);
	g_autofree gchar *dep_err =
		g_strdup_printf("{\"depends\": [[%" G_GUINT64_FORMAT ", [\"error\"]]]}", a);
	guint64 b = queue_fx_submit(fx, queue_fx_job("OP_TEST_DUMMY", dep_any, NULL));
	guint64 c = queue_fx_submit(fx, queue_fx_job("OP_TEST_DUMMY", dep_err, NULL));
	g_autofree gchar *b_waiting = queue_fx_status(fx, b, NULL);
	g_autofree gchar *a_final = queue_fx_wait_final(fx, a);
	g_autofree gchar *b_final = queue_fx_wait_final(fx, b);
	g_autofree gchar *c_final = queue_fx_wait_final(fx, c);
	g_autoptr(JsonObject) record = queue_fx_record(fx, c);
	g_autofree gchar *expected = g_strdup_printf("dependency on job %" G_GUINT64_FORMAT
						     " not met: it ended with status 'success'",
						     a);

	/* durable before the answer, so the parked state is visible at once */
	g_assert_cmpstr(b_waiting, ==, "waiting");
	g_assert_cmpstr(a_final, ==, "success");
	g_assert_cmpstr(b_final, ==, "success");
	g_assert_cmpstr(c_final, ==, "error");
	assert_op_exception(record, 0, "OpExecError", expected);
}

static void
test_relative_dependency(QueueFx *fx, gconstpointer data)
{
	GPtrArray *jobs = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GArray) ids = NULL;
	g_autoptr(JsonObject) record = NULL;
	g_autofree gchar *status = NULL;
	JsonArray *deps;

	g_ptr_array_add(jobs, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0.2}", NULL));
	g_ptr_array_add(jobs, queue_fx_job("OP_TEST_DUMMY", "{\"depends\": [[-1, [\"success\"]]]}",
					   NULL));
	ids = queue_fx_submit_jobs(fx, jobs);
	status = queue_fx_wait_final(fx, g_array_index(ids, guint64, 1));
	g_assert_cmpstr(status, ==, "success");
	g_free(queue_fx_status(fx, g_array_index(ids, guint64, 1), &record));
	deps = json_object_get_array_member(
		json_object_get_object_member(
			json_array_get_object_element(json_object_get_array_member(record, "ops"),
						      0),
			"input"),
		"depends");
	/* stored in absolute form */
	g_assert_cmpint(json_array_get_int_element(json_array_get_array_element(deps, 0), 0), ==,
			(gint64)g_array_index(ids, guint64, 0));
}

static void
cancel_cb_result(QueueFx *fx, guint64 id, gboolean *success, gchar **message)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;

	gnt_queue_cancel_async(fx->queue, id, async_result_cb, &res);
	g_assert_true(gnt_queue_cancel_finish(fx->queue, queue_fx_wait_result(&res), success,
					      message, &error));
	g_assert_no_error(error);
}

static void
test_cancel(QueueFx *fx, gconstpointer data)
{
	guint64 a, b;
	gboolean ok = FALSE;
	g_autofree gchar *msg_queued = NULL;
	g_autofree gchar *msg_running = NULL;
	g_autofree gchar *msg_finished = NULL;
	g_autofree gchar *msg_unknown = NULL;
	g_autofree gchar *a_final = NULL;
	g_autofree gchar *b_final = NULL;
	g_autoptr(JsonObject) record = NULL;
	JsonObject *op;

	gnt_queue_set_max_running(fx->queue, 1);
	a = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 2}", NULL));
	b = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL));
	queue_fx_wait_status(fx, a, "running");
	cancel_cb_result(fx, b, &ok, &msg_queued);
	g_assert_true(ok);
	g_assert_cmpstr(msg_queued, ==, "Job 2 canceled");
	cancel_cb_result(fx, a, &ok, &msg_running);
	g_assert_false(ok);
	g_assert_cmpstr(msg_running, ==, "Job 1 is no longer waiting in the queue");
	a_final = queue_fx_wait_final(fx, a);
	b_final = queue_fx_wait_final(fx, b);
	g_assert_cmpstr(a_final, ==, "success");
	g_assert_cmpstr(b_final, ==, "canceled");
	g_free(queue_fx_status(fx, b, &record));
	op = json_array_get_object_element(json_object_get_array_member(record, "ops"), 0);
	g_assert_cmpstr(json_object_get_string_member(op, "result"), ==, "Job canceled by request");
	cancel_cb_result(fx, b, &ok, &msg_finished);
	g_assert_false(ok);
	g_assert_cmpstr(msg_finished, ==, "Job 2 is finished");
	cancel_cb_result(fx, 99, &ok, &msg_unknown);
	g_assert_false(ok);
	g_assert_cmpstr(msg_unknown, ==, "Job 99 not found");
}

static void
test_cancel_waiting_for_locks(QueueFx *fx, gconstpointer data)
{
	guint64 a = queue_fx_submit(
		fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 3, \"no_locks\": false}", NULL));
	guint64 b = queue_fx_submit(
		fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0, \"no_locks\": false}", NULL));
	gboolean ok = FALSE;
	g_autofree gchar *message = NULL;
	g_autofree gchar *b_final = NULL;
	g_autofree gchar *a_final = NULL;

	queue_fx_wait_status(fx, b, "waiting");
	cancel_cb_result(fx, b, &ok, &message);
	g_assert_true(ok);
	g_assert_cmpstr(message, ==, "Job 2 will be canceled");
	b_final = queue_fx_wait_final(fx, b);
	g_assert_cmpstr(b_final, ==, "canceled");
	a_final = queue_fx_wait_final(fx, a);
	g_assert_cmpstr(a_final, ==, "success");
}

static gint64
op_start_usec(QueueFx *fx, guint64 id)
{
	g_autoptr(JsonObject) record = queue_fx_record(fx, id);
	JsonArray *ts = record_op(record, 0, "exec_timestamp");

	return json_array_get_int_element(ts, 0) * G_USEC_PER_SEC +
	       json_array_get_int_element(ts, 1);
}

static void
test_priorities(QueueFx *fx, gconstpointer data)
{
	guint64 blocker, low, normal, high;

	gnt_queue_set_max_running(fx->queue, 1);
	blocker = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0.5}", NULL));
	low = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY",
					       "{\"duration\": 0.01, \"priority\": 10}", NULL));
	normal = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0.01}", NULL));
	high = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY",
						"{\"duration\": 0.01, \"priority\": -10}", NULL));
	g_free(queue_fx_wait_final(fx, blocker));
	g_free(queue_fx_wait_final(fx, low));
	g_free(queue_fx_wait_final(fx, normal));
	g_free(queue_fx_wait_final(fx, high));
	g_assert_cmpint(op_start_usec(fx, high), <, op_start_usec(fx, normal));
	g_assert_cmpint(op_start_usec(fx, normal), <, op_start_usec(fx, low));
}

static gboolean
archive(QueueFx *fx, guint64 id)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	gboolean archived = FALSE;

	gnt_queue_archive_async(fx->queue, id, async_result_cb, &res);
	g_assert_true(
		gnt_queue_archive_finish(fx->queue, queue_fx_wait_result(&res), &archived, &error));
	return archived;
}

static gboolean
count_job(JsonObject *job, gboolean archived, gpointer user_data)
{
	guint *counts = user_data;

	counts[archived ? 1 : 0]++;
	return TRUE;
}

static void
test_archive(QueueFx *fx, gconstpointer data)
{
	guint64 done =
		queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL));
	guint64 slow =
		queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0.5}", NULL));
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	guint counts[2] = {0, 0};
	guint n_archived = 0, left = 0;
	gboolean archived = FALSE;
	g_autoptr(JsonObject) record = NULL;

	g_free(queue_fx_wait_final(fx, done));
	g_assert_false(archive(fx, slow)); /* not finished */
	g_assert_false(archive(fx, 42));   /* unknown */
	g_assert_true(archive(fx, done));
	g_assert_false(archive(fx, done)); /* already archived */
	record = gnt_queue_lookup_job(fx->queue, done, &archived, &error);
	g_assert_no_error(error);
	g_assert_true(archived);
	g_free(queue_fx_wait_final(fx, slow));

	gnt_queue_auto_archive_async(fx->queue, 3600, 10, async_result_cb, &res);
	g_assert_true(gnt_queue_auto_archive_finish(fx->queue, queue_fx_wait_result(&res),
						    &n_archived, &left, &error));
	g_assert_cmpuint(n_archived, ==, 0); /* too young */
	g_clear_object(&res);
	gnt_queue_auto_archive_async(fx->queue, -1, 10, async_result_cb, &res);
	g_assert_true(gnt_queue_auto_archive_finish(fx->queue, queue_fx_wait_result(&res),
						    &n_archived, &left, &error));
	g_assert_cmpuint(n_archived, ==, 1);
	g_assert_cmpuint(left, ==, 0);
	g_assert_true(gnt_queue_foreach_job(fx->queue, TRUE, count_job, counts, &error));
	g_assert_cmpuint(counts[0], ==, 0);
	g_assert_cmpuint(counts[1], ==, 2);
}

static void
test_auto_archive_by_age(QueueFx *fx, gconstpointer data)
{
	guint64 id = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL));
	gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	gboolean archived = FALSE;

	g_free(queue_fx_wait_final(fx, id));
	gnt_queue_set_auto_archive(fx->queue, 1);
	while (!archived) {
		g_autoptr(JsonObject) record = gnt_queue_lookup_job(fx->queue, id, &archived, NULL);
		g_assert_nonnull(record);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		queue_fx_iterate();
	}
}

static void
test_ids_never_reused(QueueFx *fx, gconstpointer data)
{
	guint64 first =
		queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL));
	guint64 next;

	g_free(queue_fx_wait_final(fx, first));
	g_assert_true(archive(fx, first));
	queue_fx_close(fx);
	queue_fx_open(fx);
	gnt_queue_start(fx->queue);
	next = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL));
	g_assert_cmpuint(next, ==, first + 1);
}

static void
test_drain(QueueFx *fx, gconstpointer data)
{
	GPtrArray *jobs = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GArray) ids = NULL;

	g_assert_true(gnt_queue_set_drained(fx->queue, TRUE, &error));
	queue_fx_close(fx);
	queue_fx_open(fx); /* the flag is durable */
	gnt_queue_start(fx->queue);
	g_assert_true(gnt_queue_get_drained(fx->queue));
	g_ptr_array_add(jobs, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL));
	gnt_queue_submit_async(fx->queue, jobs, FALSE, async_result_cb, &res);
	ids = gnt_queue_submit_finish(fx->queue, queue_fx_wait_result(&res), &error);
	g_assert_null(ids);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE);
	g_assert_cmpstr(error->message, ==, "Queue drained");
}

/* Writes a job straight into the store as a crash would have left it. */
static void
store_put_job(QueueFx *fx, GntJob *job)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntJobStore)
		store = gnt_sqlite_job_store_new(gnt_paths_get_queue_db(fx->root.paths), &error);
	g_autoptr(GPtrArray)
		changes = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_job_store_change_free);
	g_autoptr(JsonObject) record = gnt_job_to_json(job);
	g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), record);
	GntJobStoreChange *put = gnt_job_store_change_new(GNT_JOB_STORE_PUT, gnt_job_get_id(job));
	GntJobStoreChange *last =
		gnt_job_store_change_new(GNT_JOB_STORE_SET_LAST_ID, gnt_job_get_id(job));

	g_assert_no_error(error);
	put->status = gnt_job_get_status(job);
	put->record = gnt_json_to_string(node);
	g_ptr_array_add(changes, put);
	g_ptr_array_add(changes, last);
	g_assert_true(gnt_job_store_write(store, changes, &error));
	g_assert_no_error(error);
}

static void
test_restart_fails_running_requeues_queued(QueueFx *fx, gconstpointer data)
{
	g_autoptr(GntJob) running = gnt_job_new(
		1, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 5}", NULL), g_get_real_time());
	g_autoptr(GntJob) queued = gnt_job_new(
		2, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL), g_get_real_time());
	g_autoptr(JsonObject) record = NULL;
	g_autofree gchar *status1 = NULL;
	g_autofree gchar *status2 = NULL;

	queue_fx_close(fx);
	gnt_job_get_op(running, 0)->status = GNT_JOB_STATUS_RUNNING;
	store_put_job(fx, running);
	store_put_job(fx, queued);
	queue_fx_open(fx);
	status1 = queue_fx_status(fx, 1, &record);
	g_assert_cmpstr(status1, ==, "error");
	assert_op_exception(record, 0, "OpExecError",
			    "the master daemon stopped while the job was running");
	gnt_queue_start(fx->queue);
	status2 = queue_fx_wait_final(fx, 2);
	g_assert_cmpstr(status2, ==, "success");
}

/* ---- waiting jobs and resuming (doc/jobqueue.md) ---- */

/* A unit that lends its worker back and waits until the test lets it go
 * (as an install waits on its node session). */
static GMutex waiter_lock;
static GCond waiter_cond;
static gboolean waiter_waiting;
static gboolean waiter_go;

static JsonNode *
waiter_exec(GntLu *lu, GError **error)
{
	gnt_lu_release_worker(lu);
	g_mutex_lock(&waiter_lock);
	waiter_waiting = TRUE;
	g_cond_broadcast(&waiter_cond);
	while (!waiter_go)
		g_cond_wait(&waiter_cond, &waiter_lock);
	g_mutex_unlock(&waiter_lock);
	gnt_lu_reclaim_worker(lu);
	return gnt_json_node_new_string("waited");
}

static const GntLuClass waiter_unit = {.exec = waiter_exec};

/* max_running 1: a job whose unit waits without its worker leaves room
 * for another, which ends first; then the waiting one ends too. */
static void
test_released_worker(QueueFx *fx, gconstpointer data)
{
	static const GntLuUnit units[] = {
		{"OP_TEST_DUMMY", &waiter_unit}, {"OP_TEST_DELAY", &gnt_lu_test_delay}, {NULL}};
	guint64 waiting;
	guint64 other;
	g_autofree gchar *other_status = NULL;
	g_autofree gchar *still = NULL;
	g_autofree gchar *waiting_status = NULL;

	gnt_queue_set_units(fx->queue, units);
	gnt_queue_set_max_running(fx->queue, 1);
	waiter_waiting = waiter_go = FALSE;
	waiting = queue_fx_submit(fx, queue_fx_job("OP_TEST_DUMMY", "{}", NULL));
	g_mutex_lock(&waiter_lock);
	while (!waiter_waiting) {
		g_mutex_unlock(&waiter_lock);
		queue_fx_iterate();
		g_mutex_lock(&waiter_lock);
	}
	g_mutex_unlock(&waiter_lock);
	other = queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL));
	other_status = queue_fx_wait_final(fx, other);
	g_assert_cmpstr(other_status, ==, "success");
	still = queue_fx_status(fx, waiting, NULL);
	g_assert_cmpstr(still, ==, "running");
	g_mutex_lock(&waiter_lock);
	waiter_go = TRUE;
	g_cond_broadcast(&waiter_cond);
	g_mutex_unlock(&waiter_lock);
	waiting_status = queue_fx_wait_final(fx, waiting);
	g_assert_cmpstr(waiting_status, ==, "success");
}

/* A resumable unit: its resume answers what exec recorded. */
static JsonNode *
resumable_resume(GntLu *lu, GError **error)
{
	JsonObject *resume = gnt_lu_get_resume(lu);

	gnt_lu_feedback(lu, "resumed at %s", json_object_get_string_member(resume, "at"));
	return gnt_json_node_new_string(json_object_get_string_member(resume, "at"));
}

static const GntLuClass resumable_unit = {.exec = waiter_exec, .resume = resumable_resume};

/* A job left running with a recorded point: its unit's resume runs at the
 * next start (with the restart in its log) and the job succeeds; a unit
 * without resume fails it as before; a job with secrets fails with the
 * secrets' message whatever it recorded. */
static void
test_resume_at_restart(QueueFx *fx, gconstpointer data)
{
	static const GntLuUnit units[] = {
		{"OP_TEST_DUMMY", &resumable_unit}, {"OP_TEST_DELAY", &gnt_lu_test_delay}, {NULL}};
	g_autoptr(GntJob) resumable =
		gnt_job_new(1, queue_fx_job("OP_TEST_DUMMY", "{}", NULL), g_get_real_time());
	g_autoptr(GntJob) no_resume = gnt_job_new(
		2, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 5}", NULL), g_get_real_time());
	g_autoptr(GntJob) secret =
		gnt_job_new(3, queue_fx_job("OP_TEST_DUMMY", "{\"secret_value\": \"x\"}", NULL),
			    g_get_real_time());
	GntJob *jobs[] = {resumable, no_resume, secret};
	g_autoptr(JsonObject) record = NULL;
	g_autoptr(JsonNode) log_node = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *status = NULL;

	queue_fx_close(fx);
	for (guint i = 0; i < G_N_ELEMENTS(jobs); i++) {
		GntJobOp *op = gnt_job_get_op(jobs[i], 0);

		op->status = GNT_JOB_STATUS_RUNNING;
		op->resume = json_object_new();
		json_object_set_string_member(op->resume, "at", "session-42");
		store_put_job(fx, jobs[i]);
	}
	queue_fx_open(fx);
	gnt_queue_set_units(fx->queue, units);
	gnt_queue_start(fx->queue);
	status = queue_fx_wait_final(fx, 1);
	record = queue_fx_record(fx, 1);
	g_assert_cmpstr(status, ==, "success");
	g_assert_cmpstr(json_node_get_string(json_object_get_member(
				json_array_get_object_element(
					json_object_get_array_member(record, "ops"), 0),
				"result")),
			==, "session-42");
	log_node = json_node_init_array(json_node_alloc(), record_op(record, 0, "log"));
	log = gnt_json_to_string(log_node);
	g_assert_nonnull(strstr(log, "the master restarted while the job waited on a node"));
	g_assert_nonnull(strstr(log, "resumed at session-42"));
	g_clear_pointer(&record, json_object_unref);
	g_free(status);
	status = queue_fx_wait_final(fx, 2);
	record = queue_fx_record(fx, 2);
	g_assert_cmpstr(status, ==, "error");
	assert_op_exception(record, 0, "OpExecError",
			    "the master daemon stopped while the job was running");
	g_clear_pointer(&record, json_object_unref);
	g_free(status);
	status = queue_fx_wait_final(fx, 3);
	record = queue_fx_record(fx, 3);
	g_assert_cmpstr(status, ==, "error");
	assert_op_exception(record, 0, "OpPrereqError",
			    "secret parameters were lost at master restart; resubmit the job");
}

static void
test_secrets(QueueFx *fx, gconstpointer data)
{
	const gchar *secret = "s3cr3t-VALUE-4711";
	const gchar *private = "pr1vate-VALUE-0815";
	g_autofree gchar *ssum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, secret, -1);
	g_autofree gchar *psum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, private, -1);
	g_autofree gchar *params = g_strdup_printf(
		"{\"secret_value\": \"%s\", \"private_value\": \"%s\", \"secret_sha256\": \"sha256:%s\","
		" \"private_sha256\": \"sha256:%s\", \"messages\": [\"hello\"]}",
		secret, private, ssum, psum);
	guint64 id = queue_fx_submit(fx, queue_fx_job("OP_TEST_DUMMY", params, NULL));
	g_autofree gchar *status = queue_fx_wait_final(fx, id);
	g_autoptr(JsonObject) record = queue_fx_record(fx, id);
	g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), record);
	g_autofree gchar *text = gnt_json_to_string(node);
	g_autofree gchar *wal = g_strconcat(gnt_paths_get_queue_db(fx->root.paths), "-wal", NULL);
	JsonArray *log = record_op(record, 0, "log");

	g_assert_cmpstr(status, ==, "success");
	/* the unit got both values and checked them against the digests */
	g_assert_cmpuint(json_array_get_length(log), ==, 3);
	g_assert_cmpstr(json_array_get_string_element(json_array_get_array_element(log, 2), 3), ==,
			"secret value received and verified");
	g_assert_null(strstr(text, secret));
	g_assert_null(strstr(text, private));
	g_assert_nonnull(strstr(text, "\"secret_value\":\"<redacted>\""));
	g_assert_nonnull(strstr(text, "\"private_value\":\"<redacted>\""));
	queue_fx_close(fx);
	g_assert_false(gnt_test_file_contains(gnt_paths_get_queue_db(fx->root.paths), secret));
	g_assert_false(gnt_test_file_contains(wal, secret));
}

static void
test_secrets_lost_at_restart(QueueFx *fx, gconstpointer data)
{
	guint64 blocker =
		queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 30}", NULL));
	g_autofree gchar *params = g_strdup_printf(
		"{\"secret_value\": \"x\", \"depends\": [[%" G_GUINT64_FORMAT ", []]]}", blocker);
	guint64 id = queue_fx_submit(fx, queue_fx_job("OP_TEST_DUMMY", params, NULL));
	g_autoptr(JsonObject) record = NULL;
	g_autofree gchar *status = NULL;

	queue_fx_close(fx);
	queue_fx_open(fx);
	status = queue_fx_status(fx, id, &record);
	g_assert_cmpstr(status, ==, "error");
	assert_op_exception(record, 0, "OpPrereqError",
			    "secret parameters were lost at master restart; resubmit the job");
}

/* A unit submits jobs (Ganeti's ResultWithJobs, as OP_CLUSTER_VERIFY
 * does): its result lists their IDs, they run, and a relative dependency
 * counts within the jobs it submitted. */
static void
test_unit_submits_jobs(QueueFx *fx, gconstpointer data)
{
	guint64 id = queue_fx_submit(
		fx,
		queue_fx_job("OP_TEST_DUMMY",
			     "{\"submit_jobs\": [[{\"OP_ID\": \"OP_TEST_DUMMY\", \"result\": 7}],"
			     " [{\"OP_ID\": \"OP_TEST_DUMMY\", \"result\": 8,"
			     " \"depends\": [[-1, []]]}]]}",
			     NULL));
	g_autofree gchar *status = queue_fx_wait_final(fx, id);
	g_autoptr(JsonObject) record = queue_fx_record(fx, id);
	JsonObject *op =
		json_array_get_object_element(json_object_get_array_member(record, "ops"), 0);
	JsonArray *jobs;

	g_assert_cmpstr(status, ==, "success");
	jobs = json_object_get_array_member(json_object_get_object_member(op, "result"), "jobs");
	g_assert_cmpuint(json_array_get_length(jobs), ==, 2);
	for (guint i = 0; i < 2; i++) {
		JsonArray *entry = json_array_get_array_element(jobs, i);
		guint64 child = (guint64)json_array_get_int_element(entry, 1);
		g_autofree gchar *child_status = NULL;
		g_autoptr(JsonObject) child_record = NULL;
		JsonObject *child_op;

		g_assert_true(json_array_get_boolean_element(entry, 0));
		g_assert_cmpuint(child, ==, id + 1 + i);
		child_status = queue_fx_wait_final(fx, child);
		g_assert_cmpstr(child_status, ==, "success");
		child_record = queue_fx_record(fx, child);
		child_op = json_array_get_object_element(
			json_object_get_array_member(child_record, "ops"), 0);
		g_assert_cmpint(json_object_get_int_member(child_op, "result"), ==, 7 + i);
		if (i == 1) {
			JsonArray *deps = json_object_get_array_member(
				json_object_get_object_member(child_op, "input"), "depends");
			g_assert_cmpint(json_array_get_int_element(
						json_array_get_array_element(deps, 0), 0),
					==, (gint64)(id + 1));
		}
	}
}

/* A job to submit that is not a valid opcode fails the unit before any
 * job is made. */
static void
test_unit_submits_bad_job(QueueFx *fx, gconstpointer data)
{
	guint64 id = queue_fx_submit(
		fx, queue_fx_job("OP_TEST_DUMMY",
				 "{\"submit_jobs\": [[{\"OP_ID\": \"OP_TEST_DELAY\"}]]}", NULL));
	g_autofree gchar *status = queue_fx_wait_final(fx, id);
	g_autoptr(JsonObject) record = queue_fx_record(fx, id);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) next = NULL;

	g_assert_cmpstr(status, ==, "error");
	assert_op_exception(
		record, 0, "OpPrereqError",
		"'submit_jobs': job 0, opcode 0: OP_TEST_DELAY: parameter 'duration' is required");
	next = gnt_queue_lookup_job(fx->queue, id + 1, NULL, &error);
	g_assert_null(next);
}

static void
add(const gchar *path, void (*func)(QueueFx *, gconstpointer))
{
	g_test_add(path, QueueFx, NULL, queue_fx_set_up, func, queue_fx_tear_down);
}

static void
started(QueueFx *fx, gconstpointer data)
{
	queue_fx_set_up(fx, data);
	gnt_queue_start(fx->queue);
}

static void
add_started(const gchar *path, void (*func)(QueueFx *, gconstpointer))
{
	g_test_add(path, QueueFx, NULL, started, func, queue_fx_tear_down);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	gnt_opcode_register_table(&gnt_cmdlib_op_table); /* the real opcodes */
	add_started("/queue/submit-runs", test_submit_runs);
	add_started("/queue/many-jobs", test_many_jobs);
	add_started("/queue/failure-propagates", test_failure_propagates);
	add_started("/queue/prereq-error", test_prereq_error);
	add_started("/queue/opcode-without-unit", test_opcode_without_unit);
	add_started("/queue/dependencies", test_dependencies);
	add_started("/queue/relative-dependency", test_relative_dependency);
	add_started("/queue/unit-submits-jobs", test_unit_submits_jobs);
	add_started("/queue/unit-submits-bad-job", test_unit_submits_bad_job);
	add_started("/queue/cancel", test_cancel);
	add_started("/queue/cancel-waiting-for-locks", test_cancel_waiting_for_locks);
	add_started("/queue/priorities", test_priorities);
	add_started("/queue/archive", test_archive);
	add_started("/queue/auto-archive-by-age", test_auto_archive_by_age);
	add_started("/queue/ids-never-reused", test_ids_never_reused);
	add_started("/queue/drain", test_drain);
	add("/queue/restart-fails-running-requeues-queued",
	    test_restart_fails_running_requeues_queued);
	add_started("/queue/secrets", test_secrets);
	add_started("/queue/secrets-lost-at-restart", test_secrets_lost_at_restart);
	add_started("/queue/released-worker", test_released_worker);
	add("/queue/resume-at-restart", test_resume_at_restart);
	return g_test_run();
}
