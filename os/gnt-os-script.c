#include "gnt-os-script.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnt-child.h"
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

/* The last @lines lines of what @fd holds, valid UTF-8, without the final
 * newline. */
static gchar *
tail_fd(int fd, guint lines)
{
	g_autofree gchar *buf = NULL;
	g_autofree gchar *valid = NULL;
	struct stat st;
	off_t start;
	gssize got;
	gsize len;
	const gchar *p;
	guint seen = 0;

	if (fstat(fd, &st) != 0 || st.st_size <= 0)
		return g_strdup("");
	start = st.st_size > TAIL_MAX_BYTES ? st.st_size - TAIL_MAX_BYTES : 0;
	buf = g_malloc(TAIL_MAX_BYTES + 1);
	do {
		got = pread(fd, buf, TAIL_MAX_BYTES, start);
	} while (got < 0 && errno == EINTR);
	if (got <= 0)
		return g_strdup("");
	len = (gsize)got;
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	/* walk back over @lines newlines */
	p = buf + len;
	while (p > buf) {
		if (p[-1] == '\n' && ++seen == lines)
			break;
		p--;
	}
	valid = g_utf8_make_valid(p, -1);
	return g_steal_pointer(&valid);
}

typedef struct {
	GMainLoop *loop;
	GPid pid;
	gboolean exited;
	gint wait_status;
	gboolean timed_out;
	gboolean cancelled;
} RunState;

static void
kill_group(RunState *state)
{
	(void)kill(-state->pid, SIGKILL);
	(void)kill(state->pid, SIGKILL);
}

static void
child_exited_cb(GPid pid, gint wait_status, gpointer user_data)
{
	RunState *state = user_data;

	state->exited = TRUE;
	state->wait_status = wait_status;
	g_main_loop_quit(state->loop);
}

static gboolean
timeout_cb(gpointer user_data)
{
	RunState *state = user_data;

	state->timed_out = TRUE;
	kill_group(state);
	return G_SOURCE_REMOVE;
}

static gboolean
cancelled_cb(GCancellable *cancellable, gpointer user_data)
{
	RunState *state = user_data;

	state->cancelled = TRUE;
	kill_group(state);
	return G_SOURCE_REMOVE;
}

/*
 * Spawns @argv in @cwd with exactly @envp (not copied: g_spawn execs it as
 * is, so the secrets in it are not duplicated; taken, and wiped as soon as
 * the child has its own copy, not when it ends) and the given descriptors,
 * waits for it, and describes a failure in @reason ("exited with exit code
 * 1"; NULL on success). FALSE only when it could not be started.
 */
static gboolean
run_process(const gchar *const *argv, gchar **envp_taken, const gchar *cwd, int stdin_fd,
	    int stdout_fd, int stderr_fd, guint timeout_s, GCancellable *cancellable,
	    gchar **reason, GError **error)
{
	g_autoptr(GMainContext) ctx = g_main_context_new();
	g_autoptr(GMainLoop) loop = g_main_loop_new(ctx, FALSE);
	g_autoptr(GSource) child = NULL;
	g_autoptr(GSource) timer = NULL;
	g_autoptr(GSource) cancel = NULL;
	RunState state = {.loop = loop};
	g_auto(GntOsEnvp) envp = envp_taken;

	if (!g_spawn_async_with_pipes_and_fds(cwd, argv, (const gchar *const *)envp,
					      G_SPAWN_DO_NOT_REAP_CHILD,
					      /* a process group of its own, so that a timeout
					       * kills whatever the script started too */
					      gnt_child_setup, GNT_CHILD_SETUP_DATA, stdin_fd,
					      stdout_fd, stderr_fd,
					      NULL, NULL, 0, &state.pid, NULL, NULL, NULL, error)) {
		gnt_error_convert(error);
		return FALSE;
	}
	g_clear_pointer(&envp, gnt_os_envp_free);
	/* the thread waits for the script now: what building the
	 * environment left on its stack and in its registers goes */
	gnt_secret_wipe_traces();
	(void)setpgid(state.pid, state.pid); /* the child may not have run yet */
	gnt_child_record(state.pid);

	child = g_child_watch_source_new(state.pid);
	g_source_set_callback(child, G_SOURCE_FUNC(child_exited_cb), &state, NULL);
	g_source_attach(child, ctx);
	if (timeout_s > 0) {
		timer = g_timeout_source_new_seconds(timeout_s);
		g_source_set_callback(timer, timeout_cb, &state, NULL);
		g_source_attach(timer, ctx);
	}
	if (cancellable != NULL) {
		cancel = g_cancellable_source_new(cancellable);
		g_source_set_callback(cancel, G_SOURCE_FUNC(cancelled_cb), &state, NULL);
		g_source_attach(cancel, ctx);
	}
	while (!state.exited)
		g_main_loop_run(loop);
	if (timer != NULL)
		g_source_destroy(timer);
	if (cancel != NULL)
		g_source_destroy(cancel);
	g_source_destroy(child);
	g_spawn_close_pid(state.pid);
	gnt_child_forget(state.pid);

	*reason = NULL;
	if (state.timed_out)
		*reason = g_strdup_printf("killed after timeout of %u seconds", timeout_s);
	else if (state.cancelled)
		*reason = g_strdup("cancelled");
	else if (WIFSIGNALED(state.wait_status))
		*reason = g_strdup_printf("terminated by signal %d", WTERMSIG(state.wait_status));
	else if (WIFEXITED(state.wait_status) && WEXITSTATUS(state.wait_status) != 0)
		*reason = g_strdup_printf("exited with exit code %d",
					  WEXITSTATUS(state.wait_status));
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
	g_return_val_if_fail(script == GNT_OS_SCRIPT_VERIFY ||
				     gnt_os_env_get_instance_name(env) != NULL,
			     FALSE);
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

	if (!gnt_os_definition_check_variant(os, gnt_os_env_get_os_name(env), force_variant,
					     error))
		return FALSE;
	/* verify exists exactly when the file's newest version is 20 or more */
	if (os->scripts[GNT_OS_SCRIPT_VERIFY] == NULL)
		return TRUE;
	names = gnt_os_env_dup_param_names(env);
	if (!gnt_os_definition_check_parameters(os, (const gchar *const *)names, error))
		return FALSE;
	return gnt_os_script_run(os, GNT_OS_SCRIPT_VERIFY, env, &options, NULL, error);
}
