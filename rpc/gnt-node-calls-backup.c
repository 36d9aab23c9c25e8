#include "gnt-node-calls-backup.h"

#include "gnt-error.h"
#include "gnt-json.h"

/* @procedure's answer, which must be of @type. (transfer full) */
static JsonNode *
backup_call(GntRpcClient *client, JsonObject *node, const gchar *procedure,
	    const GntRpcValue *values, guint n_values, JsonNodeType type, GError **error)
{
	JsonNode *result =
		gnt_node_call_procedure(client, node, procedure, values, n_values, NULL, error);

	if (result != NULL && JSON_NODE_TYPE(result) != type) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "%s: malformed answer: %s",
			    procedure, gnt_json_node_type_name(result));
		g_clear_pointer(&result, json_node_unref);
	}
	return result;
}

gboolean
gnt_node_call_export_disk(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			  guint disk_index, const gchar *compress, guint debug_level, gchar **dump,
			  GError **error)
{
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(compress != NULL, FALSE);

	result = backup_call(client, node, "export_disk",
			     GNT_RPC_VALUES({.obj = spec}, {.u = disk_index}, {.s = compress},
					    {.u = debug_level}),
			     JSON_NODE_OBJECT, error);
	if (result == NULL)
		return FALSE;
	if (dump != NULL &&
	    !gnt_json_dup_string(json_node_get_object(result), "dump", dump, error)) {
		g_prefix_error(error, "export_disk: malformed answer: ");
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_node_call_export_finalize(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      const gchar *compress, GError **error)
{
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(compress != NULL, FALSE);

	result = gnt_node_call_procedure(client, node, "export_finalize",
					 GNT_RPC_VALUES({.obj = spec}, {.s = compress}), NULL,
					 error);
	return result != NULL;
}

GStrv
gnt_node_call_export_list(GntRpcClient *client, JsonObject *node, GError **error)
{
	g_autoptr(JsonNode)
		result = backup_call(client, node, "export_list", NULL, 0, JSON_NODE_ARRAY, error);
	g_autoptr(GStrvBuilder) names = g_strv_builder_new();
	JsonArray *list;

	if (result == NULL)
		return NULL;
	list = json_node_get_array(result);
	for (guint i = 0; i < json_array_get_length(list); i++) {
		const gchar *name = NULL;

		if (!gnt_json_node_get_string(json_array_get_element(list, i), "export name", &name,
					      error)) {
			g_prefix_error(error, "export_list: malformed answer: ");
			return NULL;
		}
		g_strv_builder_add(names, name);
	}
	return g_strv_builder_end(names);
}

JsonObject *
gnt_node_call_export_info(GntRpcClient *client, JsonObject *node, const gchar *path, GError **error)
{
	g_autoptr(JsonNode) result = NULL;
	JsonObject *info;
	JsonObject *sections = NULL;
	const gchar *dir = NULL;

	g_return_val_if_fail(path != NULL, NULL);

	result = backup_call(client, node, "export_info", GNT_RPC_VALUES({.s = path}),
			     JSON_NODE_OBJECT, error);
	if (result == NULL)
		return NULL;
	info = json_node_get_object(result);
	if (!gnt_json_get_string(info, "path", &dir, error) ||
	    !gnt_json_get_object(info, "sections", &sections, error)) {
		g_prefix_error(error, "export_info: malformed answer: ");
		return NULL;
	}
	return json_object_ref(info);
}

gboolean
gnt_node_call_export_remove(GntRpcClient *client, JsonObject *node, const gchar *name,
			    gboolean *removed, GError **error)
{
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(name != NULL, FALSE);

	result = backup_call(client, node, "export_remove", GNT_RPC_VALUES({.s = name}),
			     JSON_NODE_VALUE, error);
	if (result == NULL)
		return FALSE;
	if (json_node_get_value_type(result) != G_TYPE_BOOLEAN) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "export_remove: malformed answer: %s", gnt_json_node_type_name(result));
		return FALSE;
	}
	if (removed != NULL)
		*removed = json_node_get_boolean(result);
	return TRUE;
}

gboolean
gnt_node_call_import_disk(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			  guint disk_index, const gchar *src_path, const gchar *dump,
			  const gchar *compress, guint debug_level, GError **error)
{
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(src_path != NULL && dump != NULL && compress != NULL, FALSE);

	result = gnt_node_call_procedure(client, node, "import_disk",
					 GNT_RPC_VALUES({.obj = spec}, {.u = disk_index},
							{.s = src_path}, {.s = dump},
							{.s = compress}, {.u = debug_level}),
					 NULL, error);
	return result != NULL;
}
