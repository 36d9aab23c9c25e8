/*
 * Opcodes of exports (gnt-backup). Parameters, defaults and allowed values
 * are those of Ganeti 3.0 (OpCodes.hs; OP_BACKUP_QUERY as Ganeti 2.x had
 * it), so its clients' opcodes are accepted as they are. What Gantry does
 * not support yet (remote mode, zeroing free space) is refused by the
 * logical units with a message saying so (doc/backup.md).
 */
#include "gnt-opcode-private.h"

static const GntParamDef backup_query_params[] = {
	{"use_locking", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"nodes", GNT_PARAM_TYPE_STRING_LIST, "[]", FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef backup_export_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"compress", GNT_PARAM_TYPE_STRING, "\"none\"", FALSE, GNT_PARAM_PUBLIC},
	{"shutdown_timeout", GNT_PARAM_TYPE_NUMBER, "120", FALSE, GNT_PARAM_PUBLIC},
	/* a node name (local mode) or per-disk destinations (remote mode) */
	{"target_node", GNT_PARAM_TYPE_ANY, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"target_node_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"shutdown", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{"remove_instance", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"ignore_remove_failures", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"mode", GNT_PARAM_TYPE_STRING, "\"local\"", FALSE, GNT_PARAM_PUBLIC, NULL, "local|remote"},
	{"x509_key_name", GNT_PARAM_TYPE_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"destination_x509_ca", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"zero_free_space", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"zeroing_timeout_fixed", GNT_PARAM_TYPE_INT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"zeroing_timeout_per_mib", GNT_PARAM_TYPE_NUMBER, "null", TRUE, GNT_PARAM_PUBLIC},
	{"long_sleep", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef backup_remove_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

/* reads only: runs again harmlessly */
static const GntOpDef op_backup_query = {
	"OP_BACKUP_QUERY", NULL, backup_query_params, GNT_LOCK_SHARED, &gnt_lu_backup_query, TRUE,
};
static const GntOpDef op_backup_export = {
	"OP_BACKUP_EXPORT", "instance_name",	   backup_export_params,
	GNT_LOCK_SHARED,    &gnt_lu_backup_export,
};
static const GntOpDef op_backup_remove = {
	"OP_BACKUP_REMOVE", "instance_name",	   backup_remove_params,
	GNT_LOCK_SHARED,    &gnt_lu_backup_remove,
};

const GntOpDef *const gnt_op_defs_backup[] = {
	&op_backup_export,
	&op_backup_query,
	&op_backup_remove,
	NULL,
};
