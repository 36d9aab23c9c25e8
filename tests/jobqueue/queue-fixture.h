#pragma once

/* A queue on a fresh temporary root, driven from the test's main loop. */

#include <glib/gstdio.h>

#include "gnt-test-util.h"

#include "gnt-cmdlib.h"
#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-env.h"
#include "gnt-paths.h"
#include "gnt-queue.h"

typedef struct {
	GntTestRoot root;
	GntLuEnv env;
	GntQueue *queue;
} QueueFx;

static inline void
queue_fx_open(QueueFx *fx)
{
	g_autoptr(GError) error = NULL;

	fx->queue = gnt_queue_new(gnt_paths_get_queue_db(fx->root.paths), &fx->env, &error);
	g_assert_no_error(error);
	g_assert_nonnull(fx->queue);
	gnt_queue_set_units(fx->queue, gnt_cmdlib_units); /* cmdlib's, as masterd's queue */
}

static inline void
queue_fx_set_up(QueueFx *fx, gconstpointer data)
{
	gnt_test_root_init(&fx->root, "node1.example.com");
	fx->env.config = fx->root.config;
	fx->env.paths = fx->root.paths;
	queue_fx_open(fx);
}

/* Stops the queue as masterd does on SIGTERM. */
static inline void
queue_fx_close(QueueFx *fx)
{
	if (fx->queue == NULL)
		return;
	gnt_queue_shutdown(fx->queue, 5000);
	g_clear_object(&fx->queue);
}

static inline void
queue_fx_tear_down(QueueFx *fx, gconstpointer data)
{
	queue_fx_close(fx);
	gnt_test_root_clear(&fx->root);
}

static inline gboolean
queue_fx_tick(gpointer user_data)
{
	return G_SOURCE_REMOVE;
}

/* One main-loop iteration that returns within 200 ms even when nothing
 * happens, so deadlines are checked. */
static inline void
queue_fx_iterate(void)
{
	guint tick = g_timeout_add(200, queue_fx_tick, NULL);

	g_main_context_iteration(NULL, TRUE);
	if (g_main_context_find_source_by_id(NULL, tick) != NULL)
		g_source_remove(tick);
}

static inline void
async_result_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	*(GAsyncResult **)user_data = g_object_ref(res);
}

/* Iterates the default main context until *@res is set. */
static inline GAsyncResult *
queue_fx_wait_result(GAsyncResult **res)
{
	while (*res == NULL)
		queue_fx_iterate();
	return *res;
}

/* One job of opcodes given as "OP_ID params-json" pairs. */
static inline GPtrArray *
queue_fx_job(const gchar *op_id, const gchar *params, ...)
{
	GPtrArray *ops = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_opcode_unref);
	va_list args;

	va_start(args, params);
	while (op_id != NULL) {
		g_autoptr(GError) error = NULL;
		GntOpcode *op = gnt_opcode_new_from_string(op_id, params, &error);
		g_assert_no_error(error);
		g_ptr_array_add(ops, op);
		op_id = va_arg(args, const gchar *);
		if (op_id != NULL)
			params = va_arg(args, const gchar *);
	}
	va_end(args);
	return ops;
}

static inline GArray *
queue_fx_submit_jobs(QueueFx *fx, GPtrArray *jobs)
{
	g_autoptr(GAsyncResult) res = NULL;
	g_autoptr(GError) error = NULL;
	GArray *ids;

	gnt_queue_submit_async(fx->queue, jobs, FALSE, async_result_cb, &res);
	ids = gnt_queue_submit_finish(fx->queue, queue_fx_wait_result(&res), &error);
	g_assert_no_error(error);
	return ids;
}

static inline guint64
queue_fx_submit(QueueFx *fx, GPtrArray *ops)
{
	GPtrArray *jobs = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GArray) ids = NULL;

	g_ptr_array_add(jobs, ops);
	ids = queue_fx_submit_jobs(fx, jobs);
	g_assert_cmpuint(ids->len, ==, 1);
	return g_array_index(ids, guint64, 0);
}

static inline gchar *
queue_fx_status(QueueFx *fx, guint64 id, JsonObject **record_out)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) record = gnt_queue_lookup_job(fx->queue, id, NULL, &error);
	JsonArray *ops;
	GntJobStatus *statuses;
	GntJobStatus status;

	g_assert_no_error(error);
	ops = json_object_get_array_member(record, "ops");
	statuses = g_new(GntJobStatus, json_array_get_length(ops) + 1);
	for (guint i = 0; i < json_array_get_length(ops); i++) {
		JsonObject *op = json_array_get_object_element(ops, i);
		g_assert_true(gnt_job_status_from_string(
			json_object_get_string_member(op, "status"), &statuses[i]));
	}
	status = gnt_job_status_calc(statuses, json_array_get_length(ops));
	g_free(statuses);
	if (record_out != NULL)
		*record_out = json_object_ref(record);
	return g_strdup(gnt_job_status_to_string(status));
}

/* The stored record of job @id. (transfer full) */
static inline JsonObject *
queue_fx_record(QueueFx *fx, guint64 id)
{
	JsonObject *record = NULL;

	g_free(queue_fx_status(fx, id, &record));
	return record;
}

/* Runs the main loop until job @id shows @status (within 30 s). */
static inline void
queue_fx_wait_status(QueueFx *fx, guint64 id, const gchar *status)
{
	gint64 deadline = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;

	for (;;) {
		g_autofree gchar *now = queue_fx_status(fx, id, NULL);
		if (g_strcmp0(now, status) == 0)
			return;
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		queue_fx_iterate();
	}
}

/* Runs the main loop until job @id reaches a final status; returns it. */
static inline gchar *
queue_fx_wait_final(QueueFx *fx, guint64 id)
{
	gint64 deadline = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;

	for (;;) {
		gchar *status = queue_fx_status(fx, id, NULL);
		GntJobStatus st;
		g_assert_true(gnt_job_status_from_string(status, &st));
		if (gnt_job_status_is_finalized(st))
			return status;
		g_free(status);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		queue_fx_iterate();
	}
}
