/* metad's side of the appliance's in-band steps (metadata/gnt-metadata-steps.h):
 * the session's queue, the agent's results and catalogue, each refusal; and
 * the catalogue the appliance carries (appliance/steps.json) is the one the
 * step registry lists. */
#include <string.h>

#include "gnt-error.h"
#include "gnt-install-registry.h"
#include "gnt-json.h"
#include "gnt-metadata-steps.h"
#include "gnt-metadata.h"

static GntMetadataSteps *
session_new(const gchar *json, GError **error)
{
	g_autoptr(JsonNode) node = gnt_json_parse(json, -1, NULL);

	g_assert_nonnull(node);
	return gnt_metadata_steps_new(json_node_get_array(node), error);
}

static GntMetadataStepResult *
result_new(const gchar *id, const gchar *status)
{
	g_autoptr(GError) error = NULL;
	GntMetadataStepResult *result =
		gnt_metadata_step_result_parse(id, status, "detail", "0", "out\n", 4, &error);

	g_assert_no_error(error);
	return result;
}

static void
test_session(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntMetadataSteps) steps =
		session_new("[{\"id\": \"T#1\", \"step\": \"echo\", \"args\": {\"text\": \"it's\", "
			    "\"n\": 3, \"Bad-Key\": 1}, \"timeout\": 60},"
			    "{\"id\": \"deploy.run_os_scripts\", \"step\": \"run_os_scripts\", "
			    "\"args\": {}, \"timeout\": 600}]",
			    &error);
	g_autoptr(GntMetadataStepResult) first = result_new("T#1", "done");
	g_autoptr(GntMetadataStepResult) second = result_new("deploy.run_os_scripts", "done");
	const gchar *step = NULL, *id = NULL;
	g_autofree gchar *next = NULL;
	g_autofree gchar *again = NULL;
	g_autofree gchar *last = NULL;
	g_autofree gchar *off = NULL;

	g_assert_no_error(error);
	/* a result before any step ran */
	g_assert_false(gnt_metadata_steps_take_result(steps, first, &step, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE);
	g_clear_error(&error);
	next = gnt_metadata_steps_next(steps, &step, &id);
	g_assert_cmpstr(step, ==, "echo");
	g_assert_cmpstr(id, ==, "T#1");
	g_assert_cmpstr(next, ==,
			"GANTRY_ACTION='run'\nGANTRY_STEP_ID='T#1'\nGANTRY_STEP_ID_QUERY='T%231'\n"
			"GANTRY_STEP='echo'\nGANTRY_STEP_TIMEOUT='60'\n"
			"GANTRY_STEP_ARGS='{\"text\":\"it'\\''s\",\"n\":3,\"Bad-Key\":1}'\n"
			"GANTRY_ARG_TEXT='it'\\''s'\nGANTRY_ARG_N='3'\n"
			"GANTRY_ARG_NAMES='GANTRY_ARG_TEXT GANTRY_ARG_N'\n");
	/* asked again before its result: the same step, not started again */
	again = gnt_metadata_steps_next(steps, &step, &id);
	g_assert_null(step);
	g_assert_cmpstr(again, ==, next);
	/* a result for another step */
	g_assert_false(gnt_metadata_steps_take_result(steps, second, &step, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE);
	g_clear_error(&error);
	g_assert_true(gnt_metadata_steps_take_result(steps, first, &step, &error));
	g_assert_cmpstr(step, ==, "echo");
	/* the same result twice */
	g_assert_false(gnt_metadata_steps_take_result(steps, first, &step, &error));
	g_clear_error(&error);
	last = gnt_metadata_steps_next(steps, &step, &id);
	g_assert_cmpstr(step, ==, "run_os_scripts");
	g_assert_true(gnt_metadata_steps_take_result(steps, second, &step, &error));
	off = gnt_metadata_steps_next(steps, &step, &id);
	g_assert_null(step);
	g_assert_cmpstr(off, ==, "GANTRY_ACTION='poweroff'\n");
}

static void
test_failed_powers_off(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntMetadataSteps) steps =
		session_new("[{\"id\": \"a\", \"step\": \"x\", \"args\": {}, \"timeout\": 1},"
			    "{\"id\": \"b\", \"step\": \"y\", \"args\": {}, \"timeout\": 1}]",
			    &error);
	g_autoptr(GntMetadataStepResult) failed = result_new("a", "failed");
	const gchar *step = NULL, *id = NULL;
	G_GNUC_UNUSED g_autofree gchar *first = gnt_metadata_steps_next(steps, &step, &id);
	g_autofree gchar *off = NULL;

	g_assert_true(gnt_metadata_steps_take_result(steps, failed, &step, &error));
	off = gnt_metadata_steps_next(steps, &step, &id);
	g_assert_null(step);
	g_assert_cmpstr(off, ==, "GANTRY_ACTION='poweroff'\n");
}

static void
test_session_refused(void)
{
	static const gchar *const bad[] = {
		"[1]",
		"[{\"id\": \"a\", \"step\": \"x\", \"args\": {}}]",
		"[{\"id\": \"\", \"step\": \"x\", \"args\": {}, \"timeout\": 1}]",
		"[{\"id\": \"a'b\", \"step\": \"x\", \"args\": {}, \"timeout\": 1}]",
		"[{\"id\": \"a b\", \"step\": \"x\", \"args\": {}, \"timeout\": 1}]",
		"[{\"id\": \"a\", \"step\": \"X\", \"args\": {}, \"timeout\": 1}]",
		"[{\"id\": \"a\", \"step\": \"x\", \"args\": [], \"timeout\": 1}]",
		"[{\"id\": \"a\", \"step\": \"x\", \"args\": {}, \"timeout\": 0}]",
		"[{\"id\": \"a\", \"step\": \"x\", \"args\": {}, \"timeout\": 86401}]",
	};

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GntMetadataSteps) steps = session_new(bad[i], &error);

		g_assert_null(steps);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_true(g_str_has_prefix(error->message, "install_steps item 0: "));
	}
}

static void
test_result(void)
{
	g_autofree gchar *big = g_malloc(GNT_METADATA_PROGRESS_OUTPUT_MAX + 10);
	g_autofree gchar *long_detail = g_strnfill(GNT_METADATA_PROGRESS_DETAIL_MAX + 1, 'x');
	g_autoptr(GntMetadataStepResult) result = NULL;
	g_autoptr(GError) error = NULL;
	static const struct {
		const gchar *id, *status, *reboot, *message;
	} bad[] = {
		{NULL, "done", "0", "'id' must be"},
		{"a", "ok", "0", "'status' must be done or failed"},
		{"a", NULL, "0", "'status' must be done or failed"},
		{"a", "done", "2", "'reboot' must be 0 or 1"},
	};

	/* the output's tail is kept, bounded; invalid UTF-8 made valid */
	memset(big, 'a', GNT_METADATA_PROGRESS_OUTPUT_MAX + 10);
	big[GNT_METADATA_PROGRESS_OUTPUT_MAX + 9] = 'z';
	big[0] = (gchar)0xff;
	result = gnt_metadata_step_result_parse("a", "failed", "why", "1", big,
						GNT_METADATA_PROGRESS_OUTPUT_MAX + 10, &error);
	g_assert_no_error(error);
	g_assert_false(result->ok);
	g_assert_true(result->reboot_requested);
	g_assert_cmpstr(result->detail, ==, "why");
	g_assert_cmpuint(strlen(result->output), ==, GNT_METADATA_PROGRESS_OUTPUT_MAX);
	g_assert_true(g_str_has_suffix(result->output, "az"));
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GntMetadataStepResult) refused = gnt_metadata_step_result_parse(
			bad[i].id, bad[i].status, NULL, bad[i].reboot, NULL, 0, &error);

		g_assert_null(refused);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_nonnull(strstr(error->message, bad[i].message));
		g_clear_error(&error);
	}
	g_assert_null(
		gnt_metadata_step_result_parse("a", "done", long_detail, NULL, NULL, 0, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

static void
test_data(void)
{
	static const gchar *const bad[] = {
		"[]", "{\"a\": {\"b\": 1}}", "{\"a\": 1.5}", "{\"A\": 1}", "{\"a\": null}", "{",
	};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *good =
		gnt_metadata_step_data_parse("{\"root_device\": \"/dev/md0\", \"n\": 2}", &error);
	g_autofree gchar *big = g_strnfill(GNT_METADATA_STEP_DATA_MAX + 1, ' ');

	g_assert_no_error(error);
	g_assert_cmpstr(good, ==, "{\"root_device\":\"/dev/md0\",\"n\":2}");
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autofree gchar *refused = gnt_metadata_step_data_parse(bad[i], &error);

		g_assert_null(refused);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_true(g_str_has_prefix(error->message, "step data: "));
		g_clear_error(&error);
	}
	g_assert_null(gnt_metadata_step_data_parse(big, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

static void
test_catalogue_refused(void)
{
	static const struct {
		const gchar *json, *message;
	} bad[] = {
		{"[]", "must be an object"},
		{"{\"version\": \"1\"}", "missing member 'steps'"},
		{"{\"version\": \"1\", \"steps\": [], \"x\": 1}", "unknown member 'x'"},
		{"{\"version\": \"1\", \"steps\": [{\"name\": \"a\", \"priority\": 40, \"args\": [], "
		 "\"reboot_requested\": false, \"for_operators\": true, \"core\": false, "
		 "\"description\": \"\"}]}",
		 "steps item 1: step 'a': 'priority' must be 41..99"},
		{"{\"version\": \"1\", \"steps\": [{\"name\": \"a\", \"priority\": 50, \"args\": "
		 "[{\"name\": \"n\", \"type\": \"float\", \"required\": true, \"identity\": false, "
		 "\"description\": \"\"}], \"reboot_requested\": false, \"for_operators\": true, "
		 "\"core\": false, \"description\": \"\"}]}",
		 "step 'a', argument 1: 'name' must be"},
		{"{\"version\": \"1\", \"steps\": [{\"name\": \"a\", \"priority\": 50, \"args\": [], "
		 "\"reboot_requested\": false, \"for_operators\": true, \"core\": false, "
		 "\"description\": \"\"}, {\"name\": \"a\", \"priority\": 50, \"args\": [], "
		 "\"reboot_requested\": false, \"for_operators\": true, \"core\": false, "
		 "\"description\": \"\"}]}",
		 "step 'a' is listed twice"},
		{"{\"version\": \"1\", \"steps\": [[[[[[[[[[]]]]]]]]]]}", "catalogue: "},
		/* the optional marks are booleans */
		{"{\"version\": \"1\", \"steps\": [{\"name\": \"a\", \"priority\": 50, \"args\": [], "
		 "\"reboot_requested\": false, \"for_operators\": true, \"core\": false, "
		 "\"storage\": \"yes\", \"description\": \"\"}]}",
		 "steps item 1: "},
		{"{\"version\": \"1\", \"steps\": [{\"name\": \"a\", \"priority\": 50, \"args\": [], "
		 "\"reboot_requested\": false, \"for_operators\": true, \"core\": false, "
		 "\"needs_vm\": 1, \"description\": \"\"}]}",
		 "steps item 1: 'needs_vm' must be a boolean"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonObject) catalogue =
			gnt_metadata_catalogue_parse(bad[i].json, strlen(bad[i].json), &error);

		g_assert_null(catalogue);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		if (strstr(error->message, bad[i].message) == NULL)
			g_error("'%s' lacks '%s'", error->message, bad[i].message);
	}
}

/* The appliance's catalogue parses with metad's parser, and every step of
 * it but the core ones is the registry's appliance.NAME with its arguments
 * and whether operators may use it. */
static void
test_catalogue_is_registry(void)
{
	g_autofree gchar *path = g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "..", "appliance",
						  "steps.json", NULL);
	g_autofree gchar *text = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) catalogue = NULL;
	JsonArray *steps;
	guint n_listed = 0;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	catalogue = gnt_metadata_catalogue_parse(text, strlen(text), &error);
	g_assert_no_error(error);
	steps = json_object_get_array_member(catalogue, "steps");
	for (guint i = 0; i < json_array_get_length(steps); i++) {
		JsonObject *step = json_array_get_object_element(steps, i);
		const gchar *name = json_object_get_string_member(step, "name");
		g_autofree gchar *full = g_strconcat("appliance.", name, NULL);
		const GntInstallStepSpec *spec = gnt_install_steps_lookup(full);
		JsonArray *args = json_object_get_array_member(step, "args");

		if (json_object_get_boolean_member(step, "core")) {
			g_autofree gchar *core = g_strconcat("deploy.", name, NULL);

			g_assert_null(spec);
			g_assert_nonnull(gnt_install_steps_lookup(core));
			continue;
		}
		g_assert_nonnull(spec);
		g_assert_cmpint(spec->runs_on, ==, GNT_INSTALL_RUNS_APPLIANCE);
		g_assert_cmpint(spec->for_operators, ==,
				json_object_get_boolean_member(step, "for_operators"));
		/* a storage step is one by its catalogue's "storage" (absent: not) */
		g_assert_cmpint(spec->storage, ==,
				json_object_get_boolean_member_with_default(step, "storage",
									    FALSE));
		/* likewise a step that needs the VM; every storage step does */
		g_assert_cmpint(spec->needs_vm, ==,
				json_object_get_boolean_member_with_default(step, "needs_vm",
									    FALSE));
		if (spec->storage)
			g_assert_true(spec->needs_vm);
		/* the tests' steps are not for operators */
		if (g_str_has_prefix(name, "test_"))
			g_assert_false(spec->for_operators);
		/* its own, and the timeout every in-band step takes */
		g_assert_cmpuint(spec->n_args, ==, json_array_get_length(args) + 1);
		g_assert_cmpstr(spec->args[spec->n_args - 1].name, ==,
				GNT_INSTALL_STEP_TIMEOUT_ARG);
		for (guint k = 0; k + 1 < spec->n_args; k++)
			g_assert_cmpstr(spec->args[k].name, ==,
					json_object_get_string_member(
						json_array_get_object_element(args, k), "name"));
		n_listed += spec->for_operators;
	}
	g_assert_cmpuint(n_listed, >, 0);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/metadata-steps/session", test_session);
	g_test_add_func("/metadata-steps/failed-powers-off", test_failed_powers_off);
	g_test_add_func("/metadata-steps/session-refused", test_session_refused);
	g_test_add_func("/metadata-steps/result", test_result);
	g_test_add_func("/metadata-steps/data", test_data);
	g_test_add_func("/metadata-steps/catalogue-refused", test_catalogue_refused);
	g_test_add_func("/metadata-steps/catalogue-is-registry", test_catalogue_is_registry);
	return g_test_run();
}
