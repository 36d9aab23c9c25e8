/* rpc/gnt-node-calls-verify.c: the master's typed node_verify. */
#include "gnt-node-calls-verify.h"

#include "gnt-error.h"
#include "gnt-json.h"

static JsonArray *
strv_to_array(const gchar *const *strv)
{
	JsonArray *array = json_array_new();

	for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
		json_array_add_string_element(array, strv[i]);
	return array;
}

JsonObject *
gnt_node_call_node_verify(GntRpcClient *client, JsonObject *node, const gchar *const *hypervisors,
			  JsonObject *storage, const gchar *const *os_search_path, GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();
	JsonObject *params = json_object_new();
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(storage != NULL, NULL);

	json_object_set_array_member(params, "hypervisors", strv_to_array(hypervisors));
	json_object_set_object_member(params, "storage", json_object_ref(storage));
	json_object_set_array_member(params, "os_search_path", strv_to_array(os_search_path));
	json_array_add_object_element(args, params);
	result = gnt_node_call(client, node, "node_verify", args, GNT_NODE_CALL_VERIFY_TIMEOUT_S,
			       error);
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
