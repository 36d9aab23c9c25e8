#include "gnt-node-calls-appliance.h"

#include "gnt-error.h"
#include "gnt-json.h"

/* One call, made in a thread of its own so that the calling thread can ask
 * for the progress meanwhile. */
typedef struct {
	GntRpcClient *client;
	JsonObject *node;
	const gchar *procedure;
	JsonArray *args;
	guint timeout_s;
	GMutex lock;
	GCond cond;
	gboolean done;
	JsonNode *result;
	GError *error;
} PollingCall;

static gpointer
polling_call_thread(gpointer data)
{
	PollingCall *call = data;
	GError *local_error = NULL;
	JsonNode *result = gnt_node_call(call->client, call->node, call->procedure, call->args,
					 call->timeout_s, &local_error);

	g_mutex_lock(&call->lock);
	call->result = result;
	call->error = local_error;
	call->done = TRUE;
	g_cond_signal(&call->cond);
	g_mutex_unlock(&call->lock);
	return NULL;
}

/* Waits up to @poll_ms for the call; whether it is done. */
static gboolean
polling_call_wait(PollingCall *call, guint poll_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)poll_ms * 1000;
	gboolean done;

	g_mutex_lock(&call->lock);
	while (!call->done && g_cond_wait_until(&call->cond, &call->lock, deadline))
		;
	done = call->done;
	g_mutex_unlock(&call->lock);
	return done;
}

JsonObject *
gnt_node_call_polling(GntRpcClient *client, JsonObject *node, const gchar *procedure,
		      JsonArray *args, guint timeout_s, guint poll_ms, GntNodeCallPollFunc poll,
		      gpointer user_data, GError **error)
{
	g_autoptr(JsonNode) result = NULL;
	PollingCall call = {.client = client,
			    .node = node,
			    .procedure = procedure,
			    .args = args,
			    .timeout_s = timeout_s};
	GThread *thread;
	const gchar *name = NULL;

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(client), NULL);
	g_return_val_if_fail(node != NULL && procedure != NULL && args != NULL, NULL);

	g_mutex_init(&call.lock);
	g_cond_init(&call.cond);
	/* the node record and the arguments are only read, by both threads */
	thread = g_thread_new("gnt-polling-call", polling_call_thread, &call);
	while (!polling_call_wait(&call, poll_ms)) {
		if (poll != NULL)
			poll(user_data);
	}
	g_thread_join(thread);
	g_mutex_clear(&call.lock);
	g_cond_clear(&call.cond);
	result = call.result;
	if (result == NULL) {
		g_propagate_error(error, call.error);
		return NULL;
	}
	if (!JSON_NODE_HOLDS_OBJECT(result)) {
		(void)gnt_json_get_string(node, "name", &name, NULL);
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "node '%s': %s: malformed answer: %s", name, procedure,
			    gnt_json_node_type_name(result));
		return NULL;
	}
	return json_object_ref(json_node_get_object(result));
}

/* The master's side of one appliance run. */
typedef struct {
	GntRpcClient *client;
	JsonObject *node;
	const gchar *token;
	gint64 next; /* the first seq not handed on yet */
	GntNodeCallApplianceProgressFunc progress;
	gpointer user_data;
} ApplianceRun;

/* Hands the entries of @entries not handed on yet to the callback. */
static void
report_entries(ApplianceRun *run, JsonArray *entries)
{
	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonNode *element = json_array_get_element(entries, i);
		JsonObject *entry = JSON_NODE_HOLDS_OBJECT(element) ? json_node_get_object(element)
								     : NULL;
		gint64 seq = -1;

		if (entry == NULL || !gnt_json_get_int(entry, "seq", &seq, NULL) || seq < run->next)
			continue;
		run->next = seq + 1;
		if (run->progress != NULL)
			run->progress(entry, run->user_data);
	}
}

static void
poll_progress(gpointer user_data)
{
	ApplianceRun *run = user_data;
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) answer = NULL;
	JsonArray *entries = NULL;
	const gchar *state = NULL;

	json_array_add_string_element(args, run->token);
	answer = gnt_node_call(run->client, run->node, "appliance_run_status", args,
			       GNT_NODE_CALL_TIMEOUT_S, &local_error);
	if (answer == NULL || !JSON_NODE_HOLDS_OBJECT(answer)) {
		/* the run goes on, and its own answer will tell */
		g_debug("appliance_run_status: %s",
			local_error != NULL ? local_error->message : "malformed answer");
		return;
	}
	if (!gnt_json_get_string(json_node_get_object(answer), "state", &state, NULL) ||
	    g_strcmp0(state, "running") != 0 ||
	    !gnt_json_get_array(json_node_get_object(answer), "entries", &entries, NULL))
		return;
	report_entries(run, entries);
}

JsonObject *
gnt_node_call_appliance_run(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    JsonObject *options, GntNodeCallApplianceProgressFunc progress,
			    gpointer user_data, GError **error)
{
	g_autofree gchar *token = g_uuid_string_random();
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(JsonObject) result = NULL;
	ApplianceRun run = {.client = client,
			    .node = node,
			    .token = token,
			    .progress = progress,
			    .user_data = user_data};
	JsonArray *steps = NULL;
	gint64 timeout = 1800;
	guint timeout_s;

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(client), NULL);
	g_return_val_if_fail(node != NULL && spec != NULL && options != NULL, NULL);

	if (json_object_has_member(options, "timeout"))
		(void)gnt_json_get_int(options, "timeout", &timeout, NULL);
	timeout_s = (guint)CLAMP(timeout, 1, 24 * 3600) + GNT_NODE_CALL_APPLIANCE_MARGIN_S;
	json_array_add_object_element(args, json_object_ref(spec));
	json_array_add_string_element(args, token);
	json_array_add_object_element(args, json_object_ref(options));
	result = gnt_node_call_polling(client, node, "appliance_run", args, timeout_s,
				       GNT_NODE_CALL_APPLIANCE_POLL_MS, poll_progress, &run, error);
	if (result == NULL)
		return NULL;
	/* what the last poll missed */
	if (gnt_json_get_array(result, "steps", &steps, NULL))
		report_entries(&run, steps);
	return g_steal_pointer(&result);
}
