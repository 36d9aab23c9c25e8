/* Finding OS definitions and reading them as Ganeti does. */

#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-os-definition.h"
#include "os-test.h"

/* tests/data/os-defs, then tests/data/os-shadow */
static GStrv
test_search_path(void)
{
	GStrv path = g_new0(gchar *, 3);

	path[0] = os_test_data_path("os-defs");
	path[1] = os_test_data_path("os-shadow");
	return path;
}

static void
test_sample(void)
{
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) path = test_search_path();
	g_autoptr(GntOsDefinition)
		os = gnt_os_definition_find((const gchar *const *)path, "sample+minimal", &error);
	g_autofree gchar *dir = g_build_filename(path[0], "sample", NULL);
	const gchar *const variants[] = {"default", "minimal", NULL};
	const gchar *const params[] = {"filesystem", "root-size", "behaviour", "secret.token",
				       NULL};
	const gchar *const docs[] = {"The root filesystem: ext4 (default) or ext3",
				     "Size of the root partition",
				     "What the test scripts do: ok, fail, sleep or mkfs", "", NULL};

	g_assert_no_error(error);
	g_assert_true(os->valid);
	g_assert_cmpstr(os->name, ==, "sample");
	g_assert_cmpstr(os->path, ==, dir); /* the first directory wins */
	g_assert_cmpstr(os->diagnose, ==, "");
	g_assert_cmpuint(os->api_versions->len, ==, 3);
	g_assert_cmpint(g_array_index(os->api_versions, gint, 0), ==, 20);
	g_assert_cmpint(g_array_index(os->api_versions, gint, 2), ==, 10);
	g_assert_cmpuint(os->api_version, ==, 20);
	g_assert_true(g_strv_equal((const gchar *const *)os->variants, variants));
	g_assert_true(g_strv_equal((const gchar *const *)os->parameters, params));
	g_assert_true(g_strv_equal((const gchar *const *)os->parameter_docs, docs));
	g_assert_true(os->trusted);
	for (GntOsScript s = 0; s < GNT_OS_SCRIPT_LAST; s++) {
		g_autofree gchar *script = g_build_filename(dir, gnt_os_script_to_string(s), NULL);

		g_assert_cmpstr(os->scripts[s], ==, script);
	}
}

/* @diagnose with @PATH@ standing for the OS directory */
static void
assert_invalid(const gchar *name, const gchar *diagnose)
{
	g_autofree gchar *dir = os_test_data_path("os-defs");
	g_autofree gchar *path = g_build_filename(dir, name, NULL);
	g_auto(GStrv) parts = g_strsplit(diagnose, "@PATH@", -1);
	g_autofree gchar *expected = g_strjoinv(path, parts);
	g_autoptr(GntOsDefinition) os = gnt_os_definition_read(dir, name);

	g_assert_false(os->valid);
	g_assert_cmpstr(os->diagnose, ==, expected);
	g_assert_cmpuint(os->api_version, ==, 0);
	g_assert_cmpuint(os->api_versions->len, ==, 0);
	g_assert_null(os->variants[0]);
	g_assert_null(os->parameters[0]);
	g_assert_null(os->scripts[GNT_OS_SCRIPT_CREATE]);
}

static void
test_invalid(void)
{
	/* Ganeti's own messages, from _TryOSFromDisk and _OSOndiskAPIVersion */
	assert_invalid("missing-script", "File 'rename' under path '@PATH@' is missing (ENOENT)");
	assert_invalid("not-executable", "File 'rename' under path '@PATH@' is not executable");
	assert_invalid("bad-api", "API version(s) can't be converted to integer: invalid literal "
				  "for int() with base 10: 'twenty'");
	assert_invalid("old-api",
		       "API version mismatch for path '@PATH@': found [5], want [10, 15, 20].");
	assert_invalid("no-create",
		       "A create script (trusted or untrusted) under path '@PATH@' must exist");
	assert_invalid("does-not-exist",
		       "Directory for OS does-not-exist not found in search path");
}

static void
test_api_versions(void)
{
	g_autofree gchar *dir = os_test_data_path("os-defs");
	g_autoptr(GntOsDefinition) api10 = gnt_os_definition_read(dir, "api10");
	g_autoptr(GntOsDefinition) untrusted = gnt_os_definition_read(dir, "untrusted");

	/* below 15 variants.list is not read, below 20 there is no verify */
	g_assert_true(api10->valid);
	g_assert_cmpuint(api10->api_version, ==, 10);
	g_assert_null(api10->variants[0]);
	g_assert_null(api10->scripts[GNT_OS_SCRIPT_VERIFY]);
	g_assert_cmpstr(gnt_os_definition_get_variant(api10, "api10+x"), ==, "");

	/* create_untrusted alone makes a valid, untrusted OS */
	g_assert_true(untrusted->valid);
	g_assert_false(untrusted->trusted);
	g_assert_null(untrusted->scripts[GNT_OS_SCRIPT_CREATE]);
	g_assert_null(untrusted->parameters[0]);
}

static void
test_discover(void)
{
	g_auto(GStrv) path = test_search_path();
	g_autoptr(GPtrArray) all = gnt_os_definition_discover((const gchar *const *)path);
	const gchar *const names[] = {
		"api10",	  "bad-api", "extra",  "missing-script", "no-create",
		"not-executable", "old-api", "sample", "untrusted",	 NULL};
	const gboolean valid[] = {TRUE, FALSE, TRUE, FALSE, FALSE, FALSE, FALSE, TRUE, TRUE};

	g_assert_cmpuint(all->len, ==, G_N_ELEMENTS(names) - 1);
	for (guint i = 0; i < all->len; i++) {
		const GntOsDefinition *os = g_ptr_array_index(all, i);

		g_assert_cmpstr(os->name, ==, names[i]);
		g_assert_cmpint(os->valid, ==, valid[i]);
	}
	/* sample from os-defs (API 20), not the one os-shadow hides */
	g_assert_cmpuint(((GntOsDefinition *)g_ptr_array_index(all, 7))->api_version, ==, 20);
}

static void
test_find_errors(void)
{
	g_auto(GStrv) path = test_search_path();
	const gchar *const *sp = (const gchar *const *)path;
	GntOsDefinition *os;
	g_autoptr(GError) error = NULL;

	os = gnt_os_definition_find(sp, "nothing+x", &error);
	g_assert_null(os);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, "Directory for OS nothing not found in search path");
	g_clear_error(&error);

	os = gnt_os_definition_find(sp, "../os-defs", &error);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	os = gnt_os_definition_find(sp, "+variant", &error);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);

	/* an invalid definition found first is not skipped */
	os = gnt_os_definition_find(sp, "bad-api", &error);
	g_assert_null(os);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(strstr(error->message, "OS 'bad-api' is invalid: API version(s)"));
}

static void
test_variants(void)
{
	g_auto(GStrv) path = test_search_path();
	g_autoptr(GntOsDefinition)
		os = gnt_os_definition_find((const gchar *const *)path, "sample", NULL);
	g_autoptr(GntOsDefinition)
		plain = gnt_os_definition_find((const gchar *const *)path, "extra", NULL);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *name = NULL;
	g_autofree gchar *variant = NULL;

	gnt_os_split_name("debootstrap+bookworm+x", &name, &variant);
	g_assert_cmpstr(name, ==, "debootstrap");
	g_assert_cmpstr(variant, ==, "bookworm+x");

	g_assert_true(gnt_os_definition_check_variant(os, "sample+minimal", FALSE, &error));
	g_assert_no_error(error);
	g_assert_false(gnt_os_definition_check_variant(os, "sample", FALSE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "OS name 'sample' must include a variant");
	g_clear_error(&error);
	g_assert_false(gnt_os_definition_check_variant(os, "sample+bogus", FALSE, &error));
	g_assert_cmpstr(error->message, ==, "OS 'sample' does not support variant 'bogus'");
	g_clear_error(&error);
	g_assert_true(gnt_os_definition_check_variant(os, "sample+bogus", TRUE, &error));
	g_assert_true(gnt_os_definition_check_variant(os, "sample", TRUE, &error));
	g_assert_true(gnt_os_definition_check_variant(plain, "extra", FALSE, &error));
	g_assert_false(gnt_os_definition_check_variant(plain, "extra+x", FALSE, &error));
	g_assert_cmpstr(error->message, ==, "OS 'extra' does not support variants ('x' passed)");
	g_clear_error(&error);

	g_assert_cmpstr(gnt_os_definition_get_variant(os, "sample+minimal"), ==, "minimal");
	g_assert_cmpstr(gnt_os_definition_get_variant(os, "sample"), ==, "default");
	g_assert_cmpstr(gnt_os_definition_get_variant(plain, "extra"), ==, "");
}

static void
test_parameters(void)
{
	g_auto(GStrv) path = test_search_path();
	g_autoptr(GntOsDefinition)
		os = gnt_os_definition_find((const gchar *const *)path, "sample", NULL);
	g_autoptr(GntOsDefinition)
		api10 = gnt_os_definition_find((const gchar *const *)path, "api10", NULL);
	const gchar *const good[] = {"filesystem", "secret.token", NULL};
	const gchar *const bad[] = {"filesystem", "nope", "root_size", NULL};
	g_autoptr(GError) error = NULL;

	g_assert_true(gnt_os_definition_check_parameters(os, good, &error));
	g_assert_no_error(error);
	g_assert_false(gnt_os_definition_check_parameters(os, bad, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==,
			"The following parameters are not supported by the OS sample: nope, "
			"root_size");
	g_clear_error(&error);
	/* no parameters.list below API 20: anything goes */
	g_assert_true(gnt_os_definition_check_parameters(api10, bad, &error));
}

static void
test_json_round_trip(void)
{
	g_auto(GStrv) path = test_search_path();
	g_autoptr(GPtrArray) all = gnt_os_definition_discover((const gchar *const *)path);

	for (guint i = 0; i < all->len; i++) {
		const GntOsDefinition *os = g_ptr_array_index(all, i);
		g_autoptr(JsonObject) obj = gnt_os_definition_to_json(os);
		g_autoptr(JsonNode) node = gnt_json_node_new_object(json_object_ref(obj));
		g_autofree gchar *text = gnt_json_to_string(node);
		g_autoptr(GError) error = NULL;
		g_autoptr(GntOsDefinition) back = gnt_os_definition_from_json(obj, &error);
		g_autoptr(JsonObject) again = NULL;
		g_autoptr(JsonNode) again_node = NULL;
		g_autofree gchar *again_text = NULL;

		g_assert_no_error(error);
		g_assert_cmpstr(back->name, ==, os->name);
		g_assert_cmpuint(back->api_version, ==, os->api_version);
		again = gnt_os_definition_to_json(back);
		again_node = gnt_json_node_new_object(json_object_ref(again));
		again_text = gnt_json_to_string(again_node);
		g_assert_cmpstr(again_text, ==, text);
		if (g_strcmp0(os->name, "sample") == 0)
			g_assert_nonnull(
				strstr(text, "\"parameters\":[[\"filesystem\",\"The root"));
	}
}

static void
test_json_invalid(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse(
		"{\"name\":\"x\",\"path\":\"/x\",\"status\":true,\"diagnose\":\"\","
		"\"variants\":[],\"parameters\":[[\"a\"]],\"api_versions\":[20],\"trusted\":true}",
		-1, &error);
	GntOsDefinition *os;

	g_assert_no_error(error);
	os = gnt_os_definition_from_json(json_node_get_object(node), &error);
	g_assert_null(os);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "'parameters' element 0"));
}

/* An executable script @name (may contain a '/') under @dir. */
static void
write_script(const gchar *dir, const gchar *name)
{
	g_autofree gchar *file = g_build_filename(dir, name, NULL);
	g_autofree gchar *parent = g_path_get_dirname(file);
	g_autoptr(GError) error = NULL;

	g_assert_cmpint(g_mkdir_with_parents(parent, 0755), ==, 0);
	g_file_set_contents(file, "#!/bin/sh\nexit 0\n", -1, &error);
	g_assert_no_error(error);
	g_assert_cmpint(g_chmod(file, 0755), ==, 0);
}

/* Untrusted create scripts: Gantry's untrusted/create wins over Ganeti's
 * create_untrusted; either makes the OS untrusted; both survive the JSON
 * the node sends the master. */
static void
test_untrusted_create(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *root = g_dir_make_tmp("gnt-os-untrusted-XXXXXX", &error);
	g_autofree gchar *both = NULL;
	g_autofree gchar *defs = os_test_data_path("os-defs");
	g_autoptr(GntOsDefinition) os = NULL;
	g_autoptr(GntOsDefinition) ganeti = gnt_os_definition_read(defs, "untrusted");
	g_autoptr(GntOsDefinition) sample = gnt_os_definition_read(defs, "sample");
	g_autoptr(GntOsDefinition) back = NULL;
	g_autoptr(JsonObject) json = NULL;
	g_autofree gchar *path = NULL;
	g_autofree gchar *ganeti_path = NULL;
	g_autofree gchar *cmd = NULL;
	const gchar *const scripts[] = {"create", "untrusted/create", "create_untrusted",
					"import", "export",	      "rename",
					"verify"};

	g_assert_no_error(error);
	both = g_build_filename(root, "both", NULL);
	for (guint i = 0; i < G_N_ELEMENTS(scripts); i++)
		write_script(both, scripts[i]);
	{
		g_autofree gchar *api = g_build_filename(both, GNT_OS_API_FILE, NULL);
		g_autofree gchar *params = g_build_filename(both, GNT_OS_PARAMETERS_FILE, NULL);
		g_file_set_contents(api, "20\n", -1, &error);
		g_assert_no_error(error);
		g_file_set_contents(params, "", -1, &error);
		g_assert_no_error(error);
	}
	os = gnt_os_definition_read(root, "both");
	g_assert_true(os->valid);
	g_assert_false(os->trusted);
	g_assert_true(os->has_create);
	g_assert_cmpstr(os->untrusted_create, ==, GNT_OS_UNTRUSTED_CREATE);
	path = gnt_os_definition_get_untrusted_create(os);
	g_assert_true(g_str_has_suffix(path, "/both/untrusted/create"));

	/* Ganeti's spelling alone */
	g_assert_false(ganeti->has_create);
	g_assert_cmpstr(ganeti->untrusted_create, ==, GNT_OS_CREATE_UNTRUSTED);
	ganeti_path = gnt_os_definition_get_untrusted_create(ganeti);
	g_assert_true(g_str_has_suffix(ganeti_path, "/untrusted/create_untrusted"));
	/* none */
	g_assert_true(sample->has_create);
	g_assert_null(sample->untrusted_create);
	g_assert_null(gnt_os_definition_get_untrusted_create(sample));

	json = gnt_os_definition_to_json(os);
	back = gnt_os_definition_from_json(json, &error);
	g_assert_no_error(error);
	g_assert_true(back->has_create);
	g_assert_cmpstr(back->untrusted_create, ==, GNT_OS_UNTRUSTED_CREATE);
	json_object_set_string_member(json, "untrusted_create", "../create");
	g_clear_pointer(&back, gnt_os_definition_free);
	back = gnt_os_definition_from_json(json, &error);
	g_assert_null(back);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);

	cmd = g_strdup_printf("rm -rf '%s'", root);
	g_assert_cmpint(system(cmd), ==, 0);
}

/* The Debian packages ganeti-os-noop and ganeti-instance-debootstrap, found
 * along Ganeti's default search path. */
static void
test_debian(void)
{
	const gchar *const *path = gnt_os_get_default_search_path();
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOsDefinition) noop = NULL;
	g_autoptr(GntOsDefinition) debootstrap = NULL;
	const gchar *const filesystem[] = {"filesystem", NULL};

	g_assert_cmpstr(path[0], ==, "/srv/ganeti/os");
	g_assert_cmpstr(path[3], ==, "/usr/share/ganeti/os");
	g_assert_null(path[4]);
	if (!os_test_have_debian_packages())
		return;

	noop = gnt_os_definition_find(path, "noop", &error);
	g_assert_no_error(error);
	g_assert_true(noop->valid);
	g_assert_cmpuint(noop->api_versions->len, ==, 2); /* "5\n10" */
	g_assert_cmpint(g_array_index(noop->api_versions, gint, 0), ==, 5);
	g_assert_cmpuint(noop->api_version, ==, 10);
	g_assert_null(noop->variants[0]);
	g_assert_null(noop->parameters[0]);
	g_assert_null(noop->scripts[GNT_OS_SCRIPT_VERIFY]);
	g_assert_true(noop->trusted);

	debootstrap = gnt_os_definition_find(path, "debootstrap+default", &error);
	g_assert_no_error(error);
	g_assert_true(debootstrap->valid);
	g_assert_cmpuint(debootstrap->api_version, ==, 20);
	/* variants.list is a symlink into /etc/ganeti/instance-debootstrap */
	g_assert_true(g_strv_contains((const gchar *const *)debootstrap->variants, "default"));
	g_assert_true(g_strv_equal((const gchar *const *)debootstrap->parameters, filesystem));
	g_assert_true(g_str_has_prefix(debootstrap->parameter_docs[0], "The filesystem type"));
	g_assert_nonnull(debootstrap->scripts[GNT_OS_SCRIPT_VERIFY]);
	g_assert_true(
		gnt_os_definition_check_variant(debootstrap, "debootstrap+default", FALSE, &error));
	g_assert_false(gnt_os_definition_check_variant(debootstrap, "debootstrap", FALSE, &error));
	g_clear_error(&error);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/os/definition/sample", test_sample);
	g_test_add_func("/os/definition/invalid", test_invalid);
	g_test_add_func("/os/definition/api-versions", test_api_versions);
	g_test_add_func("/os/definition/discover", test_discover);
	g_test_add_func("/os/definition/find-errors", test_find_errors);
	g_test_add_func("/os/definition/variants", test_variants);
	g_test_add_func("/os/definition/parameters", test_parameters);
	g_test_add_func("/os/definition/json/round-trip", test_json_round_trip);
	g_test_add_func("/os/definition/json/invalid", test_json_invalid);
	g_test_add_func("/os/definition/untrusted-create", test_untrusted_create);
	g_test_add_func("/os/definition/debian", test_debian);
	return g_test_run();
}
