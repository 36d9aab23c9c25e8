#include "gnt-node-calls-image.h"

#include "gnt-error.h"
#include "gnt-json.h"

/* What was last said, so that only news reaches the job log. */
typedef struct {
	gchar *phase;
	gint decile; /* -1: none yet */
	gint64 when; /* monotonic */
} LastLine;

/* The master's side of one image write. */
typedef struct {
	GntRpcClient *client;
	JsonObject *node;
	const gchar *token;
	LastLine last;
	GntNodeCallImageProgressFunc progress;
	gpointer user_data;
} ImageWrite;

/* Asks the node for the progress and passes news on (GntNodeCallPollFunc). */
static void
poll_progress(gpointer data)
{
	ImageWrite *write = data;
	GntRpcClient *client = write->client;
	JsonObject *node = write->node;
	const gchar *token = write->token;
	LastLine *last = &write->last;
	GntNodeCallImageProgressFunc progress = write->progress;
	gpointer user_data = write->user_data;
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) answer = NULL;
	JsonObject *status;
	const gchar *state = NULL, *phase = NULL, *line = NULL;
	gdouble percent = 0;
	gint decile;
	gint64 now = g_get_monotonic_time();

	answer = gnt_node_call_procedure(client, node, "image_write_status",
					 GNT_RPC_VALUES({.s = token}), NULL, &local_error);
	if (answer == NULL || !JSON_NODE_HOLDS_OBJECT(answer)) {
		/* the write goes on, and its own answer will tell */
		g_debug("image_write_status: %s",
			local_error != NULL ? local_error->message : "malformed answer");
		return;
	}
	status = json_node_get_object(answer);
	if (!gnt_json_get_string(status, "state", &state, NULL) ||
	    g_strcmp0(state, "running") != 0 ||
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
	const gchar *cache = NULL;
	g_autofree gchar *from_cache = NULL;
	gint64 bytes = 0;
	gdouble seconds = 0, rate = 0;
	g_autofree gchar *line = NULL;

	if (progress == NULL)
		return;
	(void)gnt_json_get_string(result, "format", &format, NULL);
	(void)gnt_json_get_int(result, "virtual_bytes", &bytes, NULL);
	(void)gnt_json_get_double(result, "write_seconds", &seconds, NULL);
	(void)gnt_json_get_double(result, "mb_per_s", &rate, NULL);
	/* how the node's artifact cache served it, when it did */
	if (gnt_json_get_string(result, "cache", &cache, NULL) && g_strcmp0(cache, "off") != 0)
		from_cache = g_strdup_printf(", artifact cache: %s", cache);
	line = g_strdup_printf("disk 0: image written (%s, %.1f MB%s) in %.1f s, %.1f MB/s", format,
			       (gdouble)bytes / 1e6, from_cache != NULL ? from_cache : "", seconds,
			       rate);
	progress(line, user_data);
}

JsonObject *
gnt_node_call_image_write(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			  const gchar *location, const gchar *sha256,
			  GntNodeCallImageProgressFunc progress, gpointer user_data, GError **error)
{
	return gnt_node_call_image_write_cached(client, node, spec, location, sha256, 0, progress,
						user_data, error);
}

JsonObject *
gnt_node_call_image_write_cached(GntRpcClient *client, JsonObject *node, JsonObject *spec,
				 const gchar *location, const gchar *sha256, guint64 cache_bytes,
				 GntNodeCallImageProgressFunc progress, gpointer user_data,
				 GError **error)
{
	g_autofree gchar *token = g_uuid_string_random();
	const GntRpcProcedureDef *def = gnt_rpc_procedure_def_lookup("image_write");
	g_autoptr(JsonArray) args = NULL;
	JsonObject *result;
	ImageWrite write = {.client = client,
			    .node = node,
			    .token = token,
			    .last = {.decile = -1, .when = g_get_monotonic_time()},
			    .progress = progress,
			    .user_data = user_data};

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(client), NULL);
	g_return_val_if_fail(node != NULL && spec != NULL && location != NULL, NULL);

	args = gnt_rpc_args_encode(def,
				   GNT_RPC_VALUES({.obj = spec}, {.s = location}, {.s = sha256},
						  {.s = token}, {.u = cache_bytes}));
	result = gnt_node_call_polling(client, node, def->name, args, def->timeout_s,
				       GNT_NODE_CALL_IMAGE_POLL_MS, poll_progress, &write, error);
	g_free(write.last.phase);
	if (result == NULL)
		return NULL;
	report_result(result, progress, user_data);
	return result;
}
