/*
 * A config change whose commit fails (tests/gnt-fault-vfs.c makes a write
 * or an fsync of config.db fail) is reported as failed and changes
 * nothing: not what queries read, not the database. After a failed write
 * (a full disk) a crash at that moment leaves nothing of it either; after
 * a failed fsync it may (the data may have reached the disk, and SQLite's
 * WAL recovery takes a complete transaction), until the next commit
 * writes over it: doc/jobqueue.md "When the disk fails".
 */
#include <glib/gstdio.h>

#include "gnt-error.h"
#include "gnt-fault-vfs.h"
#include "gnt-test-util.h"

static gboolean
has_tag(GntConfig *config, const gchar *tag)
{
	g_autoptr(GntCluster) cluster = gnt_config_dup_cluster(config);

	return cluster->tags != NULL && g_strv_contains((const gchar *const *)cluster->tags, tag);
}

/* The database as a crash now would leave it: its files copied as they
 * are (the WAL included), opened elsewhere. */
static GntConfig *
open_crash_copy(GntTestRoot *root, const gchar *dir)
{
	g_autoptr(GError) error = NULL;
	const gchar *db = gnt_paths_get_config_db(root->paths);
	g_autofree gchar *copy = g_build_filename(dir, "config.db", NULL);
	GntConfig *config;

	for (guint i = 0; i < 2; i++) {
		g_autofree gchar *from = g_strconcat(db, i ? "-wal" : "", NULL);
		g_autofree gchar *to = g_strconcat(copy, i ? "-wal" : "", NULL);
		g_autofree gchar *data = NULL;
		gsize len = 0;

		g_assert_true(g_file_get_contents(from, &data, &len, &error));
		g_assert_true(g_file_set_contents(to, data, (gssize)len, &error));
	}
	config = gnt_config_open(copy, &error);
	g_assert_no_error(error);
	return config;
}

static void
test_failed_commit(gconstpointer data)
{
	GntFaultOp op = GPOINTER_TO_INT(data);
	const gchar *const never[] = {"never", NULL};
	const gchar *const later[] = {"later", NULL};
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) crashed = NULL;
	g_autofree gchar *crash_dir = NULL;
	GntTestRoot root;

	gnt_test_root_init(&root, "node1.example.com");
	crash_dir = g_build_filename(root.dir, "crash", NULL);
	g_assert_cmpint(g_mkdir(crash_dir, 0700), ==, 0);
	gnt_fault_vfs_fail(op, 0, 1);
	g_assert_false(gnt_config_set_cluster_tags(root.config, never, &error));
	gnt_fault_vfs_clear();
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_test_message("%s", error->message);
	g_assert_cmpuint(gnt_fault_vfs_get_n_failed(op), >, 0);
	g_assert_false(has_tag(root.config, "never"));
	g_clear_error(&error);

	if (op == GNT_FAULT_WRITE) {
		crashed = open_crash_copy(&root, crash_dir);
		g_assert_false(has_tag(crashed, "never"));
	}

	/* the next change goes through, and only it is there after a reopen */
	g_assert_true(gnt_config_set_cluster_tags(root.config, later, NULL));
	g_clear_object(&root.config);
	root.config = gnt_config_open(gnt_paths_get_config_db(root.paths), &error);
	g_assert_no_error(error);
	g_assert_true(has_tag(root.config, "later"));
	g_assert_false(has_tag(root.config, "never"));
	g_clear_object(&crashed);
	gnt_test_root_clear(&root);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	gnt_fault_vfs_install("config.db");
	g_test_add_data_func("/config-faults/failed-write", GINT_TO_POINTER(GNT_FAULT_WRITE),
			     test_failed_commit);
	g_test_add_data_func("/config-faults/failed-fsync", GINT_TO_POINTER(GNT_FAULT_SYNC),
			     test_failed_commit);
	return g_test_run();
}
