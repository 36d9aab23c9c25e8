/*
 * Opcodes of nodes, tags, OS definitions and cluster settings. Parameters,
 * defaults and allowed values are those of Ganeti 3.0 (opcodes.py), so its
 * clients' opcodes are accepted as they are; Gantry's own additions are
 * optional and marked.
 */
#include "gnt-error.h"
#include "gnt-limits.h"
#include "gnt-opcode-private.h"

static gboolean
validate_port(JsonNode *value, GError **error)
{
	gint64 port = json_node_get_int(value);

	if (port < 1 || port > 65535) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'rpc_port' must be from 1 to 65535, not %" G_GINT64_FORMAT, port);
		return FALSE;
	}
	return TRUE;
}

static const GntParamDef node_add_params[] = {
	{"node_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"hv_state", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"disk_state", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"primary_ip", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"secondary_ip", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"readd", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"group", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"master_capable", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"vm_capable", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"ndparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"node_setup", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	/* Gantry's: the port of the node's gantry-noded (null: the master's) */
	{"rpc_port", GNT_PARAM_TYPE_INT, "null", TRUE, GNT_PARAM_PUBLIC, validate_port},
	{NULL},
};

static const GntParamDef node_remove_params[] = {
	{"node_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"node_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef node_set_params_params[] = {
	{"node_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"node_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"force", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"hv_state", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"disk_state", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"master_candidate", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"offline", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"drained", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"auto_promote", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"master_capable", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"vm_capable", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"secondary_ip", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"ndparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"powered", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef tags_set_params[] = {
	{"kind", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC, NULL,
	 "cluster|network|node|nodegroup|instance"},
	{"tags", GNT_PARAM_TYPE_STRING_LIST, NULL, FALSE, GNT_PARAM_PUBLIC,
	 gnt_limits_validate_tags},
	{"name", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef tags_del_params[] = {
	{"kind", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC, NULL,
	 "cluster|network|node|nodegroup|instance"},
	{"tags", GNT_PARAM_TYPE_STRING_LIST, NULL, FALSE, GNT_PARAM_PUBLIC,
	 gnt_limits_validate_tags},
	{"name", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef os_diagnose_params[] = {
	{"output_fields", GNT_PARAM_TYPE_STRING_LIST, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"names", GNT_PARAM_TYPE_STRING_LIST, "[]", FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef cluster_set_params_params[] = {
	{"force", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"hv_state", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"disk_state", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"vg_name", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"enabled_hypervisors", GNT_PARAM_TYPE_STRING_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"hvparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"beparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"os_hvp", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"osparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"osparams_private_cluster", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PRIVATE},
	{"diskparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"candidate_pool_size", GNT_PARAM_TYPE_INT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"max_running_jobs", GNT_PARAM_TYPE_INT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"max_tracked_jobs", GNT_PARAM_TYPE_INT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"uid_pool", GNT_PARAM_TYPE_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"add_uids", GNT_PARAM_TYPE_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"remove_uids", GNT_PARAM_TYPE_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"maintain_node_health", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"prealloc_wipe_disks", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"nicparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"ndparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"ipolicy", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"drbd_helper", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"default_iallocator", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"default_iallocator_params", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"mac_prefix", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"master_netdev", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"master_netmask", GNT_PARAM_TYPE_INT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"reserved_lvs", GNT_PARAM_TYPE_STRING_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"hidden_os", GNT_PARAM_TYPE_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"blacklisted_os", GNT_PARAM_TYPE_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"use_external_mip_script", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"enabled_disk_templates", GNT_PARAM_TYPE_STRING_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"modify_etc_hosts", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"file_storage_dir", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"shared_file_storage_dir", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"gluster_storage_dir", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"install_image", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"instance_communication_network", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"zeroing_image", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"compression_tools", GNT_PARAM_TYPE_STRING_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"enabled_user_shutdown", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"enabled_data_collectors", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"data_collector_interval", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	/* Gantry's: the OS search path (Ganeti's four directories stay at its end) */
	{"os_search_path", GNT_PARAM_TYPE_STRING_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	/* Gantry's installs (doc/install.md): safe install by default, the
	 * appliance's time limit, the default ssh keys, and the trusted OSes
	 * ([["add"|"remove", name]], like hidden_os) */
	{"enable_safe_install", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"install_timeout", GNT_PARAM_TYPE_INT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"ssh_keys", GNT_PARAM_TYPE_STRING_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"trusted_os", GNT_PARAM_TYPE_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

/* Adding and removing nodes changes what every job may rely on: they hold
 * the cluster lock exclusively, as Ganeti's LUs do (REQ_BGL). */
static const GntOpDef op_node_add = {
	"OP_NODE_ADD", "node_name", node_add_params, GNT_LOCK_EXCLUSIVE, &gnt_lu_node_add,
};
static const GntOpDef op_node_remove = {
	"OP_NODE_REMOVE", "node_name", node_remove_params, GNT_LOCK_EXCLUSIVE, &gnt_lu_node_remove,
};
/* the node's own lock keeps it apart from the instance units */
static const GntOpDef op_node_set_params = {
	"OP_NODE_SET_PARAMS",	 "node_name", node_set_params_params, GNT_LOCK_SHARED,
	&gnt_lu_node_set_params,
};
static const GntOpDef op_tags_set = {
	"OP_TAGS_SET", NULL, tags_set_params, GNT_LOCK_SHARED, &gnt_lu_tags_set,
};
static const GntOpDef op_tags_del = {
	"OP_TAGS_DEL", NULL, tags_del_params, GNT_LOCK_SHARED, &gnt_lu_tags_del,
};
/* asks the nodes, changes nothing: runs again harmlessly */
static const GntOpDef op_os_diagnose = {
	"OP_OS_DIAGNOSE", NULL, os_diagnose_params, GNT_LOCK_SHARED, &gnt_lu_os_diagnose, TRUE,
};
static const GntOpDef op_cluster_set_params = {
	"OP_CLUSTER_SET_PARAMS",    NULL, cluster_set_params_params, GNT_LOCK_EXCLUSIVE,
	&gnt_lu_cluster_set_params,
};

const GntOpDef *const gnt_op_defs_node[] = {
	&op_cluster_set_params, &op_node_add, &op_node_remove, &op_node_set_params,
	&op_os_diagnose,	&op_tags_del, &op_tags_set,    NULL,
};
