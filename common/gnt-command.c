#include "gnt-command.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>

#include "gnt-child.h"
#include "gnt-error.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

struct _GntCommand {
	GPtrArray *argv; /* owned strings, NULL-terminated */
	const gchar *const *borrowed_env;
	GStrv env; /* owned, from setenv/pass_env; NULL: none asked for */
	gchar *cwd;
	int stdin_fd;
	int stdout_fd;
	int stderr_fd;
	gsize output_keep;
	GntCommandLineFunc line_func;
	gpointer line_data;
	guint timeout_s;
	GCancellable *cancellable;

	/* the run */
	GPid pid;
	gint64 started_us;
	int output_fd; /* our end of the capture pipe, -1 when none or at its end */
	GByteArray *output;
	GString *line; /* the captured line not yet ended */
	gboolean exited;
	gint wait_status;
	GntCommandEnd end;
	gchar *failure;
};

GntCommand *
gnt_command_new(const gchar *program)
{
	GntCommand *self;

	g_return_val_if_fail(program != NULL && program[0] != '\0', NULL);

	self = g_new0(GntCommand, 1);
	self->argv = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(self->argv, g_strdup(program));
	g_ptr_array_add(self->argv, NULL);
	self->stdin_fd = self->stdout_fd = self->stderr_fd = -1;
	self->output_fd = -1;
	self->output_keep = GNT_COMMAND_OUTPUT_KEEP_BYTES;
	self->output = g_byte_array_new();
	self->line = g_string_new(NULL);
	return self;
}

GntCommand *
gnt_command_new_argv(const gchar *const *argv)
{
	GntCommand *self;

	g_return_val_if_fail(argv != NULL && argv[0] != NULL, NULL);

	self = gnt_command_new(argv[0]);
	for (guint i = 1; argv[i] != NULL; i++)
		gnt_command_add_arg(self, argv[i]);
	return self;
}

static void
kill_group(GntCommand *self)
{
	/* the group, and the child itself in case it has not made it yet */
	(void)kill(-self->pid, SIGKILL);
	(void)kill(self->pid, SIGKILL);
}

static void
close_output(GntCommand *self)
{
	if (self->output_fd >= 0)
		(void)close(self->output_fd);
	self->output_fd = -1;
}

void
gnt_command_free(GntCommand *self)
{
	if (self == NULL)
		return;
	if (self->pid > 0 && !self->exited) {
		kill_group(self);
		(void)waitpid(self->pid, NULL, 0);
		g_spawn_close_pid(self->pid);
		gnt_child_forget(self->pid);
	}
	close_output(self);
	g_ptr_array_unref(self->argv);
	g_strfreev(self->env);
	g_free(self->cwd);
	g_clear_object(&self->cancellable);
	g_byte_array_unref(self->output);
	g_string_free(self->line, TRUE);
	g_free(self->failure);
	g_free(self);
}

void
gnt_command_add_arg(GntCommand *self, const gchar *arg)
{
	g_return_if_fail(self != NULL && arg != NULL);

	/* before the terminating NULL */
	self->argv->pdata[self->argv->len - 1] = g_strdup(arg);
	g_ptr_array_add(self->argv, NULL);
}

void
gnt_command_add_args(GntCommand *self, ...)
{
	va_list ap;
	const gchar *arg;

	va_start(ap, self);
	while ((arg = va_arg(ap, const gchar *)) != NULL)
		gnt_command_add_arg(self, arg);
	va_end(ap);
}

void
gnt_command_set_environ(GntCommand *self, const gchar *const *envp)
{
	g_return_if_fail(self != NULL && self->env == NULL);

	self->borrowed_env = envp;
}

void
gnt_command_setenv(GntCommand *self, const gchar *name, const gchar *value)
{
	g_return_if_fail(self != NULL && self->borrowed_env == NULL);
	g_return_if_fail(name != NULL && value != NULL);

	if (self->env == NULL)
		self->env = g_new0(gchar *, 1);
	self->env = g_environ_setenv(self->env, name, value, TRUE);
}

void
gnt_command_add_environ(GntCommand *self, const gchar *const *envp)
{
	for (guint i = 0; envp != NULL && envp[i] != NULL; i++) {
		g_auto(GStrv) pair = g_strsplit(envp[i], "=", 2);

		if (pair[0] != NULL && pair[1] != NULL)
			gnt_command_setenv(self, pair[0], pair[1]);
	}
}

void
gnt_command_pass_env(GntCommand *self, const gchar *name)
{
	const gchar *value = g_getenv(name);

	if (value != NULL)
		gnt_command_setenv(self, name, value);
}

void
gnt_command_set_cwd(GntCommand *self, const gchar *cwd)
{
	g_return_if_fail(self != NULL);

	g_free(self->cwd);
	self->cwd = g_strdup(cwd);
}

void
gnt_command_set_stdin_fd(GntCommand *self, int fd)
{
	g_return_if_fail(self != NULL);
	self->stdin_fd = fd;
}

void
gnt_command_set_stdout_fd(GntCommand *self, int fd)
{
	g_return_if_fail(self != NULL);
	self->stdout_fd = fd;
}

void
gnt_command_set_stderr_fd(GntCommand *self, int fd)
{
	g_return_if_fail(self != NULL);
	self->stderr_fd = fd;
}

void
gnt_command_set_output_keep(GntCommand *self, gsize bytes)
{
	g_return_if_fail(self != NULL);
	self->output_keep = bytes;
}

void
gnt_command_set_line_func(GntCommand *self, GntCommandLineFunc func, gpointer user_data)
{
	g_return_if_fail(self != NULL);
	self->line_func = func;
	self->line_data = user_data;
}

void
gnt_command_set_timeout(GntCommand *self, guint seconds)
{
	g_return_if_fail(self != NULL);
	self->timeout_s = seconds;
}

void
gnt_command_set_cancellable(GntCommand *self, GCancellable *cancellable)
{
	g_return_if_fail(self != NULL);
	g_set_object(&self->cancellable, cancellable);
}

static const gchar *
program(const GntCommand *self)
{
	return self->argv->pdata[0];
}

gboolean
gnt_command_spawn(GntCommand *self, GError **error)
{
	g_auto(GStrv) env = NULL;
	const gchar *const *envp = self->borrowed_env;
	GSpawnFlags flags = G_SPAWN_DO_NOT_REAP_CHILD;
	int in_fd = self->stdin_fd;
	int pipe_fds[2] = {-1, -1};
	gboolean ok;

	g_return_val_if_fail(self != NULL && self->pid == 0, FALSE);

	if (envp == NULL) {
		env = self->env != NULL ? g_strdupv(self->env) : g_new0(gchar *, 1);
		if (g_environ_getenv(env, "PATH") == NULL)
			env = g_environ_setenv(env, "PATH", DEFAULT_PATH, TRUE);
		envp = (const gchar *const *)env;
	}
	if (strchr(program(self), '/') == NULL)
		flags |= G_SPAWN_SEARCH_PATH_FROM_ENVP;
	if (in_fd < 0) {
		in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (in_fd < 0) {
			gnt_error_set_errno(error, errno, "opening /dev/null");
			return FALSE;
		}
	}
	if ((self->stdout_fd < 0 || self->stderr_fd < 0) &&
	    !g_unix_open_pipe(pipe_fds, FD_CLOEXEC, error)) {
		gnt_error_convert(error);
		ok = FALSE;
	} else {
		/* envp is exec'd as is: the secrets in a borrowed one are not
		 * copied */
		ok = g_spawn_async_with_pipes_and_fds(
			self->cwd, (const gchar *const *)self->argv->pdata, envp, flags,
			gnt_child_setup, GNT_CHILD_SETUP_DATA, in_fd,
			self->stdout_fd >= 0 ? self->stdout_fd : pipe_fds[1],
			self->stderr_fd >= 0 ? self->stderr_fd : pipe_fds[1], NULL, NULL, 0,
			&self->pid, NULL, NULL, NULL, error);
		if (!ok)
			gnt_error_convert(error);
	}
	if (in_fd != self->stdin_fd)
		(void)close(in_fd);
	/* the child holds the writing end now: we see the end when it goes */
	if (pipe_fds[1] >= 0)
		(void)close(pipe_fds[1]);
	if (!ok) {
		if (pipe_fds[0] >= 0)
			(void)close(pipe_fds[0]);
		self->pid = 0;
		g_prefix_error(error, "running '%s': ", program(self));
		return FALSE;
	}
	self->output_fd = pipe_fds[0];
	self->started_us = g_get_monotonic_time();
	/* the child may not have run gnt_child_setup() yet: a kill of the
	 * group must reach it anyway */
	(void)setpgid(self->pid, self->pid);
	gnt_child_record(self->pid);
	return TRUE;
}

static void
emit_line(GntCommand *self)
{
	if (self->line_func != NULL && self->line->len > 0)
		self->line_func(self->line->str, self->line_data);
	g_string_truncate(self->line, 0);
}

static void
take_output(GntCommand *self, const guint8 *data, gsize len)
{
	g_byte_array_append(self->output, data, (guint)len);
	if (self->output->len > self->output_keep)
		g_byte_array_remove_range(self->output, 0,
					  self->output->len - (guint)self->output_keep);
	if (self->line_func == NULL)
		return;
	for (gsize i = 0; i < len; i++) {
		if (data[i] == '\n' || data[i] == '\r')
			emit_line(self);
		else
			g_string_append_c(self->line, (gchar)data[i]);
	}
}

static gboolean
output_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	GntCommand *self = user_data;
	guint8 buf[4096];
	gssize n;

	do {
		n = read(fd, buf, sizeof(buf));
	} while (n < 0 && errno == EINTR);
	if (n > 0) {
		take_output(self, buf, (gsize)n);
		return G_SOURCE_CONTINUE;
	}
	emit_line(self);
	close_output(self);
	return G_SOURCE_REMOVE;
}

static void
child_exited_cb(GPid pid, gint wait_status, gpointer user_data)
{
	GntCommand *self = user_data;

	self->exited = TRUE;
	self->wait_status = wait_status;
	/* what it started and left running goes now, and with it the
	 * last holders of the capture pipe */
	g_spawn_close_pid(pid);
	gnt_child_forget(pid);
}

static gboolean
timeout_cb(gpointer user_data)
{
	GntCommand *self = user_data;

	if (self->exited)
		return G_SOURCE_REMOVE; /* too late: it ended on its own */
	if (self->end == GNT_COMMAND_END_NONE)
		self->end = GNT_COMMAND_END_TIMED_OUT;
	kill_group(self);
	return G_SOURCE_REMOVE;
}

static gboolean
cancelled_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	GntCommand *self = user_data;

	if (self->exited)
		return G_SOURCE_REMOVE; /* too late: it ended on its own */
	if (self->end == GNT_COMMAND_END_NONE)
		self->end = GNT_COMMAND_END_CANCELLED;
	kill_group(self);
	return G_SOURCE_REMOVE;
}

static GSource *
attach(GSource *source, GMainContext *ctx, GSourceFunc func, gpointer data)
{
	g_source_set_callback(source, func, data, NULL);
	g_source_attach(source, ctx);
	return source;
}

void
gnt_command_wait(GntCommand *self)
{
	g_autoptr(GMainContext) ctx = NULL;
	g_autoptr(GSource) child = NULL;
	g_autoptr(GSource) output = NULL;
	g_autoptr(GSource) timer = NULL;
	g_autoptr(GSource) cancel = NULL;
	GPollFD cancel_fd = {.fd = -1};

	g_return_if_fail(self != NULL && self->pid > 0);
	if (self->exited && self->output_fd < 0)
		return;

	ctx = g_main_context_new();
	child = attach(g_child_watch_source_new(self->pid), ctx, G_SOURCE_FUNC(child_exited_cb),
		       self);
	if (self->output_fd >= 0)
		output =
			attach(g_unix_fd_source_new(self->output_fd, G_IO_IN | G_IO_HUP | G_IO_ERR),
			       ctx, G_SOURCE_FUNC(output_cb), self);
	if (self->timeout_s > 0) {
		gint64 left_ms = ((gint64)self->timeout_s * G_USEC_PER_SEC -
				  (g_get_monotonic_time() - self->started_us)) /
				 1000;

		timer = attach(g_timeout_source_new((guint)CLAMP(left_ms, 0, G_MAXUINT)), ctx,
			       timeout_cb, self);
	}
	/* the cancellable's descriptor, not a GCancellableSource: GLib 2.74
	 * leaks that source when another thread cancels while it goes */
	if (self->cancellable != NULL && g_cancellable_make_pollfd(self->cancellable, &cancel_fd))
		cancel = attach(g_unix_fd_source_new(cancel_fd.fd, G_IO_IN), ctx,
				G_SOURCE_FUNC(cancelled_cb), self);
	while (!self->exited || self->output_fd >= 0)
		g_main_context_iteration(ctx, TRUE);
	if (output != NULL)
		g_source_destroy(output);
	if (timer != NULL)
		g_source_destroy(timer);
	if (cancel != NULL) {
		g_source_destroy(cancel);
		g_cancellable_release_fd(self->cancellable);
	}
	g_source_destroy(child);

	if (self->end == GNT_COMMAND_END_TIMED_OUT)
		self->failure =
			g_strdup_printf("killed after timeout of %u seconds", self->timeout_s);
	else if (self->end == GNT_COMMAND_END_CANCELLED)
		self->failure = g_strdup("cancelled");
	else if (WIFSIGNALED(self->wait_status)) {
		self->end = GNT_COMMAND_END_SIGNALED;
		self->failure =
			g_strdup_printf("terminated by signal %d", WTERMSIG(self->wait_status));
	} else {
		self->end = GNT_COMMAND_END_EXITED;
		if (WEXITSTATUS(self->wait_status) != 0)
			self->failure = g_strdup_printf("exited with exit code %d",
							WEXITSTATUS(self->wait_status));
	}
}

gboolean
gnt_command_run(GntCommand *self, GError **error)
{
	if (!gnt_command_spawn(self, error))
		return FALSE;
	gnt_command_wait(self);
	return TRUE;
}

GPid
gnt_command_get_pid(const GntCommand *self)
{
	g_return_val_if_fail(self != NULL, 0);
	return self->pid;
}

GntCommandEnd
gnt_command_get_end(const GntCommand *self)
{
	g_return_val_if_fail(self != NULL, GNT_COMMAND_END_NONE);
	return self->end;
}

gint
gnt_command_get_exit_status(const GntCommand *self)
{
	g_return_val_if_fail(self != NULL, -1);
	if (WIFSIGNALED(self->wait_status))
		return 128 + WTERMSIG(self->wait_status);
	return WEXITSTATUS(self->wait_status);
}

const gchar *
gnt_command_get_failure(const GntCommand *self)
{
	g_return_val_if_fail(self != NULL && self->end != GNT_COMMAND_END_NONE, "not run");
	return self->failure;
}

gboolean
gnt_command_check_success(const GntCommand *self, GError **error)
{
	g_autofree gchar *tail = NULL;
	const gchar *failure = gnt_command_get_failure(self);

	if (failure == NULL)
		return TRUE;
	tail = gnt_command_dup_output_tail(self, GNT_COMMAND_TAIL_LINES);
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "'%s' failed (%s)%s%s", program(self),
		    failure, tail[0] != '\0' ? ": " : "", tail);
	return FALSE;
}

const gchar *
gnt_command_get_output(const GntCommand *self, gsize *len)
{
	g_return_val_if_fail(self != NULL, NULL);
	if (len != NULL)
		*len = self->output->len;
	return (const gchar *)self->output->data;
}

gchar *
gnt_command_dup_output_tail(const GntCommand *self, guint lines)
{
	g_return_val_if_fail(self != NULL, NULL);
	return gnt_command_tail_text((const gchar *)self->output->data, self->output->len, lines);
}

gchar *
gnt_command_tail_text(const gchar *text, gsize len, guint lines)
{
	g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GString) out = g_string_new(NULL);
	gsize end = len;

	/* walk back, line by line, over empty ones */
	while (end > 0 && found->len < lines) {
		gsize start = end;

		while (start > 0 && text[start - 1] != '\n' && text[start - 1] != '\r')
			start--;
		if (start < end)
			g_ptr_array_add(found,
					g_utf8_make_valid(text + start, (gssize)(end - start)));
		end = start > 0 ? start - 1 : 0;
	}
	for (guint i = found->len; i > 0; i--)
		g_string_append_printf(out, "%s%s", out->len > 0 ? "\n" : "",
				       (const gchar *)found->pdata[i - 1]);
	return g_string_free(g_steal_pointer(&out), FALSE);
}
