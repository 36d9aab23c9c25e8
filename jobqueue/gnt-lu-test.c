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
			g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "node '%s' does not exist",
				    name);
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

	if (gnt_opcode_get_bool(op, "no_locks", TRUE))
		return;
	for (guint i = 0; i < json_array_get_length(names); i++)
		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODE, json_array_get_string_element(names, i),
				 GNT_LOCK_EXCLUSIVE);
	if (gnt_opcode_get_bool(op, "on_master", TRUE)) {
		g_autofree gchar *master = gnt_config_dup_master_node(gnt_lu_get_env(lu)->config);
		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODE, master, GNT_LOCK_EXCLUSIVE);
	}
}

static JsonNode *
test_delay_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	gdouble duration = gnt_opcode_get_number(op, "duration", 0);
	gint64 repeat = gnt_opcode_get_int(op, "repeat", 0);
	JsonArray *nodes = json_node_get_array(gnt_opcode_get_param(op, "on_nodes"));
	gboolean anywhere = gnt_opcode_get_bool(op, "on_master", TRUE) ||
			    json_array_get_length(nodes) > 0;

	for (gint64 i = 0; i < MAX(repeat, 1); i++) {
		if (repeat > 0)
			gnt_lu_feedback(lu, "Test delay iteration %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT,
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

static gboolean
test_dummy_check_args(GntLu *lu, GError **error)
{
	JsonNode *jobs = gnt_opcode_get_param(gnt_lu_get_opcode(lu), "submit_jobs");

	if (jobs != NULL && JSON_NODE_HOLDS_ARRAY(jobs) && json_array_get_length(json_node_get_array(jobs)) > 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'submit_jobs' is not supported: submit the jobs directly");
		return FALSE;
	}
	return TRUE;
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
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the %s does not match its digest", what);
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
	if (gnt_opcode_get_bool(op, "fail", FALSE)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_FAULT, "Opcode failure was requested");
		return NULL;
	}
	return gnt_json_node_deep_copy(result); /* the worker thread owns the copy */
}

const GntLuClass gnt_lu_test_dummy = {
	.check_args = test_dummy_check_args,
	.exec = test_dummy_exec,
};
