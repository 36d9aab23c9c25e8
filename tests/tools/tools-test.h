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

/* Runs the program named by $@env_var with @args under @root. */
static inline Run *
run_in(const gchar *root, const gchar *env_var, const gchar *const *args)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_auto(GStrv) envp = g_environ_setenv(g_get_environ(), "GANTRY_ROOT", root, TRUE);
	g_autoptr(GError) error = NULL;
	Run *run = g_new0(Run, 1);
	gint wait_status = 0;

	g_ptr_array_add(argv, (gpointer)g_getenv(env_var));
	g_assert_nonnull(argv->pdata[0]);
	for (guint i = 0; args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	g_ptr_array_add(argv, NULL);
	g_assert_true(g_spawn_sync(NULL, (gchar **)argv->pdata, envp, G_SPAWN_DEFAULT,
				   run_detach_terminal, NULL, &run->out, &run->err, &wait_status,
				   &error));
	g_assert_no_error(error);
	run->status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128;
	if (g_test_verbose())
		g_printerr("# %s %s -> %d\n%s%s", env_var, args[0], run->status, run->out, run->err);
	return run;
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

static inline void
assert_has(const gchar *text, const gchar *needle)
{
	if (strstr(text, needle) == NULL) {
		g_printerr("expected '%s' in:\n%s\n", needle, text);
		g_assert_not_reached();
	}
}

static inline void
assert_lacks(const gchar *text, const gchar *needle)
{
	if (strstr(text, needle) != NULL) {
		g_printerr("did not expect '%s' in:\n%s\n", needle, text);
		g_assert_not_reached();
	}
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
		assert_has(both, needle);
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
