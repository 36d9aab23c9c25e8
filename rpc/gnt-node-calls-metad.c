/* rpc/gnt-node-calls-metad.c: the master's typed metad_push and metad_remove. */
#include "gnt-node-calls-metad.h"

#include "gnt-json.h"

gboolean
gnt_node_call_metad_push(GntRpcClient *client, JsonObject *node, const gchar *name,
			 JsonObject *record, const GntSecretDict *osparams_secret, GError **error)
{
	g_autoptr(GntSecretDict) none = NULL;
	g_autoptr(JsonObject) copy = NULL;
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(name != NULL && record != NULL, FALSE);

	/* the caller's record stays without the secrets */
	copy = gnt_json_object_deep_copy(record);
	json_object_remove_member(copy, "osparams_secret");
	json_object_set_member(copy, "osparams_secret", gnt_secret_dict_placeholder_all());
	if (osparams_secret == NULL)
		osparams_secret = none = gnt_secret_dict_new();
	result = gnt_node_call_procedure(client, node, "metad_push",
					 GNT_RPC_VALUES({.s = name}, {.obj = copy}),
					 osparams_secret, error);
	if (result == NULL) {
		g_prefix_error(error, "pushing the metadata of instance '%s': ", name);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_node_call_metad_remove(GntRpcClient *client, JsonObject *node, const gchar *name,
			   GError **error)
{
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(name != NULL, FALSE);

	result = gnt_node_call_procedure(client, node, "metad_remove", GNT_RPC_VALUES({.s = name}),
					 NULL, error);
	return result != NULL;
}
