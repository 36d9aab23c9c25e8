#include "gnt-cmdlib.h"
#include "gnt-test-util.h"
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-env.h"
#include "gnt-luxi-client.h"
#include "gnt-luxi-codec.h"
#include "gnt-luxi-server.h"
#include "gnt-paths.h"

/*
 * The real server with a real queue on a temporary root. The server, the
 * queue and their main loop run in a thread of their own (as in masterd,
 * everything there happens in one main context); the test talks to it
 * with the blocking client or with raw sockets, like any other client.
 */

#define TEST_MAX_MESSAGE (64 * 1024)
#define IO_TIMEOUT_S	 20

typedef struct {
	GntTestRoot root;
	GntLuEnv env;
	gchar *socket_path;
	GThread *thread;
	GMainContext *context;
	GMainLoop *loop;
	GntQueue *queue;       /* the server thread's */
	GntLuxiServer *server; /* the server thread's */
	GMutex lock;
	GCond cond;
	gboolean ready;
} ServerFx;

static gpointer
server_thread(gpointer data)
{
	ServerFx *fx = data;
	g_autoptr(GError) error = NULL;

	g_main_context_push_thread_default(fx->context);
	fx->queue = gnt_queue_new(gnt_paths_get_queue_db(fx->root.paths), &fx->env, &error);
	g_assert_no_error(error);
	gnt_queue_set_units(fx->queue, gnt_cmdlib_units);
	gnt_queue_set_max_running(fx->queue, 1);
	gnt_queue_start(fx->queue);
	fx->server = gnt_luxi_server_new(fx->queue, fx->root.config);
	gnt_luxi_server_set_max_message(fx->server, TEST_MAX_MESSAGE);
	g_assert_true(gnt_luxi_server_listen(fx->server, fx->socket_path, &error));
	g_assert_no_error(error);

	g_mutex_lock(&fx->lock);
	fx->ready = TRUE;
	g_cond_signal(&fx->cond);
	g_mutex_unlock(&fx->lock);

	g_main_loop_run(fx->loop);

	gnt_luxi_server_stop(fx->server);
	g_clear_object(&fx->server);
	gnt_queue_shutdown(fx->queue, 5000);
	g_clear_object(&fx->queue);
	/* let the last write callbacks run */
	while (g_main_context_iteration(fx->context, FALSE))
		;
	g_main_context_pop_thread_default(fx->context);
	return NULL;
}

static void
fx_set_up(ServerFx *fx, gconstpointer data)
{
	gnt_test_root_init(&fx->root, "node1.example.com");
	fx->env.config = fx->root.config;
	fx->env.paths = fx->root.paths;
	fx->socket_path = g_strdup(gnt_paths_get_luxi_socket(fx->root.paths));
	fx->context = g_main_context_new();
	fx->loop = g_main_loop_new(fx->context, FALSE);
	g_mutex_init(&fx->lock);
	g_cond_init(&fx->cond);
	fx->thread = g_thread_new("luxi-server", server_thread, fx);
	g_mutex_lock(&fx->lock);
	while (!fx->ready)
		g_cond_wait(&fx->cond, &fx->lock);
	g_mutex_unlock(&fx->lock);
}

static gboolean
quit_loop(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

static void
fx_tear_down(ServerFx *fx, gconstpointer data)
{
	g_main_context_invoke(fx->context, quit_loop, fx->loop);
	g_thread_join(fx->thread);
	g_main_loop_unref(fx->loop);
	g_main_context_unref(fx->context);
	g_mutex_clear(&fx->lock);
	g_cond_clear(&fx->cond);
	gnt_test_root_clear(&fx->root);
	g_free(fx->socket_path);
}

/* Runs @func(@data) in the server thread and waits for it to return. */
typedef struct {
	ServerFx *fx;
	GSourceFunc func;
	gpointer data;
	gboolean done;
} Invoke;

static gboolean
invoke_cb(gpointer user_data)
{
	Invoke *invoke = user_data;

	invoke->func(invoke->data);
	g_mutex_lock(&invoke->fx->lock);
	invoke->done = TRUE;
	g_cond_broadcast(&invoke->fx->cond);
	g_mutex_unlock(&invoke->fx->lock);
	return G_SOURCE_REMOVE;
}

static void
fx_invoke(ServerFx *fx, GSourceFunc func, gpointer data)
{
	Invoke invoke = {fx, func, data, FALSE};

	g_main_context_invoke(fx->context, invoke_cb, &invoke);
	g_mutex_lock(&fx->lock);
	while (!invoke.done)
		g_cond_wait(&fx->cond, &fx->lock);
	g_mutex_unlock(&fx->lock);
}

/* The server's counters, read in its thread. */
typedef struct {
	ServerFx *fx;
	guint n_connections;
	guint n_watching;
} Counts;

static gboolean
read_counts(gpointer data)
{
	Counts *counts = data;

	counts->n_connections = gnt_luxi_server_get_n_connections(counts->fx->server);
	counts->n_watching = gnt_luxi_server_get_n_watching(counts->fx->server);
	return G_SOURCE_REMOVE;
}

static Counts
fx_counts(ServerFx *fx)
{
	Counts counts = {fx};

	fx_invoke(fx, read_counts, &counts);
	return counts;
}

/* Waits (up to 20 s) until the server has @n_connections connections and
 * @n_watching calls waiting on jobs. */
static void
fx_wait_counts(ServerFx *fx, guint n_connections, guint n_watching)
{
	gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;

	for (;;) {
		Counts counts = fx_counts(fx);

		if (counts.n_connections == n_connections && counts.n_watching == n_watching)
			return;
		if (g_get_monotonic_time() > deadline) {
			g_assert_cmpuint(counts.n_connections, ==, n_connections);
			g_assert_cmpuint(counts.n_watching, ==, n_watching);
		}
		g_usleep(5000);
	}
}

/* ---- clients ---- */

static GntLuxiClient *
fx_client(ServerFx *fx)
{
	g_autoptr(GError) error = NULL;
	GntLuxiClient *client = gnt_luxi_client_new(fx->socket_path, &error);

	g_assert_no_error(error);
	gnt_luxi_client_set_timeout(client, IO_TIMEOUT_S);
	return client;
}

static JsonNode *
parse(const gchar *json)
{
	g_autoptr(GError) error = NULL;
	JsonNode *node = gnt_json_parse(json, -1, &error);

	g_assert_no_error(error);
	return node;
}

/* Calls @method with the JSON text @args and expects success. */
static JsonNode *
call_ok(GntLuxiClient *client, const gchar *method, const gchar *args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) args_node = parse(args);
	JsonNode *result = gnt_luxi_client_call(client, method, args_node, &error);

	g_assert_no_error(error);
	g_assert_nonnull(result);
	return result;
}

/* Calls and expects the result's JSON text to be @expected. */
static void
assert_call(GntLuxiClient *client, const gchar *method, const gchar *args, const gchar *expected)
{
	g_autoptr(JsonNode) result = call_ok(client, method, args);
	g_autofree gchar *text = gnt_json_to_string(result);

	g_assert_cmpstr(text, ==, expected);
}

/* Calls and expects a failure of @exc_class (NULL: a plain string) with
 * exactly @message. */
static void
assert_call_fails(GntLuxiClient *client, const gchar *method, const gchar *args,
		  const gchar *exc_class, GntError code, const gchar *message)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) args_node = parse(args);
	g_autoptr(JsonNode) result = gnt_luxi_client_call(client, method, args_node, &error);

	g_assert_null(result);
	g_assert_error(error, GNT_ERROR, (gint)code);
	g_assert_cmpstr(error->message, ==, message);
	g_assert_cmpstr(gnt_luxi_client_get_error_class(client), ==, exc_class);
}

/* The last failure's exception arguments are exactly @expected (JSON text),
 * or there are none when @expected is NULL. */
static void
assert_error_args(GntLuxiClient *client, const gchar *expected)
{
	JsonNode *args = gnt_luxi_client_get_error_args(client);
	g_autofree gchar *text = args != NULL ? gnt_json_to_string(args) : NULL;

	g_assert_cmpstr(text, ==, expected);
}

/* The message gnt_opcode_new_from_json() gives for @op_json: the server
 * must pass it on word for word. */
static gchar *
opcode_error(const gchar *op_json)
{
	g_autoptr(JsonNode) node = parse(op_json);
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOpcode) op = gnt_opcode_new_from_json(json_node_get_object(node), &error);

	g_assert_null(op);
	g_assert_nonnull(error);
	return g_strdup(error->message);
}

static guint64
submit(GntLuxiClient *client, const gchar *ops)
{
	g_autoptr(JsonNode) node = parse(ops);
	g_autoptr(GError) error = NULL;
	guint64 id = 0;

	g_assert_true(gnt_luxi_client_submit_job(client, json_node_get_array(node), &id, &error));
	g_assert_no_error(error);
	return id;
}

static gboolean
status_is_final(const gchar *status)
{
	return g_strv_contains((const gchar *const[]){"success", "error", "canceled", NULL},
			       status);
}

/* Polls with WaitForJobChange as Ganeti's CLI does, collecting the log
 * messages; returns the final status. */
static gchar *
wait_job(GntLuxiClient *client, guint64 id, GPtrArray *messages)
{
	g_autoptr(JsonNode) prev = NULL;
	g_autoptr(JsonArray) fields = json_array_new();
	gint64 serial = -1;

	json_array_add_string_element(fields, "status");
	for (guint round = 0; round < 200; round++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) answer = gnt_luxi_client_wait_for_job_change(
			client, id, fields, prev, serial, 10, &error);
		JsonArray *pair;
		JsonArray *log;
		const gchar *status;

		g_assert_no_error(error);
		if (JSON_NODE_HOLDS_VALUE(answer)) {
			g_assert_cmpstr(json_node_get_string(answer), ==, "nochange");
			continue;
		}
		pair = json_node_get_array(answer);
		log = json_array_get_array_element(pair, 1);
		for (guint i = 0; i < json_array_get_length(log); i++) {
			JsonArray *entry = json_array_get_array_element(log, i);

			/* [serial, [sec, usec], type, message] */
			g_assert_cmpint(json_array_get_int_element(entry, 0), >, serial);
			serial = json_array_get_int_element(entry, 0);
			g_assert_cmpstr(json_array_get_string_element(entry, 2), ==, "message");
			if (messages != NULL)
				g_ptr_array_add(messages,
						g_strdup(json_array_get_string_element(entry, 3)));
		}
		g_clear_pointer(&prev, json_node_unref);
		prev = json_node_copy(json_array_get_element(pair, 0));
		status = json_array_get_string_element(json_node_get_array(prev), 0);
		if (status_is_final(status))
			return g_strdup(status);
	}
	g_assert_not_reached();
	return NULL;
}

/* ---- raw sockets ---- */

static GSocket *
raw_connect(ServerFx *fx)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(fx->socket_path);
	GSocket *socket = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM,
				       G_SOCKET_PROTOCOL_DEFAULT, &error);

	g_assert_no_error(error);
	g_socket_set_timeout(socket, IO_TIMEOUT_S);
	/* a full backlog answers EAGAIN: retry, as Ganeti's client does */
	while (!g_socket_connect(socket, address, NULL, &error)) {
		g_assert_error(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
		g_clear_error(&error);
		g_usleep(1000);
	}
	return socket;
}

static void
raw_send(GSocket *socket, const gchar *data, gsize len)
{
	gsize done = 0;

	while (done < len) {
		g_autoptr(GError) error = NULL;
		gssize n = g_socket_send(socket, data + done, len - done, NULL, &error);

		g_assert_no_error(error);
		done += (gsize)n;
	}
}

/* One answer, terminator stripped, or NULL at EOF. */
static gchar *
raw_recv(GSocket *socket)
{
	g_autoptr(GString) buf = g_string_new(NULL);

	for (;;) {
		g_autoptr(GError) error = NULL;
		gchar c;
		gssize n = g_socket_receive(socket, &c, 1, NULL, &error);

		g_assert_no_error(error);
		if (n == 0) {
			g_assert_cmpuint(buf->len, ==, 0);
			return NULL;
		}
		if (c == GNT_LUXI_EOM)
			return g_string_free(g_steal_pointer(&buf), FALSE);
		g_string_append_c(buf, c);
	}
}

static void
raw_expect_answer(GSocket *socket, const gchar *expected)
{
	g_autofree gchar *answer = raw_recv(socket);

	g_assert_cmpstr(answer, ==, expected);
}

static void
raw_expect_eof(GSocket *socket)
{
	g_autofree gchar *answer = raw_recv(socket);

	g_assert_null(answer);
}

/* The server still answers a fresh client. */
static void
assert_serving(ServerFx *fx)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);

	assert_call(client, "QueryConfigValues", "[[\"cluster_name\"]]",
		    "[\"cluster.example.com\"]");
}

/* ---- round trips ---- */

static void
test_submit_wait_query(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *status = NULL;
	g_autofree gchar *rows = NULL;
	guint64 id;

	id = submit(client, "[{\"OP_ID\": \"OP_TEST_DUMMY\", \"messages\": [\"one\", \"two\"],"
			    " \"result\": {\"answer\": 42}}]");
	g_assert_cmpuint(id, ==, 1);
	status = wait_job(client, id, messages);
	g_assert_cmpstr(status, ==, "success");
	g_assert_cmpuint(messages->len, ==, 2);
	g_assert_cmpstr(g_ptr_array_index(messages, 0), ==, "one");
	g_assert_cmpstr(g_ptr_array_index(messages, 1), ==, "two");

	/* IDs as ints or decimal strings, always returned as ints */
	assert_call(client, "QueryJobs", "[[1], [\"id\", \"status\", \"opresult\"]]",
		    "[[1,\"success\",[{\"answer\":42}]]]");
	assert_call(client, "QueryJobs", "[[\"1\"], [\"id\"]]", "[[1]]");
	assert_call(client, "QueryJobs", "[null, [\"id\"]]", "[[1]]");
	{
		g_autoptr(JsonArray) fields = json_array_new();
		g_autoptr(JsonNode) filter = parse("[\"==\", \"id\", 1]");
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) result = NULL;

		json_array_add_string_element(fields, "id");
		json_array_add_string_element(fields, "status");
		result = gnt_luxi_client_query(client, "job", fields, filter, &error);
		g_assert_no_error(error);
		rows = gnt_json_to_string(
			json_object_get_member(json_node_get_object(result), "data"));
		g_assert_cmpstr(rows, ==, "[[[0,1],[0,\"success\"]]]");
	}
	{
		g_autoptr(JsonNode) fields = call_ok(client, "QueryFields", "[\"job\", [\"id\"]]");
		JsonArray *defs =
			json_object_get_array_member(json_node_get_object(fields), "fields");

		g_assert_cmpuint(json_array_get_length(defs), ==, 1);
		g_assert_cmpstr(json_object_get_string_member(
					json_array_get_object_element(defs, 0), "name"),
				==, "id");
	}
}

static void
test_wait_long_poll(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autoptr(JsonArray) fields = json_array_new();
	g_autoptr(JsonNode) prev = parse("[\"running\"]");
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) answer = NULL;
	g_autofree gchar *status = NULL;
	guint64 id;
	gint64 start;

	json_array_add_string_element(fields, "status");
	id = submit(client, "[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 3}]");
	/* wait for "running": nothing logs, so the status is all that changes */
	for (;;) {
		g_autoptr(JsonNode) row = call_ok(client, "QueryJobs", "[[1], [\"status\"]]");
		g_autofree gchar *text = gnt_json_to_string(row);

		if (g_strcmp0(text, "[[\"running\"]]") == 0)
			break;
		g_assert_cmpstr(text, ==, "[[\"queued\"]]");
		g_usleep(10000);
	}
	/* unchanged for a second: "nochange", not earlier, not much later */
	start = g_get_monotonic_time();
	answer = gnt_luxi_client_wait_for_job_change(client, id, fields, prev, -1, 1, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(json_node_get_string(answer), ==, "nochange");
	g_assert_cmpint(g_get_monotonic_time() - start, >=, 900000);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 2500000);
	g_clear_pointer(&answer, json_node_unref);

	/* woken by the end of the job, well before the timeout */
	answer = gnt_luxi_client_wait_for_job_change(client, id, fields, prev, -1, 60, &error);
	g_assert_no_error(error);
	status = gnt_json_to_string(json_array_get_element(json_node_get_array(answer), 0));
	g_assert_cmpstr(status, ==, "[\"success\"]");
	g_assert_cmpint(g_get_monotonic_time() - start, <, 10 * G_USEC_PER_SEC);
	g_clear_pointer(&answer, json_node_unref);

	/* finalized: at once, even with the same previous info */
	g_clear_pointer(&prev, json_node_unref);
	prev = parse("[\"success\"]");
	start = g_get_monotonic_time();
	answer = gnt_luxi_client_wait_for_job_change(client, id, fields, prev, 0, 60, &error);
	g_assert_no_error(error);
	g_assert_true(JSON_NODE_HOLDS_ARRAY(answer));
	g_assert_cmpint(g_get_monotonic_time() - start, <, G_USEC_PER_SEC);
}

static void
test_wait_job_lost(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);

	assert_call_fails(client, "WaitForJobChange", "[999, [\"status\"], null, null, 10]",
			  "JobLost", GNT_ERROR_FAULT, "job 999 not found");
	assert_call_fails(client, "WaitForJobChange", "[\"998\", [\"status\"], null, null, 10]",
			  "JobLost", GNT_ERROR_FAULT, "job 998 not found");
}

static void
test_cancel(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autoptr(JsonNode) answer = NULL;
	g_autofree gchar *status = NULL;
	JsonArray *pair;

	/* one job runs at a time here: the second stays queued */
	submit(client, "[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 1}]");
	submit(client, "[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}]");
	answer = call_ok(client, "CancelJob", "[\"2\", false]");
	pair = json_node_get_array(answer);
	g_assert_cmpuint(json_array_get_length(pair), ==, 2);
	g_assert_true(json_array_get_boolean_element(pair, 0));
	g_assert_nonnull(json_array_get_string_element(pair, 1));
	status = wait_job(client, 2, NULL);
	g_assert_cmpstr(status, ==, "canceled");
	g_clear_pointer(&status, g_free);
	g_clear_pointer(&answer, json_node_unref);

	/* finished jobs cannot be */
	status = wait_job(client, 1, NULL);
	g_assert_cmpstr(status, ==, "success");
	answer = call_ok(client, "CancelJob", "[1]");
	g_assert_false(json_array_get_boolean_element(json_node_get_array(answer), 0));
}

static void
test_archive(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autofree gchar *status = NULL;

	submit(client, "[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}]");
	submit(client, "[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}]");
	submit(client, "[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}]");
	for (guint64 id = 1; id <= 3; id++) {
		g_autofree gchar *final = wait_job(client, id, NULL);

		g_assert_cmpstr(final, ==, "success");
	}
	assert_call(client, "ArchiveJob", "[1]", "true");
	assert_call(client, "ArchiveJob", "[1]", "false");
	assert_call(client, "ArchiveJob", "[42]", "false");
	assert_call(client, "QueryJobs", "[null, [\"id\"]]", "[[2],[3]]");
	assert_call(client, "AutoArchiveJobs", "[-1, 10]", "[2,0]");
	assert_call(client, "QueryJobs", "[null, [\"id\"]]", "[]");
	/* archived jobs are still found */
	status = wait_job(client, 2, NULL);
	g_assert_cmpstr(status, ==, "success");
}

static void
test_drain(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	const gchar *op = "[[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}]]";
	const gchar *many = "[[[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}]]]";

	assert_call(client, "SetDrainFlag", "[true]", "true");
	assert_call(client, "QueryConfigValues", "[[\"drain_flag\", \"cluster_name\", \"nope\"]]",
		    "[true,\"cluster.example.com\",null]");
	/* the queue's refusal, in one shape for both: GenericError("Queue drained") */
	assert_call_fails(client, "SubmitJob", op, "GenericError", GNT_ERROR_FAULT,
			  "Queue drained");
	assert_error_args(client, "[\"Queue drained\"]");
	assert_call_fails(client, "SubmitManyJobs", many, "GenericError", GNT_ERROR_FAULT,
			  "Queue drained");
	assert_error_args(client, "[\"Queue drained\"]");
	assert_call(client, "SubmitJobToDrainedQueue", op, "1");
	assert_call(client, "SetDrainFlag", "[false]", "true");
	assert_call(client, "QueryConfigValues", "[[\"drain_flag\"]]", "[false]");
	assert_call(client, "SubmitJob", op, "2");
}

static void
test_submit_many(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autofree gchar *bad = opcode_error("{\"OP_ID\": \"OP_TEST_DELAY\"}");
	g_autofree gchar *expected = g_strdup_printf(
		"Failed to parse request: SubmitManyJobs: job 1, opcode 1: %s", bad);

	assert_call(
		client, "SubmitManyJobs",
		"[[[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}],"
		"  [{\"OP_ID\": \"OP_TEST_DUMMY\"}, {\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}]]]",
		"[[true,1],[true,2]]");
	/* one bad opcode refuses the whole request, nothing is queued */
	assert_call_fails(client, "SubmitManyJobs",
			  "[[[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}],"
			  "  [{\"OP_ID\": \"OP_TEST_DUMMY\"}, {\"OP_ID\": \"OP_TEST_DELAY\"}]]]",
			  NULL, GNT_ERROR_INVALID, expected);
	assert_call(client, "QueryJobs", "[[], [\"id\"]]", "[[1],[2]]");
	assert_call(client, "SubmitManyJobs", "[[]]", "[]");
	/* an opcode of Ganeti's that Gantry lacks: an encoded error that says
	 * so (Ganeti's CLI shows it), not a malformed request */
	assert_call_fails(client, "SubmitJob", "[[{\"OP_ID\": \"OP_INSTANCE_MIGRATE\"}]]",
			  "OpPrereqError", GNT_ERROR_INVALID,
			  "opcode 0: opcode 'OP_INSTANCE_MIGRATE' is not supported by Gantry");
	assert_error_args(client, "[\"opcode 0: opcode 'OP_INSTANCE_MIGRATE' is not supported by "
				  "Gantry\",\"wrong_input\"]");
	assert_call_fails(
		client, "SubmitManyJobs",
		"[[[{\"OP_ID\": \"OP_TEST_DUMMY\"}], [{\"OP_ID\": \"OP_INSTANCE_MIGRATE\"}]]]",
		"OpPrereqError", GNT_ERROR_INVALID,
		"job 1, opcode 0: opcode 'OP_INSTANCE_MIGRATE' is not supported by Gantry");
	assert_call(client, "QueryJobs", "[[], [\"id\"]]", "[[1],[2]]");
}

static void
test_cluster_methods(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autoptr(JsonNode) info = call_ok(client, "QueryClusterInfo", "[]");
	JsonObject *obj = json_node_get_object(info);

	g_assert_cmpstr(json_object_get_string_member(obj, "name"), ==, "cluster.example.com");
	g_assert_true(json_object_has_member(obj, "software_version"));
	assert_call(client, "QueryTags", "[\"cluster\", \"\"]", "[]");
	/* the group gnt-cluster init makes */
	assert_call(client, "QueryTags", "[\"nodegroup\", \"default\"]", "[]");
	assert_call_fails(client, "QueryTags", "[\"network\", \"net1\"]", "OpPrereqError",
			  GNT_ERROR_INVALID, "querying the tags of a network is not supported yet");
	assert_error_args(client, "[\"querying the tags of a network is not supported yet\","
				  "\"wrong_input\"]");
	assert_call_fails(client, "QueryTags", "[\"bogus\", \"\"]", NULL, GNT_ERROR_INVALID,
			  "Failed to parse request: QueryTags: unknown tag kind 'bogus'");
	assert_error_args(client, NULL); /* a plain string */
	assert_call(client, "Query", "[\"group\", [\"name\", \"node_cnt\"], null]",
		    "{\"fields\":[{\"name\":\"name\",\"title\":\"Group\",\"kind\":\"text\","
		    "\"doc\":\"Group name\"},{\"name\":\"node_cnt\",\"title\":\"Nodes\","
		    "\"kind\":\"number\",\"doc\":\"Number of nodes\"}],"
		    "\"data\":[[[0,\"default\"],[0,0]]]}");
	assert_call_fails(client, "Query", "[\"network\", [\"name\"], null]", "OpPrereqError",
			  GNT_ERROR_INVALID,
			  "querying the resource 'network' is not supported yet");
	assert_call_fails(client, "QueryFields", "[\"os\", null]", "OpPrereqError",
			  GNT_ERROR_INVALID, "resource 'os' cannot be queried over LUXI");
	assert_call_fails(client, "PickupJob", "[1]", "GenericError", GNT_ERROR_FAULT,
			  "Luxi call 'PickupJob' is for internal use only");
	assert_call(client, "QueryGroups", "[[], [\"name\", \"alloc_policy\"], false]",
		    "[[\"default\",\"preferred\"]]");
	assert_call_fails(client, "QueryNetworks", "[[], [\"name\"], false]", "OpPrereqError",
			  GNT_ERROR_INVALID,
			  "LUXI method 'QueryNetworks' is not supported by Gantry");
	assert_call(client, "ChangeJobPriority", "[7, -10]", "[false,\"Job 7 not found\"]");
}

/* ---- bad input: the exact answer, then the server keeps serving ---- */

static void
test_bad_arguments(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);

	assert_call_fails(client, "Frobnicate", "[]", NULL, GNT_ERROR_INVALID,
			  "Failed to parse request: Unable to parse LUXI request method: "
			  "unknown method 'Frobnicate'");
	assert_call_fails(client, "ArchiveJob", "[]", NULL, GNT_ERROR_INVALID,
			  "Failed to parse request: ArchiveJob: expected 1 argument, got 0");
	assert_call_fails(client, "CancelJob", "[1, false, 3]", NULL, GNT_ERROR_INVALID,
			  "Failed to parse request: CancelJob: expected 1 to 2 arguments, got 3");
	assert_call_fails(client, "WaitForJobChange", "[1, \"status\", null, null, 10]", NULL,
			  GNT_ERROR_INVALID,
			  "Failed to parse request: WaitForJobChange: argument 2 ('fields') must "
			  "be a list of strings, not string");
	assert_call_fails(client, "WaitForJobChange", "[\"x1\", [\"status\"], null, null, 10]",
			  NULL, GNT_ERROR_INVALID,
			  "Failed to parse request: WaitForJobChange: argument 1 ('job_id') must "
			  "be a job ID (an integer or a decimal string), not string");
	assert_call_fails(client, "QueryJobs", "[[1, -2], [\"id\"]]", NULL, GNT_ERROR_INVALID,
			  "Failed to parse request: QueryJobs: argument 1 ('job_ids') must be a "
			  "list of job IDs or null, not list");
	assert_call_fails(client, "SetDrainFlag", "[\"yes\"]", NULL, GNT_ERROR_INVALID,
			  "Failed to parse request: SetDrainFlag: argument 1 ('flag') must be a "
			  "boolean, not string");
	assert_call_fails(client, "SubmitJob", "[{\"OP_ID\": \"OP_TEST_DELAY\"}]", NULL,
			  GNT_ERROR_INVALID,
			  "Failed to parse request: SubmitJob: argument 1 ('ops') must be a list, "
			  "not object");
	assert_call_fails(client, "SubmitJob", "[[]]", NULL, GNT_ERROR_INVALID,
			  "Failed to parse request: SubmitJob: the job has no opcodes");
	assert_call_fails(client, "SubmitJob", "[[7]]", NULL, GNT_ERROR_INVALID,
			  "Failed to parse request: SubmitJob: opcode 0: must be an object, not "
			  "integer");
	assert_call(client, "QueryJobs", "[null, [\"id\"]]", "[]");
}

static void
test_bad_opcodes(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	const gchar *ops[] = {
		"{\"OP_ID\": \"OP_NO_SUCH_THING\"}",
		"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 1, \"bogus\": 2}",
		"{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": \"long\"}",
		"{\"duration\": 1}",
	};

	for (guint i = 0; i < G_N_ELEMENTS(ops); i++) {
		g_autofree gchar *bad = opcode_error(ops[i]);
		g_autofree gchar *args = g_strdup_printf("[[%s]]", ops[i]);
		g_autofree gchar *expected =
			g_strdup_printf("Failed to parse request: SubmitJob: opcode 0: %s", bad);

		assert_call_fails(client, "SubmitJob", args, NULL, GNT_ERROR_INVALID, expected);
	}
	assert_call(client, "QueryJobs", "[null, [\"id\"]]", "[]");
}

static void
test_malformed_json(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = raw_connect(fx);
	g_autofree gchar *answer = NULL;
	const gchar *ok =
		"{\"method\": \"QueryConfigValues\", \"args\": [[\"master_node\"]]}\n\x03";

	raw_send(socket, "{\"method\":\n\x03", 12);
	answer = raw_recv(socket);
	g_assert_true(g_str_has_prefix(answer, "{\"success\":false,\"result\":\"Failed to parse "
					       "request: parsing top-level JSON message: invalid "
					       "JSON at line "));
	g_clear_pointer(&answer, g_free);
	/* the parser's own message would quote the token: a secret here */
	raw_send(socket, "{\"secret_value\":HUNTERX9}\x03", 26);
	answer = raw_recv(socket);
	g_assert_null(strstr(answer, "HUNTERX9"));
	raw_send(socket, "[1,2]\x03", 6);
	raw_expect_answer(socket,
			  "{\"success\":false,\"result\":\"Failed to parse request: "
			  "parsing top-level JSON message: expected an object, not list\"}");
	raw_send(socket, "\x03", 1);
	raw_expect_answer(socket,
			  "{\"success\":false,\"result\":\"Failed to parse request: "
			  "parsing top-level JSON message: invalid JSON: empty document\"}");
	raw_send(socket, "{\"method\": \"QueryJobs\"}\x03", 24);
	raw_expect_answer(socket, "{\"success\":false,\"result\":\"Failed to parse request: "
				  "'args' is missing\"}");
	/* the same connection goes on */
	raw_send(socket, ok, strlen(ok));
	raw_expect_answer(socket, "{\"success\":true,\"result\":[\"node1.example.com\"]}");
}

static void
test_pipelined(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = raw_connect(fx);
	const gchar *two = "{\"method\": \"SetDrainFlag\", \"args\": [true]}\x03"
			   "{\"method\": \"QueryConfigValues\", \"args\": [[\"drain_flag\"]]}\x03";

	/* answered in order, each after the previous one */
	raw_send(socket, two, strlen(two));
	raw_expect_answer(socket, "{\"success\":true,\"result\":true}");
	raw_expect_answer(socket, "{\"success\":true,\"result\":[true]}");
}

static void
test_half_close(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = raw_connect(fx);
	const gchar *req = "{\"method\": \"QueryConfigValues\", \"args\": [[\"drain_flag\"]]}\x03";

	/* a client that says it is done sending still gets its answer */
	raw_send(socket, req, strlen(req));
	g_assert_true(g_socket_shutdown(socket, FALSE, TRUE, NULL));
	raw_expect_answer(socket, "{\"success\":true,\"result\":[false]}");
	raw_expect_eof(socket);
	fx_wait_counts(fx, 0, 0);
}

static void
test_missing_terminator(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = raw_connect(fx);
	const gchar *req = "{\"method\": \"QueryClusterInfo\", \"args\": []}";

	raw_send(socket, req, strlen(req));
	g_assert_true(g_socket_shutdown(socket, FALSE, TRUE, NULL));
	/* no answer to half a message: the connection just ends */
	raw_expect_eof(socket);
	fx_wait_counts(fx, 0, 0);
	assert_serving(fx);
}

static void
test_over_size_limit(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = raw_connect(fx);
	g_autoptr(GSocket) other = raw_connect(fx);
	g_autoptr(GString) big = g_string_new("{\"method\": \"QueryJobs\", \"args\": [null, [\"");
	const gchar *ok = "{\"method\": \"QueryJobs\", \"args\": [null, [\"id\"]]}\x03";

	while (big->len <= TEST_MAX_MESSAGE)
		g_string_append(big, "idididid");
	g_string_append(big, "\"]]}\x03");
	/* a good request first: answered; then the error, then the close */
	raw_send(socket, ok, strlen(ok));
	raw_send(socket, big->str, big->len);
	raw_expect_answer(socket, "{\"success\":true,\"result\":[]}");
	raw_expect_answer(socket, "{\"success\":false,\"result\":\"Failed to parse request: LUXI "
				  "message exceeds the limit of 65536 bytes\"}");
	raw_expect_eof(socket);
	/* an unterminated one too */
	g_clear_object(&socket);
	socket = raw_connect(fx);
	g_string_truncate(big, big->len - 1);
	raw_send(socket, big->str, big->len);
	raw_expect_answer(socket, "{\"success\":false,\"result\":\"Failed to parse request: LUXI "
				  "message exceeds the limit of 65536 bytes\"}");
	raw_expect_eof(socket);
	/* others never noticed */
	raw_send(other, ok, strlen(ok));
	raw_expect_answer(other, "{\"success\":true,\"result\":[]}");
}

static void
test_disconnect_mid_request(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = raw_connect(fx);
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	const gchar *half = "{\"method\": \"SubmitJob\", \"args\": [[{\"OP_ID\": \"OP_TEST_DE";

	raw_send(socket, half, strlen(half));
	fx_wait_counts(fx, 2, 0);
	g_clear_object(&socket);
	fx_wait_counts(fx, 1, 0);
	assert_call(client, "QueryJobs", "[null, [\"id\"]]", "[]");
}

static void
test_disconnect_mid_wait(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autoptr(GSocket) socket = raw_connect(fx);
	g_autoptr(GSocket) other = raw_connect(fx);
	const gchar *wait = "{\"method\": \"WaitForJobChange\", \"args\": [1, [\"id\"], [1], null, "
			    "60]}\x03";
	g_autofree gchar *status = NULL;

	submit(client, "[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 2}]");
	raw_send(socket, wait, strlen(wait));
	raw_send(other, wait, strlen(wait));
	fx_wait_counts(fx, 3, 2);
	/* the first goes away: its watch is removed, the other one waits on */
	g_clear_object(&socket);
	fx_wait_counts(fx, 2, 1);
	status = wait_job(client, 1, NULL);
	g_assert_cmpstr(status, ==, "success");
	raw_expect_answer(other, "{\"success\":true,\"result\":[[1],[]]}");
	fx_wait_counts(fx, 2, 0);
}

static void
test_no_sigpipe(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = raw_connect(fx);
	const gchar *req = "{\"method\": \"QueryClusterInfo\", \"args\": []}\x03";

	/* the client stops reading but keeps its end open: the answer hits
	 * EPIPE, which must not raise SIGPIPE (it would kill this process) */
	g_assert_true(g_socket_shutdown(socket, TRUE, FALSE, NULL));
	raw_send(socket, req, strlen(req));
	fx_wait_counts(fx, 0, 0);
	assert_serving(fx);
}

static void
test_idle_connections(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) idle = g_ptr_array_new_with_free_func(g_object_unref);
	g_autoptr(GntLuxiClient) client = NULL;
	gint64 start;

	for (guint i = 0; i < 1000; i++)
		g_ptr_array_add(idle, raw_connect(fx));
	fx_wait_counts(fx, 1000, 0);
	client = fx_client(fx);
	start = g_get_monotonic_time();
	for (guint i = 0; i < 100; i++)
		assert_call(client, "QueryConfigValues", "[[\"drain_flag\"]]", "[false]");
	g_test_message("100 calls beside 1000 idle connections: %" G_GINT64_FORMAT " us",
		       g_get_monotonic_time() - start);
	g_ptr_array_set_size(idle, 0);
	fx_wait_counts(fx, 1, 0);
}

static gboolean
stop_server(gpointer data)
{
	ServerFx *fx = data;

	gnt_luxi_server_stop(fx->server);
	return G_SOURCE_REMOVE;
}

/* Stopping with a client idle and another waiting on a job: both are
 * closed, nothing is answered, nothing crashes, and the socket is gone. */
static void
test_stop_with_clients(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autoptr(GSocket) socket = raw_connect(fx);
	g_autoptr(JsonNode) args = parse("[[\"cluster_name\"]]");
	g_autoptr(JsonNode) answer = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *wait = NULL;
	Counts counts;
	guint64 id;

	/* a job that outlasts the test (shutting the queue down ends it) and a
	 * wait for a field that never changes: the waiter stays parked */
	id = submit(client, "[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 60}]");
	wait = g_strdup_printf("{\"method\": \"WaitForJobChange\", \"args\": [%" G_GUINT64_FORMAT
			       ", [\"id\"], [%" G_GUINT64_FORMAT "], null, 60]}\x03",
			       id, id);
	raw_send(socket, wait, strlen(wait));
	fx_wait_counts(fx, 2, 1);

	fx_invoke(fx, stop_server, fx);
	counts = fx_counts(fx);
	g_assert_cmpuint(counts.n_connections, ==, 0);
	g_assert_cmpuint(counts.n_watching, ==, 0);
	g_assert_false(g_file_test(fx->socket_path, G_FILE_TEST_EXISTS));
	/* the waiter reads the end of the stream, not an answer */
	raw_expect_eof(socket);
	/* the idle client's next call fails instead of hanging */
	answer = gnt_luxi_client_call(client, "QueryConfigValues", args, &error);
	g_assert_null(answer);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
}

/* ---- the socket file ---- */

static void
test_socket_file(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntLuxiServer) second = NULL;
	g_autofree gchar *stale = g_build_filename(fx->root.dir, "stale.sock", NULL);
	g_autofree gchar *plain = g_build_filename(fx->root.dir, "plain-file", NULL);
	g_autoptr(GSocket) dead = NULL;
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(stale);
	g_autofree gchar *expected = g_strdup_printf(
		"listening for LUXI: another master daemon is listening on '%s'", fx->socket_path);
	GStatBuf st;

	g_assert_cmpint(g_stat(fx->socket_path, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 0777, ==, 0660);

	/* a second server on a live socket is refused; no queue calls happen
	 * here, so using the server thread's queue from this thread is safe */
	second = gnt_luxi_server_new(fx->queue, fx->root.config);
	g_assert_false(gnt_luxi_server_listen(second, fx->socket_path, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	g_assert_cmpstr(error->message, ==, expected);
	g_clear_error(&error);

	g_assert_true(g_file_set_contents(plain, "x", 1, NULL));
	g_assert_false(gnt_luxi_server_listen(second, plain, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	g_clear_error(&error);

	/* a socket file whose daemon died is replaced */
	dead = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
			    NULL);
	g_assert_true(g_socket_bind(dead, address, FALSE, NULL));
	g_socket_close(dead, NULL);
	g_assert_true(g_file_test(stale, G_FILE_TEST_EXISTS));
	g_assert_true(gnt_luxi_server_listen(second, stale, &error));
	g_assert_no_error(error);
	gnt_luxi_server_stop(second);
	g_assert_false(g_file_test(stale, G_FILE_TEST_EXISTS));
}

static void
test_client_no_daemon(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntLuxiClient) client = gnt_luxi_client_new("/nonexistent/gantry/socket", &error);

	g_assert_null(client);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_true(g_str_has_prefix(error->message, "cannot connect to the master daemon at "
						       "'/nonexistent/gantry/socket': "));
	g_assert_true(g_str_has_suffix(error->message, " (is gantry-masterd running?)"));
}

/* A socket file bound at @name in a new temp dir. (transfer full) */
static GSocket *
bind_socket_file(const gchar *name, gchar **dir, gchar **path)
{
	g_autoptr(GSocketAddress) address = NULL;
	GSocket *socket = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM,
				       G_SOCKET_PROTOCOL_DEFAULT, NULL);

	*dir = g_dir_make_tmp("gnt-luxi-XXXXXX", NULL);
	*path = g_build_filename(*dir, name, NULL);
	address = g_unix_socket_address_new(*path);
	g_assert_true(g_socket_bind(socket, address, FALSE, NULL));
	return socket;
}

static void
remove_socket_file(const gchar *dir, const gchar *path)
{
	g_assert_cmpint(g_unlink(path), ==, 0);
	g_assert_cmpint(g_rmdir(dir), ==, 0);
}

static void
test_client_refused(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = NULL;
	g_autofree gchar *path = NULL;
	g_autoptr(GSocket) dead = bind_socket_file("dead.sock", &dir, &path);
	g_autoptr(GntLuxiClient) client = NULL;
	g_autofree gchar *prefix =
		g_strdup_printf("cannot connect to the master daemon at '%s': ", path);
	const gchar *exc_class = NULL;

	/* a socket file nobody listens on: connection refused, Ganeti's NoMasterError */
	g_socket_close(dead, NULL);
	client = gnt_luxi_client_new_full(path, &exc_class, &error);
	g_assert_null(client);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_true(g_str_has_prefix(error->message, prefix));
	g_assert_true(g_str_has_suffix(error->message, " (is gantry-masterd running?)"));
	g_assert_cmpstr(exc_class, ==, GNT_LUXI_EXC_NO_MASTER);
	remove_socket_file(dir, path);
}

/* A daemon that never answers: the call times out as Ganeti's TimeoutError,
 * with no exception arguments (nothing was sent back). */
static void
test_client_timeout(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = NULL;
	g_autofree gchar *path = NULL;
	g_autoptr(GSocket) mute = bind_socket_file("mute.sock", &dir, &path);
	g_autoptr(GntLuxiClient) client = NULL;
	g_autoptr(JsonNode) args = parse("[]");
	g_autoptr(JsonNode) result = NULL;

	/* listening but never accepting: the backlog takes the connection */
	g_assert_true(g_socket_listen(mute, NULL));
	client = gnt_luxi_client_new(path, &error);
	g_assert_no_error(error);
	gnt_luxi_client_set_timeout(client, 1);
	result = gnt_luxi_client_call(client, "QueryClusterInfo", args, &error);
	g_assert_null(result);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_cmpstr(gnt_luxi_client_get_error_class(client), ==, GNT_LUXI_EXC_TIMEOUT);
	assert_error_args(client, NULL);
	g_socket_close(mute, NULL);
	remove_socket_file(dir, path);
}

static void
raise_fd_limit(void)
{
	struct rlimit limit;

	/* 1000 idle clients and their server ends live in this one process */
	if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 4096) {
		limit.rlim_cur = MIN(limit.rlim_max, 4096);
		setrlimit(RLIMIT_NOFILE, &limit);
	}
}

/* ---- the instance and node resources ---- */

static void
add_object(ServerFx *fx, GntObjectKind kind, const gchar *json)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = parse(json);

	g_assert_true(
		gnt_config_add_object(fx->root.config, kind, json_node_get_object(node), &error));
	g_assert_no_error(error);
}

static void
add_objects(ServerFx *fx)
{
	add_object(
		fx, GNT_OBJECT_NODE,
		"{\"uuid\": \"n-1\", \"name\": \"node1.example.com\", \"primary_ip\": \"192.0.2.1\","
		" \"master_candidate\": true, \"group\": \"default\"}");
	add_object(
		fx, GNT_OBJECT_NODE,
		"{\"uuid\": \"n-2\", \"name\": \"node2.example.com\", \"primary_ip\": \"192.0.2.2\","
		" \"offline\": true, \"group\": \"default\"}");
	add_object(
		fx, GNT_OBJECT_INSTANCE,
		"{\"name\": \"inst1.example.com\", \"primary_node\": \"n-1\", \"os\": \"noop\","
		" \"hypervisor\": \"fake\", \"admin_state\": \"up\", \"disk_template\": \"diskless\","
		" \"beparams\": {\"maxmem\": 256}, \"osparams_private\": {\"pw\": \"hunter2\"}}");
	add_object(
		fx, GNT_OBJECT_INSTANCE,
		"{\"name\": \"inst2.example.com\", \"primary_node\": \"n-2\", \"os\": \"noop\","
		" \"hypervisor\": \"fake\", \"admin_state\": \"down\", \"disk_template\": \"diskless\"}");
}

static void
test_query_objects(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autoptr(JsonNode) fields = NULL;

	add_objects(fx);
	assert_call(
		client, "Query",
		"[\"instance\", [\"name\", \"pnode\", \"status\", \"be/memory\"], null]",
		"{\"fields\":[{\"name\":\"name\",\"title\":\"Instance\",\"kind\":\"text\","
		"\"doc\":\"Instance name\"},{\"name\":\"pnode\",\"title\":\"Primary_node\","
		"\"kind\":\"text\",\"doc\":\"Primary node\"},{\"name\":\"status\",\"title\":\"Status\","
		"\"kind\":\"text\",\"doc\":\"Instance status; \\\"running\\\" if instance is set to be"
		" running and actually is, \\\"ADMIN_down\\\" if instance is stopped and is not running,"
		" \\\"ERROR_wrongnode\\\" if instance running, but not on its designated primary node,"
		" \\\"ERROR_up\\\" if instance should be stopped, but is actually running,"
		" \\\"ERROR_down\\\" if instance should run, but doesn't, \\\"ERROR_nodedown\\\" if"
		" instance's primary node is down, \\\"ERROR_nodeoffline\\\" if instance's primary node"
		" is marked offline, \\\"ADMIN_offline\\\" if instance is offline and does not use"
		" dynamic, \\\"USER_down\\\" if the user shutdown the instance resources\"},"
		"{\"name\":\"be/memory\",\"title\":\"ConfigMaxMem\",\"kind\":\"unit\","
		"\"doc\":\"The \\\"maxmem\\\" backend parameter\"}],"
		"\"data\":[[[0,\"inst1.example.com\"],[0,\"node1.example.com\"],[2,null],[0,256]],"
		"[[0,\"inst2.example.com\"],[0,\"node2.example.com\"],[0,\"ERROR_nodeoffline\"],"
		"[0,128]]]}");
	/* the CLI's name filter, with a short name; unknown fields are cells */
	assert_call(
		client, "Query",
		"[\"node\", [\"name\", \"role\", \"pinst_list\", \"mfree\", \"x\"],"
		" [\"|\", [\"=\", \"name\", \"node2\"]]]",
		"{\"fields\":[{\"name\":\"name\",\"title\":\"Node\",\"kind\":\"text\",\"doc\":\"Node name\"},"
		"{\"name\":\"role\",\"title\":\"Role\",\"kind\":\"text\",\"doc\":\"Node role; \\\"M\\\" for"
		" master, \\\"C\\\" for master candidate, \\\"R\\\" for regular, \\\"D\\\" for drained,"
		" \\\"O\\\" for offline\"},{\"name\":\"pinst_list\",\"title\":\"PriInstances\","
		"\"kind\":\"other\",\"doc\":\"List of instances with this node as primary\"},"
		"{\"name\":\"mfree\",\"title\":\"MFree\",\"kind\":\"unit\","
		"\"doc\":\"Memory available for instance allocations\"},{\"name\":\"x\",\"title\":\"x\","
		"\"kind\":\"unknown\",\"doc\":\"Unknown field 'x'\"}],"
		"\"data\":[[[0,\"node2.example.com\"],[0,\"O\"],[0,[\"inst2.example.com\"]],[4,null],"
		"[1,null]]]}");
	assert_call(client, "QueryInstances",
		    "[[\"inst2\", \"inst1\"], [\"name\", \"admin_up\"], false]",
		    "[[\"inst2.example.com\",false],[\"inst1.example.com\",true]]");
	assert_call(client, "QueryInstances", "[[], [\"custom_osparams\"], false]",
		    "[[{\"pw\":\"<redacted>\"}],[{}]]");
	assert_call(client, "QueryNodes", "[null, [\"name\", \"master\", \"pinst_cnt\"], false]",
		    "[[\"node1.example.com\",true,1],[\"node2.example.com\",false,1]]");
	fields = call_ok(client, "QueryFields", "[\"instance\", null]");
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(
				 json_node_get_object(fields), "fields")),
			 ==, 292);
	assert_call(client, "QueryFields", "[\"node\", [\"pip\"]]",
		    "{\"fields\":[{\"name\":\"pip\",\"title\":\"PrimaryIP\",\"kind\":\"text\","
		    "\"doc\":\"Primary IP address\"}]}");
}

static void
test_query_objects_errors(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);

	add_objects(fx);
	assert_call_fails(client, "QueryInstances", "[[\"nope\"], [\"name\"], false]",
			  "OpPrereqError", GNT_ERROR_NOT_FOUND, "Instance name 'nope' not found");
	assert_error_args(client, "[\"Instance name 'nope' not found\",\"unknown_entity\"]");
	assert_call_fails(client, "Query",
			  "[\"instance\", [\"name\"], [\"==\", \"name\", \"nope\"]]",
			  "OpPrereqError", GNT_ERROR_NOT_FOUND, "Instance name 'nope' not found");
	assert_call_fails(client, "QueryNodes", "[[], [\"name\"], true]", "OpPrereqError",
			  GNT_ERROR_INVALID, "Sync queries are not allowed");
	assert_error_args(client, "[\"Sync queries are not allowed\",\"wrong_input\"]");
	assert_call_fails(client, "QueryNodes", "[[], [\"name\", \"a\", \"b\"], false]",
			  "OpPrereqError", GNT_ERROR_INVALID,
			  "Unknown output fields selected: a, b");
	assert_call_fails(client, "Query", "[\"instance\", [\"name\"], [\"~\", \"name\"]]",
			  "OpPrereqError", GNT_ERROR_INVALID, "unknown filter operator '~'");
	assert_call_fails(
		client, "QueryInstances", "[[], \"name\", false]", NULL, GNT_ERROR_INVALID,
		"Failed to parse request: QueryInstances: argument 2 ('fields') must be a "
		"list of strings, not string");
	/* the server still serves */
	assert_call(client, "QueryInstances", "[[\"inst1\"], [\"name\"], false]",
		    "[[\"inst1.example.com\"]]");
}

/* ---- live data and tags: nodes answering over real TLS ---- */

#include "gnt-noded.h"
#include "gnt-tls.h"

/* libsoup's own per-connection leak in its server (see tests/rpc/lsan.supp),
		    * for the node served in this process under -Db_sanitize=address. */
const char *
__lsan_default_suppressions(void);
const char *
__lsan_default_suppressions(void)
{
	return "leak:libsoup-3.0.so\nleak:libgiognutls.so\n";
}

/* A gantry-noded's procedures (fake hypervisor) served in the LUXI
		    * server's own main context, and the master's client reaching it. */
typedef struct {
	ServerFx *fx;
	GntRpcNode *node;
	GntRpcServer *server;
	GntRpcClient *client;
	const GntRpcProcedure *procedures; /* NULL: the node's own instance procedures */
	gpointer procedures_data;
	guint port;
	guint n_running; /* the node's procedures still running */
} LiveNode;

static gboolean
live_node_start_cb(gpointer data)
{
	LiveNode *live = data;
	g_autoptr(GError) error = NULL;

	live->server = gnt_rpc_server_new_from_paths(live->fx->root.paths, &error);
	g_assert_no_error(error);
	gnt_rpc_node_add_procedures(live->server, live->fx->root.paths);
	if (live->procedures != NULL)
		gnt_rpc_server_add_procedures(live->server, live->procedures,
					      live->procedures_data);
	else
		gnt_rpc_node_add_instance_procedures(live->server, live->node);
	g_assert_true(gnt_rpc_server_listen(live->server, "127.0.0.1", 0, &error));
	g_assert_no_error(error);
	live->port = gnt_rpc_server_get_port(live->server);
	gnt_luxi_server_set_rpc(live->fx->server, live->client);
	return G_SOURCE_REMOVE;
}

static gboolean
live_node_count_running_cb(gpointer data)
{
	LiveNode *live = data;

	live->n_running = gnt_rpc_server_get_n_running(live->server);
	return G_SOURCE_REMOVE;
}

static gboolean
live_node_stop_cb(gpointer data)
{
	LiveNode *live = data;

	gnt_rpc_server_stop(live->server);
	g_clear_object(&live->server);
	gnt_luxi_server_set_rpc(live->fx->server, NULL);
	return G_SOURCE_REMOVE;
}

/* The cluster's certificates for node1.example.com, its node procedures,
		    * and the master's client given to the LUXI server and to the jobs. */
static void
live_node_start(LiveNode *live, ServerFx *fx)
{
	g_autoptr(GError) error = NULL;
	const gchar *addresses[] = {"127.0.0.1", NULL};
	GntRpcNodeOptions options = {.hv_prefix = "gnt-luxi-test-"};

	live->fx = fx;
	g_assert_true(gnt_tls_init_cluster(fx->root.paths, "cluster.example.com",
					   "node1.example.com", addresses, &error));
	g_assert_no_error(error);
	live->node = gnt_rpc_node_new(fx->root.paths, &options, &error);
	g_assert_no_error(error);
	live->client = gnt_rpc_client_new_from_paths(fx->root.paths, &error);
	g_assert_no_error(error);
	fx->env.rpc = live->client;
	fx_invoke(fx, live_node_start_cb, live);
}

/* Waits (up to 20 s) for the node's procedures to return: a query whose
 * client went away may still be asking, and they use live->node. */
static void
live_node_stop(LiveNode *live)
{
	gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;

	for (;;) {
		fx_invoke(live->fx, live_node_count_running_cb, live);
		if (live->n_running == 0)
			break;
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		g_usleep(5000);
	}
	fx_invoke(live->fx, live_node_stop_cb, live);
	live->fx->env.rpc = NULL;
	g_clear_object(&live->client);
	g_clear_pointer(&live->node, gnt_rpc_node_free);
}

/* A loopback port nothing listens on (bound, then closed). */
static guint
closed_port(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) socket = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
						 G_SOCKET_PROTOCOL_TCP, &error);
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, 0);
	g_autoptr(GSocketAddress) bound = NULL;

	g_assert_true(g_socket_bind(socket, address, FALSE, &error));
	bound = g_socket_get_local_address(socket, &error);
	g_assert_no_error(error);
	return g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
}

static void
add_live_node(ServerFx *fx, const gchar *uuid, const gchar *name, guint port, gboolean offline)
{
	g_autofree gchar *json = g_strdup_printf(
		"{\"uuid\": \"%s\", \"name\": \"%s\", \"primary_ip\": \"127.0.0.1\","
		" \"rpc_port\": %u, \"offline\": %s, \"group\": \"default\", \"tags\": [\"t-%s\"]}",
		uuid, name, port, offline ? "true" : "false", uuid);

	add_object(fx, GNT_OBJECT_NODE, json);
}

static void
add_live_instance(ServerFx *fx, const gchar *name, const gchar *node, const gchar *admin_state)
{
	g_autofree gchar *json =
		g_strdup_printf("{\"name\": \"%s\", \"primary_node\": \"%s\", \"os\": \"noop\", "
				"\"hypervisor\": \"fake\","
				" \"admin_state\": \"%s\", \"disk_template\": \"diskless\", "
				"\"disks\": [], \"nics\": [],"
				" \"beparams\": {\"maxmem\": 256}, \"tags\": [\"web\", \"prod\"]}",
				name, node, admin_state);

	add_object(fx, GNT_OBJECT_INSTANCE, json);
}

static void
run_job_ok(GntLuxiClient *client, const gchar *ops)
{
	g_autofree gchar *status = wait_job(client, submit(client, ops), NULL);

	g_assert_cmpstr(status, ==, "success");
}

static void
test_query_live(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autoptr(JsonNode) nodes = NULL;
	g_autofree gchar *nodes_text = NULL;
	LiveNode live = {NULL};

	live_node_start(&live, fx);
	add_live_node(fx, "n-1", "node1.example.com", live.port, FALSE);
	add_live_node(fx, "n-2", "node2.example.com", closed_port(), TRUE);
	add_live_node(fx, "n-3", "node3.example.com", closed_port(), FALSE);
	add_live_instance(fx, "inst1.example.com", "n-1", "up");
	add_live_instance(fx, "inst2.example.com", "n-2", "up");
	add_live_instance(fx, "inst3.example.com", "n-3", "up");
	add_live_instance(fx, "inst4.example.com", "n-1", "down");

	/* nothing runs yet: an instance meant to be up is down */
	assert_call(client, "Query",
		    "[\"instance\", [\"name\", \"status\", \"oper_ram\"], [\"|\","
		    " [\"=\", \"name\", \"inst1\"], [\"=\", \"name\", \"inst4\"]]]",
		    "{\"fields\":[{\"name\":\"name\",\"title\":\"Instance\","
		    "\"kind\":\"text\",\"doc\":\"Instance name\"},"
		    "{\"name\":\"status\",\"title\":\"Status\",\"kind\":\"text\","
		    "\"doc\":\"Instance status; \\\"running\\\" if instance is set to be"
		    " running and actually is, \\\"ADMIN_down\\\" if instance is stopped"
		    " and is not running, \\\"ERROR_wrongnode\\\" if instance running, but"
		    " not on its designated primary node, \\\"ERROR_up\\\" if instance"
		    " should be stopped, but is actually running, \\\"ERROR_down\\\" if"
		    " instance should run, but doesn't, \\\"ERROR_nodedown\\\" if"
		    " instance's primary node is down, \\\"ERROR_nodeoffline\\\" if"
		    " instance's primary node is marked offline, \\\"ADMIN_offline\\\" if"
		    " instance is offline and does not use dynamic, \\\"USER_down\\\" if"
		    " the user shutdown the instance resources\"},"
		    "{\"name\":\"oper_ram\",\"title\":\"Memory\",\"kind\":\"unit\","
		    "\"doc\":\"Actual memory usage as seen by hypervisor\"}],"
		    "\"data\":[[[0,\"inst1.example.com\"],[0,\"ERROR_down\"],[3,null]],"
		    "[[0,\"inst4.example.com\"],[0,\"ADMIN_down\"],[3,null]]]}");
	/* started through a job on the node: running, with its memory */
	run_job_ok(client, "[{\"OP_ID\": \"OP_INSTANCE_STARTUP\", \"instance_name\": \"inst1\"}]");
	assert_call(client, "QueryInstances",
		    "[[], [\"name\", \"status\", \"oper_state\", \"oper_ram\"], false]",
		    "[[\"inst1.example.com\",\"running\",true,256],"
		    "[\"inst2.example.com\",\"ERROR_nodeoffline\",null,null],"
		    "[\"inst3.example.com\",\"ERROR_nodedown\",null,null],"
		    "[\"inst4.example.com\",\"ADMIN_down\",false,null]]");
	/* the nodes' own figures; offline: RS_OFFLINE, unreachable: RS_NODATA */
	nodes = call_ok(client, "Query",
			"[\"node\", [\"name\", \"mtotal\", \"mfree\", \"mnode\", \"ctotal\","
			" \"bootid\", \"dtotal\", \"dfree\"], null]");
	nodes_text =
		gnt_json_to_string(json_object_get_member(json_node_get_object(nodes), "data"));
	g_assert_true(g_str_has_prefix(nodes_text, "[[[0,\"node1.example.com\"],[0,"));
	g_assert_nonnull(strstr(nodes_text, "[[0,\"node2.example.com\"],[4,null],[4,null],[4,null],"
					    "[4,null],[4,null],[4,null],[4,null]]"));
	g_assert_nonnull(strstr(nodes_text, "[[0,\"node3.example.com\"],[2,null],[2,null],[2,null],"
					    "[2,null],[2,null],[2,null],[2,null]]"));
	{
		JsonArray *row = json_array_get_array_element(
			json_object_get_array_member(json_node_get_object(nodes), "data"), 0);

		for (guint i = 1; i < json_array_get_length(row); i++)
			g_assert_cmpint(
				json_array_get_int_element(json_array_get_array_element(row, i), 0),
				==, 0);
	}
	run_job_ok(client, "[{\"OP_ID\": \"OP_INSTANCE_SHUTDOWN\", \"instance_name\": \"inst1\","
			   " \"timeout\": 5}]");
	assert_call(client, "QueryInstances", "[[\"inst1\"], [\"status\"], false]",
		    "[[\"ADMIN_down\"]]");
	live_node_stop(&live);
}

typedef struct {
	ServerFx *fx;
	gchar *answer;
} SlowQuery;

static gpointer
slow_query_thread(gpointer data)
{
	SlowQuery *query = data;
	g_autoptr(GntLuxiClient) client = fx_client(query->fx);
	g_autoptr(JsonNode) result =
		call_ok(client, "QueryInstances", "[[\"inst5\"], [\"name\", \"status\"], false]");

	query->answer = gnt_json_to_string(result);
	return NULL;
}

/* A node that takes the connection but never answers: the query waits
 * for it (5 s) in a worker thread while the server goes on serving. */
static void
test_query_live_unresponsive(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autoptr(GSocket) silent = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
						 G_SOCKET_PROTOCOL_TCP, &error);
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, 0);
	g_autoptr(GSocketAddress) bound = NULL;
	g_autoptr(JsonNode) info = NULL;
	SlowQuery query = {fx, NULL};
	LiveNode live = {NULL};
	GThread *thread;
	gint64 start;

	live_node_start(&live, fx);
	/* listening, never accepting: the kernel completes the connection and
	 * the TLS handshake waits */
	g_assert_true(g_socket_bind(silent, address, FALSE, &error));
	g_assert_true(g_socket_listen(silent, &error));
	bound = g_socket_get_local_address(silent, &error);
	g_assert_no_error(error);
	add_live_node(fx, "n-5", "node5.example.com",
		      g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound)), FALSE);
	add_live_instance(fx, "inst5.example.com", "n-5", "up");

	start = g_get_monotonic_time();
	thread = g_thread_new("slow-query", slow_query_thread, &query);
	fx_wait_counts(fx, 2, 0);
	info = call_ok(client, "QueryClusterInfo", "[]");
	g_assert_nonnull(info);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 3 * G_USEC_PER_SEC);
	g_thread_join(thread);
	g_assert_cmpstr(query.answer, ==, "[[\"inst5.example.com\",\"ERROR_nodedown\"]]");
	g_assert_cmpint(g_get_monotonic_time() - start, >=, 4 * G_USEC_PER_SEC);
	g_free(query.answer);
	live_node_stop(&live);
}

/* A node whose instance_list answers (no instance running) only once the
 * test lets it: the test knows when the node is being asked. */
typedef struct {
	GMutex lock;
	GCond cond;
	guint n_asked;
	gboolean released;
} HeldNode;

static JsonNode *
held_instance_list(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	HeldNode *held = user_data;
	gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&held->lock);

	held->n_asked++;
	g_cond_broadcast(&held->cond);
	while (!held->released) {
		if (!g_cond_wait_until(&held->cond, &held->lock, deadline)) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_FAULT,
					    "the test never released the node");
			return NULL;
		}
	}
	return json_node_init_object(json_node_alloc(), json_object_new());
}

static const GntRpcProcedure held_procedures[] = {
	{"instance_list", held_instance_list},
	{NULL},
};

/* Waits (up to 20 s) until the node was asked @n times in all. */
static void
held_wait_asked(HeldNode *held, guint n)
{
	gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&held->lock);

	while (held->n_asked < n) {
		if (!g_cond_wait_until(&held->cond, &held->lock, deadline))
			g_assert_cmpuint(held->n_asked, >=, n);
	}
}

static void
held_release(HeldNode *held)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&held->lock);

	held->released = TRUE;
	g_cond_broadcast(&held->cond);
}

/* The client goes away while the node is asked: the server closes its
 * connection at once, drops the answer when it comes, and serves on. */
static void
test_query_live_client_gone(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);
	g_autoptr(GSocket) raw = NULL;
	HeldNode held = {0};
	LiveNode live = {.procedures = held_procedures, .procedures_data = &held};
	const gchar request[] =
		"{\"method\": \"QueryInstances\", \"args\": [[], [\"status\"], false]}\3";

	g_mutex_init(&held.lock);
	g_cond_init(&held.cond);
	live_node_start(&live, fx);
	add_live_node(fx, "n-1", "node1.example.com", live.port, FALSE);
	add_live_instance(fx, "inst1.example.com", "n-1", "down");
	raw = raw_connect(fx);
	fx_wait_counts(fx, 2, 0);
	raw_send(raw, request, sizeof(request) - 1);
	held_wait_asked(&held, 1);
	g_clear_object(&raw);
	/* gone while the node has not answered */
	fx_wait_counts(fx, 1, 0);
	held_release(&held);
	assert_call(client, "QueryInstances", "[[], [\"status\"], false]", "[[\"ADMIN_down\"]]");
	g_assert_cmpuint(held.n_asked, ==, 2);
	live_node_stop(&live);
	g_mutex_clear(&held.lock);
	g_cond_clear(&held.cond);
}

static void
test_query_tags(ServerFx *fx, gconstpointer data)
{
	g_autoptr(GntLuxiClient) client = fx_client(fx);

	add_live_node(fx, "n-1", "node1.example.com", 1811, FALSE);
	add_live_instance(fx, "inst1.example.com", "n-1", "up");
	add_object(fx, GNT_OBJECT_INSTANCE,
		   "{\"name\": \"bare.example.com\", \"primary_node\": \"n-1\","
		   " \"hypervisor\": \"fake\", \"disk_template\": \"diskless\"}");
	assert_call(client, "QueryTags", "[\"node\", \"node1\"]", "[\"t-n-1\"]");
	assert_call(client, "QueryTags", "[\"instance\", \"inst1.example.com\"]",
		    "[\"web\",\"prod\"]");
	assert_call(client, "QueryTags", "[\"instance\", \"bare\"]", "[]");
	assert_call_fails(client, "QueryTags", "[\"instance\", \"nope\"]", "OpPrereqError",
			  GNT_ERROR_NOT_FOUND, "instance 'nope' does not exist");
	assert_error_args(client, "[\"instance 'nope' does not exist\",\"unknown_entity\"]");
	assert_call_fails(client, "QueryTags", "[\"node\", \"node9\"]", "OpPrereqError",
			  GNT_ERROR_NOT_FOUND, "node 'node9' does not exist");
	assert_call_fails(client, "QueryTags", "[\"node\", null]", "OpPrereqError",
			  GNT_ERROR_INVALID, "the tags of a node need its name");
}

#define ADD(path, func) g_test_add(path, ServerFx, NULL, fx_set_up, func, fx_tear_down)

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	gnt_opcode_register_table(&gnt_cmdlib_op_table); /* the real opcodes */
	raise_fd_limit();
	ADD("/luxi/server/submit-wait-query", test_submit_wait_query);
	ADD("/luxi/server/wait-long-poll", test_wait_long_poll);
	ADD("/luxi/server/wait-job-lost", test_wait_job_lost);
	ADD("/luxi/server/cancel", test_cancel);
	ADD("/luxi/server/archive", test_archive);
	ADD("/luxi/server/drain", test_drain);
	ADD("/luxi/server/submit-many", test_submit_many);
	ADD("/luxi/server/cluster-methods", test_cluster_methods);
	ADD("/luxi/server/query-objects", test_query_objects);
	ADD("/luxi/server/query-objects-errors", test_query_objects_errors);
	ADD("/luxi/server/query-live", test_query_live);
	ADD("/luxi/server/query-live-unresponsive", test_query_live_unresponsive);
	ADD("/luxi/server/query-live-client-gone", test_query_live_client_gone);
	ADD("/luxi/server/query-tags", test_query_tags);
	ADD("/luxi/server/bad/arguments", test_bad_arguments);
	ADD("/luxi/server/bad/opcodes", test_bad_opcodes);
	ADD("/luxi/server/bad/malformed-json", test_malformed_json);
	ADD("/luxi/server/bad/missing-terminator", test_missing_terminator);
	ADD("/luxi/server/bad/over-size-limit", test_over_size_limit);
	ADD("/luxi/server/bad/disconnect-mid-request", test_disconnect_mid_request);
	ADD("/luxi/server/bad/disconnect-mid-wait", test_disconnect_mid_wait);
	ADD("/luxi/server/bad/no-sigpipe", test_no_sigpipe);
	ADD("/luxi/server/pipelined", test_pipelined);
	ADD("/luxi/server/half-close", test_half_close);
	ADD("/luxi/server/idle-connections", test_idle_connections);
	ADD("/luxi/server/stop-with-clients", test_stop_with_clients);
	ADD("/luxi/server/socket-file", test_socket_file);
	g_test_add_func("/luxi/client/no-daemon", test_client_no_daemon);
	g_test_add_func("/luxi/client/refused", test_client_refused);
	g_test_add_func("/luxi/client/timeout", test_client_timeout);
	return g_test_run();
}
