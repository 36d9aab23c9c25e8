#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gnt-child.h"
#include "gnt-command.h"
#include "gnt-error.h"
#include "gnt-test-process.h"

/* Runs `sh -c @script` and returns it, ended. */
static GntCommand *
run_sh(const gchar *script)
{
	g_autoptr(GError) error = NULL;
	GntCommand *cmd = gnt_command_new("/bin/sh");

	gnt_command_add_args(cmd, "-c", script, NULL);
	g_assert_true(gnt_command_run(cmd, &error));
	g_assert_no_error(error);
	return cmd;
}

static gchar *
output_of(GntCommand *cmd)
{
	gsize len = 0;
	const gchar *data = gnt_command_get_output(cmd, &len);

	return g_strndup(data, len);
}

static GPid
read_pid(const gchar *path)
{
	g_autofree gchar *text = NULL;

	for (guint i = 0; i < 100 && !g_file_get_contents(path, &text, NULL, NULL); i++)
		g_usleep(20 * 1000);
	g_assert_nonnull(text);
	return (GPid)g_ascii_strtoll(text, NULL, 10);
}

static void
test_argv_verbatim(void)
{
	g_autoptr(GntCommand) cmd = gnt_command_new("printf");
	g_autofree gchar *out = NULL;
	g_autoptr(GError) error = NULL;

	gnt_command_add_args(cmd, "[%s]", "a b", "'q'", "$HOME", "", NULL);
	g_assert_true(gnt_command_run(cmd, &error));
	g_assert_no_error(error);
	out = output_of(cmd);
	g_assert_cmpstr(out, ==, "[a b]['q'][$HOME][]");
	g_assert_null(gnt_command_get_failure(cmd));
	g_assert_true(gnt_command_check_success(cmd, NULL));
}

static void
test_env_empty_by_default(void)
{
	g_autoptr(GntCommand) cmd = gnt_command_new("/usr/bin/env");
	g_autofree gchar *out = NULL;

	g_setenv("GNT_LEAK", "no", TRUE);
	g_assert_true(gnt_command_run(cmd, NULL));
	out = output_of(cmd);
	/* only the safe PATH */
	g_assert_cmpstr(out, ==,
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n");
}

static void
test_env_when_asked(void)
{
	g_autoptr(GntCommand) cmd = gnt_command_new("/bin/sh");
	g_autoptr(GntCommand) exact = gnt_command_new("/usr/bin/env");
	g_autofree gchar *out = NULL;
	g_autofree gchar *exact_out = NULL;
	const gchar *envp[] = {"ONLY=this", NULL};

	g_setenv("GNT_PASSED", "from the daemon", TRUE);
	g_setenv("GNT_LEAK", "no", TRUE);
	gnt_command_add_args(cmd, "-c",
			     "echo \"[$GNT_PASSED][$SET][$GNT_LEAK][$GNT_ABSENT][$LC_ALL]\"", NULL);
	gnt_command_pass_env(cmd, "GNT_PASSED");
	gnt_command_pass_env(cmd, "GNT_ABSENT");
	gnt_command_setenv(cmd, "SET", "x=y");
	gnt_command_add_environ(cmd, (const gchar *const[]){"LC_ALL=C", "BAD", NULL});
	g_assert_true(gnt_command_run(cmd, NULL));
	out = output_of(cmd);
	g_assert_cmpstr(out, ==, "[from the daemon][x=y][][][C]\n");

	/* an environment given whole is exec'd as is: no PATH added */
	gnt_command_set_environ(exact, envp);
	g_assert_true(gnt_command_run(exact, NULL));
	exact_out = output_of(exact);
	g_assert_cmpstr(exact_out, ==, "ONLY=this\n");
}

static void
test_fds_and_cwd(void)
{
	g_autoptr(GntCommand) cmd = gnt_command_new("/bin/sh");
	g_autofree gchar *dir = g_dir_make_tmp("gnt-command-XXXXXX", NULL);
	g_autofree gchar *in_path = g_build_filename(dir, "in", NULL);
	g_autofree gchar *out_path = g_build_filename(dir, "out", NULL);
	g_autofree gchar *written = NULL;
	g_autofree gchar *captured = NULL;
	g_autofree gchar *expected = g_strdup_printf("input line in %s\n", dir);
	int in_fd, out_fd;

	g_assert_true(g_file_set_contents(in_path, "input line\n", -1, NULL));
	in_fd = open(in_path, O_RDONLY | O_CLOEXEC);
	out_fd = open(out_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	g_assert_cmpint(in_fd, >=, 0);
	g_assert_cmpint(out_fd, >=, 0);
	gnt_command_add_args(cmd, "-c", "read l; echo \"$l in $(pwd)\"; echo to-stderr >&2", NULL);
	gnt_command_set_cwd(cmd, dir);
	gnt_command_set_stdin_fd(cmd, in_fd);
	gnt_command_set_stdout_fd(cmd, out_fd);
	g_assert_true(gnt_command_run(cmd, NULL));
	(void)close(in_fd);
	(void)close(out_fd);
	g_assert_true(g_file_get_contents(out_path, &written, NULL, NULL));
	g_assert_cmpstr(written, ==, expected);
	/* stderr had no descriptor: captured */
	captured = output_of(cmd);
	g_assert_cmpstr(captured, ==, "to-stderr\n");
	(void)g_unlink(in_path);
	(void)g_unlink(out_path);
	(void)g_rmdir(dir);
}

static void
test_stdin_is_dev_null(void)
{
	g_autoptr(GntCommand) cmd = run_sh("cat; echo done");
	g_autofree gchar *out = output_of(cmd);

	g_assert_cmpstr(out, ==, "done\n");
}

static void
test_end_texts(void)
{
	g_autoptr(GntCommand) ok = run_sh("exit 0");
	g_autoptr(GntCommand) failed = run_sh("echo first; echo why it failed >&2; exit 3");
	g_autoptr(GntCommand) signaled = run_sh("kill -TERM $$");
	g_autoptr(GError) error = NULL;

	g_assert_cmpint(gnt_command_get_end(ok), ==, GNT_COMMAND_END_EXITED);
	g_assert_null(gnt_command_get_failure(ok));

	g_assert_cmpint(gnt_command_get_end(failed), ==, GNT_COMMAND_END_EXITED);
	g_assert_cmpint(gnt_command_get_exit_status(failed), ==, 3);
	g_assert_cmpstr(gnt_command_get_failure(failed), ==, "exited with exit code 3");
	g_assert_false(gnt_command_check_success(failed, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_cmpstr(error->message, ==,
			"'/bin/sh' failed (exited with exit code 3): first\nwhy it failed");
	/* a caller passing no error still learns it failed */
	g_assert_false(gnt_command_check_success(failed, NULL));

	g_assert_cmpint(gnt_command_get_end(signaled), ==, GNT_COMMAND_END_SIGNALED);
	g_assert_cmpint(gnt_command_get_exit_status(signaled), ==, 128 + SIGTERM);
	g_assert_cmpstr(gnt_command_get_failure(signaled), ==, "terminated by signal 15");
}

static void
test_missing_program(void)
{
	g_autoptr(GntCommand) cmd = gnt_command_new("/nonexistent/program");
	g_autoptr(GntCommand) by_name = gnt_command_new("gnt-no-such-program");
	g_autoptr(GError) error = NULL;
	g_autoptr(GError) name_error = NULL;

	g_assert_false(gnt_command_run(cmd, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(strstr(error->message, "'/nonexistent/program'"));
	g_assert_false(gnt_command_run(by_name, &name_error));
	g_assert_nonnull(name_error);
}

static void
test_timeout_kills_group(void)
{
	g_autofree gchar *dir = g_dir_make_tmp("gnt-command-XXXXXX", NULL);
	g_autofree gchar *pid_path = g_build_filename(dir, "pid", NULL);
	g_autofree gchar *script =
		g_strdup_printf("sleep 30 & echo $! > %s; echo started; sleep 30", pid_path);
	g_autoptr(GntCommand) cmd = gnt_command_new("/bin/sh");
	gint64 start = g_get_monotonic_time();
	g_autofree gchar *tail = NULL;

	gnt_command_add_args(cmd, "-c", script, NULL);
	gnt_command_set_timeout(cmd, 1);
	g_assert_true(gnt_command_run(cmd, NULL));
	g_assert_cmpint(g_get_monotonic_time() - start, <, 10 * G_USEC_PER_SEC);
	g_assert_cmpint(gnt_command_get_end(cmd), ==, GNT_COMMAND_END_TIMED_OUT);
	g_assert_cmpstr(gnt_command_get_failure(cmd), ==, "killed after timeout of 1 seconds");
	tail = gnt_command_dup_output_tail(cmd, 5);
	g_assert_cmpstr(tail, ==, "started");
	/* the background sleep, in the same group, went too */
	g_assert_true(gnt_test_process_ends(read_pid(pid_path)));
	(void)g_unlink(pid_path);
	(void)g_rmdir(dir);
}

static gboolean
cancel_cb(gpointer data)
{
	g_cancellable_cancel(data);
	return G_SOURCE_REMOVE;
}

static gpointer
cancel_later_thread(gpointer data)
{
	g_usleep(200 * 1000);
	cancel_cb(data);
	return NULL;
}

static void
test_cancellation(void)
{
	g_autoptr(GntCommand) cmd = gnt_command_new("sleep");
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autoptr(GThread) thread = NULL;
	gint64 start = g_get_monotonic_time();

	gnt_command_add_arg(cmd, "30");
	gnt_command_set_cancellable(cmd, cancellable);
	thread = g_thread_new("cancel", cancel_later_thread, cancellable);
	g_assert_true(gnt_command_run(cmd, NULL));
	g_thread_join(g_steal_pointer(&thread));
	g_assert_cmpint(g_get_monotonic_time() - start, <, 10 * G_USEC_PER_SEC);
	g_assert_cmpint(gnt_command_get_end(cmd), ==, GNT_COMMAND_END_CANCELLED);
	g_assert_cmpstr(gnt_command_get_failure(cmd), ==, "cancelled");
}

static void
collect_line(const gchar *line, gpointer data)
{
	g_ptr_array_add(data, g_strdup(line));
}

static void
test_output_tail_and_lines(void)
{
	g_autoptr(GntCommand) cmd = gnt_command_new("/bin/sh");
	g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *tail = NULL;
	gsize len = 0;

	gnt_command_add_args(cmd, "-c",
			     "printf 'p1\\rp2\\r\\n'; i=0; while [ $i -lt 1000 ]; do "
			     "echo line $i; i=$((i+1)); done; printf 'last, no newline'",
			     NULL);
	gnt_command_set_output_keep(cmd, 100);
	gnt_command_set_line_func(cmd, collect_line, lines);
	g_assert_true(gnt_command_run(cmd, NULL));
	/* every line seen as it came, '\r' ending one too */
	g_assert_cmpuint(lines->len, ==, 1003);
	g_assert_cmpstr(lines->pdata[0], ==, "p1");
	g_assert_cmpstr(lines->pdata[1], ==, "p2");
	g_assert_cmpstr(lines->pdata[1002], ==, "last, no newline");
	/* only the end kept */
	(void)gnt_command_get_output(cmd, &len);
	g_assert_cmpuint(len, ==, 100);
	tail = gnt_command_dup_output_tail(cmd, 3);
	g_assert_cmpstr(tail, ==, "line 998\nline 999\nlast, no newline");
}

static void
test_tail_text(void)
{
	const gchar text[] = "a\n\nb\r\nc\xff\n\n";
	g_autofree gchar *two = gnt_command_tail_text(text, sizeof(text) - 1, 2);
	g_autofree gchar *all = gnt_command_tail_text(text, sizeof(text) - 1, 10);
	g_autofree gchar *none = gnt_command_tail_text("", 0, 3);

	g_assert_cmpstr(two, ==, "b\nc\xef\xbf\xbd");
	g_assert_cmpstr(all, ==, "a\nb\nc\xef\xbf\xbd");
	g_assert_cmpstr(none, ==, "");
}

/* A group of its own, recorded while it runs and forgotten once it
 * ended. */
static void
test_group_and_record(void)
{
	g_autofree gchar *dir = g_dir_make_tmp("gnt-command-XXXXXX", NULL);
	g_autoptr(GntCommand) cmd = gnt_command_new("sleep");
	g_autoptr(GError) error = NULL;
	g_autofree gchar *record = NULL;
	GPid pid;

	gnt_child_set_record_dir(dir);
	gnt_command_add_arg(cmd, "30");
	gnt_command_set_timeout(cmd, 1);
	g_assert_true(gnt_command_spawn(cmd, &error));
	pid = gnt_command_get_pid(cmd);
	g_assert_cmpint(pid, >, 0);
	g_assert_cmpint(getpgid(pid), ==, pid);
	record = g_strdup_printf("%s/%d", dir, (gint)pid);
	g_assert_true(g_file_test(record, G_FILE_TEST_EXISTS));
	gnt_command_wait(cmd);
	g_assert_cmpint(gnt_command_get_end(cmd), ==, GNT_COMMAND_END_TIMED_OUT);
	g_assert_false(g_file_test(record, G_FILE_TEST_EXISTS));
	gnt_child_set_record_dir(NULL);
	(void)g_rmdir(dir);
}

static gpointer
spawn_and_leave_thread(gpointer data)
{
	GntCommand *cmd = data;

	g_assert_true(gnt_command_spawn(cmd, NULL));
	return NULL; /* the thread that started it ends here */
}

/* The child gets SIGKILL when the thread that started it dies. */
static void
test_parent_death(void)
{
	g_autoptr(GntCommand) cmd = gnt_command_new("sleep");
	GPid pid;

	gnt_command_add_arg(cmd, "30");
	g_thread_join(g_thread_new("spawner", spawn_and_leave_thread, cmd));
	pid = gnt_command_get_pid(cmd);
	g_assert_cmpint(pid, >, 0);
	g_assert_true(gnt_test_process_ends(pid));
	gnt_command_wait(cmd);
	g_assert_cmpint(gnt_command_get_end(cmd), ==, GNT_COMMAND_END_SIGNALED);
	g_assert_cmpstr(gnt_command_get_failure(cmd), ==, "terminated by signal 9");
}

/* Freeing a command whose child still runs ends the child. */
static void
test_free_kills(void)
{
	GntCommand *cmd = gnt_command_new("sleep");
	GPid pid;

	gnt_command_add_arg(cmd, "30");
	g_assert_true(gnt_command_spawn(cmd, NULL));
	pid = gnt_command_get_pid(cmd);
	gnt_command_free(cmd);
	g_assert_cmpint(kill(pid, 0), ==, -1);
	g_assert_cmpint(errno, ==, ESRCH);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/command/argv-verbatim", test_argv_verbatim);
	g_test_add_func("/command/env-empty-by-default", test_env_empty_by_default);
	g_test_add_func("/command/env-when-asked", test_env_when_asked);
	g_test_add_func("/command/fds-and-cwd", test_fds_and_cwd);
	g_test_add_func("/command/stdin-is-dev-null", test_stdin_is_dev_null);
	g_test_add_func("/command/end-texts", test_end_texts);
	g_test_add_func("/command/missing-program", test_missing_program);
	g_test_add_func("/command/timeout-kills-group", test_timeout_kills_group);
	g_test_add_func("/command/cancellation", test_cancellation);
	g_test_add_func("/command/output-tail-and-lines", test_output_tail_and_lines);
	g_test_add_func("/command/tail-text", test_tail_text);
	g_test_add_func("/command/group-and-record", test_group_and_record);
	g_test_add_func("/command/parent-death", test_parent_death);
	g_test_add_func("/command/free-kills", test_free_kills);
	return g_test_run();
}
