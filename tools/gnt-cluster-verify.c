/*
 * gnt-cluster verify and verify-disks, as Ganeti's gnt_cluster.py
 * VerifyCluster and VerifyDisks: one opcode whose result lists the jobs it
 * submitted, which are then waited for (JobExecutor), their logs printed.
 */
#include "gnt-cluster-verify.h"

#include <string.h>

#include "gnt-cli-format.h"
#include "gnt-cli-objects.h"
#include "gnt-json.h"
#include "gnt-verify-codes.h"

static gboolean opt_simulate_errors;
static gboolean opt_error_codes;
static gboolean opt_skip_nplusone_mem;
static gboolean opt_skip_hvparam_assessment;
static gboolean opt_verify_clutter;
static gboolean opt_no_strict;
static gchar *opt_nodegroup;
static GPtrArray *opt_ignore_errors;

/* -I CODE: optparse's choices, from the code table */
static gboolean
ignore_errors_cb(const gchar *name, const gchar *value, gpointer data, GError **error)
{
	g_autoptr(GString) choices = g_string_new(NULL);

	if (gnt_cv_code_lookup(value, NULL)) {
		if (opt_ignore_errors == NULL)
			opt_ignore_errors = g_ptr_array_new_with_free_func(g_free);
		g_ptr_array_add(opt_ignore_errors, g_strdup(value));
		return TRUE;
	}
	for (guint i = 0; i < GNT_CV_LAST; i++)
		g_string_append_printf(choices, "%s'%s'", i > 0 ? ", " : "",
				       gnt_cv_code_get((GntCvCode)i)->name);
	g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
		    "option -I: invalid choice: '%s' (choose from %s)", value, choices->str);
	return FALSE;
}

#define NODEGROUP_ENTRY                                                                            \
	{                                                                                          \
		"node-group", 'g', 0, G_OPTION_ARG_STRING, &opt_nodegroup,                         \
			"Node group (name or uuid)", "<nodegroup>"                                 \
	}

const GOptionEntry gnt_cluster_verify_entries[] = {
	{"debug-simulate-errors", 0, 0, G_OPTION_ARG_NONE, &opt_simulate_errors,
	 "Debugging option that makes the operation treat most runtime checks as failed", NULL},
	{"error-codes", 0, 0, G_OPTION_ARG_NONE, &opt_error_codes,
	 "Enable parseable error messages", NULL},
	{"no-nplus1-mem", 0, 0, G_OPTION_ARG_NONE, &opt_skip_nplusone_mem,
	 "Skip N+1 memory redundancy tests", NULL},
	{"no-hv-param-assessment", 0, 0, G_OPTION_ARG_NONE, &opt_skip_hvparam_assessment,
	 "Skip hypervisor parameter assessment", NULL},
	NODEGROUP_ENTRY,
	{"ignore-errors", 'I', 0, G_OPTION_ARG_CALLBACK, (gpointer)ignore_errors_cb,
	 "Error code to be ignored", "ECODE"},
	{"verify-ssh-clutter", 0, 0, G_OPTION_ARG_NONE, &opt_verify_clutter,
	 "Verify that Ganeti did not clutter up the 'authorized_keys' file (accepted; Gantry "
	 "uses no ssh)",
	 NULL},
	{NULL},
};

const GOptionEntry gnt_cluster_verify_disks_entries[] = {
	NODEGROUP_ENTRY,
	{"no-strict", 0, 0, G_OPTION_ARG_NONE, &opt_no_strict,
	 "Do not run in strict mode (accepted; Gantry always checks every node)", NULL},
	{NULL},
};

/* SubmitOpCode(@op), then a JobExecutor over the jobs its result lists
 * (Ganeti's constants.JOB_IDS_KEY); NULL after printing a failure. */
static GntCliJobExecutor *
run_and_wait(GntCli *cli, JsonObject *op, gint *exit_code)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;
	g_autoptr(GntCliJobExecutor) jex = gnt_cli_job_executor_new(cli, TRUE);
	JsonNode *first;
	JsonArray *jobs = NULL;
	gboolean all_ok = FALSE;

	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), &results, &error)) {
		*exit_code = gnt_cli_fail(cli, error);
		return NULL;
	}
	*exit_code = 0;
	if (results == NULL) /* --submit */
		return NULL;
	first = json_array_get_length(results) > 0 ? json_array_get_element(results, 0) : NULL;
	if (first != NULL && JSON_NODE_HOLDS_OBJECT(first))
		jobs = gnt_json_peek_array(json_node_get_object(first), "jobs");
	for (guint i = 0; jobs != NULL && i < json_array_get_length(jobs); i++)
		gnt_cli_job_executor_add_job_id(jex, NULL, json_array_get_element(jobs, i));
	if (!gnt_cli_job_executor_run(jex, &all_ok, &error)) {
		*exit_code = gnt_cli_fail(cli, error);
		return NULL;
	}
	return g_steal_pointer(&jex);
}

gint
gnt_cluster_verify(GntCli *cli, gchar **args)
{
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_CLUSTER_VERIFY");
	JsonArray *skip = json_array_new();
	JsonArray *ignore = json_array_new();
	g_autoptr(GntCliJobExecutor) jex = NULL;
	guint bad_jobs = 0, bad_results = 0;
	gint exit_code = 0;

	if (opt_skip_nplusone_mem)
		json_array_add_string_element(skip, GNT_CV_SKIP_NPLUSONE_MEM);
	if (opt_skip_hvparam_assessment)
		json_array_add_string_element(skip, GNT_CV_SKIP_HVPARAM_ASSESSMENT);
	for (guint i = 0; opt_ignore_errors != NULL && i < opt_ignore_errors->len; i++)
		json_array_add_string_element(ignore, g_ptr_array_index(opt_ignore_errors, i));
	json_object_set_boolean_member(op, "verbose", gnt_cli_get_options(cli)->verbose);
	json_object_set_boolean_member(op, "error_codes", opt_error_codes);
	json_object_set_boolean_member(op, "debug_simulate_errors", opt_simulate_errors);
	json_object_set_array_member(op, "skip_checks", skip);
	json_object_set_array_member(op, "ignore_errors", ignore);
	if (opt_nodegroup != NULL)
		json_object_set_string_member(op, "group_name", opt_nodegroup);
	else
		json_object_set_null_member(op, "group_name");
	json_object_set_boolean_member(op, "verify_clutter", opt_verify_clutter);
	jex = run_and_wait(cli, op, &exit_code);
	if (jex == NULL)
		return exit_code;
	for (guint i = 0; i < gnt_cli_job_executor_get_n_jobs(jex); i++) {
		JsonArray *result = gnt_cli_job_executor_get_result(jex, i);
		JsonNode *first = result != NULL && json_array_get_length(result) > 0
					  ? json_array_get_element(result, 0)
					  : NULL;

		if (result == NULL)
			bad_jobs++;
		/* Python's truth of op_res[0] */
		else if (first == NULL || JSON_NODE_HOLDS_NULL(first) ||
			 (json_node_get_value_type(first) == G_TYPE_BOOLEAN &&
			  !json_node_get_boolean(first)))
			bad_results++;
	}
	if (bad_jobs > 0)
		g_print("%u job(s) failed while verifying the cluster.\n", bad_jobs);
	return bad_jobs == 0 && bad_results == 0 ? 0 : 1;
}

/* The disks part of one OP_GROUP_VERIFY_DISKS result; FALSE when it says
 * something needs fixing. */
static gboolean
report_group_disks(JsonNode *value)
{
	JsonArray *triple =
		value != NULL && JSON_NODE_HOLDS_ARRAY(value) ? json_node_get_array(value) : NULL;
	JsonObject *bad_nodes, *missing;
	JsonArray *instances;
	gboolean ok = TRUE;
	g_autoptr(GList) nodes = NULL;
	g_autoptr(GList) names = NULL;

	if (triple == NULL || json_array_get_length(triple) != 3) {
		g_print("Job failed: unexpected result\n");
		return FALSE;
	}
	bad_nodes = json_array_get_object_element(triple, 0);
	instances = json_array_get_array_element(triple, 1);
	missing = json_array_get_object_element(triple, 2);
	nodes = json_object_get_members(bad_nodes);
	for (GList *l = nodes; l != NULL; l = l->next) {
		const gchar *text = json_object_get_string_member(bad_nodes, l->data);
		gsize len = strlen(text);
		g_autoptr(JsonNode)
			tail = gnt_json_node_new_string(len > 400 ? text + len - 400 : text);
		g_autofree gchar *safe = gnt_cli_format_log_message("message", tail);

		g_print("Error gathering data on node %s: %s\n", (gchar *)l->data, safe);
		g_print("You need to fix these nodes first before fixing instances\n");
		ok = FALSE;
	}
	names = json_object_get_members(missing);
	for (GList *l = names; l != NULL; l = l->next) {
		JsonArray *vols = gnt_json_peek_array(missing, l->data);
		gboolean all_broken = TRUE;

		for (guint i = 0; i < json_array_get_length(vols); i++)
			all_broken &= json_object_has_member(
				bad_nodes, json_array_get_string_element(
						   json_array_get_array_element(vols, i), 0));
		if (all_broken) {
			g_print("Instance %s cannot be verified as it lives on broken nodes\n",
				(gchar *)l->data);
			continue;
		}
		g_print("Instance %s has missing logical volumes:\n", (gchar *)l->data);
		for (guint i = 0; i < json_array_get_length(vols); i++) {
			JsonArray *pair = json_array_get_array_element(vols, i);
			const gchar *node = json_array_get_string_element(pair, 0);
			const gchar *vol = json_array_get_string_element(pair, 1);

			/* Ganeti prints "/dev/<vg>/<lv>"; a file disk's path is whole */
			g_print("\t%s%s %s%s\n",
				json_object_has_member(bad_nodes, node) ? "broken node " : "", node,
				vol[0] == '/' ? "" : "/dev/", vol);
		}
	}
	if (names != NULL) {
		g_print("You need to replace or recreate disks for all the above instances if this "
			"message persists after fixing broken nodes.\n");
		ok = FALSE;
	} else if (json_array_get_length(instances) == 0) {
		g_print("No disks need to be activated.\n");
	}
	return ok;
}

gint
gnt_cluster_verify_disks(GntCli *cli, gchar **args)
{
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_CLUSTER_VERIFY_DISKS");
	g_autoptr(GntCliJobExecutor) jex = NULL;
	gint exit_code = 0;

	if (opt_nodegroup != NULL)
		json_object_set_string_member(op, "group_name", opt_nodegroup);
	else
		json_object_set_null_member(op, "group_name");
	json_object_set_boolean_member(op, "is_strict", !opt_no_strict);
	jex = run_and_wait(cli, op, &exit_code);
	if (jex == NULL)
		return exit_code;
	for (guint i = 0; i < gnt_cli_job_executor_get_n_jobs(jex); i++) {
		JsonArray *result = gnt_cli_job_executor_get_result(jex, i);

		if (result == NULL) {
			g_print("Job failed: %s\n", gnt_cli_job_executor_get_failure(jex, i));
			continue;
		}
		if (!report_group_disks(json_array_get_length(result) > 0
						? json_array_get_element(result, 0)
						: NULL))
			exit_code = 1;
	}
	return exit_code;
}
