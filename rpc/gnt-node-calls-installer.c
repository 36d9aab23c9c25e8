#include "gnt-node-calls-installer.h"

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-node-calls-session.h"

guint
gnt_node_call_installer_timeout(JsonObject *options)
{
	static const gchar *const clock_names[] = {"timeout_start", "timeout_end", "grace"};
	static const gint64 clock_defaults[] = {GNT_INSTALLER_TIMEOUT_START_S,
						GNT_INSTALLER_TIMEOUT_END_S, GNT_INSTALLER_GRACE_S};
	gint64 clocks = 0;

	for (guint i = 0; i < G_N_ELEMENTS(clock_names); i++) {
		gint64 value = clock_defaults[i];

		if (json_object_has_member(options, clock_names[i]))
			(void)gnt_json_get_int(options, clock_names[i], &value, NULL);
		clocks += CLAMP(value, 0, 7 * 24 * 3600);
	}
	return (guint)clocks + GNT_NODE_CALL_INSTALLER_MARGIN_S;
}

gchar *
gnt_node_call_installer_start(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      JsonObject *options, GError **error)
{
	return gnt_node_call_session_start(client, node, "installer_start", spec, options, error);
}

JsonObject *
gnt_node_call_installer_run(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    JsonObject *options, GntNodeCallInstallerEventFunc event_cb,
			    gpointer user_data, GError **error)
{
	g_autofree gchar *token = gnt_node_call_installer_start(client, node, spec, options, error);
	gint64 next = 0;

	if (token == NULL)
		return NULL;
	return gnt_node_call_session_follow(client, node, "installer_start", token, &next,
					    gnt_node_call_installer_timeout(options), event_cb,
					    user_data, NULL, error);
}
