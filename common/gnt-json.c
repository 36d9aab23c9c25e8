#include "gnt-json.h"

#include "gnt-error.h"
#include "gnt-secret.h"

gboolean
gnt_json_check_nesting(const gchar *data, gsize len, guint max_depth, GError **error)
{
	gboolean in_string = FALSE;
	gboolean escaped = FALSE;
	guint depth = 0;

	for (gsize i = 0; i < len; i++) {
		gchar c = data[i];

		if (in_string) {
			if (escaped)
				escaped = FALSE;
			else if (c == '\\')
				escaped = TRUE;
			else if (c == '"')
				in_string = FALSE;
			continue;
		}
		if (c == '"') {
			in_string = TRUE;
		} else if (c == '[' || c == '{') {
			if (++depth > max_depth) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "JSON nests deeper than %u levels", max_depth);
				return FALSE;
			}
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return TRUE;
}

JsonNode *
gnt_json_parse(const gchar *data, gssize len, GError **error)
{
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GError) error_local = NULL;
	JsonNode *root;

	if (len < 0)
		len = strlen(data);
	/* json-glib recurses per level: deep input would overflow the stack */
	if (!gnt_json_check_nesting(data, (gsize)len, GNT_JSON_MAX_NESTING, error))
		return NULL;
	if (!g_utf8_validate(data, len, NULL)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "JSON text is not valid UTF-8");
		return NULL;
	}
	if (!json_parser_load_from_data(parser, data, len, &error_local)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "invalid JSON: %s", error_local->message);
		return NULL;
	}
	root = json_parser_get_root(parser);
	if (root == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "invalid JSON: empty document");
		return NULL;
	}
	return json_node_ref(root);
}

gchar *
gnt_json_to_string(JsonNode *node)
{
	g_autoptr(JsonGenerator) gen = json_generator_new();
	g_autofree gchar *text = NULL;
	gsize n, n_raw = 0, o = 0;
	gchar *out;

	json_generator_set_root(gen, node);
	text = json_generator_to_data(gen, &n);
	/* json-glib 1.6 leaves some control bytes (0x1f) raw inside strings;
	 * strict parsers such as Python's refuse them. Compact output has
	 * control bytes only inside strings, so escaping them all is safe. */
	for (gsize i = 0; i < n; i++) {
		if ((guchar)text[i] < 0x20)
			n_raw++;
	}
	if (n_raw == 0)
		return g_steal_pointer(&text);
	out = g_malloc(n + n_raw * 5 + 1);
	for (gsize i = 0; i < n; i++) {
		guchar c = (guchar)text[i];
		if (c < 0x20) {
			g_snprintf(out + o, 7, "\\u%04x", c);
			o += 6;
		} else {
			out[o++] = (gchar)c;
		}
	}
	out[o] = '\0';
	gnt_secret_wipe(text, n); /* it may hold secrets */
	return out;
}

const gchar *
gnt_json_node_type_name(JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return "null";
	if (JSON_NODE_HOLDS_OBJECT(node))
		return "object";
	if (JSON_NODE_HOLDS_ARRAY(node))
		return "list";
	switch (json_node_get_value_type(node)) {
	case G_TYPE_STRING:
		return "string";
	case G_TYPE_INT64:
		return "integer";
	case G_TYPE_DOUBLE:
		return "number";
	case G_TYPE_BOOLEAN:
		return "boolean";
	default:
		return "value";
	}
}

static gboolean
node_holds_value_type(JsonNode *node, GType type)
{
	return node != NULL && JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == type;
}

gboolean
gnt_json_node_is_int(JsonNode *node)
{
	return node_holds_value_type(node, G_TYPE_INT64);
}

gboolean
gnt_json_node_is_number(JsonNode *node)
{
	return node_holds_value_type(node, G_TYPE_INT64) || node_holds_value_type(node, G_TYPE_DOUBLE);
}

gboolean
gnt_json_node_get_int(JsonNode *node, const gchar *what, gint64 *out, GError **error)
{
	if (!gnt_json_node_is_int(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s must be an integer, not %s", what,
			    gnt_json_node_type_name(node));
		return FALSE;
	}
	*out = json_node_get_int(node);
	return TRUE;
}

gboolean
gnt_json_node_get_number(JsonNode *node, const gchar *what, gdouble *out, GError **error)
{
	if (!gnt_json_node_is_number(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s must be a number, not %s", what,
			    gnt_json_node_type_name(node));
		return FALSE;
	}
	*out = json_node_get_double(node); /* json-glib converts integers */
	return TRUE;
}

gboolean
gnt_json_node_get_string(JsonNode *node, const gchar *what, const gchar **out, GError **error)
{
	if (!node_holds_value_type(node, G_TYPE_STRING)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s must be a string, not %s", what,
			    gnt_json_node_type_name(node));
		return FALSE;
	}
	*out = json_node_get_string(node);
	return TRUE;
}

static JsonNode *
member_or_error(JsonObject *obj, const gchar *key, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);

	if (node == NULL)
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' is missing", key);
	return node;
}

gboolean
gnt_json_get_string(JsonObject *obj, const gchar *key, const gchar **out, GError **error)
{
	g_autofree gchar *what = g_strdup_printf("'%s'", key);
	JsonNode *node = member_or_error(obj, key, error);

	return node != NULL && gnt_json_node_get_string(node, what, out, error);
}

gboolean
gnt_json_dup_string(JsonObject *obj, const gchar *key, gchar **out, GError **error)
{
	const gchar *value = NULL;

	if (!gnt_json_get_string(obj, key, &value, error))
		return FALSE;
	*out = g_strdup(value);
	return TRUE;
}

gboolean
gnt_json_get_int(JsonObject *obj, const gchar *key, gint64 *out, GError **error)
{
	g_autofree gchar *what = g_strdup_printf("'%s'", key);
	JsonNode *node = member_or_error(obj, key, error);

	return node != NULL && gnt_json_node_get_int(node, what, out, error);
}

gboolean
gnt_json_get_double(JsonObject *obj, const gchar *key, gdouble *out, GError **error)
{
	g_autofree gchar *what = g_strdup_printf("'%s'", key);
	JsonNode *node = member_or_error(obj, key, error);

	return node != NULL && gnt_json_node_get_number(node, what, out, error);
}

gboolean
gnt_json_get_bool(JsonObject *obj, const gchar *key, gboolean *out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!node_holds_value_type(node, G_TYPE_BOOLEAN)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' must be a boolean, not %s", key,
			    gnt_json_node_type_name(node));
		return FALSE;
	}
	*out = json_node_get_boolean(node);
	return TRUE;
}

gboolean
gnt_json_get_array(JsonObject *obj, const gchar *key, JsonArray **out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!JSON_NODE_HOLDS_ARRAY(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' must be a list, not %s", key,
			    gnt_json_node_type_name(node));
		return FALSE;
	}
	*out = json_node_get_array(node);
	return TRUE;
}

gboolean
gnt_json_get_object(JsonObject *obj, const gchar *key, JsonObject **out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' must be an object, not %s", key,
			    gnt_json_node_type_name(node));
		return FALSE;
	}
	*out = json_node_get_object(node);
	return TRUE;
}

JsonNode *
gnt_json_node_new_string(const gchar *value)
{
	JsonNode *node = json_node_alloc();

	if (value == NULL)
		return json_node_init_null(node);
	return json_node_init_string(node, value);
}

JsonNode *
gnt_json_node_new_int(gint64 value)
{
	return json_node_init_int(json_node_alloc(), value);
}

JsonNode *
gnt_json_node_new_double(gdouble value)
{
	return json_node_init_double(json_node_alloc(), value);
}

JsonNode *
gnt_json_node_new_bool(gboolean value)
{
	return json_node_init_boolean(json_node_alloc(), value);
}

JsonNode *
gnt_json_node_new_null(void)
{
	return json_node_init_null(json_node_alloc());
}

JsonNode *
gnt_json_node_new_array(JsonArray *array)
{
	JsonNode *node = json_node_init_array(json_node_alloc(), array);

	json_array_unref(array);
	return node;
}

JsonNode *
gnt_json_node_new_object(JsonObject *object)
{
	JsonNode *node = json_node_init_object(json_node_alloc(), object);

	json_object_unref(object);
	return node;
}
