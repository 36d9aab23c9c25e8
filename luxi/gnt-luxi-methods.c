#include "gnt-luxi-methods.h"

#include "gnt-error.h"
#include "gnt-job-query.h"
#include "gnt-json.h"
#include "gnt-luxi-codec.h"
#include "gnt-live-probe.h"
#include "gnt-object-query.h"

#define MAX_ARGS 5

typedef enum {
	ARG_ANY,
	ARG_BOOL,
	ARG_INT,
	ARG_INT_OR_NULL,
	ARG_NUMBER,
	ARG_STRING,
	ARG_STRING_OR_NULL,
	ARG_LIST,
	ARG_STRING_LIST,
	ARG_STRING_LIST_OR_NULL,
	ARG_JOB_ID,
	ARG_JOB_ID_LIST_OR_NULL,
} ArgType;

typedef struct {
	const gchar *name;
	ArgType type;
} ArgSpec;

typedef void (*MethodFunc)(GntLuxiCall *call, JsonArray *args);

typedef struct {
	const gchar *name;
	MethodFunc func;
	guint min_args;		/* the arguments after these are optional */
	ArgSpec args[MAX_ARGS]; /* up to the first one with a NULL name */
	gboolean many_jobs;	/* submits a list of jobs: answers [[true, id], ...] */
	/* for a function several methods share: the GntObjectKind of
	 * QueryInstances/Nodes/Groups; TRUE for SubmitJobToDrainedQueue */
	gint variant;
} MethodDef;

struct _GntLuxiCall {
	gint ref_count;
	GntQueue *queue;
	GntConfig *config;
	GntRpcClient *rpc; /* NULL: no live data */
	GntLuxiReplyFunc func;
	gpointer user_data;
	const MethodDef *def;
	gboolean done;
	/* what the call waits on, released when it answers or is aborted */
	gpointer state;
	GDestroyNotify state_free;
};

GntLuxiCall *
gnt_luxi_call_new(GntQueue *queue, GntConfig *config, GntLuxiReplyFunc func, gpointer user_data)
{
	GntLuxiCall *self;

	g_return_val_if_fail(GNT_IS_QUEUE(queue), NULL);
	g_return_val_if_fail(config == NULL || GNT_IS_CONFIG(config), NULL);
	g_return_val_if_fail(func != NULL, NULL);

	self = g_new0(GntLuxiCall, 1);
	self->ref_count = 1;
	self->queue = g_object_ref(queue);
	self->config = config != NULL ? g_object_ref(config) : NULL;
	self->func = func;
	self->user_data = user_data;
	return self;
}

GntLuxiCall *
gnt_luxi_call_ref(GntLuxiCall *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	self->ref_count++;
	return self;
}

static void
call_clear_state(GntLuxiCall *self)
{
	gpointer state = g_steal_pointer(&self->state);

	if (state != NULL && self->state_free != NULL)
		self->state_free(state);
	self->state_free = NULL;
}

void
gnt_luxi_call_unref(GntLuxiCall *self)
{
	g_return_if_fail(self != NULL);
	g_return_if_fail(self->ref_count > 0);

	if (--self->ref_count > 0)
		return;
	call_clear_state(self);
	g_object_unref(self->queue);
	g_clear_object(&self->config);
	g_clear_object(&self->rpc);
	g_free(self);
}

void
gnt_luxi_call_set_rpc(GntLuxiCall *self, GntRpcClient *rpc)
{
	g_return_if_fail(self != NULL);
	g_return_if_fail(rpc == NULL || GNT_IS_RPC_CLIENT(rpc));

	g_set_object(&self->rpc, rpc);
}

gboolean
gnt_luxi_call_is_done(GntLuxiCall *self)
{
	g_return_val_if_fail(self != NULL, TRUE);
	return self->done;
}

void
gnt_luxi_call_abort(GntLuxiCall *self)
{
	g_return_if_fail(self != NULL);

	self->done = TRUE;
	call_clear_state(self);
}

/* Answers once with @message (transfer full), the whole answer for the
 * wire; a call that already answered or was aborted stays quiet. */
static void
call_reply_message(GntLuxiCall *self, gchar *message, gsize len)
{
	g_autofree gchar *owned = message;
	/* the reply function may drop the caller's reference */
	g_autoptr(GntLuxiCall) hold = gnt_luxi_call_ref(self);

	if (hold->done)
		return;
	hold->done = TRUE;
	call_clear_state(hold);
	hold->func(g_steal_pointer(&owned), len, hold->user_data);
}

/* Answers once. (transfer full: @result) */
static void
call_reply(GntLuxiCall *self, gboolean success, JsonNode *result)
{
	g_autoptr(JsonNode) owned = result;
	gsize len = 0;
	gchar *message;

	if (self->done)
		return;
	message = gnt_luxi_build_response(success, owned, &len);
	call_reply_message(self, message, len);
}

static void
call_return(GntLuxiCall *self, JsonNode *result)
{
	call_reply(self, TRUE, result);
}

/* @exc_class NULL: OpPrereqError with @error's ecode. */
static void
call_return_error(GntLuxiCall *self, const gchar *exc_class, const GError *error)
{
	call_reply(self, FALSE, gnt_luxi_encode_error(exc_class, error));
}

static void
call_return_request_error(GntLuxiCall *self, const GError *error)
{
	g_autofree gchar *message = NULL;

	if (self->def != NULL)
		message = g_strdup_printf("%s: %s", self->def->name, error->message);
	call_reply(self, FALSE,
		   gnt_luxi_encode_request_error(message != NULL ? message : error->message));
}

static JsonNode *
new_pair(JsonNode *first, JsonNode *second)
{
	JsonArray *pair = json_array_new();

	json_array_add_element(pair, first);
	json_array_add_element(pair, second);
	return gnt_json_node_new_array(pair);
}

/* Ganeti's [bool, "message"] answer. */
static void
call_return_status(GntLuxiCall *self, gboolean success, const gchar *message)
{
	call_return(self,
		    new_pair(gnt_json_node_new_bool(success), gnt_json_node_new_string(message)));
}

/* Answers @result (transfer full), or @error when @result is NULL. */
static void
call_return_result(GntLuxiCall *self, JsonNode *result, const GError *error)
{
	if (result == NULL)
		call_return_error(self, NULL, error);
	else
		call_return(self, result);
}

/* ---- arguments ---- */

static gboolean
job_id_of(JsonNode *node, guint64 *job_id)
{
	return gnt_job_id_from_json(node, job_id, NULL);
}

static gboolean
arg_is_string_list(JsonNode *node)
{
	JsonArray *array;

	if (!JSON_NODE_HOLDS_ARRAY(node))
		return FALSE;
	array = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonNode *element = json_array_get_element(array, i);

		if (!JSON_NODE_HOLDS_VALUE(element) ||
		    json_node_get_value_type(element) != G_TYPE_STRING)
			return FALSE;
	}
	return TRUE;
}

static gboolean
arg_is_job_id_list(JsonNode *node)
{
	JsonArray *array;
	guint64 job_id = 0;

	if (!JSON_NODE_HOLDS_ARRAY(node))
		return FALSE;
	array = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		if (!job_id_of(json_array_get_element(array, i), &job_id))
			return FALSE;
	}
	return TRUE;
}

static gboolean
arg_value_is(JsonNode *node, GType type)
{
	return JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == type;
}

/* Whether @node has @type, and the words for the message if not. */
static gboolean
arg_check_type(JsonNode *node, ArgType type, const gchar **expected)
{
	gboolean is_null = JSON_NODE_HOLDS_NULL(node);
	guint64 job_id = 0;

	switch (type) {
	case ARG_ANY:
		return TRUE;
	case ARG_BOOL:
		*expected = "a boolean";
		return arg_value_is(node, G_TYPE_BOOLEAN);
	case ARG_INT:
		*expected = "an integer";
		return gnt_json_node_is_int(node);
	case ARG_INT_OR_NULL:
		*expected = "an integer or null";
		return is_null || gnt_json_node_is_int(node);
	case ARG_NUMBER:
		*expected = "a number";
		return gnt_json_node_is_number(node);
	case ARG_STRING:
		*expected = "a string";
		return arg_value_is(node, G_TYPE_STRING);
	case ARG_STRING_OR_NULL:
		*expected = "a string or null";
		return is_null || arg_value_is(node, G_TYPE_STRING);
	case ARG_LIST:
		*expected = "a list";
		return JSON_NODE_HOLDS_ARRAY(node);
	case ARG_STRING_LIST:
		*expected = "a list of strings";
		return arg_is_string_list(node);
	case ARG_STRING_LIST_OR_NULL:
		*expected = "a list of strings or null";
		return is_null || arg_is_string_list(node);
	case ARG_JOB_ID:
		*expected = "a job ID (an integer or a decimal string)";
		return job_id_of(node, &job_id);
	case ARG_JOB_ID_LIST_OR_NULL:
		*expected = "a list of job IDs or null";
		return is_null || arg_is_job_id_list(node);
	default:
		g_assert_not_reached();
	}
	return FALSE;
}

static guint
def_n_args(const MethodDef *def)
{
	guint n = 0;

	while (n < MAX_ARGS && def->args[n].name != NULL)
		n++;
	return n;
}

static gboolean
args_check(const MethodDef *def, JsonArray *args, GError **error)
{
	guint max = def_n_args(def);
	guint n = json_array_get_length(args);

	if (n < def->min_args || n > max) {
		if (def->min_args == max)
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "expected %u argument%s, got %u", max, max == 1 ? "" : "s", n);
		else
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "expected %u to %u arguments, got %u", def->min_args, max, n);
		return FALSE;
	}
	for (guint i = 0; i < n; i++) {
		JsonNode *node = json_array_get_element(args, i);
		const gchar *expected = NULL;

		if (!arg_check_type(node, def->args[i].type, &expected)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "argument %u ('%s') must be %s, not %s", i + 1,
				    def->args[i].name, expected, gnt_json_node_type_name(node));
			return FALSE;
		}
	}
	return TRUE;
}

/* Accessors for arguments args_check() accepted. */
static JsonNode *
arg_node(JsonArray *args, guint index)
{
	return index < json_array_get_length(args) ? json_array_get_element(args, index) : NULL;
}

static JsonArray *
arg_array(JsonArray *args, guint index)
{
	JsonNode *node = arg_node(args, index);

	return node != NULL && JSON_NODE_HOLDS_ARRAY(node) ? json_node_get_array(node) : NULL;
}

static guint64
arg_job_id(JsonArray *args, guint index)
{
	guint64 job_id = 0;

	job_id_of(arg_node(args, index), &job_id);
	return job_id;
}

/* ---- job submission ---- */

/* Parses one job's opcodes; @job_index is -1 for SubmitJob's only job.
 * @unsupported tells a failure on an opcode of Ganeti's that Gantry lacks.
 * (transfer full) GPtrArray of GntOpcode */
static GPtrArray *
parse_job(JsonNode *node, gint job_index, gboolean *unsupported, GError **error)
{
	g_autoptr(GPtrArray) ops = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_opcode_unref);
	g_autofree gchar *what = job_index < 0 ? g_strdup("the job")
					       : g_strdup_printf("job %d", job_index);
	JsonArray *list;

	if (!JSON_NODE_HOLDS_ARRAY(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s must be a list of opcodes, not %s", what,
			    gnt_json_node_type_name(node));
		return NULL;
	}
	list = json_node_get_array(node);
	if (json_array_get_length(list) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s has no opcodes", what);
		return NULL;
	}
	for (guint i = 0; i < json_array_get_length(list); i++) {
		JsonNode *element = json_array_get_element(list, i);
		GntOpcode *op = NULL;

		if (!JSON_NODE_HOLDS_OBJECT(element))
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "must be an object, not %s", gnt_json_node_type_name(element));
		else
			op = gnt_opcode_new_from_json(json_node_get_object(element), error);
		if (op == NULL && JSON_NODE_HOLDS_OBJECT(element))
			*unsupported =
				gnt_op_id_is_unsupported(json_object_get_string_member_with_default(
					json_node_get_object(element), "OP_ID", NULL));
		if (op == NULL) {
			if (job_index < 0)
				g_prefix_error(error, "opcode %u: ", i);
			else
				g_prefix_error(error, "job %d, opcode %u: ", job_index, i);
			return NULL;
		}
		g_ptr_array_add(ops, op);
	}
	return g_steal_pointer(&ops);
}

/* A job that did not parse: Ganeti's clients show an encoded error as
 * such, so an opcode of Ganeti's that Gantry lacks is an OpPrereqError
 * saying so; anything else is a malformed request, as luxid answers it. */
static void
call_return_job_error(GntLuxiCall *call, const GError *error, gboolean unsupported)
{
	if (unsupported)
		call_return_error(call, NULL, error);
	else
		call_return_request_error(call, error);
}

static void
submit_done(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GntLuxiCall) call = user_data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GArray) ids = gnt_queue_submit_finish(GNT_QUEUE(source), res, &error);
	JsonArray *list;

	if (ids == NULL) {
		/* the queue refuses a drained submission with WRONG_STATE "Queue
		 * drained"; Ganeti answers GenericError("Queue drained") */
		if (g_error_matches(error, GNT_ERROR, GNT_ERROR_WRONG_STATE))
			call_return_error(call, GNT_LUXI_EXC_GENERIC, error);
		else
			call_return_error(call, NULL, error);
		return;
	}
	if (!call->def->many_jobs) {
		g_return_if_fail(ids->len == 1);
		call_return(call, gnt_json_node_new_int((gint64)g_array_index(ids, guint64, 0)));
		return;
	}
	list = json_array_new();
	for (guint i = 0; i < ids->len; i++)
		json_array_add_element(
			list,
			new_pair(gnt_json_node_new_bool(TRUE),
				 gnt_json_node_new_int((gint64)g_array_index(ids, guint64, i))));
	call_return(call, gnt_json_node_new_array(list));
}

/* Queues @jobs (transfer full); the queue refuses them when drained. */
static void
submit_jobs(GntLuxiCall *call, GPtrArray *jobs, gboolean ignore_drain)
{
	gnt_queue_submit_async(call->queue, jobs, ignore_drain, submit_done,
			       gnt_luxi_call_ref(call));
}

/* SubmitJob, and SubmitJobToDrainedQueue (variant TRUE: it ignores the
 * drain flag). */
static void
method_submit_job(GntLuxiCall *call, JsonArray *args)
{
	gboolean ignore_drain = call->def->variant;
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray)
		jobs = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	gboolean unsupported = FALSE;
	GPtrArray *ops = parse_job(arg_node(args, 0), -1, &unsupported, &error);

	if (ops == NULL) {
		call_return_job_error(call, error, unsupported);
		return;
	}
	g_ptr_array_add(jobs, ops);
	submit_jobs(call, g_steal_pointer(&jobs), ignore_drain);
}

static void
method_submit_many_jobs(GntLuxiCall *call, JsonArray *args)
{
	g_autoptr(GPtrArray)
		jobs = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	JsonArray *list = arg_array(args, 0);

	for (guint i = 0; i < json_array_get_length(list); i++) {
		g_autoptr(GError) error = NULL;
		gboolean unsupported = FALSE;
		GPtrArray *ops =
			parse_job(json_array_get_element(list, i), (gint)i, &unsupported, &error);

		if (ops == NULL) {
			call_return_job_error(call, error, unsupported);
			return;
		}
		g_ptr_array_add(jobs, ops);
	}
	if (jobs->len == 0) {
		call_return(call, gnt_json_node_new_array(json_array_new()));
		return;
	}
	submit_jobs(call, g_steal_pointer(&jobs), FALSE);
}

/* ---- WaitForJobChange ---- */

typedef struct {
	GntLuxiCall *call; /* borrowed: the call owns the waiter */
	guint64 job_id;
	JsonArray *fields;
	JsonNode *prev_info;
	gint64 prev_serial;
	guint watch_id;
	GSource *timeout;
} Waiter;

static void
waiter_free(gpointer data)
{
	Waiter *waiter = data;

	if (waiter->watch_id != 0)
		gnt_queue_unwatch_job(waiter->call->queue, waiter->watch_id);
	if (waiter->timeout != NULL) {
		g_source_destroy(waiter->timeout);
		g_source_unref(waiter->timeout);
	}
	json_array_unref(waiter->fields);
	json_node_unref(waiter->prev_info);
	g_free(waiter);
}

/* Answers if the job ended, is gone, or differs from what the client saw;
 * returns TRUE if it answered. */
static gboolean
waiter_check(GntLuxiCall *call, Waiter *waiter)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) job = NULL;
	g_autoptr(JsonArray) values = NULL;
	g_autoptr(JsonArray) log = NULL;
	g_autoptr(JsonNode) values_node = NULL;
	gboolean archived = FALSE;

	job = gnt_queue_lookup_job(call->queue, waiter->job_id, &archived, &error);
	if (job == NULL) {
		call_return_error(call,
				  g_error_matches(error, GNT_ERROR, GNT_ERROR_NOT_FOUND)
					  ? GNT_LUXI_EXC_JOB_LOST
					  : NULL,
				  error);
		return TRUE;
	}
	values = gnt_job_query_values(job, archived, waiter->fields, &error);
	if (values == NULL) {
		call_return_error(call, NULL, error);
		return TRUE;
	}
	log = gnt_job_query_log_since(job, waiter->prev_serial);
	values_node = gnt_json_node_new_array(json_array_ref(values));
	if (gnt_job_status_is_finalized(gnt_job_record_calc_status(job)) ||
	    json_array_get_length(log) > 0 || !json_node_equal(values_node, waiter->prev_info)) {
		call_return(call, new_pair(g_steal_pointer(&values_node),
					   gnt_json_node_new_array(g_steal_pointer(&log))));
		return TRUE;
	}
	return FALSE;
}

static void
waiter_job_changed(GntQueue *queue, guint64 job_id, gpointer user_data)
{
	Waiter *waiter = user_data;

	waiter_check(waiter->call, waiter);
}

static gboolean
waiter_timed_out(gpointer user_data)
{
	Waiter *waiter = user_data;
	GntLuxiCall *call = waiter->call;

	/* the source is destroyed with the waiter, as the call answers */
	call_return(call, gnt_json_node_new_string("nochange"));
	return G_SOURCE_REMOVE;
}

static void
method_wait_for_job_change(GntLuxiCall *call, JsonArray *args)
{
	Waiter *waiter = g_new0(Waiter, 1);
	JsonNode *serial = arg_node(args, 3);
	gdouble timeout = json_node_get_double(arg_node(args, 4));

	waiter->call = call;
	waiter->job_id = arg_job_id(args, 0);
	waiter->fields = json_array_ref(arg_array(args, 1));
	waiter->prev_info = json_node_copy(arg_node(args, 2));
	waiter->prev_serial = JSON_NODE_HOLDS_NULL(serial) ? -1 : json_node_get_int(serial);
	call->state = waiter;
	call->state_free = waiter_free;
	if (waiter_check(call, waiter))
		return;
	timeout = CLAMP(timeout, 0, GNT_LUXI_WFJC_MAX_TIMEOUT);
	waiter->watch_id =
		gnt_queue_watch_job(call->queue, waiter->job_id, waiter_job_changed, waiter);
	waiter->timeout = g_timeout_source_new((guint)(timeout * 1000));
	g_source_set_callback(waiter->timeout, waiter_timed_out, waiter, NULL);
	g_source_set_name(waiter->timeout, "gnt-luxi WaitForJobChange timeout");
	g_source_attach(waiter->timeout, g_main_context_get_thread_default());
}

gboolean
gnt_luxi_call_is_watching(GntLuxiCall *self)
{
	g_return_val_if_fail(self != NULL, FALSE);
	return !self->done && self->state_free == waiter_free && self->state != NULL &&
	       ((Waiter *)self->state)->watch_id != 0;
}

/* ---- job control ---- */

/* The job IDs of @node (a list of int or string IDs) as JSON integers, or
 * NULL for null or an empty list (all jobs). (transfer full) */
static JsonArray *
job_ids_as_ints(JsonNode *node)
{
	JsonArray *in;
	JsonArray *out;

	if (JSON_NODE_HOLDS_NULL(node))
		return NULL;
	in = json_node_get_array(node);
	if (json_array_get_length(in) == 0)
		return NULL;
	out = json_array_new();
	for (guint i = 0; i < json_array_get_length(in); i++) {
		guint64 job_id = 0;

		job_id_of(json_array_get_element(in, i), &job_id);
		json_array_add_int_element(out, (gint64)job_id);
	}
	return out;
}

static void
method_query_jobs(GntLuxiCall *call, JsonArray *args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ids = job_ids_as_ints(arg_node(args, 0));
	/* evaluated before the call below reads @error */
	JsonNode *rows = gnt_job_query_jobs(call->queue, ids, arg_array(args, 1), &error);

	call_return_result(call, rows, error);
}

static void
cancel_done(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GntLuxiCall) call = user_data;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *message = NULL;
	gboolean success = FALSE;

	if (!gnt_queue_cancel_finish(GNT_QUEUE(source), res, &success, &message, &error))
		call_return_error(call, NULL, error);
	else
		call_return_status(call, success, message);
}

static void
method_cancel_job(GntLuxiCall *call, JsonArray *args)
{
	/* "kill" (the second argument) needs job processes; jobs here run in
	 * masterd's workers, so a cancel is all there is */
	gnt_queue_cancel_async(call->queue, arg_job_id(args, 0), cancel_done,
			       gnt_luxi_call_ref(call));
}

static void
archive_done(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GntLuxiCall) call = user_data;
	g_autoptr(GError) error = NULL;
	gboolean archived = FALSE;
	gboolean ok = gnt_queue_archive_finish(GNT_QUEUE(source), res, &archived, &error);

	call_return_result(call, ok ? gnt_json_node_new_bool(archived) : NULL, error);
}

static void
method_archive_job(GntLuxiCall *call, JsonArray *args)
{
	gnt_queue_archive_async(call->queue, arg_job_id(args, 0), archive_done,
				gnt_luxi_call_ref(call));
}

static void
auto_archive_done(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GntLuxiCall) call = user_data;
	g_autoptr(GError) error = NULL;
	guint archived = 0;
	guint left = 0;
	gboolean ok =
		gnt_queue_auto_archive_finish(GNT_QUEUE(source), res, &archived, &left, &error);

	call_return_result(
		call,
		ok ? new_pair(gnt_json_node_new_int(archived), gnt_json_node_new_int(left)) : NULL,
		error);
}

static void
method_auto_archive_jobs(GntLuxiCall *call, JsonArray *args)
{
	gint64 age = json_node_get_int(arg_node(args, 0));
	gint64 timeout = json_node_get_int(arg_node(args, 1));

	gnt_queue_auto_archive_async(call->queue, age < 0 ? -1 : age, MAX(timeout, 0),
				     auto_archive_done, gnt_luxi_call_ref(call));
}

static void
method_change_job_priority(GntLuxiCall *call, JsonArray *args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) job = NULL;
	g_autofree gchar *message = NULL;
	guint64 job_id = arg_job_id(args, 0);

	job = gnt_queue_lookup_job(call->queue, job_id, NULL, &error);
	if (job == NULL && !g_error_matches(error, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
		call_return_error(call, NULL, error);
		return;
	}
	if (job == NULL)
		message = g_strdup_printf("Job %" G_GUINT64_FORMAT " not found", job_id);
	else
		message = g_strdup_printf("changing the priority of job %" G_GUINT64_FORMAT
					  " is not supported yet",
					  job_id);
	call_return_status(call, FALSE, message);
}

static void
method_pickup_job(GntLuxiCall *call, JsonArray *args)
{
	g_autoptr(GError) error = g_error_new_literal(
		GNT_ERROR, GNT_ERROR_INVALID, "Luxi call 'PickupJob' is for internal use only");

	call_return_error(call, GNT_LUXI_EXC_GENERIC, error);
}

static void
method_set_drain_flag(GntLuxiCall *call, JsonArray *args)
{
	g_autoptr(GError) error = NULL;
	gboolean ok = gnt_queue_set_drained(call->queue, json_node_get_boolean(arg_node(args, 0)),
					    &error);

	call_return_result(call, ok ? gnt_json_node_new_bool(TRUE) : NULL, error);
}

/* ---- queries ---- */

static gboolean
call_need_config(GntLuxiCall *call)
{
	g_autoptr(GError) error = NULL;

	if (call->config != NULL)
		return TRUE;
	error = g_error_new_literal(GNT_ERROR, GNT_ERROR_WRONG_STATE,
				    "the master daemon has no cluster configuration");
	call_return_error(call, NULL, error);
	return FALSE;
}

static void
method_query_cluster_info(GntLuxiCall *call, JsonArray *args)
{
	if (call_need_config(call))
		call_return(call,
			    gnt_json_node_new_object(gnt_config_dup_cluster_info(call->config)));
}

static void
method_query_config_values(GntLuxiCall *call, JsonArray *args)
{
	if (call_need_config(call))
		call_return(call, gnt_config_dup_config_values(call->config, arg_array(args, 0),
							       gnt_queue_get_drained(call->queue)));
}

/* Ganeti's query resources reachable over LUXI (QR_VIA_LUXI). */
static const gchar *const luxi_resources[] = {
	"instance", "node", "group", "network", "export", "job", "lock", "filter", NULL,
};

/* The resources served; the rest answer OpPrereqError naming the resource. */
typedef enum {
	RESOURCE_JOB,
	RESOURCE_INSTANCE,
	RESOURCE_NODE,
	RESOURCE_GROUP,
	RESOURCE_IMAGE,		   /* Gantry's image catalog */
	RESOURCE_INSTALL_TEMPLATE, /* Gantry's own */
} Resource;

/* The query resources of config objects, by their names in Query() */
static const struct {
	const gchar *name;
	Resource resource;
} object_resources[] = {
	{"instance", RESOURCE_INSTANCE},
	{"node", RESOURCE_NODE},
	{"group", RESOURCE_GROUP},
	{"image", RESOURCE_IMAGE},
	{"installtemplate", RESOURCE_INSTALL_TEMPLATE},
};

static gboolean
check_resource(GntLuxiCall *call, const gchar *what, Resource *resource)
{
	g_autoptr(GError) error = NULL;

	if (g_strcmp0(what, "job") == 0) {
		*resource = RESOURCE_JOB;
		return TRUE;
	}
	for (guint i = 0; i < G_N_ELEMENTS(object_resources); i++) {
		if (g_strcmp0(what, object_resources[i].name) == 0) {
			*resource = object_resources[i].resource;
			return call_need_config(call);
		}
	}
	if (g_strv_contains(luxi_resources, what))
		error = g_error_new(GNT_ERROR, GNT_ERROR_INVALID,
				    "querying the resource '%s' is not supported yet", what);
	else
		error = g_error_new(GNT_ERROR, GNT_ERROR_INVALID,
				    "resource '%s' cannot be queried over LUXI", what);
	call_return_error(call, NULL, error);
	return FALSE;
}

static GntObjectKind
resource_kind(Resource resource)
{
	switch (resource) {
	case RESOURCE_NODE:
		return GNT_OBJECT_NODE;
	case RESOURCE_GROUP:
		return GNT_OBJECT_GROUP;
	case RESOURCE_IMAGE:
		return GNT_OBJECT_IMAGE;
	case RESOURCE_INSTALL_TEMPLATE:
		return GNT_OBJECT_INSTALL_TEMPLATE;
	case RESOURCE_JOB:
	case RESOURCE_INSTANCE:
	default:
		return GNT_OBJECT_INSTANCE;
	}
}

/* A query of instances or nodes, kept while the nodes are asked. */
typedef struct {
	GntObjectKind kind;
	JsonArray *fields;
	JsonNode *filter; /* Query; NULL: none */
	JsonArray *names; /* QueryInstances, QueryNodes; NULL: Query */
	gboolean classic;
} ObjectQuery;

static void
object_query_free(gpointer data)
{
	ObjectQuery *query = data;

	json_array_unref(query->fields);
	g_clear_pointer(&query->filter, json_node_unref);
	g_clear_pointer(&query->names, json_array_unref);
	g_free(query);
}

/* Answers @query: its rows are written straight into the answer's text
 * (gnt_object_query_write()), as building a tree of 10,000 rows first would
 * cost more than the query itself. */
static void
object_query_answer(GntLuxiCall *call, ObjectQuery *query, GntLiveData *live)
{
	g_autoptr(GError) error = NULL;
	GString *message = gnt_luxi_response_begin(TRUE);
	gboolean ok;
	gsize len = 0;
	gchar *text;

	if (query->classic)
		ok = gnt_object_query_values_write(call->config, query->kind, query->names,
						   query->fields, live, message, &error);
	else
		ok = gnt_object_query_write(call->config, query->kind, query->fields, query->filter,
					    live, message, &error);
	if (!ok) {
		g_string_free(message, TRUE);
		call_return_error(call, NULL, error);
		return;
	}
	text = gnt_luxi_response_finish(message, &len);
	call_reply_message(call, text, len);
}

static void
live_collected(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GntLuxiCall) call = user_data;
	GntLiveData *live = gnt_live_probe_collect_finish(res, NULL);

	/* the client went away meanwhile: nobody to answer */
	if (!call->done)
		object_query_answer(call, call->state, live);
	gnt_live_data_free_later(live);
}

/*
 * Answers @query (transfer full), asking the nodes first when it reads
 * live fields (gnt_object_query_needs_live_data(), as Ganeti asks only
 * then) and masterd can reach them. The nodes are asked from worker
 * threads (gnt-live-probe.h): the main loop goes on serving while they
 * answer or time out.
 */
static void
object_query_run(GntLuxiCall *call, ObjectQuery *query)
{
	gboolean needed = FALSE;

	call->state = query;
	call->state_free = object_query_free;
	/* a bad field list or filter fails in the query itself */
	if (call->rpc == NULL ||
	    !gnt_object_query_needs_live_data(query->kind, query->fields, query->filter, &needed,
					      NULL) ||
	    !needed) {
		object_query_answer(call, query, NULL);
		return;
	}
	gnt_live_probe_collect_async(call->config, call->rpc, query->kind, live_collected,
				     gnt_luxi_call_ref(call));
}

static void
method_query(GntLuxiCall *call, JsonArray *args)
{
	g_autoptr(GError) error = NULL;
	JsonNode *filter = arg_node(args, 2);
	JsonArray *fields = arg_array(args, 1);
	Resource resource = RESOURCE_JOB;
	ObjectQuery *query;

	if (!check_resource(call, json_array_get_string_element(args, 0), &resource))
		return;
	if (JSON_NODE_HOLDS_NULL(filter))
		filter = NULL;
	if (resource == RESOURCE_JOB) {
		JsonNode *result = gnt_job_query(call->queue, fields, filter, &error);

		call_return_result(call, result, error);
		return;
	}
	query = g_new0(ObjectQuery, 1);
	query->kind = resource_kind(resource);
	query->fields = json_array_ref(fields);
	query->filter = filter != NULL ? json_node_copy(filter) : NULL;
	object_query_run(call, query);
}

static void
method_query_fields(GntLuxiCall *call, JsonArray *args)
{
	g_autoptr(GError) error = NULL;
	Resource resource = RESOURCE_JOB;
	JsonNode *result;

	if (!check_resource(call, json_array_get_string_element(args, 0), &resource))
		return;
	if (resource == RESOURCE_JOB)
		result = gnt_job_query_fields(arg_array(args, 1), &error);
	else
		result = gnt_object_query_fields(resource_kind(resource), arg_array(args, 1),
						 &error);
	call_return_result(call, result, error);
}

/* QueryInstances, QueryNodes, QueryGroups, QueryImages and
 * QueryInstallTemplates (the variant is the kind):
 * [names, fields, use_locking]. */
static void
method_query_objects(GntLuxiCall *call, JsonArray *args)
{
	GntObjectKind kind = (GntObjectKind)call->def->variant;
	g_autoptr(GError) error = NULL;
	JsonNode *names = arg_node(args, 0);
	ObjectQuery *query;

	if (json_node_get_boolean(arg_node(args, 2))) {
		/* luxid answers every query from its config, without locks */
		error = g_error_new_literal(GNT_ERROR, GNT_ERROR_INVALID,
					    "Sync queries are not allowed");
		call_return_error(call, NULL, error);
		return;
	}
	if (!call_need_config(call))
		return;
	query = g_new0(ObjectQuery, 1);
	query->kind = kind;
	query->classic = TRUE;
	query->fields = json_array_ref(arg_array(args, 1));
	query->names = JSON_NODE_HOLDS_ARRAY(names) ? json_array_ref(json_node_get_array(names))
						    : NULL;
	object_query_run(call, query);
}

static const gchar *const tag_kinds[] = {
	"cluster", "node", "instance", "nodegroup", "network", NULL,
};

/* The "tags" of @record (a cluster info or an object record) as a new list. */
static JsonNode *
dup_tags(JsonObject *record)
{
	JsonNode *tags = json_object_get_member(record, "tags");

	if (tags == NULL || !JSON_NODE_HOLDS_ARRAY(tags))
		return gnt_json_node_new_array(json_array_new());
	return json_node_copy(tags);
}

/* QueryTags(kind, name): the cluster's tags, or those of the node,
 * instance or node group @name names (short names too); an unknown one is
 * an OpPrereqError unknown_entity. */
static void
method_query_tags(GntLuxiCall *call, JsonArray *args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) record = NULL;
	const gchar *kind = json_array_get_string_element(args, 0);
	JsonNode *name = arg_node(args, 1);
	GntObjectKind object_kind = GNT_OBJECT_INSTANCE;

	if (!g_strv_contains(tag_kinds, kind)) {
		error = g_error_new(GNT_ERROR, GNT_ERROR_INVALID, "unknown tag kind '%s'", kind);
		call_return_request_error(call, error);
		return;
	}
	if (g_strcmp0(kind, "network") == 0) {
		error = g_error_new(GNT_ERROR, GNT_ERROR_INVALID,
				    "querying the tags of a %s is not supported yet", kind);
		call_return_error(call, NULL, error);
		return;
	}
	if (!call_need_config(call))
		return;
	if (g_strcmp0(kind, "cluster") == 0) {
		record = gnt_config_dup_cluster_info(call->config);
		call_return(call, dup_tags(record));
		return;
	}
	if (name == NULL || JSON_NODE_HOLDS_NULL(name)) {
		error = g_error_new(GNT_ERROR, GNT_ERROR_INVALID, "the tags of a %s need its name",
				    kind);
		call_return_error(call, NULL, error);
		return;
	}
	gnt_object_kind_from_string(kind, &object_kind);
	record = gnt_config_dup_object(call->config, object_kind, json_node_get_string(name),
				       &error);
	if (record == NULL) {
		call_return_error(call, NULL, error);
		return;
	}
	call_return(call, dup_tags(record));
}

/* Methods Ganeti has that Gantry does not serve yet. */
static void
method_unsupported(GntLuxiCall *call, JsonArray *args)
{
	g_autoptr(GError)
		error = g_error_new(GNT_ERROR, GNT_ERROR_INVALID,
				    "LUXI method '%s' is not supported by Gantry", call->def->name);

	call_return_error(call, NULL, error);
}

/* ---- the table ---- */

#define JOB_ID_ARG                                                                                 \
	{                                                                                          \
		"job_id", ARG_JOB_ID                                                               \
	}
/* any arguments: the answer does not depend on them */
#define UNSUPPORTED(name)                                                                          \
	{                                                                                          \
		name, method_unsupported, 0,                                                       \
		{                                                                                  \
			{                                                                          \
				NULL                                                               \
			}                                                                          \
		}                                                                                  \
	}

static const MethodDef methods[] = {
	{"SubmitJob", method_submit_job, 1, {{"ops", ARG_LIST}}},
	{"SubmitJobToDrainedQueue", method_submit_job, 1, {{"ops", ARG_LIST}}, .variant = TRUE},
	{"SubmitManyJobs", method_submit_many_jobs, 1, {{"jobs", ARG_LIST}}, TRUE},
	{"WaitForJobChange",
	 method_wait_for_job_change,
	 5,
	 {JOB_ID_ARG,
	  {"fields", ARG_STRING_LIST},
	  {"prev_job_info", ARG_ANY},
	  {"prev_log_serial", ARG_INT_OR_NULL},
	  {"timeout", ARG_NUMBER}}},
	{"QueryJobs",
	 method_query_jobs,
	 2,
	 {{"job_ids", ARG_JOB_ID_LIST_OR_NULL}, {"fields", ARG_STRING_LIST}}},
	{"CancelJob", method_cancel_job, 1, {JOB_ID_ARG, {"kill", ARG_BOOL}}},
	{"ArchiveJob", method_archive_job, 1, {JOB_ID_ARG}},
	{"AutoArchiveJobs", method_auto_archive_jobs, 2, {{"age", ARG_INT}, {"timeout", ARG_INT}}},
	{"ChangeJobPriority", method_change_job_priority, 2, {JOB_ID_ARG, {"priority", ARG_INT}}},
	{"QueryClusterInfo", method_query_cluster_info, 0, {{NULL}}},
	{"QueryConfigValues", method_query_config_values, 1, {{"fields", ARG_STRING_LIST}}},
	{"Query",
	 method_query,
	 3,
	 {{"what", ARG_STRING}, {"fields", ARG_STRING_LIST}, {"qfilter", ARG_ANY}}},
	{"QueryFields",
	 method_query_fields,
	 2,
	 {{"what", ARG_STRING}, {"fields", ARG_STRING_LIST_OR_NULL}}},
	{"QueryTags", method_query_tags, 2, {{"kind", ARG_STRING}, {"name", ARG_STRING_OR_NULL}}},
	{"SetDrainFlag", method_set_drain_flag, 1, {{"flag", ARG_BOOL}}},
	{"PickupJob", method_pickup_job, 1, {JOB_ID_ARG}},
	{"QueryInstances",
	 method_query_objects,
	 3,
	 {{"names", ARG_STRING_LIST_OR_NULL},
	  {"fields", ARG_STRING_LIST},
	  {"use_locking", ARG_BOOL}},
	 .variant = GNT_OBJECT_INSTANCE},
	{"QueryNodes",
	 method_query_objects,
	 3,
	 {{"names", ARG_STRING_LIST_OR_NULL},
	  {"fields", ARG_STRING_LIST},
	  {"use_locking", ARG_BOOL}},
	 .variant = GNT_OBJECT_NODE},
	{"QueryGroups",
	 method_query_objects,
	 3,
	 {{"names", ARG_STRING_LIST_OR_NULL},
	  {"fields", ARG_STRING_LIST},
	  {"use_locking", ARG_BOOL}},
	 .variant = GNT_OBJECT_GROUP},
	/* Gantry's: the image catalog, as the three above */
	{"QueryImages",
	 method_query_objects,
	 3,
	 {{"names", ARG_STRING_LIST_OR_NULL},
	  {"fields", ARG_STRING_LIST},
	  {"use_locking", ARG_BOOL}},
	 .variant = GNT_OBJECT_IMAGE},
	/* Gantry's: install templates (doc/templates.md) */
	{"QueryInstallTemplates",
	 method_query_objects,
	 3,
	 {{"names", ARG_STRING_LIST_OR_NULL},
	  {"fields", ARG_STRING_LIST},
	  {"use_locking", ARG_BOOL}},
	 .variant = GNT_OBJECT_INSTALL_TEMPLATE},
	UNSUPPORTED("QueryNetworks"),
	UNSUPPORTED("QueryExports"),
	UNSUPPORTED("SetWatcherPause"),
	UNSUPPORTED("QueryFilters"),
	UNSUPPORTED("ReplaceFilter"),
	UNSUPPORTED("DeleteFilter"),
};

static const MethodDef *
method_lookup(const gchar *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(methods); i++) {
		if (g_strcmp0(methods[i].name, name) == 0)
			return &methods[i];
	}
	return NULL;
}

const gchar *const *
gnt_luxi_methods_get_names(void)
{
	static const gchar *names[G_N_ELEMENTS(methods) + 1];
	static gsize initialized = 0;

	if (g_once_init_enter(&initialized)) {
		for (guint i = 0; i < G_N_ELEMENTS(methods); i++)
			names[i] = methods[i].name;
		g_once_init_leave(&initialized, 1);
	}
	return names;
}

void
gnt_luxi_call_dispatch(GntLuxiCall *self, const gchar *method, JsonArray *args)
{
	g_autoptr(GError) error = NULL;

	g_return_if_fail(self != NULL);
	g_return_if_fail(method != NULL && args != NULL);
	g_return_if_fail(self->def == NULL && !self->done);

	self->def = method_lookup(method);
	if (self->def == NULL) {
		error = g_error_new(GNT_ERROR, GNT_ERROR_INVALID,
				    "Unable to parse LUXI request method: unknown method '%s'",
				    method);
		call_return_request_error(self, error);
		return;
	}
	if (self->def->func != method_unsupported && !args_check(self->def, args, &error)) {
		call_return_request_error(self, error);
		return;
	}
	self->def->func(self, args);
}
