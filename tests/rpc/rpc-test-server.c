/* The node RPC tests' fixtures: a server in its own thread and context (as
 * the master's blocking client calls run in job worker threads), roots with
 * a cluster's TLS files, and gantry-noded as a process. */
#include "rpc-test-server.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-join.h"
#include "gnt-json.h"
#include "gnt-tls.h"

static JsonNode *
block_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	TestServer *srv = user_data;

	g_mutex_lock(&srv->lock);
	while (!srv->released)
		g_cond_wait(&srv->cond, &srv->lock);
	g_mutex_unlock(&srv->lock);
	return gnt_json_node_new_string("released");
}

static JsonNode *
fail_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_set_error_literal(error, GNT_ERROR, GNT_ERROR_WRONG_STATE, "it failed");
	return NULL;
}

static gpointer
test_server_thread(gpointer data)
{
	TestServer *srv = data;
	/* the tests' own procedures, not noded's: their rows are here */
	static const GntRpcProcedureDef block_def = {.name = "block", .timeout_s = 60};
	static const GntRpcProcedureDef fail_def = {.name = "fail", .timeout_s = 60};
	const GntRpcProcedure procedures[] = {
		{"block", block_procedure, &block_def},
		{"fail", fail_procedure, &fail_def},
		{NULL},
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(GntRpcServer) server = NULL;
	g_autoptr(GntJoinAuthority) authority = NULL;

	g_main_context_push_thread_default(srv->context);
	server = gnt_rpc_server_new_from_paths(srv->paths, &error);
	g_assert_no_error(error);
	gnt_rpc_node_add_procedures(server, srv->paths);
	if (srv->rpc_node != NULL)
		gnt_rpc_node_add_instance_procedures(server, srv->rpc_node);
	gnt_rpc_server_add_procedures(server, procedures, srv);
	if (srv->max_body_size > 0)
		gnt_rpc_server_set_max_body_size(server, srv->max_body_size);
	if (srv->join_endpoint) {
		authority = gnt_join_authority_new(srv->paths, &error);
		g_assert_no_error(error);
		gnt_join_authority_add_endpoint(authority, server);
	}
	g_assert_true(gnt_rpc_server_listen(server, "127.0.0.1", 0, &error));
	g_assert_no_error(error);
	g_mutex_lock(&srv->lock);
	srv->server = server;
	srv->port = gnt_rpc_server_get_port(server);
	g_cond_broadcast(&srv->cond);
	g_mutex_unlock(&srv->lock);

	g_main_loop_run(srv->loop);
	gnt_rpc_server_stop(server);
	while (gnt_rpc_server_get_n_running(server) > 0) /* released procedures finish */
		g_main_context_iteration(srv->context, TRUE);
	g_mutex_lock(&srv->lock);
	srv->server = NULL;
	g_mutex_unlock(&srv->lock);
	g_clear_object(&server);
	g_main_context_pop_thread_default(srv->context);
	return NULL;
}

TestServer *
test_server_start(GntPaths *paths, gboolean join_endpoint, gsize max_body_size)
{
	return test_server_start_node(paths, join_endpoint, max_body_size, NULL);
}

TestServer *
test_server_start_node(GntPaths *paths, gboolean join_endpoint, gsize max_body_size,
		       GntRpcNode *rpc_node)
{
	TestServer *srv = g_new0(TestServer, 1);

	srv->paths = paths;
	srv->rpc_node = rpc_node;
	srv->join_endpoint = join_endpoint;
	srv->max_body_size = max_body_size;
	srv->context = g_main_context_new();
	srv->loop = g_main_loop_new(srv->context, FALSE);
	g_mutex_init(&srv->lock);
	g_cond_init(&srv->cond);
	srv->thread = g_thread_new("test-server", test_server_thread, srv);
	g_mutex_lock(&srv->lock);
	while (srv->port == 0)
		g_cond_wait(&srv->cond, &srv->lock);
	g_mutex_unlock(&srv->lock);
	return srv;
}

void
test_server_release(TestServer *srv)
{
	g_mutex_lock(&srv->lock);
	srv->released = TRUE;
	g_cond_broadcast(&srv->cond);
	g_mutex_unlock(&srv->lock);
}

static gboolean
quit_cb(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

/* Stops listening and waits for the thread; the port stays known. */
void
test_server_stop(TestServer *srv)
{
	if (srv->thread == NULL)
		return;
	test_server_release(srv);
	/* from inside the loop: a quit before g_main_loop_run() would be lost */
	g_main_context_invoke(srv->context, quit_cb, srv->loop);
	g_thread_join(g_steal_pointer(&srv->thread));
}

void
test_server_free(TestServer *srv)
{
	test_server_stop(srv);
	g_main_loop_unref(srv->loop);
	g_main_context_unref(srv->context);
	g_mutex_clear(&srv->lock);
	g_cond_clear(&srv->cond);
	g_free(srv);
}

/* A root with TLS files: a cluster's master node, or an empty one. */
GntPaths *
make_root(GPtrArray *dirs, const gchar *node_name)
{
	g_autoptr(GError) error = NULL;
	gchar *dir = g_dir_make_tmp("gnt-rpc-XXXXXX", &error);
	GntPaths *paths = gnt_paths_new(dir);
	const gchar *const addresses[] = {"127.0.0.1", NULL};

	g_assert_no_error(error);
	g_ptr_array_add(dirs, dir);
	if (node_name != NULL)
		g_assert_true(gnt_tls_init_cluster(paths, CLUSTER, node_name, addresses, &error));
	g_assert_no_error(error);
	return paths;
}

void
assert_error_has(const GError *error, const gchar *needle)
{
	g_assert_nonnull(error);
	if (strstr(error->message, needle) == NULL)
		g_error("'%s' is not in the error '%s'", needle, error->message);
}

/* Starts gantry-noded on @paths' root with @extra arguments; its port. */
guint
start_noded(GntPaths *paths, const gchar *extra, const gchar *extra_value, GSubprocess **noded)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GDataInputStream) out = NULL;
	g_autofree gchar *uri = NULL;
	g_autoptr(GUri) parsed = NULL;

	*noded = g_subprocess_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
				  g_getenv("GNT_TEST_NODED"), "--root", gnt_paths_get_root(paths),
				  "--foreground", "--listen", "127.0.0.1:0", "--print-uri", extra,
				  extra_value, NULL);
	g_assert_no_error(error);
	out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(*noded));
	uri = g_data_input_stream_read_line_utf8(out, NULL, NULL, &error);
	g_assert_nonnull(uri); /* NULL: the daemon died */
	parsed = g_uri_parse(uri, G_URI_FLAGS_NONE, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(g_uri_get_scheme(parsed), ==, "https");
	return (guint)g_uri_get_port(parsed);
}

typedef struct {
	gboolean done;	    /* the wait ended */
	gboolean timed_out; /* noded was still running at the deadline */
	GError *error;	    /* how it exited, if not cleanly */
} NodedExit;

static void
noded_exited_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	NodedExit *end = user_data;

	(void)g_subprocess_wait_check_finish(G_SUBPROCESS(source), res, &end->error);
	end->done = TRUE;
}

static gboolean
noded_deadline_cb(gpointer user_data)
{
	NodedExit *end = user_data;

	end->timed_out = TRUE;
	return G_SOURCE_REMOVE;
}

/* SIGTERM, then 30 s at most for a clean exit: a noded that hangs on its
 * way out is killed and fails the test instead of holding it up. */
void
stop_noded(GSubprocess *noded)
{
	g_autoptr(GMainContext) context = g_main_context_new();
	g_autoptr(GSource) deadline = g_timeout_source_new_seconds(30);
	NodedExit end = {FALSE, FALSE, NULL};

	g_main_context_push_thread_default(context);
	g_source_set_callback(deadline, noded_deadline_cb, &end, NULL);
	g_source_attach(deadline, context);
	g_subprocess_send_signal(noded, SIGTERM);
	g_subprocess_wait_check_async(noded, NULL, noded_exited_cb, &end);
	while (!end.done && !end.timed_out)
		g_main_context_iteration(context, TRUE);
	if (!end.done)
		g_subprocess_force_exit(noded);
	while (!end.done)
		g_main_context_iteration(context, TRUE);
	g_source_destroy(deadline);
	g_main_context_pop_thread_default(context);
	if (end.timed_out && end.error != NULL)
		g_error("gantry-noded did not exit within 30 s of SIGTERM");
	g_assert_no_error(end.error);
}

void
remove_dirs(GPtrArray *dirs)
{
	for (guint i = 0; i < dirs->len; i++) {
		g_autofree gchar *cmd =
			g_strdup_printf("rm -rf '%s'", (gchar *)g_ptr_array_index(dirs, i));
		g_assert_cmpint(system(cmd), ==, 0);
	}
	g_ptr_array_unref(dirs);
}

JsonObject *
test_node_record(guint port)
{
	JsonObject *node = json_object_new();

	json_object_set_string_member(node, "name", "node1");
	json_object_set_string_member(node, "primary_ip", "127.0.0.1");
	json_object_set_int_member(node, "rpc_port", port);
	return node;
}

void
test_node_start(TestNode *self, const GntRpcNodeOptions *options)
{
	g_autoptr(GError) error = NULL;

	self->dirs = g_ptr_array_new_with_free_func(g_free);
	self->paths = make_root(self->dirs, "node1");
	self->rpc_node = gnt_rpc_node_new(self->paths, options, &error);
	g_assert_no_error(error);
	self->server = test_server_start_node(self->paths, FALSE, 0, self->rpc_node);
	self->client = gnt_rpc_client_new_from_paths(self->paths, &error);
	g_assert_no_error(error);
	self->record = test_node_record(self->server->port);
	self->file_dir =
		g_build_filename(gnt_paths_get_root(self->paths), "srv", "file-storage", NULL);
}

void
test_node_stop(TestNode *self)
{
	g_clear_pointer(&self->server, test_server_free);
	g_clear_pointer(&self->rpc_node, gnt_rpc_node_free);
	g_clear_object(&self->client);
	g_clear_pointer(&self->record, json_object_unref);
	g_clear_pointer(&self->paths, gnt_paths_free);
	g_clear_pointer(&self->file_dir, g_free);
	if (self->dirs != NULL)
		remove_dirs(g_steal_pointer(&self->dirs));
}

GSubprocess *
start_metad(GntPaths *paths, const gchar *log, gboolean debug, gchar **control)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocessLauncher)
		launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE);
	g_autoptr(GDataInputStream) out = NULL;
	GSubprocess *metad = NULL;

	g_subprocess_launcher_set_stderr_file_path(launcher, log);
	metad = g_subprocess_launcher_spawn(launcher, &error, g_getenv("GNT_TEST_METAD"), "--root",
					    gnt_paths_get_root(paths), "--foreground",
					    "--print-socket", debug ? "--debug" : NULL, NULL);
	g_assert_no_error(error);
	out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(metad));
	*control = g_data_input_stream_read_line_utf8(out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(*control); /* NULL: metad died; see its log */
	return metad;
}
