/*
 * The job queue when queue.db cannot be written: writes and fsyncs fail on
 * demand (tests/gnt-fault-vfs.c) at chosen points. Nothing acknowledged is
 * lost, nothing unacknowledged is kept, a state change that could not be
 * written is written later rather than lost, and a restart replays nothing.
 * tests/system/test-full-disk.c does the same with a real full filesystem.
 */
#include "gnt-cmdlib.h"
#include "gnt-fault-vfs.h"
#include "queue-fixture.h"

#define DISK_FULL "the job queue's disk is full"

/* The queue warns once per episode of failing writes (how many depends on
 * timing): those warnings go to the log, any other one fails the test. */
static void
log_write_failures(const gchar *domain, GLogLevelFlags level, const gchar *message,
		   gpointer user_data)
{
	if (strstr(message, "job queue") == NULL)
		g_error("unexpected warning: %s", message);
	g_log_default_handler(domain, level, message, user_data);
}

static void
started(QueueFx *fx, gconstpointer data)
{
	queue_fx_set_up(fx, data);
	gnt_queue_start(fx->queue);
}

static void
tear_down(QueueFx *fx, gconstpointer data)
{
	gnt_fault_vfs_clear();
	queue_fx_tear_down(fx, data);
}

/* Submits @jobs; the IDs, or NULL with @error. */
static GArray *
try_submit(QueueFx *fx, GPtrArray *jobs, GError **error)
{
	g_autoptr(GAsyncResult) res = NULL;

	gnt_queue_submit_async(fx->queue, jobs, FALSE, async_result_cb, &res);
	return gnt_queue_submit_finish(fx->queue, queue_fx_wait_result(&res), error);
}

static GPtrArray *
one_job(GPtrArray *ops)
{
	GPtrArray *jobs = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);

	g_ptr_array_add(jobs, ops);
	return jobs;
}

/* Submits one job until the queue takes it again (it retries by itself
 * once the disk is back); each refusal must say why. */
static guint64
submit_when_back(QueueFx *fx, GPtrArray *(*make_ops)(void))
{
	gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;

	for (;;) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GArray) ids = try_submit(fx, one_job(make_ops()), &error);

		if (ids != NULL)
			return g_array_index(ids, guint64, 0);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		queue_fx_iterate();
	}
}

static GPtrArray *
delay_zero(void)
{
	return queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0}", NULL);
}

static gboolean
job_is_stored(QueueFx *fx, guint64 id)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) record = gnt_queue_lookup_job(fx->queue, id, NULL, &error);

	if (record == NULL)
		g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	return record != NULL;
}

/* While writes fail, a submission is refused with the reason and leaves
 * nothing behind; once the disk is back the queue takes jobs again. */
static void
test_submit_while_full(QueueFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GArray) refused = NULL;
	g_autofree gchar *status = NULL;
	guint64 id;

	gnt_fault_vfs_fail(GNT_FAULT_WRITE, 0, -1);
	refused = try_submit(fx, one_job(delay_zero()), &error);
	g_assert_null(refused);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES);
	g_assert_nonnull(strstr(error->message, DISK_FULL));
	g_assert_false(job_is_stored(fx, 1));
	g_assert_cmpuint(gnt_queue_get_n_unfinished(fx->queue), ==, 0);
	/* known to be full: refused at once, with the same reason */
	g_clear_error(&error);
	refused = try_submit(fx, one_job(delay_zero()), &error);
	g_assert_null(refused);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES);
	g_assert_nonnull(strstr(error->message, DISK_FULL));

	gnt_fault_vfs_clear();
	id = submit_when_back(fx, delay_zero);
	status = queue_fx_wait_final(fx, id);
	g_assert_cmpstr(status, ==, "success");
	g_assert_false(job_is_stored(fx, 1));
}

/* Runs the main loop for @ms. */
static void
iterate_for(guint ms)
{
	gint64 until = g_get_monotonic_time() + ms * 1000;

	while (g_get_monotonic_time() < until)
		queue_fx_iterate();
}

typedef struct {
	GHashTable *acked; /* job IDs acknowledged */
	guint64 max_seen;
} Acked;

static gboolean
stored_is_acked(JsonObject *record, gboolean archived, gpointer user_data)
{
	Acked *acked = user_data;
	guint64 id = (guint64)json_object_get_int_member(record, "id");

	/* nothing is stored that was not acknowledged */
	g_assert_true(g_hash_table_remove(acked->acked, &id));
	acked->max_seen = MAX(acked->max_seen, id);
	return TRUE;
}

/* A write or an fsync fails at some point of a large submission's commits
 * (a submission's jobs and its last-ID update may be taken apart by group
 * commit): whatever was acknowledged is all there, after a restart too,
 * and nothing else is. */
static void
test_acknowledged_is_durable(QueueFx *fx, gconstpointer data)
{
	Acked acked = {g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL), 0};
	guint n_refused = 0;
	guint64 next_id = 0;

	for (guint round = 0; round < 24; round++) {
		g_autoptr(GArray) ids = NULL;
		gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;

		gnt_fault_vfs_fail(round % 2 ? GNT_FAULT_SYNC : GNT_FAULT_WRITE, round / 2 % 4, 1);
		/* refused while the queue cannot write; taken once it can again */
		while (ids == NULL) {
			GPtrArray *jobs =
				g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
			g_autoptr(GError) error = NULL;

			for (guint i = 0; i < 300; i++)
				g_ptr_array_add(jobs, delay_zero());
			ids = try_submit(fx, jobs, &error);
			if (ids != NULL)
				break;
			g_assert_nonnull(error);
			g_assert_true(g_str_has_prefix(error->message, "job not queued: "));
			n_refused++;
			g_assert_cmpint(g_get_monotonic_time(), <, deadline);
			iterate_for(50);
		}
		for (guint i = 0; i < ids->len; i++) {
			guint64 id = g_array_index(ids, guint64, i);
			g_assert_true(job_is_stored(fx, id));
			g_assert_cmpuint(id, >, next_id);
			next_id = id;
			g_hash_table_add(acked.acked, g_memdup2(&id, sizeof(id)));
		}
	}
	gnt_fault_vfs_clear();
	g_test_message("%u submissions refused on the way to 24 taken", n_refused);
	g_assert_cmpuint(n_refused, >, 0);
	g_assert_cmpuint(g_hash_table_size(acked.acked), ==, 24 * 300);

	queue_fx_close(fx);
	queue_fx_open(fx);
	g_assert_true(gnt_queue_foreach_job(fx->queue, TRUE, stored_is_acked, &acked, NULL));
	/* everything acknowledged was found */
	g_assert_cmpuint(g_hash_table_size(acked.acked), ==, 0);
	/* and the IDs handed out are remembered */
	{
		guint64 id = queue_fx_submit(fx, delay_zero());
		g_assert_cmpuint(id, >, next_id);
	}
	g_hash_table_unref(acked.acked);
}

static void
count_watch_cb(GntQueue *queue, guint64 job_id, gpointer user_data)
{
	(*(guint *)user_data)++;
}

/* A job that ends while nothing can be written: its end is kept, written
 * once the disk is back, and whoever watches it sees it then. */
static void
test_end_written_later(QueueFx *fx, gconstpointer data)
{
	guint64 id =
		queue_fx_submit(fx, queue_fx_job("OP_TEST_DELAY", "{\"duration\": 0.5}", NULL));
	guint fired = 0;
	guint watch;
	g_autofree gchar *status = NULL;
	g_autofree gchar *still = NULL;
	gint64 deadline;

	queue_fx_wait_status(fx, id, "running");
	watch = gnt_queue_watch_job(fx->queue, id, count_watch_cb, &fired);
	gnt_fault_vfs_fail(GNT_FAULT_WRITE, 0, -1);
	iterate_for(1500); /* the job ended in memory meanwhile */
	still = queue_fx_status(fx, id, NULL);
	g_assert_cmpstr(still, ==, "running");
	g_assert_cmpuint(gnt_fault_vfs_get_n_failed(GNT_FAULT_WRITE), >, 0);
	fired = 0;

	gnt_fault_vfs_clear();
	deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	while (fired == 0) {
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		queue_fx_iterate();
	}
	status = queue_fx_status(fx, id, NULL);
	g_assert_cmpstr(status, ==, "success");
	gnt_queue_unwatch_job(fx->queue, watch);
	g_assert_cmpuint(gnt_queue_get_n_unfinished(fx->queue), ==, 0);
}

static GPtrArray *
tag_job(void)
{
	return queue_fx_job("OP_TAGS_SET", "{\"kind\": \"cluster\", \"tags\": [\"once\"]}", NULL);
}

static gboolean
cluster_has_tag(QueueFx *fx, const gchar *tag)
{
	g_autoptr(GntCluster) cluster = gnt_config_dup_cluster(fx->root.config);

	return cluster->tags != NULL && g_strv_contains((const gchar *const *)cluster->tags, tag);
}

/* A job that changes the cluster cannot start while its "running" state
 * cannot be written (a restart must know it may have had effects); it
 * starts once the disk is back, ends once, and a restart finds nothing to
 * run again. */
static void
test_restart_replays_nothing(QueueFx *fx, gconstpointer data)
{
	guint64 id = queue_fx_submit(fx, tag_job());
	g_autoptr(JsonObject) before = NULL;
	g_autoptr(JsonObject) after = NULL;
	g_autofree gchar *status = NULL;
	g_autofree gchar *waiting = NULL;

	gnt_fault_vfs_fail(GNT_FAULT_WRITE, 0, -1);
	gnt_queue_start(fx->queue);
	iterate_for(1000);
	waiting = queue_fx_status(fx, id, NULL);
	g_assert_cmpstr(waiting, ==, "queued");
	g_assert_false(cluster_has_tag(fx, "once"));

	gnt_fault_vfs_clear();
	status = queue_fx_wait_final(fx, id);
	g_assert_cmpstr(status, ==, "success");
	g_assert_true(cluster_has_tag(fx, "once"));
	before = queue_fx_record(fx, id);

	queue_fx_close(fx);
	queue_fx_open(fx);
	g_assert_cmpuint(gnt_queue_get_n_unfinished(fx->queue), ==, 0);
	after = queue_fx_record(fx, id);
	/* the same end, written once */
	g_assert_true(json_object_equal(before, after));
}

/* Stopping while nothing can be written: the stop does not hang; what was
 * never durably started runs after the restart, once. */
static void
test_stop_while_full(QueueFx *fx, gconstpointer data)
{
	guint64 id = queue_fx_submit(fx, tag_job());
	g_autofree gchar *status = NULL;
	gint64 begin;

	gnt_fault_vfs_fail(GNT_FAULT_WRITE, 0, -1);
	gnt_queue_start(fx->queue);
	iterate_for(500);
	begin = g_get_monotonic_time();
	queue_fx_close(fx);
	g_assert_cmpint(g_get_monotonic_time() - begin, <, 4 * G_USEC_PER_SEC);
	g_assert_false(cluster_has_tag(fx, "once"));

	gnt_fault_vfs_clear();
	queue_fx_open(fx);
	gnt_queue_start(fx->queue);
	status = queue_fx_wait_final(fx, id);
	g_assert_cmpstr(status, ==, "success");
	g_assert_true(cluster_has_tag(fx, "once"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	gnt_opcode_register_table(&gnt_cmdlib_op_table); /* the real opcodes */
	g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
	g_log_set_handler("gnt-jobqueue", G_LOG_LEVEL_WARNING, log_write_failures, NULL);
	gnt_fault_vfs_install("queue.db");
	g_test_add("/queue-faults/submit-while-full", QueueFx, NULL, started,
		   test_submit_while_full, tear_down);
	g_test_add("/queue-faults/acknowledged-is-durable", QueueFx, NULL, queue_fx_set_up,
		   test_acknowledged_is_durable, tear_down);
	g_test_add("/queue-faults/end-written-later", QueueFx, NULL, started,
		   test_end_written_later, tear_down);
	g_test_add("/queue-faults/restart-replays-nothing", QueueFx, NULL, queue_fx_set_up,
		   test_restart_replays_nothing, tear_down);
	g_test_add("/queue-faults/stop-while-full", QueueFx, NULL, queue_fx_set_up,
		   test_stop_while_full, tear_down);
	return g_test_run();
}
