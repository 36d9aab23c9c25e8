/* Running OS scripts: the sample OS of tests/data/os-defs and, where
 * installed, Debian's noop and debootstrap definitions. */

#include <string.h>

#include "gnt-error.h"
#include "gnt-os-script.h"
#include "os-test.h"

typedef struct {
	gchar *dir;
	gchar *log_dir;
	gchar *disk; /* a file standing in for disk 0 */
	GntOsDefinition *os;
	GntOsEnv *env;
} ScriptFx;

static void
fx_set_up(ScriptFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *defs = os_test_data_path("os-defs");
	g_autoptr(GntOsDisk) disk = gnt_os_disk_new();
	g_autoptr(GntSecret) token = gnt_secret_new("s3cr3t-token", -1);
	g_autoptr(GntPaths) paths = NULL;

	fx->dir = g_dir_make_tmp("gnt-os-XXXXXX", &error);
	g_assert_no_error(error);
	paths = gnt_paths_new(fx->dir);
	fx->log_dir = gnt_os_script_dup_log_dir(paths);
	fx->disk = g_build_filename(fx->dir, "disk0", NULL);
	g_assert_true(g_file_set_contents(fx->disk, "", 0, NULL));

	fx->os = gnt_os_definition_read(defs, "sample");
	g_assert_true(fx->os->valid);
	fx->env = gnt_os_env_new(fx->os, "sample+minimal", 0);
	gnt_os_env_set_instance(fx->env, "inst1.example.com", "inst-uuid", "kvm");
	disk->path = g_strdup(fx->disk);
	disk->size_mib = 1;
	gnt_os_env_add_disk(fx->env, disk);
	gnt_os_env_set_param(fx->env, "filesystem", "ext4");
	gnt_os_env_set_param_secret(fx->env, "secret.token", token);
}

static void
fx_tear_down(ScriptFx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

	g_clear_pointer(&fx->env, gnt_os_env_free);
	g_clear_pointer(&fx->os, gnt_os_definition_free);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->disk);
	g_free(fx->log_dir);
	g_free(fx->dir);
}

static gchar *
read_text(const gchar *path)
{
	gchar *text = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	g_assert_no_error(error);
	return text;
}

static gboolean
has_line(const gchar *text, const gchar *line)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	return g_strv_contains((const gchar *const *)lines, line);
}

/* The only log file in the fixture's log directory. */
static gchar *
only_log(ScriptFx *fx)
{
	g_autoptr(GDir) dir = g_dir_open(fx->log_dir, 0, NULL);
	const gchar *name;
	gchar *found = NULL;

	g_assert_nonnull(dir);
	while ((name = g_dir_read_name(dir)) != NULL) {
		g_assert_null(found);
		found = g_build_filename(fx->log_dir, name, NULL);
	}
	g_assert_nonnull(found);
	return found;
}

static void
test_create(ScriptFx *fx, gconstpointer data)
{
	GntOsRunOptions options = {.log_dir = fx->log_dir, .timeout_s = 30};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *log_file = NULL;
	g_autofree gchar *recorded = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *cwd = NULL;
	g_autofree gchar *listed = NULL;
	g_autofree gchar *prefix =
		g_build_filename(fx->log_dir, "add-sample+minimal-inst1.example.com-", NULL);

	g_setenv("GNT_TEST_LEAK", "inherited", TRUE);
	g_assert_true(gnt_os_script_run(fx->os, GNT_OS_SCRIPT_CREATE, fx->env, &options, &log_file,
					&error));
	g_assert_no_error(error);

	/* the script's own record of its environment, on disk 0 */
	recorded = read_text(fx->disk);
	cwd = g_strconcat("CWD=", fx->os->path, NULL);
	g_assert_true(has_line(recorded, cwd));
	g_assert_true(has_line(recorded, "STDIN="));
	g_assert_true(has_line(recorded, "INSTANCE_NAME=inst1.example.com"));
	g_assert_true(has_line(recorded, "OS_VARIANT=minimal"));
	g_assert_true(has_line(recorded, "OS_API_VERSION=20"));
	g_assert_true(has_line(recorded, "OSP_FILESYSTEM=ext4"));
	g_assert_true(has_line(recorded, "OSP_SECRET_TOKEN=s3cr3t-token"));
	g_assert_true(has_line(recorded, "PATH=/sbin:/bin:/usr/sbin:/usr/bin"));
	g_assert_null(strstr(recorded, "GNT_TEST_LEAK"));
	g_assert_null(strstr(recorded, "G_DEBUG"));
	g_assert_null(strstr(recorded, "HOME="));

	/* Ganeti's log name, the output appended there, no secret in the name */
	g_assert_true(g_str_has_prefix(log_file, prefix));
	g_assert_true(g_str_has_suffix(log_file, ".log"));
	g_assert_cmpuint(strlen(log_file), ==, strlen(prefix) + strlen("2024-01-31_12_00_00.log"));
	listed = only_log(fx);
	g_assert_cmpstr(listed, ==, log_file);
	log = read_text(log_file);
	g_assert_cmpstr(log, ==, "creating inst1.example.com from sample+minimal\ncreated\n");
	g_assert_true(g_file_test(fx->log_dir, G_FILE_TEST_IS_DIR));
}

static void
test_create_fails(ScriptFx *fx, gconstpointer data)
{
	GntOsRunOptions options = {.log_dir = fx->log_dir, .timeout_s = 30};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *log_file = NULL;
	g_autofree gchar *head = NULL;

	gnt_os_env_set_param_private(fx->env, "behaviour", "fail");
	g_assert_false(gnt_os_script_run(fx->os, GNT_OS_SCRIPT_CREATE, fx->env, &options, &log_file,
					 &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	head = g_strdup_printf("OS create script failed (exited with exit code 3), last lines in "
			       "the log file %s:\n",
			       log_file);
	g_assert_true(g_str_has_prefix(error->message, head));
	/* the last 20 lines: progress 12..30 and stderr's line */
	g_assert_true(g_str_has_suffix(error->message, "\nprogress line 30\ndisk 0 is not usable"));
	g_assert_nonnull(strstr(error->message, ":\nprogress line 12\nprogress line 13\n"));
	g_assert_null(strstr(error->message, "progress line 11\n"));
	g_assert_null(strstr(error->message, "s3cr3t"));
	g_assert_null(strstr(log_file, "s3cr3t"));
}

static void
test_timeout(ScriptFx *fx, gconstpointer data)
{
	GntOsRunOptions options = {.log_dir = fx->log_dir, .timeout_s = 1};
	g_autoptr(GError) error = NULL;
	gint64 start = g_get_monotonic_time();

	gnt_os_env_set_param(fx->env, "behaviour", "sleep");
	g_assert_false(
		gnt_os_script_run(fx->os, GNT_OS_SCRIPT_CREATE, fx->env, &options, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(strstr(error->message, "(killed after timeout of 1 seconds)"));
	g_assert_true(g_str_has_suffix(error->message, "\nsleeping"));
	g_assert_cmpint(g_get_monotonic_time() - start, <, 10 * G_USEC_PER_SEC);
}

static void
test_cancel(ScriptFx *fx, gconstpointer data)
{
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	GntOsRunOptions options = {.log_dir = fx->log_dir, .cancellable = cancellable};
	g_autoptr(GError) error = NULL;

	gnt_os_env_set_param(fx->env, "behaviour", "sleep");
	g_cancellable_cancel(cancellable);
	g_assert_false(
		gnt_os_script_run(fx->os, GNT_OS_SCRIPT_CREATE, fx->env, &options, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(strstr(error->message, "OS create script failed (cancelled)"));
}

static void
test_import_export(ScriptFx *fx, gconstpointer data)
{
	g_autofree gchar *stream = g_build_filename(fx->dir, "stream", NULL);
	g_autofree gchar *dump = g_build_filename(fx->dir, "dump", NULL);
	GntOsRunOptions import = {.log_dir = fx->log_dir, .input_path = stream};
	GntOsRunOptions export = {.log_dir = fx->log_dir, .output_path = dump};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *import_log = NULL;
	g_autofree gchar *export_log = NULL;
	g_autofree gchar *disk = NULL;
	g_autofree gchar *dumped = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *expected = NULL;

	g_assert_true(g_file_set_contents(stream, "disk image bytes\n", -1, NULL));
	gnt_os_env_set_disk_index(fx->env, 0);
	g_assert_true(gnt_os_script_run(fx->os, GNT_OS_SCRIPT_IMPORT, fx->env, &import, &import_log,
					&error));
	g_assert_no_error(error);
	disk = read_text(fx->disk);
	g_assert_cmpstr(disk, ==, "disk image bytes\n");
	g_assert_nonnull(strstr(import_log, "/import-sample+minimal-inst1.example.com-disk0-"));

	g_assert_true(gnt_os_script_run(fx->os, GNT_OS_SCRIPT_EXPORT, fx->env, &export, &export_log,
					&error));
	g_assert_no_error(error);
	dumped = read_text(dump);
	g_assert_cmpstr(dumped, ==, "disk image bytes\n");
	/* stdout carried the dump, stderr went to the log */
	log = read_text(export_log);
	expected = g_strdup_printf("exporting disk 0 from %s\n", fx->disk);
	g_assert_cmpstr(log, ==, expected);
}

static void
test_rename(ScriptFx *fx, gconstpointer data)
{
	GntOsRunOptions options = {.log_dir = fx->log_dir};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *log_file = NULL;
	g_autofree gchar *disk = NULL;

	gnt_os_env_set_old_name(fx->env, "old.example.com");
	g_assert_true(gnt_os_script_run(fx->os, GNT_OS_SCRIPT_RENAME, fx->env, &options, &log_file,
					&error));
	g_assert_no_error(error);
	g_assert_nonnull(
		strstr(log_file, "/rename-sample+minimal-old.example.com-inst1.example.com-"));
	disk = read_text(fx->disk);
	g_assert_cmpstr(disk, ==, "renamed old.example.com to inst1.example.com\n");
}

static void
test_validate(ScriptFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOsEnv) bare = gnt_os_env_new(fx->os, "sample", 0);
	g_autoptr(GntOsEnv) bogus = gnt_os_env_new(fx->os, "sample+bogus", 0);

	g_assert_true(gnt_os_validate(fx->os, fx->env, FALSE, 30, &error));
	g_assert_no_error(error);

	/* the verify script refuses a value, with its output in the message */
	gnt_os_env_set_param(fx->env, "filesystem", "zfs");
	g_assert_false(gnt_os_validate(fx->os, fx->env, FALSE, 30, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==,
			"OS validation script failed (exited with exit code 1), output: Invalid "
			"value 'zfs' for the filesystem parameter");
	g_clear_error(&error);

	/* names parameters.list lacks are refused before verify runs */
	gnt_os_env_set_param(fx->env, "root_size", "1G");
	g_assert_false(gnt_os_validate(fx->os, fx->env, FALSE, 30, &error));
	g_assert_cmpstr(error->message, ==,
			"The following parameters are not supported by the OS sample: root_size");
	g_clear_error(&error);

	g_assert_false(gnt_os_validate(fx->os, bare, FALSE, 30, &error));
	g_assert_cmpstr(error->message, ==, "OS name 'sample' must include a variant");
	g_clear_error(&error);
	g_assert_true(gnt_os_validate(fx->os, bare, TRUE, 30, &error));
	g_assert_false(gnt_os_validate(fx->os, bogus, FALSE, 30, &error));
	g_clear_error(&error);

	/* verify writes no log file */
	g_assert_false(g_file_test(fx->log_dir, G_FILE_TEST_EXISTS));
}

static void
test_missing_script(ScriptFx *fx, gconstpointer data)
{
	g_autofree gchar *defs = os_test_data_path("os-defs");
	g_autoptr(GntOsDefinition) untrusted = gnt_os_definition_read(defs, "untrusted");
	g_autoptr(GntOsEnv) env = gnt_os_env_new(untrusted, "untrusted", 0);
	GntOsRunOptions options = {.log_dir = fx->log_dir};
	g_autoptr(GError) error = NULL;

	gnt_os_env_set_instance(env, "inst1.example.com", NULL, NULL);
	g_assert_false(
		gnt_os_script_run(untrusted, GNT_OS_SCRIPT_CREATE, env, &options, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "OS 'untrusted' has no create script");
}

/* Debian's ganeti-os-noop creates "an instance" on a file standing in for a
 * disk; debootstrap's real verify checks its filesystem parameter. */
static void
test_debian(ScriptFx *fx, gconstpointer data)
{
	const gchar *const *path = gnt_os_get_default_search_path();
	GntOsRunOptions options = {.log_dir = fx->log_dir, .timeout_s = 60};
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOsDefinition) noop = NULL;
	g_autoptr(GntOsDefinition) debootstrap = NULL;
	g_autoptr(GntOsEnv) env = NULL;
	g_autoptr(GntOsEnv) verify_env = NULL;
	g_autoptr(GntOsDisk) disk = gnt_os_disk_new();
	g_autofree gchar *log_file = NULL;

	if (!os_test_have_debian_packages())
		return;
	noop = gnt_os_definition_find(path, "noop", &error);
	g_assert_no_error(error);
	env = gnt_os_env_new(noop, "noop", 0);
	gnt_os_env_set_instance(env, "inst1.example.com", "inst-uuid", "kvm");
	disk->path = g_strdup(fx->disk);
	gnt_os_env_add_disk(env, disk);
	g_assert_true(gnt_os_validate(noop, env, FALSE, 30, &error));
	g_assert_true(
		gnt_os_script_run(noop, GNT_OS_SCRIPT_CREATE, env, &options, &log_file, &error));
	g_assert_no_error(error);
	g_assert_true(g_file_test(log_file, G_FILE_TEST_IS_REGULAR));
	g_assert_nonnull(strstr(log_file, "/add-noop-inst1.example.com-"));

	debootstrap = gnt_os_definition_find(path, "debootstrap", &error);
	g_assert_no_error(error);
	verify_env = gnt_os_env_new(debootstrap, "debootstrap+default", 0);
	gnt_os_env_set_param(verify_env, "filesystem", "ext4");
	g_assert_true(gnt_os_validate(debootstrap, verify_env, FALSE, 30, &error));
	g_assert_no_error(error);
	gnt_os_env_set_param(verify_env, "filesystem", "zfs");
	g_assert_false(gnt_os_validate(debootstrap, verify_env, FALSE, 30, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(
		strstr(error->message, "Invalid value 'zfs' for the filesystem parameter"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, ScriptFx, NULL, fx_set_up, fn, fx_tear_down)
	ADD("/os/script/create", test_create);
	ADD("/os/script/create-fails", test_create_fails);
	ADD("/os/script/timeout", test_timeout);
	ADD("/os/script/cancel", test_cancel);
	ADD("/os/script/import-export", test_import_export);
	ADD("/os/script/rename", test_rename);
	ADD("/os/script/validate", test_validate);
	ADD("/os/script/missing-script", test_missing_script);
	ADD("/os/script/debian", test_debian);
#undef ADD
	return g_test_run();
}
