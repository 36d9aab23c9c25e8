/*
 * Exports and imports through the whole stack (doc/backup.md): gnt-cluster
 * init's daemons, LUXI jobs, the node's export procedures, file disks, the
 * fake hypervisor and the test OS of tests/data/os-defs/sample (create
 * writes its environment onto disk 0, export dumps the disk on stdout,
 * import writes stdin onto it, rename appends a line). An instance is
 * exported, removed, imported under another name, and its disk must hold
 * what the export dumped; bad input is refused and leaves nothing behind.
 */
#include "gnt-test-cluster.h"

#define JOB_TIMEOUT_S 120
#define OS_NAME	      "sample+default"

typedef struct {
	GntTestCluster cluster;
	gchar *node;	   /* the master node's name */
	gchar *export_dir; /* <root>/srv/gantry/export */
} BackupFx;

static void
backup_set_up(BackupFx *fx, gconstpointer data)
{
	g_autofree gchar *os_defs =
		g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "data", "os-defs", NULL);
	g_autofree gchar *name = g_strdup_printf("bk%d.example.com", (gint)getpid());

	gnt_test_cluster_init(&fx->cluster, name, "fake");
	gnt_test_cluster_set_os_search_path(&fx->cluster, os_defs);
	fx->node = gnt_test_cluster_dup_master(&fx->cluster);
	fx->export_dir = g_build_filename(fx->cluster.root, "srv", "gantry", "export", NULL);
}

static void
backup_tear_down(BackupFx *fx, gconstpointer data)
{
	gnt_test_cluster_clear(&fx->cluster);
	g_free(fx->node);
	g_free(fx->export_dir);
}

/* Runs @op_json (a printf format) and returns the job's row. */
static JsonArray *
run_op(BackupFx *fx, const gchar *format, ...) G_GNUC_PRINTF(2, 3);

static JsonArray *
run_op(BackupFx *fx, const gchar *format, ...)
{
	g_autofree gchar *op = NULL;
	va_list args;

	va_start(args, format);
	op = g_strdup_vprintf(format, args);
	va_end(args);
	return gnt_test_cluster_run_op(&fx->cluster, op, JOB_TIMEOUT_S);
}

static void
assert_ok(JsonArray *row)
{
	gnt_test_cluster_assert_success(row);
	json_array_unref(row);
}

/* The job failed with OpPrereqError or @klass, its message holding @needle. */
static void
assert_refused(JsonArray *row, const gchar *klass, const gchar *needle)
{
	g_autofree gchar *text = gnt_test_cluster_row_to_string(row);

	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	if (strstr(text, klass) == NULL || strstr(text, needle) == NULL)
		g_error("expected %s with '%s', got %s", klass, needle, text);
	json_array_unref(row);
}

static gchar *
read_file(const gchar *path)
{
	g_autoptr(GError) error = NULL;
	gchar *data = NULL;

	g_assert_true(g_file_get_contents(path, &data, NULL, &error));
	g_assert_no_error(error);
	return data;
}

/* The one disk file of @instance. (transfer full) */
static gchar *
dup_disk_file(BackupFx *fx, const gchar *instance)
{
	g_autofree gchar *storage = gnt_test_cluster_dup_file_storage_dir(&fx->cluster);
	g_autofree gchar *dir = g_build_filename(storage, instance, NULL);
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

	gnt_test_cluster_list_files(dir, files);
	g_assert_cmpuint(files->len, ==, 1);
	return g_strdup(g_ptr_array_index(files, 0));
}

static gchar *
dup_export_file(BackupFx *fx, const gchar *export, const gchar *file)
{
	return g_build_filename(fx->export_dir, export, file, NULL);
}

/* QueryInstances' @field of @name. (transfer full) */
static JsonNode *
instance_field(BackupFx *fx, const gchar *name, const gchar *field)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *args = g_strdup_printf("[[\"%s\"], [\"%s\"], false]", name, field);
	g_autoptr(JsonNode)
		rows = gnt_test_cluster_call(&fx->cluster, "QueryInstances", args, &error);

	g_assert_no_error(error);
	return json_node_copy(json_array_get_element(
		json_array_get_array_element(json_node_get_array(rows), 0), 0));
}

/* OP_BACKUP_QUERY's answer for this node, as "a,b". (transfer full) */
static gchar *
list_exports(BackupFx *fx)
{
	JsonArray *row = run_op(fx, "{\"OP_ID\": \"OP_BACKUP_QUERY\", \"nodes\": []}");
	JsonObject *result;
	JsonArray *names;
	g_autoptr(GString) out = g_string_new(NULL);

	gnt_test_cluster_assert_success(row);
	result = json_array_get_object_element(json_array_get_array_element(row, 1), 0);
	names = json_object_get_array_member(result, fx->node);
	for (guint i = 0; i < json_array_get_length(names); i++)
		g_string_append_printf(out, "%s%s", i > 0 ? "," : "",
				       json_array_get_string_element(names, i));
	json_array_unref(row);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

#define CREATE_WEB1                                                                                 \
	"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"web1.example.com\","              \
	" \"mode\": \"create\", \"disk_template\": \"file\", \"disks\": [{\"size\": 8}],"           \
	" \"nics\": [{}], \"os_type\": \"" OS_NAME "\", \"hypervisor\": \"fake\","                  \
	" \"beparams\": {\"maxmem\": 256, \"vcpus\": 2}, \"osparams\": {\"filesystem\": \"ext3\"}," \
	" \"tags\": [\"web\", \"prod\"]}"

/* A gzip-compressed dump, decompressed. (transfer full) */
static gchar *
read_gzip(const gchar *path)
{
	const gchar *argv[] = {"gzip", "-dc", path, NULL};
	g_autoptr(GError) error = NULL;
	gchar *out = NULL;
	gint status = -1;

	g_assert_true(g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
				   &out, NULL, &status, &error));
	g_assert_no_error(error);
	g_assert_cmpint(status, ==, 0);
	return out;
}

/* Export, list, remove the instance, import it under a new name, check the
 * disk; then a compressed export that removes the instance, imported
 * again; then the exports removed. */
static void
test_export_import(BackupFx *fx, gconstpointer data)
{
	g_autofree gchar *disk = NULL;
	g_autofree gchar *config = NULL;
	g_autofree gchar *dump = NULL;
	g_autofree gchar *original = NULL;
	g_autofree gchar *imported = NULL;
	g_autofree gchar *expected = NULL;
	g_autofree gchar *names = NULL;
	g_autofree gchar *result = NULL;
	g_autoptr(JsonNode) status = NULL;
	g_autoptr(JsonNode) tags = NULL;
	g_autoptr(JsonNode) maxmem = NULL;
	g_autoptr(JsonNode) os = NULL;
	JsonArray *row;

	assert_ok(gnt_test_cluster_run_op(&fx->cluster, CREATE_WEB1, JOB_TIMEOUT_S));
	disk = dup_disk_file(fx, "web1.example.com");
	original = read_file(disk);
	g_assert_nonnull(strstr(original, "INSTANCE_NAME=web1.example.com\n"));

	/* the running instance is stopped for the export, then started again */
	row = run_op(fx,
		     "{\"OP_ID\": \"OP_BACKUP_EXPORT\", \"instance_name\": \"web1\","
		     " \"target_node\": \"%s\", \"shutdown_timeout\": 5}",
		     fx->node);
	gnt_test_cluster_assert_success(row);
	result = gnt_test_cluster_row_to_string(row);
	g_assert_nonnull(strstr(result, "[[true,[true]]]")); /* Ganeti's (fin_resu, dresults) */
	g_assert_nonnull(strstr(result, "Shutting down instance web1.example.com"));
	g_assert_nonnull(strstr(result, "Starting instance web1.example.com"));
	json_array_unref(row);
	status = instance_field(fx, "web1.example.com", "status");
	g_assert_cmpstr(json_node_get_string(status), ==, "running");

	/* the dump is the disk; config.ini describes the instance */
	dump = dup_export_file(fx, "web1.example.com", "disk0.dump");
	{
		g_autofree gchar *dumped = read_file(dump);

		g_assert_cmpstr(dumped, ==, original);
	}
	{
		g_autofree gchar *path = dup_export_file(fx, "web1.example.com", "config.ini");

		config = read_file(path);
	}
	g_assert_nonnull(strstr(config, "[export]\nversion = 0\n"));
	g_assert_nonnull(strstr(config, "os = " OS_NAME "\n"));
	g_assert_nonnull(strstr(config, "compression = none\n"));
	g_assert_nonnull(strstr(config, "\n[instance]\nname = web1.example.com\nmaxmem = 256\n"));
	g_assert_nonnull(strstr(config, "disk0_dump = disk0.dump\ndisk0_size = 8\n"));
	g_assert_nonnull(strstr(config, "tags = web prod\n"));
	g_assert_nonnull(strstr(config, "\n[os]\nfilesystem = ext3\n"));
	names = list_exports(fx);
	g_assert_cmpstr(names, ==, "web1.example.com");

	/* gone from the cluster, back from the export under another name */
	gnt_test_cluster_remove_instance(&fx->cluster, "web1.example.com", disk);
	assert_ok(run_op(fx,
			 "{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\":"
			 " \"web2.example.com\", \"mode\": \"import\", \"disk_template\": \"file\","
			 " \"disks\": [], \"nics\": [], \"src_path\": \"web1.example.com\"}"));
	g_clear_pointer(&disk, g_free);
	disk = dup_disk_file(fx, "web2.example.com");
	imported = read_file(disk);
	/* what the export dumped, then the rename script's line */
	expected = g_strconcat(original, "renamed web1.example.com to web2.example.com\n", NULL);
	g_assert_cmpstr(imported, ==, expected);
	os = instance_field(fx, "web2.example.com", "os");
	g_assert_cmpstr(json_node_get_string(os), ==, OS_NAME);
	tags = instance_field(fx, "web2.example.com", "tags");
	g_assert_cmpuint(json_array_get_length(json_node_get_array(tags)), ==, 2);
	maxmem = instance_field(fx, "web2.example.com", "be/maxmem");
	g_assert_cmpint(json_node_get_int(maxmem), ==, 256);
	g_clear_pointer(&status, json_node_unref);
	/* the opcode's "start" (true by default; gnt-backup import sends false) */
	status = instance_field(fx, "web2.example.com", "status");
	g_assert_cmpstr(json_node_get_string(status), ==, "running");

	/* compressed, and the instance removed after its export */
	assert_ok(run_op(fx,
			 "{\"OP_ID\": \"OP_BACKUP_EXPORT\", \"instance_name\": \"web2\","
			 " \"target_node\": \"%s\", \"compress\": \"gzip\","
			 " \"remove_instance\": true}",
			 fx->node));
	g_assert_cmpuint(gnt_test_cluster_count_instances(&fx->cluster, "web2.example.com"), ==, 0);
	g_assert_false(g_file_test(disk, G_FILE_TEST_EXISTS));
	{
		g_autofree gchar *gz = dup_export_file(fx, "web2.example.com", "disk0.dump.gz");
		g_autofree gchar *unpacked = read_gzip(gz);

		g_assert_cmpstr(unpacked, ==, expected);
	}
	assert_ok(run_op(fx,
			 "{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\":"
			 " \"web3.example.com\", \"mode\": \"import\", \"disk_template\": \"file\","
			 " \"disks\": [], \"nics\": [], \"src_node\": \"%s\","
			 " \"src_path\": \"%s/web2.example.com\"}",
			 fx->node, fx->export_dir));
	g_clear_pointer(&disk, g_free);
	g_clear_pointer(&imported, g_free);
	disk = dup_disk_file(fx, "web3.example.com");
	imported = read_file(disk);
	g_assert_true(g_str_has_prefix(imported, expected));
	g_assert_true(g_str_has_suffix(imported, "renamed web2.example.com to web3.example.com\n"));

	/* removing exports: by name; an unknown one is no error (Ganeti) */
	g_clear_pointer(&names, g_free);
	names = list_exports(fx);
	g_assert_cmpstr(names, ==, "web1.example.com,web2.example.com");
	assert_ok(run_op(fx, "{\"OP_ID\": \"OP_BACKUP_REMOVE\", \"instance_name\":"
			     " \"web1.example.com\"}"));
	assert_ok(run_op(fx, "{\"OP_ID\": \"OP_BACKUP_REMOVE\", \"instance_name\": \"nosuch\"}"));
	g_clear_pointer(&names, g_free);
	names = list_exports(fx);
	g_assert_cmpstr(names, ==, "web2.example.com");
	g_assert_false(g_file_test(dump, G_FILE_TEST_EXISTS));
}

/* How many files lie under @dir, at any depth. */
static guint
count_files(const gchar *dir)
{
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

	gnt_test_cluster_list_files(dir, files);
	return files->len;
}

#define IMPORT(name, extra)                                                                        \
	"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"" name "\","                     \
	" \"mode\": \"import\", \"disk_template\": \"file\", \"disks\": [], \"nics\": []" extra    \
	"}"
#define EXPORT(extra) "{\"OP_ID\": \"OP_BACKUP_EXPORT\", \"instance_name\": \"web1\"" extra "}"

/* Unknown exports, paths leaving the export directory, what is not
 * supported: refused naming the culprit. A failing import script undoes
 * the import. Nothing is left behind. */
static void
test_refusals(BackupFx *fx, gconstpointer data)
{
	g_autofree gchar *storage = gnt_test_cluster_dup_file_storage_dir(&fx->cluster);
	g_autofree gchar *other = g_build_filename(fx->export_dir, "..", "elsewhere", NULL);
	g_autofree gchar *gz = NULL;
	g_autofree gchar *names = NULL;

	assert_ok(gnt_test_cluster_run_op(&fx->cluster, CREATE_WEB1, JOB_TIMEOUT_S));
	assert_ok(
		run_op(fx, EXPORT(", \"target_node\": \"%s\", \"compress\": \"gzip\""), fx->node));

	assert_refused(run_op(fx, IMPORT("a.example.com", ", \"src_path\": \"nosuch\"")),
		       "OpPrereqError", "no export 'nosuch'");
	assert_refused(run_op(fx,
			      IMPORT("b.example.com", ", \"src_node\": \"%s\","
						      " \"src_path\": \"/etc\""),
			      fx->node),
		       "OpPrereqError", "export path '/etc' is outside the export directory");
	assert_refused(run_op(fx,
			      IMPORT("c.example.com", ", \"src_node\": \"%s\","
						      " \"src_path\": \"%s\""),
			      fx->node, other),
		       "OpPrereqError", "must name one export right below");
	assert_refused(run_op(fx,
			      IMPORT("d.example.com", ", \"src_path\": \"../web1.example.com\"")),
		       "OpPrereqError", "must name one export right below");
	assert_refused(run_op(fx, IMPORT("e.example.com", ", \"src_path\": \"/etc\"")),
		       "OpPrereqError", "requires a source node option");
	assert_refused(run_op(fx, IMPORT("f.example.com", ", \"src_node\": \"nosuchnode\","
							  " \"src_path\": \"web1.example.com\"")),
		       "OpPrereqError", "nosuchnode");
	assert_refused(run_op(fx, EXPORT(", \"target_node\": \"%s\", \"mode\": \"remote\""),
			      fx->node),
		       "OpPrereqError", "remote exports");
	assert_refused(run_op(fx, EXPORT(", \"target_node\": \"nosuchnode\"")), "OpPrereqError",
		       "nosuchnode");
	assert_refused(run_op(fx, EXPORT(", \"target_node\": \"%s\", \"compress\": \"lzma\""),
			      fx->node),
		       "OpPrereqError", "compression 'lzma' is not supported");
	assert_refused(run_op(fx, EXPORT(", \"target_node\": \"%s\", \"zero_free_space\": true"),
			      fx->node),
		       "OpPrereqError", "zeroing free space");

	/* a dump that does not decompress: the import fails and undoes itself */
	gz = dup_export_file(fx, "web1.example.com", "disk0.dump.gz");
	g_assert_true(g_file_set_contents(gz, "not gzip", -1, NULL));
	assert_refused(run_op(fx, "{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\":"
				  " \"g.example.com\", \"mode\": \"import\", \"disk_template\":"
				  " \"file\", \"disks\": [], \"nics\": [{\"mac\": \"generate\"}],"
				  " \"src_path\": \"web1.example.com\"}"),
		       "OpExecError", "'gzip' failed");

	g_assert_cmpuint(gnt_test_cluster_count_instances(&fx->cluster, "g.example.com"), ==, 0);
	g_assert_cmpuint(count_files(storage), ==, 1);	      /* web1's disk alone */
	g_assert_cmpuint(count_files(fx->export_dir), ==, 2); /* its config.ini and dump */
	names = list_exports(fx);
	g_assert_cmpstr(names, ==, "web1.example.com");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/system/backup/export-import", BackupFx, NULL, backup_set_up,
		   test_export_import, backup_tear_down);
	g_test_add("/system/backup/refusals", BackupFx, NULL, backup_set_up, test_refusals,
		   backup_tear_down);
	return g_test_run();
}
