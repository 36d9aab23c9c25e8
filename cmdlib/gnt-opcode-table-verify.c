/*
 * The verify opcodes (Ganeti 3.0's OpClusterVerify, OpClusterVerifyConfig,
 * OpClusterVerifyGroup, OpClusterVerifyDisks, OpGroupVerifyDisks), with
 * Ganeti's parameters and defaults. They only look, so they run again
 * harmlessly after a crash.
 */
#include "gnt-error.h"
#include "gnt-opcode-private.h"
#include "gnt-verify-codes.h"

/* ["ENODERPC", ...]: Ganeti's ListSet CVErrorCode */
static gboolean
validate_error_codes(JsonNode *value, GError **error)
{
	JsonArray *codes = json_node_get_array(value);

	for (guint i = 0; i < json_array_get_length(codes); i++) {
		const gchar *name = json_array_get_string_element(codes, i);
		if (!gnt_cv_code_lookup(name, NULL)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s' is not a cluster verify error code", name);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
validate_skip_checks(JsonNode *value, GError **error)
{
	JsonArray *checks = json_node_get_array(value);

	for (guint i = 0; i < json_array_get_length(checks); i++) {
		const gchar *name = json_array_get_string_element(checks, i);
		if (g_strcmp0(name, GNT_CV_SKIP_NPLUSONE_MEM) != 0 &&
		    g_strcmp0(name, GNT_CV_SKIP_HVPARAM_ASSESSMENT) != 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s' is not an optional check (%s, %s)", name,
				    GNT_CV_SKIP_NPLUSONE_MEM, GNT_CV_SKIP_HVPARAM_ASSESSMENT);
			return FALSE;
		}
	}
	return TRUE;
}

#define VERIFY_COMMON_PARAMS                                                                       \
	{"debug_simulate_errors", GNT_PARAM_TYPE_BOOL, "false"},                                   \
		{"error_codes", GNT_PARAM_TYPE_BOOL, "false"},                                     \
		{"ignore_errors", GNT_PARAM_TYPE_STRING_LIST, "[]",                                \
		 FALSE,		  GNT_PARAM_PUBLIC,	      validate_error_codes},               \
	{                                                                                          \
		"verbose", GNT_PARAM_TYPE_BOOL, "false"                                            \
	}

#define VERIFY_SKIP_CHECKS                                                                         \
	{                                                                                          \
		"skip_checks", GNT_PARAM_TYPE_STRING_LIST, "[]", FALSE, GNT_PARAM_PUBLIC,          \
			validate_skip_checks                                                       \
	}

static const GntParamDef cluster_verify_params[] = {
	VERIFY_COMMON_PARAMS,
	VERIFY_SKIP_CHECKS,
	{"group_name", GNT_PARAM_TYPE_STRING, "null", TRUE},
	{"verify_clutter", GNT_PARAM_TYPE_BOOL, "false"},
	{NULL},
};

static const GntParamDef cluster_verify_config_params[] = {
	VERIFY_COMMON_PARAMS,
	{NULL},
};

static const GntParamDef cluster_verify_group_params[] = {
	{"group_name", GNT_PARAM_TYPE_STRING, NULL},
	VERIFY_COMMON_PARAMS,
	VERIFY_SKIP_CHECKS,
	{"verify_clutter", GNT_PARAM_TYPE_BOOL, "false"},
	{NULL},
};

static const GntParamDef cluster_verify_disks_params[] = {
	{"group_name", GNT_PARAM_TYPE_STRING, "null", TRUE},
	{"is_strict", GNT_PARAM_TYPE_BOOL, "true"},
	{NULL},
};

static const GntParamDef group_verify_disks_params[] = {
	{"group_name", GNT_PARAM_TYPE_STRING, NULL},
	{"is_strict", GNT_PARAM_TYPE_BOOL, "true"},
	{NULL},
};

static const GntOpDef op_cluster_verify = {
	"OP_CLUSTER_VERIFY",	NULL, cluster_verify_params, GNT_LOCK_SHARED,
	&gnt_lu_cluster_verify, TRUE,
};
static const GntOpDef op_cluster_verify_config = {
	"OP_CLUSTER_VERIFY_CONFIG",    NULL, cluster_verify_config_params, GNT_LOCK_SHARED,
	&gnt_lu_cluster_verify_config, TRUE,
};
static const GntOpDef op_cluster_verify_group = {
	"OP_CLUSTER_VERIFY_GROUP",    "group_name", cluster_verify_group_params, GNT_LOCK_SHARED,
	&gnt_lu_cluster_verify_group, TRUE,
};
static const GntOpDef op_cluster_verify_disks = {
	"OP_CLUSTER_VERIFY_DISKS",    NULL, cluster_verify_disks_params, GNT_LOCK_SHARED,
	&gnt_lu_cluster_verify_disks, TRUE,
};
static const GntOpDef op_group_verify_disks = {
	"OP_GROUP_VERIFY_DISKS",    "group_name", group_verify_disks_params, GNT_LOCK_SHARED,
	&gnt_lu_group_verify_disks, TRUE,
};

const GntOpDef *const gnt_op_defs_verify[] = {
	&op_cluster_verify,	  &op_cluster_verify_config, &op_cluster_verify_disks,
	&op_cluster_verify_group, &op_group_verify_disks,    NULL,
};
