/*
 * OP_OS_DIAGNOSE: Ganeti's LUOsDiagnose. Every online, vm-capable node lists
 * the OS definitions along the cluster's search path (os_diagnose); the
 * answers are merged as Ganeti's OsQuery does: an OS is valid when its first
 * definition is valid on every node that answered, and its variants,
 * parameters and API versions are those all those nodes have. A node that
 * does not answer is left out (with a warning naming it), so one node down
 * does not make every OS invalid. The result has one row per OS, sorted by
 * name, with the opcode's output fields in order.
 */
#include <stdlib.h>

#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu.h"
#include "gnt-node-calls.h"

static const gchar *const os_fields[] = {
	"name",	      "valid",	     "hidden", "blacklisted", "variants", "api_versions",
	"parameters", "node_status", "os_hvp", "osparams",    "trusted",  "untrusted_scripts",
	NULL,
};

static gboolean
os_diagnose_check_args(GntLu *lu, GError **error)
{
	JsonArray *fields =
		json_node_get_array(gnt_opcode_get_param(gnt_lu_get_opcode(lu), "output_fields"));
	g_autoptr(GString) unknown = g_string_new(NULL);

	for (guint i = 0; i < json_array_get_length(fields); i++) {
		const gchar *field = json_array_get_string_element(fields, i);
		if (!g_strv_contains(os_fields, field))
			g_string_append_printf(unknown, "%s%s", unknown->len > 0 ? ", " : "",
					       field);
	}
	if (unknown->len > 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Unknown output fields selected: %s", unknown->str);
		return FALSE;
	}
	return TRUE;
}

/* What the nodes say about one OS: node name -> the node's definitions of
 * it, first one first ([path, status, diagnose, variants, parameters,
 * api_versions, trusted], Ganeti's node_status entries). */
typedef struct {
	gchar *name;
	JsonObject *node_status;
	gchar *untrusted_create; /* the first node's first definition's */
} OsEntry;

static void
os_entry_free(OsEntry *self)
{
	g_free(self->name);
	g_free(self->untrusted_create);
	json_object_unref(self->node_status);
	g_free(self);
}

static JsonArray *
node_status_entry(JsonObject *os)
{
	static const gchar *const keys[] = {"path",	  "status",	  "diagnose", "variants",
					    "parameters", "api_versions", "trusted"};
	JsonArray *entry = json_array_new();

	for (guint i = 0; i < G_N_ELEMENTS(keys); i++) {
		JsonNode *value = json_object_get_member(os, keys[i]);
		json_array_add_element(entry, value != NULL ? gnt_json_node_deep_copy(value)
							    : gnt_json_node_new_null());
	}
	return entry;
}

/* Ganeti's _DiagnoseByOS over the answers of @good (node names). */
static GHashTable *
diagnose_by_os(GPtrArray *good, GPtrArray *answers)
{
	GHashTable *all =
		g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)os_entry_free);

	for (guint n = 0; n < good->len; n++) {
		JsonArray *list = g_ptr_array_index(answers, n);

		for (guint i = 0; i < json_array_get_length(list); i++) {
			JsonObject *os = json_array_get_object_element(list, i);
			const gchar *name = os != NULL ? json_object_get_string_member_with_default(
								 os, "name", NULL)
						       : NULL;
			OsEntry *entry;
			JsonArray *defs;

			if (name == NULL)
				continue;
			entry = g_hash_table_lookup(all, name);
			if (entry == NULL) {
				entry = g_new0(OsEntry, 1);
				entry->name = g_strdup(name);
				entry->node_status = json_object_new();
				for (guint k = 0; k < good->len; k++)
					json_object_set_array_member(entry->node_status,
								     g_ptr_array_index(good, k),
								     json_array_new());
				g_hash_table_insert(all, entry->name, entry);
				entry->untrusted_create =
					g_strdup(json_object_get_string_member_with_default(
						os, "untrusted_create", NULL));
			}
			defs = json_object_get_array_member(entry->node_status,
							    g_ptr_array_index(good, n));
			json_array_add_array_element(defs, node_status_entry(os));
		}
	}
	return all;
}

/* The strings of @list (a JSON list), as a set. */
static void
set_from_list(GHashTable *set, JsonNode *list)
{
	if (list == NULL || !JSON_NODE_HOLDS_ARRAY(list))
		return;
	for (guint i = 0; i < json_array_get_length(json_node_get_array(list)); i++) {
		JsonNode *item = json_array_get_element(json_node_get_array(list), i);
		g_hash_table_add(set, gnt_json_to_string(item));
	}
}

/* @set keeps only what @list has too. */
static void
set_intersect(GHashTable *set, JsonNode *list)
{
	g_autoptr(GHashTable) other = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GHashTableIter iter;
	gpointer key;

	set_from_list(other, list);
	g_hash_table_iter_init(&iter, set);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		if (!g_hash_table_contains(other, key))
			g_hash_table_iter_remove(&iter);
	}
}

static gint
compare_json_text(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* The set's members (JSON texts) as a sorted JSON list. */
static JsonNode *
set_to_list(GHashTable *set)
{
	g_autofree gpointer *keys = g_hash_table_get_keys_as_array(set, NULL);
	guint n = g_hash_table_size(set);
	JsonArray *out = json_array_new();

	qsort(keys, n, sizeof(gpointer), compare_json_text);
	for (guint i = 0; i < n; i++)
		json_array_add_element(out, gnt_json_parse(keys[i], -1, NULL));
	return gnt_json_node_new_array(out);
}

static gboolean
list_contains(JsonArray *list, const gchar *value)
{
	for (guint i = 0; list != NULL && i < json_array_get_length(list); i++) {
		if (g_strcmp0(json_array_get_string_element(list, i), value) == 0)
			return TRUE;
	}
	return FALSE;
}

/* One row of Ganeti's OsInfo for @entry. */
static JsonArray *
os_row(OsEntry *entry, JsonArray *fields, JsonObject *cluster_info, gboolean *valid_out,
       gboolean *hidden_out, gboolean *blacklisted_out)
{
	g_autoptr(GHashTable)
		variants = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable)
		parameters = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable)
		api_versions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GList) nodes = json_object_get_members(entry->node_status);
	g_autoptr(JsonNode) variant_list = NULL;
	JsonObject *os_hvp = json_object_new();
	JsonObject *osparams = json_object_new();
	JsonObject *cluster_os_hvp = json_object_get_object_member(cluster_info, "os_hvp");
	JsonObject *cluster_osparams = json_object_get_object_member(cluster_info, "osparams");
	gboolean valid = TRUE;
	JsonArray *row = json_array_new();
	guint index = 0;

	for (GList *l = nodes; l != NULL && valid; l = l->next, index++) {
		JsonArray *defs = json_object_get_array_member(entry->node_status, l->data);
		JsonArray *first = json_array_get_length(defs) > 0
					   ? json_array_get_array_element(defs, 0)
					   : NULL;
		JsonNode *status = first != NULL ? json_array_get_element(first, 1) : NULL;

		valid = status != NULL && JSON_NODE_HOLDS_VALUE(status) &&
			json_node_get_value_type(status) == G_TYPE_BOOLEAN &&
			json_node_get_boolean(status);
		if (!valid)
			break;
		if (index == 0) {
			set_from_list(variants, json_array_get_element(first, 3));
			set_from_list(parameters, json_array_get_element(first, 4));
			set_from_list(api_versions, json_array_get_element(first, 5));
		} else {
			set_intersect(variants, json_array_get_element(first, 3));
			set_intersect(parameters, json_array_get_element(first, 4));
			set_intersect(api_versions, json_array_get_element(first, 5));
		}
	}
	if (!valid) {
		/* Ganeti's OsInfo keeps empty lists for an invalid OS */
		g_hash_table_remove_all(variants);
		g_hash_table_remove_all(parameters);
		g_hash_table_remove_all(api_versions);
	}
	variant_list = set_to_list(variants);
	for (guint i = 0; i < json_array_get_length(json_node_get_array(variant_list)); i++) {
		g_autofree gchar *full = g_strdup_printf(
			"%s+%s", entry->name,
			json_array_get_string_element(json_node_get_array(variant_list), i));
		if (cluster_os_hvp != NULL && json_object_has_member(cluster_os_hvp, full))
			json_object_set_member(os_hvp, full,
					       json_object_dup_member(cluster_os_hvp, full));
		if (cluster_osparams != NULL && json_object_has_member(cluster_osparams, full))
			json_object_set_member(osparams, full,
					       json_object_dup_member(cluster_osparams, full));
	}
	*valid_out = valid;
	*hidden_out =
		list_contains(json_object_get_array_member(cluster_info, "hidden_os"), entry->name);
	*blacklisted_out = list_contains(
		json_object_get_array_member(cluster_info, "blacklisted_os"), entry->name);
	for (guint i = 0; i < json_array_get_length(fields); i++) {
		const gchar *field = json_array_get_string_element(fields, i);

		if (g_strcmp0(field, "name") == 0)
			json_array_add_string_element(row, entry->name);
		else if (g_strcmp0(field, "valid") == 0)
			json_array_add_boolean_element(row, valid);
		else if (g_strcmp0(field, "hidden") == 0)
			json_array_add_boolean_element(row, *hidden_out);
		else if (g_strcmp0(field, "blacklisted") == 0)
			json_array_add_boolean_element(row, *blacklisted_out);
		else if (g_strcmp0(field, "variants") == 0)
			json_array_add_element(row, json_node_copy(variant_list));
		else if (g_strcmp0(field, "api_versions") == 0)
			json_array_add_element(row, set_to_list(api_versions));
		else if (g_strcmp0(field, "parameters") == 0)
			json_array_add_element(row, set_to_list(parameters));
		else if (g_strcmp0(field, "node_status") == 0)
			json_array_add_object_element(
				row, gnt_json_object_deep_copy(entry->node_status));
		else if (g_strcmp0(field, "os_hvp") == 0)
			json_array_add_object_element(row, json_object_ref(os_hvp));
		else if (g_strcmp0(field, "osparams") == 0)
			json_array_add_object_element(row, json_object_ref(osparams));
		else if (g_strcmp0(field, "trusted") == 0)
			/* Gantry's meaning: an administrator marked it trusted
			 * (gnt-os modify --trusted), so its scripts may run on the
			 * host (doc/install.md); Ganeti's says no definition has
			 * an untrusted create script (see untrusted_scripts) */
			json_array_add_boolean_element(
				row, list_contains(json_object_get_array_member(cluster_info,
										"trusted_os"),
						   entry->name));
		else { /* untrusted_scripts */
			JsonArray *scripts = json_array_new();

			if (valid && entry->untrusted_create != NULL)
				json_array_add_string_element(scripts, entry->untrusted_create);
			json_array_add_array_element(row, scripts);
		}
	}
	json_object_unref(os_hvp);
	json_object_unref(osparams);
	return row;
}

static gint
compare_entries(gconstpointer a, gconstpointer b)
{
	return g_strcmp0((*(OsEntry *const *)a)->name, (*(OsEntry *const *)b)->name);
}

static JsonNode *
os_diagnose_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	GntLuEnv *env = gnt_lu_get_env(lu);
	JsonArray *fields = json_node_get_array(gnt_opcode_get_param(op, "output_fields"));
	JsonArray *names = json_node_get_array(gnt_opcode_get_param(op, "names"));
	g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(env->config);
	g_autoptr(GPtrArray) nodes = gnt_lu_dup_vm_nodes(env->config);
	g_autoptr(GPtrArray) good = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray)
		answers = g_ptr_array_new_with_free_func((GDestroyNotify)json_array_unref);
	g_autoptr(GHashTable) all = NULL;
	g_autoptr(GPtrArray) entries = NULL;
	g_auto(GStrv) search_path = NULL;
	JsonArray *path = json_object_get_array_member(info, "os_search_path");
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	JsonArray *result;

	if (rpc == NULL)
		return NULL;
	search_path = g_new0(gchar *, json_array_get_length(path) + 1);
	for (guint i = 0; i < json_array_get_length(path); i++)
		search_path[i] = g_strdup(json_array_get_string_element(path, i));
	for (guint i = 0; i < nodes->len; i++) {
		JsonObject *node = g_ptr_array_index(nodes, i);
		g_autoptr(GError) node_error = NULL;
		JsonArray *answer = gnt_node_call_os_diagnose(
			rpc, node, (const gchar *const *)search_path, &node_error);
		if (answer == NULL) {
			gnt_lu_feedback(lu, "WARNING: leaving node %s out: %s",
					json_object_get_string_member(node, "name"),
					node_error->message);
			continue;
		}
		g_ptr_array_add(good, g_strdup(json_object_get_string_member(node, "name")));
		g_ptr_array_add(answers, answer);
	}
	all = diagnose_by_os(good, answers);
	entries = g_ptr_array_new();
	{
		GHashTableIter iter;
		gpointer value;
		g_hash_table_iter_init(&iter, all);
		while (g_hash_table_iter_next(&iter, NULL, &value))
			g_ptr_array_add(entries, value);
	}
	g_ptr_array_sort(entries, compare_entries);
	result = json_array_new();
	for (guint i = 0; i < entries->len; i++) {
		OsEntry *entry = g_ptr_array_index(entries, i);
		gboolean valid = FALSE, hidden = FALSE, blacklisted = FALSE;
		JsonArray *row;

		if (json_array_get_length(names) > 0 && !list_contains(names, entry->name))
			continue;
		row = os_row(entry, fields, info, &valid, &hidden, &blacklisted);
		/* Ganeti's legacy filter: hide what the caller did not ask about */
		if ((!valid && !list_contains(fields, "valid")) ||
		    (hidden && !list_contains(fields, "hidden")) ||
		    (blacklisted && !list_contains(fields, "blacklisted"))) {
			json_array_unref(row);
			continue;
		}
		json_array_add_array_element(result, row);
	}
	return gnt_json_node_new_array(result);
}

const GntLuClass gnt_lu_os_diagnose = {
	.check_args = os_diagnose_check_args,
	.exec = os_diagnose_exec,
};
