#pragma once
/*
 * cmdlib/: the opcode tables and the logical units that run them. masterd
 * registers gnt_cmdlib_op_table (gnt_opcode_register_table()) and gives
 * its queue gnt_cmdlib_units (gnt_queue_set_units()); the engine reaches
 * the units only through that list.
 */
#include <json-glib/json-glib.h>

#include "gnt-lu.h"
#include "gnt-opcode-private.h"

G_BEGIN_DECLS

/* Every opcode Gantry runs, for gnt_opcode_register_table(): the
 * parameters only (libgnt-opcodes, which clients may link). */
extern const GntOpTable gnt_cmdlib_op_table;
/* The unit of each of its opcodes, for gnt_queue_set_units()
 * (gnt-lu-units.c, in libgnt-cmdlib with the units). */
extern const GntLuUnit gnt_cmdlib_units[];

/* The table, one part per area, each NULL-terminated: the core opcodes
 * (gnt-opcode-table.c), instances (gnt-opcode-table-instance.c), nodes,
 * tags, OS and cluster settings (gnt-opcode-table-node.c), exports
 * (gnt-opcode-table-backup.c). */
extern const GntOpDef *const gnt_op_defs_core[];
extern const GntOpDef *const gnt_op_defs_instance[];
extern const GntOpDef *const gnt_op_defs_node[];
extern const GntOpDef *const gnt_op_defs_backup[];
extern const GntOpDef *const gnt_op_defs_verify[]; /* gnt-opcode-table-verify.c */
extern const GntOpDef *const gnt_op_defs_group[];  /* gnt-opcode-table-group.c */
extern const GntOpDef *const gnt_op_defs_image[];  /* gnt-opcode-table-image.c */
/* install templates: gnt-opcode-table-template.c */
extern const GntOpDef *const gnt_op_defs_template[];

/* The parts, NULL-terminated (gnt-opcode-table.c). */
extern const GntOpDef *const *const gnt_op_tables[];
/* The parameters every opcode takes (dry_run, priority, depends, ...). */
extern const GntParamDef gnt_op_common_params[];
/* Ganeti's OP_IDs, all 76 of them, NULL-terminated (gnt-opcode-ganeti.c). */
extern const gchar *const gnt_op_ids_ganeti[];

/* The logical units, one per opcode (gnt-lu-*.c). */
extern const GntLuClass gnt_lu_test_delay;
extern const GntLuClass gnt_lu_test_dummy;
extern const GntLuClass gnt_lu_cluster_destroy;
extern const GntLuClass gnt_lu_cluster_set_params;
extern const GntLuClass gnt_lu_node_add;
extern const GntLuClass gnt_lu_node_remove;
extern const GntLuClass gnt_lu_node_set_params;
extern const GntLuClass gnt_lu_tags_set;
extern const GntLuClass gnt_lu_tags_del;
extern const GntLuClass gnt_lu_os_diagnose;
extern const GntLuClass gnt_lu_instance_create;
extern const GntLuClass gnt_lu_instance_remove;
extern const GntLuClass gnt_lu_instance_startup;
extern const GntLuClass gnt_lu_instance_shutdown;
extern const GntLuClass gnt_lu_instance_reboot;
extern const GntLuClass gnt_lu_instance_console;
extern const GntLuClass gnt_lu_instance_activate_disks;
extern const GntLuClass gnt_lu_instance_deactivate_disks;
extern const GntLuClass gnt_lu_instance_grow_disk;
extern const GntLuClass gnt_lu_instance_rename;
extern const GntLuClass gnt_lu_instance_set_params;
extern const GntLuClass gnt_lu_instance_query_data;
extern const GntLuClass gnt_lu_backup_export;
extern const GntLuClass gnt_lu_backup_query;
extern const GntLuClass gnt_lu_backup_remove;
extern const GntLuClass gnt_lu_instance_reinstall;
/* gnt-lu-verify.c, gnt-lu-verify-disks.c */
extern const GntLuClass gnt_lu_cluster_verify;
extern const GntLuClass gnt_lu_cluster_verify_config;
extern const GntLuClass gnt_lu_cluster_verify_group;
extern const GntLuClass gnt_lu_cluster_verify_disks;
extern const GntLuClass gnt_lu_group_verify_disks;
extern const GntLuClass gnt_lu_group_add; /* gnt-lu-group.c */
extern const GntLuClass gnt_lu_group_set_params;
extern const GntLuClass gnt_lu_group_rename;
extern const GntLuClass gnt_lu_group_remove;
extern const GntLuClass gnt_lu_group_assign_nodes;
extern const GntLuClass gnt_lu_image_add; /* gnt-lu-image.c */
extern const GntLuClass gnt_lu_image_set_params;
extern const GntLuClass gnt_lu_image_remove;
/* install templates: gnt-lu-template.c */
extern const GntLuClass gnt_lu_install_template_add;
extern const GntLuClass gnt_lu_install_template_set_params;
extern const GntLuClass gnt_lu_install_template_remove;

/* Ganeti's GetUpdatedParams: @old (nullable) with @changes (nullable)
 * overlaid, a change to "default" or null removing the key. (transfer full) */
JsonObject *
gnt_lu_params_update(JsonObject *old, JsonObject *changes);

G_END_DECLS
