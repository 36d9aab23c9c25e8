/*
 * Opcodes of instances. Parameters, defaults and allowed values are those
 * of Ganeti 3.0, so its clients' opcodes are accepted as they are.
 */
#include "gnt-limits.h"
#include "gnt-opcode-private.h"

static const GntParamDef instance_create_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"force_variant", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"wait_for_sync", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{"name_check", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{"ignore_ipolicy", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"opportunistic_locking", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"beparams", GNT_PARAM_TYPE_DICT, "{}", FALSE, GNT_PARAM_PUBLIC},
	{"disks", GNT_PARAM_TYPE_LIST, NULL, FALSE, GNT_PARAM_PUBLIC, gnt_limits_validate_disks},
	{"disk_template", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC, NULL,
	 "rbd|file|drbd|blockdev|gluster|sharedfile|ext|plain|diskless"},
	{"group_name", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"file_driver", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC, NULL,
	 "loop|blktap|blktap2"},
	{"file_storage_dir", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"hvparams", GNT_PARAM_TYPE_DICT, "{}", FALSE, GNT_PARAM_PUBLIC},
	{"hypervisor", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC, NULL,
	 "kvm|xen-hvm|fake|lxc|xen-pvm|chroot"},
	{"iallocator", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"identify_defaults", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"ip_check", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{"conflicts_check", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{"mode", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC, NULL,
	 "create|import|remote-import"},
	{"nics", GNT_PARAM_TYPE_LIST, NULL, FALSE, GNT_PARAM_PUBLIC, gnt_limits_validate_nics},
	{"no_install", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"osparams", GNT_PARAM_TYPE_DICT, "{}", FALSE, GNT_PARAM_PUBLIC},
	{"osparams_private", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PRIVATE},
	{"osparams_secret", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_SECRET},
	{"os_type", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"pnode", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"pnode_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"snode", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"snode_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"source_handshake", GNT_PARAM_TYPE_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{"source_instance_name", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"source_shutdown_timeout", GNT_PARAM_TYPE_NUMBER, "120", FALSE, GNT_PARAM_PUBLIC},
	{"source_x509_ca", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"src_node", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"src_node_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"src_path", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"compress", GNT_PARAM_TYPE_STRING, "\"none\"", FALSE, GNT_PARAM_PUBLIC},
	{"start", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{"forthcoming", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"commit", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"tags", GNT_PARAM_TYPE_STRING_LIST, "[]", FALSE, GNT_PARAM_PUBLIC,
	 gnt_limits_validate_tags},
	{"instance_communication", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"helper_startup_timeout", GNT_PARAM_TYPE_INT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"helper_shutdown_timeout", GNT_PARAM_TYPE_INT, "null", TRUE, GNT_PARAM_PUBLIC},
	/* Gantry's install parameters (doc/install.md): a disk image for the
	 * write_image step, and self_install's first-boot hvparams */
	{"os_image", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"os_image_sha256", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"install_mode", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC, NULL,
	 "run|self_install"},
	{"install_hvparams", GNT_PARAM_TYPE_DICT, "{}", FALSE, GNT_PARAM_PUBLIC},
	/* Gantry's (issue 6): the appliance or the host (null: the cluster's
	 * enable_safe_install), user data and ssh keys served by metad */
	{"enable_safe_install", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"user_data", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"ssh_keys", GNT_PARAM_TYPE_STRING_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

/* Ganeti 3.0's OpInstanceReinstall: null OS parameters keep the stored ones */
static const GntParamDef instance_reinstall_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"force_variant", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"os_type", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"osparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},
	{"osparams_private", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PRIVATE},
	{"osparams_secret", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_SECRET},
	/* Gantry's: replaces the stored disk image ("" removes it) */
	{"os_image", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"os_image_sha256", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	/* Gantry's: null takes the cluster's enable_safe_install */
	{"enable_safe_install", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef instance_remove_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"shutdown_timeout", GNT_PARAM_TYPE_NUMBER, "120", FALSE, GNT_PARAM_PUBLIC},
	{"ignore_failures", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef instance_startup_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"force", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"ignore_offline_nodes", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"hvparams", GNT_PARAM_TYPE_DICT, "{}", FALSE, GNT_PARAM_PUBLIC},
	{"beparams", GNT_PARAM_TYPE_DICT, "{}", FALSE, GNT_PARAM_PUBLIC},
	{"no_remember", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"startup_paused", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"shutdown_timeout", GNT_PARAM_TYPE_NUMBER, "120", FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef instance_shutdown_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"force", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"ignore_offline_nodes", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"timeout", GNT_PARAM_TYPE_NUMBER, "120", FALSE, GNT_PARAM_PUBLIC},
	{"no_remember", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"admin_state_source", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC, NULL,
	 "admin|user"},
	{NULL},
};

static const GntParamDef instance_reboot_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"shutdown_timeout", GNT_PARAM_TYPE_NUMBER, "120", FALSE, GNT_PARAM_PUBLIC},
	{"ignore_secondaries", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"reboot_type", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC, NULL,
	 "full|soft|hard"},
	{NULL},
};

static const GntParamDef instance_rename_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"new_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"name_check", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{"ip_check", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef instance_set_params_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"force", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"force_variant", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"ignore_ipolicy", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"nics", GNT_PARAM_TYPE_LIST, "[]", FALSE, GNT_PARAM_PUBLIC, gnt_limits_validate_nics},
	{"disks", GNT_PARAM_TYPE_LIST, "[]", FALSE, GNT_PARAM_PUBLIC, gnt_limits_validate_disks},
	{"beparams", GNT_PARAM_TYPE_DICT, "{}", FALSE, GNT_PARAM_PUBLIC},
	{"runtime_mem", GNT_PARAM_TYPE_NUMBER, "null", TRUE, GNT_PARAM_PUBLIC},
	{"hvparams", GNT_PARAM_TYPE_DICT, "{}", FALSE, GNT_PARAM_PUBLIC},
	{"disk_template", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC, NULL,
	 "rbd|file|drbd|blockdev|gluster|sharedfile|ext|plain|diskless"},
	{"ext_params", GNT_PARAM_TYPE_DICT, "{}", FALSE, GNT_PARAM_PUBLIC},
	{"file_driver", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC, NULL,
	 "loop|blktap|blktap2"},
	{"file_storage_dir", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"pnode", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"pnode_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"remote_node", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"remote_node_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"iallocator", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"os_name", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"osparams", GNT_PARAM_TYPE_DICT, "{}", FALSE, GNT_PARAM_PUBLIC},
	{"osparams_private", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PRIVATE},
	{"wait_for_sync", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{"offline", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	{"conflicts_check", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{"hotplug", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"hotplug_if_possible", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"instance_communication", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	/* Gantry's: ends a self_install's first boot by hand */
	{"install_done", GNT_PARAM_TYPE_BOOL, "null", TRUE, GNT_PARAM_PUBLIC},
	/* Gantry's: metad's user data and ssh keys ("" / [] remove them) */
	{"user_data", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"ssh_keys", GNT_PARAM_TYPE_STRING_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef instance_console_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef instance_activate_disks_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	/* file images and logical volumes: no recorded size to ignore, no
	 * mirror to wait for */
	{"ignore_size", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"wait_for_sync", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef instance_deactivate_disks_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"force", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

/* Ganeti's pDiskChgAmount is non-negative; growing by nothing is refused
 * here, as gnt-instance grow-disk is meant to grow */
static gboolean
validate_grow_amount(JsonNode *value, GError **error)
{
	if (json_node_get_int(value) <= 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "must be a positive number of MiB, not %" G_GINT64_FORMAT,
			    json_node_get_int(value));
		return FALSE;
	}
	return TRUE;
}

static gboolean
validate_disk_index(JsonNode *value, GError **error)
{
	if (json_node_get_int(value) < 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "must be a disk index (0 or more), not %" G_GINT64_FORMAT,
			    json_node_get_int(value));
		return FALSE;
	}
	return TRUE;
}

static const GntParamDef instance_grow_disk_params[] = {
	{"instance_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"instance_uuid", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC},
	{"wait_for_sync", GNT_PARAM_TYPE_BOOL, "true", FALSE, GNT_PARAM_PUBLIC},
	{"disk", GNT_PARAM_TYPE_INT, NULL, FALSE, GNT_PARAM_PUBLIC, validate_disk_index},
	/* MiB: added to the disk, or its new size with absolute */
	{"amount", GNT_PARAM_TYPE_INT, NULL, FALSE, GNT_PARAM_PUBLIC, validate_grow_amount},
	{"absolute", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"ignore_ipolicy", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef instance_query_data_params[] = {
	{"instances", GNT_PARAM_TYPE_STRING_LIST, "[]", FALSE, GNT_PARAM_PUBLIC},
	{"static", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"use_locking", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

/* Units that change an instance hold the cluster lock shared; the
 * instance and node locks they declare keep them apart. */
static const GntOpDef op_instance_create = {
	"OP_INSTANCE_CREATE", "instance_name",	       instance_create_params,
	GNT_LOCK_SHARED,      &gnt_lu_instance_create,
};
static const GntOpDef op_instance_reinstall = {
	"OP_INSTANCE_REINSTALL",    "instance_name", instance_reinstall_params, GNT_LOCK_SHARED,
	&gnt_lu_instance_reinstall,
};
static const GntOpDef op_instance_remove = {
	"OP_INSTANCE_REMOVE", "instance_name",	       instance_remove_params,
	GNT_LOCK_SHARED,      &gnt_lu_instance_remove,
};
static const GntOpDef op_instance_startup = {
	"OP_INSTANCE_STARTUP", "instance_name",		 instance_startup_params,
	GNT_LOCK_SHARED,       &gnt_lu_instance_startup,
};
static const GntOpDef op_instance_shutdown = {
	"OP_INSTANCE_SHUTDOWN", "instance_name",	   instance_shutdown_params,
	GNT_LOCK_SHARED,	&gnt_lu_instance_shutdown,
};
static const GntOpDef op_instance_reboot = {
	"OP_INSTANCE_REBOOT", "instance_name",	       instance_reboot_params,
	GNT_LOCK_SHARED,      &gnt_lu_instance_reboot,
};
static const GntOpDef op_instance_rename = {
	"OP_INSTANCE_RENAME",	 NULL, instance_rename_params, GNT_LOCK_SHARED,
	&gnt_lu_instance_rename,
};
static const GntOpDef op_instance_set_params = {
	"OP_INSTANCE_SET_PARAMS",    "instance_name", instance_set_params_params, GNT_LOCK_SHARED,
	&gnt_lu_instance_set_params,
};
/* reads only: runs again harmlessly */
static const GntOpDef op_instance_console = {
	"OP_INSTANCE_CONSOLE", "instance_name",		 instance_console_params,
	GNT_LOCK_SHARED,       &gnt_lu_instance_console, TRUE,
};

/* reads only: runs again harmlessly */
static const GntOpDef op_instance_query_data = {
	"OP_INSTANCE_QUERY_DATA",    NULL, instance_query_data_params, GNT_LOCK_SHARED,
	&gnt_lu_instance_query_data, TRUE,
};

static const GntOpDef op_instance_activate_disks = {
	"OP_INSTANCE_ACTIVATE_DISKS",	 "instance_name",
	instance_activate_disks_params,	 GNT_LOCK_SHARED,
	&gnt_lu_instance_activate_disks,
};
static const GntOpDef op_instance_deactivate_disks = {
	"OP_INSTANCE_DEACTIVATE_DISKS",	   "instance_name",
	instance_deactivate_disks_params,  GNT_LOCK_SHARED,
	&gnt_lu_instance_deactivate_disks,
};
static const GntOpDef op_instance_grow_disk = {
	"OP_INSTANCE_GROW_DISK",    "instance_name", instance_grow_disk_params, GNT_LOCK_SHARED,
	&gnt_lu_instance_grow_disk,
};

const GntOpDef *const gnt_op_defs_instance[] = {
	&op_instance_activate_disks,   &op_instance_console,
	&op_instance_deactivate_disks, &op_instance_grow_disk,
	&op_instance_create,	       &op_instance_query_data,
	&op_instance_reboot,	       &op_instance_reinstall,
	&op_instance_remove,	       &op_instance_rename,
	&op_instance_set_params,       &op_instance_shutdown,
	&op_instance_startup,	       NULL,
};
