/* hvparams: tables, validation, merging, JSON. */
#include <string.h>

#include "gnt-error.h"
#include "gnt-hv-params.h"
#include "gnt-json.h"

static GHashTable *
params_new(const gchar *first, ...) G_GNUC_NULL_TERMINATED;

/* name, value, name, value, ..., NULL */
static GHashTable *
params_new(const gchar *first, ...)
{
	GHashTable *params = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	va_list args;

	va_start(args, first);
	for (const gchar *name = first; name != NULL; name = va_arg(args, const gchar *))
		g_hash_table_insert(params, g_strdup(name), g_strdup(va_arg(args, const gchar *)));
	va_end(args);
	return params;
}

static void
test_names(void)
{
	g_autoptr(GError) error = NULL;

	g_assert_true(g_strv_contains(gnt_hv_list_names(), "kvm"));
	g_assert_true(g_strv_contains(gnt_hv_list_names(), "fake"));
	g_assert_true(gnt_hv_check_name("kvm", NULL));
	g_assert_false(gnt_hv_check_name("xen-pvm", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "'xen-pvm'"));
	g_assert_nonnull(strstr(error->message, "(known: kvm, fake)"));
	/* the fake hypervisor's appliance is the agent on the node */
	g_assert_true(gnt_hv_runs_appliance_on_host("fake"));
	g_assert_false(gnt_hv_runs_appliance_on_host("kvm"));
	g_assert_false(gnt_hv_runs_appliance_on_host("xen-pvm"));
	g_assert_false(gnt_hv_runs_appliance_on_host(NULL));
}

static void
test_kvm_table(void)
{
	static const gchar *const required[] = {
		"accel",      "kernel_path",	"initrd_path", "kernel_args",	  "root_path",
		"boot_order", "serial_console", "cpu_type",    "machine_version", "disk_cache",
		"nic_type",   "disk_type",	NULL};
	gsize n = 0;
	const GntHvParamSpec *specs = gnt_hv_params_get_specs("kvm", &n);

	g_assert_nonnull(specs);
	for (guint i = 0; required[i] != NULL; i++)
		g_assert_nonnull(gnt_hv_params_lookup("kvm", required[i]));
	g_assert_cmpstr(gnt_hv_params_lookup("kvm", "accel")->default_value, ==, "tcg");
	g_assert_cmpstr(gnt_hv_params_lookup("kvm", "firmware")->default_value, ==, "bios");
	g_assert_true(g_strv_contains(gnt_hv_params_lookup("kvm", "firmware")->choices, "uefi"));
	/* every default passes its own check; every parameter says what it does */
	for (gsize i = 0; i < n; i++) {
		g_autoptr(GHashTable) one = params_new(specs[i].name, specs[i].default_value, NULL);

		g_assert_true(gnt_hv_params_check("kvm", one, NULL));
		g_assert_true(specs[i].help != NULL && specs[i].help[0] != '\0');
	}
	/* the fake's one parameter, which it only records */
	g_assert_nonnull(gnt_hv_params_get_specs("fake", &n));
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpstr(gnt_hv_params_lookup("fake", "kernel_args")->default_value, ==, "ro");
	g_assert_null(gnt_hv_params_get_specs("nope", &n));
}

static void
test_refused(void)
{
	struct {
		const gchar *hv, *name, *value, *needle;
	} cases[] = {
		{"kvm", "bogus", "1", "unknown hypervisor parameter 'bogus'"},
		{"kvm", "accel", "hvf", "'accel' must be one of kvm, tcg, not 'hvf'"},
		{"kvm", "serial_console", "maybe", "'serial_console' must be true or false"},
		{"kvm", "kernel_path", "vmlinuz", "'kernel_path' must be an absolute path"},
		{"kvm", "serial_speed", "-5", "'serial_speed' must be a non-negative integer"},
		{"kvm", "boot_order", "floppy", "'boot_order' must be one of disk, cdrom, network"},
		{"kvm", "disk_cache", "unsafe", "'disk_cache'"},
		{"kvm", "nic_type", "virtio", "'nic_type'"},
		{"kvm", "disk_type", "virtio", "'disk_type'"},
		{"kvm", "firmware", "efi", "'firmware' must be one of bios, uefi, not 'efi'"},
		{"fake", "accel", "tcg",
		 "unknown hypervisor parameter 'accel' for hypervisor 'fake'"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GHashTable) params = params_new(cases[i].name, cases[i].value, NULL);
		g_autoptr(GError) error = NULL;
		g_autoptr(GHashTable) filled = NULL;

		g_assert_false(gnt_hv_params_check(cases[i].hv, params, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_nonnull(strstr(error->message, cases[i].needle));
		g_clear_error(&error);
		filled = gnt_hv_params_fill(cases[i].hv, NULL, params, &error);
		g_assert_null(filled);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	}
}

static void
test_fill(void)
{
	g_autoptr(GHashTable) cluster =
		params_new("kernel_args", "quiet", "accel", "kvm", "serial_console", "no", NULL);
	g_autoptr(GHashTable) instance = params_new("accel", "tcg", "acpi", "OFF", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GHashTable) filled = gnt_hv_params_fill("kvm", cluster, instance, &error);
	gsize n = 0;

	g_assert_no_error(error);
	gnt_hv_params_get_specs("kvm", &n);
	g_assert_cmpuint(g_hash_table_size(filled), ==, n);
	g_assert_cmpstr(g_hash_table_lookup(filled, "kernel_args"), ==, "quiet"); /* cluster */
	g_assert_cmpstr(g_hash_table_lookup(filled, "accel"), ==, "tcg"); /* instance wins */
	g_assert_cmpstr(g_hash_table_lookup(filled, "serial_console"), ==, "false");
	g_assert_cmpstr(g_hash_table_lookup(filled, "acpi"), ==, "false");
	g_assert_cmpstr(g_hash_table_lookup(filled, "root_path"), ==, "/dev/vda1"); /* default */
	g_assert_false(gnt_hv_params_get_bool(filled, "acpi"));
	g_assert_cmpuint(gnt_hv_params_get_uint(filled, "serial_speed"), ==, 38400);
	g_assert_cmpstr(gnt_hv_params_get_string(filled, "nope"), ==, "");
}

static void
test_fill_bad_cluster(void)
{
	g_autoptr(GHashTable) cluster = params_new("accel", "xen", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GHashTable) filled = gnt_hv_params_fill("kvm", cluster, NULL, &error);

	g_assert_null(filled);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_true(g_str_has_prefix(error->message, "cluster defaults: "));
}

static void
test_json(void)
{
	const gchar *text = "{\"serial_console\": false, \"serial_speed\": 115200, "
			    "\"kernel_path\": \"/boot/vmlinuz\", \"acpi\": \"yes\"}";
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse(text, -1, &error);
	g_autoptr(GHashTable) params = NULL;
	g_autoptr(GHashTable) filled = NULL;
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) out = NULL;
	g_autofree gchar *str = NULL;

	g_assert_no_error(error);
	params = gnt_hv_params_from_json("kvm", json_node_get_object(node), &error);
	g_assert_no_error(error);
	g_assert_cmpstr(g_hash_table_lookup(params, "serial_console"), ==, "false");
	g_assert_cmpstr(g_hash_table_lookup(params, "serial_speed"), ==, "115200");
	filled = gnt_hv_params_fill("kvm", NULL, params, &error);
	g_assert_no_error(error);
	g_hash_table_remove_all(filled);
	g_hash_table_insert(filled, g_strdup("serial_console"), g_strdup("false"));
	g_hash_table_insert(filled, g_strdup("serial_speed"), g_strdup("115200"));
	g_hash_table_insert(filled, g_strdup("acpi"), g_strdup("true"));
	json_builder_begin_object(builder);
	gnt_hv_params_to_json("kvm", filled, builder);
	json_builder_end_object(builder);
	out = json_builder_get_root(builder);
	str = gnt_json_to_string(out);
	g_assert_cmpstr(str, ==,
			"{\"acpi\":true,\"serial_console\":false,\"serial_speed\":115200}");
}

static void
test_json_refused(void)
{
	struct {
		const gchar *text, *needle;
	} cases[] = {
		{"{\"serial_speed\": 1.5}", "'serial_speed' must be a string, boolean or integer"},
		{"{\"kernel_args\": [\"a\"]}",
		 "'kernel_args' must be a string, boolean or integer"},
		{"{\"accel\": true}", "'accel' must be one of kvm, tcg, not 'true'"},
		{"{\"nope\": \"x\"}", "unknown hypervisor parameter 'nope'"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) node = gnt_json_parse(cases[i].text, -1, &error);
		g_autoptr(GHashTable) params = NULL;

		g_assert_no_error(error);
		params = gnt_hv_params_from_json("kvm", json_node_get_object(node), &error);
		g_assert_null(params);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_nonnull(strstr(error->message, cases[i].needle));
	}
}

/* doc/hypervisors.md has a row for every parameter of every table. */
static void
test_documented(void)
{
	g_autofree gchar *path =
		g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "..", "doc", "hypervisors.md", NULL);
	g_autofree gchar *text = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	g_assert_no_error(error);
	for (const gchar *const *hv = gnt_hv_list_names(); *hv != NULL; hv++) {
		gsize n = 0;
		const GntHvParamSpec *specs = gnt_hv_params_get_specs(*hv, &n);

		for (gsize i = 0; i < n; i++) {
			g_autofree gchar *row = g_strdup_printf("| `%s`", specs[i].name);

			if (strstr(text, row) == NULL)
				g_error("doc/hypervisors.md has no row for %s's parameter '%s'",
					*hv, specs[i].name);
		}
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/hv-params/names", test_names);
	g_test_add_func("/hv-params/kvm-table", test_kvm_table);
	g_test_add_func("/hv-params/refused", test_refused);
	g_test_add_func("/hv-params/fill", test_fill);
	g_test_add_func("/hv-params/fill-bad-cluster", test_fill_bad_cluster);
	g_test_add_func("/hv-params/json", test_json);
	g_test_add_func("/hv-params/json-refused", test_json_refused);
	g_test_add_func("/hv-params/documented", test_documented);
	return g_test_run();
}
