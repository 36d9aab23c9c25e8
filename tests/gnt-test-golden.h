#pragma once

/* Golden files: a test compares what it produced with tests/data/<name>.
 * With GNT_TEST_UPDATE_GOLDEN=1 in the environment (doc/testing.md), each
 * such test first writes what it got into its file, so the comparison passes
 * and `git diff tests/data` shows the change to review. */

#include <glib.h>

/* tests/data/@name (transfer full). */
static inline gchar *
gnt_test_golden_path(const gchar *name)
{
	return g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "data", name, NULL);
}

/* Writes @text into tests/data/@name if GNT_TEST_UPDATE_GOLDEN is "1". */
static inline void
gnt_test_golden_update(const gchar *name, const gchar *text)
{
	g_autofree gchar *path = NULL;
	g_autoptr(GError) error = NULL;

	if (g_strcmp0(g_getenv("GNT_TEST_UPDATE_GOLDEN"), "1") != 0)
		return;
	path = gnt_test_golden_path(name);
	g_assert_true(g_file_set_contents(path, text, -1, &error));
	g_assert_no_error(error);
}
