/* The node-RPC procedure table (rpc/gnt-rpc-procedures.h): every row is
 * valid, noded registers exactly the table's procedures, and what the
 * master's encoder writes for a row its decoder reads back, while bad
 * input is refused naming the argument. */
#include <string.h>

#include "gnt-error.h"
#include "gnt-join.h"
#include "gnt-json.h"
#include "gnt-rpc-procedures.h"
#include "fake-node.h"
#include "rpc-test-server.h"

static void
test_rows_valid(void)
{
	g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
	guint n = 0;

	for (const GntRpcProcedureDef *def = gnt_rpc_procedure_defs; def->name != NULL; def++) {
		g_autoptr(GError) error = NULL;

		g_assert_true(gnt_rpc_procedure_def_check(def, &error));
		g_assert_no_error(error);
		g_assert_true(g_hash_table_add(names, (gpointer)def->name));
		g_assert_true(gnt_rpc_procedure_def_lookup(def->name) == def);
		n++;
	}
	g_assert_cmpuint(n, >=, 30);
	g_assert_null(gnt_rpc_procedure_def_lookup("nope"));
}

static void
test_check_refuses(void)
{
	const GntRpcProcedureDef bad[] = {
		{.name = "Upper", .timeout_s = 1},
		{.name = "no_timeout"},
		{.name = "twice",
		 .timeout_s = 1,
		 .args = {{.name = "a", .type = GNT_RPC_ARG_BOOL},
			  {.name = "a", .type = GNT_RPC_ARG_BOOL}}},
		{.name = "no_max",
		 .timeout_s = 1,
		 .args = {{.name = "n", .type = GNT_RPC_ARG_UINT}}},
		{.name = "unmarked",
		 .timeout_s = 1,
		 .args = {{.name = "s", .type = GNT_RPC_ARG_SECRETS}}},
		{.name = "optional_first",
		 .timeout_s = 1,
		 .args = {{.name = "a", .type = GNT_RPC_ARG_BOOL, .optional = TRUE},
			  {.name = "b", .type = GNT_RPC_ARG_BOOL}}},
		{.name = "timeout_of_string",
		 .timeout_s = 1,
		 .timeout_arg = "s",
		 .args = {{.name = "s", .type = GNT_RPC_ARG_STRING}}},
		{.name = "timeout_of_nothing", .timeout_s = 1, .timeout_arg = "t"},
		{.name = "bad_type", .timeout_s = 1, .args = {{.name = "x", .type = 99}}},
	};
	const gchar *const needles[] = {
		"lower-case",	       "no timeout",
		"named twice",	       "maximum",
		"not marked secret",   "follows an optional",
		"no integer argument", "no integer argument",
		"no known type",
	};

	G_STATIC_ASSERT(G_N_ELEMENTS(bad) == G_N_ELEMENTS(needles));
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;

		g_assert_false(gnt_rpc_procedure_def_check(&bad[i], &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		assert_error_has(error, bad[i].name);
		assert_error_has(error, needles[i]);
	}
}

/* What noded registers, as gantry-noded does: the base procedures, the
 * instance ones, and the join endpoint of a master candidate. */
static void
test_noded_registers_every_row(void)
{
	g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func(g_free);
	GntPaths *paths = make_root(dirs, "node1");
	g_autoptr(GError) error = NULL;
	g_autoptr(GntRpcServer) server = gnt_rpc_server_new_from_paths(paths, &error);
	g_autoptr(GntRpcNode) node = NULL;
	g_autoptr(GntJoinAuthority) authority = NULL;
	g_auto(GStrv) registered = NULL;
	guint n_rows = 0;

	g_assert_no_error(error);
	gnt_rpc_node_add_procedures(server, paths);
	node = gnt_rpc_node_new(paths, NULL, &error);
	g_assert_no_error(error);
	gnt_rpc_node_add_instance_procedures(server, node);
	authority = gnt_join_authority_new(paths, &error);
	g_assert_no_error(error);
	gnt_join_authority_add_endpoint(authority, server);

	registered = gnt_rpc_server_dup_procedure_names(server);
	for (guint i = 0; registered[i] != NULL; i++) {
		if (gnt_rpc_procedure_def_lookup(registered[i]) == NULL)
			g_error("noded registers '%s', which has no row", registered[i]);
	}
	for (const GntRpcProcedureDef *def = gnt_rpc_procedure_defs; def->name != NULL; def++) {
		if (!g_strv_contains((const gchar *const *)registered, def->name))
			g_error("the table has '%s', which noded does not register", def->name);
		n_rows++;
	}
	g_assert_cmpuint(g_strv_length(registered), ==, n_rows);
	g_clear_object(&server);
	g_clear_pointer(&node, gnt_rpc_node_free);
	g_clear_pointer(&authority, gnt_join_authority_free);
	gnt_paths_free(paths);
	remove_dirs(g_steal_pointer(&dirs));
}

/* A value of @arg's type; the same for @index every time. */
static GntRpcValue
sample_value(const GntRpcArgDef *arg, guint index, JsonObject *obj, const GntSecretDict *secrets)
{
	static const gchar *const strv[] = {"a", "b", NULL};
	GntRpcValue value = {0};

	switch (arg->type) {
	case GNT_RPC_ARG_BOOL:
		value.b = index % 2 == 0;
		break;
	case GNT_RPC_ARG_UINT:
		value.u = MIN(arg->max, index + 1);
		break;
	case GNT_RPC_ARG_NUMBER:
		value.d = 0.5;
		break;
	case GNT_RPC_ARG_STRING:
	case GNT_RPC_ARG_STRING_OR_NULL:
		value.s = arg->name;
		break;
	case GNT_RPC_ARG_STRV:
		value.strv = strv;
		break;
	case GNT_RPC_ARG_OBJECT:
	case GNT_RPC_ARG_OBJECT_OR_NULL:
	case GNT_RPC_ARG_SPEC:
		value.obj = obj;
		break;
	case GNT_RPC_ARG_SECRETS:
		value.secrets = secrets;
		break;
	}
	return value;
}

/* Every row: sample values encoded by the master's side, sent, read back
 * the same through the node's typed getters. */
static void
test_encode_decode_every_row(void)
{
	g_autoptr(JsonObject) obj = json_object_new();
	g_autoptr(GntSecretDict) secrets = gnt_secret_dict_new();

	json_object_set_string_member(obj, "k", "v");
	gnt_secret_dict_set(secrets, "token", "s3cret");
	for (const GntRpcProcedureDef *def = gnt_rpc_procedure_defs; def->name != NULL; def++) {
		guint n = gnt_rpc_procedure_def_get_n_args(def);
		GntRpcValue values[GNT_RPC_MAX_ARGS];
		g_autoptr(JsonArray) array = NULL;
		g_autoptr(JsonNode) sent = NULL;
		g_autoptr(GntRpcArgs) args = NULL;
		g_autoptr(GError) error = NULL;

		for (guint i = 0; i < n; i++)
			values[i] = sample_value(&def->args[i], i, obj, secrets);
		array = gnt_rpc_args_encode(def, values, n);
		g_assert_cmpuint(json_array_get_length(array), ==, n);
		sent = fake_node_send(array, gnt_rpc_values_get_secrets(def, values, n), &error);
		g_assert_no_error(error);
		args = gnt_rpc_args_decode(def, json_node_get_array(sent), &error);
		g_assert_no_error(error);
		g_assert_true(gnt_rpc_args_get_def(args) == def);
		for (guint i = 0; i < n; i++) {
			const GntRpcArgDef *arg = &def->args[i];

			g_assert_true(gnt_rpc_args_has(args, arg->name));
			switch (arg->type) {
			case GNT_RPC_ARG_BOOL:
				g_assert_cmpint(gnt_rpc_args_get_bool(args, arg->name), ==,
						values[i].b);
				break;
			case GNT_RPC_ARG_UINT:
				g_assert_cmpuint(gnt_rpc_args_get_uint(args, arg->name), ==,
						 values[i].u);
				break;
			case GNT_RPC_ARG_NUMBER:
				g_assert_cmpfloat(gnt_rpc_args_get_number(args, arg->name), ==,
						  values[i].d);
				break;
			case GNT_RPC_ARG_STRING:
			case GNT_RPC_ARG_STRING_OR_NULL:
				g_assert_cmpstr(gnt_rpc_args_get_string(args, arg->name), ==,
						arg->name);
				break;
			case GNT_RPC_ARG_STRV:
				g_assert_cmpstrv(gnt_rpc_args_get_strv(args, arg->name),
						 values[i].strv);
				break;
			case GNT_RPC_ARG_OBJECT:
			case GNT_RPC_ARG_OBJECT_OR_NULL:
			case GNT_RPC_ARG_SPEC:
				g_assert_cmpstr(json_object_get_string_member(
							gnt_rpc_args_get_object(args, arg->name),
							"k"),
						==, "v");
				break;
			case GNT_RPC_ARG_SECRETS:
				/* filled in the request body only */
				g_assert_cmpstr(json_object_get_string_member(
							gnt_rpc_args_get_object(args, arg->name),
							"token"),
						==, "s3cret");
				break;
			}
		}
	}
}

static const GntRpcProcedureDef *
row(const gchar *name)
{
	const GntRpcProcedureDef *def = gnt_rpc_procedure_def_lookup(name);

	g_assert_nonnull(def);
	return def;
}

static void
assert_refused(const gchar *procedure, const gchar *json, const gchar *expected)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse(json, -1, &error);
	g_autoptr(GntRpcArgs) args = NULL;

	g_assert_no_error(error);
	args = gnt_rpc_args_decode(row(procedure), json_node_get_array(node), &error);
	g_assert_null(args);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, expected);
}

static void
test_decode_refuses(void)
{
	assert_refused("instance_start", "[{}]", "takes 2 arguments (spec, paused), not 1");
	assert_refused("instance_start", "[{}, 1]", "'paused' must be a boolean, not integer");
	assert_refused("instance_start", "[[], true]", "'spec' must be an object, not list");
	assert_refused("instance_shutdown", "[{}, -1]", "'timeout' must be 0 to 86400, not -1");
	assert_refused("instance_shutdown", "[{}, 86401]",
		       "'timeout' must be 0 to 86400, not 86401");
	assert_refused("instance_shutdown", "[{}, 1.5]",
		       "'timeout' must be an integer, not number");
	assert_refused("test_delay", "[\"soon\"]", "'duration' must be a number, not string");
	assert_refused("node_info", "[[\"kvm\", 3], {}]",
		       "'hypervisors' element 1 must be a string, not integer");
	assert_refused("node_info", "[\"kvm\", {}]",
		       "'hypervisors' must be a list of strings, not string");
	assert_refused("image_write", "[{}, \"i\", 5, \"t\"]",
		       "'sha256' must be a string or null, not integer");
	assert_refused("os_create", "[{}, [], 0]",
		       "'osparams_secret' must be an object or null, not list");
	assert_refused("os_create", "[{}, null]",
		       "takes 3 to 4 arguments (spec, osparams_secret, debug_level[, reinstall]), "
		       "not 2");
	assert_refused("export_list", "[1]", "takes 0 arguments (none), not 1");
}

/* An optional argument left out reads as absent; nulls read as NULL. */
static void
test_optional_and_null(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse("[{}, null, 3]", -1, &error);
	g_autoptr(GntRpcArgs) args = NULL;

	g_assert_no_error(error);
	args = gnt_rpc_args_decode(row("os_create"), json_node_get_array(node), &error);
	g_assert_no_error(error);
	g_assert_false(gnt_rpc_args_has(args, "reinstall"));
	g_assert_false(gnt_rpc_args_get_bool(args, "reinstall"));
	g_assert_null(gnt_rpc_args_get_object(args, "osparams_secret"));
	g_assert_cmpuint(gnt_rpc_args_get_uint(args, "debug_level"), ==, 3);
}

static void
test_timeouts(void)
{
	g_assert_cmpuint(gnt_rpc_procedure_def_get_timeout(row("instance_shutdown"),
							   GNT_RPC_VALUES({0}, {.u = 120})),
			 ==, 60 + 120);
	g_assert_cmpuint(
		gnt_rpc_procedure_def_get_timeout(row("instance_reboot"),
						  GNT_RPC_VALUES({0}, {.s = "full"}, {.u = 30})),
		==, 60 + 120 + 30);
	g_assert_cmpuint(gnt_rpc_procedure_def_get_timeout(row("os_create"), NULL, 0), ==, 3600);
	g_assert_true(gnt_rpc_procedure_def_has_secrets(row("os_create")));
	g_assert_true(gnt_rpc_procedure_def_has_secrets(row("metad_push")));
	g_assert_false(gnt_rpc_procedure_def_has_secrets(row("instance_start")));
	g_assert_true(row("join")->flags & GNT_RPC_PROCEDURE_PUBLIC);
}

/* doc/node-rpc.md describes every procedure of the table. */
static void
test_documented(void)
{
	g_autofree gchar *path = g_build_filename(g_getenv("GNT_TEST_DATA_DIR"), "..", "..", "doc",
						  "node-rpc.md", NULL);
	g_autofree gchar *text = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	g_assert_no_error(error);
	for (const GntRpcProcedureDef *def = gnt_rpc_procedure_defs; def->name != NULL; def++) {
		g_autofree gchar *quoted = g_strdup_printf("`%s`", def->name);

		if (strstr(text, quoted) == NULL)
			g_error("doc/node-rpc.md does not name procedure %s", quoted);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/rpc/procedures/rows-valid", test_rows_valid);
	g_test_add_func("/rpc/procedures/check-refuses", test_check_refuses);
	g_test_add_func("/rpc/procedures/noded-registers-every-row",
			test_noded_registers_every_row);
	g_test_add_func("/rpc/procedures/encode-decode-every-row", test_encode_decode_every_row);
	g_test_add_func("/rpc/procedures/decode-refuses", test_decode_refuses);
	g_test_add_func("/rpc/procedures/optional-and-null", test_optional_and_null);
	g_test_add_func("/rpc/procedures/timeouts", test_timeouts);
	g_test_add_func("/rpc/procedures/documented", test_documented);
	return g_test_run();
}
