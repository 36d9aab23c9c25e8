/*
 * JSON Patch (RFC 6902): add, replace, remove, over JSON Pointers (RFC
 * 6901). Applied to a deep copy, so a failed patch leaves nothing behind.
 */
#include "gnt-json-patch.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"

typedef enum {
	OP_ADD,
	OP_REPLACE,
	OP_REMOVE
} PatchOp;

/* The reference tokens of @path, unescaped (~1 is '/', ~0 is '~'); NULL
 * with the error set for a path that is not "" and does not start with
 * '/', or holds another '~' escape. (transfer full) */
static GStrv
pointer_split(const gchar *path, GError **error)
{
	g_auto(GStrv) raw = NULL;

	if (path[0] != '/') {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "path '%s' is not a JSON pointer (it must start with '/')", path);
		return NULL;
	}
	raw = g_strsplit(path + 1, "/", -1);
	for (guint i = 0; raw[i] != NULL; i++) {
		GString *token = g_string_new(NULL);

		for (const gchar *p = raw[i]; *p != '\0'; p++) {
			if (*p != '~') {
				g_string_append_c(token, *p);
			} else if (p[1] == '0' || p[1] == '1') {
				g_string_append_c(token, p[1] == '0' ? '~' : '/');
				p++;
			} else {
				g_string_free(token, TRUE);
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "path '%s' has a '~' that is not ~0 or ~1", path);
				return NULL;
			}
		}
		g_free(raw[i]);
		raw[i] = g_string_free(token, FALSE);
	}
	return g_steal_pointer(&raw);
}

/* Array index @token of an array of @len elements: a plain decimal ("0",
 * not "00" or "+1") below @len, or up to @len with @append (then "-" is
 * @len too). */
static gboolean
array_index(const gchar *token, guint len, gboolean append, guint *out, GError **error)
{
	guint64 value = 0;

	if (append && strcmp(token, "-") == 0) {
		*out = len;
		return TRUE;
	}
	if (token[0] == '\0' || (token[0] == '0' && token[1] != '\0') ||
	    !g_ascii_string_to_unsigned(token, 10, 0, G_MAXUINT, &value, NULL)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' is not an array index",
			    token);
		return FALSE;
	}
	if (value > len || (value == len && !append)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "array index %s is out of range (the array has %u elements)", token,
			    len);
		return FALSE;
	}
	*out = (guint)value;
	return TRUE;
}

/* Inserts @node (transfer full) at @index of @array (json-glib only
 * appends: the tail is taken off and put back). */
static void
array_insert(JsonArray *array, guint index, JsonNode *node)
{
	guint len = json_array_get_length(array);
	g_autoptr(GPtrArray) tail = g_ptr_array_new_with_free_func((GDestroyNotify)json_node_unref);

	for (guint i = index; i < len; i++)
		g_ptr_array_add(tail, json_node_ref(json_array_get_element(array, i)));
	for (guint i = len; i > index; i--)
		json_array_remove_element(array, i - 1);
	json_array_add_element(array, node);
	for (guint i = 0; i < tail->len; i++)
		json_array_add_element(array, json_node_ref(g_ptr_array_index(tail, i)));
}

/* The node @token names inside @parent (an object member or array
 * element), or NULL with the error set. (transfer none) */
static JsonNode *
child(JsonNode *parent, const gchar *token, GError **error)
{
	if (JSON_NODE_HOLDS_OBJECT(parent)) {
		JsonNode *member = json_object_get_member(json_node_get_object(parent), token);

		if (member == NULL)
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "member '%s' does not exist", token);
		return member;
	}
	if (JSON_NODE_HOLDS_ARRAY(parent)) {
		JsonArray *array = json_node_get_array(parent);
		guint index = 0;

		if (!array_index(token, json_array_get_length(array), FALSE, &index, error))
			return NULL;
		return json_array_get_element(array, index);
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' is inside a %s, not a container",
		    token, gnt_json_node_type_name(parent));
	return NULL;
}

/* Applies @op at @token of @parent; @value (transfer full) for add and
 * replace. */
static gboolean
apply_at(PatchOp op, JsonNode *parent, const gchar *token, JsonNode *value, GError **error)
{
	g_autoptr(JsonNode) owned = value;

	if (JSON_NODE_HOLDS_OBJECT(parent)) {
		JsonObject *obj = json_node_get_object(parent);

		if (op != OP_ADD && !json_object_has_member(obj, token)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "member '%s' does not exist", token);
			return FALSE;
		}
		if (op == OP_REMOVE)
			json_object_remove_member(obj, token);
		else
			json_object_set_member(obj, token, g_steal_pointer(&owned));
		return TRUE;
	}
	if (JSON_NODE_HOLDS_ARRAY(parent)) {
		JsonArray *array = json_node_get_array(parent);
		guint index = 0;

		if (!array_index(token, json_array_get_length(array), op == OP_ADD, &index, error))
			return FALSE;
		if (op != OP_ADD)
			json_array_remove_element(array, index);
		if (op != OP_REMOVE)
			array_insert(array, index, g_steal_pointer(&owned));
		return TRUE;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' is inside a %s, not a container",
		    token, gnt_json_node_type_name(parent));
	return FALSE;
}

/* One operation @spec on @doc (changed in place). */
static gboolean
apply_one(JsonNode *doc, JsonNode *spec, const gchar *const *roots, GError **error)
{
	static const gchar *const names[] = {"add", "replace", "remove", NULL};
	JsonObject *obj = JSON_NODE_HOLDS_OBJECT(spec) ? json_node_get_object(spec) : NULL;
	const gchar *name = NULL;
	const gchar *path = NULL;
	JsonNode *value = NULL;
	g_auto(GStrv) tokens = NULL;
	JsonNode *parent = doc;
	guint n;
	PatchOp op;

	if (obj == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "an operation is an object, not %s", gnt_json_node_type_name(spec));
		return FALSE;
	}
	if (!gnt_json_get_string(obj, "op", &name, error) ||
	    !gnt_json_get_string(obj, "path", &path, error))
		return FALSE;
	for (op = OP_ADD; names[op] != NULL && strcmp(names[op], name) != 0; op++)
		;
	if (names[op] == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "operation '%s' is not supported (only add, replace and remove)", name);
		return FALSE;
	}
	value = json_object_get_member(obj, "value");
	if (op != OP_REMOVE && value == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' needs a 'value'", name);
		return FALSE;
	}
	tokens = pointer_split(path, error);
	if (tokens == NULL)
		return FALSE;
	n = g_strv_length(tokens);
	if (n == 0 || (roots != NULL && !g_strv_contains(roots, tokens[0]))) {
		g_autofree gchar *allowed = roots != NULL ? g_strjoinv(", /", (gchar **)roots)
							  : g_strdup("");

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "path '%s' may not be changed (only /%s and below)", path, allowed);
		return FALSE;
	}
	for (guint i = 0; i + 1 < n; i++) {
		parent = child(parent, tokens[i], error);
		if (parent == NULL) {
			g_prefix_error(error, "path '%s': ", path);
			return FALSE;
		}
	}
	if (!apply_at(op, parent, tokens[n - 1],
		      value != NULL ? gnt_json_node_deep_copy(value) : NULL, error)) {
		g_prefix_error(error, "path '%s': ", path);
		return FALSE;
	}
	return TRUE;
}

JsonNode *
gnt_json_patch_apply(JsonNode *doc, JsonNode *patch, const gchar *const *roots, GError **error)
{
	g_autoptr(JsonNode) copy = NULL;
	JsonArray *ops;

	g_return_val_if_fail(doc != NULL && patch != NULL, NULL);

	if (!JSON_NODE_HOLDS_ARRAY(patch)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "a JSON patch is a list of operations, not %s",
			    gnt_json_node_type_name(patch));
		return NULL;
	}
	ops = json_node_get_array(patch);
	if (json_array_get_length(ops) > GNT_JSON_PATCH_MAX_OPS) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "a JSON patch has at most %d operations", GNT_JSON_PATCH_MAX_OPS);
		return NULL;
	}
	copy = gnt_json_node_deep_copy(doc);
	for (guint i = 0; i < json_array_get_length(ops); i++) {
		if (!apply_one(copy, json_array_get_element(ops, i), roots, error)) {
			g_prefix_error(error, "JSON patch operation %u: ", i);
			return NULL;
		}
	}
	return g_steal_pointer(&copy);
}
