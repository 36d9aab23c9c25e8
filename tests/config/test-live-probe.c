/* The live probe (config/gnt-live-probe.h) against scripted nodes
 * (tests/rpc/fake-node.h): what it asks, how the answers become the live
 * data the query fields read, and nodes that fail or are not asked. */
#include <string.h>

#include "fake-node.h"
#include "gnt-json.h"
#include "gnt-live-probe.h"
#include "gnt-test-util.h"

static void
add_node(GntConfig *config, const gchar *name, gboolean offline)
{
	g_autoptr(JsonObject) node = json_object_new();
	g_autoptr(GError) error = NULL;

	json_object_set_string_member(node, "name", name);
	json_object_set_string_member(node, "primary_ip", "192.0.2.1");
	json_object_set_boolean_member(node, "offline", offline);
	g_assert_true(gnt_config_add_object(config, GNT_OBJECT_NODE, node, &error));
	g_assert_no_error(error);
}

/* instance_list with the hypervisors given; a guest that shut itself off
 * reads "shutdown", an entry that is not an object is left out. */
static void
test_instances(void)
{
	g_autoptr(FakeNode) nodes = fake_node_new();
	g_autoptr(JsonObject) node = json_object_new();
	g_autoptr(JsonObject) running = NULL;
	g_autoptr(JsonObject) failed = NULL;
	g_autoptr(GError) error = NULL;
	const gchar *hypervisors[] = {"kvm", "fake", NULL};
	const FakeCall *call;

	json_object_set_string_member(node, "name", "node1");
	json_object_set_string_member(node, "primary_ip", "192.0.2.1");
	fake_node_answer(nodes, "instance_list",
			 "{\"web1\": {\"state\": \"shutoff\", \"memory\": 128},"
			 " \"web2\": {\"state\": \"running\", \"vcpus\": 2}, \"junk\": 3}");
	running =
		gnt_live_probe_instances(fake_node_get_client(nodes), node, hypervisors, 0, &error);
	g_assert_no_error(error);
	g_assert_nonnull(running);
	g_assert_cmpuint(json_object_get_size(running), ==, 2);
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(running, "web1"), "state"),
			==, "shutdown");
	g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(running, "web1"),
						   "memory"),
			==, 128);
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(running, "web2"), "state"),
			==, "running");
	call = fake_node_find_call(nodes, "instance_list", 1);
	g_assert_nonnull(call);
	g_assert_cmpstr(call->node, ==, "node1");
	g_assert_cmpstrv(gnt_rpc_args_get_strv(call->args, "hypervisors"), hypervisors);

	fake_node_fail(nodes, "instance_list", 2, GNT_ERROR_ENVIRONMENT, "node is down");
	failed = gnt_live_probe_instances(fake_node_get_client(nodes), node, hypervisors,
					  GNT_LIVE_PROBE_TIMEOUT_S, &error);
	g_assert_null(failed);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(strstr(error->message, "node is down"));
}

static void
collected_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	GntLiveData **out = user_data;
	g_autoptr(GError) error = NULL;

	*out = gnt_live_probe_collect_finish(res, &error);
	g_assert_no_error(error);
	g_assert_nonnull(*out);
}

/* The query's answer of @fields for node @name. (transfer full) */
static JsonArray *
node_row(GntConfig *config, GntLiveData *live, const gchar *name, const gchar *fields_json)
{
	g_autoptr(JsonNode) fields = gnt_json_parse(fields_json, -1, NULL);
	g_autoptr(JsonArray) names = json_array_new();
	g_autoptr(JsonNode) rows = NULL;
	g_autoptr(GError) error = NULL;

	json_array_add_string_element(names, name);
	rows = gnt_object_query_values(config, GNT_OBJECT_NODE, names, json_node_get_array(fields),
				       live, &error);
	g_assert_no_error(error);
	return json_array_ref(json_array_get_array_element(json_node_get_array(rows), 0));
}

/* For a node query every online node is asked node_info, its answer read
 * by the node fields; an offline one is not asked, one that fails is
 * marked failed (no data). */
static void
test_collect_nodes(void)
{
	GntTestRoot root;
	g_autoptr(FakeNode) nodes = fake_node_new();
	g_autoptr(GMainContext) context = g_main_context_new();
	GntLiveData *live = NULL;
	g_autoptr(JsonArray) up = NULL;
	g_autoptr(JsonArray) down = NULL;
	g_autoptr(JsonArray) offline = NULL;
	g_autofree gchar *trace = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	add_node(root.config, "node1.example.com", FALSE);
	add_node(root.config, "node2.example.com", FALSE);
	add_node(root.config, "node3.example.com", TRUE);
	fake_node_answer(nodes, "node_info",
			 "{\"memory_total\": 4096, \"memory_free\": 1024, \"cpu_count\": 4,"
			 " \"bootid\": \"b-1\", \"storage\": []}");
	fake_node_fail(nodes, "node_info", 2, GNT_ERROR_ENVIRONMENT, "node is down");
	g_main_context_push_thread_default(context);
	gnt_live_probe_collect_async(root.config, fake_node_get_client(nodes), GNT_OBJECT_NODE,
				     collected_cb, &live);
	while (live == NULL)
		g_main_context_iteration(context, TRUE);
	g_main_context_pop_thread_default(context);

	trace = fake_node_dup_trace(nodes);
	g_assert_cmpstr(trace, ==, "node_info node_info");
	g_assert_null(fake_node_find_call(nodes, "node_info", 3));
	up = node_row(root.config, live, fake_node_find_call(nodes, "node_info", 1)->node,
		      "[\"mtotal\", \"mfree\", \"mnode\", \"ctotal\", \"bootid\"]");
	g_assert_cmpint(json_array_get_int_element(up, 0), ==, 4096);
	g_assert_cmpint(json_array_get_int_element(up, 1), ==, 1024);
	g_assert_cmpint(json_array_get_int_element(up, 2), ==, 3072);
	g_assert_cmpint(json_array_get_int_element(up, 3), ==, 4);
	g_assert_cmpstr(json_array_get_string_element(up, 4), ==, "b-1");
	down = node_row(root.config, live, fake_node_find_call(nodes, "node_info", 2)->node,
			"[\"mtotal\"]");
	g_assert_true(JSON_NODE_HOLDS_NULL(json_array_get_element(down, 0)));
	offline = node_row(root.config, live, "node3.example.com", "[\"mtotal\"]");
	g_assert_true(JSON_NODE_HOLDS_NULL(json_array_get_element(offline, 0)));
	gnt_live_data_free(live);
	gnt_test_root_clear(&root);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/live-probe/instances", test_instances);
	g_test_add_func("/live-probe/collect-nodes", test_collect_nodes);
	return g_test_run();
}
