#include "gnt-committer.h"

#include "gnt-error.h"

typedef struct {
	guint64 from, upto;
} FailedBatch;

struct _GntCommitter {
	GntJobStore *store;
	GntCommitDoneFunc done;
	gpointer user_data;
	GThread *thread;

	GMutex mutex;
	GCond pushed;	 /* something to commit, or stopping */
	GCond committed; /* committed_seq moved */
	GPtrArray *pending; /* GntJobStoreChange */
	guint64 next_seq;      /* the last ticket handed out */
	guint64 committed_seq; /* every ticket up to here is durable */
	GArray *failed; /* FailedBatch: rare (a full or broken disk), all kept */
	gchar *failure;	 /* the latest reason */
	gboolean stopping;
	guint64 n_commits;
};

/* Keeps the last PUT of each job: earlier ones in the same transaction
 * would be overwritten anyway. */
static GPtrArray *
batch_coalesce(GPtrArray *batch)
{
	g_autoptr(GHashTable) last_put = g_hash_table_new(g_int64_hash, g_int64_equal);
	GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_job_store_change_free);

	for (guint i = 0; i < batch->len; i++) {
		GntJobStoreChange *change = g_ptr_array_index(batch, i);
		if (change->kind == GNT_JOB_STORE_PUT)
			g_hash_table_insert(last_put, &change->id, GUINT_TO_POINTER(i + 1));
	}
	for (guint i = 0; i < batch->len; i++) {
		GntJobStoreChange *change = g_ptr_array_index(batch, i);
		if (change->kind == GNT_JOB_STORE_PUT &&
		    GPOINTER_TO_UINT(g_hash_table_lookup(last_put, &change->id)) != i + 1)
			continue;
		g_ptr_array_add(out, g_steal_pointer(&batch->pdata[i]));
	}
	return out;
}

static GArray *
batch_job_ids(GPtrArray *batch)
{
	GArray *ids = g_array_sized_new(FALSE, FALSE, sizeof(guint64), batch->len);

	for (guint i = 0; i < batch->len; i++) {
		GntJobStoreChange *change = g_ptr_array_index(batch, i);
		if (change->kind == GNT_JOB_STORE_PUT || change->kind == GNT_JOB_STORE_ARCHIVE)
			g_array_append_val(ids, change->id);
	}
	return ids;
}

static gpointer
committer_thread(gpointer data)
{
	GntCommitter *self = data;

	g_mutex_lock(&self->mutex);
	for (;;) {
		g_autoptr(GPtrArray) batch = NULL;
		g_autoptr(GPtrArray) coalesced = NULL;
		g_autoptr(GArray) ids = NULL;
		g_autoptr(GError) error = NULL;
		guint64 upto;

		while (self->pending->len == 0 && !self->stopping)
			g_cond_wait(&self->pushed, &self->mutex);
		if (self->pending->len == 0)
			break;
		batch = g_steal_pointer(&self->pending);
		self->pending = g_ptr_array_new();
		upto = self->next_seq;
		g_mutex_unlock(&self->mutex);

		coalesced = batch_coalesce(batch);
		g_ptr_array_set_free_func(batch, (GDestroyNotify)gnt_job_store_change_free);
		ids = batch_job_ids(coalesced);
		if (!gnt_job_store_write(self->store, coalesced, &error))
			g_warning("could not commit %u job queue changes: %s", coalesced->len,
				  error->message);

		g_mutex_lock(&self->mutex);
		if (error != NULL) {
			FailedBatch batch_range = {self->committed_seq + 1, upto};
			g_array_append_val(self->failed, batch_range);
			g_free(self->failure);
			self->failure = g_strdup(error->message);
		}
		/* a failed batch is not retried: its waiters are told */
		self->committed_seq = upto;
		self->n_commits++;
		g_cond_broadcast(&self->committed);
		g_mutex_unlock(&self->mutex);

		if (self->done != NULL)
			self->done(ids, upto, error, self->user_data);
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
	self->pending = g_ptr_array_new();
	self->failed = g_array_new(FALSE, FALSE, sizeof(FailedBatch));
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
	g_free(self->failure);
	g_array_unref(self->failed);
	g_cond_clear(&self->pushed);
	g_cond_clear(&self->committed);
	g_mutex_clear(&self->mutex);
	g_free(self);
}

guint64
gnt_committer_push(GntCommitter *self, GntJobStoreChange *change)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	g_return_val_if_fail(!self->stopping, 0);
	g_ptr_array_add(self->pending, change);
	g_cond_signal(&self->pushed);
	return ++self->next_seq;
}

gboolean
gnt_committer_wait(GntCommitter *self, guint64 seq, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	while (self->committed_seq < seq)
		g_cond_wait(&self->committed, &self->mutex);
	for (guint i = 0; i < self->failed->len; i++) {
		FailedBatch *batch = &g_array_index(self->failed, FailedBatch, i);
		if (seq >= batch->from && seq <= batch->upto) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "the job queue could not record the change: %s", self->failure);
			return FALSE;
		}
	}
	return TRUE;
}

guint64
gnt_committer_get_n_commits(GntCommitter *self)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	return self->n_commits;
}
