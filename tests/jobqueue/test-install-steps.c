/*
 * The install pipeline's data (install/gnt-install-steps.h): the core steps
 * and their priorities, and the record's install member (doc/install.md).
 * The steps themselves run against real daemons in tests/system and
 * tests/tools.
 */
#include "gnt-install-registry.h"
#include "gnt-install-steps.h"
#include "gnt-json.h"

/* The architecture brief's core steps, highest priority first. */
/* the SHA-256 of "a\n" */
#define SHA256_A "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7"

static void
test_core_steps(void)
{
	static const struct {
		const gchar *name;
		guint priority;
	} expected[] = {
		{"deploy.prepare", 100},	{"deploy.write_image", 80},
		{"deploy.run_os_scripts", 70},	{"deploy.personalize", 65},
		{"deploy.prepare_boot", 60},	{"deploy.tear_down_appliance", 40},
		{"deploy.switch_networks", 30}, {"deploy.boot", 20},
	};
	guint n = 0;
	const GntInstallStepSpec *steps = gnt_install_steps_get_all(&n);

	g_assert_cmpuint(n, >, G_N_ELEMENTS(expected));
	for (guint i = 0; i < G_N_ELEMENTS(expected); i++) {
		g_assert_cmpstr(steps[i].name, ==, expected[i].name);
		g_assert_cmpuint(steps[i].default_priority, ==, expected[i].priority);
		g_assert_true(gnt_install_step_is_core(&steps[i]));
	}
	g_assert_false(gnt_install_step_is_core(&steps[G_N_ELEMENTS(expected)]));
	/* every registered step has its implementation, and no other is run */
	for (guint i = 0; i < n; i++)
		g_assert_true(gnt_install_has_action(steps[i].name));
	g_assert_false(gnt_install_has_action("deploy.nope"));
}

static JsonObject *
parse_object(const gchar *text)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse(text, -1, &error);

	g_assert_no_error(error);
	return json_object_ref(json_node_get_object(node));
}

static void
test_params(void)
{
	g_autoptr(JsonObject) hv = parse_object("{\"boot_order\": \"cdrom\"}");
	g_autoptr(JsonObject) record = json_object_new();
	g_autoptr(JsonObject) none = json_object_new();
	g_autoptr(JsonObject) shown = NULL;
	g_autoptr(JsonNode) shown_node = NULL;
	g_autofree gchar *text = NULL;

	/* a record without an install: mode run, no state, no image */
	g_assert_null(gnt_install_get(none));
	g_assert_cmpstr(gnt_install_get_mode(none), ==, GNT_INSTALL_MODE_RUN);
	g_assert_null(gnt_install_get_state(none));
	g_assert_null(gnt_install_get_os_image(none));
	g_assert_false(gnt_install_is_first_boot_pending(none));
	shown = gnt_install_dup_shown(none);
	shown_node = gnt_json_node_new_object(g_steal_pointer(&shown));
	text = gnt_json_to_string(shown_node);
	g_assert_cmpstr(text, ==, "{\"mode\":\"run\",\"state\":null}");

	/* new install parameters: "running" until the steps say otherwise; an
	 * empty image is none */
	json_object_set_object_member(record, "install",
				      gnt_install_params_new(GNT_INSTALL_MODE_SELF_INSTALL, hv));
	gnt_install_set_os_image(gnt_install_get(record), "", NULL);
	g_assert_cmpstr(gnt_install_get_mode(record), ==, GNT_INSTALL_MODE_SELF_INSTALL);
	g_assert_cmpstr(gnt_install_get_state(record), ==, GNT_INSTALL_STATE_RUNNING);
	g_assert_null(gnt_install_get_os_image(record));
	g_assert_false(gnt_install_is_first_boot_pending(record));
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(gnt_install_get(record), "hvparams"),
				"boot_order"),
			==, "cdrom");
	gnt_install_set_state(record, GNT_INSTALL_STATE_PENDING);
	g_assert_true(gnt_install_is_first_boot_pending(record));
	gnt_install_set_state(record, GNT_INSTALL_STATE_BOOTED);
	g_assert_false(gnt_install_is_first_boot_pending(record));

	/* run mode: never a first boot of its own */
	json_object_set_object_member(record, "install", gnt_install_params_new(NULL, NULL));
	gnt_install_set_os_image(gnt_install_get(record), "/srv/images/a.raw", SHA256_A);
	g_assert_cmpstr(gnt_install_get_mode(record), ==, GNT_INSTALL_MODE_RUN);
	g_assert_cmpstr(gnt_install_get_os_image(record), ==, "/srv/images/a.raw");
	g_assert_cmpstr(gnt_install_get_os_image_sha256(record), ==, SHA256_A);
	/* NULL keeps the image and its checksum; "" removes both */
	gnt_install_set_os_image(gnt_install_get(record), NULL, NULL);
	g_assert_cmpstr(gnt_install_get_os_image_sha256(record), ==, SHA256_A);
	gnt_install_set_os_image(gnt_install_get(record), "https://images.example.com/b.qcow2",
				 NULL);
	g_assert_null(gnt_install_get_os_image_sha256(record));
	gnt_install_set_os_image(gnt_install_get(record), "", NULL);
	g_assert_null(gnt_install_get_os_image(record));
	gnt_install_set_state(record, GNT_INSTALL_STATE_PENDING);
	g_assert_false(gnt_install_is_first_boot_pending(record));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/install-steps/core-steps", test_core_steps);
	g_test_add_func("/install-steps/params", test_params);
	return g_test_run();
}
