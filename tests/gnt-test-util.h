#pragma once

/* What tests across modules share: a cluster on a fresh temporary root,
 * and looking for bytes in files. */

#include <string.h>

#include "gnt-config.h"
#include "gnt-paths.h"

typedef struct {
	gchar *dir;
	GntPaths *paths;
	GntConfig *config;
} GntTestRoot;

/* A root under /tmp (short: unix socket paths are limited) holding the
 * directories and a cluster "cluster.example.com" on @master_node (NULL:
 * this host). */
static inline void
gnt_test_root_init(GntTestRoot *root, const gchar *master_node)
{
	g_autoptr(GError) error = NULL;

	root->dir = g_dir_make_tmp("gnt-test-XXXXXX", &error);
	g_assert_no_error(error);
	root->paths = gnt_paths_new(root->dir);
	g_assert_true(gnt_paths_ensure_dirs(root->paths, &error));
	root->config = gnt_config_create(gnt_paths_get_config_db(root->paths), "cluster.example.com",
					 master_node, &error);
	g_assert_no_error(error);
}

static inline void
gnt_test_root_clear(GntTestRoot *root)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", root->dir);

	g_clear_object(&root->config);
	g_clear_pointer(&root->paths, gnt_paths_free);
	g_assert_cmpint(system(cmd), ==, 0);
	g_clear_pointer(&root->dir, g_free);
}

static inline gboolean
gnt_test_file_contains(const gchar *path, const gchar *needle)
{
	g_autofree gchar *data = NULL;
	gsize len = 0;

	gsize n = strlen(needle);

	if (!g_file_get_contents(path, &data, &len, NULL))
		return FALSE;
	/* binary files: no string functions, they stop at the first NUL */
	for (gsize i = 0; n > 0 && i + n <= len; i++) {
		if (data[i] == needle[0] && memcmp(data + i, needle, n) == 0)
			return TRUE;
	}
	return FALSE;
}
