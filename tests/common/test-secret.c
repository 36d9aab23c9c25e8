#include "gnt-secret.h"

#include <string.h>

static void
test_value_and_copy(void)
{
	g_autoptr(GntSecret) secret = gnt_secret_new("hunter2", -1);
	g_autoptr(GntSecret) copy = gnt_secret_copy(secret);
	g_autoptr(GntSecret) partial = gnt_secret_new("abcdef", 3);

	g_assert_cmpstr(gnt_secret_get(secret), ==, "hunter2");
	g_assert_cmpuint(gnt_secret_get_length(secret), ==, 7);
	g_assert_cmpstr(gnt_secret_get(copy), ==, "hunter2");
	g_assert_true(gnt_secret_get(copy) != gnt_secret_get(secret));
	g_assert_cmpstr(gnt_secret_get(partial), ==, "abc");
}

static void
test_large_value(void)
{
	g_autofree gchar *big = g_strnfill(10000, 'k');
	g_autoptr(GntSecret) secret = gnt_secret_new(big, -1);

	g_assert_cmpuint(gnt_secret_get_length(secret), ==, 10000);
	g_assert_cmpint(memcmp(gnt_secret_get(secret), big, 10000), ==, 0);
}

static void
test_wipe_string(void)
{
	gchar buf[] = "top-secret";

	gnt_secret_wipe_string(buf);
	for (gsize i = 0; i < sizeof(buf); i++)
		g_assert_cmpint(buf[i], ==, 0);
	gnt_secret_wipe_string(NULL); /* harmless */
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/secret/value-and-copy", test_value_and_copy);
	g_test_add_func("/secret/large-value", test_large_value);
	g_test_add_func("/secret/wipe-string", test_wipe_string);
	return g_test_run();
}
