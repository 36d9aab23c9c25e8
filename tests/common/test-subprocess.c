#include "gnt-error.h"
#include "gnt-subprocess.h"

static void
test_output_and_status(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *out = NULL;
	const gchar *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
	gint status = -1;

	g_assert_true(gnt_subprocess_run(argv, NULL, 10, &out, &status, &error));
	g_assert_no_error(error);
	g_assert_cmpint(status, ==, 3);
	g_assert_nonnull(strstr(out, "out\n"));
	g_assert_nonnull(strstr(out, "err\n"));
}

static void
test_clean_environment(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *out = NULL;
	const gchar *argv[] = {"/bin/sh", "-c", "echo \"[$GNT_LEAK][$KEEP]\"", NULL};
	const gchar *envp[] = {"KEEP=yes", NULL};
	gint status = -1;

	g_setenv("GNT_LEAK", "no", TRUE);
	g_assert_true(gnt_subprocess_run(argv, envp, 10, &out, &status, &error));
	g_assert_cmpstr(out, ==, "[][yes]\n");
}

static void
test_timeout_kills(void)
{
	g_autoptr(GError) error = NULL;
	const gchar *argv[] = {"/bin/sleep", "30", NULL};
	gint64 start = g_get_monotonic_time();

	g_assert_false(gnt_subprocess_run(argv, NULL, 1, NULL, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 10 * G_USEC_PER_SEC);
}

static void
test_missing_program(void)
{
	g_autoptr(GError) error = NULL;
	const gchar *argv[] = {"/nonexistent/program", NULL};

	g_assert_false(gnt_subprocess_run(argv, NULL, 1, NULL, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(strstr(error->message, "/nonexistent/program"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/subprocess/output-and-status", test_output_and_status);
	g_test_add_func("/subprocess/clean-environment", test_clean_environment);
	g_test_add_func("/subprocess/timeout-kills", test_timeout_kills);
	g_test_add_func("/subprocess/missing-program", test_missing_program);
	return g_test_run();
}
