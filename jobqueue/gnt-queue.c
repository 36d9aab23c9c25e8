#include "gnt-queue.h"

#include "gnt-committer.h"
#include "gnt-error.h"
#include "gnt-job-store.h"
#include "gnt-job.h"
#include "gnt-json.h"
#include "gnt-locks.h"
#include "gnt-memory.h"
#include "gnt-lu.h"
#include "gnt-opcode-private.h"

#define GNT_QUEUE_DEFAULT_MAX_RUNNING 20
/* how often the auto-archiver looks, and how long one pass may take */
#define AUTO_ARCHIVE_INTERVAL_S 300
#define AUTO_ARCHIVE_BUDGET_S	30
#define MSG_MASTER_STOPPED	"the master daemon stopped while the job was running"
#define MSG_SECRETS_LOST	"secret parameters were lost at master restart; resubmit the job"
/* what a refused submission's error starts with */
#define SUBMIT_FAILED "job not queued: "
/* ... and any other change that will never be written */
#define CHANGE_FAILED "the job queue could not record the change: "

/* One unfinished job and what the scheduler knows of it. Guarded by the
 * queue's mutex, except the two flags read by lock waiters (atomics). */
typedef struct {
	GntJob *job;
	gint cancel;	      /* atomic: cancel requested while taken */
	gboolean accepted;    /* its submission is durable */
	gboolean taken;	      /* handed to a worker */
	gboolean dep_waiting; /* parked until its dependencies finish */
	guint64 final_seq;    /* ticket of the final state; 0 while running */
} QueueEntry;

/* An async request answered once ticket @seq is durable; @on_durable (if
 * set) runs first, in the main loop, with @failed TRUE if it never will be
 * (a submission whose write failed). */
typedef struct {
	guint64 seq;
	const gchar *failure_prefix; /* what the caller reads when it failed */
	GTask *task;
	gpointer result;
	GDestroyNotify result_free;
	void (*on_durable)(GntQueue *self, gpointer result, gboolean failed);
} PendingReply;

typedef struct {
	guint id;
	guint64 job_id;
	GntQueueWatchFunc func;
	gpointer user_data;
} Watch;

/* Tickets the committer will never write. */
typedef struct {
	GntCommitRange range;
	GError *error;
} FailedRange;

static void
failed_range_clear(FailedRange *failed)
{
	g_clear_error(&failed->error);
}

static GArray *
queue_failed_new(void)
{
	GArray *failed = g_array_new(FALSE, FALSE, sizeof(FailedRange));

	g_array_set_clear_func(failed, (GDestroyNotify)failed_range_clear);
	return failed;
}

struct _GntQueue {
	GObject parent_instance;
	GMainContext *context;
	GntLuEnv *env;
	const GntLuUnit *units; /* gnt_queue_set_units() */
	GntJobStore *store;
	GntCommitter *committer;
	GntLockManager *locks;
	GThreadPool *pool;
	GCancellable *stop; /* cancelled at shutdown: workers stop waiting for a failing store */

	GMutex mutex;		/* everything below, and the state of every GntJob */
	GCond stop_cond;	/* stopping, or one fewer job running */
	GHashTable *unfinished; /* id -> QueueEntry */
	GSequence *runnable;	/* QueueEntry, by priority then id */
	guint max_running;
	guint n_running;
	guint n_released; /* jobs whose unit lent its worker back (waiting on a node) */
	guint64 last_id;
	gboolean drained;
	gint stopping; /* atomic */
	gboolean started;
	/* handed from the committer thread to the main loop */
	GArray *changed_ids;
	guint64 durable_upto;
	GArray *failed; /* FailedRange, since the last dispatch */
	GSource *notify_source;
	guint64 last_seq; /* ticket of the newest change pushed */

	/* main loop only */
	GQueue *replies;	/* PendingReply, by seq */
	GPtrArray *dep_waiting; /* QueueEntry */
	GPtrArray *finishing;	/* QueueEntry whose final state is in flight */
	GHashTable *watches;	/* job id -> GPtrArray of Watch */
	GHashTable *watch_jobs; /* watch id -> job id */
	guint next_watch_id;
	GSource *auto_archive_source;
	guint auto_archive_age_s;
};

G_DEFINE_TYPE(GntQueue, gnt_queue, G_TYPE_OBJECT)

struct _GntLu {
	GntQueue *queue;
	GntJob *job;
	guint op_index;
	gpointer data;
	GDestroyNotify data_free;
	GntOpcode *opcode; /* gnt_lu_set_opcode(); NULL: the job's */
};

static void
queue_run_job(gpointer data, gpointer user_data);

/* ---- encoding of results --------------------------------------------- */

/* Ganeti's encoded exception: [class, [message, ecode]] or [class, [message]]. */
static JsonNode *
encode_exception(const gchar *klass, const gchar *message, const gchar *ecode)
{
	JsonArray *outer = json_array_sized_new(2);
	JsonArray *args = json_array_sized_new(2);

	json_array_add_string_element(args, message);
	if (ecode != NULL)
		json_array_add_string_element(args, ecode);
	json_array_add_string_element(outer, klass);
	json_array_add_array_element(outer, args);
	return gnt_json_node_new_array(outer);
}

static JsonNode *
encode_prereq_error(const GError *error)
{
	GntError code = error->domain == GNT_ERROR ? (GntError)error->code : GNT_ERROR_FAULT;

	return encode_exception("OpPrereqError", error->message, gnt_error_to_ecode(code));
}

/* ---- pushing changes ---------------------------------------------------- */

/* Called with the mutex held. Serializes now: the job keeps changing. */
static GntJobStoreChange *
queue_job_change_locked(GntJob *job)
{
	g_autoptr(JsonObject) record = gnt_job_to_json(job);
	g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), record);
	GntJobStoreChange *change =
		gnt_job_store_change_new(GNT_JOB_STORE_PUT, gnt_job_get_id(job));
	GntJobStatus status = gnt_job_get_status(job);

	change->status = status;
	change->end_usec = gnt_job_get_end_usec(job);
	change->record = gnt_json_to_string(node);
	/* private values are kept only while the job may still run */
	if (!gnt_job_status_is_finalized(status)) {
		g_autoptr(JsonArray) priv = gnt_job_dup_private(job);
		if (priv != NULL) {
			g_autoptr(JsonNode) pnode = json_node_init_array(json_node_alloc(), priv);
			change->private_values = gnt_json_to_string(pnode);
		}
	}
	return change;
}

static guint64
queue_push_job_locked(GntQueue *self, GntJob *job)
{
	self->last_seq = gnt_committer_push(self->committer, queue_job_change_locked(job));
	return self->last_seq;
}

static guint64
queue_push_simple_locked(GntQueue *self, GntJobStoreChangeKind kind, guint64 id)
{
	self->last_seq = gnt_committer_push(self->committer, gnt_job_store_change_new(kind, id));
	return self->last_seq;
}

/* Called with the mutex held: the job reached a final state. */
static void
queue_finalize_job_locked(GntQueue *self, QueueEntry *entry)
{
	gnt_job_set_end_usec(entry->job, g_get_real_time());
	gnt_job_forget_secrets(entry->job);
	entry->final_seq = queue_push_job_locked(self, entry->job);
}

/* ---- committer -> main loop --------------------------------------------- */

static gboolean
queue_dispatch_notifications(gpointer user_data);

/* Runs in the committer thread. */
static void
queue_commit_done(GArray *ids, guint64 durable_upto, GArray *dropped, const GError *error,
		  gpointer user_data)
{
	GntQueue *self = user_data;
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	g_array_append_vals(self->changed_ids, ids->data, ids->len);
	for (guint i = 0; i < dropped->len; i++) {
		FailedRange failed = {g_array_index(dropped, GntCommitRange, i),
				      g_error_copy(error)};
		g_array_append_val(self->failed, failed);
	}
	if (dropped->len == 0 && durable_upto == self->durable_upto)
		return; /* a failed write that keeps its changes: nothing to tell */
	self->durable_upto = durable_upto;
	if (self->notify_source == NULL) {
		self->notify_source = g_idle_source_new();
		g_source_set_priority(self->notify_source, G_PRIORITY_DEFAULT);
		g_source_set_callback(self->notify_source, queue_dispatch_notifications,
				      g_object_ref(self), g_object_unref);
		g_source_attach(self->notify_source, self->context);
	}
}

static const GError *
failed_error(GArray *failed, guint64 seq)
{
	for (guint i = 0; i < failed->len; i++) {
		FailedRange *failed_range = &g_array_index(failed, FailedRange, i);
		if (seq >= failed_range->range.from && seq <= failed_range->range.upto)
			return failed_range->error;
	}
	return NULL;
}

static void
pending_reply_complete(GntQueue *self, PendingReply *reply, const GError *failure)
{
	if (reply->on_durable != NULL)
		reply->on_durable(self, reply->result, failure != NULL);
	if (failure != NULL) {
		g_task_return_error(reply->task,
				    g_error_new(failure->domain, failure->code, "%s%s",
						reply->failure_prefix, failure->message));
		if (reply->result_free != NULL && reply->result != NULL)
			reply->result_free(reply->result);
	} else {
		g_task_return_pointer(reply->task, reply->result, reply->result_free);
	}
	g_object_unref(reply->task);
	g_free(reply);
}

static void
queue_fire_watches(GntQueue *self, guint64 job_id)
{
	GPtrArray *list = g_hash_table_lookup(self->watches, &job_id);
	g_autoptr(GArray) ids = NULL;

	if (list == NULL)
		return;
	/* a callback may remove watches, its own or others': go by ID, and
	 * look each one up again before calling it */
	ids = g_array_sized_new(FALSE, FALSE, sizeof(guint), list->len);
	for (guint i = 0; i < list->len; i++)
		g_array_append_val(ids, ((Watch *)g_ptr_array_index(list, i))->id);
	for (guint i = 0; i < ids->len; i++) {
		Watch *w = g_hash_table_lookup(self->watch_jobs,
					       GUINT_TO_POINTER(g_array_index(ids, guint, i)));
		if (w != NULL)
			w->func(self, job_id, w->user_data);
	}
}

static void
queue_evaluate_dependents(GntQueue *self);

static gboolean
queue_dispatch_notifications(gpointer user_data)
{
	GntQueue *self = user_data;
	g_autoptr(GArray) ids = NULL;
	g_autoptr(GArray) failed = NULL;
	g_autoptr(GHashTable) seen = g_hash_table_new(g_int64_hash, g_int64_equal);
	gboolean any_finished = FALSE;
	guint64 upto;

	g_mutex_lock(&self->mutex);
	ids = g_steal_pointer(&self->changed_ids);
	self->changed_ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	failed = g_steal_pointer(&self->failed);
	self->failed = queue_failed_new();
	upto = self->durable_upto;
	g_clear_pointer(&self->notify_source, g_source_unref);
	/* jobs whose final state is durable leave the scheduler */
	for (guint i = 0; i < self->finishing->len;) {
		QueueEntry *entry = g_ptr_array_index(self->finishing, i);
		if (entry->final_seq <= upto) {
			guint64 id = gnt_job_get_id(entry->job);
			g_ptr_array_remove_index_fast(self->finishing, i);
			g_hash_table_remove(self->unfinished, &id);
			any_finished = TRUE;
		} else {
			i++;
		}
	}
	g_mutex_unlock(&self->mutex);

	/* what will never be written, wherever it waits; then what is durable */
	for (GList *l = failed->len > 0 ? self->replies->head : NULL; l != NULL;) {
		GList *next = l->next;
		PendingReply *reply = l->data;
		const GError *failure = failed_error(failed, reply->seq);
		if (failure != NULL) {
			g_queue_delete_link(self->replies, l);
			pending_reply_complete(self, reply, failure);
		}
		l = next;
	}
	while (!g_queue_is_empty(self->replies)) {
		PendingReply *reply = g_queue_peek_head(self->replies);
		if (reply->seq > upto)
			break;
		g_queue_pop_head(self->replies);
		pending_reply_complete(self, reply, NULL);
	}
	for (guint i = 0; i < ids->len; i++) {
		guint64 *id = &g_array_index(ids, guint64, i);
		if (g_hash_table_add(seen, id))
			queue_fire_watches(self, *id);
	}
	if (any_finished) {
		queue_evaluate_dependents(self);
		/* a burst (thousands of jobs in one SubmitManyJobs) leaves
		 * megabytes that malloc keeps for reuse */
		gnt_memory_trim_soon();
	}
	return G_SOURCE_REMOVE;
}

/* Answers @task once ticket @seq (and so everything pushed before) is
 * durable; if it never will be, with @failure_prefix and the reason. */
static void
queue_reply_when_durable(GntQueue *self, guint64 seq, const gchar *failure_prefix, GTask *task,
			 gpointer result, GDestroyNotify result_free,
			 void (*on_durable)(GntQueue *, gpointer, gboolean))
{
	PendingReply *reply = g_new0(PendingReply, 1);

	reply->on_durable = on_durable;
	reply->seq = seq;
	reply->failure_prefix = failure_prefix;
	reply->task = task;
	reply->result = result;
	reply->result_free = result_free;
	g_queue_push_tail(self->replies, reply);
	/* nothing in flight: answer on the next iteration */
	g_mutex_lock(&self->mutex);
	if (reply->seq <= self->durable_upto && self->notify_source == NULL) {
		self->notify_source = g_idle_source_new();
		g_source_set_callback(self->notify_source, queue_dispatch_notifications,
				      g_object_ref(self), g_object_unref);
		g_source_attach(self->notify_source, self->context);
	}
	g_mutex_unlock(&self->mutex);
}

/* ---- scheduling ------------------------------------------------------------ */

static gint
runnable_cmp(gconstpointer a, gconstpointer b, gpointer user_data)
{
	const QueueEntry *ea = a, *eb = b;
	gint pa = gnt_job_get_priority(ea->job), pb = gnt_job_get_priority(eb->job);
	guint64 ia = gnt_job_get_id(ea->job), ib = gnt_job_get_id(eb->job);

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return ia < ib ? -1 : (ia > ib ? 1 : 0);
}

/* Called with the mutex held. */
static void
queue_schedule_locked(GntQueue *self)
{
	while (self->started && !g_atomic_int_get(&self->stopping) &&
	       self->n_running < self->max_running && g_sequence_get_length(self->runnable) > 0) {
		GSequenceIter *first = g_sequence_get_begin_iter(self->runnable);
		QueueEntry *entry = g_sequence_get(first);
		g_sequence_remove(first);
		entry->taken = TRUE;
		self->n_running++;
		g_thread_pool_push(self->pool, entry, NULL);
	}
}

typedef enum {
	DEPS_READY,
	DEPS_WAIT,
	DEPS_FAILED,
	DEPS_CANCELED,
} DepsOutcome;

static const gchar *
status_in_list(JsonArray *statuses, GntJobStatus status)
{
	for (guint i = 0; i < json_array_get_length(statuses); i++) {
		const gchar *s = json_array_get_string_element(statuses, i);
		if (g_strcmp0(s, gnt_job_status_to_string(status)) == 0)
			return s;
	}
	return NULL;
}

/* Main loop; called with the mutex held. Ganeti's rules: an empty status
 * list accepts any final status but canceled; a dependency that ended
 * canceled (and was not accepted) cancels the job; any other unmet one
 * fails it. */
static DepsOutcome
queue_check_deps_locked(GntQueue *self, QueueEntry *entry, gchar **message)
{
	for (guint i = 0; i < gnt_job_get_n_ops(entry->job); i++) {
		JsonArray *deps = gnt_opcode_get_depends(gnt_job_get_op(entry->job, i)->input);
		for (guint d = 0; deps != NULL && d < json_array_get_length(deps); d++) {
			JsonArray *dep = json_array_get_array_element(deps, d);
			guint64 dep_id = (guint64)json_array_get_int_element(dep, 0);
			JsonArray *statuses = json_array_get_array_element(dep, 1);
			QueueEntry *other = g_hash_table_lookup(self->unfinished, &dep_id);
			g_autoptr(GError) error = NULL;
			GntJobStatus status;
			gboolean accepted;

			if (other != NULL)
				return DEPS_WAIT;
			if (!gnt_job_store_lookup_status(self->store, dep_id, &status, &error)) {
				*message = g_strdup_printf("dependency on job %" G_GUINT64_FORMAT
							   " cannot be met: %s",
							   dep_id, error->message);
				return DEPS_FAILED;
			}
			if (!gnt_job_status_is_finalized(status))
				return DEPS_WAIT;
			accepted = json_array_get_length(statuses) == 0
					   ? status != GNT_JOB_STATUS_CANCELED
					   : status_in_list(statuses, status) != NULL;
			if (accepted)
				continue;
			*message = g_strdup_printf("dependency on job %" G_GUINT64_FORMAT
						   " not met: it ended with status '%s'",
						   dep_id, gnt_job_status_to_string(status));
			return status == GNT_JOB_STATUS_CANCELED ? DEPS_CANCELED : DEPS_FAILED;
		}
	}
	return DEPS_READY;
}

/* Main loop; mutex held. Places a job that is not taken: runnable,
 * parked until its dependencies end, or finished because they failed. */
static void
queue_place_job_locked(GntQueue *self, QueueEntry *entry)
{
	g_autofree gchar *message = NULL;
	DepsOutcome outcome = queue_check_deps_locked(self, entry, &message);
	GntJobOp *first = gnt_job_get_op(entry->job, 0);

	switch (outcome) {
	case DEPS_READY:
		entry->dep_waiting = FALSE;
		g_sequence_insert_sorted(self->runnable, entry, runnable_cmp, NULL);
		break;
	case DEPS_WAIT:
		entry->dep_waiting = TRUE;
		g_ptr_array_add(self->dep_waiting, entry);
		/* parked for the first time: that is a change worth showing */
		if (first->status == GNT_JOB_STATUS_QUEUED) {
			first->status = GNT_JOB_STATUS_WAITING;
			first->start_usec = g_get_real_time();
			queue_push_job_locked(self, entry->job);
		}
		break;
	case DEPS_FAILED:
	case DEPS_CANCELED: {
		g_autoptr(JsonNode) result =
			outcome == DEPS_FAILED ? encode_exception("OpExecError", message, NULL)
					       : NULL;
		entry->dep_waiting = FALSE;
		gnt_job_finish_ops(entry->job, 0,
				   outcome == DEPS_FAILED ? GNT_JOB_STATUS_ERROR
							  : GNT_JOB_STATUS_CANCELED,
				   result);
		queue_finalize_job_locked(self, entry);
		g_ptr_array_add(self->finishing, entry);
		break;
	}
	default:
		g_assert_not_reached();
	}
}

/* Main loop: some job ended durably; parked jobs may go on. */
static void
queue_evaluate_dependents(GntQueue *self)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);
	g_autoptr(GPtrArray) parked = g_steal_pointer(&self->dep_waiting);

	self->dep_waiting = g_ptr_array_new();
	for (guint i = 0; i < parked->len; i++) {
		QueueEntry *entry = g_ptr_array_index(parked, i);
		entry->dep_waiting = FALSE;
		queue_place_job_locked(self, entry);
	}
	queue_schedule_locked(self);
}

/* ---- workers --------------------------------------------------------------- */

static gboolean
queue_lock_abort(gpointer user_data)
{
	QueueEntry *entry = ((gpointer *)user_data)[0];
	GntQueue *self = ((gpointer *)user_data)[1];

	return g_atomic_int_get(&entry->cancel) || g_atomic_int_get(&self->stopping);
}

/* Worker; mutex not held. Declares an opcode's locks. */
static GntLockSet *
queue_declare_locks(GntLu *lu, const GntLuClass *lu_class)
{
	const GntOpDef *def = gnt_opcode_get_def(gnt_job_get_op(lu->job, lu->op_index)->input);
	GntLockSet *locks = gnt_lock_set_new();

	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_CLUSTER, GNT_LOCK_BGL, def->bgl);
	if (lu_class->declare_locks != NULL)
		lu_class->declare_locks(lu, locks);
	return locks;
}

typedef enum {
	OP_DONE,     /* success or error: the job goes on or ends normally */
	OP_CANCELED, /* canceled while waiting for locks */
	OP_ABANDONED /* the master is stopping: leave the job as it is */
} OpOutcome;

/* A unit that failed without saying why is a bug in the unit: the job
 * still fails cleanly, the master stays up. */
static void
queue_ensure_error(GError **error, const GntLu *lu, const gchar *phase)
{
	if (*error != NULL)
		return;
	g_warning("job %" G_GUINT64_FORMAT ": the unit's %s failed without an error",
		  gnt_job_get_id(lu->job), phase);
	g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
		    "internal error in %s (see the master's log)", phase);
}

/* Worker: opcode @i ended; after a failure the later ones fail too. */
static void
queue_end_op(GntQueue *self, QueueEntry *entry, guint i, JsonNode *result, gboolean failed)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	gnt_job_finish_op(entry->job, i, failed ? GNT_JOB_STATUS_ERROR : GNT_JOB_STATUS_SUCCESS,
			  result);
	if (failed && i + 1 < gnt_job_get_n_ops(entry->job)) {
		g_autoptr(JsonNode) preceding =
			encode_exception("OpExecError", "Preceding opcode failed", NULL);
		gnt_job_finish_ops(entry->job, i + 1, GNT_JOB_STATUS_ERROR, preceding);
	}
}

/* Worker: what a unit kept goes when its opcode ends. */
static void
queue_lu_clear(GntLu *lu)
{
	gnt_lu_set_data(lu, NULL, NULL);
	gnt_lu_set_opcode(lu, NULL);
}

/* The unit that runs @op_id; NULL if the queue was given none. */
static const GntLuClass *
queue_unit_lookup(GntQueue *self, const gchar *op_id)
{
	for (const GntLuUnit *u = self->units; u != NULL && u->op_id != NULL; u++) {
		if (g_strcmp0(u->op_id, op_id) == 0)
			return u->lu;
	}
	return NULL;
}

/* Worker: runs opcode @i of the job through its logical unit. */
static OpOutcome
queue_run_op(GntQueue *self, QueueEntry *entry, guint i)
{
	GntJobOp *op = gnt_job_get_op(entry->job, i);
	const GntLuClass *lu_class = queue_unit_lookup(self, gnt_opcode_get_id(op->input));
	GntLu lu = {self, entry->job, i};
	g_autoptr(GntLockSet) locks = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) result = NULL;
	gpointer abort_data[2] = {entry, self};
	guint64 seq;

	gboolean resuming;

	g_mutex_lock(&self->mutex);
	op->start_usec = g_get_real_time();
	/* only a restart finds a recorded point (queue_load_job()) */
	resuming = op->resume != NULL;
	g_mutex_unlock(&self->mutex);

	if (resuming && (lu_class == NULL || lu_class->resume == NULL)) {
		result = encode_exception("OpExecError", MSG_MASTER_STOPPED, NULL);
		queue_end_op(self, entry, i, result, TRUE);
		return OP_DONE;
	}
	if (lu_class == NULL) {
		/* a table given without its units: fail the job, not the master */
		g_set_error(&error, GNT_ERROR, GNT_ERROR_FAULT, "no logical unit runs opcode '%s'",
			    gnt_opcode_get_id(op->input));
		result = encode_prereq_error(error);
		queue_end_op(self, entry, i, result, TRUE);
		return OP_DONE;
	}
	if (!resuming && lu_class->check_args != NULL && !lu_class->check_args(&lu, &error)) {
		queue_ensure_error(&error, &lu, "argument check");
		result = encode_prereq_error(error);
		queue_lu_clear(&lu);
		queue_end_op(self, entry, i, result, TRUE);
		return OP_DONE;
	}
	locks = queue_declare_locks(&lu, lu_class);
	if (!gnt_lock_manager_try_acquire(self->locks, locks)) {
		g_mutex_lock(&self->mutex);
		op->status = GNT_JOB_STATUS_WAITING;
		queue_push_job_locked(self, entry->job);
		g_mutex_unlock(&self->mutex);
		if (!gnt_lock_manager_acquire(self->locks, locks, queue_lock_abort, abort_data,
					      NULL)) {
			queue_lu_clear(&lu);
			return g_atomic_int_get(&entry->cancel) ? OP_CANCELED : OP_ABANDONED;
		}
	}

	/* the running state is durable before the unit touches anything, so
	 * a restart knows this opcode may have had effects; while the store
	 * cannot write, the unit waits (and a stop leaves the job queued) */
	g_mutex_lock(&self->mutex);
	if (g_atomic_int_get(&entry->cancel)) {
		/* canceled between taking the locks and starting: it never ran */
		g_mutex_unlock(&self->mutex);
		gnt_lock_manager_release(self->locks, locks);
		queue_lu_clear(&lu);
		return OP_CANCELED;
	}
	op->status = GNT_JOB_STATUS_RUNNING;
	op->exec_usec = g_get_real_time();
	seq = queue_push_job_locked(self, entry->job);
	g_mutex_unlock(&self->mutex);
	if (!gnt_opcode_get_def(op->input)->idempotent &&
	    !gnt_committer_wait(self->committer, seq, self->stop, &error)) {
		g_info("job %" G_GUINT64_FORMAT " left queued at the stop: %s",
		       gnt_job_get_id(entry->job), error->message);
		gnt_lock_manager_release(self->locks, locks);
		queue_lu_clear(&lu);
		return OP_ABANDONED;
	}
	if (resuming) {
		result = lu_class->resume(&lu, &error);
		if (result == NULL) {
			queue_ensure_error(&error, &lu, "resumption");
			result = encode_exception("OpExecError", error->message, NULL);
		}
	} else if (lu_class->check_prereq != NULL && !lu_class->check_prereq(&lu, &error)) {
		queue_ensure_error(&error, &lu, "prerequisite check");
		result = encode_prereq_error(error);
	} else if (!gnt_opcode_get_flag(op->input, "dry_run")) {
		result = lu_class->exec(&lu, &error);
		if (result == NULL) {
			queue_ensure_error(&error, &lu, "execution");
			result = encode_exception("OpExecError", error->message, NULL);
		}
	}
	gnt_lock_manager_release(self->locks, locks);
	queue_lu_clear(&lu);
	queue_end_op(self, entry, i, result, error != NULL);
	return OP_DONE;
}

/* Worker thread: runs one job from its first unfinished opcode on. */
static void
queue_run_job(gpointer data, gpointer user_data)
{
	GntQueue *self = user_data;
	QueueEntry *entry = data;
	OpOutcome outcome = OP_DONE;

	g_mutex_lock(&self->mutex);
	gnt_job_set_start_usec(entry->job, g_get_real_time());
	g_mutex_unlock(&self->mutex);

	for (guint i = 0; i < gnt_job_get_n_ops(entry->job); i++) {
		gboolean finished;
		g_mutex_lock(&self->mutex);
		finished = gnt_job_status_is_finalized(gnt_job_get_op(entry->job, i)->status);
		g_mutex_unlock(&self->mutex);
		if (finished)
			continue;
		if (g_atomic_int_get(&entry->cancel)) {
			outcome = OP_CANCELED;
			break;
		}
		if (g_atomic_int_get(&self->stopping)) {
			outcome = OP_ABANDONED;
			break;
		}
		outcome = queue_run_op(self, entry, i);
		if (outcome != OP_DONE)
			break;
	}

	g_mutex_lock(&self->mutex);
	if (outcome == OP_CANCELED) {
		g_autoptr(JsonNode) result = gnt_json_node_new_string("Job canceled by request");
		gnt_job_finish_ops(entry->job, 0, GNT_JOB_STATUS_CANCELED, result);
	}
	if (outcome != OP_ABANDONED) {
		queue_finalize_job_locked(self, entry);
		g_ptr_array_add(self->finishing, entry);
	}
	self->n_running--;
	g_cond_broadcast(&self->stop_cond);
	queue_schedule_locked(self);
	g_mutex_unlock(&self->mutex);
}

/* ---- what logical units see ------------------------------------------ */

const GntOpcode *
gnt_lu_get_opcode(GntLu *self)
{
	if (self->opcode != NULL)
		return self->opcode;
	return gnt_job_get_op(self->job, self->op_index)->input;
}

void
gnt_lu_set_opcode(GntLu *self, GntOpcode *opcode)
{
	if (opcode != NULL)
		gnt_opcode_ref(opcode);
	g_clear_pointer(&self->opcode, gnt_opcode_unref);
	self->opcode = opcode;
}

GntLuEnv *
gnt_lu_get_env(GntLu *self)
{
	return self->queue->env;
}

void
gnt_lu_set_data(GntLu *self, gpointer data, GDestroyNotify free_func)
{
	if (self->data != NULL && self->data_free != NULL)
		self->data_free(self->data);
	self->data = data;
	self->data_free = free_func;
}

gpointer
gnt_lu_get_data(GntLu *self)
{
	return self->data;
}

guint64
gnt_lu_get_job_id(GntLu *self)
{
	return gnt_job_get_id(self->job);
}

void
gnt_lu_feedback(GntLu *self, const gchar *format, ...)
{
	g_autofree gchar *message = NULL;
	va_list args;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	g_mutex_lock(&self->queue->mutex);
	gnt_job_add_log(self->job, self->op_index, "message", message);
	queue_push_job_locked(self->queue, self->job);
	g_mutex_unlock(&self->queue->mutex);
}

/* A submission from a worker: made in the main loop, which owns the
 * queue's replies; the worker waits for its answer. Freed by the last of
 * the two. */
typedef struct {
	gint refs;
	GMutex mutex;
	GCond cond;
	GntQueue *queue;
	GPtrArray *jobs; /* until handed to the queue */
	gboolean done;
	GArray *ids;
	GError *error;
} LuSubmission;

static void
lu_submission_unref(gpointer data)
{
	LuSubmission *sub = data;

	if (!g_atomic_int_dec_and_test(&sub->refs))
		return;
	g_clear_pointer(&sub->jobs, g_ptr_array_unref);
	g_clear_pointer(&sub->ids, g_array_unref);
	g_clear_error(&sub->error);
	g_mutex_clear(&sub->mutex);
	g_cond_clear(&sub->cond);
	g_free(sub);
}

static void
lu_submission_done(GObject *source, GAsyncResult *res, gpointer user_data)
{
	LuSubmission *sub = user_data;
	GError *error = NULL;
	GArray *ids = gnt_queue_submit_finish(GNT_QUEUE(source), res, &error);

	g_mutex_lock(&sub->mutex);
	sub->ids = ids;
	sub->error = error;
	sub->done = TRUE;
	g_cond_signal(&sub->cond);
	g_mutex_unlock(&sub->mutex);
	lu_submission_unref(sub);
}

static gboolean
lu_submission_start(gpointer user_data)
{
	LuSubmission *sub = user_data;

	g_atomic_int_inc(&sub->refs); /* for lu_submission_done */
	gnt_queue_submit_async(sub->queue, g_steal_pointer(&sub->jobs), FALSE, lu_submission_done,
			       sub);
	return G_SOURCE_REMOVE;
}

JsonArray *
gnt_lu_submit_jobs(GntLu *self, GPtrArray *jobs)
{
	LuSubmission *sub = g_new0(LuSubmission, 1);
	JsonArray *result = json_array_new();
	guint n_jobs = jobs->len;

	sub->refs = 2; /* this thread, and the main loop's source */
	g_mutex_init(&sub->mutex);
	g_cond_init(&sub->cond);
	sub->queue = self->queue;
	sub->jobs = jobs;
	g_main_context_invoke_full(self->queue->context, G_PRIORITY_DEFAULT, lu_submission_start,
				   sub, lu_submission_unref);
	g_mutex_lock(&sub->mutex);
	/* a stopping master no longer runs its main loop: give up then */
	while (!sub->done && !g_atomic_int_get(&self->queue->stopping))
		g_cond_wait_until(&sub->cond, &sub->mutex,
				  g_get_monotonic_time() + G_USEC_PER_SEC / 10);
	for (guint i = 0; i < n_jobs; i++) {
		JsonArray *entry = json_array_new();

		if (sub->done && sub->error == NULL) {
			json_array_add_boolean_element(entry, TRUE);
			json_array_add_int_element(entry,
						   (gint64)g_array_index(sub->ids, guint64, i));
		} else {
			json_array_add_boolean_element(entry, FALSE);
			json_array_add_string_element(entry, sub->error != NULL
								     ? sub->error->message
								     : MSG_MASTER_STOPPED);
		}
		json_array_add_array_element(result, entry);
	}
	g_mutex_unlock(&sub->mutex);
	lu_submission_unref(sub);
	return result;
}

gboolean
gnt_lu_set_resume(GntLu *self, JsonObject *resume)
{
	GntQueue *queue = self->queue;
	GntJobOp *op = gnt_job_get_op(self->job, self->op_index);
	guint64 seq;

	g_mutex_lock(&queue->mutex);
	g_clear_pointer(&op->resume, json_object_unref);
	if (resume != NULL)
		op->resume = gnt_json_object_deep_copy(resume);
	seq = queue_push_job_locked(queue, self->job);
	g_mutex_unlock(&queue->mutex);
	return gnt_committer_wait(queue->committer, seq, queue->stop, NULL);
}

JsonObject *
gnt_lu_get_resume(GntLu *self)
{
	return gnt_job_get_op(self->job, self->op_index)->resume;
}

/* The pool may run max_running workers besides the released ones'
 * threads, which are still in it. Called with the mutex held. */
static void
queue_resize_pool_locked(GntQueue *self)
{
	if (self->pool != NULL)
		g_thread_pool_set_max_threads(self->pool,
					      (gint)(self->max_running + self->n_released), NULL);
}

void
gnt_lu_release_worker(GntLu *self)
{
	GntQueue *queue = self->queue;
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&queue->mutex);

	queue->n_running--;
	queue->n_released++;
	queue_resize_pool_locked(queue);
	g_cond_broadcast(&queue->stop_cond);
	queue_schedule_locked(queue);
}

void
gnt_lu_reclaim_worker(GntLu *self)
{
	GntQueue *queue = self->queue;
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&queue->mutex);

	while (queue->n_running >= queue->max_running && !g_atomic_int_get(&queue->stopping))
		g_cond_wait(&queue->stop_cond, &queue->mutex);
	queue->n_released--;
	queue->n_running++;
	queue_resize_pool_locked(queue);
}

gboolean
gnt_lu_sleep(GntLu *self, gdouble seconds)
{
	GntQueue *queue = self->queue;
	gint64 deadline = g_get_monotonic_time() + (gint64)(seconds * G_USEC_PER_SEC);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&queue->mutex);

	while (!g_atomic_int_get(&queue->stopping)) {
		if (!g_cond_wait_until(&queue->stop_cond, &queue->mutex, deadline))
			return TRUE;
	}
	return FALSE;
}

/* ---- construction and loading ------------------------------------------- */

static void
queue_entry_free(QueueEntry *entry)
{
	g_object_unref(entry->job);
	g_free(entry);
}

static QueueEntry *
queue_entry_new(GntJob *job)
{
	QueueEntry *entry = g_new0(QueueEntry, 1);

	entry->job = job;
	return entry;
}

/* A running job whose running opcode recorded where to go on
 * (gnt_lu_set_resume()) runs again from there: TRUE. */
static gboolean
queue_resume_job(GntJob *job)
{
	for (guint i = 0; i < gnt_job_get_n_ops(job); i++) {
		GntJobOp *op = gnt_job_get_op(job, i);

		if (op->status != GNT_JOB_STATUS_RUNNING)
			continue;
		if (op->resume == NULL)
			return FALSE;
		op->status = GNT_JOB_STATUS_QUEUED;
		gnt_job_add_log(job, i, "message",
				"the master restarted while the job waited on a node: it goes on "
				"from there");
		g_message("job %" G_GUINT64_FORMAT ": resumed after the master's restart",
			  gnt_job_get_id(job));
		return TRUE;
	}
	return FALSE;
}

/* A job found unfinished at start-up: it runs again, or it ends now. */
static gboolean
queue_load_job(JsonObject *record, JsonArray *private_values, gpointer user_data, GError **error)
{
	GntQueue *self = user_data;
	g_autoptr(GntJob) job = gnt_job_new_from_store(record, private_values, error);
	QueueEntry *entry;
	GntJobStatus status;
	guint64 id;

	if (job == NULL)
		return FALSE;
	id = gnt_job_get_id(job);
	status = gnt_job_get_status(job);
	entry = queue_entry_new(g_steal_pointer(&job));
	entry->accepted = TRUE;
	g_hash_table_insert(self->unfinished, g_memdup2(&id, sizeof(id)), entry);

	if (gnt_job_lost_secrets(entry->job)) {
		g_autoptr(JsonNode)
			result = encode_exception("OpPrereqError", MSG_SECRETS_LOST, "wrong_input");
		gnt_job_finish_ops(entry->job, 0, GNT_JOB_STATUS_ERROR, result);
		g_message("job %" G_GUINT64_FORMAT ": %s", id, MSG_SECRETS_LOST);
	} else if (status == GNT_JOB_STATUS_RUNNING && queue_resume_job(entry->job)) {
		return TRUE;
	} else if (status == GNT_JOB_STATUS_RUNNING) {
		g_autoptr(JsonNode)
			result = encode_exception("OpExecError", MSG_MASTER_STOPPED, NULL);
		gnt_job_finish_ops(entry->job, 0, GNT_JOB_STATUS_ERROR, result);
		g_message("job %" G_GUINT64_FORMAT ": %s", id, MSG_MASTER_STOPPED);
	} else if (status == GNT_JOB_STATUS_CANCELING) {
		g_autoptr(JsonNode) result = gnt_json_node_new_string("Job canceled by request");
		gnt_job_finish_ops(entry->job, 0, GNT_JOB_STATUS_CANCELED, result);
	} else {
		/* queued or waiting: nothing ran yet, it simply runs again */
		for (guint i = 0; i < gnt_job_get_n_ops(entry->job); i++) {
			GntJobOp *op = gnt_job_get_op(entry->job, i);
			if (op->status == GNT_JOB_STATUS_WAITING)
				op->status = GNT_JOB_STATUS_QUEUED;
		}
		return TRUE;
	}
	queue_finalize_job_locked(self, entry);
	g_ptr_array_add(self->finishing, entry);
	return TRUE;
}

static void
gnt_queue_finalize(GObject *object)
{
	GntQueue *self = GNT_QUEUE(object);

	gnt_queue_set_auto_archive(self, 0);
	g_clear_pointer(&self->committer, gnt_committer_free);
	g_clear_pointer(&self->locks, gnt_lock_manager_free);
	g_clear_object(&self->store);
	g_hash_table_unref(self->unfinished);
	g_sequence_free(self->runnable);
	g_array_unref(self->changed_ids);
	g_array_unref(self->failed);
	g_object_unref(self->stop);
	g_queue_free(self->replies);
	g_ptr_array_unref(self->dep_waiting);
	g_ptr_array_unref(self->finishing);
	g_hash_table_unref(self->watches);
	g_hash_table_unref(self->watch_jobs);
	g_main_context_unref(self->context);
	g_cond_clear(&self->stop_cond);
	g_mutex_clear(&self->mutex);
	G_OBJECT_CLASS(gnt_queue_parent_class)->finalize(object);
}

static void
gnt_queue_class_init(GntQueueClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = gnt_queue_finalize;
}

static void
gnt_queue_init(GntQueue *self)
{
	g_mutex_init(&self->mutex);
	g_cond_init(&self->stop_cond);
	self->context = g_main_context_ref_thread_default();
	self->unfinished = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
						 (GDestroyNotify)queue_entry_free);
	self->runnable = g_sequence_new(NULL);
	self->changed_ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	self->failed = queue_failed_new();
	self->stop = g_cancellable_new();
	self->replies = g_queue_new();
	self->dep_waiting = g_ptr_array_new();
	self->finishing = g_ptr_array_new();
	self->watches = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
					      (GDestroyNotify)g_ptr_array_unref);
	self->watch_jobs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	self->max_running = GNT_QUEUE_DEFAULT_MAX_RUNNING;
	self->locks = gnt_lock_manager_new();
}

GntQueue *
gnt_queue_new(const gchar *queue_db_path, GntLuEnv *env, GError **error)
{
	g_autoptr(GntQueue) self = g_object_new(GNT_TYPE_QUEUE, NULL);
	gboolean ok;

	self->env = env;
	self->store = gnt_sqlite_job_store_new(queue_db_path, error);
	if (self->store == NULL)
		return NULL;
	self->committer = gnt_committer_new(self->store, queue_commit_done, self);
	g_mutex_lock(&self->mutex);
	ok = gnt_job_store_load(self->store, &self->last_id, &self->drained, queue_load_job, self,
				error);
	g_mutex_unlock(&self->mutex);
	if (!ok) {
		g_prefix_error(error, "loading '%s': ", queue_db_path);
		return NULL;
	}
	/* the jobs that ended at load are durably ended before anyone asks;
	 * if the store cannot write, they are once it can, and the queue
	 * serves meanwhile (refusing new jobs, saying why) */
	if (self->last_seq > 0) {
		g_autoptr(GCancellable) first_try = g_cancellable_new();
		g_autoptr(GError) local = NULL;

		g_cancellable_cancel(first_try);
		if (!gnt_committer_wait(self->committer, self->last_seq, first_try, &local))
			g_info("jobs ended at load are not written yet: %s", local->message);
	}
	g_info("job queue loaded: %u unfinished jobs, last job ID %" G_GUINT64_FORMAT,
	       g_hash_table_size(self->unfinished), self->last_id);
	return g_steal_pointer(&self);
}

void
gnt_queue_set_units(GntQueue *self, const GntLuUnit *units)
{
	g_return_if_fail(GNT_IS_QUEUE(self));
	self->units = units;
}

void
gnt_queue_set_max_running(GntQueue *self, guint max_running)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	self->max_running = MAX(max_running, 1);
	queue_resize_pool_locked(self);
	g_cond_broadcast(&self->stop_cond);
	queue_schedule_locked(self);
}

void
gnt_queue_start(GntQueue *self)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);
	GHashTableIter iter;
	QueueEntry *entry;
	g_autoptr(GPtrArray) waiting = g_ptr_array_new();

	g_return_if_fail(!self->started);
	self->pool = g_thread_pool_new(queue_run_job, self, (gint)self->max_running, FALSE, NULL);
	self->started = TRUE;
	g_hash_table_iter_init(&iter, self->unfinished);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&entry)) {
		/* the loaded ones; a submission placed itself once durable */
		if (entry->accepted && !entry->dep_waiting &&
		    !gnt_job_status_is_finalized(gnt_job_get_status(entry->job)) &&
		    g_sequence_lookup(self->runnable, entry, runnable_cmp, NULL) == NULL)
			g_ptr_array_add(waiting, entry);
	}
	for (guint i = 0; i < waiting->len; i++)
		queue_place_job_locked(self, g_ptr_array_index(waiting, i));
	queue_schedule_locked(self);
}

void
gnt_queue_shutdown(GntQueue *self, guint grace_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)grace_ms * 1000;
	gboolean idle;

	g_mutex_lock(&self->mutex);
	g_atomic_int_set(&self->stopping, TRUE);
	g_cond_broadcast(&self->stop_cond);
	g_mutex_unlock(&self->mutex);
	gnt_lock_manager_wake(self->locks);
	g_cancellable_cancel(self->stop);

	g_mutex_lock(&self->mutex);
	while (self->n_running + self->n_released > 0) {
		if (!g_cond_wait_until(&self->stop_cond, &self->mutex, deadline))
			break;
	}
	idle = self->n_running + self->n_released == 0;
	g_mutex_unlock(&self->mutex);
	if (!idle) {
		/* a unit that ignores the stop: its job fails at the next start.
		 * Its worker still uses the queue, which must outlive the
		 * caller's reference: the process is about to exit anyway. */
		g_warning("%u jobs still running at shutdown", self->n_running + self->n_released);
		g_object_ref(self);
		return;
	}
	if (self->pool != NULL) {
		g_thread_pool_free(self->pool, TRUE, TRUE);
		self->pool = NULL;
	}
	/* flushes what the last jobs wrote */
	g_clear_pointer(&self->committer, gnt_committer_free);
}

/* ---- submission ------------------------------------------------------------ */

static gchar *
reason_source_for(const gchar *op_id)
{
	g_autofree gchar *lower = g_ascii_strdown(op_id + strlen("OP_"), -1);

	return g_strconcat("gnt:opcode:", lower, NULL);
}

static void
garray_unref(gpointer data)
{
	g_array_unref(data);
}

/* Main loop: submitted jobs are durable (acknowledged next), so they may
 * run; if the commit failed they were never accepted. */
static void
queue_submitted_durable(GntQueue *self, gpointer result, gboolean failed)
{
	GArray *ids = result;
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	for (guint i = 0; i < ids->len; i++) {
		guint64 id = g_array_index(ids, guint64, i);
		QueueEntry *entry = g_hash_table_lookup(self->unfinished, &id);
		if (entry == NULL)
			continue;
		if (failed) {
			g_hash_table_remove(self->unfinished, &id);
		} else {
			entry->accepted = TRUE;
			queue_place_job_locked(self, entry);
		}
	}
	queue_schedule_locked(self);
}

void
gnt_queue_submit_async(GntQueue *self, GPtrArray *jobs, gboolean ignore_drain,
		       GAsyncReadyCallback callback, gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(self, NULL, callback, user_data);
	G_GNUC_UNUSED g_autoptr(GPtrArray) owned = jobs; /* frees @jobs on every return */
	g_autoptr(GArray) ids = g_array_sized_new(FALSE, FALSE, sizeof(guint64), jobs->len);
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) changes = NULL;
	gint64 now = g_get_real_time();
	guint64 first_id, seq;

	g_mutex_lock(&self->mutex);
	if (self->drained && !ignore_drain) {
		g_mutex_unlock(&self->mutex);
		g_task_return_new_error(task, GNT_ERROR, GNT_ERROR_WRONG_STATE, "Queue drained");
		return;
	}
	first_id = self->last_id + 1;
	/* check everything before anything is queued */
	for (guint j = 0; j < jobs->len && error == NULL; j++) {
		GPtrArray *ops = g_ptr_array_index(jobs, j);
		if (ops->len == 0)
			g_set_error(&error, GNT_ERROR, GNT_ERROR_INVALID, "job %u has no opcodes",
				    j);
		for (guint i = 0; i < ops->len && error == NULL; i++) {
			GntOpcode *op = g_ptr_array_index(ops, i);
			g_autofree gchar *source = reason_source_for(gnt_opcode_get_id(op));
			g_autofree gchar *text = g_strdup_printf(
				"job=%" G_GUINT64_FORMAT ";index=%u", first_id + j, i);
			if (gnt_opcode_resolve_depends(op, first_id + j, &error))
				gnt_opcode_add_reason(op, source, text, now * 1000);
		}
	}
	/* a store that cannot write would only lose them: say why at once */
	if (error == NULL && !gnt_committer_check_writing(self->committer, &error))
		g_prefix_error(&error, SUBMIT_FAILED);
	if (error != NULL) {
		g_mutex_unlock(&self->mutex);
		g_task_return_error(task, g_steal_pointer(&error));
		return;
	}
	changes = g_ptr_array_new_full(jobs->len, (GDestroyNotify)gnt_job_store_change_free);
	for (guint j = 0; j < jobs->len; j++) {
		guint64 id = first_id + j;
		GntJob *job = gnt_job_new(id, g_ptr_array_ref(g_ptr_array_index(jobs, j)), now);
		QueueEntry *entry = queue_entry_new(job);
		g_ptr_array_add(changes, queue_job_change_locked(job));
		/* known to the scheduler at once; placed when durable */
		g_hash_table_insert(self->unfinished, g_memdup2(&id, sizeof(id)), entry);
		g_array_append_val(ids, id);
	}
	/* the IDs stay used even if the jobs are dropped: the last ID is an
	 * ordinary change, written before the jobs or with them. The jobs go
	 * in one transaction, or not at all: acknowledged means all durable. */
	self->last_id = first_id + jobs->len - 1;
	queue_push_simple_locked(self, GNT_JOB_STORE_SET_LAST_ID, self->last_id);
	seq = gnt_committer_push_tentative(self->committer, g_steal_pointer(&changes));
	self->last_seq = seq;
	g_mutex_unlock(&self->mutex);
	queue_reply_when_durable(self, seq, SUBMIT_FAILED, g_steal_pointer(&task),
				 g_steal_pointer(&ids), garray_unref, queue_submitted_durable);
}

GArray *
gnt_queue_submit_finish(GntQueue *self, GAsyncResult *res, GError **error)
{
	g_return_val_if_fail(g_task_is_valid(res, self), NULL);
	return g_task_propagate_pointer(G_TASK(res), error);
}

/* ---- cancel, archive, drain ------------------------------------------------ */

typedef struct {
	gboolean success;
	gchar *message;
} CancelResult;

static void
cancel_result_free(gpointer data)
{
	CancelResult *res = data;

	g_free(res->message);
	g_free(res);
}

/* Ganeti's answers: "Job N canceled", "Job N not found", ... */
static CancelResult *
cancel_result_new(gboolean success, guint64 id, const gchar *what)
{
	CancelResult *res = g_new0(CancelResult, 1);

	res->success = success;
	res->message = g_strdup_printf("Job %" G_GUINT64_FORMAT " %s", id, what);
	return res;
}

/* Main loop; mutex held. Removes a job that no worker has taken from the
 * scheduler's lists. */
static void
queue_unschedule_locked(GntQueue *self, QueueEntry *entry)
{
	GSequenceIter *iter = g_sequence_lookup(self->runnable, entry, runnable_cmp, NULL);

	if (iter != NULL)
		g_sequence_remove(iter);
	if (entry->dep_waiting) {
		g_ptr_array_remove_fast(self->dep_waiting, entry);
		entry->dep_waiting = FALSE;
	}
}

void
gnt_queue_cancel_async(GntQueue *self, guint64 job_id, GAsyncReadyCallback callback,
		       gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(self, NULL, callback, user_data);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);
	QueueEntry *entry = g_hash_table_lookup(self->unfinished, &job_id);
	GntJobStatus status;
	guint64 seq;

	if (entry != NULL && !entry->accepted) {
		/* its submission is not durable (and may never be): no job yet */
		g_task_return_pointer(task, cancel_result_new(FALSE, job_id, "not found"),
				      cancel_result_free);
		return;
	}
	if (entry == NULL || entry->final_seq != 0) {
		GntJobStatus stored;
		g_autoptr(GError) error = NULL;
		gboolean found = entry != NULL ||
				 gnt_job_store_lookup_status(self->store, job_id, &stored, &error);
		g_task_return_pointer(
			task, cancel_result_new(FALSE, job_id, found ? "is finished" : "not found"),
			cancel_result_free);
		return;
	}
	status = gnt_job_get_status(entry->job);
	if (!entry->taken) {
		g_autoptr(JsonNode) result = gnt_json_node_new_string("Job canceled by request");
		queue_unschedule_locked(self, entry);
		gnt_job_finish_ops(entry->job, 0, GNT_JOB_STATUS_CANCELED, result);
		queue_finalize_job_locked(self, entry);
		g_ptr_array_add(self->finishing, entry);
		seq = entry->final_seq;
		g_clear_pointer(&locker, g_mutex_locker_free);
		queue_reply_when_durable(self, seq, CHANGE_FAILED, g_steal_pointer(&task),
					 cancel_result_new(TRUE, job_id, "canceled"),
					 cancel_result_free, NULL);
		return;
	}
	if (status != GNT_JOB_STATUS_QUEUED && status != GNT_JOB_STATUS_WAITING) {
		g_task_return_pointer(
			task, cancel_result_new(FALSE, job_id, "is no longer waiting in the queue"),
			cancel_result_free);
		return;
	}
	/* a worker holds it, waiting for locks: it ends the job itself */
	g_atomic_int_set(&entry->cancel, TRUE);
	for (guint i = 0; i < gnt_job_get_n_ops(entry->job); i++) {
		GntJobOp *op = gnt_job_get_op(entry->job, i);
		if (!gnt_job_status_is_finalized(op->status))
			op->status = GNT_JOB_STATUS_CANCELING;
	}
	seq = queue_push_job_locked(self, entry->job);
	g_clear_pointer(&locker, g_mutex_locker_free);
	gnt_lock_manager_wake(self->locks);
	queue_reply_when_durable(self, seq, CHANGE_FAILED, g_steal_pointer(&task),
				 cancel_result_new(TRUE, job_id, "will be canceled"),
				 cancel_result_free, NULL);
}

gboolean
gnt_queue_cancel_finish(GntQueue *self, GAsyncResult *res, gboolean *success, gchar **message,
			GError **error)
{
	CancelResult *result;

	g_return_val_if_fail(g_task_is_valid(res, self), FALSE);
	result = g_task_propagate_pointer(G_TASK(res), error);
	if (result == NULL)
		return FALSE;
	*success = result->success;
	*message = g_steal_pointer(&result->message);
	cancel_result_free(result);
	return TRUE;
}

static gboolean *
bool_box(gboolean value)
{
	gboolean *box = g_new(gboolean, 1);

	*box = value;
	return box;
}

void
gnt_queue_archive_async(GntQueue *self, guint64 job_id, GAsyncReadyCallback callback,
			gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(self, NULL, callback, user_data);
	GntJobStatus status;
	gboolean archived = FALSE;
	g_autoptr(JsonObject) record = NULL;
	g_autoptr(GError) error = NULL;
	guint64 seq;

	if (!gnt_committer_check_writing(self->committer, &error)) {
		g_prefix_error(&error, "job not archived: ");
		g_task_return_error(task, g_steal_pointer(&error));
		return;
	}
	/* only what is durably finished and still live can move */
	record = gnt_job_store_lookup(self->store, job_id, &archived, NULL);
	if (record == NULL || archived ||
	    !gnt_job_store_lookup_status(self->store, job_id, &status, NULL) ||
	    !gnt_job_status_is_finalized(status)) {
		g_task_return_pointer(task, bool_box(FALSE), g_free);
		return;
	}
	g_mutex_lock(&self->mutex);
	seq = queue_push_simple_locked(self, GNT_JOB_STORE_ARCHIVE, job_id);
	g_mutex_unlock(&self->mutex);
	queue_reply_when_durable(self, seq, CHANGE_FAILED, g_steal_pointer(&task), bool_box(TRUE),
				 g_free, NULL);
}

gboolean
gnt_queue_archive_finish(GntQueue *self, GAsyncResult *res, gboolean *archived, GError **error)
{
	g_autofree gboolean *box = NULL;

	g_return_val_if_fail(g_task_is_valid(res, self), FALSE);
	box = g_task_propagate_pointer(G_TASK(res), error);
	if (box == NULL)
		return FALSE;
	*archived = *box;
	return TRUE;
}

typedef struct {
	guint archived;
	guint left;
} AutoArchiveResult;

void
gnt_queue_auto_archive_async(GntQueue *self, gint64 age_s, gint64 timeout_s,
			     GAsyncReadyCallback callback, gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(self, NULL, callback, user_data);
	g_autoptr(GError) error = NULL;
	g_autoptr(GArray) ids = NULL;
	gint64 before = age_s < 0 ? G_MAXINT64 : g_get_real_time() - age_s * G_USEC_PER_SEC;
	gint64 deadline = g_get_monotonic_time() + MAX(timeout_s, 1) * G_USEC_PER_SEC;
	AutoArchiveResult *result = g_new0(AutoArchiveResult, 1);
	guint64 seq = 0;

	if (gnt_committer_check_writing(self->committer, &error))
		ids = gnt_job_store_list_finished(self->store, before, G_MAXUINT, &error);
	else
		g_prefix_error(&error, "no job archived: ");
	if (ids == NULL) {
		g_free(result);
		g_task_return_error(task, g_steal_pointer(&error));
		return;
	}
	g_mutex_lock(&self->mutex);
	for (guint i = 0; i < ids->len; i++) {
		if (g_get_monotonic_time() > deadline) {
			result->left = ids->len - i;
			break;
		}
		seq = queue_push_simple_locked(self, GNT_JOB_STORE_ARCHIVE,
					       g_array_index(ids, guint64, i));
		result->archived++;
	}
	g_mutex_unlock(&self->mutex);
	if (seq == 0)
		g_task_return_pointer(task, result, g_free);
	else
		queue_reply_when_durable(self, seq, CHANGE_FAILED, g_steal_pointer(&task), result,
					 g_free, NULL);
}

gboolean
gnt_queue_auto_archive_finish(GntQueue *self, GAsyncResult *res, guint *archived, guint *left,
			      GError **error)
{
	g_autofree AutoArchiveResult *result = NULL;

	g_return_val_if_fail(g_task_is_valid(res, self), FALSE);
	result = g_task_propagate_pointer(G_TASK(res), error);
	if (result == NULL)
		return FALSE;
	*archived = result->archived;
	*left = result->left;
	return TRUE;
}

static void
auto_archive_done_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	guint archived = 0, left = 0;

	if (!gnt_queue_auto_archive_finish(GNT_QUEUE(source), res, &archived, &left, &error))
		g_warning("auto-archiving jobs: %s", error->message);
	else if (archived > 0)
		g_info("auto-archived %u jobs, %u left for the next pass", archived, left);
}

static gboolean
auto_archive_cb(gpointer user_data)
{
	GntQueue *self = user_data;

	gnt_queue_auto_archive_async(self, self->auto_archive_age_s, AUTO_ARCHIVE_BUDGET_S,
				     auto_archive_done_cb, NULL);
	return G_SOURCE_CONTINUE;
}

void
gnt_queue_set_auto_archive(GntQueue *self, guint age_s)
{
	if (self->auto_archive_source != NULL) {
		g_source_destroy(self->auto_archive_source);
		g_clear_pointer(&self->auto_archive_source, g_source_unref);
	}
	self->auto_archive_age_s = age_s;
	if (age_s == 0)
		return;
	self->auto_archive_source =
		g_timeout_source_new_seconds(MIN(age_s, AUTO_ARCHIVE_INTERVAL_S));
	g_source_set_callback(self->auto_archive_source, auto_archive_cb, self, NULL);
	g_source_attach(self->auto_archive_source, self->context);
}

gboolean
gnt_queue_set_drained(GntQueue *self, gboolean drained, GError **error)
{
	GPtrArray *change = g_ptr_array_new();
	gboolean was;
	guint64 seq;

	if (!gnt_committer_check_writing(self->committer, error))
		return FALSE;
	/* tentative: the flag is written, or stays as it was */
	g_ptr_array_add(change, gnt_job_store_change_new(GNT_JOB_STORE_SET_DRAINED, drained));
	g_mutex_lock(&self->mutex);
	was = self->drained;
	self->drained = drained;
	seq = gnt_committer_push_tentative(self->committer, change);
	g_mutex_unlock(&self->mutex);
	if (gnt_committer_wait(self->committer, seq, NULL, error))
		return TRUE;
	g_mutex_lock(&self->mutex);
	self->drained = was;
	g_mutex_unlock(&self->mutex);
	return FALSE;
}

gboolean
gnt_queue_get_drained(GntQueue *self)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	return self->drained;
}

/* ---- reading ---------------------------------------------------------------- */

JsonObject *
gnt_queue_lookup_job(GntQueue *self, guint64 job_id, gboolean *archived, GError **error)
{
	return gnt_job_store_lookup(self->store, job_id, archived, error);
}

static gboolean
queue_foreach_cb(JsonObject *record, gboolean archived, gpointer user_data)
{
	gpointer *data = user_data;
	GntQueueJobFunc func = (GntQueueJobFunc)data[0];

	if (func(record, archived, data[1]))
		return TRUE;
	*(gboolean *)data[2] = TRUE;
	return FALSE;
}

gboolean
gnt_queue_foreach_job(GntQueue *self, gboolean include_archived, GntQueueJobFunc func,
		      gpointer user_data, GError **error)
{
	gboolean stopped = FALSE;
	gpointer data[3] = {func, user_data, &stopped};

	if (!gnt_job_store_foreach(self->store, FALSE, queue_foreach_cb, data, error))
		return FALSE;
	if (include_archived && !stopped)
		return gnt_job_store_foreach(self->store, TRUE, queue_foreach_cb, data, error);
	return TRUE;
}

guint
gnt_queue_watch_job(GntQueue *self, guint64 job_id, GntQueueWatchFunc func, gpointer user_data)
{
	Watch *w = g_new0(Watch, 1);
	GPtrArray *list = g_hash_table_lookup(self->watches, &job_id);

	w->id = ++self->next_watch_id;
	w->job_id = job_id;
	w->func = func;
	w->user_data = user_data;
	if (list == NULL) {
		list = g_ptr_array_new();
		g_hash_table_insert(self->watches, g_memdup2(&job_id, sizeof(job_id)), list);
	}
	g_ptr_array_add(list, w);
	g_hash_table_insert(self->watch_jobs, GUINT_TO_POINTER(w->id), w);
	return w->id;
}

void
gnt_queue_unwatch_job(GntQueue *self, guint watch_id)
{
	Watch *w = g_hash_table_lookup(self->watch_jobs, GUINT_TO_POINTER(watch_id));
	GPtrArray *list;

	g_return_if_fail(w != NULL);
	list = g_hash_table_lookup(self->watches, &w->job_id);
	g_ptr_array_remove_fast(list, w);
	if (list->len == 0)
		g_hash_table_remove(self->watches, &w->job_id);
	g_hash_table_remove(self->watch_jobs, GUINT_TO_POINTER(watch_id)); /* frees w */
}

guint
gnt_queue_get_n_unfinished(GntQueue *self)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	return g_hash_table_size(self->unfinished);
}

gboolean
gnt_job_id_from_json(JsonNode *node, guint64 *job_id, GError **error)
{
	guint64 id = 0;

	if (gnt_json_node_is_int(node) && json_node_get_int(node) >= 0) {
		*job_id = (guint64)json_node_get_int(node);
		return TRUE;
	}
	if (node != NULL && JSON_NODE_HOLDS_VALUE(node) &&
	    json_node_get_value_type(node) == G_TYPE_STRING &&
	    g_ascii_string_to_unsigned(json_node_get_string(node), 10, 0, G_MAXINT64, &id, NULL)) {
		*job_id = id;
		return TRUE;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "a job ID must be a non-negative integer or a decimal string, not %s",
		    gnt_json_node_type_name(node));
	return FALSE;
}
