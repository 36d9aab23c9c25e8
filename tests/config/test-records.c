/*
 * Typed records (config/gnt-records.h) and the instance spec
 * (config/gnt-instance-spec.h): golden round trips (tests/data/record-*.json,
 * instance-spec.json; GNT_TEST_UPDATE_GOLDEN=1 rewrites them), copies, the
 * enumerations' names, and bad input refused with the key named.
 */
#include "config-test-json.h"
#include "gnt-error.h"
#include "gnt-instance-spec.h"
#include "gnt-records.h"
#include "gnt-test-golden.h"

typedef JsonObject *(*ToJson)(gconstpointer record);
typedef gpointer (*FromJson)(JsonObject *obj, GError **error);

/* from_json, then to_json of the record and of its copy, each compared with
 * the golden text byte for byte. */
static void
assert_round_trip(const gchar *golden_name, FromJson from_json, ToJson to_json, GCopyFunc copy,
		  GDestroyNotify free_func)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) golden = test_json_load(golden_name);
	gpointer record = from_json(json_node_get_object(golden), &error);
	gpointer copy_record = NULL;
	g_autoptr(JsonNode) out = NULL;
	g_autoptr(JsonNode) copy_out = NULL;
	g_autofree gchar *text = NULL;
	g_autofree gchar *golden_text = NULL;
	g_autofree gchar *path = gnt_test_golden_path(golden_name);

	g_assert_no_error(error);
	g_assert_nonnull(record);
	out = gnt_json_node_new_object(to_json(record));
	text = test_json_golden_text(out);
	gnt_test_golden_update(golden_name, text);
	g_assert_true(g_file_get_contents(path, &golden_text, NULL, NULL));
	g_assert_cmpstr(text, ==, golden_text);

	copy_record = copy(record, NULL);
	free_func(record); /* the copy owns everything it has */
	copy_out = gnt_json_node_new_object(to_json(copy_record));
	test_json_assert_same(copy_out, out);
	free_func(copy_record);
}

static gpointer
instance_copy_func(gconstpointer src, gpointer data)
{
	return gnt_instance_copy(src);
}

static gpointer
node_copy_func(gconstpointer src, gpointer data)
{
	return gnt_node_copy(src);
}

static gpointer
spec_copy_func(gconstpointer src, gpointer data)
{
	g_autoptr(JsonObject) obj = gnt_instance_spec_to_json(src);

	return gnt_instance_spec_from_json(obj, NULL);
}

static void
test_instance_golden(void)
{
	assert_round_trip("record-instance.json", (FromJson)gnt_instance_from_json,
			  (ToJson)gnt_instance_to_json, instance_copy_func,
			  (GDestroyNotify)gnt_instance_free);
}

static void
test_node_golden(void)
{
	assert_round_trip("record-node.json", (FromJson)gnt_node_from_json,
			  (ToJson)gnt_node_to_json, node_copy_func, (GDestroyNotify)gnt_node_free);
}

static void
test_spec_golden(void)
{
	assert_round_trip("instance-spec.json", (FromJson)gnt_instance_spec_from_json,
			  (ToJson)gnt_instance_spec_to_json, spec_copy_func,
			  (GDestroyNotify)gnt_instance_spec_free);
}

/* The typed members hold what the golden file says. */
static void
test_instance_members(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) golden = test_json_load("record-instance.json");
	g_autoptr(GntInstance) inst = gnt_instance_from_json(json_node_get_object(golden), &error);
	GntDisk *disk0;
	GntNic *nic1;

	g_assert_no_error(error);
	g_assert_cmpint(inst->admin_state, ==, GNT_ADMIN_STATE_UP);
	g_assert_cmpint(inst->admin_state_source, ==, GNT_ADMIN_STATE_SOURCE_USER);
	g_assert_cmpint(inst->disk_template, ==, GNT_DISK_TEMPLATE_FILE);
	g_assert_cmpuint(inst->disks->len, ==, 2);
	disk0 = g_ptr_array_index(inst->disks, 0);
	g_assert_cmpint(disk0->size_mib, ==, 2048);
	g_assert_true(disk0->has_format);
	g_assert_cmpint(disk0->format, ==, GNT_DISK_FORMAT_QCOW2);
	g_assert_cmpint(((GntDisk *)g_ptr_array_index(inst->disks, 1))->mode, ==, GNT_DISK_MODE_RO);
	nic1 = g_ptr_array_index(inst->nics, 1);
	g_assert_true(nic1->has_mode);
	g_assert_cmpint(nic1->mode, ==, GNT_NIC_MODE_OPENVSWITCH);
	g_assert_cmpstr(nic1->vlan, ==, "100");
	g_assert_null(nic1->ip);
	g_assert_cmpint(inst->network_port, ==, 11000);
	g_assert_cmpstr(inst->communication_ip, ==, "169.254.1.7");
	g_assert_cmpuint(g_strv_length(inst->tags), ==, 2);
	g_assert_cmpint(json_object_get_int_member(inst->half_done, "job"), ==, 42);
}

/* A record as gnt-instance add builds it before storing it: no uuid yet,
 * no OS (an import), the optional members missing; unknown keys are
 * skipped. */
static void
test_instance_minimal(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode)
		in = test_json_parse("{\"name\": \"a\", \"primary_node\": \"n\", \"os\": null, "
				     "\"hypervisor\": \"fake\", \"future_key\": [1, 2]}");
	g_autoptr(GntInstance) inst = gnt_instance_from_json(json_node_get_object(in), &error);
	g_autoptr(JsonObject) out = NULL;

	g_assert_no_error(error);
	g_assert_null(inst->uuid);
	g_assert_null(inst->os);
	g_assert_cmpint(inst->admin_state, ==, GNT_ADMIN_STATE_DOWN);
	g_assert_cmpint(inst->disk_template, ==, GNT_DISK_TEMPLATE_DISKLESS);
	g_assert_cmpint(inst->network_port, ==, -1);
	g_assert_null(inst->ssh_keys);
	out = gnt_instance_to_json(inst);
	g_assert_false(json_object_has_member(out, "uuid"));
	g_assert_false(json_object_has_member(out, "future_key"));
	g_assert_false(json_object_has_member(out, "install"));
	g_assert_true(JSON_NODE_HOLDS_NULL(json_object_get_member(out, "network_port")));
	g_assert_cmpstr(json_object_get_string_member(out, "admin_state"), ==, "down");
}

/* Bad input: an error naming what is wrong, never a half record. */
static void
test_bad_records(void)
{
	static const struct {
		const gchar *json;
		const gchar *message;
	} cases[] = {
		{"{\"primary_node\": \"n\"}", "instance: 'name'"},
		{"{\"name\": \"a\", \"primary_node\": \"n\", \"os\": \"o\", \"hypervisor\": \"h\", "
		 "\"admin_state\": \"sideways\"}",
		 "instance 'a': 'admin_state': unknown admin state 'sideways' (known: up, down, "
		 "offline)"},
		{"{\"name\": \"a\", \"primary_node\": \"n\", \"os\": \"o\", \"hypervisor\": \"h\", "
		 "\"disk_template\": \"drbd\"}",
		 "unknown disk template 'drbd' (known: diskless, file, plain)"},
		{"{\"name\": \"a\", \"primary_node\": \"n\", \"os\": \"o\", \"hypervisor\": \"h\", "
		 "\"disks\": [{\"uuid\": \"d\", \"size\": 0}]}",
		 "instance 'a': disk 0: 'size' must be positive, not 0"},
		{"{\"name\": \"a\", \"primary_node\": \"n\", \"os\": \"o\", \"hypervisor\": \"h\", "
		 "\"disks\": [{\"uuid\": \"d\", \"size\": 1, \"mode\": \"rx\"}]}",
		 "disk 0: 'mode': unknown disk mode 'rx' (known: rw, ro)"},
		{"{\"name\": \"a\", \"primary_node\": \"n\", \"os\": \"o\", \"hypervisor\": \"h\", "
		 "\"nics\": [{\"uuid\": \"x\", \"mac\": \"m\", \"nicparams\": {\"mode\": \"nat\"}}]}",
		 "nic 0: 'mode': unknown nic mode 'nat' (known: bridged, routed, openvswitch)"},
		{"{\"name\": \"a\", \"primary_node\": \"n\", \"os\": \"o\", \"hypervisor\": \"h\", "
		 "\"tags\": [\"ok\", 3]}",
		 "element 1 of 'tags'"},
		{"{\"name\": \"a\", \"primary_node\": \"n\", \"os\": \"o\", \"hypervisor\": \"h\", "
		 "\"hvparams\": []}",
		 "instance 'a': 'hvparams'"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) in = test_json_parse(cases[i].json);
		g_autoptr(GntInstance)
			inst = gnt_instance_from_json(json_node_get_object(in), &error);

		g_assert_null(inst);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		if (strstr(error->message, cases[i].message) == NULL)
			g_error("case %u: '%s' lacks '%s'", i, error->message, cases[i].message);
	}
}

static void
test_bad_node(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode)
		in = test_json_parse("{\"uuid\": \"u\", \"name\": \"n1\", "
				     "\"primary_ip\": \"192.0.2.1\", \"rpc_port\": 70000}");
	g_autoptr(GntNode) node = gnt_node_from_json(json_node_get_object(in), &error);

	g_assert_null(node);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "node 'n1': 'rpc_port' must be 0 to 65535, not 70000");
}

/* Every name of every enumeration reads back as its value; others fail. */
static void
test_enum_names(void)
{
	g_autoptr(GError) error = NULL;

	for (guint i = 0; i < GNT_ADMIN_STATE_LAST; i++) {
		GntAdminState value = GNT_ADMIN_STATE_LAST;

		g_assert_true(
			gnt_admin_state_from_string(gnt_admin_state_to_string(i), &value, NULL));
		g_assert_cmpuint(value, ==, i);
	}
	for (guint i = 0; i < GNT_DISK_TEMPLATE_LAST; i++) {
		GntDiskTemplate value = GNT_DISK_TEMPLATE_LAST;

		g_assert_true(gnt_disk_template_from_string(gnt_disk_template_to_string(i), &value,
							    NULL));
		g_assert_cmpuint(value, ==, i);
	}
	for (guint i = 0; i < GNT_NIC_MODE_LAST; i++) {
		GntNicMode value = GNT_NIC_MODE_LAST;

		g_assert_true(gnt_nic_mode_from_string(gnt_nic_mode_to_string(i), &value, NULL));
		g_assert_cmpuint(value, ==, i);
	}
	g_assert_cmpstr(gnt_admin_state_source_to_string(GNT_ADMIN_STATE_SOURCE_USER), ==, "user");
	g_assert_cmpstr(gnt_disk_mode_to_string(GNT_DISK_MODE_RO), ==, "ro");
	g_assert_cmpstr(gnt_disk_format_to_string(GNT_DISK_FORMAT_QCOW2), ==, "qcow2");
	{
		GntAdminState value = GNT_ADMIN_STATE_UP;

		g_assert_false(gnt_admin_state_from_string("UP", &value, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_cmpint(value, ==, GNT_ADMIN_STATE_UP); /* unchanged */
	}
}

/* JSON records read through the enums: the value, or the default for a
 * missing member or an unknown name. */
static void
test_record_getters(void)
{
	g_autoptr(JsonNode) full =
		test_json_parse("{\"admin_state\": \"offline\", \"admin_state_source\": \"user\", "
				"\"disk_template\": \"plain\"}");
	g_autoptr(JsonNode)
		odd = test_json_parse("{\"admin_state\": \"sideways\", \"admin_state_source\": 3, "
				      "\"disk_template\": \"drbd\"}");
	g_autoptr(JsonNode) empty = test_json_parse("{}");

	g_assert_cmpint(gnt_record_get_admin_state(json_node_get_object(full)), ==,
			GNT_ADMIN_STATE_OFFLINE);
	g_assert_cmpint(gnt_record_get_admin_state_source(json_node_get_object(full)), ==,
			GNT_ADMIN_STATE_SOURCE_USER);
	g_assert_cmpint(gnt_record_get_disk_template(json_node_get_object(full)), ==,
			GNT_DISK_TEMPLATE_PLAIN);
	for (guint i = 0; i < 2; i++) {
		JsonObject *obj = json_node_get_object(i == 0 ? odd : empty);

		g_assert_cmpint(gnt_record_get_admin_state(obj), ==, GNT_ADMIN_STATE_DOWN);
		g_assert_cmpint(gnt_record_get_admin_state_source(obj), ==,
				GNT_ADMIN_STATE_SOURCE_ADMIN);
		g_assert_cmpint(gnt_record_get_disk_template(obj), ==, GNT_DISK_TEMPLATE_DISKLESS);
	}
}

/* A node's flags: the stored boolean, else (missing, null, not a boolean)
 * what the caller says a missing one means. */
static void
test_record_flags(void)
{
	g_autoptr(JsonNode) node = test_json_parse(
		"{\"offline\": true, \"drained\": false, \"vm_capable\": null, \"master_capable\": 1}");
	JsonObject *obj = json_node_get_object(node);

	g_assert_true(gnt_record_get_flag(obj, "offline", FALSE));
	g_assert_false(gnt_record_get_flag(obj, "drained", TRUE));
	g_assert_true(gnt_record_get_flag(obj, "vm_capable", TRUE));
	g_assert_false(gnt_record_get_flag(obj, "master_capable", FALSE));
	g_assert_false(gnt_record_get_flag(obj, "master_candidate", FALSE));
	g_assert_true(gnt_record_get_flag(obj, "master_candidate", TRUE));
}

/* The decoder refuses what noded cannot use, naming the instance. */
static void
test_spec_bad(void)
{
	g_autoptr(JsonNode) golden = test_json_load("instance-spec.json");
	static const gchar *const drop[] = {"beparams", "storage", "hvparams"};

	for (guint i = 0; i < G_N_ELEMENTS(drop); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) copy = gnt_json_node_deep_copy(golden);
		g_autoptr(GntInstanceSpec) spec = NULL;
		g_autofree gchar *expected =
			g_strdup_printf("instance spec of 'web1.example.com': '%s'", drop[i]);

		json_object_remove_member(json_node_get_object(copy), drop[i]);
		spec = gnt_instance_spec_from_json(json_node_get_object(copy), &error);
		g_assert_null(spec);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		if (!g_str_has_prefix(error->message, expected))
			g_error("'%s' does not start with '%s'", error->message, expected);
	}
	{
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) copy = gnt_json_node_deep_copy(golden);
		JsonObject *be =
			json_object_get_object_member(json_node_get_object(copy), "beparams");
		g_autoptr(GntInstanceSpec) spec = NULL;

		json_object_set_int_member(be, "vcpus", 5000);
		spec = gnt_instance_spec_from_json(json_node_get_object(copy), &error);
		g_assert_null(spec);
		g_assert_cmpstr(error->message, ==,
				"instance spec of 'web1.example.com': 'vcpus' must be 1 to 4096, "
				"not 5000");
	}
}

/* What the decoder gives the node: typed, from the filled parameters. */
static void
test_spec_members(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) golden = test_json_load("instance-spec.json");
	g_autoptr(GntInstanceSpec)
		spec = gnt_instance_spec_from_json(json_node_get_object(golden), &error);

	g_assert_no_error(error);
	g_assert_cmpuint(spec->memory_mib, ==, 128);
	g_assert_cmpuint(spec->vcpus, ==, 1);
	g_assert_cmpstr(spec->volume_group_name, ==, "xenvg");
	g_assert_true(spec->file_preallocate);
	g_assert_cmpuint(g_strv_length(spec->os_search_path), ==, 2);
	g_assert_cmpint(spec->instance->disk_template, ==, GNT_DISK_TEMPLATE_PLAIN);
	g_assert_cmpstr(spec->instance->communication_mac, ==, "aa:00:00:fe:00:02");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/records/instance/golden", test_instance_golden);
	g_test_add_func("/records/instance/members", test_instance_members);
	g_test_add_func("/records/instance/minimal", test_instance_minimal);
	g_test_add_func("/records/instance/bad", test_bad_records);
	g_test_add_func("/records/node/golden", test_node_golden);
	g_test_add_func("/records/node/bad", test_bad_node);
	g_test_add_func("/records/enums", test_enum_names);
	g_test_add_func("/records/json-getters", test_record_getters);
	g_test_add_func("/records/json-flags", test_record_flags);
	g_test_add_func("/records/spec/golden", test_spec_golden);
	g_test_add_func("/records/spec/members", test_spec_members);
	g_test_add_func("/records/spec/bad", test_spec_bad);
	return g_test_run();
}
