/*
 * Group commit against a store that records what it is asked to write,
 * can hold a write back (so a batch forms behind it) and can fail some.
 */
#include "gnt-committer.h"
#include "gnt-error.h"

#define TEST_TYPE_STORE (test_store_get_type())
G_DECLARE_FINAL_TYPE(TestStore, test_store, TEST, STORE, GObject)

struct _TestStore {
	GObject parent_instance;
	GMutex mutex;
	GCond cond;
	gboolean hold; /* the next write waits until released */
	gboolean held; /* a write is waiting */
	guint pass;    /* so many writes go through, then */
	gint fail;     /* so many fail (-1: all) */
	GString *log;  /* "put:1 archive:2 | ..." one batch after another */
};

static void
test_store_iface_init(GntJobStoreInterface *iface);
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
	if (self->pass > 0) {
		self->pass--;
	} else if (self->fail != 0) {
		if (self->fail > 0)
			self->fail--;
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES, "disk full");
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
	g_assert_true(gnt_committer_wait(committer, last, NULL, NULL));
	/* the later change of job 2 replaced the earlier one in its batch */
	g_assert_cmpstr(store->log->str, ==, "put:1a | put:3c put:2b2 | ");
	g_assert_cmpuint(gnt_committer_get_n_commits(committer), ==, 2);
	gnt_committer_free(committer);
}

typedef struct {
	guint calls;
	guint errors;
	GArray *dropped; /* GntCommitRange */
} DoneLog;

static void
done_cb(GArray *ids, guint64 durable_upto, GArray *dropped, const GError *error, gpointer user_data)
{
	DoneLog *log = user_data;

	log->calls++;
	if (error != NULL)
		log->errors++;
	g_array_append_vals(log->dropped, dropped->data, dropped->len);
}

static void
set_failing(TestStore *store, guint pass, gint fail)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&store->mutex);

	store->pass = pass;
	store->fail = fail;
}

/* Blocks until the store failed a write (a cancelled wait returns then). */
static void
wait_failing(GntCommitter *committer, guint64 seq)
{
	g_autoptr(GCancellable) cancelled = g_cancellable_new();
	g_autoptr(GError) error = NULL;

	g_cancellable_cancel(cancelled);
	g_assert_false(gnt_committer_wait(committer, seq, cancelled, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES);
	g_assert_cmpstr(error->message, ==, "the job queue cannot write: disk full");
}

/* A failed write is kept and written again, with what came meanwhile and
 * in order, until the store takes it; nobody is told it failed. */
static void
test_failed_write_retried(void)
{
	g_autoptr(TestStore) store = g_object_new(TEST_TYPE_STORE, NULL);
	DoneLog log = {0, 0, g_array_new(FALSE, FALSE, sizeof(GntCommitRange))};
	GntCommitter *committer = gnt_committer_new(GNT_JOB_STORE(store), done_cb, &log);
	g_autoptr(GError) error = NULL;
	guint64 first, second;

	set_failing(store, 0, -1);
	g_test_expect_message(
		"gnt-jobqueue", G_LOG_LEVEL_WARNING,
		"the job queue could not write, trying again until it can: disk full");
	first = gnt_committer_push(committer, put(1, "x"));
	wait_failing(committer, first);
	g_test_assert_expected_messages();
	g_assert_false(gnt_committer_check_writing(committer, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES);
	second = gnt_committer_push(committer, put(2, "y"));
	/* still failing after a few tries: nothing written, nothing lost */
	g_usleep(400 * 1000);
	g_assert_cmpstr(store->log->str, ==, "");

	g_test_expect_message("gnt-jobqueue", G_LOG_LEVEL_MESSAGE,
			      "the job queue writes again, after * failed attempts");
	set_failing(store, 0, 0);
	g_assert_true(gnt_committer_wait(committer, second, NULL, NULL));
	g_assert_true(gnt_committer_wait(committer, first, NULL, NULL));
	g_test_assert_expected_messages();
	g_assert_true(gnt_committer_check_writing(committer, NULL));
	g_assert_cmpstr(store->log->str, ==, "put:1x put:2y | ");
	gnt_committer_free(committer);
	g_assert_cmpuint(log.errors, >=, 1);
	g_assert_cmpuint(log.calls, ==, log.errors + 1);
	g_assert_cmpuint(log.dropped->len, ==, 0);
	g_array_unref(log.dropped);
}

/* A tentative group whose write fails is dropped whole and its waiter
 * told; the other changes of that write are written on the next try. */
static void
test_tentative_dropped(void)
{
	g_autoptr(TestStore) store = g_object_new(TEST_TYPE_STORE, NULL);
	DoneLog log = {0, 0, g_array_new(FALSE, FALSE, sizeof(GntCommitRange))};
	GntCommitter *committer = gnt_committer_new(GNT_JOB_STORE(store), done_cb, &log);
	GPtrArray *group = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	guint64 kept, tentative;

	store->hold = TRUE;
	gnt_committer_push(committer, put(9, "h"));
	wait_held(store);
	/* behind the held write: one batch, whose write fails */
	kept = gnt_committer_push(committer, put(1, "k"));
	g_ptr_array_add(group, put(2, "t"));
	g_ptr_array_add(group, put(3, "t"));
	tentative = gnt_committer_push_tentative(committer, group);
	set_failing(store, 1, 1);
	g_test_expect_message(
		"gnt-jobqueue", G_LOG_LEVEL_WARNING,
		"the job queue could not write, trying again until it can: disk full");
	g_test_expect_message("gnt-jobqueue", G_LOG_LEVEL_MESSAGE,
			      "the job queue writes again, after 1 failed attempts");
	release(store);
	g_assert_false(gnt_committer_wait(committer, tentative, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES);
	g_assert_cmpstr(error->message, ==, "the job queue could not record the change: disk full");
	g_assert_true(gnt_committer_wait(committer, kept, NULL, NULL));
	g_test_assert_expected_messages();
	/* told late, the same */
	g_assert_false(gnt_committer_wait(committer, tentative, NULL, NULL));
	g_assert_cmpstr(store->log->str, ==, "put:9h | put:1k | ");
	gnt_committer_free(committer);
	g_assert_cmpuint(log.dropped->len, ==, 1);
	g_assert_cmpuint(g_array_index(log.dropped, GntCommitRange, 0).from, ==, tentative);
	g_assert_cmpuint(g_array_index(log.dropped, GntCommitRange, 0).upto, ==, tentative);
	g_array_unref(log.dropped);
}

/* A stop while the store fails: one more try, then what is left is given
 * up (as a crash would), and the stop does not hang. */
static void
test_stop_gives_up(void)
{
	g_autoptr(TestStore) store = g_object_new(TEST_TYPE_STORE, NULL);
	GntCommitter *committer = gnt_committer_new(GNT_JOB_STORE(store), NULL, NULL);
	guint64 seq;

	set_failing(store, 0, -1);
	g_test_expect_message(
		"gnt-jobqueue", G_LOG_LEVEL_WARNING,
		"the job queue could not write, trying again until it can: disk full");
	seq = gnt_committer_push(committer, put(1, "x"));
	wait_failing(committer, seq);
	g_test_expect_message("gnt-jobqueue", G_LOG_LEVEL_WARNING,
			      "1 job queue changes were not written before the stop: disk full");
	gnt_committer_free(committer);
	g_test_assert_expected_messages();
	g_assert_cmpstr(store->log->str, ==, "");
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
	g_test_add_func("/committer/failed-write-retried", test_failed_write_retried);
	g_test_add_func("/committer/tentative-dropped", test_tentative_dropped);
	g_test_add_func("/committer/stop-gives-up", test_stop_gives_up);
	g_test_add_func("/committer/free-flushes", test_free_flushes);
	return g_test_run();
}
