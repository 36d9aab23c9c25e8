#include "hv-golden.h"

#include "gnt-test-golden.h"

void
assert_golden(const gchar *xml, const gchar *name)
{
	g_autofree gchar *path = gnt_test_golden_path(name);
	g_autofree gchar *expected = NULL;
	g_autoptr(GError) error = NULL;

	gnt_test_golden_update(name, xml);
	g_assert_true(g_file_get_contents(path, &expected, NULL, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(xml, ==, expected);
}
