/*
 * The verify opcodes (Ganeti 3.0's OpClusterVerify, OpClusterVerifyConfig,
 * OpClusterVerifyGroup, OpClusterVerifyDisks, OpGroupVerifyDisks), with
 * Ganeti's parameters and defaults. They only look, so they run again
 * harmlessly after a crash.
 */
#include "gnt-error.h"
#include "gnt-cmdlib.h"
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
	{.name = "debug_simulate_errors", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},   \
		{.name = "error_codes", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},     \
		{.name = "ignore_errors",                                                          \
		 .type = GNT_PARAM_TYPE_STRING_LIST,                                               \
		 .default_json = "[]",                                                             \
		 .validate = validate_error_codes},                                                \
	{                                                                                          \
		.name = "verbose", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"            \
	}

#define VERIFY_SKIP_CHECKS                                                                         \
	{                                                                                          \
		.name = "skip_checks", .type = GNT_PARAM_TYPE_STRING_LIST, .default_json = "[]",   \
		.validate = validate_skip_checks                                                   \
	}

static const GntParamDef cluster_verify_params[] = {
	VERIFY_COMMON_PARAMS,
	VERIFY_SKIP_CHECKS,
	{.name = "group_name", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "verify_clutter", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{NULL},
};

static const GntParamDef cluster_verify_config_params[] = {
	VERIFY_COMMON_PARAMS,
	{NULL},
};

static const GntParamDef cluster_verify_group_params[] = {
	{.name = "group_name", .type = GNT_PARAM_TYPE_STRING},
	VERIFY_COMMON_PARAMS,
	VERIFY_SKIP_CHECKS,
	{.name = "verify_clutter", .type = GNT_PARAM_TYPE_BOOL, .default_json = "false"},
	{NULL},
};

static const GntParamDef cluster_verify_disks_params[] = {
	{.name = "group_name", .type = GNT_PARAM_TYPE_STRING, GNT_PARAM_OPTIONAL},
	{.name = "is_strict", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{NULL},
};

static const GntParamDef group_verify_disks_params[] = {
	{.name = "group_name", .type = GNT_PARAM_TYPE_STRING},
	{.name = "is_strict", .type = GNT_PARAM_TYPE_BOOL, .default_json = "true"},
	{NULL},
};

static const GntOpDef op_cluster_verify = {
	.id = "OP_CLUSTER_VERIFY",
	.params = cluster_verify_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};
static const GntOpDef op_cluster_verify_config = {
	.id = "OP_CLUSTER_VERIFY_CONFIG",
	.params = cluster_verify_config_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};
static const GntOpDef op_cluster_verify_group = {
	.id = "OP_CLUSTER_VERIFY_GROUP",
	.summary_param = "group_name",
	.params = cluster_verify_group_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};
static const GntOpDef op_cluster_verify_disks = {
	.id = "OP_CLUSTER_VERIFY_DISKS",
	.params = cluster_verify_disks_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};
static const GntOpDef op_group_verify_disks = {
	.id = "OP_GROUP_VERIFY_DISKS",
	.summary_param = "group_name",
	.params = group_verify_disks_params,
	.bgl = GNT_LOCK_SHARED,
	.idempotent = TRUE,
};

const GntOpDef *const gnt_op_defs_verify[] = {
	&op_cluster_verify,	  &op_cluster_verify_config, &op_cluster_verify_disks,
	&op_cluster_verify_group, &op_group_verify_disks,    NULL,
};
