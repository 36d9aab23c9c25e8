/* Where an install runs the OS's create script (install/gnt-install-where.h):
 * every combination of trust, safe install and the scripts an OS has, and
 * the refusals' messages. */
#include "gnt-error.h"
#include "gnt-install-where.h"
#include "gnt-json.h"

/* A definition as the master reads it from a node's os_diagnose. */
static GntOsDefinition *
os_new(const gchar *name, gboolean has_create, const gchar *untrusted_create)
{
	g_autoptr(JsonObject) obj = json_object_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = g_strdup_printf("/srv/ganeti/os/%s", name);
	GntOsDefinition *os;

	json_object_set_string_member(obj, "name", name);
	json_object_set_string_member(obj, "path", path);
	json_object_set_boolean_member(obj, "status", TRUE);
	json_object_set_string_member(obj, "diagnose", "");
	json_object_set_array_member(obj, "variants", json_array_new());
	json_object_set_array_member(obj, "parameters", json_array_new());
	json_object_set_array_member(obj, "api_versions", json_array_new());
	json_object_set_boolean_member(obj, "trusted", untrusted_create == NULL);
	json_object_set_boolean_member(obj, "create", has_create);
	if (untrusted_create != NULL)
		json_object_set_string_member(obj, "untrusted_create", untrusted_create);
	else
		json_object_set_null_member(obj, "untrusted_create");
	os = gnt_os_definition_from_json(obj, &error);
	g_assert_no_error(error);
	return os;
}

static const struct {
	gboolean has_create;
	const gchar *untrusted; /* relative, or NULL */
	gboolean trusted;
	gboolean safe;
	gboolean ok;
	GntInstallWhere where;
	const gchar *script; /* relative to the OS's path */
} cases[] = {
	/* safe install (the default): the appliance, the untrusted script first */
	{TRUE, NULL, FALSE, TRUE, TRUE, GNT_INSTALL_IN_APPLIANCE, "create"},
	{TRUE, NULL, TRUE, TRUE, TRUE, GNT_INSTALL_IN_APPLIANCE, "create"},
	{TRUE, "untrusted/create", FALSE, TRUE, TRUE, GNT_INSTALL_IN_APPLIANCE, "untrusted/create"},
	{TRUE, "create_untrusted", TRUE, TRUE, TRUE, GNT_INSTALL_IN_APPLIANCE, "create_untrusted"},
	{FALSE, "create_untrusted", FALSE, TRUE, TRUE, GNT_INSTALL_IN_APPLIANCE,
	 "create_untrusted"},
	/* safe install off: the host for a trusted OS with a create script */
	{TRUE, NULL, TRUE, FALSE, TRUE, GNT_INSTALL_ON_HOST, "create"},
	{TRUE, "untrusted/create", TRUE, FALSE, TRUE, GNT_INSTALL_ON_HOST, "create"},
	/* ... refused otherwise */
	{TRUE, NULL, FALSE, FALSE, FALSE, 0, NULL},
	{FALSE, "untrusted/create", TRUE, FALSE, FALSE, 0, NULL},
	{FALSE, "create_untrusted", FALSE, FALSE, FALSE, 0, NULL},
};

static void
test_decisions(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GntOsDefinition)
			os = os_new("deb", cases[i].has_create, cases[i].untrusted);
		g_autoptr(GError) error = NULL;
		g_autofree gchar *script = NULL;
		GntInstallWhere where = GNT_INSTALL_ON_HOST;
		gboolean ok = gnt_install_choose_where(os, "deb+bookworm", cases[i].trusted,
						       cases[i].safe, &where, &script, &error);

		g_test_message("case %u", i);
		g_assert_cmpint(ok, ==, cases[i].ok);
		if (!ok) {
			g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
			g_assert_null(script);
			continue;
		}
		g_assert_no_error(error);
		g_assert_cmpint(where, ==, cases[i].where);
		{
			g_autofree gchar *expected =
				g_build_filename("/srv/ganeti/os/deb", cases[i].script, NULL);
			g_assert_cmpstr(script, ==, expected);
		}
	}
}

static void
test_refusal_messages(void)
{
	g_autoptr(GntOsDefinition) plain = os_new("deb", TRUE, NULL);
	g_autoptr(GntOsDefinition) only_untrusted = os_new("img", FALSE, "untrusted/create");
	g_autoptr(GError) error = NULL;
	g_autofree gchar *script = NULL;
	GntInstallWhere where = GNT_INSTALL_IN_APPLIANCE;

	g_assert_false(gnt_install_choose_where(plain, "deb+bookworm", FALSE, FALSE, &where,
						&script, &error));
	g_assert_cmpstr(error->message, ==,
			"OS 'deb' is not trusted: it can only be installed inside the install "
			"appliance; mark it trusted with 'gnt-os modify --trusted yes deb' or "
			"leave safe install on");
	g_clear_error(&error);
	g_assert_false(gnt_install_choose_where(only_untrusted, "img", TRUE, FALSE, &where, &script,
						&error));
	g_assert_cmpstr(
		error->message, ==,
		"OS 'img' has only an untrusted create script ('untrusted/create'): it "
		"can only be installed inside the install appliance; leave safe install on");
	g_assert_cmpint(where, ==, GNT_INSTALL_IN_APPLIANCE); /* untouched */
	g_assert_cmpstr(gnt_install_where_to_string(GNT_INSTALL_ON_HOST), ==, "host");
	g_assert_cmpstr(gnt_install_where_to_string(GNT_INSTALL_IN_APPLIANCE), ==, "appliance");
}

static void
test_trusted_and_safe(void)
{
	g_autoptr(JsonNode) list = gnt_json_parse("[\"deb\", \"noop\"]", -1, NULL);
	g_autoptr(JsonObject) info = json_object_new();
	g_autoptr(JsonNode) yes = json_node_init_boolean(json_node_alloc(), TRUE);
	g_autoptr(JsonNode) no = json_node_init_boolean(json_node_alloc(), FALSE);
	g_autoptr(JsonNode) null = json_node_init_null(json_node_alloc());

	g_assert_true(gnt_install_os_is_trusted(json_node_get_array(list), "deb+bookworm"));
	g_assert_true(gnt_install_os_is_trusted(json_node_get_array(list), "noop"));
	g_assert_false(gnt_install_os_is_trusted(json_node_get_array(list), "debo"));
	g_assert_false(gnt_install_os_is_trusted(NULL, "deb"));

	/* the cluster's default is on, even without the setting */
	g_assert_true(gnt_install_safe_install_enabled(NULL, NULL));
	g_assert_true(gnt_install_safe_install_enabled(null, info));
	json_object_set_boolean_member(info, "enable_safe_install", FALSE);
	g_assert_false(gnt_install_safe_install_enabled(null, info));
	g_assert_true(gnt_install_safe_install_enabled(yes, info));
	json_object_set_boolean_member(info, "enable_safe_install", TRUE);
	g_assert_false(gnt_install_safe_install_enabled(no, info));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/install-where/decisions", test_decisions);
	g_test_add_func("/install-where/refusal-messages", test_refusal_messages);
	g_test_add_func("/install-where/trusted-and-safe", test_trusted_and_safe);
	return g_test_run();
}
