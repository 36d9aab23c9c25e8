/*
 * OP_INSTANCE_QUERY_DATA: Ganeti's LUInstanceQueryData, the detailed view
 * of instances that RAPI's /2/instances/NAME/info returns (as a job). One
 * entry per instance, keyed by name: its configuration, its parameters as
 * set on it and as filled from the cluster's defaults, and (unless
 * "static") whether it runs, asked of its primary node; Gantry adds
 * "install", the record's install parameters and last install's steps.
 */
#include "gnt-records.h"
#include "gnt-config-fill.h"
#include "gnt-config.h"
#include "gnt-error.h"
#include <string.h>

#include "gnt-install-steps.h"
#include "gnt-json.h"
#include "gnt-live-probe.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu.h"
#include "gnt-node-calls.h"

/* The instances asked for, sorted by name (JsonObject, all of them when
 * the opcode names none). */
typedef struct {
	GPtrArray *instances;
} QueryData;

static void
query_data_free(QueryData *self)
{
	g_ptr_array_unref(self->instances);
	g_free(self);
}

static JsonArray *
requested_names(GntLu *lu)
{
	JsonNode *names = gnt_opcode_get_param(gnt_lu_get_opcode(lu), "instances");

	return names != NULL && JSON_NODE_HOLDS_ARRAY(names) ? json_node_get_array(names) : NULL;
}

/* Shared locks on the instances named; nothing for "all of them": the
 * answer is a view at one moment, as Ganeti's without use_locking. */
static void
query_data_declare_locks(GntLu *lu, GntLockSet *locks)
{
	JsonArray *names = requested_names(lu);

	for (guint i = 0; names != NULL && i < json_array_get_length(names); i++) {
		const gchar *name = json_array_get_string_element(names, i);
		g_autoptr(JsonObject) instance =
			gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE, name, NULL);

		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_INSTANCE,
				 instance != NULL ? json_object_get_string_member(instance, "name")
						  : name,
				 GNT_LOCK_SHARED);
	}
}

static gboolean
query_data_check_prereq(GntLu *lu, GError **error)
{
	JsonArray *names = requested_names(lu);
	g_autoptr(GPtrArray) instances = NULL;
	QueryData *data;

	if (names == NULL || json_array_get_length(names) == 0) {
		instances = gnt_config_dup_objects(lu_config(lu), GNT_OBJECT_INSTANCE);
	} else {
		instances = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
		for (guint i = 0; i < json_array_get_length(names); i++) {
			JsonObject *instance = gnt_config_dup_object(
				lu_config(lu), GNT_OBJECT_INSTANCE,
				json_array_get_string_element(names, i), error);

			if (instance == NULL)
				return FALSE;
			g_ptr_array_add(instances, instance);
		}
	}
	data = g_new0(QueryData, 1);
	data->instances = g_steal_pointer(&instances);
	gnt_lu_set_data(lu, data, (GDestroyNotify)query_data_free);
	return TRUE;
}

/* What runs on @node under the instances' hypervisors, asked as a query's
 * live fields are (gnt-live-probe.h): instance name -> its live record,
 * NULL with @error when the node cannot say. (transfer full) */
static JsonObject *
node_running(GntLu *lu, JsonObject *node, GError **error)
{
	QueryData *data = gnt_lu_get_data(lu);
	g_autoptr(GPtrArray) hypervisors = g_ptr_array_new();

	for (guint i = 0; i < data->instances->len; i++) {
		const gchar *hv = json_object_get_string_member(
			g_ptr_array_index(data->instances, i), "hypervisor");

		if (!g_ptr_array_find_with_equal_func(hypervisors, hv, g_str_equal, NULL))
			g_ptr_array_add(hypervisors, (gpointer)hv);
	}
	g_ptr_array_add(hypervisors, NULL);
	return gnt_live_probe_instances(gnt_lu_get_env(lu)->rpc, node,
					(const gchar *const *)hypervisors->pdata, 0, error);
}

/* Ganeti's run_state: "up" when the node runs it, else "down" for an
 * instance meant to run, else its admin state; null when not asked
 * (static) or the node is offline. */
static JsonNode *
run_state(GntLu *lu, JsonObject *instance, JsonObject *node, GHashTable *running_by_node,
	  GError **error)
{
	const gchar *admin_state = json_object_get_string_member(instance, "admin_state");
	const gchar *node_name = json_object_get_string_member(node, "name");
	JsonObject *running;

	if (gnt_opcode_get_bool(gnt_lu_get_opcode(lu), "static"))
		return gnt_json_node_new_null();
	if (gnt_record_get_flag(node, "offline", FALSE)) {
		gnt_lu_feedback(lu,
				"Primary node %s is marked offline, returning static information "
				"only for instance %s",
				node_name, json_object_get_string_member(instance, "name"));
		return gnt_json_node_new_null();
	}
	running = g_hash_table_lookup(running_by_node, node_name);
	if (running == NULL) {
		running = node_running(lu, node, error);
		if (running == NULL) {
			g_prefix_error(error, "Error checking node %s: ", node_name);
			return NULL;
		}
		g_hash_table_insert(running_by_node, g_strdup(node_name), running);
	}
	if (json_object_has_member(running, json_object_get_string_member(instance, "name")))
		return gnt_json_node_new_string(gnt_admin_state_to_string(GNT_ADMIN_STATE_UP));
	return gnt_json_node_new_string(gnt_record_get_admin_state(instance) == GNT_ADMIN_STATE_UP
						? gnt_admin_state_to_string(GNT_ADMIN_STATE_DOWN)
						: admin_state);
}

/* Ganeti's disk entries; block device status (pstatus, sstatus) is only
 * known for replicated disks, which there are none of yet: null. */
static JsonArray *
disks_entry(JsonObject *instance)
{
	static const gchar *const keys[] = {"iv_name", "dev_type", "logical_id", "mode",
					    "size",    "spindles", "name",	 "uuid"};
	JsonArray *disks = json_object_get_array_member(instance, "disks");
	JsonArray *out = json_array_new();

	for (guint i = 0; disks != NULL && i < json_array_get_length(disks); i++) {
		JsonObject *disk = json_array_get_object_element(disks, i);
		JsonObject *entry = json_object_new();

		for (guint k = 0; k < G_N_ELEMENTS(keys); k++) {
			JsonNode *value = json_object_get_member(disk, keys[k]);

			json_object_set_member(entry, keys[k],
					       value != NULL ? gnt_json_node_deep_copy(value)
							     : gnt_json_node_new_null());
		}
		json_object_set_null_member(entry, "pstatus");
		json_object_set_null_member(entry, "sstatus");
		json_object_set_array_member(entry, "children", json_array_new());
		json_array_add_object_element(out, entry);
	}
	return out;
}

/* Ganeti's NIC tuples: [name, uuid, ip, mac, mode, link, vlan, network,
 * netinfo], mode, link and vlan filled from the cluster's defaults. */
static JsonArray *
nics_entry(JsonObject *instance, const GntCluster *cluster)
{
	static const gchar *const own[] = {"name", "uuid", "ip", "mac"};
	static const gchar *const params[] = {"mode", "link", "vlan"};
	JsonArray *nics = json_object_get_array_member(instance, "nics");
	JsonArray *out = json_array_new();

	for (guint i = 0; nics != NULL && i < json_array_get_length(nics); i++) {
		JsonObject *nic = json_array_get_object_element(nics, i);
		g_autoptr(JsonObject) filled = gnt_fill_nicparams(cluster->settings, nic);
		JsonArray *tuple = json_array_new();

		for (guint k = 0; k < G_N_ELEMENTS(own); k++) {
			JsonNode *value = json_object_get_member(nic, own[k]);

			json_array_add_element(tuple, value != NULL ? gnt_json_node_deep_copy(value)
								    : gnt_json_node_new_null());
		}
		for (guint k = 0; k < G_N_ELEMENTS(params); k++)
			json_array_add_element(
				tuple,
				gnt_json_node_deep_copy(json_object_get_member(filled, params[k])));
		json_array_add_element(
			tuple, gnt_json_node_deep_copy(json_object_get_member(nic, "network")));
		json_array_add_null_element(tuple);
		json_array_add_array_element(out, tuple);
	}
	return out;
}

/* The metadata section of gnt-instance info: {"communication": bool,
 * "communication_ip": null|"169.254.A.B", "communication_mac",
 * "user_data_size": bytes, "ssh_keys": own keys, "os_package": null|URL}. */
static JsonObject *
metadata_shown(JsonObject *instance)
{
	JsonObject *out = json_object_new();
	JsonNode *comm = json_object_get_member(instance, "communication_nic");
	JsonObject *nic = comm != NULL && JSON_NODE_HOLDS_OBJECT(comm) ? json_node_get_object(comm)
								       : NULL;
	JsonNode *user_data = json_object_get_member(instance, "user_data");
	JsonNode *keys = json_object_get_member(instance, "ssh_keys");
	JsonNode *osparams = json_object_get_member(instance, "osparams");
	const gchar *package = osparams != NULL && JSON_NODE_HOLDS_OBJECT(osparams)
				       ? json_object_get_string_member_with_default(
						 json_node_get_object(osparams), "os-package", NULL)
				       : NULL;

	json_object_set_boolean_member(
		out, "communication",
		json_object_get_boolean_member_with_default(instance, "communication", FALSE));
	if (nic != NULL) {
		json_object_set_member(out, "communication_ip", json_object_dup_member(nic, "ip"));
		json_object_set_member(out, "communication_mac",
				       json_object_dup_member(nic, "mac"));
	} else {
		json_object_set_null_member(out, "communication_ip");
		json_object_set_null_member(out, "communication_mac");
	}
	json_object_set_int_member(out, "user_data_size",
				   user_data != NULL && JSON_NODE_HOLDS_VALUE(user_data) &&
						   json_node_get_value_type(user_data) ==
							   G_TYPE_STRING
					   ? (gint64)strlen(json_node_get_string(user_data))
					   : 0);
	json_object_set_int_member(out, "ssh_keys",
				   keys != NULL && JSON_NODE_HOLDS_ARRAY(keys)
					   ? json_array_get_length(json_node_get_array(keys))
					   : 0);
	if (package != NULL)
		json_object_set_string_member(out, "os_package", package);
	else
		json_object_set_null_member(out, "os_package");
	return out;
}

/* A member of @obj, copied; @fallback (an empty object or null) when
 * missing. */
static JsonNode *
member_copy(JsonObject *obj, const gchar *key, gboolean object_fallback)
{
	JsonNode *value = json_object_get_member(obj, key);

	if (value != NULL)
		return gnt_json_node_deep_copy(value);
	return object_fallback ? gnt_json_node_new_object(json_object_new())
			       : gnt_json_node_new_null();
}

/* The name of @node's group (null when it has none). (transfer full) */
static JsonNode *
group_name_of(GntConfig *config, JsonObject *node)
{
	const gchar *uuid = json_object_get_string_member_with_default(node, "group", NULL);
	g_autoptr(JsonObject) group =
		uuid != NULL ? gnt_config_dup_object(config, GNT_OBJECT_GROUP, uuid, NULL) : NULL;

	if (group == NULL)
		return json_node_new(JSON_NODE_NULL);
	return json_node_copy(json_object_get_member(group, "name"));
}

/* Ganeti's os_actual: SimpleFillOS of the public parameters. */
static JsonObject *
filled_osparams(JsonObject *instance, const GntCluster *cluster)
{
	const gchar *os = NULL;
	JsonObject *own = NULL;

	gnt_json_get_string(instance, "os", &os, NULL);
	gnt_json_get_object(instance, "osparams", &own, NULL);
	return gnt_fill_osparams(cluster->settings, os, own);
}

static JsonObject *
instance_entry(GntLu *lu, JsonObject *instance, const GntCluster *cluster,
	       GHashTable *running_by_node, GError **error)
{
	static const gchar *const copied[] = {"os",	      "disk_template", "hypervisor",
					      "network_port", "serial_no",     "mtime",
					      "ctime",	      "uuid"};
	GntConfig *config = lu_config(lu);
	g_autoptr(JsonObject) node = NULL;
	g_autoptr(JsonObject) spec = NULL;
	g_autoptr(JsonObject) entry = json_object_new();
	JsonNode *state;

	node = gnt_lu_dup_node(config, json_object_get_string_member(instance, "primary_node"),
			       error);
	if (node == NULL)
		return NULL;
	spec = gnt_lu_instance_spec_new(config, instance, error);
	if (spec == NULL)
		return NULL;
	state = run_state(lu, instance, node, running_by_node, error);
	if (state == NULL)
		return NULL;
	json_object_set_member(entry, "name", member_copy(instance, "name", FALSE));
	json_object_set_member(entry, "config_state", member_copy(instance, "admin_state", FALSE));
	json_object_set_member(entry, "run_state", state);
	json_object_set_member(entry, "pnode", member_copy(node, "name", FALSE));
	json_object_set_member(entry, "pnode_group_uuid", member_copy(node, "group", FALSE));
	json_object_set_member(entry, "pnode_group_name", group_name_of(config, node));
	json_object_set_array_member(entry, "snodes", json_array_new());
	json_object_set_array_member(entry, "snodes_group_uuids", json_array_new());
	json_object_set_array_member(entry, "snodes_group_names", json_array_new());
	json_object_set_array_member(entry, "nics", nics_entry(instance, cluster));
	json_object_set_array_member(entry, "disks", disks_entry(instance));
	json_object_set_member(entry, "hv_instance", member_copy(instance, "hvparams", TRUE));
	json_object_set_member(entry, "hv_actual", member_copy(spec, "hvparams", TRUE));
	json_object_set_member(entry, "be_instance", member_copy(instance, "beparams", TRUE));
	json_object_set_member(entry, "be_actual", member_copy(spec, "beparams", TRUE));
	/* public parameters only: private ones are never shown */
	json_object_set_member(entry, "os_instance", member_copy(instance, "osparams", TRUE));
	json_object_set_object_member(entry, "os_actual", filled_osparams(instance, cluster));
	for (guint i = 0; i < G_N_ELEMENTS(copied); i++)
		json_object_set_member(entry, copied[i], member_copy(instance, copied[i], FALSE));
	/* Gantry's: the install parameters and what the last install did
	 * (doc/install.md); secret parameters by name only */
	json_object_set_object_member(entry, "install", gnt_install_dup_shown(instance));
	/* Gantry's: what metad serves it (doc/metad.md), never credentials */
	json_object_set_object_member(entry, "metadata", metadata_shown(instance));
	return g_steal_pointer(&entry);
}

static JsonNode *
query_data_exec(GntLu *lu, GError **error)
{
	QueryData *data = gnt_lu_get_data(lu);
	g_autoptr(GntCluster) cluster = gnt_config_dup_cluster(lu_config(lu));
	g_autoptr(GHashTable) running_by_node = g_hash_table_new_full(
		g_str_hash, g_str_equal, g_free, (GDestroyNotify)json_object_unref);
	g_autoptr(JsonObject) result = json_object_new();

	for (guint i = 0; i < data->instances->len; i++) {
		JsonObject *instance = g_ptr_array_index(data->instances, i);
		JsonObject *entry = instance_entry(lu, instance, cluster, running_by_node, error);

		if (entry == NULL)
			return NULL;
		json_object_set_object_member(
			result, json_object_get_string_member(instance, "name"), entry);
	}
	return gnt_json_node_new_object(g_steal_pointer(&result));
}

const GntLuClass gnt_lu_instance_query_data = {
	.declare_locks = query_data_declare_locks,
	.check_prereq = query_data_check_prereq,
	.exec = query_data_exec,
};
