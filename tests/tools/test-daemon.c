/* common/gnt-daemon: pid file locking, start-up reporting, systemd
 * notification, hardening and stop signals. */
#include "gnt-daemon.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnt-error.h"

typedef struct {
	gchar *dir;
	gchar *pid_file;
} DaemonFx;

static void
fx_set_up(DaemonFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->dir = g_dir_make_tmp("gnt-daemon-XXXXXX", &error);
	g_assert_no_error(error);
	fx->pid_file = g_build_filename(fx->dir, "test.pid", NULL);
}

static void
fx_tear_down(DaemonFx *fx, gconstpointer data)
{
	(void)g_unlink(fx->pid_file);
	g_assert_cmpint(g_rmdir(fx->dir), ==, 0);
	g_free(fx->pid_file);
	g_free(fx->dir);
}

/* A child that takes the pid file, says so on @ready_fd and waits to die. */
static pid_t
spawn_holder(const gchar *pid_file)
{
	int fds[2];
	pid_t pid;
	gchar byte = 0;

	g_assert_cmpint(pipe(fds), ==, 0);
	pid = fork();
	g_assert_cmpint(pid, >=, 0);
	if (pid == 0) {
		GntDaemon *daemon = gnt_daemon_new("holder", pid_file);

		close(fds[0]);
		if (!gnt_daemon_lock_pid_file(daemon, NULL))
			_exit(1);
		if (write(fds[1], "L", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	g_assert_cmpint(read(fds[0], &byte, 1), ==, 1);
	g_assert_cmpint(byte, ==, 'L');
	close(fds[0]);
	return pid;
}

static void
test_pid_file_lock(DaemonFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntDaemon) second = gnt_daemon_new("second", fx->pid_file);
	g_autofree gchar *expected = NULL;
	g_autofree gchar *content = NULL;
	pid_t holder = spawn_holder(fx->pid_file);
	pid_t running = 0;
	int status;

	g_assert_true(gnt_daemon_get_running_pid(fx->pid_file, &running, &error));
	g_assert_no_error(error);
	g_assert_cmpint(running, ==, holder);

	/* a second daemon is refused while the holder lives */
	g_assert_false(gnt_daemon_lock_pid_file(second, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	expected = g_strdup_printf("second is already running (pid %d", (int)holder);
	g_assert_true(g_str_has_prefix(error->message, expected));
	g_clear_error(&error);

	/* kill -9 leaves a stale file that blocks nobody */
	g_assert_cmpint(kill(holder, SIGKILL), ==, 0);
	g_assert_cmpint(waitpid(holder, &status, 0), ==, holder);
	g_assert_true(g_file_test(fx->pid_file, G_FILE_TEST_EXISTS));
	g_assert_true(gnt_daemon_get_running_pid(fx->pid_file, &running, &error));
	g_assert_cmpint(running, ==, 0);
	g_assert_true(gnt_daemon_lock_pid_file(second, &error));
	g_assert_no_error(error);
	g_assert_true(g_file_get_contents(fx->pid_file, &content, NULL, &error));
	g_free(expected);
	expected = g_strdup_printf("%d\n", (int)getpid());
	g_assert_cmpstr(content, ==, expected);

	/* releasing removes the file */
	g_clear_pointer(&second, gnt_daemon_free);
	g_assert_false(g_file_test(fx->pid_file, G_FILE_TEST_EXISTS));
}

static void
test_missing_pid_file(DaemonFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	pid_t running = 42;

	g_assert_true(gnt_daemon_get_running_pid(fx->pid_file, &running, &error));
	g_assert_no_error(error);
	g_assert_cmpint(running, ==, 0);
}

typedef enum {
	DETACH_READY,
	DETACH_FAIL,
	DETACH_DIE,
} DetachOutcome;

static void
test_detach(DaemonFx *fx, gconstpointer data)
{
	DetachOutcome outcome = GPOINTER_TO_INT(data);
	g_autoptr(GntDaemon) daemon = gnt_daemon_new("detached", fx->pid_file);
	g_autoptr(GError) error = NULL;
	pid_t test_session = getsid(0);
	gboolean is_daemon = FALSE;
	gboolean ok = gnt_daemon_detach(daemon, &is_daemon, &error);

	if (is_daemon) {
		g_autoptr(GError) failure = NULL;
		g_autofree gchar *cwd = g_get_current_dir();

		/* the detached side: a session of its own, cwd /; else no report */
		if (getsid(0) == test_session || g_strcmp0(cwd, "/") != 0)
			_exit(3);
		switch (outcome) {
		case DETACH_READY:
			gnt_daemon_notify_ready(daemon);
			break;
		case DETACH_FAIL:
			g_set_error(&failure, GNT_ERROR, GNT_ERROR_INVALID, "no cluster under '%s'",
				    "/x");
			gnt_daemon_notify_failed(daemon, failure);
			break;
		case DETACH_DIE:
		default:
			break;
		}
		_exit(0);
	}
	switch (outcome) {
	case DETACH_READY:
		g_assert_no_error(error);
		g_assert_true(ok);
		break;
	case DETACH_FAIL:
		g_assert_false(ok);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
		g_assert_cmpstr(error->message, ==, "no cluster under '/x'");
		break;
	case DETACH_DIE:
	default:
		g_assert_false(ok);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
		g_assert_nonnull(strstr(error->message, "'detached' exited during start-up"));
		break;
	}
}

static void
test_sd_notify(DaemonFx *fx, gconstpointer data)
{
	g_autofree gchar *path = g_build_filename(fx->dir, "notify", NULL);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	gchar buf[64] = {0};
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	g_assert_cmpint(fd, >=, 0);
	g_strlcpy(addr.sun_path, path, sizeof(addr.sun_path));
	g_assert_cmpint(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), ==, 0);

	g_unsetenv("NOTIFY_SOCKET");
	g_assert_false(gnt_daemon_sd_notify("READY=1"));
	g_setenv("NOTIFY_SOCKET", path, TRUE);
	g_assert_true(gnt_daemon_sd_notify("READY=1"));
	g_assert_cmpint(recv(fd, buf, sizeof(buf) - 1, 0), ==, 7);
	g_assert_cmpstr(buf, ==, "READY=1");
	g_unsetenv("NOTIFY_SOCKET");
	close(fd);
	g_assert_cmpint(g_unlink(path), ==, 0);
}

static void
test_harden(void)
{
	pid_t pid = fork();
	int status = 0;

	g_assert_cmpint(pid, >=, 0);
	if (pid == 0) {
		struct rlimit limit;

		if (!gnt_daemon_harden(NULL))
			_exit(1);
		if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
			_exit(2);
		if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur != limit.rlim_max)
			_exit(3);
		_exit(0);
	}
	g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
	g_assert_true(WIFEXITED(status));
	g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

static gboolean
stop_cb(gpointer user_data)
{
	gboolean *stopped = user_data;

	*stopped = TRUE;
	return G_SOURCE_CONTINUE;
}

static void
test_stop_handler(DaemonFx *fx, gconstpointer data)
{
	g_autoptr(GntDaemon) daemon = gnt_daemon_new("stopper", fx->pid_file);
	gboolean stopped = FALSE;

	gnt_daemon_add_stop_handler(daemon, stop_cb, &stopped);
	g_assert_cmpint(kill(getpid(), SIGTERM), ==, 0);
	while (!stopped)
		g_main_context_iteration(NULL, TRUE);
	stopped = FALSE;
	g_assert_cmpint(kill(getpid(), SIGINT), ==, 0);
	while (!stopped)
		g_main_context_iteration(NULL, TRUE);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/daemon/pid-file/lock", DaemonFx, NULL, fx_set_up, test_pid_file_lock,
		   fx_tear_down);
	g_test_add("/daemon/pid-file/missing", DaemonFx, NULL, fx_set_up, test_missing_pid_file,
		   fx_tear_down);
	g_test_add("/daemon/detach/ready", DaemonFx, GINT_TO_POINTER(DETACH_READY), fx_set_up,
		   test_detach, fx_tear_down);
	g_test_add("/daemon/detach/failed", DaemonFx, GINT_TO_POINTER(DETACH_FAIL), fx_set_up,
		   test_detach, fx_tear_down);
	g_test_add("/daemon/detach/died", DaemonFx, GINT_TO_POINTER(DETACH_DIE), fx_set_up,
		   test_detach, fx_tear_down);
	g_test_add("/daemon/sd-notify", DaemonFx, NULL, fx_set_up, test_sd_notify, fx_tear_down);
	g_test_add_func("/daemon/harden", test_harden);
	g_test_add("/daemon/stop-handler", DaemonFx, NULL, fx_set_up, test_stop_handler,
		   fx_tear_down);
	return g_test_run();
}
