#pragma once
/*
 * One way to run a child program, in the spirit of libvirt's virCommand:
 * build the command (argv, environment, descriptors, working directory,
 * timeout, cancellation), run it, then read how it ended.
 *
 * Built in, for every command: the child runs in a process group of its
 * own and gets SIGKILL when the thread that started it dies
 * (gnt_child_setup()); its group is recorded while it runs and killed
 * when it ends, so nothing it started outlives it (gnt-child.h). A timeout
 * or a cancellation kills the whole group.
 *
 * The environment is empty unless asked for: gnt_command_setenv() and
 * gnt_command_pass_env() add to it (PATH then defaults to a safe value),
 * gnt_command_set_environ() gives one to exec as is. stdin is /dev/null
 * unless given; stdout and stderr that are not given a descriptor are
 * captured together, and the last GNT_COMMAND_OUTPUT_KEEP_BYTES of them
 * kept (gnt_command_set_output_keep() changes that).
 *
 *   g_autoptr(GntCommand) cmd = gnt_command_new("gzip");
 *   gnt_command_add_arg(cmd, "-c");
 *   gnt_command_set_stdout_fd(cmd, fd);
 *   if (!gnt_command_run(cmd, error) || !gnt_command_check_success(cmd, error))
 *           return FALSE;
 */
#include <gio/gio.h>

G_BEGIN_DECLS

/* How much captured output is kept by default: enough for a useful tail. */
#define GNT_COMMAND_OUTPUT_KEEP_BYTES (64 * 1024)
/* How many output lines gnt_command_check_success()'s error carries. */
#define GNT_COMMAND_TAIL_LINES 5

typedef struct _GntCommand GntCommand;

typedef enum {
	GNT_COMMAND_END_NONE,	   /* not run (yet) */
	GNT_COMMAND_END_EXITED,	   /* exited on its own, with any exit code */
	GNT_COMMAND_END_SIGNALED,  /* terminated by a signal nobody here sent */
	GNT_COMMAND_END_TIMED_OUT, /* killed after the timeout */
	GNT_COMMAND_END_CANCELLED, /* killed when the cancellable fired */
} GntCommandEnd;

/* Called in the waiting thread with each line of the captured output
 * (lines end at '\n' or '\r'; without the end). */
typedef void (*GntCommandLineFunc)(const gchar *line, gpointer user_data);

/* @program: a path, or a name looked up in the child's PATH. */
GntCommand *
gnt_command_new(const gchar *program);
/* @argv: the program and its arguments, copied. */
GntCommand *
gnt_command_new_argv(const gchar *const *argv);
/* Kills and reaps a child still running. */
void
gnt_command_free(GntCommand *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntCommand, gnt_command_free)

void
gnt_command_add_arg(GntCommand *self, const gchar *arg);
void
gnt_command_add_args(GntCommand *self, ...) G_GNUC_NULL_TERMINATED;

/* The child's whole environment, exec'd as is: neither copied nor
 * extended, so secrets in it exist nowhere else. Must stay valid until
 * the child was started. Excludes gnt_command_setenv()/pass_env(). */
void
gnt_command_set_environ(GntCommand *self, const gchar *const *envp);
/* Adds (or replaces) one variable of the child's environment. */
void
gnt_command_setenv(GntCommand *self, const gchar *name, const gchar *value);
/* Adds each "NAME=VALUE" of @envp (copied; nullable). */
void
gnt_command_add_environ(GntCommand *self, const gchar *const *envp);
/* Passes the daemon's own value of @name on, if it has one. */
void
gnt_command_pass_env(GntCommand *self, const gchar *name);

void
gnt_command_set_cwd(GntCommand *self, const gchar *cwd);

/* Descriptors for the child's stdin, stdout, stderr: not taken, the
 * caller closes them once the child was started. -1: the default. */
void
gnt_command_set_stdin_fd(GntCommand *self, int fd);
void
gnt_command_set_stdout_fd(GntCommand *self, int fd);
void
gnt_command_set_stderr_fd(GntCommand *self, int fd);

/* How many bytes of the captured output are kept (its end); G_MAXSIZE:
 * all of it. */
void
gnt_command_set_output_keep(GntCommand *self, gsize bytes);
/* Sees each captured line as it comes, while the command is waited for. */
void
gnt_command_set_line_func(GntCommand *self, GntCommandLineFunc func, gpointer user_data);

/* Kills the whole group @seconds after the start (0: no limit). */
void
gnt_command_set_timeout(GntCommand *self, guint seconds);
/* Kills the whole group when @cancellable fires while it is waited for. */
void
gnt_command_set_cancellable(GntCommand *self, GCancellable *cancellable);

/* Starts the child; FALSE (GNT_ERROR_ENVIRONMENT for a missing program)
 * when it could not be started. */
gboolean
gnt_command_spawn(GntCommand *self, GError **error);
/* Waits until the child started by gnt_command_spawn() ended and its
 * captured output was read, enforcing the timeout and cancellation. */
void
gnt_command_wait(GntCommand *self);
/* gnt_command_spawn() then gnt_command_wait(): FALSE only when the child
 * could not be started; how it ended is read with the getters below. */
gboolean
gnt_command_run(GntCommand *self, GError **error);

/* The child's pid while it runs (also its process group), 0 before. */
GPid
gnt_command_get_pid(const GntCommand *self);
GntCommandEnd
gnt_command_get_end(const GntCommand *self);
/* A shell's $?: the exit code, or 128 + the signal number. */
gint
gnt_command_get_exit_status(const GntCommand *self);
/* How it failed, one text for every kind of end: "exited with exit code
 * 1", "terminated by signal 9", "killed after timeout of 5 seconds",
 * "cancelled"; NULL when it exited with 0. */
const gchar *
gnt_command_get_failure(const GntCommand *self);
/* FALSE with GNT_ERROR_ENVIRONMENT "'<program>' failed (<failure>):
 * <tail>" unless it exited with 0. */
gboolean
gnt_command_check_success(const GntCommand *self, GError **error);

/* The captured output that was kept (not NUL-terminated; @len may be
 * NULL). */
const gchar *
gnt_command_get_output(const GntCommand *self, gsize *len);
/* The last @lines non-empty lines of the captured output, valid UTF-8,
 * joined by '\n'. (transfer full) */
gchar *
gnt_command_dup_output_tail(const GntCommand *self, guint lines);

/* The last @lines non-empty lines of @text (@len bytes), valid UTF-8,
 * joined by '\n': the tail of any output, a log file's too. (transfer
 * full) */
gchar *
gnt_command_tail_text(const gchar *text, gsize len, guint lines);

G_END_DECLS
