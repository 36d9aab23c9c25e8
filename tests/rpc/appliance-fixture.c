/* The appliance tests' fixture (appliance-fixture.h). */
#include "appliance-fixture.h"

#include <glib/gstdio.h>
#include <stdlib.h>

#include "gnt-error.h"
#include "gnt-node-calls.h"
#include "gnt-noded-appliance.h"

void
appl_set_up(ApplFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GDataInputStream) out = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *agent =
		g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "..", "appliance", "agent", NULL);

	test_node_start(&fx->node1, NULL);
	g_assert_true(gnt_paths_ensure_dirs(fx->node1.paths, &error));
	g_assert_no_error(error);
	fx->work = g_dir_make_tmp("gnt-appl-rpc-XXXXXX", &error);
	g_assert_no_error(error);
	g_ptr_array_add(fx->node1.dirs, g_strdup(fx->work));

	log = g_build_filename(fx->work, "metad.log", NULL);
	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE);
	g_subprocess_launcher_set_stderr_file_path(launcher, log);
	fx->metad = g_subprocess_launcher_spawn(launcher, &error, g_getenv("GNT_TEST_METAD"),
						"--root", gnt_paths_get_root(fx->node1.paths),
						"--foreground", "--print-socket", NULL);
	g_assert_no_error(error);
	out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(fx->metad));
	fx->control = g_data_input_stream_read_line_utf8(out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(fx->control); /* NULL: metad died; see its log */

	g_setenv(GNT_APPLIANCE_AGENT_ENV, agent, TRUE);
	fx->os_dir = g_build_filename(g_getenv("GNT_TEST_DATA_DIR"), "os-defs", NULL);
}

void
appl_tear_down(ApplFx *fx, gconstpointer data)
{
	/* metad first: it lives in the node's root */
	if (fx->metad != NULL)
		stop_noded(fx->metad);
	g_clear_object(&fx->metad);
	g_free(fx->control);
	g_free(fx->os_dir);
	g_free(fx->work);
	test_node_stop(&fx->node1);
	g_unsetenv(GNT_APPLIANCE_AGENT_ENV);
}

/* Instance @name's spec: one 8 MiB raw file disk, @hypervisor,
 * OS sample+default of tests/data/os-defs, the channel's NIC. */
JsonObject *
make_spec_for(ApplFx *fx, const gchar *name, const gchar *hypervisor, gboolean communication)
{
	g_autofree gchar *uuid = g_uuid_string_random();
	g_autofree gchar *disk_uuid = g_uuid_string_random();
	g_autofree gchar *text = g_strdup_printf(
		"{\"instance\": {\"name\": \"%s\", \"uuid\": \"%s\", \"primary_node\": \"node1-uuid\","
		" \"os\": \"sample+default\", \"hypervisor\": \"%s\", \"disk_template\": \"file\","
		" \"disks\": [{\"uuid\": \"%s\", \"name\": \"root\", \"size\": 8, \"mode\": \"rw\"}],"
		" \"nics\": [], \"osparams\": {\"filesystem\": \"ext4\"},"
		" \"communication\": %s,"
		" \"communication_nic\": {\"mac\": \"" MAC "\", \"ip\": \"" IP "\"}},"
		" \"hvparams\": {}, \"beparams\": {\"maxmem\": 128, \"vcpus\": 1},"
		" \"storage\": {\"volume_group_name\": null, \"file_storage_dir\": \"%s\"},"
		" \"os\": {\"search_path\": [\"%s\"]}}",
		name, uuid, hypervisor, disk_uuid, communication ? "true" : "false",
		fx->node1.file_dir, fx->os_dir);
	g_autoptr(JsonNode) root = gnt_json_parse(text, -1, NULL);
	g_autoptr(GError) error = NULL;
	JsonObject *spec;

	g_assert_nonnull(root);
	spec = json_object_ref(json_node_get_object(root));
	g_assert_true(
		gnt_node_call_blockdev_create(fx->node1.client, fx->node1.record, spec, &error));
	g_assert_no_error(error);
	return spec;
}

JsonObject *
make_spec(ApplFx *fx, const gchar *name, gboolean communication)
{
	return make_spec_for(fx, name, "fake", communication);
}

/* The options of appliance_run: the record with @script as the create
 * script and the package credentials among the secrets. */
JsonObject *
make_options(const gchar *name, const gchar *script, guint timeout_s)
{
	JsonObject *options = json_object_new();
	JsonObject *record = json_object_new();
	JsonObject *osparams = json_object_new();
	JsonObject *secrets = json_object_new();
	JsonObject *scripts = json_object_new();

	json_object_set_string_member(record, "name", name);
	json_object_set_string_member(record, "os", "sample+default");
	json_object_set_string_member(osparams, "filesystem", "ext4");
	json_object_set_string_member(secrets, "os-package-password", SECRET_VALUE);
	json_object_set_string_member(scripts, "create", script);
	json_object_set_object_member(record, "osparams", osparams);
	json_object_set_object_member(record, "osparams_secret", secrets);
	json_object_set_object_member(record, "os_scripts", scripts);
	json_object_set_object_member(options, "record", record);
	json_object_set_null_member(options, "package_url");
	json_object_set_null_member(options, "package_username");
	json_object_set_null_member(options, "package_password");
	json_object_set_int_member(options, "timeout", timeout_s);
	json_object_set_int_member(options, "debug", 0);
	return options;
}

/* Copies the built appliance GNT_TEST_APPLIANCE_DIR names to the node's
 * appliance directory; FALSE (the test skipped) when none is named. */
gboolean
install_real_appliance(ApplFx *fx)
{
	const gchar *source = g_getenv("GNT_TEST_APPLIANCE_DIR");
	g_autofree gchar *dir = NULL;
	g_autofree gchar *cmd = NULL;

	if (source == NULL) {
		g_test_skip("set GNT_TEST_APPLIANCE_DIR to a built appliance to boot it");
		return FALSE;
	}
	dir = gnt_rpc_node_dup_appliance_dir(fx->node1.rpc_node);
	cmd = g_strdup_printf("cp -r '%s' '%s'", source, dir);
	g_assert_cmpint(system(cmd), ==, 0);
	return TRUE;
}

/* make_options() with the session's in-band steps, a JSON array. */
JsonObject *
make_session_options(const gchar *name, const gchar *script, const gchar *steps_json)
{
	JsonObject *options = make_options(name, script, 120);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) steps = gnt_json_parse(steps_json, -1, &error);

	g_assert_no_error(error);
	json_object_set_array_member(options, "steps", json_array_ref(json_node_get_array(steps)));
	return options;
}
