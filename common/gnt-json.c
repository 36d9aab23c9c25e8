#include "gnt-json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gnt-error.h"

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
		guint line = 0, column = 0;
		/* json-glib quotes the offending token, which may be a secret:
		 * say only where the syntax broke */
		if (sscanf(error_local->message, "%*[^:]:%u:%u", &line, &column) == 2)
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "invalid JSON at line %u, column %u", line, column);
		else
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "invalid JSON");
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
gnt_json_format_double(gdouble value)
{
	gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

	/* the shortest of 15 or 17 digits that reads back exactly */
	g_ascii_formatd(buf, sizeof(buf), "%.15g", value);
	if (g_ascii_strtod(buf, NULL) != value)
		g_ascii_formatd(buf, sizeof(buf), "%.17g", value);
	if (strpbrk(buf, ".eEn") == NULL)
		return g_strconcat(buf, ".0", NULL);
	return g_strdup(buf);
}

static void
write_string(GString *out, const gchar *str)
{
	g_string_append_c(out, '"');
	for (const guchar *p = (const guchar *)str; *p != '\0'; p++) {
		switch (*p) {
		case '"':
			g_string_append(out, "\\\"");
			break;
		case '\\':
			g_string_append(out, "\\\\");
			break;
		case '\n':
			g_string_append(out, "\\n");
			break;
		case '\t':
			g_string_append(out, "\\t");
			break;
		case '\r':
			g_string_append(out, "\\r");
			break;
		default:
			if (*p < 0x20)
				g_string_append_printf(out, "\\u%04x", *p);
			else
				g_string_append_c(out, (gchar)*p);
		}
	}
	g_string_append_c(out, '"');
}

static void
write_node(GString *out, JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node)) {
		g_string_append(out, "null");
	} else if (JSON_NODE_HOLDS_ARRAY(node)) {
		JsonArray *arr = json_node_get_array(node);
		g_string_append_c(out, '[');
		for (guint i = 0; i < json_array_get_length(arr); i++) {
			if (i > 0)
				g_string_append_c(out, ',');
			write_node(out, json_array_get_element(arr, i));
		}
		g_string_append_c(out, ']');
	} else if (JSON_NODE_HOLDS_OBJECT(node)) {
		JsonObjectIter iter;
		const gchar *key;
		JsonNode *member;
		gboolean first = TRUE;
		g_string_append_c(out, '{');
		json_object_iter_init_ordered(&iter, json_node_get_object(node));
		while (json_object_iter_next_ordered(&iter, &key, &member)) {
			if (!first)
				g_string_append_c(out, ',');
			first = FALSE;
			write_string(out, key);
			g_string_append_c(out, ':');
			write_node(out, member);
		}
		g_string_append_c(out, '}');
	} else {
		switch (json_node_get_value_type(node)) {
		case G_TYPE_STRING:
			write_string(out, json_node_get_string(node));
			break;
		case G_TYPE_INT64:
			g_string_append_printf(out, "%" G_GINT64_FORMAT, json_node_get_int(node));
			break;
		case G_TYPE_BOOLEAN:
			g_string_append(out, json_node_get_boolean(node) ? "true" : "false");
			break;
		case G_TYPE_DOUBLE:
			if (!isfinite(json_node_get_double(node))) {
				g_string_append(out, "null");
			} else {
				g_autofree gchar *text = gnt_json_format_double(json_node_get_double(node));
				g_string_append(out, text);
			}
			break;
		default:
			g_string_append(out, "null");
		}
	}
}

gchar *
gnt_json_to_string(JsonNode *node)
{
	GString *out = g_string_sized_new(256);

	write_node(out, node);
	return g_string_free(out, FALSE);
}

JsonObject *
gnt_json_object_deep_copy(JsonObject *obj)
{
	JsonObject *copy = json_object_new();
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *member;

	json_object_iter_init_ordered(&iter, obj);
	while (json_object_iter_next_ordered(&iter, &key, &member))
		json_object_set_member(copy, key, gnt_json_node_deep_copy(member));
	return copy;
}

JsonNode *
gnt_json_node_deep_copy(JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return gnt_json_node_new_null();
	if (JSON_NODE_HOLDS_OBJECT(node))
		return gnt_json_node_new_object(gnt_json_object_deep_copy(json_node_get_object(node)));
	if (JSON_NODE_HOLDS_ARRAY(node)) {
		JsonArray *src = json_node_get_array(node);
		JsonArray *array = json_array_sized_new(json_array_get_length(src));
		for (guint i = 0; i < json_array_get_length(src); i++)
			json_array_add_element(array,
					       gnt_json_node_deep_copy(json_array_get_element(src, i)));
		return gnt_json_node_new_array(array);
	}
	switch (json_node_get_value_type(node)) {
	case G_TYPE_INT64:
		return gnt_json_node_new_int(json_node_get_int(node));
	case G_TYPE_DOUBLE:
		return gnt_json_node_new_double(json_node_get_double(node));
	case G_TYPE_BOOLEAN:
		return gnt_json_node_new_bool(json_node_get_boolean(node));
	case G_TYPE_STRING:
		return gnt_json_node_new_string(json_node_get_string(node));
	default:
		return gnt_json_node_new_null();
	}
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

/* The typed getters below format nothing unless they fail: a query reads
 * every record's members through them. */
static JsonNode *
member_or_error(JsonObject *obj, const gchar *key, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);

	if (node == NULL)
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' is missing", key);
	return node;
}

/* FALSE with "'key' must be a string, not list" */
static gboolean
member_type_error(JsonNode *node, const gchar *key, const gchar *wanted, GError **error)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' must be %s, not %s", key, wanted,
		    gnt_json_node_type_name(node));
	return FALSE;
}

gboolean
gnt_json_get_string(JsonObject *obj, const gchar *key, const gchar **out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!node_holds_value_type(node, G_TYPE_STRING))
		return member_type_error(node, key, "a string", error);
	*out = json_node_get_string(node);
	return TRUE;
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
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!gnt_json_node_is_int(node))
		return member_type_error(node, key, "an integer", error);
	*out = json_node_get_int(node);
	return TRUE;
}

gboolean
gnt_json_get_double(JsonObject *obj, const gchar *key, gdouble *out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!gnt_json_node_is_number(node))
		return member_type_error(node, key, "a number", error);
	*out = json_node_get_double(node); /* json-glib converts integers */
	return TRUE;
}

gboolean
gnt_json_get_bool(JsonObject *obj, const gchar *key, gboolean *out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!node_holds_value_type(node, G_TYPE_BOOLEAN))
		return member_type_error(node, key, "a boolean", error);
	*out = json_node_get_boolean(node);
	return TRUE;
}

gboolean
gnt_json_get_array(JsonObject *obj, const gchar *key, JsonArray **out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return member_type_error(node, key, "a list", error);
	*out = json_node_get_array(node);
	return TRUE;
}

gboolean
gnt_json_get_object(JsonObject *obj, const gchar *key, JsonObject **out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return member_type_error(node, key, "an object", error);
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
