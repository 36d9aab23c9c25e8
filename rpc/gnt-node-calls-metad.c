/* rpc/gnt-node-calls-metad.c: the master's typed metad_push and metad_remove. */
#include "gnt-node-calls-metad.h"

#include "gnt-json.h"

gboolean
gnt_node_call_metad_push(GntRpcClient *client, JsonObject *node, const gchar *name,
			 JsonObject *record, const GntSecretDict *osparams_secret, GError **error)
{
	g_autoptr(GntSecretDict) none = NULL;
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(JsonObject) copy = NULL;
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(name != NULL && record != NULL, FALSE);

	/* the caller's record stays without the secrets */
	copy = gnt_json_object_deep_copy(record);
	json_object_remove_member(copy, "osparams_secret");
	json_object_set_member(copy, "osparams_secret", gnt_secret_dict_placeholder_all());
	if (osparams_secret == NULL)
		osparams_secret = none = gnt_secret_dict_new();
	json_array_add_string_element(args, name);
	json_array_add_object_element(args, json_object_ref(copy));
	result = gnt_node_call_with_secrets(client, node, "metad_push", args, osparams_secret,
					    GNT_NODE_CALL_METAD_TIMEOUT_S, error);
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
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(name != NULL, FALSE);

	json_array_add_string_element(args, name);
	result = gnt_node_call(client, node, "metad_remove", args, GNT_NODE_CALL_METAD_TIMEOUT_S,
			       error);
	return result != NULL;
}
