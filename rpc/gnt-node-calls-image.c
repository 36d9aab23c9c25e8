#include "gnt-node-calls-image.h"

#include "gnt-error.h"
#include "gnt-json.h"

/* The image_write call, made in a thread of its own so that the calling
 * thread can ask for the progress meanwhile. */
typedef struct {
	GntRpcClient *client;
	JsonObject *node;
	JsonArray *args;
	GMutex lock;
	GCond cond;
	gboolean done;
	JsonNode *result;
	GError *error;
} ImageCall;

static gpointer
image_call_thread(gpointer data)
{
	ImageCall *call = data;
	GError *local_error = NULL;
	JsonNode *result = gnt_node_call(call->client, call->node, "image_write", call->args,
					 GNT_NODE_CALL_IMAGE_WRITE_TIMEOUT_S, &local_error);

	g_mutex_lock(&call->lock);
	call->result = result;
	call->error = local_error;
	call->done = TRUE;
	g_cond_signal(&call->cond);
	g_mutex_unlock(&call->lock);
	return NULL;
}

/* Waits up to GNT_NODE_CALL_IMAGE_POLL_MS for the call; whether it is done. */
static gboolean
image_call_wait(ImageCall *call)
{
	gint64 deadline = g_get_monotonic_time() + GNT_NODE_CALL_IMAGE_POLL_MS * 1000;
	gboolean done;

	g_mutex_lock(&call->lock);
	while (!call->done && g_cond_wait_until(&call->cond, &call->lock, deadline))
		;
	done = call->done;
	g_mutex_unlock(&call->lock);
	return done;
}

/* What was last said, so that only news reaches the job log. */
typedef struct {
	gchar *phase;
	gint decile; /* -1: none yet */
	gint64 when; /* monotonic */
} LastLine;

/* Asks the node for the progress and passes news on to @progress. */
static void
poll_progress(GntRpcClient *client, JsonObject *node, const gchar *token, LastLine *last,
	      GntNodeCallImageProgressFunc progress, gpointer user_data)
{
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) answer = NULL;
	JsonObject *status;
	const gchar *state = NULL, *phase = NULL, *line = NULL;
	gdouble percent = 0;
	gint decile;
	gint64 now = g_get_monotonic_time();

	json_array_add_string_element(args, token);
	answer = gnt_node_call(client, node, "image_write_status", args, GNT_NODE_CALL_TIMEOUT_S,
			       &local_error);
	if (answer == NULL || !JSON_NODE_HOLDS_OBJECT(answer)) {
		/* the write goes on, and its own answer will tell */
		g_debug("image_write_status: %s",
			local_error != NULL ? local_error->message : "malformed answer");
		return;
	}
	status = json_node_get_object(answer);
	if (!gnt_json_get_string(status, "state", &state, NULL) || g_strcmp0(state, "running") != 0 ||
	    !gnt_json_get_string(status, "phase", &phase, NULL) ||
	    !gnt_json_get_string(status, "line", &line, NULL) ||
	    !gnt_json_get_double(status, "percent", &percent, NULL))
		return;
	decile = (gint)(percent / 10); /* percent >= 0: truncation is floor */
	if (g_strcmp0(phase, last->phase) == 0 && decile == last->decile &&
	    now - last->when < GNT_NODE_CALL_IMAGE_LINE_INTERVAL_S * G_USEC_PER_SEC)
		return;
	g_free(last->phase);
	last->phase = g_strdup(phase);
	last->decile = decile;
	last->when = now;
	if (progress != NULL) {
		g_autofree gchar *text = g_strdup_printf("disk 0: %s", line);

		progress(text, user_data);
	}
}

/* The final line from the node's answer. */
static void
report_result(JsonObject *result, GntNodeCallImageProgressFunc progress, gpointer user_data)
{
	const gchar *format = "?";
	gint64 bytes = 0;
	gdouble seconds = 0, rate = 0;
	g_autofree gchar *line = NULL;

	if (progress == NULL)
		return;
	(void)gnt_json_get_string(result, "format", &format, NULL);
	(void)gnt_json_get_int(result, "virtual_bytes", &bytes, NULL);
	(void)gnt_json_get_double(result, "write_seconds", &seconds, NULL);
	(void)gnt_json_get_double(result, "mb_per_s", &rate, NULL);
	line = g_strdup_printf("disk 0: image written (%s, %.1f MB) in %.1f s, %.1f MB/s", format,
			       (gdouble)bytes / 1e6, seconds, rate);
	progress(line, user_data);
}

JsonObject *
gnt_node_call_image_write(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			  const gchar *location, const gchar *sha256,
			  GntNodeCallImageProgressFunc progress, gpointer user_data,
			  GError **error)
{
	g_autofree gchar *token = g_uuid_string_random();
	g_autoptr(JsonNode) result = NULL;
	ImageCall call = {.client = client, .node = node};
	LastLine last = {.decile = -1, .when = g_get_monotonic_time()};
	GThread *thread;
	const gchar *name = NULL;

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(client), NULL);
	g_return_val_if_fail(node != NULL && spec != NULL && location != NULL, NULL);

	call.args = json_array_new();
	json_array_add_object_element(call.args, json_object_ref(spec));
	json_array_add_string_element(call.args, location);
	if (sha256 != NULL)
		json_array_add_string_element(call.args, sha256);
	else
		json_array_add_null_element(call.args);
	json_array_add_string_element(call.args, token);
	g_mutex_init(&call.lock);
	g_cond_init(&call.cond);
	/* the node record is only read, by both threads */
	thread = g_thread_new("gnt-image-call", image_call_thread, &call);
	while (!image_call_wait(&call))
		poll_progress(client, node, token, &last, progress, user_data);
	g_thread_join(thread);
	g_mutex_clear(&call.lock);
	g_cond_clear(&call.cond);
	json_array_unref(call.args);
	g_free(last.phase);
	result = call.result;
	if (result == NULL) {
		g_propagate_error(error, call.error);
		return NULL;
	}
	if (!JSON_NODE_HOLDS_OBJECT(result)) {
		(void)gnt_json_get_string(node, "name", &name, NULL);
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "node '%s': image_write: malformed answer: %s", name,
			    gnt_json_node_type_name(result));
		return NULL;
	}
	report_result(json_node_get_object(result), progress, user_data);
	return json_object_ref(json_node_get_object(result));
}
