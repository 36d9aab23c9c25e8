/*
 * gnt-instance and gnt-node over the real master daemon: a cluster on a
 * temporary root, records written into its config.db while the daemons
 * are stopped, then the commands as an operator runs them.
 */
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-paths.h"
#include "gnt-config.h"
#include "tools-test.h"

typedef struct {
	gchar *root;
} ObjFx;

#define INSTANCE(fx, ...) RUN(fx, "GNT_TEST_GNT_INSTANCE", __VA_ARGS__)
#define NODE(fx, ...)	  RUN(fx, "GNT_TEST_GNT_NODE", __VA_ARGS__)
#define DAEMONS(fx, ...)  RUN(fx, "GNT_TEST_GANTRY_DAEMONS", __VA_ARGS__)

static void
add(GntConfig *config, GntObjectKind kind, const gchar *json)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse(json, -1, &error);

	g_assert_no_error(error);
	g_assert_true(gnt_config_add_object(config, kind, json_node_get_object(node), &error));
	g_assert_no_error(error);
}

static void
fx_set_up(ObjFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Run) init = NULL;
	g_autoptr(Run) stop = NULL;
	g_autoptr(Run) start = NULL;
	g_autoptr(GntConfig) config = NULL;
	GntPaths *paths;

	fx->root = g_dir_make_tmp("gto-XXXXXX", &error);
	g_assert_no_error(error);
	/* noded on a free port: tests run side by side */
	init = RUN(fx, "GNT_TEST_GNT_CLUSTER", "init", "--noded-port", "0", "test.example.com");
	expect(init, 0, NULL);
	/* masterd caches the config: write the records while it is stopped */
	stop = DAEMONS(fx, "stop");
	expect(stop, 0, NULL);
	paths = gnt_paths_new(fx->root);
	config = gnt_config_open(gnt_paths_get_config_db(paths), &error);
	gnt_paths_free(paths);
	g_assert_no_error(error);
	add(config, GNT_OBJECT_NODE,
	    "{\"uuid\": \"n-1\", \"name\": \"node1.example.com\", \"primary_ip\": \"192.0.2.1\","
	    " \"secondary_ip\": \"192.0.2.1\", \"master_candidate\": true, \"group\": \"default\","
	    " \"tags\": [\"a\", \"b\"]}");
	add(config, GNT_OBJECT_NODE,
	    "{\"uuid\": \"n-2\", \"name\": \"node2.example.com\", \"primary_ip\": \"192.0.2.2\","
	    " \"secondary_ip\": \"192.0.2.2\", \"offline\": true, \"group\": \"default\"}");
	add(config, GNT_OBJECT_INSTANCE,
	    "{\"name\": \"web1.example.com\", \"uuid\": \"i-1\", \"primary_node\": \"n-1\","
	    " \"os\": \"noop\", \"hypervisor\": \"fake\", \"admin_state\": \"up\","
	    " \"disk_template\": \"file\", \"beparams\": {\"maxmem\": 512},"
	    " \"osparams\": {\"dhcp\": \"yes\"}, \"osparams_private\": {\"root_pw\": \"s3cret\"},"
	    " \"disks\": [{\"uuid\": \"d-1\", \"name\": \"root\", \"size\": 1536, \"mode\": \"rw\"}],"
	    " \"nics\": [{\"uuid\": \"c-1\", \"mac\": \"aa:00:00:00:00:01\", \"ip\": null,"
	    " \"nicparams\": {}}], \"tags\": [\"web\", \"prod\"], \"network_port\": null}");
	add(config, GNT_OBJECT_INSTANCE,
	    "{\"name\": \"web10.example.com\", \"uuid\": \"i-10\", \"primary_node\": \"n-2\","
	    " \"os\": \"noop+v1\", \"hypervisor\": \"fake\", \"admin_state\": \"down\","
	    " \"disk_template\": \"diskless\", \"disks\": [], \"nics\": []}");
	g_clear_object(&config);
	start = DAEMONS(fx, "start");
	expect(start, 0, NULL);
}

static void
fx_tear_down(ObjFx *fx, gconstpointer data)
{
	g_autoptr(Run) stop = DAEMONS(fx, "stop");
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->root);

	expect(stop, 0, NULL);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->root);
}

static void
test_instance_list(ObjFx *fx, gconstpointer data)
{
	g_autoptr(Run) plain = INSTANCE(fx, "list");
	g_autoptr(Run) chosen = INSTANCE(fx, "list", "--no-headers", "--separator=|", "-o",
					 "name,tags,disk.sizes,nic.macs,be/memory,status", "web1");
	g_autoptr(Run) appended = INSTANCE(fx, "list", "-o", "+admin_state", "web10");
	g_autoptr(Run) missing = INSTANCE(fx, "list", "web1", "nope");
	g_autoptr(Run) unknown = INSTANCE(fx, "list", "--no-headers", "-o", "name,bogus", "web1");

	/* node1 (192.0.2.1, TEST-NET) cannot be asked: ERROR_nodedown, its live
	 * cells "?" (RS_NODATA), as Ganeti shows them */
	expect(plain, 0,
	       "Instance          Hypervisor OS      Primary_node      Status            Memory\n"
	       "web1.example.com  fake       noop    node1.example.com ERROR_nodedown         ?\n"
	       "web10.example.com fake       noop+v1 node2.example.com ERROR_nodeoffline      ?\n");
	expect(chosen, 0, "web1.example.com|web,prod|1536|aa:00:00:00:00:01|512|ERROR_nodedown\n");
	expect(appended, 0,
	       "Instance          Hypervisor OS      Primary_node      Status            Memory "
	       "InstanceState\n"
	       "web10.example.com fake       noop+v1 node2.example.com ERROR_nodeoffline      ? "
	       "down\n");
	expect(missing, 1, "");
	gnt_test_assert_contains(missing->err, "Instance name 'nope' not found");
	expect(unknown, 14, "web1.example.com ??\n");
	gnt_test_assert_contains(unknown->err, "Warning: Queried for unknown fields bogus");
}

static void
test_instance_list_fields(ObjFx *fx, gconstpointer data)
{
	g_autoptr(Run) all = INSTANCE(fx, "list-fields");
	g_autoptr(Run) some =
		INSTANCE(fx, "list-fields", "--no-headers", "--separator=|", "pnode", "oper_ram");

	expect(all, 0, NULL);
	gnt_test_assert_contains(all->out, "hv/kernel_path");
	gnt_test_assert_contains(all->out, "disk.size/15");
	expect(some, 0,
	       "pnode|Text|Primary_node|Primary node\n"
	       "oper_ram|Storage size|Memory|Actual memory usage as seen by hypervisor\n");
}

static void
test_instance_info(ObjFx *fx, gconstpointer data)
{
	g_autoptr(Run) info = INSTANCE(fx, "info", "web1");
	g_autoptr(Run) none = INSTANCE(fx, "info");
	g_autoptr(Run) both = INSTANCE(fx, "info", "--all", "web1");
	g_autoptr(Run) all = INSTANCE(fx, "info", "--all");

	expect(info, 0, NULL);
	gnt_test_assert_contains(info->out, "- Instance name: web1.example.com\n  UUID: i-1\n");
	gnt_test_assert_contains(info->out, "  State: configured to be up\n");
	gnt_test_assert_contains(info->out, "    - primary: node1.example.com\n");
	gnt_test_assert_contains(info->out, "  Operating system: noop\n");
	gnt_test_assert_contains(info->out, "    dhcp: yes\n");
	gnt_test_assert_contains(info->out, "    root_pw: <redacted>\n");
	gnt_test_assert_contains(info->out, "  Allocated network port: None\n");
	gnt_test_assert_contains(info->out, "    maxmem: 512\n");
	gnt_test_assert_contains(info->out, "    memory: default (512)\n");
	gnt_test_assert_contains(info->out, "    minmem: default (128)\n");
	gnt_test_assert_contains(info->out,
				 "    - nic/0: \n      MAC: aa:00:00:00:00:01\n      IP: None\n");
	gnt_test_assert_contains(info->out, "      mode: bridged\n");
	gnt_test_assert_contains(info->out, "  Disk template: file\n");
	gnt_test_assert_contains(
		info->out, "    - disk/0: file, size 1.5G\n      name: root\n      UUID: d-1\n");
	g_assert_null(strstr(info->out, "s3cret"));
	expect(none, 1, "");
	gnt_test_assert_contains(none->err, "Please pass in --all");
	expect(both, 1, "");
	gnt_test_assert_contains(both->err, "Cannot use --all if you specify instance names.");
	expect(all, 0, NULL);
	gnt_test_assert_contains(all->out, "- Instance name: web10.example.com\n");
}

static void
test_node_list_info(ObjFx *fx, gconstpointer data)
{
	/* by name: init adds this host as the master node */
	g_autoptr(Run) list = NODE(fx, "list", "node1", "node2");
	g_autoptr(Run) chosen = NODE(fx, "list", "--no-headers", "-o",
				     "name,role,pinst_list,tags,offline", "node1");
	g_autoptr(Run) info = NODE(fx, "info", "node1");
	g_autoptr(Run) missing = NODE(fx, "info", "node9");

	/* live fields: "?" without data, "*" for an offline node */
	expect(list, 0,
	       "Node              DTotal DFree MTotal MNode MFree Pinst Sinst\n"
	       "node1.example.com      ?     ?      ?     ?     ?     1     0\n"
	       "node2.example.com      *     *      *     *     *     1     0\n");
	expect(chosen, 0, "node1.example.com C web1.example.com a,b N\n");
	expect(info, 0, NULL);
	gnt_test_assert_contains(info->out,
				 "- Node name: node1.example.com\n  primary ip: 192.0.2.1\n");
	gnt_test_assert_contains(info->out, "  master candidate: True\n");
	gnt_test_assert_contains(info->out, "  primary for instances: \n    - web1.example.com\n");
	gnt_test_assert_contains(info->out, "    ssh_port: default (22)\n");
	expect(missing, 1, "");
	gnt_test_assert_contains(missing->err, "Node name 'node9' not found");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
#define ADD(path, func) g_test_add(path, ObjFx, NULL, fx_set_up, func, fx_tear_down)
	ADD("/tools/instance/list", test_instance_list);
	ADD("/tools/instance/list-fields", test_instance_list_fields);
	ADD("/tools/instance/info", test_instance_info);
	ADD("/tools/node/list-info", test_node_list_info);
#undef ADD
	return g_test_run();
}
