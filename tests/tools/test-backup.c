/*
 * gnt-backup export, list, import and remove as an operator runs them: a
 * one-node cluster (gnt-cluster init, masterd and noded) on a temporary
 * root, the fake hypervisor, file disks and the test OS of
 * tests/data/os-defs/sample, whose export script dumps the disk and whose
 * import script writes it back. Every command runs without a terminal.
 */
#include <string.h>

#include "tools-test.h"

typedef struct {
	gchar *root;
	gchar *node; /* the master node's name */
} BackupFx;

#define BACKUP(fx, ...)	  RUN(fx, "GNT_TEST_GNT_BACKUP", __VA_ARGS__)
#define INSTANCE(fx, ...) RUN(fx, "GNT_TEST_GNT_INSTANCE", __VA_ARGS__)

static void
fx_set_up(BackupFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Run) init = NULL;
	g_autoptr(Run) modify = NULL;
	g_autoptr(Run) nodes = NULL;
	g_autoptr(Run) trust = NULL;

	fx->root = g_dir_make_tmp("gtb-XXXXXX", &error);
	g_assert_no_error(error);
	/* the OS scripts run on the node: safe install off, sample trusted */
	init = RUN(fx, "GNT_TEST_GNT_CLUSTER", "init", "--noded-port", "0", "--enable-safe-install",
		   "no", "test.example.com");
	expect(init, 0, NULL);
	trust = RUN(fx, "GNT_TEST_GNT_OS", "modify", "--trusted", "yes", "sample");
	expect(trust, 0, NULL);
	modify = RUN(fx, "GNT_TEST_GNT_CLUSTER", "modify", "--os-search-path",
		     g_getenv("GNT_TEST_OS_DIR"));
	expect(modify, 0, NULL);
	nodes = RUN(fx, "GNT_TEST_GNT_NODE", "list", "--no-headers", "-o", "name");
	expect(nodes, 0, NULL);
	fx->node = g_strstrip(g_strdup(nodes->out));
}

static void
fx_tear_down(BackupFx *fx, gconstpointer data)
{
	g_autoptr(Run) stop = RUN(fx, "GNT_TEST_GANTRY_DAEMONS", "stop");
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->root);

	expect(stop, 0, NULL);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->root);
	g_free(fx->node);
}

/* The disk file of @instance, read. (transfer full) */
static gchar *
read_disk(BackupFx *fx, const gchar *instance)
{
	g_autofree gchar *dir =
		g_build_filename(fx->root, "srv", "gantry", "file-storage", instance, NULL);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	g_autofree gchar *path = NULL;
	gchar *data = NULL;

	g_assert_nonnull(d);
	path = g_build_filename(dir, g_dir_read_name(d), NULL);
	g_assert_true(g_file_get_contents(path, &data, NULL, NULL));
	return data;
}

static void
test_export_list_import_remove(BackupFx *fx, gconstpointer data)
{
	g_autoptr(Run) add = NULL;
	g_autoptr(Run) exported = NULL;
	g_autoptr(Run) listed = NULL;
	g_autoptr(Run) table = NULL;
	g_autoptr(Run) only = NULL;
	g_autoptr(Run) removed_instance = NULL;
	g_autoptr(Run) imported = NULL;
	g_autoptr(Run) status = NULL;
	g_autoptr(Run) removed = NULL;
	g_autoptr(Run) empty = NULL;
	g_autofree gchar *original = NULL;
	g_autofree gchar *restored = NULL;
	g_autofree gchar *expected_list = NULL;
	g_autofree gchar *expected_table = NULL;

	add = INSTANCE(fx, "add", "-t", "file", "--disk", "0:size=8M", "-o", "sample+default", "-H",
		       "fake", "--tags", "web", "inst1.example.com");
	expect(add, 0, NULL);
	original = read_disk(fx, "inst1.example.com");

	exported = BACKUP(fx, "export", "-n", fx->node, "inst1");
	expect(exported, 0, NULL);
	gnt_test_assert_contains(exported->out, "Shutting down instance inst1.example.com\n");
	gnt_test_assert_contains(exported->out, "* exporting disk/0 of inst1.example.com to ");
	gnt_test_assert_contains(exported->out, "Starting instance inst1.example.com\n");

	expected_list = g_strdup_printf("%s|inst1.example.com\n", fx->node);
	listed = BACKUP(fx, "list", "--no-headers", "--separator=|");
	expect(listed, 0, expected_list);
	table = BACKUP(fx, "list", "--node", fx->node);
	/* Ganeti's FormatTable: columns as wide as their widest cell */
	expected_table = g_strdup_printf("%-*s Export\n%-*s inst1.example.com\n",
					 (gint)MAX(strlen(fx->node), 4), "Node",
					 (gint)MAX(strlen(fx->node), 4), fx->node);
	expect(table, 0, expected_table);
	only = BACKUP(fx, "list", "--no-headers", "-o", "export");
	expect(only, 0, "inst1.example.com\n");

	removed_instance = INSTANCE(fx, "remove", "-f", "inst1");
	expect(removed_instance, 0, NULL);
	imported = BACKUP(fx, "import", "-n", fx->node, "-t", "file", "--src-node", fx->node,
			  "--src-dir", "inst1.example.com", "inst2.example.com");
	expect(imported, 0, NULL);
	gnt_test_assert_contains(imported->out, "* running the instance OS import scripts...\n");
	restored = read_disk(fx, "inst2.example.com");
	g_assert_true(g_str_has_prefix(restored, original));
	g_assert_true(
		g_str_has_suffix(restored, "renamed inst1.example.com to inst2.example.com\n"));
	/* gnt-backup import does not start it; the tags come from the export */
	status = INSTANCE(fx, "list", "--no-headers", "--separator=|", "-o", "name,status,tags");
	expect(status, 0, "inst2.example.com|ADMIN_down|web\n");

	removed = BACKUP(fx, "remove", "inst1.example.com");
	expect(removed, 0, NULL);
	empty = BACKUP(fx, "list", "--no-headers");
	expect(empty, 0, "");
}

/* Runs gnt-backup with @args and expects @status with @culprit on stderr. */
#define EXPECT_FAILURE(fx, status, culprit, ...)                                                   \
	G_STMT_START                                                                               \
	{                                                                                          \
		g_autoptr(Run) failed_ = BACKUP(fx, __VA_ARGS__);                                  \
		expect(failed_, status, NULL);                                                     \
		gnt_test_assert_contains(failed_->err, culprit);                                   \
	}                                                                                          \
	G_STMT_END

static void
test_refusals(BackupFx *fx, gconstpointer data)
{
	g_autoptr(Run) add = NULL;
	g_autoptr(Run) list = NULL;
	g_autoptr(Run) help = NULL;

	add = INSTANCE(fx, "add", "-t", "file", "--disk", "0:size=8M", "-o", "sample+default", "-H",
		       "fake", "inst1.example.com");
	expect(add, 0, NULL);
	EXPECT_FAILURE(fx, 1, "Target node must be specified", "export", "inst1");
	EXPECT_FAILURE(fx, 1, "node 'node9.example.com' does not exist", "export", "-n",
		       "node9.example.com", "inst1");
	EXPECT_FAILURE(fx, 1, "compression 'lzma' is not supported", "export", "-n", fx->node,
		       "--compress", "lzma", "inst1");
	EXPECT_FAILURE(fx, 1, "zeroing free space", "export", "-n", fx->node, "--zero-free-space",
		       "inst1");
	EXPECT_FAILURE(fx, 1, "No export or invalid export found in dir nosuch", "import", "-n",
		       fx->node, "--src-dir", "nosuch", "inst2.example.com");
	EXPECT_FAILURE(fx, 1, "is outside the export directory", "import", "-n", fx->node,
		       "--src-node", fx->node, "--src-dir", "/etc", "inst2.example.com");
	EXPECT_FAILURE(fx, 1, "Unknown disk template 'floppy'", "import", "-n", fx->node, "-t",
		       "floppy", "inst2.example.com");
	EXPECT_FAILURE(fx, 1, "Unknown compression tool 'lzma'", "import", "-n", fx->node,
		       "--compress", "lzma", "inst2.example.com");
	EXPECT_FAILURE(fx, 14, "Warning: Queried for unknown fields size", "list", "-o",
		       "node,size");
	/* nothing was exported nor imported */
	list = BACKUP(fx, "list", "--no-headers");
	expect(list, 0, "");
	help = BACKUP(fx, "export", "--help");
	expect(help, 0, NULL);
	gnt_test_assert_contains(help->out, "--noshutdown");
	gnt_test_assert_contains(help->out, "Only local exports onto the instance's primary node");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/tools/backup/export-list-import-remove", BackupFx, NULL, fx_set_up,
		   test_export_list_import_remove, fx_tear_down);
	g_test_add("/tools/backup/refusals", BackupFx, NULL, fx_set_up, test_refusals,
		   fx_tear_down);
	return g_test_run();
}
