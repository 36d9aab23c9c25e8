#include "gnt-committer.h"

#include "gnt-error.h"

/* after a failed write: the first retry, and the longest pause between two */
#define RETRY_FIRST_MS 100
#define RETRY_MAX_MS   2000
/* dropped tickets remembered for waiters (one per submission caught by a
 * failing write: a handful per full-disk episode) */
#define DROPPED_KEPT 256

/* What one push brought: a change, or a tentative group of them. */
typedef struct {
	guint64 seq;
	gboolean tentative;
	GPtrArray *changes; /* GntJobStoreChange */
} Pushed;

static void
pushed_free(Pushed *pushed)
{
	g_ptr_array_unref(pushed->changes);
	g_free(pushed);
}

/* Tickets that will never be written, and why. */
typedef struct {
	GntCommitRange range;
	GError *error;
} Dropped;

struct _GntCommitter {
	GntJobStore *store;
	GntCommitDoneFunc done;
	gpointer user_data;
	GThread *thread;

	GMutex mutex;
	GCond pushed;	     /* something to commit, or stopping */
	GCond committed;     /* an attempt ended, or a waiter was cancelled */
	GPtrArray *pending;  /* Pushed by ticket; what a failed write kept comes first */
	guint64 next_seq;    /* the last ticket handed out */
	guint64 durable_seq; /* every ticket up to here is durable, or dropped */
	GArray *dropped;     /* Dropped, the latest DROPPED_KEPT */
	GError *failure;     /* the last write's, while what it kept waits */
	guint retry_ms;
	guint n_failed; /* attempts since the last write that went through */
	gboolean stopping;
	guint64 n_commits;
};

static Pushed *
pushed_new(GntCommitter *self, gboolean tentative, GPtrArray *changes)
{
	Pushed *pushed = g_new0(Pushed, 1);

	pushed->seq = ++self->next_seq;
	pushed->tentative = tentative;
	pushed->changes = changes;
	return pushed;
}

static GntJobStoreChange *
pushed_single(Pushed *pushed)
{
	return pushed->tentative ? NULL : g_ptr_array_index(pushed->changes, 0);
}

/* Keeps the last PUT of each job among single changes: earlier ones would
 * be overwritten in the same transaction anyway. A tentative group stays
 * whole. (transfer full: @batch) */
static GPtrArray *
batch_coalesce(GPtrArray *batch)
{
	g_autoptr(GHashTable) last_put = g_hash_table_new(g_int64_hash, g_int64_equal);
	GPtrArray *out = g_ptr_array_new_full(batch->len, (GDestroyNotify)pushed_free);
	gsize n = 0;
	g_autofree gpointer *items = NULL;

	for (guint i = 0; i < batch->len; i++) {
		GntJobStoreChange *change = pushed_single(g_ptr_array_index(batch, i));
		if (change != NULL && change->kind == GNT_JOB_STORE_PUT)
			g_hash_table_replace(last_put, &change->id, GUINT_TO_POINTER(i + 1));
	}
	items = g_ptr_array_steal(batch, &n);
	g_ptr_array_unref(batch);
	for (gsize i = 0; i < n; i++) {
		GntJobStoreChange *change = pushed_single(items[i]);
		if (change != NULL && change->kind == GNT_JOB_STORE_PUT &&
		    GPOINTER_TO_UINT(g_hash_table_lookup(last_put, &change->id)) != i + 1)
			pushed_free(items[i]);
		else
			g_ptr_array_add(out, items[i]);
	}
	return out;
}

/* The changes to write, in order. (transfer container: they stay the batch's) */
static GPtrArray *
batch_changes(GPtrArray *batch)
{
	GPtrArray *changes = g_ptr_array_new();

	for (guint i = 0; i < batch->len; i++) {
		Pushed *pushed = g_ptr_array_index(batch, i);
		for (guint j = 0; j < pushed->changes->len; j++)
			g_ptr_array_add(changes, g_ptr_array_index(pushed->changes, j));
	}
	return changes;
}

static GArray *
batch_job_ids(GPtrArray *changes)
{
	GArray *ids = g_array_sized_new(FALSE, FALSE, sizeof(guint64), changes->len);

	for (guint i = 0; i < changes->len; i++) {
		GntJobStoreChange *change = g_ptr_array_index(changes, i);
		if (change->kind == GNT_JOB_STORE_PUT || change->kind == GNT_JOB_STORE_ARCHIVE)
			g_array_append_val(ids, change->id);
	}
	return ids;
}

static void
dropped_clear(Dropped *dropped)
{
	g_clear_error(&dropped->error);
}

/* Adds @from..@upto to the dropped tickets, for waiters and for @out. */
static void
committer_drop_locked(GntCommitter *self, guint64 from, guint64 upto, const GError *error,
		      GArray *out)
{
	Dropped dropped = {{from, upto}, g_error_copy(error)};

	g_array_append_val(out, dropped.range);
	if (self->dropped->len == DROPPED_KEPT)
		g_array_remove_index(self->dropped, 0);
	g_array_append_val(self->dropped, dropped);
}

static void
committer_written_locked(GntCommitter *self, guint64 upto)
{
	self->durable_seq = upto;
	self->n_commits++;
	if (self->failure != NULL)
		g_message("the job queue writes again, after %u failed attempts", self->n_failed);
	g_clear_error(&self->failure);
	self->n_failed = 0;
	self->retry_ms = RETRY_FIRST_MS;
}

/* The write of @batch (tickets up to @upto) failed: its tentative groups
 * are dropped, the rest waits for the next try, ahead of what came since
 * (the store counts as failing until then); on the last try everything
 * is given up. */
static void
committer_failed_locked(GntCommitter *self, GPtrArray *batch, guint64 upto, gboolean last_try,
			const GError *error, GArray *dropped)
{
	GPtrArray *kept = g_ptr_array_new_with_free_func((GDestroyNotify)pushed_free);
	gsize n = 0;
	g_autofree gpointer *items = g_ptr_array_steal(batch, &n);

	for (gsize i = 0; i < n; i++) {
		Pushed *pushed = items[i];
		if (pushed->tentative) {
			committer_drop_locked(self, pushed->seq, pushed->seq, error, dropped);
			pushed_free(pushed);
		} else {
			g_ptr_array_add(kept, pushed);
		}
	}
	if (last_try) {
		if (kept->len > 0)
			g_warning("%u job queue changes were not written before the stop: %s",
				  kept->len, error->message);
		committer_drop_locked(self, self->durable_seq + 1, upto, error, dropped);
		g_ptr_array_unref(kept);
		return;
	}
	if (kept->len == 0) {
		/* only tentative groups, each told: nothing waits for a retry,
		 * what comes next is tried at once */
		g_warning("the job queue could not write: %s", error->message);
		g_ptr_array_unref(kept);
		g_clear_error(&self->failure);
		self->n_failed = 0;
		self->retry_ms = RETRY_FIRST_MS;
		return;
	}
	g_ptr_array_extend_and_steal(kept, g_steal_pointer(&self->pending));
	self->pending = kept;
	/* once per episode (and when the reason changes), not at every try */
	if (self->failure == NULL || g_strcmp0(self->failure->message, error->message) != 0)
		g_warning("the job queue could not write, trying again until it can: %s",
			  error->message);
	else
		g_debug("the job queue still cannot write: %s", error->message);
	g_clear_error(&self->failure);
	self->failure = g_error_copy(error);
	self->n_failed++;
	self->retry_ms = MIN(self->retry_ms * 2, RETRY_MAX_MS);
}

static gpointer
committer_thread(gpointer data)
{
	GntCommitter *self = data;

	g_mutex_lock(&self->mutex);
	for (;;) {
		g_autoptr(GPtrArray) batch = NULL;
		g_autoptr(GPtrArray) changes = NULL;
		g_autoptr(GArray) ids = NULL;
		g_autoptr(GArray) dropped = g_array_new(FALSE, FALSE, sizeof(GntCommitRange));
		g_autoptr(GError) error = NULL;
		gboolean last_try;
		guint64 upto, durable;

		while (self->pending->len == 0 && !self->stopping)
			g_cond_wait(&self->pushed, &self->mutex);
		if (self->failure != NULL) {
			/* pause before the next try; a stop cuts it short */
			gint64 retry_at =
				g_get_monotonic_time() + self->retry_ms * G_TIME_SPAN_MILLISECOND;
			while (!self->stopping &&
			       g_cond_wait_until(&self->pushed, &self->mutex, retry_at))
				;
		}
		if (self->pending->len == 0)
			break;
		batch = g_steal_pointer(&self->pending);
		self->pending = g_ptr_array_new_with_free_func((GDestroyNotify)pushed_free);
		upto = self->next_seq;
		last_try = self->stopping;
		g_mutex_unlock(&self->mutex);

		batch = batch_coalesce(batch);
		changes = batch_changes(batch);
		if (gnt_job_store_write(self->store, changes, &error))
			ids = batch_job_ids(changes);
		else
			ids = g_array_new(FALSE, FALSE, sizeof(guint64));

		g_mutex_lock(&self->mutex);
		if (error == NULL)
			committer_written_locked(self, upto);
		else
			committer_failed_locked(self, batch, upto, last_try, error, dropped);
		durable = self->durable_seq;
		g_cond_broadcast(&self->committed);
		g_mutex_unlock(&self->mutex);

		if (self->done != NULL)
			self->done(ids, durable, dropped, error, self->user_data);
		g_mutex_lock(&self->mutex);
	}
	g_mutex_unlock(&self->mutex);
	return NULL;
}

GntCommitter *
gnt_committer_new(GntJobStore *store, GntCommitDoneFunc done, gpointer user_data)
{
	GntCommitter *self = g_new0(GntCommitter, 1);

	self->store = g_object_ref(store);
	self->done = done;
	self->user_data = user_data;
	g_mutex_init(&self->mutex);
	g_cond_init(&self->pushed);
	g_cond_init(&self->committed);
	self->pending = g_ptr_array_new_with_free_func((GDestroyNotify)pushed_free);
	self->dropped = g_array_new(FALSE, FALSE, sizeof(Dropped));
	g_array_set_clear_func(self->dropped, (GDestroyNotify)dropped_clear);
	self->retry_ms = RETRY_FIRST_MS;
	self->thread = g_thread_new("gnt-committer", committer_thread, self);
	return self;
}

void
gnt_committer_free(GntCommitter *self)
{
	if (self == NULL)
		return;
	g_mutex_lock(&self->mutex);
	self->stopping = TRUE;
	g_cond_broadcast(&self->pushed);
	g_mutex_unlock(&self->mutex);
	g_thread_join(self->thread);
	g_ptr_array_unref(self->pending);
	g_object_unref(self->store);
	g_clear_error(&self->failure);
	g_array_unref(self->dropped);
	g_cond_clear(&self->pushed);
	g_cond_clear(&self->committed);
	g_mutex_clear(&self->mutex);
	g_free(self);
}

static guint64
committer_push(GntCommitter *self, gboolean tentative, GPtrArray *changes)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);
	Pushed *pushed;

	g_return_val_if_fail(!self->stopping, 0);
	pushed = pushed_new(self, tentative, changes);
	g_ptr_array_add(self->pending, pushed);
	g_cond_signal(&self->pushed);
	return pushed->seq;
}

guint64
gnt_committer_push(GntCommitter *self, GntJobStoreChange *change)
{
	GPtrArray *changes = g_ptr_array_new_full(1, (GDestroyNotify)gnt_job_store_change_free);

	g_ptr_array_add(changes, change);
	return committer_push(self, FALSE, changes);
}

guint64
gnt_committer_push_tentative(GntCommitter *self, GPtrArray *changes)
{
	g_ptr_array_set_free_func(changes, (GDestroyNotify)gnt_job_store_change_free);
	return committer_push(self, TRUE, changes);
}

static const Dropped *
committer_find_dropped_locked(GntCommitter *self, guint64 seq)
{
	for (guint i = 0; i < self->dropped->len; i++) {
		const Dropped *dropped = &g_array_index(self->dropped, Dropped, i);
		if (seq >= dropped->range.from && seq <= dropped->range.upto)
			return dropped;
	}
	return NULL;
}

static void
committer_wake_waiters(GCancellable *cancellable, gpointer user_data)
{
	GntCommitter *self = user_data;
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	g_cond_broadcast(&self->committed);
}

gboolean
gnt_committer_wait(GntCommitter *self, guint64 seq, GCancellable *cancellable, GError **error)
{
	gulong handler = 0;
	gboolean durable = FALSE;

	/* connected before locking: on a cancelled one it runs right here */
	if (cancellable != NULL)
		handler = g_cancellable_connect(cancellable, G_CALLBACK(committer_wake_waiters),
						self, NULL);
	g_mutex_lock(&self->mutex);
	for (;;) {
		const Dropped *dropped = committer_find_dropped_locked(self, seq);

		if (dropped != NULL) {
			g_propagate_prefixed_error(error, g_error_copy(dropped->error),
						   "the job queue could not record the change: ");
			break;
		}
		if (self->durable_seq >= seq) {
			durable = TRUE;
			break;
		}
		if (self->failure != NULL && g_cancellable_is_cancelled(cancellable)) {
			g_propagate_prefixed_error(error, g_error_copy(self->failure),
						   "the job queue cannot write: ");
			break;
		}
		g_cond_wait(&self->committed, &self->mutex);
	}
	g_mutex_unlock(&self->mutex);
	/* after unlocking: it waits for a running callback, which locks */
	if (handler != 0)
		g_cancellable_disconnect(cancellable, handler);
	return durable;
}

gboolean
gnt_committer_check_writing(GntCommitter *self, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	if (self->failure == NULL)
		return TRUE;
	g_propagate_error(error, g_error_copy(self->failure));
	return FALSE;
}

guint64
gnt_committer_get_n_commits(GntCommitter *self)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	return self->n_commits;
}
