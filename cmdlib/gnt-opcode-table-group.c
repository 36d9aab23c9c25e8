/*
 * Opcodes of node groups (doc/groups.md). Parameters, defaults and allowed
 * values are those of Ganeti 3.0 (OpCodes.hs: OpGroupAdd, OpGroupSetParams,
 * OpGroupRename, OpGroupRemove, OpGroupAssignNodes), so its clients'
 * opcodes are accepted as they are.
 */
#include "gnt-opcode-private.h"

/* Ganeti's allocation policies (constants.VALID_ALLOC_POLICIES) */
#define ALLOC_POLICIES "preferred|last_resort|unallocable"

/* what OP_GROUP_ADD and OP_GROUP_SET_PARAMS share */
#define GROUP_PARAMS                                                                               \
	{"group_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},                      \
		{"alloc_policy", GNT_PARAM_TYPE_STRING, "null", TRUE, GNT_PARAM_PUBLIC,            \
		 NULL,		 ALLOC_POLICIES},                                                  \
		{"ndparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},                 \
		{"diskparams", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},               \
		{"hv_state", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},                 \
		{"disk_state", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC},               \
	{                                                                                          \
		"ipolicy", GNT_PARAM_TYPE_DICT, "null", TRUE, GNT_PARAM_PUBLIC                     \
	}

static const GntParamDef group_add_params[] = {
	GROUP_PARAMS,
	{NULL},
};

static const GntParamDef group_set_params_params[] = {
	GROUP_PARAMS,
	{NULL},
};

static const GntParamDef group_rename_params[] = {
	{"group_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"new_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef group_remove_params[] = {
	{"group_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{NULL},
};

static const GntParamDef group_assign_nodes_params[] = {
	{"group_name", GNT_PARAM_TYPE_STRING, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"force", GNT_PARAM_TYPE_BOOL, "false", FALSE, GNT_PARAM_PUBLIC},
	{"nodes", GNT_PARAM_TYPE_STRING_LIST, NULL, FALSE, GNT_PARAM_PUBLIC},
	{"node_uuids", GNT_PARAM_TYPE_STRING_LIST, "null", TRUE, GNT_PARAM_PUBLIC},
	{NULL},
};

/* Adding, removing and renaming groups and moving nodes between them change
 * what every other unit may rely on (a node's group): they hold the cluster
 * lock exclusively. Changing a group's parameters takes its own lock. */
static const GntOpDef op_group_add = {
	"OP_GROUP_ADD", "group_name", group_add_params, GNT_LOCK_EXCLUSIVE, &gnt_lu_group_add,
};
static const GntOpDef op_group_set_params = {
	"OP_GROUP_SET_PARAMS",	  "group_name", group_set_params_params, GNT_LOCK_SHARED,
	&gnt_lu_group_set_params,
};
static const GntOpDef op_group_rename = {
	"OP_GROUP_RENAME", NULL, group_rename_params, GNT_LOCK_EXCLUSIVE, &gnt_lu_group_rename,
};
static const GntOpDef op_group_remove = {
	"OP_GROUP_REMOVE",  "group_name",	  group_remove_params,
	GNT_LOCK_EXCLUSIVE, &gnt_lu_group_remove,
};
static const GntOpDef op_group_assign_nodes = {
	"OP_GROUP_ASSIGN_NODES",    "group_name", group_assign_nodes_params, GNT_LOCK_EXCLUSIVE,
	&gnt_lu_group_assign_nodes,
};

const GntOpDef *const gnt_op_defs_group[] = {
	&op_group_add,	  &op_group_assign_nodes, &op_group_remove,
	&op_group_rename, &op_group_set_params,	  NULL,
};
