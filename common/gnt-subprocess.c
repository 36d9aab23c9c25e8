#include "gnt-subprocess.h"

#include <unistd.h>

#include "gnt-child.h"
#include "gnt-error.h"

#define GNT_SUBPROCESS_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

typedef struct {
	GMainLoop *loop;
	GSubprocess *proc;
	gboolean timed_out;
	gboolean done;
	GBytes *output;
	GError *error;
} RunState;

static gboolean
run_timeout_cb(gpointer user_data)
{
	RunState *state = user_data;

	state->timed_out = TRUE;
	g_subprocess_force_exit(state->proc);
	return G_SOURCE_REMOVE;
}

static void
run_communicate_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	RunState *state = user_data;

	/* communicate reads all output, then waits for the exit */
	(void)g_subprocess_communicate_finish(G_SUBPROCESS(source), res, &state->output, NULL,
					      &state->error);
	state->done = TRUE;
	g_main_loop_quit(state->loop);
}

static GSubprocess *
spawn_clean(const gchar *const *argv, const gchar *const *envp, GError **error)
{
	g_autoptr(GSubprocessLauncher) launcher =
		g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE);
	g_auto(GStrv) env = g_strdupv((gchar **)envp);

	if (env == NULL)
		env = g_new0(gchar *, 1);
	if (g_environ_getenv(env, "PATH") == NULL)
		env = g_environ_setenv(env, "PATH", GNT_SUBPROCESS_DEFAULT_PATH, TRUE);
	g_subprocess_launcher_set_environ(launcher, env);
	g_subprocess_launcher_set_stdin_file_path(launcher, "/dev/null");
	g_subprocess_launcher_set_child_setup(launcher, gnt_child_setup, GNT_CHILD_SETUP_DATA, NULL);
	return g_subprocess_launcher_spawnv(launcher, argv, error);
}

gboolean
gnt_subprocess_run(const gchar *const *argv, const gchar *const *envp, guint timeout_s,
		   gchar **output, gint *exit_status, GError **error)
{
	g_autoptr(GMainContext) ctx = g_main_context_new();
	g_autoptr(GMainLoop) loop = g_main_loop_new(ctx, FALSE);
	g_autoptr(GSubprocess) proc = NULL;
	g_autoptr(GSource) timer = NULL;
	RunState state = {.loop = loop};

	g_return_val_if_fail(argv != NULL && argv[0] != NULL, FALSE);

	g_main_context_push_thread_default(ctx);
	proc = spawn_clean(argv, envp, error);
	if (proc != NULL) {
		g_auto(GntChildGroup) group = gnt_child_group_of(proc);

		state.proc = proc;
		if (timeout_s > 0) {
			timer = g_timeout_source_new_seconds(timeout_s);
			g_source_set_callback(timer, run_timeout_cb, &state, NULL);
			g_source_attach(timer, ctx);
		}
		g_subprocess_communicate_async(proc, NULL, NULL, run_communicate_cb, &state);
		while (!state.done)
			g_main_loop_run(loop);
		if (timer != NULL)
			g_source_destroy(timer);
	}
	g_main_context_pop_thread_default(ctx);

	if (proc == NULL || state.error != NULL) {
		if (state.error != NULL)
			g_propagate_error(error, state.error);
		gnt_error_convert(error);
		g_prefix_error(error, "running '%s': ", argv[0]);
		g_clear_pointer(&state.output, g_bytes_unref);
		return FALSE;
	}
	if (state.timed_out) {
		g_clear_pointer(&state.output, g_bytes_unref);
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "'%s' did not finish within %u seconds and was killed", argv[0], timeout_s);
		return FALSE;
	}
	if (exit_status != NULL) {
		if (g_subprocess_get_if_exited(proc))
			*exit_status = g_subprocess_get_exit_status(proc);
		else
			*exit_status = 128 + g_subprocess_get_term_sig(proc);
	}
	if (output != NULL) {
		gsize len = 0;
		const gchar *data = state.output ? g_bytes_get_data(state.output, &len) : NULL;
		*output = g_strndup(data ? data : "", len);
	}
	g_clear_pointer(&state.output, g_bytes_unref);
	return TRUE;
}
