/* Ganeti's ssconf files from the config: their contents, the atomic
 * rewrite, reading them back, and the watch that keeps them current. */
#include <glib/gstdio.h>

#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-ssconf.h"

typedef struct {
	gchar *dir;
	GntConfig *config;
} Fx;

static void
fx_set_up(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *db = NULL;
	g_autoptr(JsonObject) node = json_object_new();

	fx->dir = g_dir_make_tmp("gnt-ssconf-XXXXXX", &error);
	g_assert_no_error(error);
	db = g_build_filename(fx->dir, "config.db", NULL);
	fx->config = gnt_config_create(db, "cluster.example.com", "node1.example.com", &error);
	g_assert_no_error(error);
	json_object_set_string_member(node, "name", "node1.example.com");
	json_object_set_string_member(node, "primary_ip", "192.0.2.1");
	json_object_set_string_member(node, "secondary_ip", "198.51.100.1");
	json_object_set_boolean_member(node, "master_candidate", TRUE);
	json_object_set_boolean_member(node, "vm_capable", TRUE);
	json_object_set_boolean_member(node, "offline", FALSE);
	g_assert_true(gnt_config_add_object(fx->config, GNT_OBJECT_NODE, node, &error));
	g_assert_no_error(error);
}

static void
fx_tear_down(Fx *fx, gconstpointer data)
{
	g_autoptr(GDir) dir = g_dir_open(fx->dir, 0, NULL);
	const gchar *name;

	g_clear_object(&fx->config);
	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = g_build_filename(fx->dir, name, NULL);
		g_assert_cmpint(g_unlink(path), ==, 0);
	}
	g_assert_cmpint(g_rmdir(fx->dir), ==, 0);
	g_free(fx->dir);
}

static void
add_node(Fx *fx, const gchar *name, const gchar *ip, gboolean offline)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) node = json_object_new();

	json_object_set_string_member(node, "name", name);
	json_object_set_string_member(node, "primary_ip", ip);
	json_object_set_string_member(node, "secondary_ip", ip);
	json_object_set_boolean_member(node, "offline", offline);
	g_assert_true(gnt_config_add_object(fx->config, GNT_OBJECT_NODE, node, &error));
	g_assert_no_error(error);
}

static void
add_instance(Fx *fx, const gchar *name)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) instance = json_object_new();

	json_object_set_string_member(instance, "name", name);
	g_assert_true(gnt_config_add_object(fx->config, GNT_OBJECT_INSTANCE, instance, &error));
	g_assert_no_error(error);
}

static void
assert_file(Fx *fx, const gchar *key, const gchar *expected)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *value = gnt_ssconf_read(fx->dir, key, &error);

	g_assert_no_error(error);
	g_assert_cmpstr(value, ==, expected);
}

static void
test_contents(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GHashTable) files = NULL;
	g_autofree gchar *raw = NULL;
	g_autofree gchar *path = g_build_filename(fx->dir, "ssconf_node_list", NULL);
	g_autofree gchar *missing = NULL;

	add_node(fx, "node2.example.com", "192.0.2.2", TRUE);
	add_instance(fx, "web2.example.com");
	add_instance(fx, "web1.example.com");
	g_assert_true(gnt_ssconf_write(fx->config, fx->dir, &error));
	g_assert_no_error(error);

	/* every key has its file */
	files = gnt_ssconf_build(fx->config);
	for (const gchar *const *key = gnt_ssconf_keys(); *key != NULL; key++) {
		g_autofree gchar *name = g_strconcat("ssconf_", *key, NULL);
		g_autofree gchar *file = g_build_filename(fx->dir, name, NULL);

		g_assert_true(g_hash_table_contains(files, *key));
		g_assert_true(g_file_test(file, G_FILE_TEST_IS_REGULAR));
	}
	assert_file(fx, "cluster_name", "cluster.example.com");
	assert_file(fx, "master_node", "node1.example.com");
	assert_file(fx, "master_ip", "192.0.2.1");
	assert_file(fx, "node_list", "node1.example.com\nnode2.example.com");
	assert_file(fx, "node_primary_ips",
		    "node1.example.com 192.0.2.1\nnode2.example.com 192.0.2.2");
	assert_file(fx, "node_secondary_ips",
		    "node1.example.com 198.51.100.1\nnode2.example.com 192.0.2.2");
	assert_file(fx, "online_nodes", "node1.example.com");
	assert_file(fx, "offline_nodes", "node2.example.com");
	assert_file(fx, "master_candidates", "node1.example.com");
	assert_file(fx, "master_candidates_ips", "192.0.2.1");
	assert_file(fx, "node_vm_capable", "node1.example.com=True\nnode2.example.com=False");
	/* sorted by name, as Ganeti's niceSort of a simple list */
	assert_file(fx, "instance_list", "web1.example.com\nweb2.example.com");
	assert_file(fx, "primary_ip_family", "2");
	assert_file(fx, "maintain_node_health", "False");
	assert_file(fx, "cluster_tags", "");
	/* lines end in a newline, as Ganeti writes them */
	g_assert_true(g_file_get_contents(path, &raw, NULL, NULL));
	g_assert_cmpstr(raw, ==, "node1.example.com\nnode2.example.com\n");

	missing = gnt_ssconf_read(fx->dir, "no_such_key", &error);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_null(missing);
}

static gboolean
quit_loop(gpointer loop)
{
	g_main_loop_quit(loop);
	return G_SOURCE_REMOVE;
}

/* Runs the default main context until it is idle. */
static void
run_pending(void)
{
	g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);

	g_idle_add_full(G_PRIORITY_LOW, quit_loop, loop, NULL);
	g_main_loop_run(loop);
}

static void
test_watch(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntSsconfWatch) watch = gnt_ssconf_watch_new(fx->config, fx->dir, &error);
	const gchar *tags[] = {"production", "web", NULL};

	g_assert_no_error(error);
	assert_file(fx, "instance_list", "");
	/* a change schedules one write; several are written together */
	add_instance(fx, "web1.example.com");
	add_instance(fx, "web2.example.com");
	g_assert_true(gnt_config_set_cluster_tags(fx->config, tags, &error));
	assert_file(fx, "instance_list", ""); /* not yet: on the main loop */
	run_pending();
	assert_file(fx, "instance_list", "web1.example.com\nweb2.example.com");
	assert_file(fx, "cluster_tags", "production\nweb");

	/* once stopped, changes are not written any more */
	g_clear_pointer(&watch, gnt_ssconf_watch_free);
	add_instance(fx, "web3.example.com");
	run_pending();
	assert_file(fx, "instance_list", "web1.example.com\nweb2.example.com");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/ssconf/contents", Fx, NULL, fx_set_up, test_contents, fx_tear_down);
	g_test_add("/ssconf/watch", Fx, NULL, fx_set_up, test_watch, fx_tear_down);
	return g_test_run();
}
