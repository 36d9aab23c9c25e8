#include <glib/gstdio.h>

#include "config-test-json.h"
#include "gnt-config.h"
#include "gnt-error.h"

typedef struct {
	gchar *dir;
	gchar *root; /* dir, as a Gantry root */
	gchar *path; /* <root>/var/lib/gantry/config.db */
} ConfigFx;

static void
config_set_up(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *data_dir = NULL;

	fx->dir = g_dir_make_tmp("gnt-config-XXXXXX", &error);
	g_assert_no_error(error);
	fx->root = g_canonicalize_filename(fx->dir, NULL);
	data_dir = g_build_filename(fx->root, "var", "lib", "gantry", NULL);
	g_assert_cmpint(g_mkdir_with_parents(data_dir, 0750), ==, 0);
	fx->path = g_build_filename(data_dir, "config.db", NULL);
}

static void
rm_rf(const gchar *path)
{
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	const gchar *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *child = g_build_filename(path, name, NULL);
		if (g_file_test(child, G_FILE_TEST_IS_DIR))
			rm_rf(child);
		else
			g_assert_cmpint(g_unlink(child), ==, 0);
	}
	g_assert_cmpint(g_rmdir(path), ==, 0);
}

static void
config_tear_down(ConfigFx *fx, gconstpointer data)
{
	rm_rf(fx->dir);
	g_free(fx->dir);
	g_free(fx->root);
	g_free(fx->path);
}

/* Exact comparison: member order and number types count. */
static GntConfig *
create_cluster(ConfigFx *fx)
{
	g_autoptr(GError) error = NULL;
	GntConfig *config =
		gnt_config_create(fx->path, "cluster.example.com", "node1.example.com", &error);

	g_assert_no_error(error);
	g_assert_nonnull(config);
	return config;
}

static void
test_create(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GntConfig) config = create_cluster(fx);
	g_autofree gchar *name = gnt_config_dup_cluster_name(config);
	g_autofree gchar *master = gnt_config_dup_master_node(config);
	g_autofree gchar *uuid = gnt_config_dup_cluster_uuid(config);
	g_autoptr(GntCluster) cluster = gnt_config_dup_cluster(config);
	g_autofree gchar *file_storage =
		g_build_filename(fx->root, "srv", "gantry", "file-storage", NULL);
	gdouble now = (gdouble)g_get_real_time() / G_USEC_PER_SEC;

	g_assert_cmpstr(name, ==, "cluster.example.com");
	g_assert_cmpstr(master, ==, "node1.example.com");
	g_assert_true(g_uuid_string_is_valid(uuid));
	g_assert_cmpstr(cluster->uuid, ==, uuid);
	g_assert_cmpint(cluster->serial_no, ==, 1);
	g_assert_cmpfloat(cluster->ctime, ==, cluster->mtime);
	g_assert_cmpfloat(cluster->ctime, <=, now);
	g_assert_cmpfloat(cluster->ctime, >, now - 60);
	g_assert_cmpuint(g_strv_length(cluster->tags), ==, 0);
	/* directories default under the root the database lies in */
	g_assert_cmpstr(json_object_get_string_member(cluster->settings, "file_storage_dir"), ==,
			file_storage);
	g_assert_cmpint(gnt_config_get_max_running_jobs(config), ==, 20);
}

static void
test_create_default_master(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) config = NULL;
	g_autofree gchar *master = NULL;
	g_autofree gchar *host = g_ascii_strdown(g_get_host_name(), -1);

	if (!gnt_config_check_name(host, "host name", NULL)) {
		g_test_skip("this host's name is not a DNS name");
		return;
	}
	config = gnt_config_create(fx->path, "Cluster.EXAMPLE.com", NULL, &error);
	g_assert_no_error(error);
	master = gnt_config_dup_master_node(config);
	g_assert_cmpstr(master, ==, host);
	g_free(master);
	master = gnt_config_dup_cluster_name(config); /* stored in lower case */
	g_assert_cmpstr(master, ==, "cluster.example.com");
}

static void
test_create_exists(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) config = create_cluster(fx);
	g_autoptr(GntConfig)
		second = gnt_config_create(fx->path, "other.example.com", "node2", &error);
	g_autofree gchar *expected = g_strdup_printf("a cluster already exists in '%s'", fx->path);
	g_autofree gchar *name = NULL;

	g_assert_null(second);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	g_assert_cmpstr(error->message, ==, expected);
	/* the first one is untouched */
	g_clear_object(&config);
	config = gnt_config_open(fx->path, &error);
	g_assert_nonnull(config);
	name = gnt_config_dup_cluster_name(config);
	g_assert_cmpstr(name, ==, "cluster.example.com");
}

static void
test_open_not_found(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) config = gnt_config_open(fx->path, &error);
	g_autofree gchar *expected = g_strdup_printf("no cluster configuration at '%s'", fx->path);

	g_assert_null(config);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, expected);
	/* opening must not create the file */
	g_assert_false(g_file_test(fx->path, G_FILE_TEST_EXISTS));
}

static void
test_open_empty_file(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) config = NULL;
	g_autofree gchar *expected = g_strdup_printf("no cluster in '%s'", fx->path);

	g_file_set_contents(fx->path, "", 0, &error);
	g_assert_no_error(error);
	config = gnt_config_open(fx->path, &error);
	g_assert_null(config);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, expected);
}

static void
test_open_not_a_database(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) config = NULL;

	g_file_set_contents(fx->path,
			    "this is not SQLite, but long enough to have a header......"
			    "..........................................................",
			    -1, &error);
	g_assert_no_error(error);
	config = gnt_config_open(fx->path, &error);
	g_assert_null(config);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
}

static void
test_create_no_directory(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = g_build_filename(fx->root, "missing", "config.db", NULL);
	g_autoptr(GntConfig) config = gnt_config_create(path, "c.example.com", "n1", &error);

	g_assert_null(config);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_true(strstr(error->message, path) != NULL);
}

static void
test_invalid_names(ConfigFx *fx, gconstpointer data)
{
	g_autofree gchar *long_label = g_strnfill(64, 'a');
	g_autofree gchar *max_label = g_strnfill(63, 'a');
	g_autofree gchar *too_long = NULL;
	g_autofree gchar *max_len = NULL;
	const gchar *bad[] = {"",	".",   "a..b", "a.",	".a", "-a.com",
			      "a-.com", "a b", "a/b",  "é.com", "a:b"};

	/* 4 labels of 63 plus dots = 255; trim to the limits */
	too_long = g_strjoin(".", max_label, max_label, max_label, max_label, NULL);
	too_long[254] = '\0';
	max_len = g_strndup(too_long, 253);

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GntConfig) config = gnt_config_create(fx->path, bad[i], "node1", &error);
		g_autofree gchar *expected = g_strdup_printf(
			"invalid cluster name '%s': expected a DNS name of 1 to 253 characters, with "
			"labels of letters, digits, '-' and '_'",
			bad[i]);

		g_assert_null(config);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_cmpstr(error->message, ==, expected);
	}
	g_assert_false(gnt_config_check_name(long_label, "name", NULL));
	g_assert_true(gnt_config_check_name(max_label, "name", NULL));
	g_assert_false(gnt_config_check_name(too_long, "name", NULL));
	g_assert_true(gnt_config_check_name(max_len, "name", NULL));
	g_assert_true(gnt_config_check_name("node_1.example-2.com", "name", NULL));
	{
		g_autoptr(GError) error = NULL;
		g_autoptr(GntConfig)
			config = gnt_config_create(fx->path, "c.example.com", "bad node", &error);
		g_assert_null(config);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_true(
			g_str_has_prefix(error->message, "invalid master node name 'bad node'"));
	}
	/* nothing was written */
	g_assert_false(g_file_test(fx->path, G_FILE_TEST_EXISTS));
}

static void
test_change_survives_reopen(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) config = create_cluster(fx);
	g_autoptr(GntCluster) before = gnt_config_dup_cluster(config);
	g_autoptr(GntCluster) after = NULL;
	g_autoptr(JsonObject) after_json = NULL;
	g_autoptr(JsonObject) reopened_json = NULL;
	g_autoptr(GntCluster) reopened = NULL;

	g_assert_true(gnt_config_set_max_running_jobs(config, 7, &error));
	g_assert_no_error(error);
	g_assert_cmpint(gnt_config_get_max_running_jobs(config), ==, 7);
	after = gnt_config_dup_cluster(config);
	g_assert_cmpint(after->serial_no, ==, before->serial_no + 1);
	g_assert_cmpfloat(after->mtime, >=, before->mtime);
	g_assert_cmpfloat(after->ctime, ==, before->ctime);

	/* a bad value changes nothing */
	g_assert_false(gnt_config_set_max_running_jobs(config, 0, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "'max_running_jobs' must be at least 1, not 0");
	g_assert_cmpint(gnt_config_get_max_running_jobs(config), ==, 7);
	g_clear_error(&error);

	/* another process's view: a second connection, then a fresh open */
	g_clear_object(&config);
	config = gnt_config_open(fx->path, &error);
	g_assert_no_error(error);
	reopened = gnt_config_dup_cluster(config);
	after_json = gnt_cluster_to_json(after);
	reopened_json = gnt_cluster_to_json(reopened);
	{
		g_autoptr(JsonNode) a = gnt_json_node_new_object(json_object_ref(after_json));
		g_autoptr(JsonNode) b = gnt_json_node_new_object(json_object_ref(reopened_json));
		test_json_assert_same(b, a);
	}
	g_assert_cmpint(gnt_config_get_max_running_jobs(config), ==, 7);
}

static void
test_wal_mode(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GntConfig) config = create_cluster(fx);
	g_autofree gchar *wal = g_strconcat(fx->path, "-wal", NULL);

	/* journal_mode=WAL: the write-ahead log exists while the database is open */
	g_assert_nonnull(config);
	g_assert_true(g_file_test(wal, G_FILE_TEST_EXISTS));
}

static const gchar *const info_keys[] = {
	"software_version",
	"protocol_version",
	"config_version",
	"os_api_version",
	"export_version",
	"vcs_version",
	"architecture",
	"name",
	"master",
	"uuid",
	"ctime",
	"mtime",
	"tags",
	"default_hypervisor",
	"enabled_hypervisors",
	"hvparams",
	"os_hvp",
	"beparams",
	"osparams",
	"ipolicy",
	"nicparams",
	"ndparams",
	"diskparams",
	"candidate_pool_size",
	"max_running_jobs",
	"max_tracked_jobs",
	"mac_prefix",
	"master_netdev",
	"master_netmask",
	"use_external_mip_script",
	"primary_ip_version",
	"volume_group_name",
	"drbd_usermode_helper",
	"file_storage_dir",
	"shared_file_storage_dir",
	"gluster_storage_dir",
	"prealloc_wipe_disks",
	"reserved_lvs",
	"enabled_disk_templates",
	"maintain_node_health",
	"uid_pool",
	"default_iallocator",
	"default_iallocator_params",
	"hidden_os",
	"blacklisted_os",
	"install_image",
	"instance_communication_network",
	"zeroing_image",
	"compression_tools",
	"enabled_user_shutdown",
	"enabled_data_collectors",
	"data_collector_interval",
	"modify_ssh_setup",
	"ssh_key_type",
	"ssh_key_bits",
	"os_search_path", /* Gantry: where OS definitions are looked for */
	/* Gantry's installs and metadata */
	"enable_safe_install",
	"install_timeout",
	"image_cache_size",
	"kickstart_dir",
	"default_ks_template",
	"ksvalidator",
	"installer_start_timeout",
	"installer_end_timeout",
	"installer_poweroff_grace",
	"install_denied_steps",
	"install_step_priorities",
	"ssh_keys",
	"trusted_os",
};

static void
test_cluster_info(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GntConfig) config = create_cluster(fx);
	g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(config);
	g_autoptr(JsonObject) again = NULL;
	JsonArray *arch = json_object_get_array_member(info, "architecture");
	JsonObject *beparams;

	for (guint i = 0; i < G_N_ELEMENTS(info_keys); i++) {
		g_test_message("QueryClusterInfo key '%s'", info_keys[i]);
		g_assert_true(json_object_has_member(info, info_keys[i]));
	}
	g_assert_cmpuint(json_object_get_size(info), ==, G_N_ELEMENTS(info_keys));
	g_assert_cmpstr(json_object_get_string_member(info, "name"), ==, "cluster.example.com");
	g_assert_cmpstr(json_object_get_string_member(info, "master"), ==, "node1.example.com");
	g_assert_cmpint(json_object_get_int_member(info, "protocol_version"), ==, 3000000);
	g_assert_cmpint(json_object_get_int_member(info, "config_version"), ==, 3000000);
	g_assert_cmpint(json_object_get_int_member(info, "os_api_version"), ==, 20);
	g_assert_cmpint(json_object_get_int_member(info, "export_version"), ==, 0);
	g_assert_cmpuint(json_array_get_length(arch), ==, 2);
	g_assert_cmpstr(json_array_get_string_element(arch, 0), ==, "64bits");
	g_assert_cmpstr(json_object_get_string_member(info, "default_hypervisor"), ==, "fake");
	g_assert_true(json_object_get_null_member(info, "volume_group_name"));
	g_assert_cmpstr(json_object_get_string_member(info, "mac_prefix"), ==, "aa:00:00");
	g_assert_cmpint(json_object_get_int_member(info, "candidate_pool_size"), ==, 10);
	g_assert_cmpint(json_object_get_int_member(info, "max_running_jobs"), ==, 20);
	g_assert_true(JSON_NODE_HOLDS_VALUE(json_object_get_member(info, "ctime")));
	g_assert_cmpint(json_node_get_value_type(json_object_get_member(info, "ctime")), ==,
			G_TYPE_DOUBLE);

	/* the answer is the caller's: changing it changes nothing stored */
	beparams = json_object_get_object_member(info, "beparams");
	json_object_remove_member(beparams, "default");
	again = gnt_config_dup_cluster_info(config);
	g_assert_true(json_object_has_member(json_object_get_object_member(again, "beparams"),
					     "default"));
}

static void
test_config_values(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GntConfig) config = create_cluster(fx);
	g_autoptr(JsonNode) names = gnt_json_parse(
		"[\"master_node\", \"cluster_name\", \"drain_flag\", \"watcher_pause\", \"nope\","
		" \"modify_ssh_setup\", \"ssh_key_type\", \"ssh_key_bits\", 5]",
		-1, NULL);
	g_autoptr(JsonNode)
		values = gnt_config_dup_config_values(config, json_node_get_array(names), TRUE);
	g_autoptr(JsonNode) expected = gnt_json_parse(
		"[\"node1.example.com\", \"cluster.example.com\", true, null, null, false, \"rsa\","
		" 2048, null]",
		-1, NULL);
	g_autoptr(JsonNode) empty_names = gnt_json_parse("[]", -1, NULL);
	g_autoptr(JsonNode) empty =
		gnt_config_dup_config_values(config, json_node_get_array(empty_names), FALSE);

	test_json_assert_same(values, expected);
	test_json_assert_same(empty, empty_names);
}

static void
test_record_golden(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) golden = test_json_load("config-cluster.json");
	g_autoptr(GntCluster) cluster = gnt_cluster_from_json(json_node_get_object(golden), &error);
	g_autoptr(GntCluster) copy = NULL;
	g_autoptr(JsonNode) out = NULL;
	g_autoptr(JsonNode) copy_out = NULL;

	g_assert_no_error(error);
	g_assert_cmpstr(cluster->name, ==, "cluster.example.com");
	g_assert_cmpint(cluster->serial_no, ==, 3);
	g_assert_cmpfloat(cluster->ctime, ==, 1700000000.25);
	g_assert_cmpuint(g_strv_length(cluster->tags), ==, 2);
	out = gnt_json_node_new_object(gnt_cluster_to_json(cluster));
	test_json_assert_same(out, golden);

	copy = gnt_cluster_copy(cluster);
	copy_out = gnt_json_node_new_object(gnt_cluster_to_json(copy));
	test_json_assert_same(copy_out, golden);
}

static void
test_record_unknown_and_missing_keys(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) golden = test_json_load("config-cluster.json");
	g_autoptr(JsonNode) edited = json_node_copy(golden);
	JsonObject *obj = json_node_get_object(edited);
	g_autoptr(GntCluster) cluster = NULL;
	g_autoptr(JsonNode) out = NULL;

	/* a key from a newer version is skipped; a missing setting takes its
	 * default (here the same value as in the golden file) */
	json_object_set_string_member(obj, "future_setting", "x");
	json_object_remove_member(obj, "mac_prefix");
	json_object_remove_member(obj, "tags");
	cluster = gnt_cluster_from_json(obj, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(g_strv_length(cluster->tags), ==, 0);
	out = gnt_json_node_new_object(gnt_cluster_to_json(cluster));
	g_assert_false(json_object_has_member(json_node_get_object(out), "future_setting"));
	g_assert_cmpstr(json_object_get_string_member(json_node_get_object(out), "mac_prefix"), ==,
			"aa:00:00");
}

static const struct {
	const gchar *key;
	const gchar *value; /* JSON; NULL: remove the key */
	const gchar *message;
} bad_records[] = {
	{"uuid", NULL, "cluster record: 'uuid' is missing"},
	{"uuid", "\"nope\"", "cluster record: 'uuid' is not a UUID: 'nope'"},
	{"name", "\"a..b\"",
	 "cluster record: invalid cluster name 'a..b': expected a DNS name of 1 to 253 characters, "
	 "with labels of letters, digits, '-' and '_'"},
	{"serial_no", "\"3\"", "cluster record: 'serial_no' must be an integer, not string"},
	{"ctime", "null", "cluster record: 'ctime' must be a number, not null"},
	{"tags", "[\"a\", 1]", "cluster record: tag 1 must be a string, not integer"},
	{"max_running_jobs", "\"20\"",
	 "cluster record: 'max_running_jobs' must be an integer, not string"},
	{"max_running_jobs", "-1", "cluster record: 'max_running_jobs' must be at least 1, not -1"},
	{"hvparams", "[]", "cluster record: 'hvparams' must be a dictionary, not list"},
	{"enabled_hypervisors", "\"fake\"",
	 "cluster record: 'enabled_hypervisors' must be a list, not string"},
	{"enabled_hypervisors", "[null]",
	 "cluster record: element 0 of 'enabled_hypervisors' must be a string, not null"},
	{"prealloc_wipe_disks", "0",
	 "cluster record: 'prealloc_wipe_disks' must be a boolean, not integer"},
	{"volume_group_name", "1",
	 "cluster record: 'volume_group_name' must be a string, not integer"},
	{"mac_prefix", "null", "cluster record: 'mac_prefix' must be a string, not null"},
};

static void
test_record_invalid(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(bad_records); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) golden = test_json_load("config-cluster.json");
		JsonObject *obj = json_node_get_object(golden);
		g_autoptr(GntCluster) cluster = NULL;

		if (bad_records[i].value == NULL)
			json_object_remove_member(obj, bad_records[i].key);
		else
			json_object_set_member(obj, bad_records[i].key,
					       gnt_json_parse(bad_records[i].value, -1, NULL));
		cluster = gnt_cluster_from_json(obj, &error);
		g_assert_null(cluster);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_cmpstr(error->message, ==, bad_records[i].message);
	}
}

typedef struct {
	GntConfig *config;
	gint stop;
} ReaderData;

static gpointer
reader_thread(gpointer user_data)
{
	ReaderData *data = user_data;
	guint reads = 0;

	while (!g_atomic_int_get(&data->stop) || reads == 0) {
		g_autofree gchar *name = gnt_config_dup_cluster_name(data->config);
		g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(data->config);
		gint64 max = gnt_config_get_max_running_jobs(data->config);

		g_assert_cmpstr(name, ==, "cluster.example.com");
		g_assert_cmpint(max, >=, 1);
		g_assert_cmpint(json_object_get_int_member(info, "max_running_jobs"), >=, 1);
		reads++;
	}
	return GUINT_TO_POINTER(reads);
}

static void
test_threads(ConfigFx *fx, gconstpointer data)
{
	g_autoptr(GntConfig) config = create_cluster(fx);
	ReaderData reader = {config, 0};
	GThread *threads[4];

	for (guint i = 0; i < G_N_ELEMENTS(threads); i++)
		threads[i] = g_thread_new("reader", reader_thread, &reader);
	for (gint64 n = 1; n <= 20; n++) {
		g_autoptr(GError) error = NULL;
		g_assert_true(gnt_config_set_max_running_jobs(config, n, &error));
	}
	g_atomic_int_set(&reader.stop, 1);
	for (guint i = 0; i < G_N_ELEMENTS(threads); i++)
		g_assert_cmpuint(GPOINTER_TO_UINT(g_thread_join(threads[i])), >, 0);
	g_assert_cmpint(gnt_config_get_max_running_jobs(config), ==, 20);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
#define ADD(path, func) g_test_add(path, ConfigFx, NULL, config_set_up, func, config_tear_down)
	ADD("/config/create", test_create);
	ADD("/config/create/default-master", test_create_default_master);
	ADD("/config/create/exists", test_create_exists);
	ADD("/config/create/no-directory", test_create_no_directory);
	ADD("/config/create/invalid-names", test_invalid_names);
	ADD("/config/open/not-found", test_open_not_found);
	ADD("/config/open/empty-file", test_open_empty_file);
	ADD("/config/open/not-a-database", test_open_not_a_database);
	ADD("/config/change-survives-reopen", test_change_survives_reopen);
	ADD("/config/wal-mode", test_wal_mode);
	ADD("/config/cluster-info", test_cluster_info);
	ADD("/config/config-values", test_config_values);
	ADD("/config/threads", test_threads);
#undef ADD
	g_test_add_func("/config/record/golden", test_record_golden);
	g_test_add_func("/config/record/unknown-and-missing-keys",
			test_record_unknown_and_missing_keys);
	g_test_add_func("/config/record/invalid", test_record_invalid);
	return g_test_run();
}
