#include "gnt-cli-objects.h"

#include "gnt-json.h"

JsonNode *
gnt_cli_name_filter(gchar **names)
{
	JsonArray *filter;

	if (names == NULL || names[0] == NULL)
		return NULL;
	filter = json_array_new();
	json_array_add_string_element(filter, "|");
	for (guint i = 0; names[i] != NULL; i++) {
		JsonArray *cond = json_array_new();

		json_array_add_string_element(cond, "=");
		json_array_add_string_element(cond, "name");
		json_array_add_string_element(cond, names[i]);
		json_array_add_array_element(filter, cond);
	}
	return gnt_json_node_new_array(filter);
}

gint
gnt_cli_list_objects(GntCli *cli, const gchar *resource, gchar **names,
		     const gchar *const *defaults, const GntCliFormatOverride *overrides)
{
	g_auto(GStrv) fields = gnt_cli_parse_fields(gnt_cli_get_options(cli)->output, defaults);
	g_autoptr(GError) error = NULL;
	gint exit_code = 0;

	if (!gnt_cli_generic_list(cli, resource, fields, gnt_cli_name_filter(names), overrides,
				  &exit_code, &error))
		return gnt_cli_fail(cli, error);
	return exit_code;
}

gint
gnt_cli_list_object_fields(GntCli *cli, const gchar *resource, gchar **fields)
{
	g_autoptr(GError) error = NULL;
	gint exit_code = 0;

	if (!gnt_cli_generic_list_fields(cli, resource, fields, &exit_code, &error))
		return gnt_cli_fail(cli, error);
	return exit_code;
}

gchar *
gnt_cli_format_comma_list(JsonNode *value)
{
	GString *out = g_string_new(NULL);
	JsonArray *items = JSON_NODE_HOLDS_ARRAY(value) ? json_node_get_array(value) : NULL;

	if (items == NULL) {
		g_autofree gchar *text = gnt_cli_py_str(value);

		g_string_append(out, text);
	}
	for (guint i = 0; items != NULL && i < json_array_get_length(items); i++) {
		g_autofree gchar *item = gnt_cli_py_str(json_array_get_element(items, i));

		if (i > 0)
			g_string_append_c(out, ',');
		g_string_append(out, item);
	}
	return g_string_free(out, FALSE);
}

static JsonObject *
object_or_null(JsonNode *node)
{
	return node != NULL && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

JsonNode *
gnt_cli_format_params(JsonNode *custom, JsonNode *actual)
{
	JsonObject *own = object_or_null(custom);
	JsonObject *filled = object_or_null(actual);
	JsonObject *out = json_object_new();
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (filled == NULL)
		return gnt_json_node_new_object(out);
	json_object_iter_init(&iter, filled);
	while (json_object_iter_next(&iter, &key, &value)) {
		JsonNode *mine = own != NULL ? json_object_get_member(own, key) : NULL;
		g_autofree gchar *text = NULL;

		if (JSON_NODE_HOLDS_OBJECT(value) &&
		    json_object_get_size(json_node_get_object(value)) > 0) {
			json_object_set_member(out, key, gnt_cli_format_params(mine, value));
			continue;
		}
		if (mine != NULL) {
			text = gnt_cli_py_str(mine);
		} else {
			g_autofree gchar *default_text = gnt_cli_py_str(value);

			text = g_strdup_printf("default (%s)", default_text);
		}
		json_object_set_string_member(out, key, text);
	}
	return gnt_json_node_new_object(out);
}

JsonNode *
gnt_cli_row_value(JsonArray *row, guint index)
{
	JsonNode *cell = index < json_array_get_length(row) ? json_array_get_element(row, index)
							    : NULL;
	JsonArray *pair = cell != NULL && JSON_NODE_HOLDS_ARRAY(cell) ? json_node_get_array(cell)
								       : NULL;

	if (pair == NULL || json_array_get_length(pair) != 2 ||
	    !gnt_json_node_is_int(json_array_get_element(pair, 0)) ||
	    json_array_get_int_element(pair, 0) != 0)
		return NULL;
	return json_array_get_element(pair, 1);
}
