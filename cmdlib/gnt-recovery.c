#include "gnt-recovery.h"

#include "gnt-job-query.h"
#include "gnt-job-status.h"
#include "gnt-json.h"
#include "gnt-opcode.h"

/* The record's member: {"op": "create"|"remove", "job": N} */
#define MARK_MEMBER "half_done"

static const gchar *const op_names[] = {
	[GNT_RECOVERY_CREATE] = "create",
	[GNT_RECOVERY_REMOVE] = "remove",
};
static const gchar *const op_participles[] = {
	[GNT_RECOVERY_CREATE] = "created",
	[GNT_RECOVERY_REMOVE] = "removed",
};
G_STATIC_ASSERT(G_N_ELEMENTS(op_names) == GNT_RECOVERY_REMOVE + 1);
G_STATIC_ASSERT(G_N_ELEMENTS(op_participles) == GNT_RECOVERY_REMOVE + 1);

void
gnt_recovery_mark(JsonObject *record, GntRecoveryOp op, guint64 job_id)
{
	JsonObject *mark = json_object_new();

	json_object_set_string_member(mark, "op", op_names[op]);
	json_object_set_int_member(mark, "job", (gint64)job_id);
	json_object_set_object_member(record, MARK_MEMBER, mark);
}

void
gnt_recovery_unmark(JsonObject *record)
{
	json_object_remove_member(record, MARK_MEMBER);
}

gboolean
gnt_recovery_get_mark(JsonObject *record, GntRecoveryOp *op, guint64 *job_id)
{
	JsonObject *mark = gnt_json_peek_object(record, MARK_MEMBER);
	const gchar *name = NULL;
	gint64 job = 0;

	if (mark == NULL || !gnt_json_get_string(mark, "op", &name, NULL) ||
	    !gnt_json_get_int(mark, "job", &job, NULL))
		return FALSE;
	for (guint i = 0; i < G_N_ELEMENTS(op_names); i++) {
		if (g_strcmp0(name, op_names[i]) == 0) {
			*op = (GntRecoveryOp)i;
			*job_id = (guint64)job;
			return TRUE;
		}
	}
	return FALSE;
}

const gchar *
gnt_recovery_op_to_participle(GntRecoveryOp op)
{
	g_return_val_if_fail(op <= GNT_RECOVERY_REMOVE, "changed");
	return op_participles[op];
}

struct _GntRecovery {
	GntQueue *queue;
	GntConfig *config;
	/* instance name -> (guint64 *) the removal job's ID; 0 while it is
	 * being submitted. Shared with the submissions in flight. */
	GHashTable *removals;
};

GntRecovery *
gnt_recovery_new(GntQueue *queue, GntConfig *config)
{
	GntRecovery *self = g_new0(GntRecovery, 1);

	self->queue = g_object_ref(queue);
	self->config = g_object_ref(config);
	self->removals = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return self;
}

void
gnt_recovery_free(GntRecovery *self)
{
	g_clear_object(&self->queue);
	g_clear_object(&self->config);
	g_clear_pointer(&self->removals, g_hash_table_unref);
	g_free(self);
}

/* Whether job @id is still to run or running (not found: it is not). */
static gboolean
job_is_live(GntQueue *queue, guint64 id)
{
	g_autoptr(JsonObject) job = gnt_queue_lookup_job(queue, id, NULL, NULL);

	return job != NULL && !gnt_job_status_is_finalized(gnt_job_record_calc_status(job));
}

typedef struct {
	GHashTable *removals;
	gchar *instance;
	GntRecoveryOp op;
	guint64 job; /* the job that left it half done */
} Submission;

static void
submission_free(Submission *self)
{
	g_hash_table_unref(self->removals);
	g_free(self->instance);
	g_free(self);
}

static void
submitted_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	Submission *sub = user_data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GArray) ids = gnt_queue_submit_finish(GNT_QUEUE(source), res, &error);

	if (ids == NULL) {
		g_warning("instance '%s' was left half %s by job %" G_GUINT64_FORMAT
			  ", but its removal could not be queued: %s (tried again later)",
			  sub->instance, gnt_recovery_op_to_participle(sub->op), sub->job,
			  error->message);
		g_hash_table_remove(sub->removals, sub->instance);
	} else {
		guint64 *id = g_new(guint64, 1);

		*id = g_array_index(ids, guint64, 0);
		g_message("instance '%s' was left half %s by job %" G_GUINT64_FORMAT
			  ": job %" G_GUINT64_FORMAT " removes it",
			  sub->instance, gnt_recovery_op_to_participle(sub->op), sub->job, *id);
		g_hash_table_replace(sub->removals, g_strdup(sub->instance), id);
	}
	submission_free(sub);
}

/* OP_INSTANCE_REMOVE of @name, its reason saying why. */
static GntOpcode *
removal_opcode(const gchar *name, GntRecoveryOp op, guint64 job)
{
	g_autoptr(JsonObject) input = json_object_new();
	JsonArray *reason = json_array_new();
	JsonArray *entry = json_array_new();
	g_autofree gchar *why = g_strdup_printf("left half %s by job %" G_GUINT64_FORMAT,
						gnt_recovery_op_to_participle(op), job);

	json_array_add_string_element(entry, "gantry:masterd:recovery");
	json_array_add_string_element(entry, why);
	json_array_add_int_element(entry, g_get_real_time() * 1000);
	json_array_add_array_element(reason, entry);
	json_object_set_string_member(input, "OP_ID", "OP_INSTANCE_REMOVE");
	json_object_set_string_member(input, "instance_name", name);
	json_object_set_double_member(input, "shutdown_timeout", 0);
	json_object_set_array_member(input, "reason", reason);
	/* the table's own checks; they cannot fail on these values */
	return gnt_opcode_new_from_json(input, NULL);
}

static void
submit_removal(GntRecovery *self, const gchar *name, GntRecoveryOp op, guint64 job)
{
	g_autoptr(GPtrArray)
		jobs = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	GPtrArray *ops = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_opcode_unref);
	Submission *sub = g_new0(Submission, 1);
	GntOpcode *removal = removal_opcode(name, op, job);

	g_return_if_fail(removal != NULL);
	g_ptr_array_add(ops, removal);
	g_ptr_array_add(jobs, ops);
	sub->removals = g_hash_table_ref(self->removals);
	sub->instance = g_strdup(name);
	sub->op = op;
	sub->job = job;
	g_hash_table_replace(self->removals, g_strdup(name), g_new0(guint64, 1));
	/* a drained queue still cleans up: nothing new is started by it */
	gnt_queue_submit_async(self->queue, g_steal_pointer(&jobs), TRUE, submitted_cb, sub);
}

typedef struct {
	gchar *name;
	GntRecoveryOp op;
	guint64 job;
} HalfDone;

static void
half_done_free(HalfDone *self)
{
	g_free(self->name);
	g_free(self);
}

/* Collects the marked records; the checks against the queue come after
 * the walk over the configuration. */
static gboolean
collect_marked(JsonObject *record, gpointer user_data)
{
	GPtrArray *marked = user_data;
	const gchar *name = NULL;
	GntRecoveryOp op = GNT_RECOVERY_CREATE;
	guint64 job = 0;

	if (gnt_recovery_get_mark(record, &op, &job) &&
	    gnt_json_get_string(record, "name", &name, NULL)) {
		HalfDone *one = g_new0(HalfDone, 1);

		one->name = g_strdup(name);
		one->op = op;
		one->job = job;
		g_ptr_array_add(marked, one);
	}
	return TRUE;
}

guint
gnt_recovery_run(GntRecovery *self)
{
	g_autoptr(GPtrArray)
		marked = g_ptr_array_new_with_free_func((GDestroyNotify)half_done_free);
	guint submitted = 0;

	g_return_val_if_fail(self != NULL, 0);
	gnt_config_foreach_object(self->config, GNT_OBJECT_INSTANCE, collect_marked, marked);
	for (guint i = 0; i < marked->len; i++) {
		const HalfDone *one = g_ptr_array_index(marked, i);
		const guint64 *removal = g_hash_table_lookup(self->removals, one->name);

		/* the create or remove is still under way */
		if (job_is_live(self->queue, one->job))
			continue;
		/* a removal is being submitted, or runs */
		if (removal != NULL && (*removal == 0 || job_is_live(self->queue, *removal)))
			continue;
		submit_removal(self, one->name, one->op, one->job);
		submitted++;
	}
	return submitted;
}
