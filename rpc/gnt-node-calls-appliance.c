#include "gnt-node-calls-appliance.h"

#include "gnt-error.h"
#include "gnt-json.h"

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
	gnt_node_call_hand_on_seq(entries, &run->next, run->progress, run->user_data);
}

static void
poll_progress(gpointer user_data)
{
	ApplianceRun *run = user_data;
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) answer = NULL;
	JsonArray *entries = NULL;
	const gchar *state = NULL;

	answer = gnt_node_call_procedure(run->client, run->node, "appliance_run_status",
					 GNT_RPC_VALUES({.s = run->token}), NULL, &local_error);
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
	g_autoptr(JsonArray) args = NULL;
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
	args = gnt_rpc_args_encode(gnt_rpc_procedure_def_lookup("appliance_run"),
				   GNT_RPC_VALUES({.obj = spec}, {.s = token}, {.obj = options}));
	result = gnt_node_call_polling(client, node, "appliance_run", args, timeout_s,
				       GNT_NODE_CALL_APPLIANCE_POLL_MS, poll_progress, &run, error);
	if (result == NULL)
		return NULL;
	/* what the last poll missed */
	if (gnt_json_get_array(result, "steps", &steps, NULL))
		report_entries(&run, steps);
	return g_steal_pointer(&result);
}
