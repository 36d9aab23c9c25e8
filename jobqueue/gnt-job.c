#include "gnt-job.h"

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-time.h"

struct _GntJob {
	GObject parent_instance;
	guint64 id;
	GPtrArray *ops; /* GntJobOp */
	gint64 received_usec, start_usec, end_usec;
	gint64 log_serial;
};

G_DEFINE_TYPE(GntJob, gnt_job, G_TYPE_OBJECT)

static void
job_op_free(GntJobOp *op)
{
	gnt_opcode_unref(op->input);
	if (op->result != NULL)
		json_node_unref(op->result);
	g_clear_pointer(&op->resume, json_object_unref);
	json_array_unref(op->log);
	g_free(op);
}

static GntJobOp *
job_op_new(GntOpcode *input)
{
	GntJobOp *op = g_new0(GntJobOp, 1);

	op->input = input;
	op->status = GNT_JOB_STATUS_QUEUED;
	op->log = json_array_new();
	op->priority = gnt_opcode_get_priority(input);
	return op;
}

static void
gnt_job_finalize(GObject *object)
{
	GntJob *self = GNT_JOB(object);

	g_ptr_array_unref(self->ops);
	G_OBJECT_CLASS(gnt_job_parent_class)->finalize(object);
}

static void
gnt_job_class_init(GntJobClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = gnt_job_finalize;
}

static void
gnt_job_init(GntJob *self)
{
	self->ops = g_ptr_array_new_with_free_func((GDestroyNotify)job_op_free);
}

GntJob *
gnt_job_new(guint64 id, GPtrArray *ops, gint64 received_usec)
{
	GntJob *self = g_object_new(GNT_TYPE_JOB, NULL);

	self->id = id;
	self->received_usec = received_usec;
	for (guint i = 0; i < ops->len; i++)
		g_ptr_array_add(self->ops, job_op_new(gnt_opcode_ref(g_ptr_array_index(ops, i))));
	g_ptr_array_unref(ops);
	return self;
}

static gboolean
op_from_store(GntJob *self, JsonObject *rec, JsonObject *private_values, GError **error)
{
	JsonObject *input = NULL;
	const gchar *status = NULL;
	JsonArray *log = NULL;
	gint64 prio = 0;
	GntOpcode *opcode;
	GntJobOp *op;

	if (!gnt_json_get_object(rec, "input", &input, error) ||
	    !gnt_json_get_string(rec, "status", &status, error) ||
	    !gnt_json_get_array(rec, "log", &log, error) ||
	    !gnt_json_get_int(rec, "priority", &prio, error))
		return FALSE;
	opcode = gnt_opcode_new_from_store(input, private_values, error);
	if (opcode == NULL)
		return FALSE;
	op = job_op_new(opcode);
	g_ptr_array_add(self->ops, op);
	if (!gnt_job_status_from_string(status, &op->status)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown opcode status '%s'",
			    status);
		return FALSE;
	}
	op->priority = (gint)prio;
	if (json_object_has_member(rec, "resume")) {
		JsonObject *resume = NULL;

		if (!gnt_json_get_object(rec, "resume", &resume, error))
			return FALSE;
		op->resume = gnt_json_object_deep_copy(resume);
	}
	if (json_object_has_member(rec, "result"))
		op->result = gnt_json_node_deep_copy(json_object_get_member(rec, "result"));
	json_array_unref(op->log);
	op->log = json_array_ref(log);
	for (guint i = 0; i < json_array_get_length(log); i++) {
		JsonArray *entry = json_array_get_array_element(log, i);
		if (entry != NULL && json_array_get_length(entry) > 0)
			self->log_serial =
				MAX(self->log_serial, json_array_get_int_element(entry, 0));
	}
	return gnt_timestamp_from_json(json_object_get_member(rec, "start_timestamp"),
				       &op->start_usec, error) &&
	       gnt_timestamp_from_json(json_object_get_member(rec, "exec_timestamp"),
				       &op->exec_usec, error) &&
	       gnt_timestamp_from_json(json_object_get_member(rec, "end_timestamp"), &op->end_usec,
				       error);
}

GntJob *
gnt_job_new_from_store(JsonObject *record, JsonArray *private_values, GError **error)
{
	g_autoptr(GntJob) self = g_object_new(GNT_TYPE_JOB, NULL);
	JsonArray *ops = NULL;
	gint64 id = 0;

	if (!gnt_json_get_int(record, "id", &id, error) ||
	    !gnt_json_get_array(record, "ops", &ops, error))
		return NULL;
	self->id = (guint64)id;
	for (guint i = 0; i < json_array_get_length(ops); i++) {
		JsonNode *rec = json_array_get_element(ops, i);
		JsonNode *priv = private_values != NULL && i < json_array_get_length(private_values)
					 ? json_array_get_element(private_values, i)
					 : NULL;
		if (!JSON_NODE_HOLDS_OBJECT(rec)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "opcode %u is not an object", i);
			return NULL;
		}
		if (!op_from_store(self, json_node_get_object(rec),
				   priv != NULL && JSON_NODE_HOLDS_OBJECT(priv)
					   ? json_node_get_object(priv)
					   : NULL,
				   error)) {
			g_prefix_error(error, "job %" G_GUINT64_FORMAT ", opcode %u: ", self->id,
				       i);
			return NULL;
		}
	}
	if (!gnt_timestamp_from_json(json_object_get_member(record, "received_timestamp"),
				     &self->received_usec, error) ||
	    !gnt_timestamp_from_json(json_object_get_member(record, "start_timestamp"),
				     &self->start_usec, error) ||
	    !gnt_timestamp_from_json(json_object_get_member(record, "end_timestamp"),
				     &self->end_usec, error)) {
		g_prefix_error(error, "job %" G_GUINT64_FORMAT ": ", self->id);
		return NULL;
	}
	return g_steal_pointer(&self);
}

guint64
gnt_job_get_id(GntJob *self)
{
	return self->id;
}

guint
gnt_job_get_n_ops(GntJob *self)
{
	return self->ops->len;
}

GntJobOp *
gnt_job_get_op(GntJob *self, guint index)
{
	g_return_val_if_fail(index < self->ops->len, NULL);
	return g_ptr_array_index(self->ops, index);
}

GntJobStatus
gnt_job_get_status(GntJob *self)
{
	g_autofree GntJobStatus *statuses = g_new(GntJobStatus, self->ops->len + 1);

	for (guint i = 0; i < self->ops->len; i++)
		statuses[i] = gnt_job_get_op(self, i)->status;
	return gnt_job_status_calc(statuses, self->ops->len);
}

gint
gnt_job_get_priority(GntJob *self)
{
	gint prio = G_MAXINT;

	for (guint i = 0; i < self->ops->len; i++) {
		GntJobOp *op = gnt_job_get_op(self, i);
		if (!gnt_job_status_is_finalized(op->status))
			prio = MIN(prio, op->priority);
	}
	return prio == G_MAXINT ? GNT_OP_PRIO_NORMAL : prio;
}

gint64
gnt_job_get_end_usec(GntJob *self)
{
	return self->end_usec;
}

void
gnt_job_set_start_usec(GntJob *self, gint64 usec)
{
	if (self->start_usec == 0)
		self->start_usec = usec;
}

void
gnt_job_set_end_usec(GntJob *self, gint64 usec)
{
	self->end_usec = usec;
}

gboolean
gnt_job_has_secrets(GntJob *self)
{
	for (guint i = 0; i < self->ops->len; i++) {
		if (gnt_opcode_has_secrets(gnt_job_get_op(self, i)->input))
			return TRUE;
	}
	return FALSE;
}

gboolean
gnt_job_lost_secrets(GntJob *self)
{
	for (guint i = 0; i < self->ops->len; i++) {
		if (gnt_opcode_lost_secrets(gnt_job_get_op(self, i)->input))
			return TRUE;
	}
	return FALSE;
}

void
gnt_job_forget_secrets(GntJob *self)
{
	for (guint i = 0; i < self->ops->len; i++)
		gnt_opcode_forget_secrets(gnt_job_get_op(self, i)->input);
}

void
gnt_job_add_log(GntJob *self, guint op_index, const gchar *type, const gchar *message)
{
	GntJobOp *op = gnt_job_get_op(self, op_index);
	JsonArray *entry = json_array_sized_new(4);

	json_array_add_int_element(entry, ++self->log_serial);
	json_array_add_element(entry, gnt_timestamp_to_json(g_get_real_time()));
	json_array_add_string_element(entry, type);
	json_array_add_string_element(entry, message);
	json_array_add_array_element(op->log, entry);
}

void
gnt_job_finish_op(GntJob *self, guint index, GntJobStatus status, JsonNode *result)
{
	GntJobOp *op = gnt_job_get_op(self, index);

	if (gnt_job_status_is_finalized(op->status))
		return;
	op->status = status;
	if (gnt_job_status_is_finalized(status))
		g_clear_pointer(&op->resume, json_object_unref);
	if (op->result != NULL)
		json_node_unref(op->result);
	op->result = result != NULL ? gnt_json_node_deep_copy(result) : NULL;
	if (gnt_job_status_is_finalized(status) && op->end_usec == 0)
		op->end_usec = g_get_real_time();
}

void
gnt_job_finish_ops(GntJob *self, guint from, GntJobStatus status, JsonNode *result)
{
	for (guint i = from; i < self->ops->len; i++)
		gnt_job_finish_op(self, i, status, result);
}

JsonObject *
gnt_job_to_json(GntJob *self)
{
	JsonObject *obj = json_object_new();
	JsonArray *ops = json_array_sized_new(self->ops->len);

	json_object_set_int_member(obj, "id", (gint64)self->id);
	for (guint i = 0; i < self->ops->len; i++) {
		GntJobOp *op = gnt_job_get_op(self, i);
		JsonObject *rec = json_object_new();
		g_autoptr(JsonNode) log_node = json_node_init_array(json_node_alloc(), op->log);
		json_object_set_object_member(rec, "input", gnt_opcode_to_json(op->input));
		json_object_set_string_member(rec, "status", gnt_job_status_to_string(op->status));
		/* deep copies: json-glib reference counts are not atomic, and
		 * the record may be used on another thread than the job */
		json_object_set_member(rec, "result", gnt_json_node_deep_copy(op->result));
		json_object_set_member(rec, "log", gnt_json_node_deep_copy(log_node));
		json_object_set_int_member(rec, "priority", op->priority);
		if (op->resume != NULL)
			json_object_set_object_member(rec, "resume",
						      gnt_json_object_deep_copy(op->resume));
		json_object_set_member(rec, "start_timestamp",
				       gnt_timestamp_to_json(op->start_usec));
		json_object_set_member(rec, "exec_timestamp", gnt_timestamp_to_json(op->exec_usec));
		json_object_set_member(rec, "end_timestamp", gnt_timestamp_to_json(op->end_usec));
		json_array_add_object_element(ops, rec);
	}
	json_object_set_array_member(obj, "ops", ops);
	json_object_set_member(obj, "received_timestamp",
			       gnt_timestamp_to_json(self->received_usec));
	json_object_set_member(obj, "start_timestamp", gnt_timestamp_to_json(self->start_usec));
	json_object_set_member(obj, "end_timestamp", gnt_timestamp_to_json(self->end_usec));
	return obj;
}

JsonArray *
gnt_job_dup_private(GntJob *self)
{
	g_autoptr(JsonArray) arr = json_array_sized_new(self->ops->len);
	gboolean any = FALSE;

	for (guint i = 0; i < self->ops->len; i++) {
		JsonObject *priv = gnt_opcode_dup_private(gnt_job_get_op(self, i)->input);
		if (priv != NULL) {
			json_array_add_object_element(arr, priv);
			any = TRUE;
		} else {
			json_array_add_null_element(arr);
		}
	}
	return any ? g_steal_pointer(&arr) : NULL;
}
