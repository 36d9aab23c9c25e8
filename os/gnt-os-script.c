#include "gnt-os-script.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gnt-command.h"
#include "gnt-error.h"

/* How much of a log's end is read for its tail. */
#define TAIL_MAX_BYTES (64 * 1024)

gchar *
gnt_os_script_dup_log_dir(const GntPaths *paths)
{
	g_return_val_if_fail(paths != NULL, NULL);

	return g_build_filename(gnt_paths_get_log_dir(paths), "os", NULL);
}

/* Ganeti's kind in the log name. */
static const gchar *
log_kind(GntOsScript script)
{
	switch (script) {
	case GNT_OS_SCRIPT_CREATE:
		return "add";
	case GNT_OS_SCRIPT_IMPORT:
		return "import";
	case GNT_OS_SCRIPT_EXPORT:
		return "export";
	case GNT_OS_SCRIPT_RENAME:
		return "rename";
	case GNT_OS_SCRIPT_VERIFY:
	case GNT_OS_SCRIPT_LAST:
		break;
	}
	return "verify";
}

/* A name part of a file name: no '/'. */
static void
append_name_part(GString *out, const gchar *part)
{
	for (const gchar *p = part; *p != '\0'; p++)
		g_string_append_c(out, *p == '/' ? '_' : *p);
}

/* _InstanceLogName: <dir>/<kind>-<os>-<instance>[-<component>]-<stamp>.log */
static gchar *
log_file_name(const gchar *log_dir, GntOsScript script, const GntOsEnv *env)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_local();
	g_autofree gchar *stamp = g_date_time_format(now, "%Y-%m-%d_%H_%M_%S");
	g_autoptr(GString) base = g_string_new(log_kind(script));

	g_string_append_c(base, '-');
	append_name_part(base, gnt_os_env_get_os_name(env));
	g_string_append_c(base, '-');
	if (script == GNT_OS_SCRIPT_RENAME && gnt_os_env_get_old_name(env) != NULL) {
		append_name_part(base, gnt_os_env_get_old_name(env));
		g_string_append_c(base, '-');
	}
	append_name_part(base, gnt_os_env_get_instance_name(env));
	if (script == GNT_OS_SCRIPT_IMPORT || script == GNT_OS_SCRIPT_EXPORT)
		g_string_append_printf(base, "-disk%d", gnt_os_env_get_disk_index(env));
	g_string_append_printf(base, "-%s.log", stamp);
	return g_build_filename(log_dir, base->str, NULL);
}

/* The last @lines lines of what @fd holds, valid UTF-8. */
static gchar *
tail_fd(int fd, guint lines)
{
	g_autofree gchar *buf = NULL;
	struct stat st;
	off_t start;
	gssize got;

	if (fstat(fd, &st) != 0 || st.st_size <= 0)
		return g_strdup("");
	start = st.st_size > TAIL_MAX_BYTES ? st.st_size - TAIL_MAX_BYTES : 0;
	buf = g_malloc(TAIL_MAX_BYTES);
	do {
		got = pread(fd, buf, TAIL_MAX_BYTES, start);
	} while (got < 0 && errno == EINTR);
	if (got <= 0)
		return g_strdup("");
	return gnt_command_tail_text(buf, (gsize)got, lines);
}

/*
 * Runs @argv in @cwd with exactly @envp (not copied: it is exec'd as is,
 * so the secrets in it are not duplicated; taken, and wiped as soon as the
 * child has its own copy, not when it ends) and the given descriptors,
 * and describes a failure in @reason ("exited with exit code 1"; NULL on
 * success). FALSE only when it could not be started.
 */
static gboolean
run_process(const gchar *const *argv, gchar **envp_taken, const gchar *cwd, int stdin_fd,
	    int stdout_fd, int stderr_fd, guint timeout_s, GCancellable *cancellable,
	    gchar **reason, GError **error)
{
	g_autoptr(GntCommand) cmd = gnt_command_new_argv(argv);
	g_auto(GntOsEnvp) envp = envp_taken;
	gboolean started;

	gnt_command_set_environ(cmd, (const gchar *const *)envp);
	gnt_command_set_cwd(cmd, cwd);
	gnt_command_set_stdin_fd(cmd, stdin_fd);
	gnt_command_set_stdout_fd(cmd, stdout_fd);
	gnt_command_set_stderr_fd(cmd, stderr_fd);
	/* the script and whatever it started go as a whole */
	gnt_command_set_timeout(cmd, timeout_s);
	gnt_command_set_cancellable(cmd, cancellable);
	started = gnt_command_spawn(cmd, error);
	/* the child has its own copy (or never will): ours goes now, and so
	 * does what building it left on this thread's stack and registers */
	g_clear_pointer(&envp, gnt_os_envp_free);
	gnt_secret_wipe_traces();
	if (!started)
		return FALSE;
	gnt_command_wait(cmd);
	*reason = g_strdup(gnt_command_get_failure(cmd));
	return TRUE;
}

static int
open_fd(const gchar *path, int flags, GError **error)
{
	int fd;

	do {
		fd = g_open(path, flags | O_CLOEXEC, 0640);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		int errsv = errno;
		g_autofree gchar *what = g_strdup_printf("opening '%s'", path);

		gnt_error_set_errno(error, errsv, what);
	}
	return fd;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		(void)close(*fd);
	*fd = -1;
}

gboolean
gnt_os_script_run(const GntOsDefinition *os, GntOsScript script, const GntOsEnv *env,
		  const GntOsRunOptions *options, gchar **log_file, GError **error)
{
	const gchar *name = gnt_os_script_to_string(script);
	g_auto(GntOsEnvp) envp = NULL;
	g_autofree gchar *log_path = NULL;
	g_autofree gchar *reason = NULL;
	const gchar *argv[3] = {NULL};
	int log_fd = -1;
	int in_fd = -1;
	int out_fd = -1;
	gboolean ok = FALSE;

	g_return_val_if_fail(os != NULL && env != NULL && options != NULL, FALSE);
	g_return_val_if_fail(script < GNT_OS_SCRIPT_LAST, FALSE);
	g_return_val_if_fail(script == GNT_OS_SCRIPT_VERIFY || options->log_dir != NULL, FALSE);
	g_return_val_if_fail(
		script == GNT_OS_SCRIPT_VERIFY || gnt_os_env_get_instance_name(env) != NULL, FALSE);
	g_return_val_if_fail((script != GNT_OS_SCRIPT_IMPORT && script != GNT_OS_SCRIPT_EXPORT) ||
				     gnt_os_env_get_disk_index(env) >= 0,
			     FALSE);

	if (os->scripts[script] == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "OS '%s' has no %s script",
			    os->name, name);
		return FALSE;
	}
	argv[0] = os->scripts[script];
	if (script == GNT_OS_SCRIPT_VERIFY) {
		argv[1] = "parameters";
		/* Ganeti keeps verify's output in memory: an unlinked file here */
		log_fd = g_file_open_tmp("gnt-os-verify-XXXXXX", &log_path, error);
		if (log_fd < 0) {
			gnt_error_convert(error);
			return FALSE;
		}
		(void)g_unlink(log_path);
		g_clear_pointer(&log_path, g_free);
	} else {
		if (g_mkdir_with_parents(options->log_dir, 0750) != 0) {
			int errsv = errno;
			g_autofree gchar *what = g_strdup_printf("creating the OS log directory "
								 "'%s'",
								 options->log_dir);

			gnt_error_set_errno(error, errsv, what);
			return FALSE;
		}
		log_path = log_file_name(options->log_dir, script, env);
		/* read and write: the tail is read back from it */
		log_fd = open_fd(log_path, O_RDWR | O_CREAT | O_APPEND, error);
		if (log_fd < 0)
			return FALSE;
	}

	in_fd = open_fd(options->input_path != NULL ? options->input_path : "/dev/null", O_RDONLY,
			error);
	if (in_fd >= 0 && options->output_path != NULL)
		out_fd = open_fd(options->output_path, O_WRONLY | O_CREAT | O_TRUNC, error);
	if (in_fd >= 0 && (options->output_path == NULL || out_fd >= 0)) {
		envp = gnt_os_env_build(env, script, FALSE);
		g_debug("running OS %s script '%s' for '%s'", name, argv[0],
			gnt_os_env_get_os_name(env));
		ok = run_process(argv, g_steal_pointer(&envp), os->path, in_fd,
				 out_fd >= 0 ? out_fd : log_fd, log_fd, options->timeout_s,
				 options->cancellable, &reason, error);
		if (!ok)
			g_prefix_error(error, "running the OS %s script of '%s': ", name, os->name);
	}
	close_fd(&in_fd);
	close_fd(&out_fd);

	if (ok && reason != NULL) {
		g_autofree gchar *tail = tail_fd(log_fd, GNT_OS_LOG_TAIL_LINES);

		ok = FALSE;
		if (script == GNT_OS_SCRIPT_VERIFY)
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "OS validation script failed (%s), output: %s", reason, tail);
		else
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "OS %s script failed (%s), last lines in the log file %s:\n%s",
				    name, reason, log_path, tail);
	}
	close_fd(&log_fd);
	if (log_file != NULL)
		*log_file = g_steal_pointer(&log_path);
	return ok;
}

gboolean
gnt_os_validate(const GntOsDefinition *os, const GntOsEnv *env, gboolean force_variant,
		guint timeout_s, GError **error)
{
	g_auto(GStrv) names = NULL;
	GntOsRunOptions options = {.timeout_s = timeout_s};

	g_return_val_if_fail(os != NULL && env != NULL, FALSE);

	if (!gnt_os_definition_check_variant(os, gnt_os_env_get_os_name(env), force_variant, error))
		return FALSE;
	/* verify exists exactly when the file's newest version is 20 or more */
	if (os->scripts[GNT_OS_SCRIPT_VERIFY] == NULL)
		return TRUE;
	names = gnt_os_env_dup_param_names(env);
	if (!gnt_os_definition_check_parameters(os, (const gchar *const *)names, error))
		return FALSE;
	return gnt_os_script_run(os, GNT_OS_SCRIPT_VERIFY, env, &options, NULL, error);
}
