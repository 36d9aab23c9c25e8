/*
 * The test opcodes: OP_TEST_DELAY sleeps (Ganeti's debug delay, the
 * simplest job end to end), OP_TEST_DUMMY returns what it is given and
 * checks the private and secret values it received against public digests.
 */
#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu.h"

static gboolean
test_delay_check_prereq(GntLu *lu, GError **error)
{
	JsonNode *nodes = gnt_opcode_get_param(gnt_lu_get_opcode(lu), "on_nodes");
	g_autofree gchar *master = gnt_config_dup_master_node(gnt_lu_get_env(lu)->config);
	JsonArray *names = json_node_get_array(nodes);

	/* the master is the only node until nodes can join */
	for (guint i = 0; i < json_array_get_length(names); i++) {
		const gchar *name = json_array_get_string_element(names, i);
		if (g_strcmp0(name, master) != 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
				    "node '%s' does not exist", name);
			return FALSE;
		}
	}
	return TRUE;
}

static void
test_delay_declare_locks(GntLu *lu, GntLockSet *locks)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	JsonArray *names = json_node_get_array(gnt_opcode_get_param(op, "on_nodes"));

	if (gnt_opcode_get_bool(op, "no_locks"))
		return;
	for (guint i = 0; i < json_array_get_length(names); i++)
		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODE,
				 json_array_get_string_element(names, i), GNT_LOCK_EXCLUSIVE);
	if (gnt_opcode_get_bool(op, "on_master")) {
		g_autofree gchar *master = gnt_config_dup_master_node(gnt_lu_get_env(lu)->config);
		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODE, master, GNT_LOCK_EXCLUSIVE);
	}
}

static JsonNode *
test_delay_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	gdouble duration = gnt_opcode_get_number(op, "duration");
	gint64 repeat = gnt_opcode_get_int(op, "repeat");
	JsonArray *nodes = json_node_get_array(gnt_opcode_get_param(op, "on_nodes"));
	gboolean anywhere = gnt_opcode_get_bool(op, "on_master") ||
			    json_array_get_length(nodes) > 0;

	for (gint64 i = 0; i < MAX(repeat, 1); i++) {
		if (repeat > 0)
			gnt_lu_feedback(lu,
					"Test delay iteration %" G_GINT64_FORMAT
					"/%" G_GINT64_FORMAT,
					i, repeat - 1);
		if (anywhere && duration > 0 && !gnt_lu_sleep(lu, duration)) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
					    "the master daemon stopped while the job was running");
			return NULL;
		}
	}
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_test_delay = {
	.check_prereq = test_delay_check_prereq,
	.declare_locks = test_delay_declare_locks,
	.exec = test_delay_exec,
};

/* "submit_jobs" (Ganeti's: a list of jobs, each a list of opcode
 * objects) as opcodes, every one checked before any is submitted: TRUE
 * with *@out NULL when there are no jobs to submit, FALSE when one is
 * wrong. (*@out: transfer full) */
static gboolean
test_dummy_parse_jobs(const GntOpcode *op, GPtrArray **out, GError **error)
{
	JsonNode *value = gnt_opcode_get_param(op, "submit_jobs");
	JsonArray *jobs = value != NULL && JSON_NODE_HOLDS_ARRAY(value) ? json_node_get_array(value)
									: NULL;
	g_autoptr(GPtrArray) parsed = NULL;

	*out = NULL;
	if (jobs == NULL || json_array_get_length(jobs) == 0)
		return TRUE;
	parsed = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	for (guint j = 0; j < json_array_get_length(jobs); j++) {
		JsonNode *job = json_array_get_element(jobs, j);
		JsonArray *ops = JSON_NODE_HOLDS_ARRAY(job) ? json_node_get_array(job) : NULL;
		GPtrArray *opcodes =
			g_ptr_array_new_with_free_func((GDestroyNotify)gnt_opcode_unref);

		g_ptr_array_add(parsed, opcodes);
		if (ops == NULL || json_array_get_length(ops) == 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'submit_jobs': job %u must be a non-empty list of opcodes", j);
			return FALSE;
		}
		for (guint i = 0; i < json_array_get_length(ops); i++) {
			JsonObject *input = json_array_get_object_element(ops, i);
			GntOpcode *child = input != NULL ? gnt_opcode_new_from_json(input, error)
							 : NULL;

			if (child == NULL) {
				if (input == NULL)
					g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
							    "an opcode must be an object");
				g_prefix_error(error, "'submit_jobs': job %u, opcode %u: ", j, i);
				return FALSE;
			}
			g_ptr_array_add(opcodes, child);
		}
	}
	*out = g_steal_pointer(&parsed);
	return TRUE;
}

static gboolean
test_dummy_check_args(GntLu *lu, GError **error)
{
	g_autoptr(GPtrArray) jobs = NULL;

	return test_dummy_parse_jobs(gnt_lu_get_opcode(lu), &jobs, error);
}

/* Checks @value against "sha256:<hex>" without ever printing the value. */
static gboolean
test_dummy_check_digest(const gchar *what, const gchar *value, gsize len, const gchar *expected,
			GError **error)
{
	g_autofree gchar *digest = NULL;

	if (expected == NULL)
		return TRUE;
	if (value == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "no %s was given to check", what);
		return FALSE;
	}
	digest = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)value, len);
	if (!g_str_has_prefix(expected, "sha256:") || g_strcmp0(expected + 7, digest) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "the %s does not match its digest",
			    what);
		return FALSE;
	}
	return TRUE;
}

static JsonNode *
test_dummy_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	JsonNode *messages = gnt_opcode_get_param(op, "messages");
	JsonNode *result = gnt_opcode_get_param(op, "result");
	const gchar *private_value = gnt_opcode_get_string(op, "private_value");
	const GntSecret *secret = gnt_opcode_get_secret(op, "secret_value");
	g_autoptr(GPtrArray) jobs = NULL;

	for (guint i = 0; messages != NULL && JSON_NODE_HOLDS_ARRAY(messages) &&
			  i < json_array_get_length(json_node_get_array(messages));
	     i++)
		gnt_lu_feedback(lu, "%s",
				json_array_get_string_element(json_node_get_array(messages), i));
	if (!test_dummy_check_digest("private value", private_value,
				     private_value ? strlen(private_value) : 0,
				     gnt_opcode_get_string(op, "private_sha256"), error) ||
	    !test_dummy_check_digest("secret value", secret ? gnt_secret_get(secret) : NULL,
				     secret ? gnt_secret_get_length(secret) : 0,
				     gnt_opcode_get_string(op, "secret_sha256"), error))
		return NULL;
	if (private_value != NULL)
		gnt_lu_feedback(lu, "private value received and verified");
	if (secret != NULL)
		gnt_lu_feedback(lu, "secret value received and verified");
	if (gnt_opcode_get_flag(op, "fail")) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_FAULT,
				    "Opcode failure was requested");
		return NULL;
	}
	/* Ganeti's ResultWithJobs(submit_jobs): the jobs' IDs are the result */
	if (!test_dummy_parse_jobs(op, &jobs, error))
		return NULL;
	if (jobs != NULL) {
		JsonObject *submitted = json_object_new();

		json_object_set_array_member(submitted, "jobs",
					     gnt_lu_submit_jobs(lu, g_steal_pointer(&jobs)));
		return gnt_json_node_new_object(submitted);
	}
	return gnt_json_node_deep_copy(result); /* the worker thread owns the copy */
}

const GntLuClass gnt_lu_test_dummy = {
	.check_args = test_dummy_check_args,
	.exec = test_dummy_exec,
};
