/* rpc/gnt-node-calls-verify.c: the master's typed node_verify. */
#include "gnt-node-calls-verify.h"

#include "gnt-error.h"
#include "gnt-json.h"

JsonObject *
gnt_node_call_node_verify(GntRpcClient *client, JsonObject *node, const gchar *const *hypervisors,
			  JsonObject *storage, const gchar *const *os_search_path, GError **error)
{
	g_autoptr(JsonObject) params = json_object_new();
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(storage != NULL, NULL);

	json_object_set_array_member(params, "hypervisors", gnt_rpc_strv_to_array(hypervisors));
	json_object_set_object_member(params, "storage", json_object_ref(storage));
	json_object_set_array_member(params, "os_search_path",
				     gnt_rpc_strv_to_array(os_search_path));
	result = gnt_node_call_procedure(client, node, "node_verify",
					 GNT_RPC_VALUES({.obj = params}), NULL, error);
	if (result == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(result)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "node '%s': node_verify answered a %s, not an object",
			    json_object_get_string_member_with_default(node, "name", "?"),
			    gnt_json_node_type_name(result));
		return NULL;
	}
	return json_object_ref(json_node_get_object(result));
}
