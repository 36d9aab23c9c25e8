/*
 * Group commit against a store that records what it is asked to write,
 * can hold a write back (so a batch forms behind it) and can fail one.
 */
#include "gnt-committer.h"
#include "gnt-error.h"

#define TEST_TYPE_STORE (test_store_get_type())
G_DECLARE_FINAL_TYPE(TestStore, test_store, TEST, STORE, GObject)

struct _TestStore {
	GObject parent_instance;
	GMutex mutex;
	GCond cond;
	gboolean hold;	    /* the next write waits until released */
	gboolean held;	    /* a write is waiting */
	gboolean fail_next; /* the next write fails */
	GString *log;	    /* "put:1 archive:2 | ..." one batch after another */
};

static void test_store_iface_init(GntJobStoreInterface *iface);
G_DEFINE_TYPE_WITH_CODE(TestStore, test_store, G_TYPE_OBJECT,
			G_IMPLEMENT_INTERFACE(GNT_TYPE_JOB_STORE, test_store_iface_init))

static gboolean
test_store_write(GntJobStore *store, GPtrArray *changes, GError **error)
{
	TestStore *self = TEST_STORE(store);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	if (self->hold) {
		self->held = TRUE;
		g_cond_broadcast(&self->cond);
		while (self->hold)
			g_cond_wait(&self->cond, &self->mutex);
		self->held = FALSE;
	}
	if (self->fail_next) {
		self->fail_next = FALSE;
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "disk full");
		return FALSE;
	}
	for (guint i = 0; i < changes->len; i++) {
		GntJobStoreChange *c = g_ptr_array_index(changes, i);
		g_string_append_printf(self->log, "%s:%" G_GUINT64_FORMAT "%s ",
				       c->kind == GNT_JOB_STORE_PUT ? "put" : "other", c->id,
				       c->record != NULL ? c->record : "");
	}
	g_string_append(self->log, "| ");
	return TRUE;
}

static void
test_store_iface_init(GntJobStoreInterface *iface)
{
	iface->write = test_store_write;
}

static void
test_store_finalize(GObject *object)
{
	TestStore *self = TEST_STORE(object);

	g_string_free(self->log, TRUE);
	g_cond_clear(&self->cond);
	g_mutex_clear(&self->mutex);
	G_OBJECT_CLASS(test_store_parent_class)->finalize(object);
}

static void
test_store_class_init(TestStoreClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = test_store_finalize;
}

static void
test_store_init(TestStore *self)
{
	g_mutex_init(&self->mutex);
	g_cond_init(&self->cond);
	self->log = g_string_new(NULL);
}

static GntJobStoreChange *
put(guint64 id, const gchar *record)
{
	GntJobStoreChange *change = gnt_job_store_change_new(GNT_JOB_STORE_PUT, id);

	change->record = g_strdup(record);
	return change;
}

/* Blocks until the committer is inside a held write. */
static void
wait_held(TestStore *store)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&store->mutex);

	while (!store->held)
		g_cond_wait(&store->cond, &store->mutex);
}

static void
release(TestStore *store)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&store->mutex);

	store->hold = FALSE;
	g_cond_broadcast(&store->cond);
}

static void
test_batches_coalesce(void)
{
	g_autoptr(TestStore) store = g_object_new(TEST_TYPE_STORE, NULL);
	GntCommitter *committer = gnt_committer_new(GNT_JOB_STORE(store), NULL, NULL);
	guint64 last;

	store->hold = TRUE;
	gnt_committer_push(committer, put(1, "a"));
	wait_held(store);
	/* these queue up behind the held write and form one batch */
	gnt_committer_push(committer, put(2, "b"));
	gnt_committer_push(committer, put(3, "c"));
	last = gnt_committer_push(committer, put(2, "b2"));
	release(store);
	g_assert_true(gnt_committer_wait(committer, last, NULL));
	/* the later change of job 2 replaced the earlier one in its batch */
	g_assert_cmpstr(store->log->str, ==, "put:1a | put:3c put:2b2 | ");
	g_assert_cmpuint(gnt_committer_get_n_commits(committer), ==, 2);
	gnt_committer_free(committer);
}

typedef struct {
	guint calls;
	gboolean saw_error;
} DoneLog;

static void
done_cb(GArray *ids, guint64 upto, const GError *error, gpointer user_data)
{
	DoneLog *log = user_data;

	g_atomic_int_inc(&log->calls);
	if (error != NULL)
		g_atomic_int_set(&log->saw_error, TRUE);
}

static void
test_failed_batch_reported(void)
{
	g_autoptr(TestStore) store = g_object_new(TEST_TYPE_STORE, NULL);
	DoneLog log = {0};
	GntCommitter *committer = gnt_committer_new(GNT_JOB_STORE(store), done_cb, &log);
	g_autoptr(GError) error = NULL;
	guint64 lost, kept;

	store->fail_next = TRUE;
	g_test_expect_message("gnt-jobqueue", G_LOG_LEVEL_WARNING,
			      "could not commit 1 job queue changes: disk full");
	lost = gnt_committer_push(committer, put(1, "x"));
	g_assert_false(gnt_committer_wait(committer, lost, &error));
	g_test_assert_expected_messages();
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_cmpstr(error->message, ==, "the job queue could not record the change: disk full");
	kept = gnt_committer_push(committer, put(2, "y"));
	g_assert_true(gnt_committer_wait(committer, kept, NULL));
	/* the failure stays known to whoever waits on it late */
	g_assert_false(gnt_committer_wait(committer, lost, NULL));
	gnt_committer_free(committer);
	g_assert_cmpuint(log.calls, ==, 2);
	g_assert_true(log.saw_error);
	g_assert_cmpstr(store->log->str, ==, "put:2y | ");
}

static void
test_free_flushes(void)
{
	g_autoptr(TestStore) store = g_object_new(TEST_TYPE_STORE, NULL);
	GntCommitter *committer = gnt_committer_new(GNT_JOB_STORE(store), NULL, NULL);

	for (guint i = 1; i <= 50; i++)
		gnt_committer_push(committer, put(i, ""));
	gnt_committer_free(committer); /* commits what is pending first */
	g_assert_nonnull(strstr(store->log->str, "put:50"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/committer/batches-coalesce", test_batches_coalesce);
	g_test_add_func("/committer/failed-batch-reported", test_failed_batch_reported);
	g_test_add_func("/committer/free-flushes", test_free_flushes);
	return g_test_run();
}
