#include "gnt-cli-daemons.h"

#include <errno.h>
#include <gio/gio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "gnt-build-config.h"
#include "gnt-daemon.h"
#include "gnt-error.h"

#define GNT_CLI_DAEMON_DIR_ENV "GANTRY_DAEMON_DIR"
#define STOP_POLL_MS	       50
#define KILL_WAIT_S	       5
/* how long a killed daemon may take to let go of its pid file */
#define EXITING_WAIT_S 30

gchar *
gnt_cli_find_daemon(const gchar *daemon, GError **error)
{
	g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *exe = g_file_read_link("/proc/self/exe", NULL);
	g_autoptr(GString) tried = g_string_new(NULL);
	const gchar *env = g_getenv(GNT_CLI_DAEMON_DIR_ENV);

	if (env != NULL && env[0] != '\0')
		g_ptr_array_add(dirs, g_strdup(env));
	if (exe != NULL) {
		g_autofree gchar *exe_dir = g_path_get_dirname(exe);

		g_ptr_array_add(dirs, g_strdup(exe_dir));
		g_ptr_array_add(dirs, g_build_filename(exe_dir, "..", "daemons", NULL));
	}
	g_ptr_array_add(dirs, g_strdup(GNT_SBINDIR));
	for (guint i = 0; i < dirs->len; i++) {
		g_autofree gchar *path = g_build_filename(g_ptr_array_index(dirs, i), daemon, NULL);

		if (g_file_test(path, G_FILE_TEST_IS_REGULAR) &&
		    g_file_test(path, G_FILE_TEST_IS_EXECUTABLE))
			return g_canonicalize_filename(path, NULL);
		g_string_append_printf(tried, "%s'%s'", i > 0 ? ", " : "",
				       (const gchar *)g_ptr_array_index(dirs, i));
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
		    "cannot find the program '%s' in %s (set $" GNT_CLI_DAEMON_DIR_ENV ")", daemon,
		    tried->str);
	return NULL;
}

gboolean
gnt_cli_daemon_get_pid(const GntPaths *paths, const gchar *daemon, pid_t *pid, GError **error)
{
	g_autofree gchar *pid_file = gnt_paths_dup_pid_file(paths, daemon);

	return gnt_daemon_get_running_pid(pid_file, pid, error);
}

/* Waits until nobody holds the pid file or @timeout_s passed; *@pid is
 * the holder left (0 once it is gone). */
static gboolean
wait_for_exit(const GntPaths *paths, const gchar *daemon, guint timeout_s, pid_t *pid,
	      GError **error)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_s * G_USEC_PER_SEC;

	for (;;) {
		if (!gnt_cli_daemon_get_pid(paths, daemon, pid, error))
			return FALSE;
		if (*pid == 0 || g_get_monotonic_time() >= deadline)
			return TRUE;
		g_usleep(STOP_POLL_MS * 1000);
	}
}

/* Whether process @pid is on its way out: a zombie, or exiting (the
 * kernel's PF_EXITING). A daemon killed with SIGKILL keeps its pid file's
 * lock until its exit has closed its files, which for a process with a
 * large address space (AddressSanitizer's) takes a while after the kill. */
static gboolean
process_is_exiting(pid_t pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/stat", (int)pid);
	g_autofree gchar *stat = NULL;
	const gchar *end;
	gchar state = 0;
	guint64 flags = 0;

	if (!g_file_get_contents(path, &stat, NULL, NULL))
		return TRUE; /* gone already */
	/* after "pid (comm) ": state ppid pgrp session tty tpgid flags */
	end = strrchr(stat, ')');
	if (end == NULL ||
	    sscanf(end + 1, " %c %*d %*d %*d %*d %*d %" G_GUINT64_FORMAT, &state, &flags) != 2)
		return FALSE;
	return state == 'Z' || state == 'X' || (flags & 0x4) != 0; /* PF_EXITING */
}

gboolean
gnt_cli_daemon_start(const GntPaths *paths, const gchar *daemon, gchar **extra_args,
		     gboolean *already_running, GError **error)
{
	g_autofree gchar *program = NULL;
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GSubprocess) proc = NULL;
	g_autofree gchar *err_text = NULL;
	pid_t pid = 0;

	if (already_running != NULL)
		*already_running = FALSE;
	if (!gnt_cli_daemon_get_pid(paths, daemon, &pid, error))
		return FALSE;
	/* one that was just killed still holds its lock for a moment: it is
	 * not running, and the new one starts once the lock is free */
	if (pid > 0 && process_is_exiting(pid) &&
	    !wait_for_exit(paths, daemon, EXITING_WAIT_S, &pid, error))
		return FALSE;
	if (pid > 0) {
		if (already_running != NULL)
			*already_running = TRUE;
		return TRUE;
	}
	program = gnt_cli_find_daemon(daemon, error);
	if (program == NULL)
		return FALSE;
	g_ptr_array_add(argv, program);
	g_ptr_array_add(argv, "--root");
	g_ptr_array_add(argv, (gpointer)gnt_paths_get_root(paths));
	for (guint i = 0; extra_args != NULL && extra_args[i] != NULL; i++)
		g_ptr_array_add(argv, extra_args[i]);
	g_ptr_array_add(argv, NULL);

	/* the daemon's first process returns once the detached one is ready */
	proc = g_subprocess_newv((const gchar *const *)argv->pdata, G_SUBPROCESS_FLAGS_STDERR_PIPE,
				 error);
	if (proc == NULL ||
	    !g_subprocess_communicate_utf8(proc, NULL, NULL, NULL, &err_text, error)) {
		gnt_error_convert(error);
		g_prefix_error(error, "starting '%s': ", program);
		return FALSE;
	}
	if (g_subprocess_get_if_exited(proc) && g_subprocess_get_exit_status(proc) == 0)
		return TRUE;
	g_strstrip(err_text);
	if (err_text[0] != '\0')
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, err_text);
	else
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "'%s' failed to start (status %d) without saying why", program,
			    g_subprocess_get_status(proc));
	return FALSE;
}

static gboolean
send_signal(pid_t pid, int sig, const gchar *daemon, GError **error)
{
	if (kill(pid, sig) == 0 || errno == ESRCH)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "cannot signal %s (pid %d): %s",
		    daemon, (int)pid, g_strerror(errno));
	return FALSE;
}

gboolean
gnt_cli_daemon_stop(const GntPaths *paths, const gchar *daemon, guint timeout_s, GError **error)
{
	pid_t pid = 0;

	if (!gnt_cli_daemon_get_pid(paths, daemon, &pid, error))
		return FALSE;
	if (pid == 0)
		return TRUE;
	if (!send_signal(pid, SIGTERM, daemon, error) ||
	    !wait_for_exit(paths, daemon, timeout_s, &pid, error))
		return FALSE;
	if (pid == 0)
		return TRUE;
	g_printerr("Warning: %s (pid %d) did not stop within %u seconds; killing it\n", daemon,
		   (int)pid, timeout_s);
	if (!send_signal(pid, SIGKILL, daemon, error) ||
	    !wait_for_exit(paths, daemon, KILL_WAIT_S, &pid, error))
		return FALSE;
	if (pid != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "%s (pid %d) is still running after SIGKILL", daemon, (int)pid);
		return FALSE;
	}
	return TRUE;
}

/* A one-line setting kept in <data>/@name, or NULL. (transfer full) */
static gchar *
dup_setting(const GntPaths *paths, const gchar *name)
{
	g_autofree gchar *file = g_build_filename(gnt_paths_get_data_dir(paths), name, NULL);
	g_autofree gchar *text = NULL;

	if (!g_file_get_contents(file, &text, NULL, NULL))
		return NULL;
	g_strstrip(text);
	return text[0] != '\0' ? g_steal_pointer(&text) : NULL;
}

static gboolean
set_setting(const GntPaths *paths, const gchar *name, const gchar *value, GError **error)
{
	g_autofree gchar *file = g_build_filename(gnt_paths_get_data_dir(paths), name, NULL);
	g_autofree gchar *text = g_strconcat(value, "\n", NULL);

	if (!g_file_set_contents(file, text, -1, error)) {
		gnt_error_convert(error);
		return FALSE;
	}
	return TRUE;
}

gchar *
gnt_cli_dup_noded_listen(const GntPaths *paths)
{
	return dup_setting(paths, "noded-listen");
}

gboolean
gnt_cli_set_noded_listen(const GntPaths *paths, const gchar *listen, GError **error)
{
	return set_setting(paths, "noded-listen", listen, error);
}

gchar *
gnt_cli_dup_rapi_port(const GntPaths *paths)
{
	return dup_setting(paths, "rapi-port");
}

gboolean
gnt_cli_set_rapi_port(const GntPaths *paths, guint port, GError **error)
{
	g_autofree gchar *text = g_strdup_printf("%u", port);

	return set_setting(paths, "rapi-port", text, error);
}

GPtrArray *
gnt_cli_node_daemons(const GntPaths *paths)
{
	GPtrArray *daemons = g_ptr_array_new();

	g_ptr_array_add(daemons, GNT_CLI_NODED);
	/* the instances' metadata service: noded forwards the master's pushes */
	g_ptr_array_add(daemons, GNT_CLI_METAD);
	if (g_file_test(gnt_paths_get_config_db(paths), G_FILE_TEST_EXISTS)) {
		g_ptr_array_add(daemons, GNT_CLI_MASTERD);
		g_ptr_array_add(daemons, GNT_CLI_RAPI);
	}
	return daemons;
}

gboolean
gnt_cli_node_daemons_start(const GntPaths *paths, gchar **masterd_args, GPtrArray **already_running,
			   GError **error)
{
	g_autoptr(GPtrArray) daemons = gnt_cli_node_daemons(paths);
	g_autofree gchar *listen = gnt_cli_dup_noded_listen(paths);
	g_autofree gchar *rapi_port = gnt_cli_dup_rapi_port(paths);
	gchar *noded_args[] = {"--listen", listen, NULL};
	gchar *rapi_args[] = {"--port", rapi_port, NULL};

	if (already_running != NULL)
		*already_running = g_ptr_array_new();
	for (guint i = 0; i < daemons->len; i++) {
		const gchar *daemon = g_ptr_array_index(daemons, i);
		gchar **args = masterd_args;
		gboolean running = FALSE;

		if (g_strcmp0(daemon, GNT_CLI_NODED) == 0)
			args = listen != NULL ? noded_args : NULL;
		else if (g_strcmp0(daemon, GNT_CLI_METAD) == 0)
			args = NULL;
		else if (g_strcmp0(daemon, GNT_CLI_RAPI) == 0)
			args = rapi_port != NULL ? rapi_args : NULL;
		if (!gnt_cli_daemon_start(paths, daemon, args, &running, error))
			return FALSE;
		if (running && already_running != NULL)
			g_ptr_array_add(*already_running, (gpointer)daemon);
	}
	return TRUE;
}

gboolean
gnt_cli_node_daemons_stop(const GntPaths *paths, guint timeout_s, GError **error)
{
	g_autoptr(GPtrArray) daemons = gnt_cli_node_daemons(paths);

	/* the master's daemons may be stopped even where config.db is gone
	 * already; RAPI first, it speaks to masterd */
	if (!gnt_cli_daemon_stop(paths, GNT_CLI_RAPI, timeout_s, error) ||
	    !gnt_cli_daemon_stop(paths, GNT_CLI_MASTERD, timeout_s, error))
		return FALSE;
	for (guint i = daemons->len; i > 0; i--) {
		const gchar *daemon = g_ptr_array_index(daemons, i - 1);
		if (g_strcmp0(daemon, GNT_CLI_MASTERD) != 0 &&
		    g_strcmp0(daemon, GNT_CLI_RAPI) != 0 &&
		    !gnt_cli_daemon_stop(paths, daemon, timeout_s, error))
			return FALSE;
	}
	return TRUE;
}
