/*
 * noded's node_verify: what cluster verify needs from a node in one call
 * (Ganeti's node_verify), as facts, not judgements; the master compares
 * them with the configuration (cmdlib/gnt-lu-verify.c). The parts that
 * other procedures already report (node_info, instance_list, os_diagnose)
 * come from those procedures; each part that fails carries its own
 * "<part>_error" instead, so that one broken part hides nothing else.
 */
#include <errno.h>
#include <string.h>

#include "gnt-channel.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-noded-private.h"
#include "gnt-rpc-protocol.h"
#include "gnt-build-config.h"

#define CHANNEL_STATE_DIR "channel" /* below the run directory, as gnt-noded-appliance.c */

/* Runs the procedure @name of @table with @args, putting its result under
 * @name, or its error under "<name>_error". */
static void
add_procedure_part(JsonObject *result, const GntRpcProcedure *table, const gchar *name,
		   JsonArray *args, GntRpcNode *node)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *error_key = g_strconcat(name, "_error", NULL);

	for (guint i = 0; table[i].name != NULL; i++) {
		JsonNode *value;

		if (strcmp(table[i].name, name) != 0)
			continue;
		value = gnt_rpc_procedure_run(&table[i], args, node, &error);
		if (value != NULL)
			json_object_set_member(result, name, value);
		else
			json_object_set_string_member(result, error_key, error->message);
		return;
	}
	g_assert_not_reached();
}

/* {"path", "not_before", "not_after"} (seconds) of the node's certificate. */
static void
add_certificate_part(JsonObject *result, GntRpcNode *node)
{
	const gchar *path = gnt_paths_get_node_cert(node->paths);
	g_autoptr(GError) error = NULL;
	g_autoptr(GTlsCertificate) cert = g_tls_certificate_new_from_file(path, &error);
	JsonObject *part = json_object_new();

	json_object_set_string_member(part, "path", path);
	if (cert != NULL) {
		g_autoptr(GDateTime) before = g_tls_certificate_get_not_valid_before(cert);
		g_autoptr(GDateTime) after = g_tls_certificate_get_not_valid_after(cert);

		json_object_set_int_member(part, "not_before",
					   before != NULL ? g_date_time_to_unix(before) : 0);
		json_object_set_int_member(part, "not_after",
					   after != NULL ? g_date_time_to_unix(after) : 0);
	} else {
		json_object_set_string_member(part, "error", error->message);
	}
	json_object_set_object_member(result, "certificate", part);
}

/* {"<volume>": bytes} of one store; its error under "<template>_error". */
static void
add_volumes_of(JsonObject *volumes, GntDiskTemplate template, const GntDiskStoreParams *params)
{
	const gchar *name = gnt_disk_template_to_string(template);
	g_autoptr(GError) error = NULL;
	g_autoptr(GntDiskStore) store = gnt_disk_store_new(template, params, &error);
	g_autoptr(GPtrArray) list = store != NULL ? gnt_disk_store_list_volume_sizes(store, &error)
						  : NULL;
	JsonObject *part;

	if (list == NULL) {
		g_autofree gchar *key = g_strconcat(name, "_error", NULL);

		json_object_set_string_member(volumes, key, error->message);
		return;
	}
	part = json_object_new();
	for (guint i = 0; i < list->len; i++) {
		GntDiskVolume *volume = g_ptr_array_index(list, i);

		json_object_set_int_member(part, volume->name, (gint64)volume->size_bytes);
	}
	json_object_set_object_member(volumes, name, part);
}

/* A string member, or NULL for null or missing. */
static gboolean
get_optional_string(JsonObject *obj, const gchar *key, const gchar **out, GError **error)
{
	JsonNode *value = json_object_get_member(obj, key);

	*out = NULL;
	return value == NULL || JSON_NODE_HOLDS_NULL(value) ||
	       gnt_json_get_string(obj, key, out, error);
}

static gint
compare_names(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

static gboolean
add_volumes_part(JsonObject *result, JsonObject *storage, GError **error)
{
	GntDiskStoreParams params = {NULL};
	JsonObject *volumes = json_object_new();

	if (!get_optional_string(storage, "volume_group_name", &params.vg_name, error) ||
	    !get_optional_string(storage, "file_storage_dir", &params.file_storage_dir, error)) {
		json_object_unref(volumes);
		g_prefix_error(error, "'storage': ");
		return FALSE;
	}
	if (params.vg_name != NULL)
		add_volumes_of(volumes, GNT_DISK_TEMPLATE_PLAIN, &params);
	if (params.file_storage_dir != NULL)
		add_volumes_of(volumes, GNT_DISK_TEMPLATE_FILE, &params);
	json_object_set_object_member(result, "volumes", volumes);
	return TRUE;
}

/* [{"name": "gnt.com.N", "instance": the one whose channel state names it,
 * or null}] for every channel tap on the host. */
static void
add_taps_part(JsonObject *result, GntRpcNode *node)
{
	g_autofree gchar *state_dir =
		g_build_filename(gnt_paths_get_run_dir(node->paths), CHANNEL_STATE_DIR, NULL);
	g_autoptr(GHashTable)
		owners = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_autoptr(GDir) state = g_dir_open(state_dir, 0, NULL);
	g_autoptr(GDir) net = g_dir_open("/sys/class/net", 0, NULL);
	g_autoptr(GPtrArray) taps = g_ptr_array_new_with_free_func(g_free);
	JsonArray *part = json_array_new();
	const gchar *entry;

	while (state != NULL && (entry = g_dir_read_name(state)) != NULL) {
		g_autofree gchar *path = g_build_filename(state_dir, entry, NULL);
		g_autofree gchar *tap = NULL;

		if (g_file_get_contents(path, &tap, NULL, NULL) && *g_strstrip(tap) != '\0')
			g_hash_table_replace(owners, g_steal_pointer(&tap), g_strdup(entry));
	}
	while (net != NULL && (entry = g_dir_read_name(net)) != NULL) {
		if (g_str_has_prefix(entry, GNT_CHANNEL_DEVICE_PREFIX))
			g_ptr_array_add(taps, g_strdup(entry));
	}
	g_ptr_array_sort(taps, compare_names);
	for (guint i = 0; i < taps->len; i++) {
		const gchar *tap = g_ptr_array_index(taps, i);
		const gchar *owner = g_hash_table_lookup(owners, tap);
		JsonObject *obj = json_object_new();

		json_object_set_string_member(obj, "name", tap);
		if (owner != NULL)
			json_object_set_string_member(obj, "instance", owner);
		else
			json_object_set_null_member(obj, "instance");
		json_array_add_object_element(part, obj);
	}
	json_object_set_array_member(result, "taps", part);
}

static JsonArray *
args_of(JsonNode *first, JsonNode *second)
{
	JsonArray *args = json_array_new();

	json_array_add_element(args, first);
	if (second != NULL)
		json_array_add_element(args, second);
	return args;
}

static JsonNode *
node_verify_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	GntRpcNode *node = user_data;
	JsonObject *params = gnt_rpc_args_get_object(args, "parameters");
	g_autoptr(JsonObject) result = json_object_new();
	g_autoptr(JsonArray) info_args = NULL;
	g_autoptr(JsonArray) list_args = NULL;
	g_autoptr(JsonArray) os_args = NULL;
	JsonArray *version = json_array_new();
	JsonArray *now = json_array_new();
	JsonNode *hypervisors, *storage, *search_path;
	gint64 usec = g_get_real_time();

	hypervisors = json_object_get_member(params, "hypervisors");
	storage = json_object_get_member(params, "storage");
	search_path = json_object_get_member(params, "os_search_path");
	if (hypervisors == NULL || storage == NULL || !JSON_NODE_HOLDS_OBJECT(storage) ||
	    search_path == NULL) {
		json_array_unref(version);
		json_array_unref(now);
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'parameters' must have 'hypervisors', 'storage' (an object) "
				    "and 'os_search_path'");
		return NULL;
	}
	/* Ganeti's NV_VERSION and NV_TIME */
	json_array_add_int_element(version, GNT_RPC_PROTOCOL_VERSION);
	json_array_add_string_element(version, GNT_VERSION);
	json_object_set_array_member(result, "version", version);
	json_array_add_int_element(now, usec / G_USEC_PER_SEC);
	json_array_add_int_element(now, usec % G_USEC_PER_SEC);
	json_object_set_array_member(result, "time", now);
	info_args = args_of(json_node_copy(hypervisors), json_node_copy(storage));
	add_procedure_part(result, gnt_rpc_node_instance_procedures, "node_info", info_args, node);
	list_args = args_of(json_node_copy(hypervisors), NULL);
	add_procedure_part(result, gnt_rpc_node_instance_procedures, "instance_list", list_args,
			   node);
	os_args = args_of(json_node_copy(search_path), NULL);
	add_procedure_part(result, gnt_rpc_node_os_procedures, "os_diagnose", os_args, node);
	add_certificate_part(result, node);
	if (!add_volumes_part(result, json_node_get_object(storage), error))
		return NULL;
	add_taps_part(result, node);
	return gnt_json_node_new_object(g_steal_pointer(&result));
}

const GntRpcProcedure gnt_rpc_node_verify_procedures[] = {
	{"node_verify", node_verify_procedure},
	{NULL},
};
