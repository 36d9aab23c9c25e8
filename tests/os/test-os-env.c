/* The environment of OS scripts, against Ganeti's OSEnvironment. */

#include <string.h>

#include "gnt-json.h"
#include "gnt-test-golden.h"
#include "gnt-os-env.h"
#include "os-test.h"

#define DISK0 "/srv/gantry/file-storage/inst1.example.com/disk0"

static GntOsDefinition *
load_os(const gchar *name)
{
	g_autofree gchar *dir = os_test_data_path("os-defs");
	GntOsDefinition *os = gnt_os_definition_read(dir, name);

	g_assert_true(os->valid);
	return os;
}

/*
 * The instance of the golden file: two disks (a file disk and one with a
 * URI only), two NICs (bridged and routed), filled hv/be parameters, and
 * parameters of all three kinds.
 */
static GntOsEnv *
golden_env(const GntOsDefinition *os)
{
	GntOsEnv *env = gnt_os_env_new(os, "sample+minimal", 1);
	const gchar *const secondaries[] = {"node-uuid-2", NULL};
	g_autoptr(GntOsDisk) disk0 = gnt_os_disk_new();
	g_autoptr(GntOsDisk) disk1 = gnt_os_disk_new();
	g_autoptr(GntOsNic) nic0 = gnt_os_nic_new();
	g_autoptr(GntOsNic) nic1 = gnt_os_nic_new();
	g_autoptr(GntSecret) token = gnt_secret_new("s3cr3t-token", -1);
	g_autoptr(JsonNode) hv = gnt_json_parse(
		"{\"serial_console\":true,\"disk_type\":\"paravirtual\",\"nic_type\":\"e1000\","
		"\"kernel_args\":\"ro\",\"cpu_cores\":0,\"vnc_bind_address\":null,"
		"\"cpu_mask\":\"all\",\"usb_devices\":[\"a\",\"b\"]}",
		-1, NULL);
	g_autoptr(JsonNode) be =
		gnt_json_parse("{\"maxmem\":1024,\"minmem\":512,\"vcpus\":2,\"auto_balance\":true,"
			       "\"always_failover\":false,\"spindle_use\":1}",
			       -1, NULL);

	gnt_os_env_set_instance(env, "inst1.example.com", "5f3b1c2e-inst", "kvm");
	gnt_os_env_set_times(env, 1700000000.5, 1700000100.0);
	gnt_os_env_set_nodes(env, "node-uuid-1", secondaries);
	gnt_os_env_set_hvparams(env, json_node_get_object(hv));
	gnt_os_env_set_beparams(env, json_node_get_object(be));

	disk0->path = g_strdup(DISK0);
	disk0->access = g_strdup("rw");
	disk0->uuid = g_strdup("d0-uuid");
	disk0->name = g_strdup("root");
	disk0->size_mib = 10240;
	disk0->backend_type = g_strdup("file:loop");
	disk1->uri = g_strdup("rbd:pool/vol1");
	disk1->access = g_strdup("ro");
	disk1->uuid = g_strdup("d1-uuid");
	disk1->size_mib = 512;
	disk1->backend_type = g_strdup("block");
	gnt_os_env_add_disk(env, disk0);
	gnt_os_env_add_disk(env, disk1);

	nic0->mac = g_strdup("aa:00:00:11:22:33");
	nic0->uuid = g_strdup("n0-uuid");
	nic0->name = g_strdup("eth0");
	nic0->ip = g_strdup("192.0.2.10");
	nic0->link = g_strdup("br0");
	nic1->mac = g_strdup("aa:00:00:44:55:66");
	nic1->uuid = g_strdup("n1-uuid");
	nic1->mode = GNT_NIC_MODE_ROUTED;
	nic1->link = g_strdup("rt100");
	gnt_os_env_add_nic(env, nic0);
	gnt_os_env_add_nic(env, nic1);

	gnt_os_env_set_param(env, "filesystem", "ext4");
	gnt_os_env_set_param(env, "root-size", "10G");
	gnt_os_env_set_param_private(env, "behaviour", "ok");
	gnt_os_env_set_param_secret(env, "secret.token", token);
	return env;
}

static gchar *
join_env(gchar **envp)
{
	g_autofree gchar *body = g_strjoinv("\n", envp);

	return g_strconcat(body, "\n", NULL);
}

static void
test_golden(void)
{
	g_autoptr(GntOsDefinition) os = load_os("sample");
	g_autoptr(GntOsEnv) env = golden_env(os);
	g_auto(GntOsEnvp) envp = gnt_os_env_build(env, GNT_OS_SCRIPT_CREATE, TRUE);
	g_autofree gchar *text = join_env(envp);
	g_autofree gchar *golden_path = gnt_test_golden_path("os-env-create.golden");
	g_autofree gchar *golden = NULL;
	g_autoptr(GError) error = NULL;

	gnt_test_golden_update("os-env-create.golden", text);
	g_assert_true(g_file_get_contents(golden_path, &golden, NULL, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(text, ==, golden);
}

static gboolean
envp_has(gchar **envp, const gchar *line)
{
	return g_strv_contains((const gchar *const *)envp, line);
}

static gboolean
envp_has_key(gchar **envp, const gchar *key)
{
	g_autofree gchar *prefix = g_strconcat(key, "=", NULL);

	for (guint i = 0; envp[i] != NULL; i++) {
		if (g_str_has_prefix(envp[i], prefix))
			return TRUE;
	}
	return FALSE;
}

static void
test_secrets(void)
{
	g_autoptr(GntOsDefinition) os = load_os("sample");
	g_autoptr(GntOsEnv) env = golden_env(os);
	g_auto(GntOsEnvp) plain = gnt_os_env_build(env, GNT_OS_SCRIPT_CREATE, FALSE);
	g_auto(GntOsEnvp) redacted = gnt_os_env_build(env, GNT_OS_SCRIPT_CREATE, TRUE);
	g_auto(GStrv) names = gnt_os_env_dup_param_names(env);
	const gchar *const expected_names[] = {"behaviour", "filesystem", "root-size",
					       "secret.token", NULL};

	/* the script sees every category the same way */
	g_assert_true(envp_has(plain, "OSP_SECRET_TOKEN=s3cr3t-token"));
	g_assert_true(envp_has(plain, "OSP_BEHAVIOUR=ok"));
	g_assert_true(envp_has(redacted, "OSP_SECRET_TOKEN=<redacted>"));
	g_assert_true(envp_has(redacted, "OSP_BEHAVIOUR=<redacted>"));
	g_assert_true(envp_has(redacted, "OSP_FILESYSTEM=ext4"));
	g_assert_true(g_strv_equal((const gchar *const *)names, expected_names));

	/* a name set again, in another category, replaces the value */
	gnt_os_env_set_param(env, "secret.token", "public-now");
	g_clear_pointer(&redacted, gnt_os_envp_free);
	redacted = gnt_os_env_build(env, GNT_OS_SCRIPT_CREATE, TRUE);
	g_assert_true(envp_has(redacted, "OSP_SECRET_TOKEN=public-now"));
}

static void
test_verify_core_only(void)
{
	g_autoptr(GntOsDefinition) os = load_os("sample");
	g_autoptr(GntOsEnv) env = golden_env(os);
	g_auto(GntOsEnvp) envp = gnt_os_env_build(env, GNT_OS_SCRIPT_VERIFY, TRUE);
	g_autofree gchar *text = join_env(envp);

	g_assert_cmpstr(text, ==,
			"DEBUG_LEVEL=1\n"
			"OSP_BEHAVIOUR=<redacted>\n"
			"OSP_FILESYSTEM=ext4\n"
			"OSP_ROOT_SIZE=10G\n"
			"OSP_SECRET_TOKEN=<redacted>\n"
			"OS_API_VERSION=20\n"
			"OS_NAME=sample\n"
			"OS_VARIANT=minimal\n"
			"PATH=/sbin:/bin:/usr/sbin:/usr/bin\n");
}

static void
test_script_extras(void)
{
	g_autoptr(GntOsDefinition) os = load_os("sample");
	g_autoptr(GntOsEnv) env = golden_env(os);
	g_auto(GntOsEnvp) create = NULL;
	g_auto(GntOsEnvp) rename = NULL;
	g_auto(GntOsEnvp) import = NULL;
	g_auto(GntOsEnvp) export = NULL;
	g_auto(GntOsEnvp) export1 = NULL;

	gnt_os_env_set_reinstall(env, TRUE);
	gnt_os_env_set_old_name(env, "old.example.com");
	gnt_os_env_set_disk_index(env, 0);
	gnt_os_env_set_extra(env, "EXP_SIZE_FD", "5");
	create = gnt_os_env_build(env, GNT_OS_SCRIPT_CREATE, TRUE);
	rename = gnt_os_env_build(env, GNT_OS_SCRIPT_RENAME, TRUE);
	import = gnt_os_env_build(env, GNT_OS_SCRIPT_IMPORT, TRUE);
	export = gnt_os_env_build(env, GNT_OS_SCRIPT_EXPORT, TRUE);

	g_assert_true(envp_has(create, "INSTANCE_REINSTALL=1"));
	g_assert_false(envp_has_key(create, "OLD_INSTANCE_NAME"));
	g_assert_false(envp_has_key(create, "IMPORT_DEVICE"));
	g_assert_true(envp_has(rename, "OLD_INSTANCE_NAME=old.example.com"));
	g_assert_true(envp_has(rename, "INSTANCE_NAME=inst1.example.com"));
	g_assert_false(envp_has_key(rename, "INSTANCE_REINSTALL"));
	g_assert_true(envp_has(import, "IMPORT_DEVICE=" DISK0));
	g_assert_true(envp_has(import, "IMPORT_DISK_PATH=" DISK0));
	g_assert_true(envp_has(import, "IMPORT_INDEX=0"));
	g_assert_false(envp_has_key(import, "IMPORT_DISK_URI"));
	g_assert_false(envp_has_key(import, "EXPORT_INDEX"));
	g_assert_true(envp_has(export, "EXPORT_DEVICE=" DISK0));
	g_assert_true(envp_has(export, "EXPORT_INDEX=0"));
	g_assert_true(envp_has(export, "EXP_SIZE_FD=5"));

	/* disk 1 has a URI only: no device, as in Ganeti */
	gnt_os_env_set_disk_index(env, 1);
	export1 = gnt_os_env_build(env, GNT_OS_SCRIPT_EXPORT, TRUE);
	g_assert_false(envp_has_key(export1, "EXPORT_DEVICE"));
	g_assert_true(envp_has(export1, "EXPORT_DISK_URI=rbd:pool/vol1"));
	g_assert_true(envp_has(export1, "EXPORT_INDEX=1"));
}

static void
test_minimal(void)
{
	/* API 10, no variants, nothing but a name: every unconditional
	 * variable is there, the conditional ones are not */
	g_autoptr(GntOsDefinition) os = load_os("api10");
	g_autoptr(GntOsEnv) env = gnt_os_env_new(os, "api10", 0);
	g_auto(GntOsEnvp) envp = NULL;
	g_autofree gchar *text = NULL;

	gnt_os_env_set_instance(env, "bare", NULL, NULL);
	envp = gnt_os_env_build(env, GNT_OS_SCRIPT_CREATE, FALSE);
	text = join_env(envp);
	g_assert_cmpstr(text, ==,
			"DEBUG_LEVEL=0\n"
			"DISK_COUNT=0\n"
			"HYPERVISOR=\n"
			"INSTANCE_CTIME=0.0\n"
			"INSTANCE_MTIME=0.0\n"
			"INSTANCE_NAME=bare\n"
			"INSTANCE_OS=api10\n"
			"INSTANCE_PRIMARY_NODE=\n"
			"INSTANCE_SECONDARY_NODES=\n"
			"INSTANCE_UUID=\n"
			"NIC_COUNT=0\n"
			"OS_API_VERSION=10\n"
			"OS_NAME=api10\n"
			"OS_VARIANT=\n"
			"PATH=/sbin:/bin:/usr/sbin:/usr/bin\n");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/os/env/golden", test_golden);
	g_test_add_func("/os/env/secrets", test_secrets);
	g_test_add_func("/os/env/verify-core-only", test_verify_core_only);
	g_test_add_func("/os/env/script-extras", test_script_extras);
	g_test_add_func("/os/env/minimal", test_minimal);
	return g_test_run();
}
