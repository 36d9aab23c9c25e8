#include "gnt-daemon.h"

#include "gnt-log.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <signal.h>
#include <stddef.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnt-error.h"

/* What the daemon writes on the start-up pipe; a failure adds its message. */
#define GNT_DAEMON_REPORT_READY "READY"
#define GNT_DAEMON_REPORT_FAIL	"FAIL\n"
/* What glibc writes over freed heap memory (mallopt M_PERTURB). */
#define GNT_DAEMON_FREED_BYTE 0x5a

struct _GntDaemon {
	gchar *name;
	gchar *pid_file;
	int pid_fd;    /* open and locked while we hold the pid file */
	int report_fd; /* write end of the start-up pipe, in a detached daemon */
	GSource *signal_sources[2];
};

GntDaemon *
gnt_daemon_new(const gchar *name, const gchar *pid_file)
{
	GntDaemon *self;

	g_return_val_if_fail(name != NULL && pid_file != NULL, NULL);
	self = g_new0(GntDaemon, 1);
	self->name = g_strdup(name);
	self->pid_file = g_strdup(pid_file);
	self->pid_fd = -1;
	self->report_fd = -1;
	return self;
}

void
gnt_daemon_free(GntDaemon *self)
{
	if (self == NULL)
		return;
	for (guint i = 0; i < G_N_ELEMENTS(self->signal_sources); i++) {
		if (self->signal_sources[i] != NULL) {
			g_source_destroy(self->signal_sources[i]);
			g_source_unref(self->signal_sources[i]);
		}
	}
	if (self->pid_fd >= 0) {
		/* unlink while still holding the lock, so no one reuses it meanwhile */
		(void)unlink(self->pid_file);
		close(self->pid_fd);
	}
	if (self->report_fd >= 0)
		close(self->report_fd);
	g_free(self->name);
	g_free(self->pid_file);
	g_free(self);
}

static gboolean
write_all(int fd, const gchar *data, gsize len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return FALSE;
		data += n;
		len -= (gsize)n;
	}
	return TRUE;
}

/* In the first child: new session, second fork, detached standard streams.
 * Only the grandchild returns. */
static void
become_daemon(int report_fd)
{
	pid_t pid;
	int null_fd;

	if (setsid() < 0) {
		g_autofree gchar *msg =
			g_strdup_printf(GNT_DAEMON_REPORT_FAIL "setsid(): %s", g_strerror(errno));
		(void)write_all(report_fd, msg, strlen(msg));
		_exit(1);
	}
	pid = fork();
	if (pid < 0) {
		g_autofree gchar *msg =
			g_strdup_printf(GNT_DAEMON_REPORT_FAIL "fork(): %s", g_strerror(errno));
		(void)write_all(report_fd, msg, strlen(msg));
		_exit(1);
	}
	if (pid > 0)
		_exit(0); /* the session leader goes; the daemon can never get a tty back */
	if (chdir("/") != 0)
		_exit(1);
	umask(027);
	null_fd = open("/dev/null", O_RDWR);
	if (null_fd >= 0) {
		(void)dup2(null_fd, STDIN_FILENO);
		(void)dup2(null_fd, STDOUT_FILENO);
		(void)dup2(null_fd, STDERR_FILENO);
		if (null_fd > STDERR_FILENO)
			close(null_fd);
	}
}

/* In the calling process: everything the daemon reported until it closed
 * the pipe (it does so on notify_ready/notify_failed, or by dying). */
static GString *
read_report(int fd)
{
	GString *report = g_string_new(NULL);
	gchar buf[512];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		g_string_append_len(report, buf, n);
	}
	return report;
}

gboolean
gnt_daemon_detach(GntDaemon *self, gboolean *is_daemon, GError **error)
{
	int fds[2];
	pid_t child;
	int status;
	g_autoptr(GString) report = NULL;

	g_return_val_if_fail(self != NULL && is_daemon != NULL, FALSE);

	*is_daemon = FALSE;
	if (!g_unix_open_pipe(fds, FD_CLOEXEC, error)) {
		gnt_error_convert(error);
		g_prefix_error(error, "creating the start-up pipe: ");
		return FALSE;
	}
	fflush(stdout);
	fflush(stderr);
	child = fork();
	if (child < 0) {
		gnt_error_set_errno(error, errno, "fork()");
		close(fds[0]);
		close(fds[1]);
		return FALSE;
	}
	if (child == 0) {
		close(fds[0]);
		become_daemon(fds[1]);
		self->report_fd = fds[1];
		*is_daemon = TRUE;
		return TRUE;
	}

	close(fds[1]);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	report = read_report(fds[0]);
	close(fds[0]);
	if (g_strcmp0(report->str, GNT_DAEMON_REPORT_READY) == 0)
		return TRUE;
	if (g_str_has_prefix(report->str, GNT_DAEMON_REPORT_FAIL)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    report->str + strlen(GNT_DAEMON_REPORT_FAIL));
		return FALSE;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
		    "'%s' exited during start-up without reporting why; see its log", self->name);
	return FALSE;
}

/* The pid of the process holding a write lock on @fd, or 0. */
static gboolean
get_lock_holder(int fd, const gchar *path, pid_t *pid, GError **error)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};

	if (fcntl(fd, F_GETLK, &fl) != 0) {
		g_autofree gchar *what = g_strdup_printf("checking the lock on '%s'", path);
		gnt_error_set_errno(error, errno, what);
		return FALSE;
	}
	*pid = fl.l_type == F_UNLCK ? 0 : fl.l_pid;
	return TRUE;
}

/* Opens @path and locks it; sets *@fd to -1 (no error) when the file was
 * replaced between open and lock, so the caller tries again. */
static gboolean
open_and_lock(const GntDaemon *self, int *fd_out, GError **error)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	struct stat by_fd;
	struct stat by_path;
	int fd;

	*fd_out = -1;
	fd = open(self->pid_file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0) {
		g_autofree gchar *what = g_strdup_printf("opening pid file '%s'", self->pid_file);
		gnt_error_set_errno(error, errno, what);
		return FALSE;
	}
	if (fcntl(fd, F_SETLK, &fl) != 0) {
		int errsv = errno;
		pid_t holder = 0;

		if (errsv == EACCES || errsv == EAGAIN) {
			(void)get_lock_holder(fd, self->pid_file, &holder, NULL);
			g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
				    "%s is already running (pid %d, pid file '%s')", self->name,
				    (int)holder, self->pid_file);
		} else {
			g_autofree gchar *what =
				g_strdup_printf("locking pid file '%s'", self->pid_file);
			gnt_error_set_errno(error, errsv, what);
		}
		close(fd);
		return FALSE;
	}
	/* a stopping daemon may have unlinked the file we opened */
	if (fstat(fd, &by_fd) != 0 || stat(self->pid_file, &by_path) != 0 ||
	    by_fd.st_dev != by_path.st_dev || by_fd.st_ino != by_path.st_ino) {
		close(fd);
		return TRUE;
	}
	*fd_out = fd;
	return TRUE;
}

gboolean
gnt_daemon_lock_pid_file(GntDaemon *self, GError **error)
{
	g_autofree gchar *pid_text = g_strdup_printf("%d\n", (int)getpid());
	int fd = -1;

	g_return_val_if_fail(self != NULL && self->pid_fd < 0, FALSE);

	for (guint attempt = 0; attempt < 10 && fd < 0; attempt++) {
		if (!open_and_lock(self, &fd, error))
			return FALSE;
	}
	if (fd < 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "pid file '%s' keeps being replaced", self->pid_file);
		return FALSE;
	}
	if (ftruncate(fd, 0) != 0 || !write_all(fd, pid_text, strlen(pid_text))) {
		g_autofree gchar *what = g_strdup_printf("writing pid file '%s'", self->pid_file);
		gnt_error_set_errno(error, errno, what);
		close(fd);
		return FALSE;
	}
	self->pid_fd = fd;
	return TRUE;
}

gboolean
gnt_daemon_get_running_pid(const gchar *pid_file, pid_t *pid, GError **error)
{
	int fd;
	gboolean ok;

	g_return_val_if_fail(pid_file != NULL && pid != NULL, FALSE);

	*pid = 0;
	fd = open(pid_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		g_autofree gchar *what = NULL;

		if (errno == ENOENT)
			return TRUE;
		what = g_strdup_printf("opening pid file '%s'", pid_file);
		gnt_error_set_errno(error, errno, what);
		return FALSE;
	}
	ok = get_lock_holder(fd, pid_file, pid, error);
	close(fd);
	return ok;
}

gboolean
gnt_daemon_harden(GError **error)
{
	struct rlimit limit;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		gnt_error_set_errno(error, errno, "prctl(PR_SET_DUMPABLE, 0)");
		return FALSE;
	}
	/* freed heap memory is overwritten: the TLS library's buffers of
	 * decrypted records (request bodies with secrets) are freed without
	 * being zeroed (doc/secrets.md) */
	(void)mallopt(M_PERTURB, GNT_DAEMON_FREED_BYTE);
	if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
		limit.rlim_cur = limit.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
			gnt_error_set_errno(error, errno, "raising RLIMIT_NOFILE");
			return FALSE;
		}
	}
	(void)signal(SIGPIPE, SIG_IGN);
	return TRUE;
}

static void
report(GntDaemon *self, const gchar *text)
{
	if (self->report_fd < 0)
		return;
	(void)write_all(self->report_fd, text, strlen(text));
	close(self->report_fd);
	self->report_fd = -1;
}

void
gnt_daemon_notify_ready(GntDaemon *self)
{
	g_return_if_fail(self != NULL);
	report(self, GNT_DAEMON_REPORT_READY);
	(void)gnt_daemon_sd_notify("READY=1");
}

void
gnt_daemon_notify_failed(GntDaemon *self, const GError *error)
{
	g_autofree gchar *text = NULL;

	g_return_if_fail(self != NULL);
	text = g_strconcat(GNT_DAEMON_REPORT_FAIL, error != NULL ? error->message : "unknown error",
			   NULL);
	report(self, text);
}

void
gnt_daemon_notify_stopping(GntDaemon *self)
{
	g_return_if_fail(self != NULL);
	(void)gnt_daemon_sd_notify("STOPPING=1");
}

gboolean
gnt_daemon_sd_notify(const gchar *state)
{
	const gchar *path = g_getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	gsize len;
	ssize_t sent;
	int fd;

	g_return_val_if_fail(state != NULL, FALSE);

	if (path == NULL || (path[0] != '/' && path[0] != '@'))
		return FALSE;
	len = strlen(path);
	if (len >= sizeof(addr.sun_path))
		return FALSE;
	memcpy(addr.sun_path, path, len);
	if (addr.sun_path[0] == '@')
		addr.sun_path[0] = '\0'; /* abstract namespace */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return FALSE;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (const struct sockaddr *)&addr,
		      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	close(fd);
	return sent >= 0;
}

void
gnt_daemon_add_stop_handler(GntDaemon *self, GSourceFunc func, gpointer user_data)
{
	const int signals[] = {SIGTERM, SIGINT};

	G_STATIC_ASSERT(G_N_ELEMENTS(signals) == G_N_ELEMENTS(self->signal_sources));
	g_return_if_fail(self != NULL && func != NULL);

	for (guint i = 0; i < G_N_ELEMENTS(signals); i++) {
		GSource *source = g_unix_signal_source_new(signals[i]);

		g_source_set_callback(source, func, user_data, NULL);
		g_source_attach(source, NULL);
		if (self->signal_sources[i] != NULL) {
			g_source_destroy(self->signal_sources[i]);
			g_source_unref(self->signal_sources[i]);
		}
		self->signal_sources[i] = source;
	}
}

void
gnt_daemon_use_system_malloc(char **argv)
{
	if (glib_check_version(2, 76, 0) == NULL)
		return; /* GSlice is gone: g_slice_alloc() is malloc() */
	if (g_strcmp0(g_getenv("G_SLICE"), "always-malloc") == 0)
		return;
	g_setenv("G_SLICE", "always-malloc", TRUE);
	execv("/proc/self/exe", argv);
	/* still running: slices it is, at some memory cost */
}

static gboolean
daemon_stop_cb(gpointer user_data)
{
	g_message("stop signal received; shutting down");
	g_main_loop_quit(user_data);
	return G_SOURCE_CONTINUE;
}

static gboolean
daemon_reopen_log_cb(gpointer user_data)
{
	g_autoptr(GError) error = NULL;

	if (!gnt_log_reopen(&error))
		g_warning("%s", error->message);
	else
		g_info("log file reopened");
	return G_SOURCE_CONTINUE;
}

void
gnt_daemon_catch_stop(GntDaemon *self, GMainLoop *loop)
{
	g_return_if_fail(self != NULL && loop != NULL);

	gnt_daemon_add_stop_handler(self, daemon_stop_cb, loop);
}

void
gnt_daemon_run(GntDaemon *self, GMainLoop *loop)
{
	guint sighup;

	g_return_if_fail(self != NULL && loop != NULL);

	if (self->signal_sources[0] == NULL)
		gnt_daemon_catch_stop(self, loop);
	sighup = g_unix_signal_add(SIGHUP, daemon_reopen_log_cb, NULL);
	gnt_daemon_notify_ready(self);
	g_main_loop_run(loop);
	gnt_daemon_notify_stopping(self);
	g_source_remove(sighup);
}

gboolean
gnt_daemon_prepare(const GntPaths *paths, const gchar *name, gboolean foreground, gboolean verbose,
		   gboolean debug, GError **error)
{
	g_autofree gchar *log_file = NULL;

	if (!gnt_paths_ensure_dirs(paths, error))
		return FALSE;
	if (!foreground)
		log_file = gnt_paths_dup_log_file(paths, name);
	return gnt_log_setup(name, log_file, verbose, debug, error);
}

void
gnt_daemon_report_start_failure(GntDaemon *self, gboolean foreground, const GError *error)
{
	gnt_daemon_notify_failed(self, error);
	if (foreground)
		g_printerr("%s: %s\n", self->name, error->message);
	else
		g_warning("start-up failed: %s", error->message);
}

gboolean
gnt_daemon_parse_options(int *argc, char ***argv, const GOptionEntry *entries, const gchar *summary,
			 const gchar *description, GError **error)
{
	g_autoptr(GOptionContext) context = g_option_context_new(NULL);

	g_option_context_set_summary(context, summary);
	g_option_context_set_description(context, description);
	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, argc, argv, error))
		return FALSE;
	if (*argc > 1) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
			    "unexpected argument '%s'", (*argv)[1]);
		return FALSE;
	}
	return TRUE;
}

int
gnt_daemon_usage_error(const gchar *name, const GError *error)
{
	g_printerr("%s: %s\nTry '%s --help' for more information.\n", name, error->message, name);
	return 2;
}

int
gnt_daemon_main(const GntDaemonSpec *spec)
{
	g_autoptr(GntPaths) paths = gnt_paths_new(spec->root);
	g_autofree gchar *pid_file = gnt_paths_dup_pid_file(paths, spec->name);
	g_autoptr(GMainLoop) loop = NULL; /* outlives the daemon's signal sources */
	g_autoptr(GntDaemon) self = gnt_daemon_new(spec->name, pid_file);
	g_autoptr(GError) error = NULL;
	gboolean is_daemon = TRUE;

	if ((spec->check != NULL && !spec->check(paths, spec->options, &error)) ||
	    !gnt_daemon_prepare(paths, spec->name, spec->foreground, spec->verbose, spec->debug,
				&error) ||
	    (!spec->foreground && !gnt_daemon_detach(self, &is_daemon, &error))) {
		g_printerr("%s: %s\n", spec->name, error->message);
		return EXIT_FAILURE;
	}
	if (!is_daemon)
		return EXIT_SUCCESS; /* the detached daemon is ready */

	loop = g_main_loop_new(NULL, FALSE);
	gnt_daemon_catch_stop(self, loop);
	if (!gnt_daemon_harden(&error) || !gnt_daemon_lock_pid_file(self, &error) ||
	    !spec->start(spec->state, paths, spec->options, &error)) {
		gnt_daemon_report_start_failure(self, spec->foreground, error);
		spec->clear(spec->state); /* the pid file goes last */
		return EXIT_FAILURE;
	}
	gnt_daemon_run(self, loop);
	spec->clear(spec->state);
	/* the daemon's own words: its log domain is its name */
	g_log(spec->name, G_LOG_LEVEL_MESSAGE, "stopped");
	return EXIT_SUCCESS;
}
