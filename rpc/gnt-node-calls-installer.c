#include "gnt-node-calls-installer.h"

#include "gnt-error.h"
#include "gnt-json.h"

/* The master's side of one installer run: the events handed on so far. */
typedef struct {
	GntRpcClient *client;
	JsonObject *node;
	const gchar *token;
	gint64 next_seq;
	GntNodeCallInstallerEventFunc event_cb;
	gpointer user_data;
} InstallerWatch;

static void
hand_on(InstallerWatch *watch, JsonArray *events)
{
	gnt_node_call_hand_on_seq(events, &watch->next_seq, watch->event_cb, watch->user_data);
}

static void
poll_events(gpointer user_data)
{
	InstallerWatch *watch = user_data;
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) answer =
		gnt_node_call_procedure(watch->client, watch->node, "installer_run_status",
					GNT_RPC_VALUES({.s = watch->token}), NULL, &local_error);
	JsonArray *events = NULL;

	/* a failed poll changes nothing: the run's own answer will tell */
	if (answer != NULL && JSON_NODE_HOLDS_OBJECT(answer) &&
	    gnt_json_get_array(json_node_get_object(answer), "events", &events, NULL))
		hand_on(watch, events);
}

JsonObject *
gnt_node_call_installer_run(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    JsonObject *options, GntNodeCallInstallerEventFunc event_cb,
			    gpointer user_data, GError **error)
{
	g_autofree gchar *token = g_uuid_string_random();
	InstallerWatch watch = {client, node, token, 0, event_cb, user_data};
	g_autoptr(JsonArray) args = NULL;
	g_autoptr(JsonObject) result = NULL;
	JsonArray *events = NULL;
	gint64 clocks = 0;
	static const gchar *const clock_names[] = {"timeout_start", "timeout_end", "grace"};
	static const gint64 clock_defaults[] = {GNT_INSTALLER_TIMEOUT_START_S,
						GNT_INSTALLER_TIMEOUT_END_S, GNT_INSTALLER_GRACE_S};

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(client), NULL);
	g_return_val_if_fail(node != NULL && spec != NULL && options != NULL, NULL);

	for (guint i = 0; i < G_N_ELEMENTS(clock_names); i++) {
		gint64 value = clock_defaults[i];

		if (json_object_has_member(options, clock_names[i]))
			(void)gnt_json_get_int(options, clock_names[i], &value, NULL);
		clocks += CLAMP(value, 0, 7 * 24 * 3600);
	}
	args = gnt_rpc_args_encode(gnt_rpc_procedure_def_lookup("installer_run"),
				   GNT_RPC_VALUES({.obj = spec}, {.s = token}, {.obj = options}));
	result = gnt_node_call_polling(client, node, "installer_run", args,
				       (guint)clocks + GNT_NODE_CALL_INSTALLER_MARGIN_S,
				       GNT_NODE_CALL_INSTALLER_POLL_MS, poll_events, &watch, error);
	if (result == NULL)
		return NULL;
	if (gnt_json_get_array(result, "events", &events, NULL))
		hand_on(&watch, events);
	return g_steal_pointer(&result);
}
