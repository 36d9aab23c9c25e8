#pragma once

/*
 * What the command tests share: running a gnt-* program (its path in an
 * environment variable set by meson) under a root, with no controlling
 * terminal (so confirmations answer no), and checking what it printed.
 */

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>

#include "../gnt-test-assert.h"

typedef struct {
	gint status; /* exit status, or 128 when killed */
	gchar *out;
	gchar *err;
} Run;

static inline void
run_free(Run *self)
{
	g_free(self->out);
	g_free(self->err);
	g_free(self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Run, run_free)

/* In the child: no controlling terminal. */
static inline void
run_detach_terminal(gpointer data)
{
	setsid();
}

/* Runs the program named by $@env_var with @args under @root, @input
 * (nullable) on its standard input. */
static inline Run *
run_in_with_input(const gchar *root, const gchar *env_var, const gchar *const *args,
		  const gchar *input)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE |
		(input != NULL ? G_SUBPROCESS_FLAGS_STDIN_PIPE : G_SUBPROCESS_FLAGS_NONE));
	g_autoptr(GSubprocess) proc = NULL;
	g_autoptr(GError) error = NULL;
	Run *run = g_new0(Run, 1);

	g_ptr_array_add(argv, (gpointer)g_getenv(env_var));
	g_assert_nonnull(argv->pdata[0]);
	for (guint i = 0; args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	g_ptr_array_add(argv, NULL);
	g_subprocess_launcher_setenv(launcher, "GANTRY_ROOT", root, TRUE);
	g_subprocess_launcher_set_child_setup(launcher, run_detach_terminal, NULL, NULL);
	proc = g_subprocess_launcher_spawnv(launcher, (const gchar *const *)argv->pdata, &error);
	g_assert_no_error(error);
	g_assert_true(
		g_subprocess_communicate_utf8(proc, input, NULL, &run->out, &run->err, &error));
	g_assert_no_error(error);
	run->status = g_subprocess_get_if_exited(proc) ? g_subprocess_get_exit_status(proc) : 128;
	if (g_test_verbose())
		g_printerr("# %s %s -> %d\n%s%s", env_var, args[0], run->status, run->out,
			   run->err);
	return run;
}

/* Runs the program named by $@env_var with @args under @root. */
static inline Run *
run_in(const gchar *root, const gchar *env_var, const gchar *const *args)
{
	return run_in_with_input(root, env_var, args, NULL);
}

/* RUN(fx, "GNT_TEST_GNT_NODE", "list", ...) under fx->root */
#define RUN(fx, tool, ...) run_in((fx)->root, tool, (const gchar *const[]){__VA_ARGS__, NULL})

static inline void
expect(Run *run, gint status, const gchar *out)
{
	if (run->status != status)
		g_printerr("status %d\nout: %s\nerr: %s\n", run->status, run->out, run->err);
	g_assert_cmpint(run->status, ==, status);
	if (out != NULL)
		g_assert_cmpstr(run->out, ==, out);
}

/* Expects exit status @status; unless NULL, @needle in stdout+stderr. */
static inline void
expect_has(Run *run, gint status, const gchar *needle)
{
	g_autofree gchar *both = g_strconcat(run->out, run->err, NULL);

	if (run->status != status)
		g_printerr("status %d\nout: %s\nerr: %s\n", run->status, run->out, run->err);
	g_assert_cmpint(run->status, ==, status);
	if (needle != NULL)
		gnt_test_assert_contains(both, needle);
}

/* A free TCP port on @address ("127.0.0.2"), for a second node's noded. */
static inline guint
tools_test_free_port(const gchar *address)
{
	g_autoptr(GSocket) socket = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
						 G_SOCKET_PROTOCOL_TCP, NULL);
	g_autoptr(GInetAddress) inet = g_inet_address_new_from_string(address);
	g_autoptr(GSocketAddress) any = g_inet_socket_address_new(inet, 0);
	g_autoptr(GSocketAddress) bound = NULL;

	g_assert_nonnull(socket);
	g_assert_true(g_socket_bind(socket, any, FALSE, NULL));
	bound = g_socket_get_local_address(socket, NULL);
	return g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
}

/* The join token in gnt-node add's output. (transfer full) */
static inline gchar *
tools_test_find_join_token(const gchar *out)
{
	const gchar *start = strstr(out, "GNTJ1.");
	gsize len = 0;

	g_assert_nonnull(start);
	while (g_ascii_isalnum(start[len]) || strchr("._-=", start[len]) != NULL)
		len++;
	return g_strndup(start, len);
}
