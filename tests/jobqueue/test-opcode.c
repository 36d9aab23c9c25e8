#include "gnt-cmdlib.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-opcode.h"

static GntOpcode *
parse(const gchar *json, GError **error)
{
	g_autoptr(JsonNode) node = gnt_json_parse(json, -1, NULL);

	g_assert_nonnull(node);
	return gnt_opcode_new_from_json(json_node_get_object(node), error);
}

static void
assert_invalid(const gchar *json, const gchar *message)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOpcode) op = parse(json, &error);

	g_assert_null(op);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, message);
}

/* The engine knows the opcodes of the table registered, and no other: a
 * table of one opcode, then cmdlib's again (what every other test uses). */
static void
test_registered_table(void)
{
	static const GntParamDef params[] = {
		{.name = "count", .type = GNT_PARAM_TYPE_INT, .default_json = "3"},
		{NULL},
	};
	static const GntOpDef op_only = {
		.id = "OP_ONLY_HERE", .params = params, .bgl = GNT_LOCK_SHARED, .idempotent = TRUE};
	static const GntOpDef *const part[] = {&op_only, NULL};
	static const GntOpDef *const *const parts[] = {part, NULL};
	static const gchar *const ganeti[] = {"OP_TEST_DELAY", NULL};
	static const GntOpTable table = {
		.parts = parts, .common_params = gnt_op_common_params, .ganeti_op_ids = ganeti};
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOpcode) op = NULL;

	gnt_opcode_register_table(&table);
	op = parse("{\"OP_ID\": \"OP_ONLY_HERE\"}", &error);
	g_assert_no_error(error);
	g_assert_cmpint(gnt_opcode_get_int(op, "count"), ==, 3);
	/* cmdlib's opcode is Ganeti's but not in this table */
	assert_invalid("{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 1}",
		       "opcode 'OP_TEST_DELAY' is not supported by Gantry");
	gnt_opcode_register_table(&gnt_cmdlib_op_table);
	g_assert_null(gnt_op_def_lookup("OP_ONLY_HERE"));
	g_assert_nonnull(gnt_op_def_lookup("OP_TEST_DELAY"));
}

/* Every opcode of cmdlib's table has its unit in cmdlib's list, once, and
 * every unit there runs an opcode of the table. */
static void
test_every_opcode_has_its_unit(void)
{
	guint n_rows = 0;
	guint n_units = 0;

	for (const GntOpDef *const *const *part = gnt_cmdlib_op_table.parts; *part != NULL;
	     part++) {
		for (const GntOpDef *const *def = *part; *def != NULL; def++) {
			guint found = 0;

			for (const GntLuUnit *u = gnt_cmdlib_units; u->op_id != NULL; u++)
				found += g_strcmp0(u->op_id, (*def)->id) == 0;
			if (found != 1)
				g_error("%s has %u units in gnt_cmdlib_units", (*def)->id, found);
			n_rows++;
		}
	}
	for (const GntLuUnit *u = gnt_cmdlib_units; u->op_id != NULL; u++) {
		g_assert_nonnull(u->lu);
		if (gnt_op_def_lookup(u->op_id) == NULL)
			g_error("the unit of %s has no row in the opcode table", u->op_id);
		n_units++;
	}
	g_assert_cmpuint(n_units, ==, n_rows);
	g_assert_cmpuint(n_rows, >, 30);
}

static void
test_defaults_filled(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOpcode)
		op = parse("{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 2.5}", &error);
	g_autoptr(JsonObject) shown = NULL;
	g_autoptr(JsonNode) node = NULL;
	g_autofree gchar *text = NULL;

	g_assert_no_error(error);
	g_assert_cmpfloat(gnt_opcode_get_number(op, "duration"), ==, 2.5);
	g_assert_true(gnt_opcode_get_bool(op, "on_master"));
	g_assert_cmpint(gnt_opcode_get_int(op, "repeat"), ==, 0);
	g_assert_cmpint(gnt_opcode_get_priority(op), ==, 0);
	g_assert_cmpstr(gnt_op_def_get_summary_param(gnt_opcode_get_def(op)), ==, "duration");
	shown = gnt_opcode_to_json(op);
	node = json_node_init_object(json_node_alloc(), shown);
	text = gnt_json_to_string(node);
	/* Ganeti 3.0's OpTestDelay, every key present */
	g_assert_cmpstr(
		text, ==,
		"{\"duration\":2.5,\"on_master\":true,\"on_nodes\":[],\"on_node_uuids\":null,"
		"\"repeat\":0,\"interruptible\":false,\"no_locks\":true,\"dry_run\":null,"
		"\"debug_level\":null,\"priority\":0,\"depends\":null,\"comment\":null,"
		"\"reason\":[],\"OP_ID\":\"OP_TEST_DELAY\"}");
}

static void
test_python_client_shape(void)
{
	/* exactly what ganeti.opcodes.OpTestDelay(duration=0).__getstate__() sends */
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOpcode) op = parse(
		"{\"duration\": 0, \"on_master\": true, \"on_nodes\": [], \"on_node_uuids\": null,"
		" \"repeat\": 0, \"interruptible\": false, \"no_locks\": true, \"dry_run\": null,"
		" \"debug_level\": null, \"priority\": 0, \"depends\": null, \"comment\": null,"
		" \"reason\": [], \"OP_ID\": \"OP_TEST_DELAY\"}",
		&error);

	g_assert_no_error(error);
	g_assert_nonnull(op);
}

static void
test_invalid(void)
{
	assert_invalid("{\"duration\": 1}", "opcode: 'OP_ID' is missing");
	assert_invalid("{\"OP_ID\": 7}", "opcode: 'OP_ID' must be a string, not integer");
	assert_invalid("{\"OP_ID\": \"OP_NOPE\"}", "unknown opcode 'OP_NOPE'");
	/* Ganeti's, not Gantry's */
	assert_invalid("{\"OP_ID\": \"OP_NODE_EVACUATE\"}",
		       "opcode 'OP_NODE_EVACUATE' is not supported by Gantry");
	g_assert_true(gnt_op_id_is_unsupported("OP_NODE_EVACUATE"));
	g_assert_false(gnt_op_id_is_unsupported("OP_TEST_DELAY"));
	g_assert_false(gnt_op_id_is_unsupported("OP_NOPE"));
	g_assert_cmpuint(g_strv_length((GStrv)gnt_op_ids_ganeti), ==, 76);
	assert_invalid("{\"OP_ID\": \"OP_TEST_DELAY\"}",
		       "OP_TEST_DELAY: parameter 'duration' is required");
	assert_invalid("{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": null}",
		       "OP_TEST_DELAY: parameter 'duration' is required");
	assert_invalid("{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": \"1\"}",
		       "OP_TEST_DELAY: parameter 'duration' must be a number, not string");
	assert_invalid(
		"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": -1}",
		"OP_TEST_DELAY: parameter 'duration' must be between 0 and 31536000 seconds");
	assert_invalid(
		"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 1e308}",
		"OP_TEST_DELAY: parameter 'duration' must be between 0 and 31536000 seconds");
	assert_invalid(
		"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0, \"repeat\": 9223372036854775807}",
		"OP_TEST_DELAY: parameter 'repeat' must be between 0 and 1000");
	assert_invalid("{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 1, \"bogus\": 1}",
		       "OP_TEST_DELAY: unknown parameter 'bogus'");
	assert_invalid(
		"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 1, \"priority\": 5}",
		"OP_TEST_DELAY: parameter 'priority' must be one of -10, 0 or 10 at submission");
	assert_invalid("{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 1, \"on_nodes\": [1]}",
		       "OP_TEST_DELAY: parameter 'on_nodes' must be a list of strings, not list");
	assert_invalid(
		"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 1, \"depends\": [[1, [\"running\"]]]}",
		"OP_TEST_DELAY: parameter 'depends' entry 0: 'running' is not a final job status");
	assert_invalid("{\"OP_ID\": \"OP_TEST_DUMMY\", \"secret_value\": 42}",
		       "OP_TEST_DUMMY: parameter 'secret_value' must be a string, not integer");
}

/* An OP_INSTANCE_CREATE with @n_disks disks, @n_nics NICs and the tags
 * "t0".."t<n_tags-1>" (plus @extra_tag when given). */
static gchar *
create_op_json(guint n_disks, guint n_nics, guint n_tags, const gchar *extra_tag)
{
	GString *json = g_string_new("{\"OP_ID\": \"OP_INSTANCE_CREATE\", "
				     "\"instance_name\": \"i1.example.com\", "
				     "\"mode\": \"create\", \"disks\": [");

	for (guint i = 0; i < n_disks; i++)
		g_string_append_printf(json, "%s{\"size\": 1}", i > 0 ? ", " : "");
	g_string_append(json, "], \"nics\": [");
	for (guint i = 0; i < n_nics; i++)
		g_string_append_printf(json, "%s{}", i > 0 ? ", " : "");
	g_string_append(json, "], \"tags\": [");
	for (guint i = 0; i < n_tags; i++)
		g_string_append_printf(json, "%s\"t%u\"", i > 0 ? ", " : "", i);
	if (extra_tag != NULL)
		g_string_append_printf(json, "%s\"%s\"", n_tags > 0 ? ", " : "", extra_tag);
	g_string_append(json, "]}");
	return g_string_free(json, FALSE);
}

/* Ganeti's limits (gnt-limits.h), whatever the client: 16 disks, 8 NICs,
 * 4096 valid tags an object */
static void
test_limits(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *at_limits = create_op_json(16, 8, 4096, NULL);
	g_autofree gchar *disks = create_op_json(17, 1, 0, NULL);
	g_autofree gchar *nics = create_op_json(1, 9, 0, NULL);
	g_autofree gchar *tags = create_op_json(1, 1, 4097, NULL);
	g_autofree gchar *bad_tag = create_op_json(1, 1, 1, "no spaces");
	g_autofree gchar *long_tag_name = g_strnfill(129, 'x');
	g_autofree gchar *long_tag = create_op_json(1, 1, 0, long_tag_name);
	g_autoptr(GntOpcode) op = parse(at_limits, &error);

	g_assert_no_error(error);
	g_assert_nonnull(op);
	assert_invalid(disks, "OP_INSTANCE_CREATE: parameter 'disks' lists 17 disks; at most 16 "
			      "are allowed");
	assert_invalid(nics, "OP_INSTANCE_CREATE: parameter 'nics' lists 9 NICs; at most 8 are "
			     "allowed");
	assert_invalid(tags, "OP_INSTANCE_CREATE: parameter 'tags' lists 4097 tags; at most 4096 "
			     "are allowed");
	assert_invalid(bad_tag, "OP_INSTANCE_CREATE: parameter 'tags' Tag contains invalid "
				"characters: 'no spaces'");
	assert_invalid(long_tag, "OP_INSTANCE_CREATE: parameter 'tags' Tag too long (>128 "
				 "characters): 'xxxxxxxxxxxxxxxxxxxx...'");
	assert_invalid("{\"OP_ID\": \"OP_TAGS_SET\", \"kind\": \"cluster\", \"tags\": [\"\"]}",
		       "OP_TAGS_SET: parameter 'tags' Tags cannot be empty");
}

static void
test_secret_and_private(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) input = gnt_json_parse(
		"{\"OP_ID\": \"OP_TEST_DUMMY\", \"secret_value\": \"hunter2\", \"private_value\": \"pw\"}",
		-1, NULL);
	g_autoptr(GntOpcode) op = gnt_opcode_new_from_json(json_node_get_object(input), &error);
	g_autoptr(JsonObject) shown = gnt_opcode_to_json(op);
	g_autoptr(JsonObject) priv = gnt_opcode_dup_private(op);
	const GntSecret *secret = gnt_opcode_get_secret(op, "secret_value");
	g_autoptr(GntOpcode) reloaded = NULL;

	g_assert_no_error(error);
	g_assert_nonnull(secret);
	g_assert_cmpstr(gnt_secret_get(secret), ==, "hunter2");
	/* the request's copy is wiped once taken */
	g_assert_cmpstr(json_object_get_string_member(json_node_get_object(input), "secret_value"),
			!=, "hunter2");
	g_assert_null(gnt_opcode_get_param(op, "secret_value"));
	g_assert_cmpstr(json_object_get_string_member(shown, "secret_value"), ==, "<redacted>");
	g_assert_cmpstr(json_object_get_string_member(shown, "private_value"), ==, "<redacted>");
	g_assert_cmpstr(json_object_get_string_member(priv, "private_value"), ==, "pw");
	g_assert_cmpuint(json_object_get_size(priv), ==, 1);

	reloaded = gnt_opcode_new_from_store(shown, priv, &error);
	g_assert_no_error(error);
	g_assert_true(gnt_opcode_lost_secrets(reloaded));
	g_assert_false(gnt_opcode_has_secrets(reloaded));
	g_assert_cmpstr(gnt_opcode_get_string(reloaded, "private_value"), ==, "pw");

	gnt_opcode_forget_secrets(op);
	g_assert_null(gnt_opcode_get_secret(op, "secret_value"));
}

static void
test_depends_resolved(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOpcode) op = parse(
		"{\"OP_ID\": \"OP_TEST_DUMMY\", \"depends\": [[-2, []], [\"3\", [\"error\"]]]}",
		&error);
	g_autoptr(GntOpcode)
		bad = parse("{\"OP_ID\": \"OP_TEST_DUMMY\", \"depends\": [[-5, []]]}", &error);
	JsonArray *deps;

	g_assert_true(gnt_opcode_resolve_depends(op, 10, &error));
	deps = gnt_opcode_get_depends(op);
	g_assert_cmpint(json_array_get_int_element(json_array_get_array_element(deps, 0), 0), ==,
			8);
	g_assert_cmpint(json_array_get_int_element(json_array_get_array_element(deps, 1), 0), ==,
			3);
	g_assert_false(gnt_opcode_resolve_depends(bad, 3, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

/* Ganeti 3.0's OpClusterVerify as its client sends it (every field); the
 * error codes and optional checks are checked against the code table. */
static void
test_cluster_verify(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOpcode) op = parse(
		"{\"OP_ID\": \"OP_CLUSTER_VERIFY\", \"debug_simulate_errors\": false,"
		" \"error_codes\": true, \"skip_checks\": [\"nplusone_mem\"],"
		" \"ignore_errors\": [\"ENODEORPHANLV\", \"EEXTAGS\"], \"verbose\": false,"
		" \"group_name\": null, \"verify_clutter\": false, \"dry_run\": null,"
		" \"debug_level\": null, \"priority\": 0, \"depends\": null, \"comment\": null,"
		" \"reason\": []}",
		&error);

	g_assert_no_error(error);
	g_assert_true(gnt_opcode_get_bool(op, "error_codes"));
	assert_invalid("{\"OP_ID\": \"OP_CLUSTER_VERIFY\", \"ignore_errors\": [\"EBOGUS\"]}",
		       "OP_CLUSTER_VERIFY: parameter 'ignore_errors' 'EBOGUS' is not a cluster "
		       "verify error code");
	assert_invalid("{\"OP_ID\": \"OP_CLUSTER_VERIFY\", \"skip_checks\": [\"drbd\"]}",
		       "OP_CLUSTER_VERIFY: parameter 'skip_checks' 'drbd' is not an optional check "
		       "(nplusone_mem, hvparam_assessment)");
	assert_invalid("{\"OP_ID\": \"OP_CLUSTER_VERIFY_GROUP\"}",
		       "OP_CLUSTER_VERIFY_GROUP: parameter 'group_name' is required");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	gnt_opcode_register_table(&gnt_cmdlib_op_table); /* the real opcodes */
	g_test_add_func("/opcode/registered-table", test_registered_table);
	g_test_add_func("/opcode/every-opcode-has-its-unit", test_every_opcode_has_its_unit);
	g_test_add_func("/opcode/defaults-filled", test_defaults_filled);
	g_test_add_func("/opcode/python-client-shape", test_python_client_shape);
	g_test_add_func("/opcode/invalid", test_invalid);
	g_test_add_func("/opcode/limits", test_limits);
	g_test_add_func("/opcode/cluster-verify", test_cluster_verify);
	g_test_add_func("/opcode/secret-and-private", test_secret_and_private);
	g_test_add_func("/opcode/depends-resolved", test_depends_resolved);
	return g_test_run();
}
