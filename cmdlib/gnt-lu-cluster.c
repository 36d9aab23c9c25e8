/*
 * The cluster units. OP_CLUSTER_DESTROY: the master agrees to end the
 * cluster. It runs under the cluster lock held exclusively, so no other job
 * is running; the caller (gnt-cluster destroy) then stops the daemons and
 * removes the state. OP_CLUSTER_SET_PARAMS: Ganeti's cluster modify, the
 * opcode's values merged into the cluster's settings and checked by
 * config/gnt-cluster-settings-params.c (which gnt-cluster init calls too,
 * before the daemons run), the volume group looked for on the master node,
 * and the settings stored in one change.
 */
#include "gnt-cluster-settings-params.h"
#include "gnt-config.h"
#include "gnt-disk.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu.h"
#include "gnt-node-calls.h"

static JsonNode *
cluster_destroy_exec(GntLu *lu, GError **error)
{
	g_autofree gchar *master = gnt_config_dup_master_node(gnt_lu_get_env(lu)->config);

	gnt_lu_feedback(lu, "Cluster is ready to be destroyed");
	return gnt_json_node_new_string(master);
}

const GntLuClass gnt_lu_cluster_destroy = {
	.exec = cluster_destroy_exec,
};

/* ---- OP_CLUSTER_SET_PARAMS ------------------------------------------------ */

/* Whether volume group @vg exists: asked of the master node's noded, or
 * looked for on this host when there is no @rpc. */
static gboolean
check_vg_exists(GntConfig *config, GntRpcClient *rpc, const gchar *vg, GError **error)
{
	g_autofree gchar *master = gnt_config_dup_master_node(config);
	g_autoptr(JsonObject) node = NULL;
	g_autoptr(JsonObject) storage = NULL;
	g_autoptr(JsonObject) info = NULL;
	const gchar *const no_hypervisors[] = {NULL};
	JsonArray *reports = NULL;

	if (rpc == NULL)
		return gnt_disk_check_volume_group(master, vg, error);
	node = gnt_lu_dup_node(config, master, error);
	if (node == NULL)
		return FALSE;
	storage = json_object_new();
	json_object_set_string_member(storage, "volume_group_name", vg);
	json_object_set_null_member(storage, "file_storage_dir");
	info = gnt_node_call_node_info(rpc, node, no_hypervisors, storage, error);
	if (info == NULL)
		return FALSE;
	if (gnt_json_get_array(info, "storage", &reports, NULL)) {
		for (guint i = 0; i < json_array_get_length(reports); i++) {
			JsonObject *report = json_array_get_object_element(reports, i);
			if (report == NULL || g_strcmp0(json_object_get_string_member_with_default(
								report, "type", ""),
							"lvm-vg") != 0)
				continue;
			if (!json_object_has_member(report, "error"))
				return TRUE;
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "Error on node '%s': %s", master,
				    json_object_get_string_member_with_default(report, "error",
									       ""));
			return FALSE;
		}
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
		    "Error on node '%s': no report about volume group '%s'", master, vg);
	return FALSE;
}

/* OP_CLUSTER_SET_PARAMS' values as the changes of the settings, merged and
 * checked by config/; a volume group the change starts using looked for on
 * the master node. (transfer full) */
static JsonObject *
settings_from_params(GntConfig *config, GntRpcClient *rpc, JsonObject *params, GError **error)
{
	g_autoptr(JsonObject) changes = NULL;
	g_autofree gchar *vg = NULL;

	changes = gnt_cluster_settings_from_params(config, params, &vg, error);
	if (changes == NULL)
		return NULL;
	if (vg != NULL && !check_vg_exists(config, rpc, vg, error))
		return NULL;
	return g_steal_pointer(&changes);
}

static gboolean
set_params_check_prereq(GntLu *lu, GError **error)
{
	GntLuEnv *env = gnt_lu_get_env(lu);
	g_autoptr(JsonObject) params = gnt_opcode_to_json(gnt_lu_get_opcode(lu));
	JsonObject *changes = settings_from_params(env->config, env->rpc, params, error);

	if (changes == NULL)
		return FALSE;
	gnt_lu_set_data(lu, changes, (GDestroyNotify)json_object_unref);
	return TRUE;
}

static JsonNode *
set_params_exec(GntLu *lu, GError **error)
{
	JsonObject *changes = gnt_lu_get_data(lu);
	g_autoptr(GList) keys = json_object_get_members(changes);

	if (keys == NULL) {
		gnt_lu_feedback(lu, "No changes to the cluster parameters");
		return gnt_json_node_new_null();
	}
	if (!gnt_config_set_cluster_settings(gnt_lu_get_env(lu)->config, changes, error))
		return NULL;
	for (GList *l = keys; l != NULL; l = l->next)
		gnt_lu_feedback(lu, "Cluster parameter '%s' changed", (const gchar *)l->data);
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_cluster_set_params = {
	.check_prereq = set_params_check_prereq,
	.exec = set_params_exec,
};
