/*
 * Node groups in config.db (Ganeti's objects.NodeGroup and the config's
 * group lookups): the default group, nodes' group UUIDs, instance policy
 * checks and the filled parameters a group query shows.
 */
#include "gnt-config-groups.h"

#include "gnt-error.h"
#include "gnt-json.h"

JsonObject *
gnt_group_record_new(const gchar *name)
{
	JsonObject *group = json_object_new();
	static const gchar *const dicts[] = {
		"ndparams",	   "diskparams",	"ipolicy",
		"hv_state_static", "disk_state_static", "networks",
	};

	json_object_set_string_member(group, "name", name);
	json_object_set_string_member(group, "alloc_policy", "preferred");
	for (guint i = 0; i < G_N_ELEMENTS(dicts); i++)
		json_object_set_object_member(group, dicts[i], json_object_new());
	json_object_set_array_member(group, "tags", json_array_new());
	return group;
}

/* The UUID of the group named or numbered @name in @groups, or NULL. */
static const gchar *
groups_find(GPtrArray *groups, const gchar *name)
{
	for (guint i = 0; name != NULL && i < groups->len; i++) {
		JsonObject *group = g_ptr_array_index(groups, i);

		if (g_strcmp0(json_object_get_string_member(group, "uuid"), name) == 0 ||
		    g_strcmp0(json_object_get_string_member(group, "name"), name) == 0)
			return json_object_get_string_member(group, "uuid");
	}
	return NULL;
}

gboolean
gnt_config_ensure_groups(GntConfig *self, GError **error)
{
	g_autoptr(GPtrArray) groups = NULL;
	g_autoptr(GPtrArray) nodes = NULL;
	const gchar *fallback;

	g_return_val_if_fail(GNT_IS_CONFIG(self), FALSE);

	if (gnt_config_count_objects(self, GNT_OBJECT_GROUP) == 0) {
		g_autoptr(JsonObject) group = gnt_group_record_new(GNT_GROUP_DEFAULT_NAME);

		if (!gnt_config_add_object(self, GNT_OBJECT_GROUP, group, error))
			return FALSE;
	}
	groups = gnt_config_dup_objects(self, GNT_OBJECT_GROUP);
	fallback = groups_find(groups, GNT_GROUP_DEFAULT_NAME);
	if (fallback == NULL)
		fallback = json_object_get_string_member(g_ptr_array_index(groups, 0), "uuid");
	nodes = gnt_config_dup_objects(self, GNT_OBJECT_NODE);
	for (guint i = 0; i < nodes->len; i++) {
		JsonObject *node = g_ptr_array_index(nodes, i);
		const gchar *group =
			json_object_get_string_member_with_default(node, "group", NULL);
		const gchar *uuid = groups_find(groups, group);

		if (uuid != NULL && g_strcmp0(uuid, group) == 0)
			continue;
		json_object_set_string_member(node, "group", uuid != NULL ? uuid : fallback);
		if (!gnt_config_update_object(self, GNT_OBJECT_NODE, node, error))
			return FALSE;
	}
	return TRUE;
}

gchar *
gnt_config_lookup_group(GntConfig *self, const gchar *name, GError **error)
{
	g_autoptr(GPtrArray) groups = NULL;
	const gchar *uuid;

	g_return_val_if_fail(GNT_IS_CONFIG(self), NULL);

	groups = gnt_config_dup_objects(self, GNT_OBJECT_GROUP);
	if (name == NULL) {
		if (groups->len != 1) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "More than one node group exists. Target group must be"
					    " specified explicitly.");
			return NULL;
		}
		return g_strdup(
			json_object_get_string_member(g_ptr_array_index(groups, 0), "uuid"));
	}
	uuid = groups_find(groups, name);
	if (uuid == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "Node group '%s' not found",
			    name);
		return NULL;
	}
	return g_strdup(uuid);
}

/* ---- node and disk parameters ---- */

/* @value (a string) as the type of @model, or NULL. (transfer full) */
static JsonNode *
coerce_string(JsonNode *model, const gchar *value)
{
	static const gchar *const yes[] = {"yes", "true", "1", NULL};
	static const gchar *const no[] = {"no", "false", "0", NULL};
	g_autofree gchar *lower = g_ascii_strdown(value, -1);
	gchar *end = NULL;

	switch (json_node_get_value_type(model)) {
	case G_TYPE_STRING:
		return gnt_json_node_new_string(value);
	case G_TYPE_BOOLEAN:
		if (g_strv_contains(yes, lower) || g_strv_contains(no, lower))
			return gnt_json_node_new_bool(g_strv_contains(yes, lower));
		return NULL;
	case G_TYPE_INT64: {
		gint64 number = g_ascii_strtoll(value, &end, 10);

		return *value != '\0' && *end == '\0' ? gnt_json_node_new_int(number) : NULL;
	}
	case G_TYPE_DOUBLE: {
		gdouble number = g_ascii_strtod(value, &end);

		return *value != '\0' && *end == '\0' ? gnt_json_node_new_double(number) : NULL;
	}
	default:
		return NULL;
	}
}

JsonObject *
gnt_group_coerce_params(JsonObject *defaults, JsonObject *given, const gchar *what, GError **error)
{
	g_autoptr(JsonObject) out = json_object_new();
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	json_object_iter_init_ordered(&iter, given);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		JsonNode *model = defaults != NULL ? json_object_get_member(defaults, key) : NULL;
		GType want = model != NULL ? json_node_get_value_type(model) : G_TYPE_INVALID;
		JsonNode *coerced = NULL;

		if (model == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown %s '%s'", what,
				    key);
			return NULL;
		}
		if (JSON_NODE_HOLDS_NULL(value) ||
		    (json_node_get_value_type(value) == G_TYPE_STRING &&
		     g_strcmp0(json_node_get_string(value), "default") == 0))
			coerced = gnt_json_node_deep_copy(value);
		else if (json_node_get_value_type(value) == G_TYPE_STRING)
			coerced = coerce_string(model, json_node_get_string(value));
		else if (json_node_get_value_type(value) == want ||
			 (want == G_TYPE_DOUBLE && gnt_json_node_is_number(value)))
			coerced = gnt_json_node_deep_copy(value);
		if (coerced == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "%s '%s' has the wrong type: expected %s, got %s", what, key,
				    gnt_json_node_type_name(model), gnt_json_node_type_name(value));
			return NULL;
		}
		json_object_set_member(out, key, coerced);
	}
	return g_steal_pointer(&out);
}

/* ---- instance policies ---- */

static const gchar *const spec_keys[] = {
	"cpu-count", "disk-count", "disk-size", "memory-size", "nic-count", "spindle-use", NULL,
};

static gboolean
check_spec(JsonNode *node, const gchar *what, GError **error)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Invalid instance policy: '%s' must be a dictionary, not a %s", what,
			    gnt_json_node_type_name(node));
		return FALSE;
	}
	json_object_iter_init(&iter, json_node_get_object(node));
	while (json_object_iter_next(&iter, &key, &value)) {
		if (!g_strv_contains(spec_keys, key)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Invalid instance policy: unknown key '%s' in '%s'", key, what);
			return FALSE;
		}
		if (!gnt_json_node_is_int(value) || json_node_get_int(value) < 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Invalid instance policy: '%s/%s' must be an integer >= 0",
				    what, key);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
check_minmax(JsonNode *node, GError **error)
{
	JsonArray *pairs = JSON_NODE_HOLDS_ARRAY(node) ? json_node_get_array(node) : NULL;

	if (pairs == NULL || json_array_get_length(pairs) == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Invalid instance policy: 'minmax' must be a non-empty list");
		return FALSE;
	}
	for (guint i = 0; i < json_array_get_length(pairs); i++) {
		JsonNode *pair = json_array_get_element(pairs, i);
		JsonObject *obj = JSON_NODE_HOLDS_OBJECT(pair) ? json_node_get_object(pair) : NULL;

		if (obj == NULL || json_object_get_size(obj) != 2 ||
		    !json_object_has_member(obj, "min") || !json_object_has_member(obj, "max")) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Invalid instance policy: 'minmax' element %u must have"
				    " exactly 'min' and 'max'",
				    i);
			return FALSE;
		}
		if (!check_spec(json_object_get_member(obj, "min"), "min", error) ||
		    !check_spec(json_object_get_member(obj, "max"), "max", error))
			return FALSE;
	}
	return TRUE;
}

gboolean
gnt_group_check_ipolicy(JsonObject *ipolicy, GError **error)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	json_object_iter_init(&iter, ipolicy);
	while (json_object_iter_next(&iter, &key, &value)) {
		if (g_strcmp0(key, "minmax") == 0) {
			if (!check_minmax(value, error))
				return FALSE;
		} else if (g_strcmp0(key, "std") == 0) {
			if (!check_spec(value, "std", error))
				return FALSE;
		} else if (g_strcmp0(key, "vcpu-ratio") == 0 ||
			   g_strcmp0(key, "spindle-ratio") == 0) {
			if (!gnt_json_node_is_number(value) || json_node_get_double(value) <= 0) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "Invalid instance policy: '%s' must be a number > 0",
					    key);
				return FALSE;
			}
		} else if (g_strcmp0(key, "disk-templates") == 0) {
			JsonArray *list = JSON_NODE_HOLDS_ARRAY(value) ? json_node_get_array(value)
								       : NULL;

			for (guint i = 0; list != NULL && i < json_array_get_length(list); i++) {
				if (json_node_get_value_type(json_array_get_element(list, i)) !=
				    G_TYPE_STRING)
					list = NULL;
			}
			if (list == NULL) {
				g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
						    "Invalid instance policy: 'disk-templates' must"
						    " be a list of names");
				return FALSE;
			}
		} else {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Invalid instance policy: unknown key '%s'", key);
			return FALSE;
		}
	}
	return TRUE;
}
