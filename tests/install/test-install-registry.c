/*
 * The install step registry: the table's invariants, the listing, and
 * gnt_install_steps_validate() on good and bad templates, each refusal with
 * its message (the template, the row and step, the problem).
 */
#include <string.h>

#include "gnt-error.h"
#include "gnt-install-registry-private.h"
#include "gnt-json.h"

static void
test_table(void)
{
	guint n = 0;
	const GntInstallStepSpec *all = gnt_install_steps_get_all(&n);
	guint last_core = G_MAXUINT;
	gboolean core_done = FALSE;

	g_assert_cmpuint(n, >=, 10);
	for (guint i = 0; i < n; i++) {
		g_autofree gchar *name = g_strdup_printf("%s.%s", all[i].interface, all[i].step);

		g_assert_cmpstr(all[i].name, ==, name);
		g_assert_true(gnt_install_steps_lookup(name) == &all[i]);
		g_assert_nonnull(all[i].description);
		g_assert_cmpuint(all[i].default_priority, <=, GNT_INSTALL_PRIORITY_MAX);
		/* the core steps first, strictly by falling priority */
		if (gnt_install_step_is_core(&all[i])) {
			g_assert_false(core_done);
			g_assert_cmpuint(all[i].default_priority, <, last_core);
			last_core = all[i].default_priority;
			g_assert_cmpuint(all[i].n_args, ==, 0);
		} else {
			core_done = TRUE;
			g_assert_cmpuint(all[i].min_priority, >=, 1);
			g_assert_cmpuint(all[i].min_priority, <=, all[i].max_priority);
			g_assert_cmpuint(all[i].max_priority, <=, GNT_INSTALL_PRIORITY_MAX);
		}
		for (guint k = 0; k < all[i].n_args; k++)
			g_assert_nonnull(all[i].args[k].description);
	}
	g_assert_null(gnt_install_steps_lookup("deploy.nope"));
	g_assert_null(gnt_install_steps_lookup(NULL));
	g_assert_nonnull(gnt_install_steps_lookup("deploy.write_image"));
	g_assert_nonnull(gnt_install_steps_lookup("hypervisor.apply_settings"));
	g_assert_nonnull(gnt_install_steps_lookup("deploy.resize_disk"));
}

static void
test_list(void)
{
	g_autoptr(JsonArray) list = gnt_install_steps_list();
	g_autoptr(JsonNode) node = gnt_json_node_new_array(json_array_ref(list));
	g_autofree gchar *text = gnt_json_to_string(node);
	gboolean seen_resize = FALSE;

	for (guint i = 0; i < json_array_get_length(list); i++) {
		JsonObject *step = json_array_get_object_element(list, i);
		const gchar *name = json_object_get_string_member(step, "name");

		/* the test-only steps are not shown */
		g_assert_false(g_str_has_prefix(name, "test."));
		if (strcmp(name, "deploy.resize_disk") == 0) {
			JsonArray *args = json_object_get_array_member(step, "args");
			JsonObject *disk = json_array_get_object_element(args, 0);

			seen_resize = TRUE;
			g_assert_cmpint(json_object_get_int_member(step, "default_priority"), ==,
					0);
			g_assert_false(json_object_get_boolean_member(step, "core"));
			g_assert_cmpstr(json_object_get_string_member(disk, "name"), ==, "disk");
			g_assert_cmpstr(json_object_get_string_member(disk, "type"), ==, "integer");
			g_assert_true(json_object_get_boolean_member(disk, "required"));
			g_assert_cmpstr(json_object_get_string_member(step, "runs_on"), ==, "host");
		}
	}
	g_assert_true(seen_resize);
	g_assert_nonnull(strstr(text, "\"name\":\"deploy.write_image\""));
	g_assert_null(strstr(text, "test.fail"));
}

typedef struct {
	const gchar *name;
	const gchar *steps; /* JSON */
	const gchar *error; /* NULL: accepted; else a part of the message */
	gboolean allow_test;
} Case;

#define RESIZE(prio, args)                                                                         \
	"{\"interface\":\"deploy\",\"step\":\"resize_disk\",\"args\":" args ",\"priority\":" prio  \
	"}"

static const Case cases[] = {
	/* accepted */
	{"disable-core",
	 "[{\"interface\":\"deploy\",\"step\":\"write_image\",\"args\":{},"
	 "\"priority\":0}]",
	 NULL},
	{"resize", "[" RESIZE("90", "{\"disk\":0,\"size\":\"10G\"}") "]", NULL},
	{"resize-mib", "[" RESIZE("21", "{\"disk\":1,\"size\":2048}") "]", NULL},
	{"two-disks",
	 "[" RESIZE("90", "{\"disk\":0,\"size\":\"10G\"}") "," RESIZE(
		 "90", "{\"disk\":1,\"size\":\"10G\"}") "]",
	 NULL},
	{"hv",
	 "[{\"interface\":\"hypervisor\",\"step\":\"apply_settings\","
	 "\"args\":{\"hvparams\":{\"cpu_type\":\"host\"}},\"priority\":110}]",
	 NULL},
	{"test-allowed",
	 "[{\"interface\":\"test\",\"step\":\"note\",\"args\":{\"text\":\"x\"},"
	 "\"priority\":50}]",
	 NULL, TRUE},
	/* the list */
	{"empty", "[]", "template 'empty' has no steps"},
	{"not-object", "[3]", "template 'not-object', step 1: must be an object"},
	/* members */
	{"extra",
	 "[{\"interface\":\"deploy\",\"step\":\"write_image\",\"args\":{},"
	 "\"priority\":0,\"x\":1}]",
	 "template 'extra', step 1: unknown member 'x'"},
	{"no-args", "[{\"interface\":\"deploy\",\"step\":\"write_image\",\"priority\":0}]",
	 "template 'no-args', step 1: 'args' is missing (give {} for none)"},
	{"no-prio", "[{\"interface\":\"deploy\",\"step\":\"write_image\",\"args\":{}}]",
	 "template 'no-prio', step 1: 'priority' is missing"},
	{"iface-int", "[{\"interface\":1,\"step\":\"write_image\",\"args\":{},\"priority\":0}]",
	 "template 'iface-int', step 1: 'interface' must be a string, not integer"},
	{"args-array",
	 "[{\"interface\":\"deploy\",\"step\":\"write_image\",\"args\":[],"
	 "\"priority\":0}]",
	 "template 'args-array', step 1 (deploy.write_image): 'args' must be an object, not "
	 "list"},
	/* the step */
	{"unknown", "[{\"interface\":\"raid\",\"step\":\"create\",\"args\":{},\"priority\":10}]",
	 "template 'unknown', step 1: unknown install step 'raid.create'"},
	{"test-step",
	 "[{\"interface\":\"test\",\"step\":\"fail\",\"args\":{\"message\":\"m\"},"
	 "\"priority\":50}]",
	 "template 'test-step', step 1: unknown install step 'test.fail'"},
	/* priorities: -1, 2^63, "010", 1e3, 50 for a core step, above a range */
	{"prio-neg", "[" RESIZE("-1", "{\"disk\":0,\"size\":\"1G\"}") "]",
	 "template 'prio-neg', step 1 (deploy.resize_disk): priority -1 is out of range (0 or "
	 "21..99)"},
	{"prio-2-63", "[" RESIZE("9223372036854775808", "{\"disk\":0,\"size\":\"1G\"}") "]",
	 "template 'prio-2-63', step 1 (deploy.resize_disk): priority "},
	{"prio-string", "[" RESIZE("\"010\"", "{\"disk\":0,\"size\":\"1G\"}") "]",
	 "template 'prio-string', step 1 (deploy.resize_disk): priority \"010\" is not an "
	 "integer"},
	{"prio-double", "[" RESIZE("1e3", "{\"disk\":0,\"size\":\"1G\"}") "]",
	 "template 'prio-double', step 1 (deploy.resize_disk): priority 1000.0 is not an "
	 "integer"},
	{"prio-core",
	 "[{\"interface\":\"deploy\",\"step\":\"write_image\",\"args\":{},"
	 "\"priority\":50}]",
	 "template 'prio-core', step 1 (deploy.write_image): priority 50 not allowed: "
	 "deploy.write_image is a core step, which a template may only disable (priority 0)"},
	{"prio-band", "[" RESIZE("100", "{\"disk\":0,\"size\":\"1G\"}") "]",
	 "priority 100 is out of range (0 or 21..99)"},
	{"prio-max",
	 "[{\"interface\":\"hypervisor\",\"step\":\"apply_settings\","
	 "\"args\":{\"hvparams\":{\"cpu_type\":\"host\"}},\"priority\":1000}]",
	 "priority 1000 is out of range (0 or 21..999)"},
	/* arguments */
	{"arg-unknown", "[" RESIZE("90", "{\"disk\":0,\"size\":\"1G\",\"x\":1}") "]",
	 "template 'arg-unknown', step 1 (deploy.resize_disk): unknown argument 'x'"},
	{"arg-core",
	 "[{\"interface\":\"deploy\",\"step\":\"boot\",\"args\":{\"a\":1},"
	 "\"priority\":0}]",
	 "template 'arg-core', step 1 (deploy.boot): unknown argument 'a' (deploy.boot takes "
	 "none)"},
	{"arg-missing", "[" RESIZE("90", "{\"disk\":0}") "]",
	 "template 'arg-missing', step 1 (deploy.resize_disk): missing argument 'size'"},
	{"arg-type", "[" RESIZE("90", "{\"disk\":\"0\",\"size\":\"1G\"}") "]",
	 "template 'arg-type', step 1 (deploy.resize_disk): argument 'disk' must be an integer, "
	 "not string"},
	{"arg-range", "[" RESIZE("90", "{\"disk\":16,\"size\":\"1G\"}") "]",
	 "argument 'disk' 16 is out of range (0..15)"},
	{"arg-size", "[" RESIZE("90", "{\"disk\":0,\"size\":\"lots\"}") "]",
	 "template 'arg-size', step 1 (deploy.resize_disk): argument 'size' "},
	{"arg-size-zero", "[" RESIZE("90", "{\"disk\":0,\"size\":0}") "]",
	 "argument 'size' 0 MiB is out of range"},
	{"arg-size-bool", "[" RESIZE("90", "{\"disk\":0,\"size\":true}") "]",
	 "argument 'size' must be a size (MiB or a string with a unit), not boolean"},
	{"hv-unknown",
	 "[{\"interface\":\"hypervisor\",\"step\":\"apply_settings\","
	 "\"args\":{\"hvparams\":{\"vmx\":\"on\"}},\"priority\":90}]",
	 "template 'hv-unknown', step 1 (hypervisor.apply_settings): argument 'hvparams' 'vmx' "
	 "is not a parameter of any hypervisor"},
	{"hv-value",
	 "[{\"interface\":\"hypervisor\",\"step\":\"apply_settings\","
	 "\"args\":{\"hvparams\":{\"acpi\":\"maybe\"}},\"priority\":90}]",
	 "template 'hv-value', step 1 (hypervisor.apply_settings): argument 'hvparams' "},
	{"hv-empty",
	 "[{\"interface\":\"hypervisor\",\"step\":\"apply_settings\","
	 "\"args\":{\"hvparams\":{}},\"priority\":90}]",
	 "argument 'hvparams' must name at least one hypervisor parameter"},
	/* repeats */
	{"repeat",
	 "[" RESIZE("90", "{\"disk\":0,\"size\":\"1G\"}") "," RESIZE(
		 "80", "{\"disk\":0,\"size\":\"2G\"}") "]",
	 "template 'repeat', step 2 (deploy.resize_disk disk=0): repeats step 1"},
	{"repeat-core",
	 "[{\"interface\":\"deploy\",\"step\":\"boot\",\"args\":{},\"priority\":0},"
	 "{\"interface\":\"deploy\",\"step\":\"boot\",\"args\":{},\"priority\":0}]",
	 "template 'repeat-core', step 2 (deploy.boot): repeats step 1"},
};

static void
test_validate(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) node = gnt_json_parse(cases[i].steps, -1, &error);
		gboolean ok;

		g_assert_no_error(error);
		ok = gnt_install_steps_validate_full(cases[i].name, json_node_get_array(node),
						     cases[i].allow_test, &error);
		if (cases[i].error == NULL) {
			if (!ok)
				g_error("%s: %s", cases[i].name, error->message);
			continue;
		}
		if (ok)
			g_error("%s: accepted", cases[i].name);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		if (strstr(error->message, cases[i].error) == NULL)
			g_error("%s: '%s' lacks '%s'", cases[i].name, error->message,
				cases[i].error);
	}
}

/* Operators get no test steps, and too many rows are refused. */
static void
test_validate_public(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) many = json_array_new();

	for (guint i = 0; i <= GNT_INSTALL_TEMPLATE_MAX_STEPS; i++) {
		g_autoptr(GError) local = NULL;
		g_autofree gchar *text = g_strdup_printf(
			"{\"interface\":\"deploy\",\"step\":\"resize_disk\",\"args\":{\"disk\":%u,"
			"\"size\":\"1G\"},\"priority\":50}",
			i % 16);
		JsonNode *row = gnt_json_parse(text, -1, &local);

		g_assert_no_error(local);
		json_array_add_element(many, row);
	}
	g_assert_false(gnt_install_steps_validate("many", many, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "template 'many' has 65 steps, more than 64");
	g_clear_error(&error);
	g_assert_false(gnt_install_steps_validate("none", NULL, &error));
	g_assert_cmpstr(error->message, ==, "template 'none' has no steps");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/install/registry/table", test_table);
	g_test_add_func("/install/registry/list", test_list);
	g_test_add_func("/install/registry/validate", test_validate);
	g_test_add_func("/install/registry/validate-public", test_validate_public);
	return g_test_run();
}
