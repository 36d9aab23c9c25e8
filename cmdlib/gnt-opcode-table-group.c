/*
 * Opcodes of node groups (doc/groups.md). Parameters, defaults and allowed
 * values are those of Ganeti 3.0 (OpCodes.hs: OpGroupAdd, OpGroupSetParams,
 * OpGroupRename, OpGroupRemove, OpGroupAssignNodes), so its clients'
 * opcodes are accepted as they are.
 */
#include "gnt-cmdlib.h"

/* Ganeti's allocation policies (constants.VALID_ALLOC_POLICIES) */
#define ALLOC_POLICIES "preferred|last_resort|unallocable"

/* what OP_GROUP_ADD and OP_GROUP_SET_PARAMS share */
#define GROUP_PARAMS                                                                               \
	{.name = "group_name", .type = GNT_PARAM_TYPE_STRING},                                     \
		{.name = "alloc_policy",                                                           \
		 .type = GNT_PARAM_TYPE_STRING,                                                    \
		 GNT_PARAM_OPTIONAL,                                                               \
		 .choices = ALLOC_POLICIES},                                                       \
		{.name = "ndparams", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},             \
		{.name = "diskparams", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},           \
		{.name = "hv_state", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},             \
		{.name = "disk_state", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL},           \
	{                                                                                          \
		.name = "ipolicy", .type = GNT_PARAM_TYPE_DICT, GNT_PARAM_OPTIONAL                 \
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
	{.name = "group_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "new_name", .type = GNT_PARAM_TYPE_STRING},
	{NULL},
};

static const GntParamDef group_remove_params[] = {
	{.name = "group_name", .type = GNT_PARAM_TYPE_STRING},
	{NULL},
};

static const GntParamDef group_assign_nodes_params[] = {
	{.name = "group_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "force", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{.name = "nodes", .type = GNT_PARAM_TYPE_STRING_LIST},
	{.name = "node_uuids", .type = GNT_PARAM_TYPE_STRING_LIST, GNT_PARAM_OPTIONAL},
	{NULL},
};

/* Adding, removing and renaming groups and moving nodes between them change
 * what every other unit may rely on (a node's group): they hold the cluster
 * lock exclusively. Changing a group's parameters takes its own lock. */
static const GntOpDef op_group_add = {
	.id = "OP_GROUP_ADD",
	.summary_param = "group_name",
	.params = group_add_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};
static const GntOpDef op_group_set_params = {
	.id = "OP_GROUP_SET_PARAMS",
	.summary_param = "group_name",
	.params = group_set_params_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_group_rename = {
	.id = "OP_GROUP_RENAME",
	.params = group_rename_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};
static const GntOpDef op_group_remove = {
	.id = "OP_GROUP_REMOVE",
	.summary_param = "group_name",
	.params = group_remove_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};
static const GntOpDef op_group_assign_nodes = {
	.id = "OP_GROUP_ASSIGN_NODES",
	.summary_param = "group_name",
	.params = group_assign_nodes_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};

const GntOpDef *const gnt_op_defs_group[] = {
	&op_group_add,	  &op_group_assign_nodes, &op_group_remove,
	&op_group_rename, &op_group_set_params,	  NULL,
};
