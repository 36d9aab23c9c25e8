#include <string.h>

#include "gnt-error.h"
#include "gnt-paths.h"

#include <glib/gstdio.h>

static void
test_layout_under_root(void)
{
	g_autoptr(GntPaths) paths = gnt_paths_new("/srv/c1");
	g_autofree gchar *pid = gnt_paths_dup_pid_file(paths, "gantry-masterd");
	g_autofree gchar *log = gnt_paths_dup_log_file(paths, "gantry-masterd");

	g_assert_cmpstr(gnt_paths_get_root(paths), ==, "/srv/c1");
	g_assert_cmpstr(gnt_paths_get_data_dir(paths), ==, "/srv/c1/var/lib/gantry");
	g_assert_cmpstr(gnt_paths_get_run_dir(paths), ==, "/srv/c1/run/gantry");
	g_assert_cmpstr(gnt_paths_get_log_dir(paths), ==, "/srv/c1/var/log/gantry");
	g_assert_cmpstr(gnt_paths_get_luxi_socket(paths), ==,
			"/srv/c1/run/gantry/socket/gantry-master");
	g_assert_cmpstr(gnt_paths_get_queue_db(paths), ==, "/srv/c1/var/lib/gantry/queue.db");
	g_assert_cmpstr(pid, ==, "/srv/c1/run/gantry/gantry-masterd.pid");
	g_assert_cmpstr(log, ==, "/srv/c1/var/log/gantry/gantry-masterd.log");
}

static void
test_default_and_env(void)
{
	g_autoptr(GntPaths) system = NULL;
	g_autoptr(GntPaths) from_env = NULL;

	g_unsetenv(GNT_ROOT_ENV);
	system = gnt_paths_new(NULL);
	g_assert_cmpstr(gnt_paths_get_data_dir(system), ==, "/var/lib/gantry");
	g_assert_cmpstr(gnt_paths_get_luxi_socket(system), ==, "/run/gantry/socket/gantry-master");
	g_setenv(GNT_ROOT_ENV, "/tmp/other", TRUE);
	from_env = gnt_paths_new(NULL);
	g_assert_cmpstr(gnt_paths_get_root(from_env), ==, "/tmp/other");
	g_unsetenv(GNT_ROOT_ENV);
}

static void
test_ensure_dirs(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("gnt-paths-XXXXXX", &error);
	g_autoptr(GntPaths) paths = gnt_paths_new(dir);
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", dir);

	g_assert_no_error(error);
	g_assert_true(gnt_paths_ensure_dirs(paths, &error));
	g_assert_no_error(error);
	g_assert_true(g_file_test(gnt_paths_get_data_dir(paths), G_FILE_TEST_IS_DIR));
	g_assert_true(g_file_test(gnt_paths_get_log_dir(paths), G_FILE_TEST_IS_DIR));
	g_assert_cmpint(system(cmd), ==, 0);
}

static void
test_socket_length(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *deep = g_strnfill(100, 'd');
	g_autoptr(GntPaths) ok = gnt_paths_new("/srv/c1");
	g_autoptr(GntPaths) too_deep = gnt_paths_new(deep);

	g_assert_true(gnt_paths_check_socket(gnt_paths_get_luxi_socket(ok), &error));
	g_assert_no_error(error);
	g_assert_false(gnt_paths_check_socket(gnt_paths_get_luxi_socket(too_deep), &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "choose a shorter root"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/paths/layout-under-root", test_layout_under_root);
	g_test_add_func("/paths/default-and-env", test_default_and_env);
	g_test_add_func("/paths/ensure-dirs", test_ensure_dirs);
	g_test_add_func("/paths/socket-length", test_socket_length);
	return g_test_run();
}
