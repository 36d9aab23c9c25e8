/*
 * Opcodes of nodes, tags, OS definitions and cluster settings. Parameters,
 * defaults and allowed values are those of Ganeti 3.0 (opcodes.py), so its
 * clients' opcodes are accepted as they are; Gantry's own additions are
 * optional and marked.
 */
#include "gnt-cluster-settings.h"
#include "gnt-error.h"
#include "gnt-limits.h"
#include "gnt-cmdlib.h"

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
	{.name = "node_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "hv_state", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},
	{.name = "disk_state", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},
	{.name = "primary_ip", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "secondary_ip", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "readd", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "group", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "master_capable", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "vm_capable", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "ndparams", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},
	{.name = "node_setup", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	/* Gantry's: the port of the node's gantry-noded (null: the master's) */
	{.name = "rpc_port",
	 .type = GNT_PARAM_TYPE_INT,
	 GNT_PARAM_OPTIONAL,
	 .validate = validate_port},
	{NULL},
};

static const GntParamDef node_remove_params[] = {
	{.name = "node_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "node_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{NULL},
};

static const GntParamDef node_set_params_params[] = {
	{.name = "node_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "node_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "force", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "hv_state", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},
	{.name = "disk_state", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},
	{.name = "master_candidate", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "offline", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "drained", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "auto_promote", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "master_capable", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "vm_capable", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "secondary_ip", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "ndparams", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},
	{.name = "powered", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{NULL},
};

/* OP_TAGS_SET and OP_TAGS_DEL take the same parameters */
static const GntParamDef tags_params[] = {
	{.name = "kind",
	 .type = GNT_PARAM_TYPE_STRING,
	 .choices = "cluster|network|node|nodegroup|instance"},
	{.name = "tags", .type = GNT_PARAM_TYPE_STRING_LIST, .validate = gnt_limits_validate_tags},
	{.name = "name", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{NULL},
};

static const GntParamDef os_diagnose_params[] = {
	{.name = "output_fields", .type = GNT_PARAM_TYPE_STRING_LIST},
	{.name = "names", .type = GNT_PARAM_TYPE_STRING_LIST, .default_json = "[]"},
	{NULL},
};

/* OP_CLUSTER_SET_PARAMS's own rows: Ganeti's parameters that change no
 * setting of Gantry's (the unit refuses them unless empty, and ignores
 * modify_etc_hosts: Gantry leaves /etc/hosts alone). */
static const GntParamDef cluster_set_params_params[] = {
	{.name = "force", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "hv_state", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},
	{.name = "disk_state", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},
	{.name = "osparams_private_cluster",
	 .type = GNT_PARAM_TYPE_DICT,
	 GNT_PARAM_OPTIONAL,
	 .visibility = GNT_PARAM_PRIVATE},
	{.name = "add_uids", .type = GNT_PARAM_TYPE_LIST, GNT_PARAM_OPTIONAL},
	{.name = "remove_uids", .type = GNT_PARAM_TYPE_LIST, GNT_PARAM_OPTIONAL},
	{.name = "modify_etc_hosts", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{NULL},
};

/* The parameter's type for a setting: what its change kind takes. */
static GntParamType
setting_param_type(const GntClusterSetting *setting)
{
	if (setting->change == GNT_SETTING_CHANGE_LIST_MODS)
		return GNT_PARAM_TYPE_LIST;
	switch (setting->type) {
	case GNT_SETTING_STRING:
	case GNT_SETTING_STRING_OR_NULL:
		return GNT_PARAM_TYPE_STRING;
	case GNT_SETTING_INT:
		return GNT_PARAM_TYPE_INT;
	case GNT_SETTING_BOOL:
		return GNT_PARAM_TYPE_BOOL;
	case GNT_SETTING_STRING_LIST:
		return GNT_PARAM_TYPE_STRING_LIST;
	case GNT_SETTING_LIST:
		return GNT_PARAM_TYPE_LIST;
	case GNT_SETTING_OBJECT:
	default:
		return GNT_PARAM_TYPE_DICT;
	}
}

/* One optional row per setting a parameter changes, in the settings
 * table's order, built once: the cluster settings table
 * (config/gnt-cluster-settings.c) is their one home. */
static const GntParamDef *
cluster_settings_params(void)
{
	static const GntParamDef *rows;

	if (g_once_init_enter(&rows)) {
		GArray *built = g_array_new(TRUE, TRUE, sizeof(GntParamDef));

		for (const GntClusterSetting *s = gnt_cluster_settings; s->key != NULL; s++) {
			GntParamDef row = {
				.name = gnt_cluster_setting_get_param(s),
				.type = setting_param_type(s),
				GNT_PARAM_OPTIONAL,
			};

			if (row.name != NULL)
				g_array_append_val(built, row);
		}
		g_once_init_leave(&rows, (const GntParamDef *)(gpointer)g_array_free(built, FALSE));
	}
	return rows;
}

/* Adding and removing nodes changes what every job may rely on: they hold
 * the cluster lock exclusively, as Ganeti's LUs do (REQ_BGL). */
static const GntOpDef op_node_add = {
	.id = "OP_NODE_ADD",
	.summary_param = "node_name",
	.params = node_add_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};
static const GntOpDef op_node_remove = {
	.id = "OP_NODE_REMOVE",
	.summary_param = "node_name",
	.params = node_remove_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};
/* the node's own lock keeps it apart from the instance units */
static const GntOpDef op_node_set_params = {
	.id = "OP_NODE_SET_PARAMS",
	.summary_param = "node_name",
	.params = node_set_params_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_tags_set = {
	.id = "OP_TAGS_SET",
	.params = tags_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_tags_del = {
	.id = "OP_TAGS_DEL",
	.params = tags_params,
	.bgl = GNT_LOCK_SHARED,
};
/* asks the nodes, changes nothing: runs again harmlessly */
static const GntOpDef op_os_diagnose = {
	.id = "OP_OS_DIAGNOSE",
	.params = os_diagnose_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};
static const GntOpDef op_cluster_set_params = {
	.id = "OP_CLUSTER_SET_PARAMS",
	.params = cluster_set_params_params,
	.more_params = cluster_settings_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};

const GntOpDef *const gnt_op_defs_node[] = {
	&op_cluster_set_params, &op_node_add, &op_node_remove, &op_node_set_params,
	&op_os_diagnose,	&op_tags_del, &op_tags_set,    NULL,
};
