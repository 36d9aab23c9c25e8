/*
 * Opcodes of exports (gnt-backup). Parameters, defaults and allowed values
 * are those of Ganeti 3.0 (OpCodes.hs; OP_BACKUP_QUERY as Ganeti 2.x had
 * it), so its clients' opcodes are accepted as they are. What Gantry does
 * not support yet (remote mode, zeroing free space) is refused by the
 * logical units with a message saying so (doc/backup.md).
 */
#include "gnt-cmdlib.h"

static const GntParamDef backup_query_params[] = {
	{.name = "use_locking", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "nodes", .type = GNT_PARAM_TYPE_STRING_LIST, .default_json = "[]"},
	{NULL},
};

static const GntParamDef backup_export_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "compress", .type = GNT_PARAM_TYPE_STRING, .default_json = "\"none\""},
	GNT_PARAM_SHUTDOWN_TIMEOUT("shutdown_timeout", GNT_SHUTDOWN_TIMEOUT_HELP),
	/* a node name (local mode) or per-disk destinations (remote mode) */
	{.name = "target_node", .type = GNT_PARAM_TYPE_ANY},
	{.name = "target_node_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "shutdown", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "remove_instance", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "ignore_remove_failures", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "mode",
	 .type = GNT_PARAM_TYPE_STRING,
	 .default_json = "\"local\"",
	 .choices = "local|remote"},
	{.name = "x509_key_name", .type = GNT_PARAM_TYPE_LIST, GNT_PARAM_OPTIONAL},
	{.name = "destination_x509_ca", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "zero_free_space", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "zeroing_timeout_fixed", .type = GNT_PARAM_TYPE_INT, GNT_PARAM_OPTIONAL},
	{.name = "zeroing_timeout_per_mib", .type = GNT_PARAM_TYPE_NUMBER, GNT_PARAM_OPTIONAL},
	{.name = "long_sleep", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{NULL},
};

static const GntParamDef backup_remove_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{NULL},
};

/* reads only: runs again harmlessly */
static const GntOpDef op_backup_query = {
	.id = "OP_BACKUP_QUERY",
	.params = backup_query_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};
static const GntOpDef op_backup_export = {
	.id = "OP_BACKUP_EXPORT",
	.summary_param = "instance_name",
	.params = backup_export_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_backup_remove = {
	.id = "OP_BACKUP_REMOVE",
	.summary_param = "instance_name",
	.params = backup_remove_params,
	.bgl = GNT_LOCK_SHARED,
};

const GntOpDef *const gnt_op_defs_backup[] = {
	&op_backup_export,
	&op_backup_query,
	&op_backup_remove,
	NULL,
};
