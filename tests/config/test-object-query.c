/* The instance and node query resources over records in config.db. */
#include <string.h>

#include "config-test-json.h"
#include "gnt-error.h"
#include "gnt-config-groups.h"
#include "gnt-object-query.h"
#include "gnt-test-golden.h"
#include "gnt-test-util.h"

#define NODE1  "11111111-1111-1111-1111-111111111111"
#define NODE2  "22222222-2222-2222-2222-222222222222"
#define NODE3  "33333333-3333-3333-3333-333333333333"
#define GROUP1 "99999999-0000-0000-0000-000000000001"
#define GROUP2 "99999999-0000-0000-0000-000000000002"

typedef struct {
	GntTestRoot root;
} QueryFx;

static void
add_record(GntConfig *config, GntObjectKind kind, const gchar *json)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = test_json_parse(json);

	g_assert_true(gnt_config_add_object(config, kind, json_node_get_object(node), &error));
	g_assert_no_error(error);
}

/* Three nodes (the master, a regular one, an offline one) and instances on
 * them: web1 running and up, db2 down by the user, web10 with two disks and
 * NICs, off3 on the offline node. */
static void
fx_set_up(QueryFx *fx, gconstpointer data)
{
	GntConfig *config;

	gnt_test_root_init(&fx->root, "node1.example.com");
	config = fx->root.config;
	/* the groups, with UUIDs the expected answers can name: the default
	 * one the cluster was made with and a second one for node3 */
	{
		g_autofree gchar *made = gnt_config_lookup_group(config, NULL, NULL);

		g_assert_true(gnt_config_remove_object(config, GNT_OBJECT_GROUP, made, NULL));
	}
	add_record(config, GNT_OBJECT_GROUP,
		   "{\"uuid\": \"" GROUP1
		   "\", \"name\": \"default\", \"alloc_policy\": \"preferred\","
		   " \"ndparams\": {}, \"diskparams\": {}, \"ipolicy\": {}, \"tags\": []}");
	add_record(config, GNT_OBJECT_GROUP,
		   "{\"uuid\": \"" GROUP2
		   "\", \"name\": \"rack2\", \"alloc_policy\": \"last_resort\","
		   " \"ndparams\": {\"ssh_port\": 2200, \"spindle_count\": 4},"
		   " \"diskparams\": {\"plain\": {\"stripes\": 2}},"
		   " \"ipolicy\": {\"vcpu-ratio\": 2.0, \"std\": {\"memory-size\": 256}},"
		   " \"tags\": [\"cold\"]}");
	add_record(config, GNT_OBJECT_NODE,
		   "{\"uuid\": \"" NODE1 "\", \"name\": \"node1.example.com\","
		   " \"primary_ip\": \"192.0.2.1\", \"secondary_ip\": \"198.51.100.1\","
		   " \"master_candidate\": true, \"master_capable\": true, \"vm_capable\": true,"
		   " \"offline\": false, \"drained\": false, \"group\": \"" GROUP1 "\","
		   " \"ndparams\": {\"ssh_port\": 2222}, \"tags\": [\"rack1\"]}");
	add_record(config, GNT_OBJECT_NODE,
		   "{\"uuid\": \"" NODE2 "\", \"name\": \"node2.example.com\","
		   " \"primary_ip\": \"192.0.2.2\", \"secondary_ip\": \"192.0.2.2\","
		   " \"master_candidate\": false, \"drained\": true, \"group\": \"" GROUP1 "\"}");
	add_record(config, GNT_OBJECT_NODE,
		   "{\"uuid\": \"" NODE3 "\", \"name\": \"node3.example.com\","
		   " \"primary_ip\": \"192.0.2.3\", \"secondary_ip\": \"192.0.2.3\","
		   " \"offline\": true, \"group\": \"" GROUP2 "\"}");
	add_record(
		config, GNT_OBJECT_INSTANCE,
		"{\"uuid\": \"i-web1\", \"name\": \"web1.example.com\", \"primary_node\": \"" NODE1
		"\", \"os\": \"noop+default\", \"hypervisor\": \"fake\","
		" \"hvparams\": {\"migration_mode\": \"non-live\", \"kernel_args\": \"quiet\"},"
		" \"beparams\": {\"maxmem\": 512, \"vcpus\": 2},"
		" \"osparams\": {\"dhcp\": \"yes\"}, \"osparams_private\": {\"root_pw\": \"s3cret\"},"
		" \"admin_state\": \"up\", \"admin_state_source\": \"admin\","
		" \"disk_template\": \"file\", \"disks_active\": true,"
		" \"disks\": [{\"uuid\": \"d-1\", \"name\": \"root\", \"size\": 1024, \"mode\": \"rw\","
		" \"dev_type\": \"file\", \"iv_name\": \"disk/0\"}],"
		" \"nics\": [{\"uuid\": \"n-1\", \"name\": null, \"mac\": \"aa:00:00:00:00:01\","
		" \"ip\": \"192.0.2.10\", \"nicparams\": {}, \"network\": null}],"
		" \"tags\": [\"web\"], \"network_port\": 11000}");
	add_record(config, GNT_OBJECT_INSTANCE,
		   "{\"uuid\": \"i-db2\", \"name\": \"db2.example.com\", \"primary_node\": \"" NODE2
		   "\", \"os\": \"noop\", \"hypervisor\": \"kvm\", \"admin_state\": \"down\","
		   " \"admin_state_source\": \"user\", \"disk_template\": \"diskless\","
		   " \"disks\": [], \"nics\": [], \"tags\": [], \"network_port\": null}");
	add_record(
		config, GNT_OBJECT_INSTANCE,
		"{\"uuid\": \"i-web10\", \"name\": \"web10.example.com\", \"primary_node\": \"" NODE1
		"\", \"os\": \"noop\", \"hypervisor\": \"fake\", \"admin_state\": \"up\","
		" \"disk_template\": \"plain\","
		" \"disks\": [{\"uuid\": \"d-2\", \"size\": 2048, \"mode\": \"rw\"},"
		" {\"uuid\": \"d-3\", \"name\": \"data\", \"size\": 512, \"mode\": \"ro\"}],"
		" \"nics\": [{\"uuid\": \"n-2\", \"mac\": \"aa:00:00:00:00:02\", \"ip\": null,"
		" \"nicparams\": {\"mode\": \"routed\", \"link\": \"rt1\"}},"
		" {\"uuid\": \"n-3\", \"mac\": \"aa:00:00:00:00:03\","
		" \"nicparams\": {\"mode\": \"openvswitch\", \"link\": \"sw0\", \"vlan\": \"100\"}}]}");
	add_record(
		config, GNT_OBJECT_INSTANCE,
		"{\"uuid\": \"i-off3\", \"name\": \"off3.example.com\", \"primary_node\": \"" NODE3
		"\", \"os\": \"noop\", \"hypervisor\": \"fake\", \"admin_state\": \"offline\","
		" \"disk_template\": \"diskless\"}");
}

static void
fx_tear_down(QueryFx *fx, gconstpointer data)
{
	gnt_test_root_clear(&fx->root);
}

static JsonArray *
strv_array(const gchar *const *names)
{
	JsonArray *array = json_array_new();

	for (guint i = 0; names[i] != NULL; i++)
		json_array_add_string_element(array, names[i]);
	return array;
}

#define FIELDS(...) strv_array((const gchar *const[]){__VA_ARGS__, NULL})

/* Query(@kind, @fields (taken), @filter_json): the answer, or NULL. */
static JsonNode *
run_query(QueryFx *fx, GntObjectKind kind, JsonArray *fields, const gchar *filter_json,
	  GntLiveData *live, GError **error)
{
	g_autoptr(JsonArray) owned = fields;
	g_autoptr(JsonNode) filter = filter_json != NULL ? test_json_parse(filter_json) : NULL;

	return gnt_object_query(fx->root.config, kind, owned, filter, live, error);
}

/* The "data" of a query that must succeed. */
static JsonNode *
query_data(QueryFx *fx, GntObjectKind kind, JsonArray *fields, const gchar *filter_json,
	   GntLiveData *live)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) result = run_query(fx, kind, fields, filter_json, live, &error);

	g_assert_no_error(error);
	g_assert_nonnull(result);
	return json_node_ref(json_object_get_member(json_node_get_object(result), "data"));
}

static void
assert_query(QueryFx *fx, GntObjectKind kind, JsonArray *fields, const gchar *filter_json,
	     GntLiveData *live, const gchar *expected)
{
	g_autoptr(JsonNode) data = query_data(fx, kind, fields, filter_json, live);

	test_json_assert_text(data, expected);
}

static void
assert_query_fails(QueryFx *fx, GntObjectKind kind, JsonArray *fields, const gchar *filter_json,
		   gint code, const gchar *message)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) result = run_query(fx, kind, fields, filter_json, NULL, &error);

	g_assert_null(result);
	g_assert_error(error, GNT_ERROR, code);
	g_assert_cmpstr(error->message, ==, message);
}

/* ---- fields ---- */

static void
check_fields_golden(GntObjectKind kind, const gchar *golden)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) fields = gnt_object_query_fields(kind, NULL, &error);
	g_autoptr(JsonNode) expected = test_json_load(golden);

	g_assert_no_error(error);
	test_json_assert_same(fields, expected);
}

static void
test_fields_golden(void)
{
	check_fields_golden(GNT_OBJECT_INSTANCE, "query-instance-fields.json");
	check_fields_golden(GNT_OBJECT_NODE, "query-node-fields.json");
	check_fields_golden(GNT_OBJECT_GROUP, "query-group-fields.json");
}

static void
test_fields_selected(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray)
		names = FIELDS("be/memory", "hv/acpi", "disk.size/15", "nic.vlan/7", "nope");
	g_autoptr(JsonNode) fields = gnt_object_query_fields(GNT_OBJECT_INSTANCE, names, &error);

	g_assert_no_error(error);
	test_json_assert_text(
		fields, "{\"fields\": ["
			"{\"name\": \"be/memory\", \"title\": \"ConfigMaxMem\", \"kind\": \"unit\","
			" \"doc\": \"The \\\"maxmem\\\" backend parameter\"},"
			"{\"name\": \"hv/acpi\", \"title\": \"ACPI\", \"kind\": \"bool\","
			" \"doc\": \"The \\\"acpi\\\" hypervisor parameter\"},"
			"{\"name\": \"disk.size/15\", \"title\": \"Disk/15\", \"kind\": \"unit\","
			" \"doc\": \"Disk size of 16th disk\"},"
			"{\"name\": \"nic.vlan/7\", \"title\": \"NicVLAN/7\", \"kind\": \"text\","
			" \"doc\": \"VLAN of 8th network interface\"},"
			"{\"name\": \"nope\", \"title\": \"nope\", \"kind\": \"unknown\","
			" \"doc\": \"Unknown field 'nope'\"}]}");
}

static void
test_needs_live_data(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) plain = FIELDS("name", "os", "pnode");
	g_autoptr(JsonArray) live = FIELDS("name", "oper_ram");
	g_autoptr(JsonArray) node_plain = FIELDS("name", "pinst_cnt");
	g_autoptr(JsonNode) status_filter = test_json_parse("[\"==\", \"status\", \"running\"]");
	gboolean needed = TRUE;

	g_assert_true(gnt_object_query_needs_live_data(GNT_OBJECT_INSTANCE, plain, NULL, &needed,
						       &error));
	g_assert_false(needed);
	g_assert_true(gnt_object_query_needs_live_data(GNT_OBJECT_INSTANCE, plain, status_filter,
						       &needed, &error));
	g_assert_true(needed);
	g_assert_true(
		gnt_object_query_needs_live_data(GNT_OBJECT_INSTANCE, live, NULL, &needed, &error));
	g_assert_true(needed);
	g_assert_true(
		gnt_object_query_needs_live_data(GNT_OBJECT_INSTANCE, NULL, NULL, &needed, &error));
	g_assert_true(needed);
	g_assert_true(gnt_object_query_needs_live_data(GNT_OBJECT_NODE, node_plain, NULL, &needed,
						       &error));
	g_assert_false(needed);
	g_assert_no_error(error);
}

/* ---- instances ---- */

static void
test_instance_basic(QueryFx *fx, gconstpointer data)
{
	/* natural order: web1 before web10; pnode names; the short name filter */
	assert_query(
		fx, GNT_OBJECT_INSTANCE,
		FIELDS("name", "pnode", "pnode.group", "os", "hypervisor", "admin_state",
		       "admin_up", "admin_state_source", "disk_template", "tags", "network_port",
		       "snodes", "uuid"),
		NULL, NULL,
		"[[[0, \"db2.example.com\"], [0, \"node2.example.com\"], [0, \"default\"],"
		" [0, \"noop\"], [0, \"kvm\"], [0, \"down\"], [0, false], [0, \"user\"],"
		" [0, \"diskless\"], [0, []], [0, null], [0, []], [0, \"i-db2\"]],"
		"[[0, \"off3.example.com\"], [0, \"node3.example.com\"], [0, \"rack2\"],"
		" [0, \"noop\"], [0, \"fake\"], [0, \"offline\"], [0, false], [0, \"admin\"],"
		" [0, \"diskless\"], [0, []], [0, null], [0, []], [0, \"i-off3\"]],"
		"[[0, \"web1.example.com\"], [0, \"node1.example.com\"], [0, \"default\"],"
		" [0, \"noop+default\"], [0, \"fake\"], [0, \"up\"], [0, true], [0, \"admin\"],"
		" [0, \"file\"], [0, [\"web\"]], [0, 11000], [0, []], [0, \"i-web1\"]],"
		"[[0, \"web10.example.com\"], [0, \"node1.example.com\"], [0, \"default\"],"
		" [0, \"noop\"], [0, \"fake\"], [0, \"up\"], [0, true], [0, \"admin\"],"
		" [0, \"plain\"], [0, []], [0, null], [0, []], [0, \"i-web10\"]]]");
}

static void
test_instance_disks_nics(QueryFx *fx, gconstpointer data)
{
	assert_query(
		fx, GNT_OBJECT_INSTANCE,
		FIELDS("disk.count", "disk.sizes", "disk_usage", "disk.names", "disk.uuids",
		       "disk.size/0", "disk.size/1", "disk.name/0", "sdb_size", "nic.count",
		       "nic.macs", "nic.ips", "nic.modes", "nic.links", "nic.bridges", "nic.vlans",
		       "nic.ip/0", "nic.mac/1", "nic.bridge/0", "nic.vlan/1", "nic.mode/1", "ip",
		       "custom_nicparams"),
		"[\"=~\", \"name\", \"^web\"]", NULL,
		"[[[0, 1], [0, [1024]], [0, 1024], [0, [\"root\"]], [0, [\"d-1\"]],"
		" [0, 1024], [3, null], [0, \"root\"], [3, null], [0, 1],"
		" [0, [\"aa:00:00:00:00:01\"]], [0, [\"192.0.2.10\"]], [0, [\"bridged\"]],"
		" [0, [\"br0\"]], [0, [\"br0\"]], [0, [\"\"]], [0, \"192.0.2.10\"], [3, null],"
		" [0, \"br0\"], [3, null], [3, null], [0, \"192.0.2.10\"], [0, [{}]]],"
		"[[0, 2], [0, [2048, 512]], [0, 2560], [0, [null, \"data\"]],"
		" [0, [\"d-2\", \"d-3\"]], [0, 2048], [0, 512], [3, null], [0, 512], [0, 2],"
		" [0, [\"aa:00:00:00:00:02\", \"aa:00:00:00:00:03\"]], [0, [null, null]],"
		" [0, [\"routed\", \"openvswitch\"]], [0, [\"rt1\", \"sw0\"]], [0, [null, null]],"
		" [0, [null, \"100\"]], [3, null], [0, \"aa:00:00:00:00:03\"], [3, null],"
		" [0, \"100\"], [0, \"openvswitch\"], [3, null],"
		" [0, [{\"mode\": \"routed\", \"link\": \"rt1\"},"
		" {\"mode\": \"openvswitch\", \"link\": \"sw0\", \"vlan\": \"100\"}]]]]");
}

static void
test_instance_params(QueryFx *fx, gconstpointer data)
{
	/* filled from the cluster's defaults; globals left out; private
	 * parameters redacted */
	assert_query(fx, GNT_OBJECT_INSTANCE,
		     FIELDS("hvparams", "custom_hvparams", "hv/kernel_args", "hv/kernel_path",
			    "beparams", "custom_beparams", "be/maxmem", "be/memory", "vcpus",
			    "be/minmem", "osparams", "custom_osparams"),
		     "[\"==\", \"name\", \"web1\"]", NULL,
		     "[[[0, {\"kernel_args\": \"quiet\"}],"
		     " [0, {\"migration_mode\": \"non-live\", \"kernel_args\": \"quiet\"}],"
		     " [0, \"quiet\"], [3, null],"
		     " [0, {\"always_failover\": false, \"auto_balance\": true, \"maxmem\": 512,"
		     " \"minmem\": 128, \"spindle_use\": 1, \"vcpus\": 2}],"
		     " [0, {\"maxmem\": 512, \"vcpus\": 2}], [0, 512], [0, 512], [0, 2], [0, 128],"
		     " [0, {\"dhcp\": \"yes\", \"root_pw\": \"<redacted>\"}],"
		     " [0, {\"dhcp\": \"yes\", \"root_pw\": \"<redacted>\"}]]]");
}

static void
test_instance_private_never_shown(QueryFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) all = query_data(fx, GNT_OBJECT_INSTANCE, NULL, NULL, NULL);
	g_autofree gchar *text = gnt_json_to_string(all);

	g_assert_null(strstr(text, "s3cret"));
	g_assert_nonnull(strstr(text, "<redacted>"));
}

static void
test_instance_no_live_data(QueryFx *fx, gconstpointer data)
{
	/* nothing collected: RS_NODATA, but an offline primary is known from
	 * the config alone */
	assert_query(
		fx, GNT_OBJECT_INSTANCE,
		FIELDS("name", "status", "oper_state", "oper_ram", "oper_vcpus"), NULL, NULL,
		"[[[0, \"db2.example.com\"], [2, null], [2, null], [2, null], [2, null]],"
		" [[0, \"off3.example.com\"], [0, \"ERROR_nodeoffline\"], [2, null], [2, null],"
		" [2, null]],"
		" [[0, \"web1.example.com\"], [2, null], [2, null], [2, null], [2, null]],"
		" [[0, \"web10.example.com\"], [2, null], [2, null], [2, null], [2, null]]]");
}

static void
test_instance_live_data(QueryFx *fx, gconstpointer data)
{
	g_autoptr(GntLiveData) live = gnt_live_data_new();
	g_autoptr(JsonNode) node1 = test_json_parse(
		"{\"memory_total\": 4096, \"memory_free\": 2048, \"instances\":"
		" {\"web1.example.com\": {\"state\": \"running\", \"memory\": 512, \"vcpus\": 2}}}");

	/* by UUID and by name */
	gnt_live_data_set_node(live, NODE1, json_node_get_object(node1));
	gnt_live_data_set_node_failed(live, "node2.example.com");
	assert_query(
		fx, GNT_OBJECT_INSTANCE,
		FIELDS("name", "status", "oper_state", "oper_ram", "oper_vcpus"), NULL, live,
		"[[[0, \"db2.example.com\"], [0, \"ERROR_nodedown\"], [2, null], [2, null],"
		" [2, null]],"
		" [[0, \"off3.example.com\"], [0, \"ERROR_nodeoffline\"], [2, null], [2, null],"
		" [2, null]],"
		" [[0, \"web1.example.com\"], [0, \"running\"], [0, true], [0, 512], [0, 2]],"
		" [[0, \"web10.example.com\"], [0, \"ERROR_down\"], [0, false], [3, null],"
		" [3, null]]]");
}

/* One instance's status with @state reported by its primary (NULL: not
 * running) and @elsewhere reported by the other node. */
static gchar *
live_status(QueryFx *fx, const gchar *name, const gchar *state, const gchar *elsewhere)
{
	g_autoptr(GntLiveData) live = gnt_live_data_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject)
		inst = gnt_config_dup_object(fx->root.config, GNT_OBJECT_INSTANCE, name, &error);
	const gchar *full_name = json_object_get_string_member(inst, "name");
	const gchar *pnode = json_object_get_string_member(inst, "primary_node");
	g_autofree gchar *on_primary =
		state != NULL ? g_strdup_printf("{\"instances\": {\"%s\": {\"state\": \"%s\"}}}",
						full_name, state)
			      : g_strdup("{\"instances\": {}}");
	g_autofree gchar *on_other =
		elsewhere != NULL
			? g_strdup_printf("{\"instances\": {\"%s\": {\"state\": \"%s\"}}}",
					  full_name, elsewhere)
			: g_strdup("{\"instances\": {}}");
	g_autoptr(JsonNode) primary = test_json_parse(on_primary);
	g_autoptr(JsonNode) other = test_json_parse(on_other);
	g_autofree gchar *filter = g_strdup_printf("[\"==\", \"name\", \"%s\"]", name);
	g_autoptr(JsonNode) data = NULL;

	g_assert_no_error(error);
	gnt_live_data_set_node(live, pnode, json_node_get_object(primary));
	gnt_live_data_set_node(live, g_strcmp0(pnode, NODE1) == 0 ? NODE2 : NODE1,
			       json_node_get_object(other));
	data = query_data(fx, GNT_OBJECT_INSTANCE, FIELDS("status"), filter, live);
	return g_strdup(json_array_get_string_element(
		json_array_get_array_element(
			json_array_get_array_element(json_node_get_array(data), 0), 0),
		1));
}

static void
check_status(QueryFx *fx, const gchar *name, const gchar *state, const gchar *elsewhere,
	     const gchar *expected)
{
	g_autofree gchar *status = live_status(fx, name, state, elsewhere);

	g_assert_cmpstr(status, ==, expected);
}

static void
set_admin_state(QueryFx *fx, const gchar *name, const gchar *state, const gchar *source)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject)
		inst = gnt_config_dup_object(fx->root.config, GNT_OBJECT_INSTANCE, name, &error);

	g_assert_no_error(error);
	json_object_set_string_member(inst, "admin_state", state);
	json_object_set_string_member(inst, "admin_state_source", source);
	g_assert_true(gnt_config_update_object(fx->root.config, GNT_OBJECT_INSTANCE, inst, &error));
	g_assert_no_error(error);
}

static void
test_instance_status(QueryFx *fx, gconstpointer data)
{
	/* web1 is up on node1 */
	check_status(fx, "web1", "running", NULL, "running");
	check_status(fx, "web1", NULL, NULL, "ERROR_down");
	check_status(fx, "web1", "shutdown", NULL, "ERROR_down");
	check_status(fx, "web1", "running", "running", "ERROR_wrongnode");
	/* running only elsewhere: Ganeti looks at the primary only */
	check_status(fx, "web1", NULL, "running", "ERROR_down");
	set_admin_state(fx, "web1", "down", "admin");
	check_status(fx, "web1", NULL, NULL, "ADMIN_down");
	check_status(fx, "web1", "running", NULL, "ERROR_up");
	check_status(fx, "web1", "shutdown", NULL, "ADMIN_down");
	set_admin_state(fx, "web1", "down", "user");
	check_status(fx, "web1", NULL, NULL, "USER_down");
	set_admin_state(fx, "web1", "offline", "admin");
	check_status(fx, "web1", NULL, NULL, "ADMIN_offline");
}

static void
test_instance_names(QueryFx *fx, gconstpointer data)
{
	/* the CLI's name filter: short names, the order asked, no duplicates */
	assert_query(fx, GNT_OBJECT_INSTANCE, FIELDS("name"),
		     "[\"|\", [\"=\", \"name\", \"web10\"], [\"=\", \"name\", \"db2.example.com\"],"
		     " [\"=\", \"name\", \"web10.example.com\"]]",
		     NULL, "[[[0, \"web10.example.com\"]], [[0, \"db2.example.com\"]]]");
	assert_query_fails(fx, GNT_OBJECT_INSTANCE, FIELDS("name"),
			   "[\"|\", [\"=\", \"name\", \"web1\"], [\"=\", \"name\", \"nope\"]]",
			   GNT_ERROR_NOT_FOUND, "Instance name 'nope' not found");
	assert_query_fails(fx, GNT_OBJECT_NODE, FIELDS("name"), "[\"==\", \"name\", \"node9\"]",
			   GNT_ERROR_NOT_FOUND, "Node name 'node9' not found");
	/* other filters scan, and match short names on hostname fields */
	assert_query(fx, GNT_OBJECT_INSTANCE, FIELDS("name"),
		     "[\"&\", [\"==\", \"pnode\", \"node1\"], [\">\", \"disk_usage\", 1500]]", NULL,
		     "[[[0, \"web10.example.com\"]]]");
	assert_query(fx, GNT_OBJECT_INSTANCE, FIELDS("name"), "[\"=[]\", \"tags\", \"web\"]", NULL,
		     "[[[0, \"web1.example.com\"]]]");
	assert_query_fails(fx, GNT_OBJECT_INSTANCE, FIELDS("name"), "[\"==\", \"bogus\", 1]",
			   GNT_ERROR_INVALID, "unknown field 'bogus' in filter");
}

static void
test_instance_values(QueryFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) names = FIELDS("web10", "db2");
	g_autoptr(JsonArray) fields = FIELDS("name", "oper_ram", "be/vcpus");
	g_autoptr(JsonArray) bad_fields = FIELDS("name", "x", "y");
	g_autoptr(JsonArray) missing = FIELDS("ghost");
	g_autoptr(JsonNode) rows = gnt_object_query_values(fx->root.config, GNT_OBJECT_INSTANCE,
							   names, fields, NULL, &error);
	g_autoptr(JsonNode) all = NULL;
	g_autoptr(JsonNode) none = NULL;

	g_assert_no_error(error);
	test_json_assert_text(rows,
			      "[[\"web10.example.com\", null, 1], [\"db2.example.com\", null, 1]]");
	all = gnt_object_query_values(fx->root.config, GNT_OBJECT_INSTANCE, NULL, fields, NULL,
				      &error);
	g_assert_no_error(error);
	g_assert_cmpuint(json_array_get_length(json_node_get_array(all)), ==, 4);
	none = gnt_object_query_values(fx->root.config, GNT_OBJECT_INSTANCE, NULL, bad_fields, NULL,
				       &error);
	g_assert_null(none);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "Unknown output fields selected: x, y");
	g_clear_error(&error);
	none = gnt_object_query_values(fx->root.config, GNT_OBJECT_INSTANCE, missing, fields, NULL,
				       &error);
	g_assert_null(none);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, "Instance name 'ghost' not found");
}

/* A Query of every instance field, compared with a golden file as
 * {field: [status, value]}; the timestamps change from run to run and are
 * left out. */
static void
test_instance_golden(QueryFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) all_fields = gnt_object_query_fields(GNT_OBJECT_INSTANCE, NULL, &error);
	JsonArray *defs = json_object_get_array_member(json_node_get_object(all_fields), "fields");
	g_autoptr(JsonArray) fields = json_array_new();
	g_autoptr(JsonNode) rows = NULL;
	g_autoptr(JsonNode) got = json_node_init_object(json_node_alloc(), json_object_new());
	g_autoptr(JsonNode) expected = NULL;
	g_autofree gchar *golden_text = NULL;
	JsonArray *row;

	for (guint i = 0; i < json_array_get_length(defs); i++) {
		const gchar *name = json_object_get_string_member(
			json_array_get_object_element(defs, i), "name");

		if (g_strcmp0(name, "ctime") != 0 && g_strcmp0(name, "mtime") != 0)
			json_array_add_string_element(fields, name);
	}
	rows = query_data(fx, GNT_OBJECT_INSTANCE, json_array_ref(fields),
			  "[\"==\", \"name\", \"web10\"]", NULL);
	g_assert_cmpuint(json_array_get_length(json_node_get_array(rows)), ==, 1);
	row = json_array_get_array_element(json_node_get_array(rows), 0);
	for (guint i = 0; i < json_array_get_length(fields); i++)
		json_object_set_member(json_node_get_object(got),
				       json_array_get_string_element(fields, i),
				       json_node_copy(json_array_get_element(row, i)));
	golden_text = test_json_golden_text(got);
	gnt_test_golden_update("query-instance-web10.json", golden_text);
	expected = test_json_load("query-instance-web10.json");
	test_json_assert_same(got, expected);
}

/* ---- nodes ---- */

static void
test_node_basic(QueryFx *fx, gconstpointer data)
{
	assert_query(fx, GNT_OBJECT_NODE,
		     FIELDS("name", "pip", "sip", "master", "role", "group", "master_candidate",
			    "master_capable", "vm_capable", "offline", "drained", "tags",
			    "pinst_cnt", "pinst_list", "sinst_cnt", "sinst_list", "powered",
			    "custom_ndparams", "serial_no", "uuid"),
		     NULL, NULL,
		     "[[[0, \"node1.example.com\"], [0, \"192.0.2.1\"], [0, \"198.51.100.1\"],"
		     " [0, true], [0, \"M\"], [0, \"default\"], [0, true], [0, true], [0, true],"
		     " [0, false], [0, false], [0, [\"rack1\"]], [0, 2],"
		     " [0, [\"web1.example.com\", \"web10.example.com\"]], [0, 0], [0, []],"
		     " [3, null], [0, {\"ssh_port\": 2222}], [0, 1], [0, \"" NODE1 "\"]],"
		     "[[0, \"node2.example.com\"], [0, \"192.0.2.2\"], [0, \"192.0.2.2\"],"
		     " [0, false], [0, \"D\"], [0, \"default\"], [0, false], [0, true], [0, true],"
		     " [0, false], [0, true], [0, []], [0, 1], [0, [\"db2.example.com\"]], [0, 0],"
		     " [0, []], [3, null], [0, {}], [0, 1], [0, \"" NODE2 "\"]],"
		     "[[0, \"node3.example.com\"], [0, \"192.0.2.3\"], [0, \"192.0.2.3\"],"
		     " [0, false], [0, \"O\"], [0, \"rack2\"], [0, false], [0, true], [0, true],"
		     " [0, true], [0, false], [0, []], [0, 1], [0, [\"off3.example.com\"]], [0, 0],"
		     " [0, []], [3, null], [0, {}], [0, 1], [0, \"" NODE3 "\"]]]");
}

/* Nodes see their group: its name and UUID, and its node parameters
 * between the cluster's and their own. */
static void
test_node_group(QueryFx *fx, gconstpointer data)
{
	assert_query(fx, GNT_OBJECT_NODE,
		     FIELDS("name", "group", "group.uuid", "ndp/ssh_port", "ndp/spindle_count"),
		     NULL, NULL,
		     "[[[0, \"node1.example.com\"], [0, \"default\"], [0, \"" GROUP1 "\"],"
		     " [0, 2222], [0, 1]],"
		     " [[0, \"node2.example.com\"], [0, \"default\"], [0, \"" GROUP1 "\"],"
		     " [0, 22], [0, 1]],"
		     " [[0, \"node3.example.com\"], [0, \"rack2\"], [0, \"" GROUP2 "\"],"
		     " [0, 2200], [0, 4]]]");
	assert_query(fx, GNT_OBJECT_INSTANCE, FIELDS("name", "pnode.group", "pnode.group.uuid"),
		     "[\"=\", \"name\", \"off3.example.com\"]", NULL,
		     "[[[0, \"off3.example.com\"], [0, \"rack2\"], [0, \"" GROUP2 "\"]]]");
}

/* ---- groups ---- */

static void
test_group_basic(QueryFx *fx, gconstpointer data)
{
	assert_query(fx, GNT_OBJECT_GROUP,
		     FIELDS("name", "uuid", "alloc_policy", "node_cnt", "node_list", "pinst_cnt",
			    "pinst_list", "tags", "custom_ndparams", "ndp/ssh_port",
			    "custom_diskparams", "custom_ipolicy", "serial_no"),
		     NULL, NULL,
		     "[[[0, \"default\"], [0, \"" GROUP1 "\"], [0, \"preferred\"], [0, 2],"
		     " [0, [\"node1.example.com\", \"node2.example.com\"]], [0, 3],"
		     " [0, [\"db2.example.com\", \"web1.example.com\", \"web10.example.com\"]],"
		     " [0, []], [0, {}], [0, 22], [0, {}], [0, {}], [0, 1]],"
		     " [[0, \"rack2\"], [0, \"" GROUP2 "\"], [0, \"last_resort\"], [0, 1],"
		     " [0, [\"node3.example.com\"]], [0, 1], [0, [\"off3.example.com\"]],"
		     " [0, [\"cold\"]], [0, {\"ssh_port\": 2200, \"spindle_count\": 4}],"
		     " [0, 2200], [0, {\"plain\": {\"stripes\": 2}}],"
		     " [0, {\"vcpu-ratio\": 2.0, \"std\": {\"memory-size\": 256}}], [0, 1]]]");
	/* by name or UUID, and an unknown one */
	assert_query(fx, GNT_OBJECT_GROUP, FIELDS("name"), "[\"=\", \"name\", \"rack2\"]", NULL,
		     "[[[0, \"rack2\"]]]");
	assert_query_fails(fx, GNT_OBJECT_GROUP, FIELDS("name"), "[\"=\", \"name\", \"nope\"]",
			   GNT_ERROR_NOT_FOUND, "Group name 'nope' not found");
}

/* The filled parameters: the cluster's with the group's over them (the
 * instance policy's "std" key by key, the disk parameters per template). */
static void
test_group_filled(QueryFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode)
		rows = query_data(fx, GNT_OBJECT_GROUP, FIELDS("ndparams", "ipolicy", "diskparams"),
				  "[\"=\", \"name\", \"rack2\"]", NULL);
	JsonArray *row = json_array_get_array_element(json_node_get_array(rows), 0);
	JsonObject *nd = json_array_get_object_element(json_array_get_array_element(row, 0), 1);
	JsonObject *ipolicy =
		json_array_get_object_element(json_array_get_array_element(row, 1), 1);
	JsonObject *disk = json_array_get_object_element(json_array_get_array_element(row, 2), 1);
	JsonObject *std = json_object_get_object_member(ipolicy, "std");

	g_assert_cmpint(json_object_get_int_member(nd, "ssh_port"), ==, 2200);
	g_assert_cmpint(json_object_get_int_member(nd, "spindle_count"), ==, 4);
	g_assert_false(json_object_get_boolean_member(nd, "exclusive_storage"));
	g_assert_cmpfloat(json_object_get_double_member(ipolicy, "vcpu-ratio"), ==, 2.0);
	g_assert_cmpfloat(json_object_get_double_member(ipolicy, "spindle-ratio"), ==, 32.0);
	g_assert_cmpint(json_object_get_int_member(std, "memory-size"), ==, 256);
	g_assert_cmpint(json_object_get_int_member(std, "cpu-count"), ==, 1);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(ipolicy, "minmax")), ==,
			 1);
	g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(disk, "plain"),
						   "stripes"),
			==, 2);
	g_assert_true(json_object_has_member(disk, "file"));
}

static void
test_node_live(QueryFx *fx, gconstpointer data)
{
	g_autoptr(GntLiveData) live = gnt_live_data_new();
	g_autoptr(JsonNode) node1 = test_json_parse(
		"{\"memory_total\": 4096, \"memory_dom0\": 512, \"memory_free\": 2048.0,"
		" \"cpu_total\": 8, \"cpu_nodes\": 1, \"cpu_sockets\": 2, \"bootid\": \"b-1\","
		" \"storage_size\": 10240, \"storage_free\": \"lots\"}");

	assert_query(fx, GNT_OBJECT_NODE, FIELDS("name", "mtotal", "bootid"), NULL, NULL,
		     "[[[0, \"node1.example.com\"], [2, null], [2, null]],"
		     " [[0, \"node2.example.com\"], [2, null], [2, null]],"
		     " [[0, \"node3.example.com\"], [4, null], [4, null]]]");
	gnt_live_data_set_node(live, "node1.example.com", json_node_get_object(node1));
	gnt_live_data_set_node_failed(live, NODE2);
	assert_query(fx, GNT_OBJECT_NODE,
		     FIELDS("name", "mtotal", "mnode", "mfree", "ctotal", "cnodes", "csockets",
			    "bootid", "dtotal", "dfree", "spfree"),
		     NULL, live,
		     "[[[0, \"node1.example.com\"], [0, 4096], [0, 512], [0, 2048], [0, 8], [0, 1],"
		     " [0, 2], [0, \"b-1\"], [0, 10240], [3, null], [3, null]],"
		     " [[0, \"node2.example.com\"], [2, null], [2, null], [2, null], [2, null],"
		     " [2, null], [2, null], [2, null], [2, null], [2, null], [2, null]],"
		     " [[0, \"node3.example.com\"], [4, null], [4, null], [4, null], [4, null],"
		     " [4, null], [4, null], [4, null], [4, null], [4, null], [4, null]]]");
}

static void
test_node_filters(QueryFx *fx, gconstpointer data)
{
	assert_query(fx, GNT_OBJECT_NODE, FIELDS("name"), "[\"?\", \"offline\"]", NULL,
		     "[[[0, \"node3.example.com\"]]]");
	assert_query(fx, GNT_OBJECT_NODE, FIELDS("name", "role"), "[\"==\", \"name\", \"node2\"]",
		     NULL, "[[[0, \"node2.example.com\"], [0, \"D\"]]]");
	assert_query(fx, GNT_OBJECT_NODE, FIELDS("name"),
		     "[\"=[]\", \"pinst_list\", \"db2.example.com\"]", NULL,
		     "[[[0, \"node2.example.com\"]]]");
}

static gint
compare_name_ptrs(gconstpointer a, gconstpointer b)
{
	return gnt_object_name_compare(*(const gchar *const *)a, *(const gchar *const *)b);
}

static void
test_name_compare(void)
{
	const gchar *names[] = {"inst10", "inst2", "inst02a", "inst1", "a", "inst",
				"inst1b", "10",	   "9",	      "b1",    NULL};
	g_autoptr(GPtrArray) sorted = g_ptr_array_new();
	g_autofree gchar *joined = NULL;

	for (guint i = 0; names[i] != NULL; i++)
		g_ptr_array_add(sorted, (gpointer)names[i]);
	g_ptr_array_sort(sorted, compare_name_ptrs);
	g_ptr_array_add(sorted, NULL);
	joined = g_strjoinv(" ", (gchar **)sorted->pdata);
	g_assert_cmpstr(joined, ==, "9 10 a b1 inst inst1 inst1b inst2 inst02a inst10");
}

/* ---- written answers ---- */

/* @written (after "{prefix}") is @built serialized, or both failed alike
 * and @written is untouched. */
static void
assert_same_answer(JsonNode *built, const GError *built_error, gboolean ok, GString *written,
		   const GError *written_error)
{
	g_autofree gchar *expected = NULL;

	g_assert_true(ok == (built != NULL));
	if (built == NULL) {
		g_assert_cmpstr(written->str, ==, "{prefix}");
		g_assert_error(written_error, built_error->domain, built_error->code);
		g_assert_cmpstr(written_error->message, ==, built_error->message);
		return;
	}
	expected = gnt_json_to_string(built);
	g_assert_cmpstr(written->str + strlen("{prefix}"), ==, expected);
}

/* gnt_object_query_write() and gnt_object_query_values_write() give the
 * text of what gnt_object_query() and gnt_object_query_values() build, or
 * fail the same way and leave the text alone; every field, so each write
 * function against its get. The classic calls without a filter. */
static void
assert_written_same(QueryFx *fx, GntObjectKind kind, const gchar *filter_json, JsonArray *names,
		    GntLiveData *live)
{
	g_autoptr(JsonNode) filter = filter_json != NULL ? test_json_parse(filter_json) : NULL;

	if (filter_json == NULL) {
		g_autoptr(GError) built_error = NULL;
		g_autoptr(GError) written_error = NULL;
		g_autoptr(GString) written = g_string_new("{prefix}");
		g_autoptr(JsonNode) built = gnt_object_query_values(fx->root.config, kind, names,
								    NULL, live, &built_error);
		gboolean ok = gnt_object_query_values_write(fx->root.config, kind, names, NULL,
							    live, written, &written_error);

		assert_same_answer(built, built_error, ok, written, written_error);
	}
	if (names == NULL) {
		g_autoptr(GError) built_error = NULL;
		g_autoptr(GError) written_error = NULL;
		g_autoptr(GString) written = g_string_new("{prefix}");
		g_autoptr(JsonNode) built =
			gnt_object_query(fx->root.config, kind, NULL, filter, live, &built_error);
		gboolean ok = gnt_object_query_write(fx->root.config, kind, NULL, filter, live,
						     written, &written_error);

		assert_same_answer(built, built_error, ok, written, written_error);
	}
}

static void
test_written_answers(QueryFx *fx, gconstpointer data)
{
	g_autoptr(GntLiveData) live = gnt_live_data_new();
	g_autoptr(JsonNode) node1 = test_json_parse(
		"{\"memory_total\": 4096, \"memory_dom0\": 512, \"memory_free\": 2048,"
		" \"bootid\": \"b-1\", \"storage_size\": 10240, \"storage_free\": 512,"
		" \"instances\": {\"web1.example.com\": {\"state\": \"running\", \"memory\": 512,"
		" \"vcpus\": 2}, \"web10.example.com\": {\"state\": \"shutdown\", \"memory\": 128},"
		" \"db2.example.com\": {\"state\": \"running\"}}}");
	g_autoptr(JsonNode) node2 = test_json_parse(
		"{\"instances\": {\"db2.example.com\": {\"state\": \"running\", \"memory\": 64}}}");
	g_autoptr(JsonArray) names = FIELDS("web10", "db2.example.com", "web2");
	g_autoptr(JsonArray) missing = FIELDS("web1", "ghost");

	/* web2 sorts after web10 by bytes, before it by Ganeti's order: the
	 * rows come from the config unsorted */
	add_record(fx->root.config, GNT_OBJECT_INSTANCE,
		   "{\"uuid\": \"i-web2\", \"name\": \"web2.example.com\","
		   " \"primary_node\": \"" NODE2 "\", \"os\": \"noop\", \"hypervisor\": \"kvm\","
		   " \"admin_state\": \"up\", \"disk_template\": \"diskless\","
		   " \"hvparams\": {\"user_shutdown\": true}}");
	for (guint with_live = 0; with_live < 2; with_live++) {
		GntLiveData *l = with_live ? live : NULL;

		for (guint k = 0; k < 2; k++) {
			GntObjectKind kind = k == 0 ? GNT_OBJECT_INSTANCE : GNT_OBJECT_NODE;

			assert_written_same(fx, kind, NULL, NULL, l);
			assert_written_same(fx, kind, "[\"=~\", \"name\", \"(web|node)[12]\"]",
					    NULL, l);
			assert_written_same(fx, kind, "[\"!\", [\"?\", \"offline\"]]", NULL, l);
		}
		/* names in the order given; a missing one fails it all */
		assert_written_same(fx, GNT_OBJECT_INSTANCE,
				    "[\"|\", [\"=\", \"name\", \"web2\"],"
				    " [\"=\", \"name\", \"db2\"], [\"=\", \"name\", \"web10\"]]",
				    NULL, l);
		assert_written_same(fx, GNT_OBJECT_INSTANCE, "[\"==\", \"name\", \"ghost\"]", NULL,
				    l);
		assert_written_same(fx, GNT_OBJECT_INSTANCE, NULL, names, l);
		assert_written_same(fx, GNT_OBJECT_INSTANCE, NULL, missing, l);
		/* a node that runs an instance of the other: ERROR_wrongnode */
		gnt_live_data_set_node(live, NODE1, json_node_get_object(node1));
		gnt_live_data_set_node(live, NODE2, json_node_get_object(node2));
	}
	/* what the comparisons above covered, by its looks */
	{
		g_autoptr(GString) written = g_string_new(NULL);
		g_autoptr(JsonArray) fields = FIELDS("name", "status", "oper_ram");
		g_autoptr(GError) error = NULL;

		g_assert_true(gnt_object_query_write(fx->root.config, GNT_OBJECT_INSTANCE, fields,
						     NULL, live, written, &error));
		g_assert_no_error(error);
		g_assert_nonnull(
			strstr(written->str,
			       "\"data\":[[[0,\"db2.example.com\"],[0,\"ERROR_wrongnode\"],[0,64]],"
			       "[[0,\"off3.example.com\"],[0,\"ERROR_nodeoffline\"],[2,null]],"
			       "[[0,\"web1.example.com\"],[0,\"running\"],[0,512]],"
			       "[[0,\"web2.example.com\"],[0,\"ERROR_down\"],[3,null]],"
			       "[[0,\"web10.example.com\"],[0,\"ERROR_down\"],[0,128]]]}"));
	}
	gnt_live_data_set_node_failed(live, NODE2);
	assert_written_same(fx, GNT_OBJECT_INSTANCE, NULL, NULL, live);
	assert_written_same(fx, GNT_OBJECT_NODE, NULL, NULL, live);
}

/* ---- scale ---- */

static gboolean
count_cb(JsonObject *record, gpointer user_data)
{
	(*(guint *)user_data)++;
	return TRUE;
}

static gboolean
count_typed_cb(GntConfigRecord *record, gpointer user_data)
{
	guint *typed = user_data;

	if (gnt_config_record_peek_instance(record) != NULL)
		(*typed)++;
	return TRUE;
}

/* The cache keeps complete instances typed, and a query reads their
 * fields from the struct (the walk) or from their JSON (named items are
 * looked up as copies): every field, with live data, gives the same, built
 * and written. The fixture's records are made complete first (as the
 * create unit writes them: from_json then to_json). */
static void
test_instance_typed_same_as_json(QueryFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) stored = gnt_config_dup_objects(fx->root.config, GNT_OBJECT_INSTANCE);
	g_autoptr(JsonNode) all_fields = gnt_object_query_fields(GNT_OBJECT_INSTANCE, NULL, &error);
	JsonArray *defs = json_object_get_array_member(json_node_get_object(all_fields), "fields");
	g_autoptr(JsonArray) fields = json_array_new();
	g_autoptr(JsonArray) names = json_array_new();
	g_autoptr(GntLiveData) live = gnt_live_data_new();
	g_autoptr(JsonNode) node1 = test_json_parse(
		"{\"memory_total\": 4096, \"memory_free\": 2048, \"instances\":"
		" {\"web1.example.com\": {\"state\": \"running\", \"memory\": 512, \"vcpus\": 2},"
		" \"db2.example.com\": {\"state\": \"running\", \"memory\": 128}}}");
	g_autoptr(JsonNode) walked = NULL;
	g_autoptr(JsonNode) named = NULL;
	g_autofree gchar *walked_text = NULL;
	g_autofree gchar *named_text = NULL;
	guint typed = 0;

	for (guint i = 0; i < stored->len; i++) {
		g_autoptr(GntInstance)
			instance = gnt_instance_from_json(g_ptr_array_index(stored, i), &error);
		g_autoptr(JsonObject) complete = NULL;

		g_assert_no_error(error);
		complete = gnt_instance_to_json(instance);
		g_assert_true(gnt_config_update_object(fx->root.config, GNT_OBJECT_INSTANCE,
						       complete, &error));
		g_assert_no_error(error);
		json_array_add_string_element(names, instance->name);
	}
	gnt_config_foreach_record(fx->root.config, GNT_OBJECT_INSTANCE, count_typed_cb, &typed);
	g_assert_cmpuint(typed, ==, stored->len);

	g_assert_no_error(error);
	for (guint i = 0; i < json_array_get_length(defs); i++)
		json_array_add_string_element(
			fields, json_object_get_string_member(
					json_array_get_object_element(defs, i), "name"));
	gnt_live_data_set_node(live, NODE1, json_node_get_object(node1));
	gnt_live_data_set_node_failed(live, "node2.example.com");
	walked = gnt_object_query_values(fx->root.config, GNT_OBJECT_INSTANCE, NULL, fields, live,
					 &error);
	g_assert_no_error(error);
	named = gnt_object_query_values(fx->root.config, GNT_OBJECT_INSTANCE, names, fields, live,
					&error);
	g_assert_no_error(error);
	g_assert_cmpuint(json_array_get_length(json_node_get_array(walked)), ==, stored->len);
	walked_text = gnt_json_to_string(walked);
	named_text = gnt_json_to_string(named);
	g_assert_cmpstr(walked_text, ==, named_text);
	assert_written_same(fx, GNT_OBJECT_INSTANCE, NULL, NULL, live);
	assert_written_same(fx, GNT_OBJECT_INSTANCE, "[\"=\", \"status\", \"running\"]", NULL,
			    live);
}

/* 10,000 instances: a Query of the list's default fields and one with a
 * name hint. Times are printed, not asserted. */
static void
test_scale(QueryFx *fx, gconstpointer data)
{
	const guint n = 10000;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) result = NULL;
	g_autoptr(JsonNode) one = NULL;
	g_autoptr(JsonNode) filter = test_json_parse("[\"==\", \"name\", \"vm4711\"]");
	g_autoptr(JsonArray)
		fields = FIELDS("name", "hypervisor", "os", "pnode", "status", "oper_ram");
	gint64 start;
	gdouble all_ms;
	gdouble hint_ms;
	gdouble text_ms;
	gdouble written_ms;
	g_autofree gchar *text = NULL;
	g_autoptr(GString) written = g_string_new(NULL);
	guint counted = 0;

	for (guint i = 0; i < n; i++) {
		g_autofree gchar *json = g_strdup_printf(
			"{\"name\": \"vm%u.example.com\", \"primary_node\": \"%s\", \"os\": \"noop\","
			" \"hypervisor\": \"fake\", \"admin_state\": \"up\","
			" \"disk_template\": \"diskless\", \"beparams\": {}, \"hvparams\": {},"
			" \"disks\": [], \"nics\": [{\"mac\": \"aa:00:00:00:%02x:%02x\","
			" \"nicparams\": {}}], \"tags\": []}",
			i, i % 2 == 0 ? NODE1 : NODE2, (i >> 8) & 0xff, i & 0xff);

		add_record(fx->root.config, GNT_OBJECT_INSTANCE, json);
	}
	gnt_config_foreach_object(fx->root.config, GNT_OBJECT_INSTANCE, count_cb, &counted);
	g_assert_cmpuint(counted, ==, n + 4);
	start = g_get_monotonic_time();
	result = gnt_object_query(fx->root.config, GNT_OBJECT_INSTANCE, fields, NULL, NULL, &error);
	all_ms = (gdouble)(g_get_monotonic_time() - start) / 1000.0;
	g_assert_no_error(error);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(
				 json_node_get_object(result), "data")),
			 ==, n + 4);
	start = g_get_monotonic_time();
	text = gnt_json_to_string(result);
	text_ms = (gdouble)(g_get_monotonic_time() - start) / 1000.0;
	start = g_get_monotonic_time();
	g_assert_true(gnt_object_query_write(fx->root.config, GNT_OBJECT_INSTANCE, fields, NULL,
					     NULL, written, &error));
	written_ms = (gdouble)(g_get_monotonic_time() - start) / 1000.0;
	g_assert_cmpstr(written->str, ==, text);
	start = g_get_monotonic_time();
	one = gnt_object_query(fx->root.config, GNT_OBJECT_INSTANCE, fields, filter, NULL, &error);
	hint_ms = (gdouble)(g_get_monotonic_time() - start) / 1000.0;
	g_assert_no_error(error);
	g_assert_cmpuint(json_array_get_length(
				 json_object_get_array_member(json_node_get_object(one), "data")),
			 ==, 1);
	g_test_message("Query of %u instances, 6 fields: %.1f ms, serialized (%zu bytes) in "
		       "%.1f ms; written as text directly: %.1f ms; by name: %.3f ms",
		       n + 4, all_ms, strlen(text), text_ms, written_ms, hint_ms);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/object-query/fields/golden", test_fields_golden);
	g_test_add_func("/object-query/fields/selected", test_fields_selected);
	g_test_add_func("/object-query/fields/needs-live-data", test_needs_live_data);
	g_test_add_func("/object-query/name-compare", test_name_compare);
#define ADD(path, func) g_test_add(path, QueryFx, NULL, fx_set_up, func, fx_tear_down)
	ADD("/object-query/instance/basic", test_instance_basic);
	ADD("/object-query/instance/disks-nics", test_instance_disks_nics);
	ADD("/object-query/instance/params", test_instance_params);
	ADD("/object-query/instance/private-never-shown", test_instance_private_never_shown);
	ADD("/object-query/instance/no-live-data", test_instance_no_live_data);
	ADD("/object-query/instance/live-data", test_instance_live_data);
	ADD("/object-query/instance/status", test_instance_status);
	ADD("/object-query/instance/names", test_instance_names);
	ADD("/object-query/instance/values", test_instance_values);
	ADD("/object-query/instance/golden", test_instance_golden);
	ADD("/object-query/instance/typed-same-as-json", test_instance_typed_same_as_json);
	ADD("/object-query/node/basic", test_node_basic);
	ADD("/object-query/node/live", test_node_live);
	ADD("/object-query/node/filters", test_node_filters);
	ADD("/object-query/node/group", test_node_group);
	ADD("/object-query/group/basic", test_group_basic);
	ADD("/object-query/group/filled", test_group_filled);
	ADD("/object-query/written-answers", test_written_answers);
	ADD("/object-query/scale", test_scale);
#undef ADD
	return g_test_run();
}
