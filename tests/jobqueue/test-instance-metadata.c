/* The instance's metadata record for gantry-metad and the communication
 * NIC's cluster-unique link-local address and MAC
 * (cmdlib/gnt-lu-instance-metadata.h), over a config on a temporary root. */
#include <stdio.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-metadata.h"

typedef struct {
	gchar *dir;
	GntConfig *config;
} MetaFx;

static void
fx_set_up(MetaFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *lib = NULL;
	g_autofree gchar *db = NULL;

	fx->dir = g_dir_make_tmp("gnt-meta-XXXXXX", &error);
	g_assert_no_error(error);
	lib = g_build_filename(fx->dir, "var", "lib", "gantry", NULL);
	g_assert_cmpint(g_mkdir_with_parents(lib, 0700), ==, 0);
	db = g_build_filename(lib, "config.db", NULL);
	fx->config = gnt_config_create(db, "cluster.example.com", "node1.example.com", &error);
	g_assert_no_error(error);
}

static void
fx_tear_down(MetaFx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

	g_clear_object(&fx->config);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->dir);
}

/* Addresses stay unique over many instances, in 169.254.1.1 ..
 * 169.254.254.254, never metad's own; MACs too, under the prefix. */
static void
test_communication_unique(MetaFx *fx, gconstpointer data)
{
	g_autoptr(GHashTable) ips = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) macs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	const guint n = 1500;

	for (guint i = 0; i < n; i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonObject) nic =
			gnt_lu_instance_communication_nic_new(fx->config, "aa:00:00", NULL, &error);
		g_autoptr(JsonObject) record = json_object_new();
		g_autofree gchar *name = g_strdup_printf("inst%u.example.com", i);
		const gchar *ip;
		guint a = 0, b = 0;

		g_assert_no_error(error);
		ip = json_object_get_string_member(nic, "ip");
		g_assert_cmpint(sscanf(ip, "169.254.%u.%u", &a, &b), ==, 2);
		g_assert_cmpuint(a, >=, 1);
		g_assert_cmpuint(a, <=, 254);
		g_assert_cmpuint(b, >=, 1);
		g_assert_cmpuint(b, <=, 254);
		g_assert_cmpstr(ip, !=, GNT_METADATA_ADDRESS);
		g_assert_true(
			g_str_has_prefix(json_object_get_string_member(nic, "mac"), "aa:00:00:"));
		g_assert_true(g_hash_table_add(ips, g_strdup(ip)));
		g_assert_true(g_hash_table_add(
			macs, g_strdup(json_object_get_string_member(nic, "mac"))));
		json_object_set_string_member(record, "name", name);
		json_object_set_object_member(record, "communication_nic", g_steal_pointer(&nic));
		json_object_set_array_member(record, "nics", json_array_new());
		g_assert_true(
			gnt_config_add_object(fx->config, GNT_OBJECT_INSTANCE, record, &error));
		g_assert_no_error(error);
	}
	g_assert_cmpuint(g_hash_table_size(ips), ==, n);
}

/* Creates running side by side allocate before either commits: what was
 * handed out is never handed out again, committed or not. */
static void
test_communication_not_committed(MetaFx *fx, gconstpointer data)
{
	g_autoptr(GHashTable) ips = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) macs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; i < 500; i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonObject) nic =
			gnt_lu_instance_communication_nic_new(fx->config, "aa:00:01", NULL, &error);

		g_assert_no_error(error);
		g_assert_true(
			g_hash_table_add(ips, g_strdup(json_object_get_string_member(nic, "ip"))));
		g_assert_true(g_hash_table_add(
			macs, g_strdup(json_object_get_string_member(nic, "mac"))));
	}
}

/* The record metad gets: no secrets, the cluster's keys when the instance
 * has none, the communication NIC last with its netmask. */
static void
test_record(MetaFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) instance = gnt_json_parse(
		"{\"name\": \"web1.example.com\", \"uuid\": \"u-1\", \"os\": \"noop+default\","
		" \"primary_node\": \"n-1\","
		" \"osparams\": {\"os-package\": \"https://example.com/p.tgz\"},"
		" \"osparams_private\": {\"rootpw\": \"s3cret\"},"
		" \"communication\": true,"
		" \"communication_nic\": {\"mac\": \"aa:00:00:01:02:03\", \"ip\": \"169.254.3.4\"},"
		" \"nics\": [{\"mac\": \"aa:00:00:0a:0b:0c\", \"ip\": null}],"
		" \"user_data\": \"#cloud-config\\n\"}",
		-1, &error);
	g_autoptr(JsonObject) changes = json_object_new();
	g_autoptr(JsonObject) record = NULL;
	g_autoptr(JsonObject) own = NULL;
	g_autoptr(JsonNode) expected = gnt_json_parse(
		"{\"name\": \"web1.example.com\", \"uuid\": \"u-1\","
		" \"hostname\": \"web1.example.com\", \"os\": \"noop+default\","
		" \"availability_zone\": \"rack1\","
		" \"osparams\": {\"os-package\": \"https://example.com/p.tgz\"},"
		" \"osparams_private\": {\"rootpw\": \"s3cret\"},"
		" \"os_search_path\": [\"/srv/ganeti/os\", \"/usr/local/lib/ganeti/os\","
		" \"/usr/lib/ganeti/os\", \"/usr/share/ganeti/os\"],"
		" \"user_data\": \"#cloud-config\\n\","
		" \"ssh_keys\": [\"ssh-ed25519 AAAA admin@example.com\"],"
		" \"nics\": [{\"mac\": \"aa:00:00:0a:0b:0c\"},"
		" {\"mac\": \"aa:00:00:01:02:03\", \"ip\": \"169.254.3.4\","
		" \"netmask\": \"255.255.0.0\", \"channel\": true}]}",
		-1, NULL);
	g_autoptr(GntSecret) secret_json = gnt_secret_new(
		"{\"token\": \"t\", \"os-package-username\": \"u\", \"os-package-password\": \"p\"}",
		-1);
	g_autoptr(GntSecretDict) secret = gnt_secret_dict_new_from_json(secret_json, NULL);
	g_autoptr(GntSecretDict) kept = NULL;
	g_autoptr(JsonObject) node = json_object_new();
	g_autoptr(JsonNode) got = NULL;
	g_autofree gchar *got_text = NULL;
	g_autofree gchar *expected_text = NULL;
	JsonArray *keys = json_array_new();

	/* the availability zone: the primary node's group */
	json_object_set_string_member(node, "name", "node2.example.com");
	json_object_set_string_member(node, "uuid", "n-1");
	json_object_set_string_member(node, "group", "rack1");
	g_assert_no_error(error);
	g_assert_true(gnt_config_add_object(fx->config, GNT_OBJECT_NODE, node, &error));
	g_assert_no_error(error);
	json_array_add_string_element(keys, "ssh-ed25519 AAAA admin@example.com");
	json_object_set_array_member(changes, "ssh_keys", keys);
	g_assert_true(gnt_config_set_cluster_settings(fx->config, changes, &error));
	g_assert_no_error(error);

	record = gnt_lu_instance_metadata_new(fx->config, json_node_get_object(instance));
	got = gnt_json_node_new_object(json_object_ref(record));
	got_text = json_to_string(got, FALSE);
	expected_text = json_to_string(expected, FALSE);
	g_assert_cmpstr(got_text, ==, expected_text);

	/* its own keys win; without communication no channel NIC */
	json_object_set_array_member(json_node_get_object(instance), "ssh_keys", json_array_new());
	json_array_add_string_element(json_object_get_array_member(json_node_get_object(instance),
								   "ssh_keys"),
				      "ssh-rsa BBBB own@example.com");
	json_object_set_boolean_member(json_node_get_object(instance), "communication", FALSE);
	own = gnt_lu_instance_metadata_new(fx->config, json_node_get_object(instance));
	g_assert_cmpstr(json_array_get_string_element(json_object_get_array_member(own, "ssh_keys"),
						      0),
			==, "ssh-rsa BBBB own@example.com");
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(own, "nics")), ==, 1);
	g_assert_false(gnt_lu_instance_has_communication(json_node_get_object(instance)));

	/* the package's credentials never reach metad */
	kept = gnt_lu_instance_metadata_secrets(secret);
	g_assert_cmpuint(gnt_secret_dict_size(kept), ==, 1);
	g_assert_cmpstr(gnt_secret_dict_lookup(kept, "token"), ==, "t");
	gnt_secret_dict_remove(secret, "token");
	g_assert_null(gnt_lu_instance_metadata_secrets(secret));
	g_assert_null(gnt_lu_instance_metadata_secrets(NULL));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/instance-metadata/communication-not-committed", MetaFx, NULL, fx_set_up,
		   test_communication_not_committed, fx_tear_down);
	g_test_add("/instance-metadata/communication-unique", MetaFx, NULL, fx_set_up,
		   test_communication_unique, fx_tear_down);
	g_test_add("/instance-metadata/record", MetaFx, NULL, fx_set_up, test_record, fx_tear_down);
	return g_test_run();
}
