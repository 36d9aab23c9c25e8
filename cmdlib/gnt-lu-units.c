/*
 * Which logical unit runs each opcode of the table (gnt-opcode-table*.c).
 * The rows name no unit, so that clients read the table (parameters,
 * defaults, help) without linking the units; masterd gives this list to
 * its queue (gnt_queue_set_units()), and test-opcode checks that
 * every row has its unit here and every unit its row.
 */
#include "gnt-cmdlib.h"

/* clang-format off */
const GntLuUnit gnt_cmdlib_units[] = {
	/* tests and the cluster (gnt-opcode-table.c) */
	{"OP_TEST_DELAY", &gnt_lu_test_delay},
	{"OP_TEST_DUMMY", &gnt_lu_test_dummy},
	{"OP_CLUSTER_DESTROY", &gnt_lu_cluster_destroy},
	/* instances (gnt-opcode-table-instance.c) */
	{"OP_INSTANCE_CREATE", &gnt_lu_instance_create},
	{"OP_INSTANCE_REINSTALL", &gnt_lu_instance_reinstall},
	{"OP_INSTANCE_REMOVE", &gnt_lu_instance_remove},
	{"OP_INSTANCE_STARTUP", &gnt_lu_instance_startup},
	{"OP_INSTANCE_SHUTDOWN", &gnt_lu_instance_shutdown},
	{"OP_INSTANCE_REBOOT", &gnt_lu_instance_reboot},
	{"OP_INSTANCE_RENAME", &gnt_lu_instance_rename},
	{"OP_INSTANCE_SET_PARAMS", &gnt_lu_instance_set_params},
	{"OP_INSTANCE_CONSOLE", &gnt_lu_instance_console},
	{"OP_INSTANCE_QUERY_DATA", &gnt_lu_instance_query_data},
	{"OP_INSTANCE_ACTIVATE_DISKS", &gnt_lu_instance_activate_disks},
	{"OP_INSTANCE_DEACTIVATE_DISKS", &gnt_lu_instance_deactivate_disks},
	{"OP_INSTANCE_GROW_DISK", &gnt_lu_instance_grow_disk},
	/* nodes, tags, OS, cluster settings (gnt-opcode-table-node.c) */
	{"OP_NODE_ADD", &gnt_lu_node_add},
	{"OP_NODE_REMOVE", &gnt_lu_node_remove},
	{"OP_NODE_SET_PARAMS", &gnt_lu_node_set_params},
	{"OP_TAGS_SET", &gnt_lu_tags_set},
	{"OP_TAGS_DEL", &gnt_lu_tags_del},
	{"OP_OS_DIAGNOSE", &gnt_lu_os_diagnose},
	{"OP_CLUSTER_SET_PARAMS", &gnt_lu_cluster_set_params},
	/* exports (gnt-opcode-table-backup.c) */
	{"OP_BACKUP_QUERY", &gnt_lu_backup_query},
	{"OP_BACKUP_EXPORT", &gnt_lu_backup_export},
	{"OP_BACKUP_REMOVE", &gnt_lu_backup_remove},
	/* verify (gnt-opcode-table-verify.c) */
	{"OP_CLUSTER_VERIFY", &gnt_lu_cluster_verify},
	{"OP_CLUSTER_VERIFY_CONFIG", &gnt_lu_cluster_verify_config},
	{"OP_CLUSTER_VERIFY_GROUP", &gnt_lu_cluster_verify_group},
	{"OP_CLUSTER_VERIFY_DISKS", &gnt_lu_cluster_verify_disks},
	{"OP_GROUP_VERIFY_DISKS", &gnt_lu_group_verify_disks},
	/* node groups (gnt-opcode-table-group.c) */
	{"OP_GROUP_ADD", &gnt_lu_group_add},
	{"OP_GROUP_SET_PARAMS", &gnt_lu_group_set_params},
	{"OP_GROUP_RENAME", &gnt_lu_group_rename},
	{"OP_GROUP_REMOVE", &gnt_lu_group_remove},
	{"OP_GROUP_ASSIGN_NODES", &gnt_lu_group_assign_nodes},
	/* the image catalog (gnt-opcode-table-image.c) */
	{"OP_IMAGE_ADD", &gnt_lu_image_add},
	{"OP_IMAGE_SET_PARAMS", &gnt_lu_image_set_params},
	{"OP_IMAGE_REMOVE", &gnt_lu_image_remove},
	/* install templates (gnt-opcode-table-template.c) */
	{"OP_INSTALL_TEMPLATE_ADD", &gnt_lu_install_template_add},
	{"OP_INSTALL_TEMPLATE_SET_PARAMS", &gnt_lu_install_template_set_params},
	{"OP_INSTALL_TEMPLATE_REMOVE", &gnt_lu_install_template_remove},
	{NULL},
};
/* clang-format on */
