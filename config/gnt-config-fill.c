/*
 * Effective parameters, filled level by level as Ganeti's Cluster.Fill*
 * do: one module, so that the spec a node gets and what queries show can
 * never drift apart (they did: queries applied os_hvp, the spec did not).
 */
#include "gnt-config-fill.h"

#include "gnt-error.h"
#include "gnt-hv-params.h"
#include "gnt-json.h"

/* Ganeti's HVC_GLOBALS: cluster-wide, left out of an instance's values
 * where Ganeti passes skip_globals. */
static const gchar *const hv_globals[] = {
	"migration_bandwidth", "migration_mode", "migration_port", "xen_cmd", NULL,
};

/* Ganeti's backend parameters and what an instance gets without them. */
static const struct {
	const gchar *name;
	gint64 fallback;
} be_fallbacks[] = {
	{"maxmem", 128},
	{"minmem", 128},
	{"vcpus", 1},
	{"spindle_use", 1},
};

/* @params (may be NULL) read with @hv's table, without the globals when
 * @skip_globals (Ganeti's skip_keys: they are left out before anything
 * else, so a table without them does not refuse them). (transfer full) */
static GHashTable *
hv_level(const gchar *hv, JsonObject *params, gboolean skip_globals, GError **error)
{
	g_autoptr(JsonObject) kept = NULL;

	if (params == NULL)
		return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	kept = gnt_json_object_deep_copy(params);
	for (guint i = 0; skip_globals && hv_globals[i] != NULL; i++)
		json_object_remove_member(kept, hv_globals[i]);
	return gnt_hv_params_from_json(hv, kept, error);
}

/* One level of cluster defaults copied over @out. */
static gboolean
hv_overlay(GHashTable *out, const gchar *hv, JsonObject *params, gboolean skip_globals,
	   GError **error)
{
	g_autoptr(GHashTable) table = hv_level(hv, params, skip_globals, error);
	GHashTableIter iter;
	gpointer key, value;

	if (table == NULL)
		return FALSE;
	g_hash_table_iter_init(&iter, table);
	while (g_hash_table_iter_next(&iter, &key, &value))
		g_hash_table_insert(out, g_strdup(key), g_strdup(value));
	return TRUE;
}

JsonObject *
gnt_fill_hvparams(JsonObject *settings, JsonObject *instance, gboolean skip_globals, GError **error)
{
	JsonObject *cluster_hvp = gnt_json_peek_object(settings, "hvparams");
	JsonObject *os_hvp = NULL;
	const gchar *hv = NULL;
	const gchar *os = NULL;
	g_autoptr(GHashTable)
		defaults = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_autoptr(GHashTable) own_table = NULL;
	g_autoptr(GHashTable) filled = NULL;

	g_return_val_if_fail(instance != NULL, NULL);

	gnt_json_get_string(instance, "hypervisor", &hv, NULL);
	gnt_json_get_string(instance, "os", &os, NULL);
	if (!gnt_hv_check_name(hv, error))
		return NULL;
	os_hvp = os != NULL ? gnt_json_peek_object(gnt_json_peek_object(settings, "os_hvp"), os)
			    : NULL;
	if (!hv_overlay(defaults, hv, gnt_json_peek_object(cluster_hvp, hv), skip_globals, error)) {
		g_prefix_error(error, "the cluster's hvparams of '%s': ", hv);
		return NULL;
	}
	if (!hv_overlay(defaults, hv, gnt_json_peek_object(os_hvp, hv), skip_globals, error)) {
		g_prefix_error(error, "the cluster's os_hvp of '%s' for '%s': ", os, hv);
		return NULL;
	}
	own_table = hv_level(hv, gnt_json_peek_object(instance, "hvparams"), skip_globals, error);
	if (own_table == NULL)
		return NULL;
	filled = gnt_hv_params_fill(hv, defaults, own_table, error);
	if (filled == NULL)
		return NULL;
	return gnt_hv_params_to_object(hv, filled);
}

JsonObject *
gnt_fill_beparams(JsonObject *settings, JsonObject *instance)
{
	JsonObject *cluster_be = gnt_json_peek_object(settings, "beparams");
	JsonObject *out = json_object_new();

	gnt_json_object_overlay(out, gnt_json_peek_object(cluster_be, "default"));
	for (guint i = 0; i < G_N_ELEMENTS(be_fallbacks); i++) {
		if (!json_object_has_member(out, be_fallbacks[i].name))
			json_object_set_int_member(out, be_fallbacks[i].name,
						   be_fallbacks[i].fallback);
	}
	gnt_json_object_overlay(out, gnt_json_peek_object(instance, "beparams"));
	return out;
}

JsonObject *
gnt_fill_osparams(JsonObject *settings, const gchar *os, JsonObject *own)
{
	JsonObject *cluster_os = gnt_json_peek_object(settings, "osparams");
	JsonObject *out = json_object_new();

	if (os != NULL) {
		g_autofree gchar *base = g_strndup(os, strcspn(os, "+"));

		gnt_json_object_overlay(out, gnt_json_peek_object(cluster_os, base));
		if (g_strcmp0(base, os) != 0)
			gnt_json_object_overlay(out, gnt_json_peek_object(cluster_os, os));
	}
	gnt_json_object_overlay(out, own);
	return out;
}

JsonObject *
gnt_fill_nicparams(JsonObject *settings, JsonObject *nic)
{
	JsonObject *cluster_nic = gnt_json_peek_object(settings, "nicparams");
	JsonObject *out = json_object_new();

	gnt_json_object_overlay(out, gnt_json_peek_object(cluster_nic, "default"));
	gnt_json_object_overlay(out, gnt_json_peek_object(nic, "nicparams"));
	return out;
}

JsonObject *
gnt_fill_ndparams(JsonObject *settings, JsonObject *group_ndparams, JsonObject *own)
{
	JsonObject *out = json_object_new();

	gnt_json_object_overlay(out, gnt_json_peek_object(settings, "ndparams"));
	gnt_json_object_overlay(out, group_ndparams);
	gnt_json_object_overlay(out, own);
	return out;
}

/* @out's member @key with @over's members copied over it. */
static void
merge_member(JsonObject *out, const gchar *key, JsonObject *over)
{
	JsonObject *base = gnt_json_peek_object(out, key);
	JsonObject *merged = base != NULL ? gnt_json_object_deep_copy(base) : json_object_new();

	gnt_json_object_overlay(merged, over);
	json_object_set_object_member(out, key, merged);
}

/* @base (copied) with @custom over it: the dictionaries of the keys
 * @merged names (NULL: every one) merged key by key, the rest replaced. */
static JsonObject *
fill_over(JsonObject *base, JsonObject *custom, const gchar *merged)
{
	JsonObject *out = base != NULL ? gnt_json_object_deep_copy(base) : json_object_new();
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (custom == NULL)
		return out;
	json_object_iter_init_ordered(&iter, custom);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		if ((merged == NULL || g_strcmp0(key, merged) == 0) &&
		    JSON_NODE_HOLDS_OBJECT(value))
			merge_member(out, key, json_node_get_object(value));
		else
			json_object_set_member(out, key, gnt_json_node_deep_copy(value));
	}
	return out;
}

JsonObject *
gnt_fill_ipolicy(JsonObject *base, JsonObject *custom)
{
	return fill_over(base, custom, "std");
}

JsonObject *
gnt_fill_diskparams(JsonObject *base, JsonObject *custom)
{
	return fill_over(base, custom, NULL);
}
