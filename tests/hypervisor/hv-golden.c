#include "hv-golden.h"

void
assert_golden(const gchar *xml, const gchar *name)
{
	g_autofree gchar *path = g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "data", name, NULL);
	g_autofree gchar *expected = NULL;
	g_autoptr(GError) error = NULL;

	if (g_getenv("GNT_TEST_UPDATE_GOLDEN") != NULL) {
		g_assert_true(g_file_set_contents(path, xml, -1, &error));
		return;
	}
	g_assert_true(g_file_get_contents(path, &expected, NULL, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(xml, ==, expected);
}
