/* Effective parameters (config/gnt-config-fill.c): each level over the one
 * above it, in Ganeti's order, against golden values. */
#include <string.h>

#include "gnt-config-fill.h"
#include "gnt-error.h"

#include "config-test-json.h"

/* Cluster settings with kvm defaults, an os_hvp for "debian" and for
 * "debian+bookworm", BE defaults without spindle_use, OS and NIC defaults,
 * node parameters. */
#define SETTINGS                                                                                     \
	"{\"hvparams\": {\"kvm\": {\"kernel_args\": \"ro quiet\", \"acpi\": false},"                 \
	"                \"fake\": {\"kernel_args\": \"cluster\"}},"                                 \
	" \"os_hvp\": {\"debian\": {\"kvm\": {\"kernel_args\": \"base\"}},"                          \
	"              \"debian+bookworm\": {\"kvm\": {\"serial_speed\": 115200},"                   \
	"                                    \"fake\": {\"kernel_args\": \"variant\"}}},"            \
	" \"beparams\": {\"default\": {\"maxmem\": 512, \"vcpus\": 2, \"auto_balance\": true}},"     \
	" \"osparams\": {\"debian\": {\"mirror\": \"a\", \"suite\": \"x\"},"                         \
	"                \"debian+bookworm\": {\"suite\": \"bookworm\"}},"                           \
	" \"nicparams\": {\"default\": {\"mode\": \"bridged\", \"link\": \"br0\", \"vlan\": \"\"}}," \
	" \"ndparams\": {\"ssh_port\": 22, \"spindle_count\": 1}}"

static JsonObject *
object(JsonNode *node)
{
	return json_node_get_object(node);
}

/* gnt_fill_hvparams() of an instance (JSON text), compared with @expected
 * (only the members it names: the rest are the table's defaults). */
static void
assert_hv(const gchar *instance, gboolean skip_globals, const gchar *expected)
{
	g_autoptr(JsonNode) settings = test_json_parse(SETTINGS);
	g_autoptr(JsonNode) inst = test_json_parse(instance);
	g_autoptr(JsonNode) want = test_json_parse(expected);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject)
		got = gnt_fill_hvparams(object(settings), object(inst), skip_globals, &error);
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	g_assert_no_error(error);
	g_assert_nonnull(got);
	json_object_iter_init(&iter, object(want));
	while (json_object_iter_next(&iter, &key, &value)) {
		JsonNode *have = json_object_get_member(got, key);

		g_assert_nonnull(have);
		test_json_assert_equal(have, value);
	}
}

static void
test_hv_cluster_only(void)
{
	/* no os_hvp for this OS: the table's defaults, then the cluster's */
	assert_hv("{\"hypervisor\": \"kvm\", \"os\": \"ubuntu\"}", FALSE,
		  "{\"kernel_args\": \"ro quiet\", \"acpi\": false, \"serial_speed\": 38400,"
		  " \"root_path\": \"/dev/vda1\", \"accel\": \"tcg\"}");
	assert_hv("{\"hypervisor\": \"fake\", \"os\": \"ubuntu\"}", FALSE,
		  "{\"kernel_args\": \"cluster\"}");
}

static void
test_hv_os_hvp(void)
{
	/* the OS's own entry, looked up by the full name as Ganeti does */
	assert_hv("{\"hypervisor\": \"kvm\", \"os\": \"debian\"}", FALSE,
		  "{\"kernel_args\": \"base\", \"acpi\": false, \"serial_speed\": 38400}");
	/* with a variant: the variant's entry only, not the base name's */
	assert_hv("{\"hypervisor\": \"kvm\", \"os\": \"debian+bookworm\"}", FALSE,
		  "{\"kernel_args\": \"ro quiet\", \"acpi\": false, \"serial_speed\": 115200}");
	assert_hv("{\"hypervisor\": \"fake\", \"os\": \"debian+bookworm\"}", FALSE,
		  "{\"kernel_args\": \"variant\"}");
	/* another variant has no entry of its own */
	assert_hv("{\"hypervisor\": \"kvm\", \"os\": \"debian+trixie\"}", FALSE,
		  "{\"kernel_args\": \"ro quiet\", \"serial_speed\": 38400}");
}

static void
test_hv_instance_overrides(void)
{
	assert_hv("{\"hypervisor\": \"kvm\", \"os\": \"debian+bookworm\","
		  " \"hvparams\": {\"serial_speed\": \"9600\", \"acpi\": \"yes\"}}",
		  FALSE, "{\"kernel_args\": \"ro quiet\", \"acpi\": true, \"serial_speed\": 9600}");
	assert_hv("{\"hypervisor\": \"fake\", \"os\": \"debian\","
		  " \"hvparams\": {\"kernel_args\": \"mine\"}}",
		  FALSE, "{\"kernel_args\": \"mine\"}");
}

static void
test_hv_globals(void)
{
	g_autoptr(JsonNode) settings = test_json_parse(SETTINGS);
	g_autoptr(JsonNode) inst = test_json_parse(
		"{\"hypervisor\": \"fake\", \"hvparams\": {\"migration_mode\": \"live\"}}");
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject)
		shown = gnt_fill_hvparams(object(settings), object(inst), TRUE, &error);
	g_autoptr(JsonObject) sent = NULL;

	/* queries leave Ganeti's globals out before anything else */
	g_assert_no_error(error);
	g_assert_false(json_object_has_member(shown, "migration_mode"));
	g_assert_cmpstr(json_object_get_string_member(shown, "kernel_args"), ==, "cluster");
	/* a node gets them all, so a table without them refuses them */
	sent = gnt_fill_hvparams(object(settings), object(inst), FALSE, &error);
	g_assert_null(sent);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "migration_mode"));
}

static void
test_hv_refused(void)
{
	g_autoptr(JsonNode) settings = test_json_parse(
		"{\"hvparams\": {\"fake\": {}}, \"os_hvp\": {\"debian\": {\"fake\": {\"acpi\": true}}}}");
	g_autoptr(JsonNode)
		inst = test_json_parse("{\"hypervisor\": \"fake\", \"os\": \"debian\"}");
	g_autoptr(JsonNode) unknown = test_json_parse("{\"hypervisor\": \"xen\"}");
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) got = gnt_fill_hvparams(object(settings), object(inst), TRUE, &error);
	g_autoptr(JsonObject) none = NULL;

	/* a bad os_hvp entry is named, never passed on */
	g_assert_null(got);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "os_hvp of 'debian' for 'fake'"));
	g_assert_nonnull(strstr(error->message, "'acpi'"));
	g_clear_error(&error);
	none = gnt_fill_hvparams(object(settings), object(unknown), TRUE, &error);
	g_assert_null(none);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "xen"));
}

static void
test_be_defaults(void)
{
	g_autoptr(JsonNode) settings = test_json_parse(SETTINGS);
	g_autoptr(JsonNode) empty = test_json_parse("{}");
	g_autoptr(JsonNode)
		inst = test_json_parse("{\"beparams\": {\"vcpus\": 4, \"minmem\": 256}}");
	g_autoptr(JsonObject) cluster = gnt_fill_beparams(object(settings), object(inst));
	g_autoptr(JsonObject) bare = gnt_fill_beparams(object(empty), object(empty));
	g_autoptr(JsonNode) cluster_node = gnt_json_node_new_object(json_object_ref(cluster));
	g_autoptr(JsonNode) bare_node = gnt_json_node_new_object(json_object_ref(bare));
	g_autoptr(JsonNode) want = test_json_parse(
		"{\"maxmem\": 512, \"vcpus\": 4, \"auto_balance\": true, \"minmem\": 256,"
		" \"spindle_use\": 1}");

	/* the cluster's, the fallbacks for what it lacks, the instance's, in
	 * that order */
	test_json_assert_same(cluster_node, want);
	/* no cluster defaults at all: what every instance gets */
	test_json_assert_text(
		bare_node, "{\"maxmem\": 128, \"minmem\": 128, \"vcpus\": 1, \"spindle_use\": 1}");
}

static void
test_os_nic_nd(void)
{
	g_autoptr(JsonNode) settings = test_json_parse(SETTINGS);
	g_autoptr(JsonNode) own = test_json_parse("{\"mirror\": \"b\"}");
	g_autoptr(JsonNode) nic = test_json_parse("{\"nicparams\": {\"link\": \"br9\"}}");
	g_autoptr(JsonNode) group = test_json_parse("{\"ssh_port\": 2222}");
	g_autoptr(JsonNode) node = test_json_parse("{\"spindle_count\": 4}");
	g_autoptr(JsonNode) os = gnt_json_node_new_object(
		gnt_fill_osparams(object(settings), "debian+bookworm", object(own)));
	g_autoptr(JsonNode) os_base =
		gnt_json_node_new_object(gnt_fill_osparams(object(settings), "debian", NULL));
	g_autoptr(JsonNode)
		nicp = gnt_json_node_new_object(gnt_fill_nicparams(object(settings), object(nic)));
	g_autoptr(JsonNode) nd = gnt_json_node_new_object(
		gnt_fill_ndparams(object(settings), object(group), object(node)));

	/* SimpleFillOS: base name, then with variant, then the instance's */
	test_json_assert_text(os, "{\"mirror\": \"b\", \"suite\": \"bookworm\"}");
	test_json_assert_text(os_base, "{\"mirror\": \"a\", \"suite\": \"x\"}");
	test_json_assert_text(nicp, "{\"mode\": \"bridged\", \"link\": \"br9\", \"vlan\": \"\"}");
	test_json_assert_text(nd, "{\"ssh_port\": 2222, \"spindle_count\": 4}");
}

static void
test_ipolicy_diskparams(void)
{
	g_autoptr(JsonNode) base = test_json_parse(
		"{\"std\": {\"cpu-count\": 1, \"disk-count\": 1}, \"minmax\": [{\"min\": {}}],"
		" \"vcpu-ratio\": 4.0}");
	g_autoptr(JsonNode) custom = test_json_parse(
		"{\"std\": {\"cpu-count\": 2}, \"minmax\": [], \"vcpu-ratio\": 2.0}");
	g_autoptr(JsonNode)
		disk_base = test_json_parse("{\"plain\": {\"stripes\": 1}, \"file\": {}}");
	g_autoptr(JsonNode) disk_custom = test_json_parse("{\"plain\": {\"stripes\": 2}}");
	g_autoptr(JsonNode)
		ipolicy = gnt_json_node_new_object(gnt_fill_ipolicy(object(base), object(custom)));
	g_autoptr(JsonNode) diskparams = gnt_json_node_new_object(
		gnt_fill_diskparams(object(disk_base), object(disk_custom)));

	/* "std" merged key by key, the rest replaced whole */
	test_json_assert_text(ipolicy, "{\"std\": {\"cpu-count\": 2, \"disk-count\": 1},"
				       " \"minmax\": [], \"vcpu-ratio\": 2.0}");
	test_json_assert_text(diskparams, "{\"plain\": {\"stripes\": 2}, \"file\": {}}");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/config/fill/hv/cluster-only", test_hv_cluster_only);
	g_test_add_func("/config/fill/hv/os-hvp", test_hv_os_hvp);
	g_test_add_func("/config/fill/hv/instance-overrides", test_hv_instance_overrides);
	g_test_add_func("/config/fill/hv/globals", test_hv_globals);
	g_test_add_func("/config/fill/hv/refused", test_hv_refused);
	g_test_add_func("/config/fill/be/defaults", test_be_defaults);
	g_test_add_func("/config/fill/os-nic-nd", test_os_nic_nd);
	g_test_add_func("/config/fill/ipolicy-diskparams", test_ipolicy_diskparams);
	return g_test_run();
}
