/*
 * OP_CLUSTER_SET_PARAMS' merge (gnt-cluster-settings-params.h): the
 * opcode's values laid over the cluster's settings as the settings table
 * says, checked on a copy against the cluster model. It needs no node, so
 * the logical unit (cmdlib/gnt-lu-cluster.c) and gnt-cluster init, before
 * any daemon runs, call the same code.
 */
#include "gnt-cluster-settings-params.h"

#include "gnt-cluster-settings.h"
#include "gnt-error.h"
#include "gnt-hv-params.h"
#include "gnt-install-plan.h"
#include "gnt-json.h"
#include "gnt-records.h"
#include "gnt-size.h"

/* Ganeti parameters that change no setting of Gantry's: taken, refused
 * unless empty (settings that are so say GNT_SETTING_CHANGE_UNSUPPORTED). */
static const gchar *const unsupported_params[] = {
	"hv_state", "disk_state", "osparams_private_cluster", "add_uids", "remove_uids",
};

static gboolean
array_has_string(JsonArray *array, const gchar *value)
{
	for (guint i = 0; array != NULL && i < json_array_get_length(array); i++) {
		if (g_strcmp0(json_array_get_string_element(array, i), value) == 0)
			return TRUE;
	}
	return FALSE;
}

static gboolean
param_given(JsonObject *params, const gchar *name)
{
	JsonNode *value = json_object_get_member(params, name);

	return value != NULL && !JSON_NODE_HOLDS_NULL(value);
}

/* @base's members overlaid with @update's. (transfer full) */
static JsonObject *
merge_objects(JsonObject *base, JsonObject *update)
{
	JsonObject *out = base != NULL ? gnt_json_object_deep_copy(base) : json_object_new();

	gnt_json_object_overlay(out, update);
	return out;
}

/* Like merge_objects() one level down: {group: {key: value}}. */
static JsonObject *
merge_groups(JsonObject *base, JsonObject *update, const gchar *what, GError **error)
{
	g_autoptr(JsonObject) out = base != NULL ? gnt_json_object_deep_copy(base)
						 : json_object_new();
	JsonObjectIter iter;
	const gchar *group;
	JsonNode *value;

	json_object_iter_init_ordered(&iter, update);
	while (json_object_iter_next_ordered(&iter, &group, &value)) {
		JsonObject *current = NULL;

		if (!JSON_NODE_HOLDS_OBJECT(value)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s' of '%s' must be a dictionary", what, group);
			return NULL;
		}
		if (json_object_has_member(out, group) &&
		    JSON_NODE_HOLDS_OBJECT(json_object_get_member(out, group)))
			current = json_object_get_object_member(out, group);
		json_object_set_object_member(out, group,
					      merge_objects(current, json_node_get_object(value)));
	}
	return g_steal_pointer(&out);
}

/* A boolean given as JSON or as the CLI's text. */
static gboolean
parse_bool_value(JsonNode *value, const gchar *what, gboolean *out, GError **error)
{
	static const gchar *const yes[] = {"true", "yes", "on", "1", NULL};
	static const gchar *const no[] = {"false", "no", "off", "0", NULL};

	if (JSON_NODE_HOLDS_VALUE(value) && json_node_get_value_type(value) == G_TYPE_BOOLEAN) {
		*out = json_node_get_boolean(value);
		return TRUE;
	}
	if (JSON_NODE_HOLDS_VALUE(value) && json_node_get_value_type(value) == G_TYPE_STRING) {
		g_autofree gchar *lower = g_ascii_strdown(json_node_get_string(value), -1);
		if (g_strv_contains(yes, lower) || g_strv_contains(no, lower)) {
			*out = g_strv_contains(yes, lower);
			return TRUE;
		}
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s must be a boolean", what);
	return FALSE;
}

/* Ganeti's VALUE_DEFAULT: a parameter given as "default" goes back to the
 * cluster's value (instance modify). */
#define VALUE_DEFAULT "default"

/* One -B size: a positive integer of MiB or a text with a unit. */
static gboolean
beparam_size(const gchar *key, JsonNode *value, guint64 *out, GError **error)
{
	if (gnt_json_node_is_int(value) && json_node_get_int(value) > 0) {
		*out = (guint64)json_node_get_int(value);
		return TRUE;
	}
	if (!JSON_NODE_HOLDS_VALUE(value) || json_node_get_value_type(value) != G_TYPE_STRING) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "backend parameter '%s' must be a size (512M, 2G, ...)", key);
		return FALSE;
	}
	if (!gnt_size_parse(json_node_get_string(value), out, error)) {
		g_prefix_error(error, "backend parameter '%s': ", key);
		return FALSE;
	}
	if (*out == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "backend parameter '%s' must be a size (512M, 2G, ...), not 0", key);
		return FALSE;
	}
	return TRUE;
}

/* One -B count: vcpus from 1, spindle_use from 0, both up to 1024. */
static gboolean
beparam_count(const gchar *key, JsonNode *value, gint64 *out, GError **error)
{
	gint64 least = g_strcmp0(key, "vcpus") == 0 ? 1 : 0;
	gint64 count = -1;

	if (gnt_json_node_is_int(value))
		count = json_node_get_int(value);
	else if (JSON_NODE_HOLDS_VALUE(value) && json_node_get_value_type(value) == G_TYPE_STRING &&
		 !g_ascii_string_to_signed(json_node_get_string(value), 10, 0, 1024, &count, NULL))
		count = -1;
	if (count < least || count > 1024) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "backend parameter '%s' must be a number from %" G_GINT64_FORMAT
			    " to 1024",
			    key, least);
		return FALSE;
	}
	*out = count;
	return TRUE;
}

JsonObject *
gnt_beparams_parse(JsonObject *given, gboolean allow_default, GError **error)
{
	static const gchar *const sizes[] = {"memory", "maxmem", "minmem", NULL};
	static const gchar *const counts[] = {"vcpus", "spindle_use", NULL};
	static const gchar *const flags[] = {"auto_balance", "always_failover", NULL};
	g_autoptr(JsonObject) out = json_object_new();
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	json_object_iter_init_ordered(&iter, given);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		gboolean known = g_strv_contains(sizes, key) || g_strv_contains(counts, key) ||
				 g_strv_contains(flags, key);
		/* "memory" sets both */
		gboolean memory = g_strcmp0(key, "memory") == 0;
		g_autoptr(JsonNode) typed = NULL;

		if (!known) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "unknown backend parameter '%s'", key);
			return NULL;
		}
		if (allow_default && JSON_NODE_HOLDS_VALUE(value) &&
		    json_node_get_value_type(value) == G_TYPE_STRING &&
		    g_strcmp0(json_node_get_string(value), VALUE_DEFAULT) == 0) {
			typed = json_node_init_string(json_node_alloc(), VALUE_DEFAULT);
		} else if (g_strv_contains(sizes, key)) {
			guint64 mib = 0;
			if (!beparam_size(key, value, &mib, error))
				return NULL;
			typed = json_node_init_int(json_node_alloc(), (gint64)mib);
		} else if (g_strv_contains(counts, key)) {
			gint64 count = 0;
			if (!beparam_count(key, value, &count, error))
				return NULL;
			typed = json_node_init_int(json_node_alloc(), count);
		} else {
			g_autofree gchar *what = g_strdup_printf("backend parameter '%s'", key);
			gboolean flag = FALSE;
			if (!parse_bool_value(value, what, &flag, error))
				return NULL;
			typed = json_node_init_boolean(json_node_alloc(), flag);
		}
		if (memory) {
			json_object_set_member(out, "maxmem", json_node_copy(typed));
			json_object_set_member(out, "minmem", g_steal_pointer(&typed));
		} else {
			json_object_set_member(out, key, g_steal_pointer(&typed));
		}
	}
	return g_steal_pointer(&out);
}

/* The cluster's hvparams with @update's merged in, each changed or newly
 * enabled hypervisor's set checked against its table. (transfer full) */
static JsonObject *
hvparams_merge(JsonObject *current, JsonObject *update, JsonArray *newly_enabled, GError **error)
{
	g_autoptr(JsonObject) merged = merge_groups(current, update, "hvparams", error);
	g_autoptr(GList) names = NULL;

	if (merged == NULL)
		return NULL;
	for (guint i = 0; newly_enabled != NULL && i < json_array_get_length(newly_enabled); i++) {
		const gchar *hv = json_array_get_string_element(newly_enabled, i);
		if (!json_object_has_member(merged, hv))
			json_object_set_object_member(merged, hv, json_object_new());
	}
	names = json_object_get_members(merged);
	for (GList *l = names; l != NULL; l = l->next) {
		const gchar *hv = l->data;
		g_autoptr(GHashTable) table = NULL;

		if (!json_object_has_member(update, hv) &&
		    !(newly_enabled != NULL && array_has_string(newly_enabled, hv)))
			continue;
		if (!gnt_hv_check_name(hv, error))
			return NULL;
		table = gnt_hv_params_from_json(hv, json_object_get_object_member(merged, hv),
						error);
		if (table == NULL) {
			g_prefix_error(error, "hypervisor parameters of '%s': ", hv);
			return NULL;
		}
		/* stored typed, as the hypervisor's table has them */
		json_object_set_object_member(merged, hv, gnt_hv_params_to_object(hv, table));
	}
	return g_steal_pointer(&merged);
}

/* Each hypervisor's entry of one OS's os_hvp checked against its table, as
 * Ganeti checks them when they are set: a bad one would otherwise stop
 * every instance of that OS when its parameters are filled. */
static gboolean
os_hvp_check(const gchar *os, JsonObject *hvs, GError **error)
{
	JsonObjectIter iter;
	const gchar *hv;
	JsonNode *params;

	json_object_iter_init_ordered(&iter, hvs);
	while (json_object_iter_next_ordered(&iter, &hv, &params)) {
		g_autoptr(GHashTable) table = NULL;

		if (gnt_hv_check_name(hv, error))
			table = gnt_hv_params_from_json(hv, json_node_get_object(params), error);
		if (table == NULL) {
			g_prefix_error(error, "os_hvp of '%s': ", os);
			return FALSE;
		}
	}
	return TRUE;
}

/* Ganeti's [["add"|"remove", name], ...] applied to a list of names. */
static JsonArray *
apply_list_mods(JsonArray *current, JsonArray *mods, const gchar *what, GError **error)
{
	g_autoptr(JsonArray) out = json_array_new();

	for (guint i = 0; current != NULL && i < json_array_get_length(current); i++)
		json_array_add_string_element(out, json_array_get_string_element(current, i));
	for (guint i = 0; i < json_array_get_length(mods); i++) {
		JsonNode *mod = json_array_get_element(mods, i);
		JsonArray *pair = JSON_NODE_HOLDS_ARRAY(mod) ? json_node_get_array(mod) : NULL;
		const gchar *op = NULL;
		const gchar *name = NULL;

		if (pair == NULL || json_array_get_length(pair) != 2 ||
		    !gnt_json_node_get_string(json_array_get_element(pair, 0), what, &op, NULL) ||
		    !gnt_json_node_get_string(json_array_get_element(pair, 1), what, &name, NULL) ||
		    (g_strcmp0(op, "add") != 0 && g_strcmp0(op, "remove") != 0)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s' must be a list of [\"add\"|\"remove\", name] pairs",
				    what);
			return NULL;
		}
		if (g_strcmp0(op, "add") == 0 && !array_has_string(out, name)) {
			json_array_add_string_element(out, name);
		} else if (g_strcmp0(op, "remove") == 0) {
			for (guint j = 0; j < json_array_get_length(out); j++) {
				if (g_strcmp0(json_array_get_string_element(out, j), name) == 0) {
					json_array_remove_element(out, j);
					break;
				}
			}
		}
	}
	return g_steal_pointer(&out);
}

/* Ganeti's refusal to disable a template that instances use. */
static gboolean
check_templates_unused(GntConfig *config, JsonArray *old_templates, JsonArray *new_templates,
		       GError **error)
{
	for (guint i = 0; i < json_array_get_length(old_templates); i++) {
		const gchar *template = json_array_get_string_element(old_templates, i);
		g_autoptr(GPtrArray) names = NULL;
		g_autoptr(GString) users = g_string_new(NULL);

		if (array_has_string(new_templates, template))
			continue;
		names = gnt_config_dup_names_where(config, GNT_OBJECT_INSTANCE, "disk_template",
						   template);
		for (guint j = 0; j < names->len; j++)
			g_string_append_printf(users, "\n * instance %s",
					       (const gchar *)g_ptr_array_index(names, j));
		if (users->len > 0) {
			g_set_error(
				error, GNT_ERROR, GNT_ERROR_INVALID,
				"Cannot disable disk template '%s', because there is at least one "
				"disk using it:%s",
				template, users->str);
			return FALSE;
		}
	}
	return TRUE;
}

/* Refuses a parameter that changes nothing Gantry has, unless it is empty. */
static gboolean
check_unsupported(JsonObject *params, GError **error)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new();

	for (guint i = 0; i < G_N_ELEMENTS(unsupported_params); i++)
		g_ptr_array_add(names, (gpointer)unsupported_params[i]);
	for (const GntClusterSetting *s = gnt_cluster_settings; s->key != NULL; s++) {
		if (s->change == GNT_SETTING_CHANGE_UNSUPPORTED)
			g_ptr_array_add(names, (gpointer)gnt_cluster_setting_get_param(s));
	}
	for (guint i = 0; i < names->len; i++) {
		JsonNode *value = json_object_get_member(params, names->pdata[i]);
		gboolean empty = value == NULL || JSON_NODE_HOLDS_NULL(value) ||
				 (JSON_NODE_HOLDS_OBJECT(value) &&
				  json_object_get_size(json_node_get_object(value)) == 0);
		if (!empty) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "changing '%s' is not supported yet",
				    (const gchar *)names->pdata[i]);
			return FALSE;
		}
	}
	return TRUE;
}

/* Puts into @changes what @given (the parameter's value) makes of
 * @setting (now @current), as the table's change kind says; the custom
 * kinds are settings_from_params()'s own. */
static gboolean
change_setting(const GntClusterSetting *setting, JsonNode *current, JsonNode *given,
	       JsonObject *changes, GError **error)
{
	JsonObject *base = current != NULL && JSON_NODE_HOLDS_OBJECT(current)
				   ? json_node_get_object(current)
				   : NULL;
	JsonObject *merged;
	JsonArray *list;

	switch (setting->change) {
	case GNT_SETTING_CHANGE_REPLACE:
		json_object_set_member(changes, setting->key, json_node_copy(given));
		return TRUE;
	case GNT_SETTING_CHANGE_MERGE:
		json_object_set_object_member(changes, setting->key,
					      merge_objects(base, json_node_get_object(given)));
		return TRUE;
	case GNT_SETTING_CHANGE_MERGE_GROUPED:
		merged = merge_groups(base, json_node_get_object(given), setting->key, error);
		if (merged == NULL)
			return FALSE;
		json_object_set_object_member(changes, setting->key, merged);
		return TRUE;
	case GNT_SETTING_CHANGE_LIST_MODS:
		list = apply_list_mods(current != NULL && JSON_NODE_HOLDS_ARRAY(current)
					       ? json_node_get_array(current)
					       : NULL,
				       json_node_get_array(given), setting->key, error);
		if (list == NULL)
			return FALSE;
		json_object_set_array_member(changes, setting->key, list);
		return TRUE;
	case GNT_SETTING_CHANGE_NONE:
	case GNT_SETTING_CHANGE_UNSUPPORTED: /* refused before */
	case GNT_SETTING_CHANGE_CUSTOM:
	default:
		return TRUE;
	}
}

/* A default priority as given: an integer, or its digits (the CLI's
 * STEP=PRIORITY); *@remove for "default" or null. */
static gboolean
step_priority_from_param(const gchar *step, JsonNode *value, gint64 *out, gboolean *remove,
			 GError **error)
{
	guint64 number = 0;

	*remove =
		JSON_NODE_HOLDS_NULL(value) ||
		(JSON_NODE_HOLDS_VALUE(value) && json_node_get_value_type(value) == G_TYPE_STRING &&
		 g_strcmp0(json_node_get_string(value), "default") == 0);
	if (*remove)
		return TRUE;
	if (gnt_json_node_is_int(value)) {
		*out = json_node_get_int(value);
		return TRUE;
	}
	if (JSON_NODE_HOLDS_VALUE(value) && json_node_get_value_type(value) == G_TYPE_STRING &&
	    g_ascii_string_to_unsigned(json_node_get_string(value), 10, 0, GNT_INSTALL_PRIORITY_MAX,
				       &number, NULL)) {
		*out = (gint64)number;
		return TRUE;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "install step priorities: %s: give an integer (0..%d) or \"default\"", step,
		    GNT_INSTALL_PRIORITY_MAX);
	return FALSE;
}

/* The install policy (doc/install.md): the denied steps replaced, the
 * default priorities laid over the current ones ("default" removes one),
 * both checked together against the step registry. */
static gboolean
install_policy_change(JsonObject *current, JsonObject *params, JsonObject *changes, GError **error)
{
	gboolean denied_given = param_given(params, "install_denied_steps");
	gboolean priorities_given = param_given(params, "install_step_priorities");
	JsonArray *denied = denied_given
				    ? json_object_get_array_member(params, "install_denied_steps")
				    : gnt_json_peek_array(current, "install_denied_steps");
	JsonObject *stored = gnt_json_peek_object(current, "install_step_priorities");
	g_autoptr(JsonObject) priorities = stored != NULL ? gnt_json_object_deep_copy(stored)
							  : json_object_new();
	JsonObjectIter iter;
	const gchar *step;
	JsonNode *value;

	if (!denied_given && !priorities_given)
		return TRUE;
	if (priorities_given) {
		json_object_iter_init_ordered(
			&iter, json_object_get_object_member(params, "install_step_priorities"));
		while (json_object_iter_next_ordered(&iter, &step, &value)) {
			gint64 priority = 0;
			gboolean remove = FALSE;

			if (!step_priority_from_param(step, value, &priority, &remove, error))
				return FALSE;
			if (remove)
				json_object_remove_member(priorities, step);
			else
				json_object_set_int_member(priorities, step, priority);
		}
	}
	if (!gnt_install_policy_check(denied, priorities, error))
		return FALSE;
	if (denied_given)
		json_object_set_array_member(changes, "install_denied_steps",
					     json_array_ref(denied));
	if (priorities_given)
		json_object_set_object_member(changes, "install_step_priorities",
					      g_steal_pointer(&priorities));
	return TRUE;
}

/* The new values of the settings @params changes. (transfer full) */
static JsonObject *
settings_from_params(GntCluster *cluster, JsonObject *params, GError **error)
{
	g_autoptr(JsonObject) changes = json_object_new();
	JsonObject *current = cluster->settings;
	JsonArray *newly_enabled = NULL;

	if (!check_unsupported(params, error))
		return NULL;
	for (const GntClusterSetting *s = gnt_cluster_settings; s->key != NULL; s++) {
		const gchar *param = gnt_cluster_setting_get_param(s);

		if (param != NULL && param_given(params, param) &&
		    !change_setting(s, json_object_get_member(current, s->key),
				    json_object_get_member(params, param), changes, error))
			return NULL;
	}
	if (!install_policy_change(current, params, changes, error))
		return NULL;
	if (param_given(params, "vg_name")) {
		const gchar *vg = json_object_get_string_member(params, "vg_name");
		/* Ganeti: the empty name disables LVM */
		if (vg == NULL || vg[0] == '\0')
			json_object_set_null_member(changes, "volume_group_name");
		else
			json_object_set_string_member(changes, "volume_group_name", vg);
	}
	if (param_given(params, "mac_prefix")) {
		g_autofree gchar *lower =
			g_ascii_strdown(json_object_get_string_member(params, "mac_prefix"), -1);
		json_object_set_string_member(changes, "mac_prefix", lower);
	}
	if (param_given(params, "enabled_hypervisors")) {
		JsonArray *hvs = json_object_get_array_member(params, "enabled_hypervisors");
		for (guint i = 0; i < json_array_get_length(hvs); i++) {
			if (!gnt_hv_check_name(json_array_get_string_element(hvs, i), error))
				return NULL;
		}
		newly_enabled = hvs;
	}
	if (param_given(params, "hvparams") || newly_enabled != NULL) {
		g_autoptr(JsonObject) empty = json_object_new();
		JsonObject *update = param_given(params, "hvparams")
					     ? json_object_get_object_member(params, "hvparams")
					     : empty;
		JsonObject *merged =
			hvparams_merge(json_object_get_object_member(current, "hvparams"), update,
				       newly_enabled, error);
		if (merged == NULL)
			return NULL;
		json_object_set_object_member(changes, "hvparams", merged);
	}
	if (param_given(params, "beparams")) {
		g_autoptr(JsonObject) typed = gnt_beparams_parse(
			json_object_get_object_member(params, "beparams"), FALSE, error);
		g_autoptr(JsonObject) update = json_object_new();
		if (typed == NULL)
			return NULL;
		json_object_set_object_member(update, "default", g_steal_pointer(&typed));
		json_object_set_object_member(
			changes, "beparams",
			merge_groups(json_object_get_object_member(current, "beparams"), update,
				     "beparams", NULL));
	}
	if (param_given(params, "nicparams")) {
		g_autoptr(JsonObject) update = json_object_new();
		json_object_set_object_member(
			update, "default",
			gnt_json_object_deep_copy(
				json_object_get_object_member(params, "nicparams")));
		json_object_set_object_member(
			changes, "nicparams",
			merge_groups(json_object_get_object_member(current, "nicparams"), update,
				     "nicparams", NULL));
	}
	if (param_given(params, "os_hvp")) {
		/* {os: {hv: params}}: one more level */
		JsonObject *os_hvp =
			gnt_json_object_deep_copy(json_object_get_object_member(current, "os_hvp"));
		JsonObjectIter iter;
		const gchar *os;
		JsonNode *hvs;

		json_object_iter_init_ordered(&iter,
					      json_object_get_object_member(params, "os_hvp"));
		while (json_object_iter_next_ordered(&iter, &os, &hvs)) {
			JsonObject *base = json_object_has_member(os_hvp, os)
						   ? json_object_get_object_member(os_hvp, os)
						   : NULL;
			JsonObject *merged;

			if (!JSON_NODE_HOLDS_OBJECT(hvs)) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "'os_hvp' of '%s' must be a dictionary", os);
				json_object_unref(os_hvp);
				return NULL;
			}
			merged = merge_groups(base, json_node_get_object(hvs), "os_hvp", error);
			if (merged == NULL) {
				json_object_unref(os_hvp);
				return NULL;
			}
			if (!os_hvp_check(os, merged, error)) {
				json_object_unref(merged);
				json_object_unref(os_hvp);
				return NULL;
			}
			json_object_set_object_member(os_hvp, os, merged);
		}
		json_object_set_object_member(changes, "os_hvp", os_hvp);
	}
	return g_steal_pointer(&changes);
}

/* Runs the table's check of each setting @params gives, on its value in
 * @settings (merged, so a setting another depends on may change too); the
 * error names the setting and its option. */
static gboolean
validate_given(JsonObject *params, JsonObject *settings, GError **error)
{
	for (const GntClusterSetting *s = gnt_cluster_settings; s->key != NULL; s++) {
		const gchar *param = gnt_cluster_setting_get_param(s);

		if (s->validate == NULL || param == NULL || !param_given(params, param))
			continue;
		if (!s->validate(json_object_get_member(settings, s->key), settings, error)) {
			if (s->option != NULL)
				g_prefix_error(error, "setting '%s' (--%s): ", s->key, s->option);
			else
				g_prefix_error(error, "setting '%s': ", s->key);
			return FALSE;
		}
	}
	return TRUE;
}

/* Drops from @changes the settings that stay as they were: the values
 * compared are the stored ones (@after: normalised, merged), so that
 * "changed" is only said of what changed. */
static void
drop_unchanged(JsonObject *changes, JsonObject *before, JsonObject *after)
{
	g_autoptr(GList) keys = json_object_get_members(changes);

	for (GList *l = keys; l != NULL; l = l->next) {
		JsonNode *old_value = json_object_get_member(before, l->data);
		JsonNode *new_value = json_object_get_member(after, l->data);

		if (old_value != NULL && new_value != NULL && json_node_equal(old_value, new_value))
			json_object_remove_member(changes, l->data);
	}
}

JsonObject *
gnt_cluster_settings_from_params(GntConfig *config, JsonObject *params, gchar **vg_to_find,
				 GError **error)
{
	g_autoptr(GntCluster) cluster = NULL;
	g_autoptr(JsonObject) changes = NULL;
	g_autoptr(JsonObject) old_settings = NULL;
	JsonArray *old_templates = NULL;
	JsonArray *new_templates = NULL;
	JsonNode *old_vg;
	JsonNode *new_vg;

	g_return_val_if_fail(GNT_IS_CONFIG(config), NULL);
	g_return_val_if_fail(params != NULL, NULL);
	g_return_val_if_fail(vg_to_find != NULL && *vg_to_find == NULL, NULL);

	cluster = gnt_config_dup_cluster(config);
	changes = settings_from_params(cluster, params, error);
	if (changes == NULL)
		return NULL;
	old_settings = gnt_json_object_deep_copy(cluster->settings);
	/* every setting checked, alone and together, on a copy */
	if (!gnt_cluster_apply_settings(cluster, changes, error) ||
	    !validate_given(params, cluster->settings, error))
		return NULL;
	drop_unchanged(changes, old_settings, cluster->settings);
	old_templates = json_object_get_array_member(old_settings, "enabled_disk_templates");
	new_templates = json_object_get_array_member(cluster->settings, "enabled_disk_templates");
	if (!check_templates_unused(config, old_templates, new_templates, error))
		return NULL;
	old_vg = json_object_get_member(old_settings, "volume_group_name");
	new_vg = json_object_get_member(cluster->settings, "volume_group_name");
	if (JSON_NODE_HOLDS_NULL(new_vg) && !JSON_NODE_HOLDS_NULL(old_vg)) {
		g_autoptr(GPtrArray) plain = gnt_config_dup_names_where(
			config, GNT_OBJECT_INSTANCE, "disk_template",
			gnt_disk_template_to_string(GNT_DISK_TEMPLATE_PLAIN));

		if (plain->len > 0) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "Cannot disable lvm storage while lvm-based instances "
					    "exist");
			return NULL;
		}
	}
	/* a volume group newly named, or plain newly enabled: the caller looks
	 * for it (plain enabled has a volume group, checked above) */
	if (array_has_string(new_templates, gnt_disk_template_to_string(GNT_DISK_TEMPLATE_PLAIN)) &&
	    (!array_has_string(old_templates,
			       gnt_disk_template_to_string(GNT_DISK_TEMPLATE_PLAIN)) ||
	     g_strcmp0(JSON_NODE_HOLDS_NULL(old_vg) ? NULL : json_node_get_string(old_vg),
		       json_node_get_string(new_vg)) != 0))
		*vg_to_find = g_strdup(json_node_get_string(new_vg));
	return g_steal_pointer(&changes);
}
