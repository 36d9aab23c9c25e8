#include "gnt-node-calls-appliance.h"

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-node-calls-session.h"

gchar *
gnt_node_call_appliance_start(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      JsonObject *options, GError **error)
{
	return gnt_node_call_session_start(client, node, "appliance_start", spec, options, error);
}

guint
gnt_node_call_appliance_timeout(JsonObject *options)
{
	gint64 timeout = 1800;

	if (json_object_has_member(options, "timeout"))
		(void)gnt_json_get_int(options, "timeout", &timeout, NULL);
	return (guint)CLAMP(timeout, 1, 24 * 3600) + GNT_NODE_CALL_APPLIANCE_MARGIN_S;
}

JsonObject *
gnt_node_call_appliance_run(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    JsonObject *options, GntNodeCallApplianceProgressFunc progress,
			    gpointer user_data, GError **error)
{
	g_autofree gchar *token = gnt_node_call_appliance_start(client, node, spec, options, error);
	gint64 next = 0;

	if (token == NULL)
		return NULL;
	return gnt_node_call_session_follow(client, node, "appliance_start", token, &next,
					    gnt_node_call_appliance_timeout(options), progress,
					    user_data, NULL, error);
}
