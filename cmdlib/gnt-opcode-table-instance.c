/*
 * Opcodes of instances. Parameters, defaults and allowed values are those
 * of Ganeti 3.0, so its clients' opcodes are accepted as they are.
 */
#include "gnt-limits.h"
#include "gnt-cmdlib.h"
#include "gnt-kickstart-source.h"

/* Ganeti's disk templates and file drivers, as create and modify take them */
#define DISK_TEMPLATES "rbd|file|drbd|blockdev|gluster|sharedfile|ext|plain|diskless"
#define FILE_DRIVERS   "loop|blktap|blktap2"

/* OS parameters kept out of sight: private ones stored but never shown,
 * secret ones in memory only (doc/secrets.md); written once for create,
 * reinstall and modify */
#define OSPARAMS_PRIVATE_PARAM                                                                     \
	{                                                                                          \
		.name = "osparams_private", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL,       \
		.visibility = GNT_PARAM_PRIVATE                                                    \
	}
#define OSPARAMS_SECRET_PARAM                                                                      \
	{                                                                                          \
		.name = "osparams_secret", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL,        \
		.visibility = GNT_PARAM_SECRET                                                     \
	}

/* Gantry's (issue 14): the install plan printed, nothing changed */
#define PRINT_PLAN_PARAM                                                                           \
	{                                                                                          \
		.name = "print_plan", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false",        \
		.help = "Print the install plan (the core steps, the install templates the "       \
			"instance's tags select, the cluster's install policy) and change nothing" \
	}

/* Kickstart installs (doc/kickstart.md), on create and reinstall alike */
#define KICKSTART_PARAMS                                                                           \
	{.name = "ks_template",                                                                    \
	 .type = GNT_PARAM_TYPE_STRING,                                                            \
	 GNT_PARAM_OPTIONAL,                                                                       \
	 .validate = gnt_kickstart_validate_source_param,                                          \
	 .help = "The kickstart template: file:///PATH under the cluster's kickstart directory, "  \
		 "an http(s) URL, or default (\"\" removes the instance's own)"},                  \
	{                                                                                          \
		.name = "print_kickstart", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false",   \
		.help = "Show the rendered kickstart file (its token redacted) in the job log"     \
	}

static const GntParamDef instance_create_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "force_variant", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "wait_for_sync", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "name_check", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "ignore_ipolicy", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "opportunistic_locking", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "beparams", .type = GNT_PARAM_TYPE_DICT, .default_json = "{}"},
	{.name = "disks", .type = GNT_PARAM_TYPE_LIST, .validate = gnt_limits_validate_disks},
	{.name = "disk_template",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .choices = DISK_TEMPLATES},
	{.name = "group_name", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "file_driver",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .choices = FILE_DRIVERS},
	{.name = "file_storage_dir", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "hvparams", .type = GNT_PARAM_TYPE_DICT, .default_json = "{}"},
	{.name = "hypervisor",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .choices = "kvm|xen-hvm|fake|lxc|xen-pvm|chroot"},
	{.name = "iallocator", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "identify_defaults", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "ip_check", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "conflicts_check", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "mode", .type = GNT_PARAM_TYPE_STRING, .choices = "create|import|remote-import"},
	{.name = "nics", .type = GNT_PARAM_TYPE_LIST, .validate = gnt_limits_validate_nics},
	{.name = "no_install", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "osparams", .type = GNT_PARAM_TYPE_DICT, .default_json = "{}"},
	OSPARAMS_PRIVATE_PARAM,
	OSPARAMS_SECRET_PARAM,
	{.name = "os_type", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "pnode", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "pnode_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "snode", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "snode_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "source_handshake", .type = GNT_PARAM_TYPE_LIST, GNT_PARAM_OPTIONAL},
	{.name = "source_instance_name", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	GNT_PARAM_SHUTDOWN_TIMEOUT("source_shutdown_timeout", GNT_SHUTDOWN_TIMEOUT_HELP),
	{.name = "source_x509_ca", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "src_node", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "src_node_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "src_path", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "compress", .type = GNT_PARAM_TYPE_STRING, .default_json = "\"none\""},
	{.name = "start", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "forthcoming", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "commit", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "tags",
	 .type = GNT_PARAM_TYPE_STRING_LIST,
	 .default_json = "[]",
	 .validate = gnt_limits_validate_tags},
	{.name = "instance_communication", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "helper_startup_timeout", .type = GNT_PARAM_TYPE_INT, GNT_PARAM_OPTIONAL},
	{.name = "helper_shutdown_timeout", .type = GNT_PARAM_TYPE_INT, GNT_PARAM_OPTIONAL},
	/* Gantry's install parameters (doc/install.md): a disk image for the
	 * write_image step, and self_install's first-boot hvparams */
	{.name = "os_image", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "os_image_sha256", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "install_mode",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .choices = "run|self_install|kickstart"},
	{.name = "install_hvparams", .type = GNT_PARAM_TYPE_DICT, .default_json = "{}"},
	/* Gantry's (issue 6): the appliance or the host (null: the cluster's
	 * enable_safe_install), user data and ssh keys served by metad */
	{.name = "enable_safe_install", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "user_data", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "ssh_keys", .type = GNT_PARAM_TYPE_STRING_LIST, GNT_PARAM_OPTIONAL},
	PRINT_PLAN_PARAM,
	KICKSTART_PARAMS,
	{NULL},
};

/* Ganeti 3.0's OpInstanceReinstall: null OS parameters keep the stored ones */
static const GntParamDef instance_reinstall_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "force_variant", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "os_type", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "osparams", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},
	OSPARAMS_PRIVATE_PARAM,
	OSPARAMS_SECRET_PARAM,
	/* Gantry's: replaces the stored disk image ("" removes it) */
	{.name = "os_image", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "os_image_sha256", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	/* Gantry's: null takes the cluster's enable_safe_install */
	{.name = "enable_safe_install", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	PRINT_PLAN_PARAM,
	KICKSTART_PARAMS,
	{NULL},
};

static const GntParamDef instance_remove_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	GNT_PARAM_SHUTDOWN_TIMEOUT("shutdown_timeout", GNT_SHUTDOWN_TIMEOUT_HELP),
	{.name = "ignore_failures", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{NULL},
};

static const GntParamDef instance_startup_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "force", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "ignore_offline_nodes", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "hvparams", .type = GNT_PARAM_TYPE_DICT, .default_json = "{}"},
	{.name = "beparams", .type = GNT_PARAM_TYPE_DICT, .default_json = "{}"},
	{.name = "no_remember", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "startup_paused", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	GNT_PARAM_SHUTDOWN_TIMEOUT("shutdown_timeout", GNT_SHUTDOWN_TIMEOUT_HELP),
	{NULL},
};

static const GntParamDef instance_shutdown_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "force", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "ignore_offline_nodes", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	GNT_PARAM_SHUTDOWN_TIMEOUT("timeout", "Maximum time (in seconds) to wait for the guest to "
					      "shut down before it is destroyed"),
	{.name = "no_remember", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "admin_state_source",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .choices = "admin|user"},
	{NULL},
};

static const GntParamDef instance_reboot_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	GNT_PARAM_SHUTDOWN_TIMEOUT("shutdown_timeout", GNT_SHUTDOWN_TIMEOUT_HELP),
	{.name = "ignore_secondaries", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	/* Ganeti's clients send a hard reboot unless told otherwise */
	{.name = "reboot_type",
	 .type = GNT_PARAM_TYPE_STRING,
	 .choices = "soft|hard|full",
	 .help = "Type of reboot",
	 .client_default = "hard"},
	{NULL},
};

static const GntParamDef instance_rename_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "new_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "name_check", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "ip_check", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{NULL},
};

static const GntParamDef instance_set_params_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "force", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "force_variant", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "ignore_ipolicy", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "nics",
	 .type = GNT_PARAM_TYPE_LIST,
	 .default_json = "[]",
	 .validate = gnt_limits_validate_nics},
	{.name = "disks",
	 .type = GNT_PARAM_TYPE_LIST,
	 .default_json = "[]",
	 .validate = gnt_limits_validate_disks},
	{.name = "beparams", .type = GNT_PARAM_TYPE_DICT, .default_json = "{}"},
	{.name = "runtime_mem", .type = GNT_PARAM_TYPE_NUMBER, GNT_PARAM_OPTIONAL},
	{.name = "hvparams", .type = GNT_PARAM_TYPE_DICT, .default_json = "{}"},
	{.name = "disk_template",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .choices = DISK_TEMPLATES},
	{.name = "ext_params", .type = GNT_PARAM_TYPE_DICT, .default_json = "{}"},
	{.name = "file_driver",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .choices = FILE_DRIVERS},
	{.name = "file_storage_dir", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "pnode", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "pnode_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "remote_node", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "remote_node_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "iallocator", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "os_name", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "osparams", .type = GNT_PARAM_TYPE_DICT, .default_json = "{}"},
	OSPARAMS_PRIVATE_PARAM,
	{.name = "wait_for_sync", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "offline", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	{.name = "conflicts_check", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "hotplug", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "hotplug_if_possible", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "instance_communication", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	/* Gantry's: ends a self_install's first boot by hand */
	{.name = "install_done", .type = GNT_PARAM_TYPE_BOOL, GNT_PARAM_OPTIONAL},
	/* Gantry's: metad's user data and ssh keys ("" / [] remove them) */
	{.name = "user_data", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "ssh_keys", .type = GNT_PARAM_TYPE_STRING_LIST, GNT_PARAM_OPTIONAL},
	{NULL},
};

static const GntParamDef instance_console_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{NULL},
};

static const GntParamDef instance_activate_disks_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	/* file images and logical volumes: no recorded size to ignore, no
	 * mirror to wait for */
	{.name = "ignore_size", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "wait_for_sync", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{NULL},
};

static const GntParamDef instance_deactivate_disks_params[] = {
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "force", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
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
	{.name = "instance_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "instance_uuid", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "wait_for_sync", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{.name = "disk", .type = GNT_PARAM_TYPE_INT, .validate = validate_disk_index},
	/* MiB: added to the disk, or its new size with absolute */
	{.name = "amount", .type = GNT_PARAM_TYPE_INT, .validate = validate_grow_amount},
	{.name = "absolute", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "ignore_ipolicy", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{NULL},
};

static const GntParamDef instance_query_data_params[] = {
	{.name = "instances", .type = GNT_PARAM_TYPE_STRING_LIST, .default_json = "[]"},
	{.name = "static", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "use_locking", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{NULL},
};

/* Units that change an instance hold the cluster lock shared; the
 * instance and node locks they declare keep them apart. */
static const GntOpDef op_instance_create = {
	.id = "OP_INSTANCE_CREATE",
	.summary_param = "instance_name",
	.params = instance_create_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_instance_reinstall = {
	.id = "OP_INSTANCE_REINSTALL",
	.summary_param = "instance_name",
	.params = instance_reinstall_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_instance_remove = {
	.id = "OP_INSTANCE_REMOVE",
	.summary_param = "instance_name",
	.params = instance_remove_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_instance_startup = {
	.id = "OP_INSTANCE_STARTUP",
	.summary_param = "instance_name",
	.params = instance_startup_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_instance_shutdown = {
	.id = "OP_INSTANCE_SHUTDOWN",
	.summary_param = "instance_name",
	.params = instance_shutdown_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_instance_reboot = {
	.id = "OP_INSTANCE_REBOOT",
	.summary_param = "instance_name",
	.params = instance_reboot_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_instance_rename = {
	.id = "OP_INSTANCE_RENAME",
	.params = instance_rename_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_instance_set_params = {
	.id = "OP_INSTANCE_SET_PARAMS",
	.summary_param = "instance_name",
	.params = instance_set_params_params,
	.bgl = GNT_LOCK_SHARED,
};
/* reads only: runs again harmlessly */
static const GntOpDef op_instance_console = {
	.id = "OP_INSTANCE_CONSOLE",
	.summary_param = "instance_name",
	.params = instance_console_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};

/* reads only: runs again harmlessly */
static const GntOpDef op_instance_query_data = {
	.id = "OP_INSTANCE_QUERY_DATA",
	.params = instance_query_data_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};

static const GntOpDef op_instance_activate_disks = {
	.id = "OP_INSTANCE_ACTIVATE_DISKS",
	.summary_param = "instance_name",
	.params = instance_activate_disks_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_instance_deactivate_disks = {
	.id = "OP_INSTANCE_DEACTIVATE_DISKS",
	.summary_param = "instance_name",
	.params = instance_deactivate_disks_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_instance_grow_disk = {
	.id = "OP_INSTANCE_GROW_DISK",
	.summary_param = "instance_name",
	.params = instance_grow_disk_params,
	.bgl = GNT_LOCK_SHARED,
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
