/*
 * rapi/gnt-rapi-server: the HTTP layer in process, over TLS and plain HTTP,
 * with a small route table and real clients (libsoup's SoupSession, curl,
 * raw sockets for what no polite client sends), and gantry-rapi itself on
 * a cluster made by gnt-cluster init.
 *
 * masterd is not needed in process: the server connects each worker to the
 * LUXI socket before running a handler, and a listening socket that never
 * answers is enough for handlers that make no call.
 */
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "gnt-error.h"
#include "gnt-paths.h"
#include "gnt-rapi-server.h"
#include "gnt-rapi-users.h"
#include "gnt-tls.h"

#define BIG_ITEMS 5000

/* ---- the test's resources ---- */

static JsonNode *
handle_version(GntRapiRequest *request, GError **error)
{
	return json_from_string("2", error);
}

/* What the handler was given. */
static JsonNode *
handle_echo(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	GHashTableIter iter;
	gpointer key;
	gpointer value;

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "method");
	json_builder_add_string_value(builder, request->method);
	json_builder_set_member_name(builder, "path");
	json_builder_add_string_value(builder, request->path);
	json_builder_set_member_name(builder, "user");
	if (request->user != NULL)
		json_builder_add_string_value(builder, request->user);
	else
		json_builder_add_null_value(builder);
	json_builder_set_member_name(builder, "args");
	json_builder_begin_array(builder);
	for (guint i = 0; request->args[i] != NULL; i++)
		json_builder_add_string_value(builder, request->args[i]);
	json_builder_end_array(builder);
	json_builder_set_member_name(builder, "query");
	json_builder_begin_object(builder);
	g_hash_table_iter_init(&iter, request->query);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		GPtrArray *values = value;

		json_builder_set_member_name(builder, key);
		json_builder_begin_array(builder);
		for (guint i = 0; i < values->len; i++)
			json_builder_add_string_value(builder, g_ptr_array_index(values, i));
		json_builder_end_array(builder);
	}
	json_builder_end_object(builder);
	json_builder_set_member_name(builder, "body");
	json_builder_add_value(builder, request->body != NULL ? json_node_copy(request->body)
							      : json_node_new(JSON_NODE_NULL));
	json_builder_set_member_name(builder, "luxi");
	json_builder_add_boolean_value(builder, request->luxi != NULL);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static JsonNode *
handle_fail(GntRapiRequest *request, GError **error)
{
	const gchar *kind = request->args[0];

	if (g_str_equal(kind, "invalid"))
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "bad <value> & \"more\" 'here'");
	else if (g_str_equal(kind, "notfound"))
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
				    "Instance 'x' not found");
	else if (g_str_equal(kind, "busy"))
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES, "Queue full");
	else if (g_str_equal(kind, "exists"))
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_EXISTS, "Tag exists");
	else if (g_str_equal(kind, "silent"))
		return NULL; /* a broken handler: no error at all */
	else
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_FAULT, "something broke");
	return NULL;
}

static JsonNode *
handle_big(GntRapiRequest *request, GError **error)
{
	JsonArray *array = json_array_sized_new(BIG_ITEMS);
	JsonNode *node = json_node_new(JSON_NODE_ARRAY);

	for (guint i = 0; i < BIG_ITEMS; i++) {
		g_autofree gchar *item = g_strdup_printf("item-%05u", i);
		json_array_add_string_element(array, item);
	}
	json_node_take_array(node, array);
	return node;
}

static const GntRapiRoute test_routes[] = {
	{"/version", "GET", GNT_RAPI_ACCESS_NONE, handle_version},
	{"/2/echo", "GET", GNT_RAPI_ACCESS_NONE, handle_echo},
	{"/2/echo", "PUT", GNT_RAPI_ACCESS_WRITE, handle_echo},
	{"/2/echo", "POST", GNT_RAPI_ACCESS_WRITE, handle_echo},
	/* a route that forgot to ask for write: DELETE needs it anyway */
	{"/2/echo", "DELETE", GNT_RAPI_ACCESS_NONE, handle_echo},
	{"/2/secret", "GET", GNT_RAPI_ACCESS_READ, handle_echo},
	{"/2/wait", "GET", GNT_RAPI_ACCESS_WRITE, handle_echo},
	{"/2/things/{name}", "GET", GNT_RAPI_ACCESS_NONE, handle_echo},
	{"/2/things/{name}/tags", "PUT", GNT_RAPI_ACCESS_WRITE, handle_echo},
	{"/2/jobs/{id}", "GET", GNT_RAPI_ACCESS_NONE, handle_echo},
	{"/2/fail/{name}", "GET", GNT_RAPI_ACCESS_NONE, handle_fail},
	{"/2/big", "GET", GNT_RAPI_ACCESS_NONE, handle_big},
	/* a resource of Ganeti's without a handler */
	{"/2/things/{name}/migrate", "PUT", GNT_RAPI_ACCESS_NONE, NULL, "R_2_things_name_migrate"},
	{NULL},
};

/* ---- the fixture: a server in its own thread ---- */

typedef struct {
	gboolean tls;
	gboolean require_authentication;
	gboolean no_master;
	guint max_clients;
} ServerConfig;

static const ServerConfig config_tls = {.tls = TRUE};
static const ServerConfig config_plain = {.tls = FALSE};
static const ServerConfig config_small = {.tls = FALSE, .max_clients = 2};
static const ServerConfig config_no_master = {.tls = TRUE, .no_master = TRUE};
static const ServerConfig config_require_auth = {.tls = TRUE, .require_authentication = TRUE};

#define USERS_TEXT                                                                                 \
	"# test users\n"                                                                           \
	"reader  {CLEARTEXT}rpw read\n"                                                            \
	"writer  wpw write\n"                                                                      \
	"both    bpw read,write\n"                                                                 \
	"plain   ppw\n"

typedef struct {
	const ServerConfig *config;
	gchar *dir;
	GntPaths *paths;
	gchar *users_path;
	GSocket *luxi_listener; /* never accepts: connecting is enough */
	GTlsCertificate *certificate;
	GThread *thread;
	GMainContext *context;
	GMainLoop *loop;
	GntRapiServer *server;
	GMutex lock;
	GCond cond;
	guint port;
	gchar *base; /* "https://localhost:PORT" */
	SoupSession *session;
} Fx;

static gpointer
server_thread(gpointer data)
{
	Fx *fx = data;
	g_autoptr(GError) error = NULL;
	GntRapiServerOptions options = {
		.max_clients = fx->config->max_clients,
		.n_workers = 4,
		/* short for the raw tests of plain HTTP; TLS handshakes may
		 * take a while on a busy machine (or under a sanitizer) */
		.request_timeout_s = fx->config->tls ? 30 : 1,
		.keep_alive_s = fx->config->tls ? 30 : 1,
		.require_authentication = fx->config->require_authentication,
	};
	g_autofree gchar *luxi =
		g_build_filename(fx->dir, fx->config->no_master ? "none" : "luxi", NULL);

	g_main_context_push_thread_default(fx->context);
	fx->server =
		gnt_rapi_server_new(test_routes, luxi, fx->users_path, fx->certificate, &options);
	g_assert_true(gnt_rapi_server_listen(fx->server, "127.0.0.1", 0, &error));
	g_assert_no_error(error);
	g_mutex_lock(&fx->lock);
	fx->port = gnt_rapi_server_get_port(fx->server);
	g_cond_signal(&fx->cond);
	g_mutex_unlock(&fx->lock);
	g_main_loop_run(fx->loop);
	gnt_rapi_server_stop(fx->server);
	g_clear_object(&fx->server);
	while (g_main_context_iteration(fx->context, FALSE))
		;
	g_main_context_pop_thread_default(fx->context);
	return NULL;
}

static void
write_users(Fx *fx, const gchar *text)
{
	g_autoptr(GError) error = NULL;

	g_assert_true(g_file_set_contents(fx->users_path, text, -1, &error));
	g_assert_no_error(error);
}

static void
fx_set_up(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocketAddress) address = NULL;
	g_autofree gchar *luxi = NULL;

	fx->config = data;
	fx->dir = g_dir_make_tmp("gnt-rapi-XXXXXX", &error);
	g_assert_no_error(error);
	fx->paths = gnt_paths_new(fx->dir);
	fx->users_path = g_build_filename(fx->dir, "users", NULL);
	write_users(fx, USERS_TEXT);

	luxi = g_build_filename(fx->dir, "luxi", NULL);
	address = g_unix_socket_address_new(luxi);
	fx->luxi_listener = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM,
					 G_SOCKET_PROTOCOL_DEFAULT, &error);
	g_assert_no_error(error);
	g_socket_set_listen_backlog(fx->luxi_listener, 256);
	g_assert_true(g_socket_bind(fx->luxi_listener, address, FALSE, &error));
	g_assert_true(g_socket_listen(fx->luxi_listener, &error));
	g_assert_no_error(error);

	if (fx->config->tls) {
		/* the cluster's PKI, as gnt-cluster init makes it */
		g_assert_true(gnt_tls_init_cluster(fx->paths, "cluster.example.com",
						   "node1.example.com", NULL, &error));
		g_assert_no_error(error);
		fx->certificate = gnt_tls_load_certificate(gnt_paths_get_rapi_cert(fx->paths),
							   gnt_paths_get_rapi_key(fx->paths),
							   &error);
		g_assert_no_error(error);
	}

	g_mutex_init(&fx->lock);
	g_cond_init(&fx->cond);
	fx->context = g_main_context_new();
	fx->loop = g_main_loop_new(fx->context, FALSE);
	fx->thread = g_thread_new("rapi-test-server", server_thread, fx);
	g_mutex_lock(&fx->lock);
	while (fx->port == 0)
		g_cond_wait(&fx->cond, &fx->lock);
	g_mutex_unlock(&fx->lock);
	fx->base = g_strdup_printf("%s://%s:%u", fx->config->tls ? "https" : "http",
				   fx->config->tls ? "localhost" : "127.0.0.1", fx->port);

	fx->session = soup_session_new_with_options("proxy-resolver", NULL, "timeout", 30, NULL);
	if (fx->config->tls) {
		g_autoptr(GTlsDatabase)
			ca = g_tls_file_database_new(gnt_paths_get_ca_cert(fx->paths), &error);

		g_assert_no_error(error);
		soup_session_set_tls_database(fx->session, ca);
	}
}

static gboolean
quit_cb(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

static void
fx_tear_down(Fx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

	g_clear_object(&fx->session);
	g_main_context_invoke(fx->context, quit_cb, fx->loop);
	g_thread_join(fx->thread);
	g_main_loop_unref(fx->loop);
	g_main_context_unref(fx->context);
	g_mutex_clear(&fx->lock);
	g_cond_clear(&fx->cond);
	g_clear_object(&fx->certificate);
	g_socket_close(fx->luxi_listener, NULL);
	g_clear_object(&fx->luxi_listener);
	g_assert_cmpint(system(cmd), ==, 0);
	g_clear_pointer(&fx->paths, gnt_paths_free);
	g_free(fx->users_path);
	g_free(fx->base);
	g_free(fx->dir);
}

/* ---- a polite client: SoupSession ---- */

typedef struct {
	guint status;
	gchar *body;
	gchar *content_type;
	gchar *www_authenticate;
	gchar *connection;
} Reply;

static void
reply_free(Reply *self)
{
	g_free(self->body);
	g_free(self->content_type);
	g_free(self->www_authenticate);
	g_free(self->connection);
	g_free(self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Reply, reply_free)

typedef struct {
	const gchar *user;
	const gchar *password;
	const gchar *authorization; /* as is, instead of user and password */
	const gchar *content_type;
	const gchar *body;
	gsize body_len; /* 0: strlen(body) */
} Extra;

static Reply *
send_request(Fx *fx, const gchar *method, const gchar *path, const Extra *extra)
{
	g_autofree gchar *uri = g_strconcat(fx->base, path, NULL);
	g_autoptr(SoupMessage) msg = soup_message_new(method, uri);
	g_autoptr(GBytes) body = NULL;
	g_autoptr(GError) error = NULL;
	SoupMessageHeaders *headers;
	Reply *reply = g_new0(Reply, 1);

	g_assert_nonnull(msg);
	headers = soup_message_get_request_headers(msg);
	if (extra != NULL && extra->user != NULL) {
		g_autofree gchar *pair = g_strconcat(extra->user, ":", extra->password, NULL);
		g_autofree gchar *encoded = g_base64_encode((const guchar *)pair, strlen(pair));
		g_autofree gchar *value = g_strconcat("Basic ", encoded, NULL);

		soup_message_headers_replace(headers, "Authorization", value);
	}
	if (extra != NULL && extra->authorization != NULL)
		soup_message_headers_replace(headers, "Authorization", extra->authorization);
	if (extra != NULL && extra->body != NULL) {
		g_autoptr(GBytes) request_body = g_bytes_new(
			extra->body, extra->body_len > 0 ? extra->body_len : strlen(extra->body));

		soup_message_set_request_body_from_bytes(
			msg,
			extra->content_type != NULL && extra->content_type[0] != '\0'
				? extra->content_type
				: "application/json",
			request_body);
		if (extra->content_type != NULL && extra->content_type[0] == '\0')
			soup_message_headers_remove(headers, "Content-Type");
	}
	body = soup_session_send_and_read(fx->session, msg, NULL, &error);
	g_assert_no_error(error);
	reply->status = soup_message_get_status(msg);
	reply->body = g_strndup(g_bytes_get_data(body, NULL), g_bytes_get_size(body));
	headers = soup_message_get_response_headers(msg);
	reply->content_type = g_strdup(soup_message_headers_get_one(headers, "Content-Type"));
	reply->www_authenticate =
		g_strdup(soup_message_headers_get_one(headers, "WWW-Authenticate"));
	reply->connection = g_strdup(soup_message_headers_get_one(headers, "Connection"));
	return reply;
}

static JsonObject *
reply_object(Reply *reply)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = json_from_string(reply->body, &error);

	g_assert_no_error(error);
	g_assert_true(JSON_NODE_HOLDS_OBJECT(node));
	return json_object_ref(json_node_get_object(node));
}

/* Ganeti's error body: {"code", "message", "explain"} */
static void
assert_error(Reply *reply, guint status, const gchar *message, const gchar *explain)
{
	g_autoptr(JsonObject) obj = NULL;

	if (reply->status != status)
		g_printerr("status %u, body %s\n", reply->status, reply->body);
	g_assert_cmpuint(reply->status, ==, status);
	g_assert_cmpstr(reply->content_type, ==, "application/json");
	obj = reply_object(reply);
	g_assert_cmpint(json_object_get_int_member(obj, "code"), ==, status);
	g_assert_cmpstr(json_object_get_string_member(obj, "message"), ==, message);
	if (explain != NULL)
		g_assert_cmpstr(json_object_get_string_member(obj, "explain"), ==, explain);
	g_assert_cmpuint(json_object_get_size(obj), ==, 3);
}

static void
assert_ok(Reply *reply, const gchar *body)
{
	if (reply->status != 200)
		g_printerr("status %u, body %s\n", reply->status, reply->body);
	g_assert_cmpuint(reply->status, ==, 200);
	g_assert_cmpstr(reply->content_type, ==, "application/json");
	g_assert_true(g_str_has_suffix(reply->body, "\n"));
	if (body != NULL)
		g_assert_cmpstr(reply->body, ==, body);
}

static void
expect_error(Fx *fx, const gchar *method, const gchar *path, const Extra *extra, guint status,
	     const gchar *message, const gchar *explain)
{
	g_autoptr(Reply) reply = send_request(fx, method, path, extra);

	assert_error(reply, status, message, explain);
}

static void
expect_ok(Fx *fx, const gchar *method, const gchar *path, const Extra *extra, const gchar *body)
{
	g_autoptr(Reply) reply = send_request(fx, method, path, extra);

	assert_ok(reply, body);
}

/* ---- a rude client: raw sockets (plain HTTP) ---- */

static GSocket *
raw_connect(Fx *fx)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, (guint16)fx->port);
	GSocket *socket = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
				       G_SOCKET_PROTOCOL_TCP, &error);

	g_assert_no_error(error);
	g_assert_true(g_socket_connect(socket, address, NULL, &error));
	g_assert_no_error(error);
	g_socket_set_timeout(socket, 10);
	return socket;
}

static void
raw_send(GSocket *socket, const gchar *data, gssize len)
{
	g_autoptr(GError) error = NULL;
	gsize total = len < 0 ? strlen(data) : (gsize)len;
	gsize done = 0;

	while (done < total) {
		gssize n = g_socket_send(socket, data + done, total - done, NULL, &error);

		g_assert_no_error(error);
		done += (gsize)n;
	}
}

/* Reads one response head only (the answer to a HEAD). */
static gchar *
raw_read_head(GSocket *socket)
{
	g_autoptr(GString) in = g_string_new(NULL);

	while (strstr(in->str, "\r\n\r\n") == NULL) {
		g_autoptr(GError) error = NULL;
		gchar c;
		gssize n = g_socket_receive(socket, &c, 1, NULL, &error);

		g_assert_no_error(error);
		if (n == 0)
			return NULL;
		g_string_append_c(in, c);
	}
	return g_strdup(in->str);
}

/* Reads one response (head and Content-Length body); NULL at EOF before
 * any byte. */
static gchar *
raw_read_response(GSocket *socket)
{
	/* the head byte by byte, then exactly its body: a pipelined answer
	 * after it stays in the socket for the next call */
	g_autofree gchar *head = raw_read_head(socket);
	const gchar *length;
	gsize want;
	GString *out;

	if (head == NULL)
		return NULL;
	length = strstr(head, "Content-Length: ");
	g_assert_nonnull(length);
	want = (gsize)g_ascii_strtoull(length + 16, NULL, 10);
	out = g_string_new(head);
	while (want > 0) {
		g_autoptr(GError) error = NULL;
		gchar buf[4096];
		gssize n = g_socket_receive(socket, buf, MIN(sizeof(buf), want), NULL, &error);

		g_assert_no_error(error);
		g_assert_cmpint(n, >, 0);
		g_string_append_len(out, buf, n);
		want -= (gsize)n;
	}
	return g_string_free(out, FALSE);
}

/* Whether the server closed: EOF within @timeout_s (bytes before it are
 * dropped). */
static gboolean
raw_wait_closed(GSocket *socket, guint timeout_s)
{
	g_socket_set_timeout(socket, timeout_s);
	for (;;) {
		g_autoptr(GError) error = NULL;
		gchar buf[4096];
		gssize n = g_socket_receive(socket, buf, sizeof(buf), NULL, &error);

		if (n == 0 || g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED) ||
		    g_error_matches(error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE))
			return TRUE;
		if (n < 0)
			return FALSE; /* timed out */
	}
}

static guint
status_of(const gchar *response)
{
	g_assert_nonnull(response);
	g_assert_true(g_str_has_prefix(response, "HTTP/1."));
	return (guint)g_ascii_strtoull(response + 9, NULL, 10);
}

/* ---- tests: TLS and clients ---- */

static void
test_tls_verified(Fx *fx, gconstpointer data)
{
	g_autoptr(Reply) reply = send_request(fx, "GET", "/version", NULL);
	g_autofree gchar *by_ip = g_strdup_printf("https://127.0.0.1:%u/version", fx->port);
	g_autoptr(SoupMessage) msg = soup_message_new("GET", by_ip);
	g_autoptr(GBytes) body = NULL;
	g_autoptr(SoupSession) untrusting = NULL;
	g_autoptr(SoupMessage) refused = soup_message_new("GET", by_ip);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *curl = g_find_program_in_path("curl");

	/* as localhost and as 127.0.0.1, verified against the cluster CA */
	assert_ok(reply, "2\n");
	body = soup_session_send_and_read(fx->session, msg, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(soup_message_get_status(msg), ==, 200);
	/* and not trusted by a client without the cluster CA */
	untrusting = soup_session_new_with_options("proxy-resolver", NULL, NULL);
	g_clear_pointer(&body, g_bytes_unref);
	body = soup_session_send_and_read(untrusting, refused, NULL, &error);
	g_assert_null(body);
	g_assert_error(error, G_TLS_ERROR, G_TLS_ERROR_BAD_CERTIFICATE);
	g_clear_error(&error);

	/* libcurl with SSL_VERIFYPEER and SSL_VERIFYHOST, as the Python client
	 * does with GenericCurlConfig(cafile=...) */
	if (curl == NULL) {
		g_test_message("curl not installed: its part skipped");
		return;
	}
	for (guint i = 0; i < 2; i++) {
		g_autofree gchar *url = g_strdup_printf(
			"https://%s:%u/version", i == 0 ? "localhost" : "127.0.0.1", fx->port);
		const gchar *argv[] = {curl, "-sS", "--cacert", gnt_paths_get_ca_cert(fx->paths),
				       url,  NULL};
		g_autofree gchar *out = NULL;
		g_autofree gchar *err = NULL;
		gint status = 0;

		g_assert_true(g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
					   &out, &err, &status, &error));
		g_assert_no_error(error);
		if (status != 0)
			g_printerr("curl: %s\n", err);
		g_assert_cmpint(status, ==, 0);
		g_assert_cmpstr(out, ==, "2\n");
	}
}

/* ---- tests: authentication and access (doc/rapi.md) ---- */

static void
test_auth(Fx *fx, gconstpointer data)
{
	static const gchar body[] = "{\"a\": 1}";
	const Extra none = {.body = body};
	const Extra wrong = {.user = "writer", .password = "nope", .body = body};
	const Extra unknown = {.user = "ghost", .password = "wpw"};
	const Extra reader = {.user = "reader", .password = "rpw", .body = body};
	const Extra writer = {.user = "writer", .password = "wpw", .body = body};
	const Extra both = {.user = "both", .password = "bpw"};
	const Extra plain = {.user = "plain", .password = "ppw"};
	const Extra digest = {.authorization = "Digest username=\"writer\""};
	const Extra basic_empty = {.authorization = "Basic"};
	const Extra garbage = {.authorization = "Basic !!!not-base64!!!"};
	const Extra no_colon = {.authorization = "Basic d3JpdGVy"}; /* "writer" */
	const gchar *const unauthorized = "No permission -- see authorization schemes";
	g_autoptr(Reply) r = NULL;
	g_autoptr(JsonObject) obj = NULL;

	/* public GET: anyone */
	r = send_request(fx, "GET", "/2/echo", NULL);
	assert_ok(r, NULL);
	obj = reply_object(r);
	g_assert_true(json_object_get_null_member(obj, "user"));
	g_clear_pointer(&obj, json_object_unref);
	g_clear_pointer(&r, reply_free);

	/* writing without a user: 401 with the challenge */
	r = send_request(fx, "PUT", "/2/echo", &none);
	assert_error(r, 401, "Unauthorized", unauthorized);
	g_assert_cmpstr(r->www_authenticate, ==, "Basic realm=\"Ganeti Remote API\"");
	g_clear_pointer(&r, reply_free);
	/* a bad password is refused even where no user is needed */
	r = send_request(fx, "GET", "/2/echo", &wrong);
	assert_error(r, 401, "Unauthorized", unauthorized);
	g_assert_cmpstr(r->www_authenticate, ==, "Basic realm=\"Ganeti Remote API\"");
	g_clear_pointer(&r, reply_free);
	expect_error(fx, "GET", "/version", &unknown, 401, "Unauthorized", NULL);
	/* Digest is not supported: no credentials */
	expect_error(fx, "GET", "/version", &digest, 401, "Unauthorized", NULL);
	expect_error(fx, "GET", "/version", &basic_empty, 400,
		     "Basic authentication requires credentials", NULL);
	expect_error(fx, "GET", "/version", &garbage, 401, "Unauthorized", NULL);
	expect_error(fx, "GET", "/version", &no_colon, 401, "Unauthorized", NULL);

	/* a reader may not write: 403 */
	expect_error(fx, "PUT", "/2/echo", &reader, 403, "Forbidden",
		     "Request forbidden -- authorization will not help");
	/* every method but GET needs write, whatever the route says */
	expect_error(fx, "DELETE", "/2/echo", &reader, 403, "Forbidden", NULL);
	expect_error(fx, "DELETE", "/2/echo", NULL, 401, "Unauthorized", NULL);
	r = send_request(fx, "PUT", "/2/echo", &writer);
	assert_ok(r, NULL);
	obj = reply_object(r);
	g_assert_cmpstr(json_object_get_string_member(obj, "user"), ==, "writer");
	g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(obj, "body"), "a"),
			==, 1);
	g_assert_true(json_object_get_boolean_member(obj, "luxi"));
	g_clear_pointer(&obj, json_object_unref);
	g_clear_pointer(&r, reply_free);

	/* read access: readers and writers, not anonymous or option-less users */
	expect_error(fx, "GET", "/2/secret", NULL, 401, "Unauthorized", NULL);
	expect_error(fx, "GET", "/2/secret", &plain, 403, "Forbidden", NULL);
	expect_ok(fx, "GET", "/2/secret", &reader, NULL);
	expect_ok(fx, "GET", "/2/secret", &writer, NULL);
	/* a GET that needs write (jobs/ID/wait in Ganeti) */
	expect_ok(fx, "GET", "/2/wait", &both, NULL);
	expect_error(fx, "GET", "/2/wait", &reader, 403, "Forbidden", NULL);
	/* a valid user on a public resource */
	r = send_request(fx, "GET", "/2/echo", &plain);
	assert_ok(r, NULL);
	obj = reply_object(r);
	g_assert_cmpstr(json_object_get_string_member(obj, "user"), ==, "plain");
}

static void
test_require_authentication(Fx *fx, gconstpointer data)
{
	const Extra plain = {.user = "plain", .password = "ppw"};
	g_autoptr(Reply) r = send_request(fx, "GET", "/version", NULL);

	assert_error(r, 401, "Unauthorized", NULL);
	g_assert_cmpstr(r->www_authenticate, ==, "Basic realm=\"Ganeti Remote API\"");
	g_clear_pointer(&r, reply_free);
	/* any user will do, even one without options */
	r = send_request(fx, "GET", "/version", &plain);
	assert_ok(r, "2\n");
}

/* The users file is read again when it changes, without a signal; a
 * broken one keeps the users loaded before. */
static void
test_users_reload(Fx *fx, gconstpointer data)
{
	const Extra newcomer = {.user = "newcomer", .password = "npw", .body = "{}"};
	const Extra writer = {.user = "writer", .password = "wpw", .body = "{}"};
	g_autoptr(Reply) r = send_request(fx, "PUT", "/2/echo", &newcomer);

	assert_error(r, 401, "Unauthorized", NULL);
	g_clear_pointer(&r, reply_free);
	write_users(fx, "newcomer npw write\n");
	expect_ok(fx, "PUT", "/2/echo", &newcomer, NULL);
	expect_error(fx, "PUT", "/2/echo", &writer, 401, "Unauthorized", NULL);

	/* broken: newcomer stays, and the server logs why */
	g_test_expect_message("gnt-rapi", G_LOG_LEVEL_WARNING,
			      "*line 1: user 'newcomer' has no password*keeping the 1 users "
			      "loaded before");
	write_users(fx, "newcomer\n");
	r = send_request(fx, "PUT", "/2/echo", &newcomer);
	g_test_assert_expected_messages();
	assert_ok(r, NULL);
	g_clear_pointer(&r, reply_free);
	/* removed: nobody */
	g_assert_cmpint(g_unlink(fx->users_path), ==, 0);
	r = send_request(fx, "PUT", "/2/echo", &newcomer);
	assert_error(r, 401, "Unauthorized", NULL);
}

/* ---- tests: bodies ---- */

static void
test_bodies(Fx *fx, gconstpointer data)
{
	const Extra text = {
		.user = "writer", .password = "wpw", .body = "{}", .content_type = "text/plain"};
	const Extra missing_type = {
		.user = "writer", .password = "wpw", .body = "{}", .content_type = ""};
	const Extra bad_json = {.user = "writer", .password = "wpw", .body = "{\"a\": "};
	const Extra charset = {.user = "writer",
			       .password = "wpw",
			       .body = "[1, \"\\u00e9\"]",
			       .content_type = "Application/JSON; charset=utf-8"};
	const Extra scalar = {.user = "writer", .password = "wpw", .body = "null"};
	const Extra get_body = {.body = "{\"fields\": [\"status\"]}"};
	g_autoptr(Reply) r = send_request(fx, "PUT", "/2/echo", &text);
	g_autoptr(JsonObject) obj = NULL;
	JsonArray *array;

	assert_error(r, 415, "Unsupported Media Type", "Entity body in unsupported format");
	g_clear_pointer(&r, reply_free);
	expect_error(fx, "PUT", "/2/echo", &missing_type, 415, "Unsupported Media Type", NULL);
	expect_error(fx, "PUT", "/2/echo", &bad_json, 400, "Unable to parse JSON data",
		     "Bad request syntax or unsupported method");

	r = send_request(fx, "PUT", "/2/echo", &charset);
	assert_ok(r, NULL);
	obj = reply_object(r);
	array = json_object_get_array_member(obj, "body");
	g_assert_cmpint(json_array_get_int_element(array, 0), ==, 1);
	g_assert_cmpstr(json_array_get_string_element(array, 1), ==, "\xc3\xa9");
	g_clear_pointer(&obj, json_object_unref);
	g_clear_pointer(&r, reply_free);

	r = send_request(fx, "PUT", "/2/echo", &scalar);
	assert_ok(r, NULL);
	obj = reply_object(r);
	g_assert_true(json_object_get_null_member(obj, "body"));
	g_clear_pointer(&obj, json_object_unref);
	g_clear_pointer(&r, reply_free);

	/* a GET with a body: read and decoded (jobs/ID/wait) */
	r = send_request(fx, "GET", "/2/echo?bulk=1&tag=a&tag=b%20c&dry-run=1&empty", &get_body);
	assert_ok(r, NULL);
	obj = reply_object(r);
	g_assert_cmpstr(json_array_get_string_element(
				json_object_get_array_member(
					json_object_get_object_member(obj, "body"), "fields"),
				0),
			==, "status");
	array = json_object_get_array_member(json_object_get_object_member(obj, "query"), "tag");
	g_assert_cmpuint(json_array_get_length(array), ==, 2);
	g_assert_cmpstr(json_array_get_string_element(array, 0), ==, "a");
	g_assert_cmpstr(json_array_get_string_element(array, 1), ==, "b c");
	g_assert_cmpstr(json_array_get_string_element(
				json_object_get_array_member(
					json_object_get_object_member(obj, "query"), "dry-run"),
				0),
			==, "1");
	g_assert_cmpstr(json_array_get_string_element(
				json_object_get_array_member(
					json_object_get_object_member(obj, "query"), "empty"),
				0),
			==, "");
	g_assert_cmpstr(json_object_get_string_member(obj, "path"), ==, "/2/echo");
}

/* Over 10 MiB: 413 at once, and the server goes on serving. */
static void
test_too_large(Fx *fx, gconstpointer data)
{
	gsize len = 11 * 1024 * 1024;
	g_autofree gchar *huge = g_malloc(len);
	const Extra big = {.user = "writer", .password = "wpw", .body = huge, .body_len = len};
	const Extra unauthenticated = {.body = huge, .body_len = len};
	g_autoptr(Reply) r = NULL;

	memset(huge, ' ', len);
	huge[0] = '[';
	huge[len - 1] = ']';
	r = send_request(fx, "PUT", "/2/echo", &big);
	assert_error(r, 413, "Request body larger than 10485760 bytes", "Entity is too large");
	g_assert_cmpstr(r->connection, ==, "close");
	g_clear_pointer(&r, reply_free);
	/* exactly 10 MiB is fine (read in many pieces) */
	{
		const Extra limit = {.user = "writer",
				     .password = "wpw",
				     .body = huge,
				     .body_len = GNT_RAPI_MAX_BODY};

		huge[GNT_RAPI_MAX_BODY - 1] = ']';
		expect_ok(fx, "PUT", "/2/echo", &limit, NULL);
	}
	/* the size is checked before anything else */
	expect_error(fx, "PUT", "/2/echo", &unauthenticated, 413,
		     "Request body larger than 10485760 bytes", NULL);
	r = send_request(fx, "GET", "/version", NULL);
	assert_ok(r, "2\n");
}

/* ---- tests: paths, methods and errors ---- */

static void
test_routes_and_errors(Fx *fx, gconstpointer data)
{
	g_autoptr(Reply) r = send_request(fx, "GET", "/2/nothing", NULL);
	g_autoptr(JsonObject) obj = NULL;
	g_autoptr(JsonNode) big = NULL;
	g_autoptr(GError) error = NULL;

	assert_error(r, 404, "Not Found", "Nothing matches the given URI");
	g_clear_pointer(&r, reply_free);
	expect_error(fx, "POST", "/version", NULL, 501,
		     "Method POST is unsupported for path /version",
		     "Server does not support this operation");
	r = send_request(fx, "HEAD", "/version", NULL);
	g_assert_cmpuint(r->status, ==, 501);
	g_clear_pointer(&r, reply_free);

	/* variable parts: names and numbers */
	r = send_request(fx, "GET", "/2/things/web-1.example_com", NULL);
	assert_ok(r, NULL);
	obj = reply_object(r);
	g_assert_cmpstr(json_array_get_string_element(json_object_get_array_member(obj, "args"), 0),
			==, "web-1.example_com");
	g_clear_pointer(&obj, json_object_unref);
	g_clear_pointer(&r, reply_free);
	r = send_request(fx, "GET", "/2/things/a%2Db", NULL); /* escaped '-' */
	assert_ok(r, NULL);
	g_clear_pointer(&r, reply_free);
	expect_ok(fx, "GET", "/2/jobs/123", NULL, NULL);
	expect_error(fx, "GET", "/2/jobs/12a", NULL, 404, "Not Found", NULL);
	expect_error(fx, "GET", "/2/things/a%20b", NULL, 404, "Not Found", NULL);
	expect_error(fx, "GET", "/2/things/", NULL, 404, "Not Found", NULL);
	expect_error(fx, "GET", "/2/things/x/tags", NULL, 501,
		     "Method GET is unsupported for path /2/things/x/tags", NULL);
	/* not implemented: 501 naming the resource, before authentication
	 * (this request has no user, and PUT needs one) */
	expect_error(fx, "PUT", "/2/things/x/migrate", NULL, 501,
		     "Not implemented by Gantry: PUT /2/things/{name}/migrate (Ganeti resource "
		     "R_2_things_name_migrate)",
		     "Server does not support this operation");
	expect_error(fx, "GET", "/2/things/x/migrate", NULL, 501,
		     "Method GET is unsupported for path /2/things/x/migrate", NULL);

	/* the GError -> status mapping of gnt-rapi-route.h; messages HTML-escaped */
	r = send_request(fx, "GET", "/2/fail/invalid", NULL);
	assert_error(r, 400, "bad &lt;value&gt; &amp; &quot;more&quot; &#x27;here&#x27;",
		     "Bad request syntax or unsupported method");
	g_clear_pointer(&r, reply_free);
	expect_error(fx, "GET", "/2/fail/exists", NULL, 400, "Tag exists", NULL);
	r = send_request(fx, "GET", "/2/fail/notfound", NULL);
	assert_error(r, 404, "Instance &#x27;x&#x27; not found", NULL);
	g_clear_pointer(&r, reply_free);
	expect_error(fx, "GET", "/2/fail/busy", NULL, 503, "Queue full",
		     "The server cannot process the request due to a high load");
	expect_error(fx, "GET", "/2/fail/other", NULL, 500, "something broke",
		     "Server got itself in trouble");
	r = send_request(fx, "GET", "/2/fail/silent", NULL);
	g_assert_cmpuint(r->status, ==, 500);
	g_clear_pointer(&r, reply_free);

	/* a large answer (written after its head, not copied) */
	r = send_request(fx, "GET", "/2/big", NULL);
	assert_ok(r, NULL);
	big = json_from_string(r->body, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(json_array_get_length(json_node_get_array(big)), ==, BIG_ITEMS);
	g_assert_cmpstr(json_array_get_string_element(json_node_get_array(big), BIG_ITEMS - 1), ==,
			"item-04999");
}

static void
test_no_master(Fx *fx, gconstpointer data)
{
	g_autoptr(Reply) r = send_request(fx, "GET", "/version", NULL);
	g_autoptr(JsonObject) obj = NULL;

	g_assert_cmpuint(r->status, ==, 502);
	obj = reply_object(r);
	g_assert_cmpstr(json_object_get_string_member(obj, "explain"), ==,
			"Invalid responses from another server/proxy");
	g_assert_nonnull(strstr(json_object_get_string_member(obj, "message"),
				"cannot connect to the master daemon"));
}

/* ---- tests: what no polite client sends (plain HTTP, raw sockets) ---- */

typedef struct {
	const gchar *request;
	guint status;
	gsize len;	  /* 0: strlen(request) */
	gboolean no_body; /* the answer has headers only (HEAD) */
} OddCase;

static void
test_odd_requests(Fx *fx, gconstpointer data)
{
	g_autofree gchar *long_path = g_strnfill(70 * 1024, 'a');
	g_autofree gchar *long_request =
		g_strdup_printf("GET /%s HTTP/1.1\r\nHost: x\r\n\r\n", long_path);
	g_autofree gchar *long_name =
		g_strdup_printf("GET /2/nothing/%.*s HTTP/1.1\r\nHost: x\r\n\r\n", 8000, long_path);
	static const gchar nul[] = "GET /ver\0sion HTTP/1.1\r\nHost: x\r\n\r\n";
	/* a TLS ClientHello's start, then some text */
	static const gchar garbage[] =
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 garbage\r\n\r\n";
	const OddCase cases[] = {
		{"GET /version HTTP/1.1\r\n\r\n", 400}, /* no Host */
		{"GET /version HTTP/1.0\r\n\r\n", 200},
		{"GET /version HTTP/3.0\r\nHost: x\r\n\r\n", 505},
		{"GET /../version HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET /2/things/.. HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET /2/things/%2e%2e HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET /2/things/a%00b HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET /2/things/a%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET /2/things/%ff%fe HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET //version HTTP/1.1\r\nHost: x\r\n\r\n", 404},
		{"GET /version/ HTTP/1.1\r\nHost: x\r\n\r\n", 404},
		{"GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET http://x/version?a=b HTTP/1.1\r\nHost: x\r\n\r\n", 200},
		{"FROB /version HTTP/1.1\r\nHost: x\r\n\r\n", 501},
		{"HEAD /version HTTP/1.1\r\nHost: x\r\n\r\n", 501, 0, TRUE},
		{"GET /version HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
		{"PUT /2/echo HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400},
		{"PUT /2/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
		 400},
		/* strict framing (http/gnt-http-head.h): what a proxy may read otherwise */
		{"GET /version HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n", 400},
		{"GET /version HTTP/1.1\r\nHost : x\r\n\r\n", 400},
		{"GET /version HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  folded\r\n\r\n", 400},
		{"PUT /2/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
		 "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		 400},
		{"GET /2/jobs/7%2f..%2f..%2fversion HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET /2/jobs/7%2F8 HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET /version HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 2\r\n\r\n", 400},
		{garbage, 400, sizeof(garbage) - 1},
		{"\r\n\r\nGET /version HTTP/1.1\r\nHost: x\r\n\r\n", 200}, /* leading empty lines */
		{nul, 400, sizeof(nul) - 1},
		{long_request, 431},
		{long_name, 404},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GSocket) socket = raw_connect(fx);
		g_autofree gchar *response = NULL;
		gsize len = cases[i].len > 0 ? cases[i].len : strlen(cases[i].request);

		raw_send(socket, cases[i].request, (gssize)len);
		response = cases[i].no_body ? raw_read_head(socket) : raw_read_response(socket);
		if (response == NULL || status_of(response) != cases[i].status)
			g_error("case %u: expected %u, got %s", i, cases[i].status,
				response != NULL ? response : "(closed)");
		if (cases[i].no_body) {
			/* the length of the body it would have, and nothing after */
			g_assert_nonnull(strstr(response, "Content-Length: "));
			raw_send(socket, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n", -1);
			g_free(response);
			response = raw_read_response(socket);
			g_assert_cmpuint(status_of(response), ==, 200);
		} else if (cases[i].status != 200) {
			/* every error is Ganeti's JSON body */
			g_assert_nonnull(strstr(response, "Content-Type: application/json\r\n"));
			g_assert_nonnull(strstr(response, "\r\n\r\n{\"code\": "));
		}
	}
	/* and the server is fine */
	{
		g_autoptr(Reply) r = send_request(fx, "GET", "/version", NULL);
		assert_ok(r, "2\n");
	}
}

static void
test_keep_alive_and_pipelining(Fx *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = raw_connect(fx);
	g_autofree gchar *first = NULL;
	g_autofree gchar *second = NULL;
	g_autofree gchar *third = NULL;
	gint64 start;

	/* two requests in one write: two answers, in order */
	raw_send(socket,
		 "GET /version HTTP/1.1\r\nHost: x\r\n\r\n"
		 "GET /2/jobs/7 HTTP/1.1\r\nHost: x\r\n\r\n",
		 -1);
	first = raw_read_response(socket);
	second = raw_read_response(socket);
	g_assert_cmpuint(status_of(first), ==, 200);
	g_assert_true(g_str_has_suffix(first, "\r\n\r\n2\n"));
	g_assert_cmpuint(status_of(second), ==, 200);
	g_assert_nonnull(strstr(second, "\"args\":[\"7\"]"));
	/* HTTP/1.0 with keep-alive is answered in kind */
	raw_send(socket, "GET /version HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", -1);
	third = raw_read_response(socket);
	g_assert_true(g_str_has_prefix(third, "HTTP/1.0 200 OK\r\n"));
	g_assert_nonnull(strstr(third, "Connection: keep-alive\r\n"));
	/* idle: closed after the keep-alive timeout (1 s here) */
	start = g_get_monotonic_time();
	g_assert_true(raw_wait_closed(socket, 10));
	g_assert_cmpint(g_get_monotonic_time() - start, >=, G_USEC_PER_SEC / 2);

	/* Connection: close is honoured */
	g_clear_object(&socket);
	socket = raw_connect(fx);
	raw_send(socket, "GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", -1);
	g_clear_pointer(&first, g_free);
	first = raw_read_response(socket);
	g_assert_nonnull(strstr(first, "Connection: close\r\n"));
	g_assert_true(raw_wait_closed(socket, 1));
}

static void
test_chunked_and_continue(Fx *fx, gconstpointer data)
{
	g_autofree gchar *auth = g_base64_encode((const guchar *)"writer:wpw", 10);
	g_autofree gchar *head = g_strdup_printf("PUT /2/echo HTTP/1.1\r\nHost: x\r\n"
						 "Authorization: Basic %s\r\n"
						 "Content-Type: application/json\r\n",
						 auth);
	g_autofree gchar *chunked = g_strconcat(head,
						"Transfer-Encoding: chunked\r\n\r\n"
						"4\r\n{\"a\"\r\n"
						"5;ext=1\r\n: [1,\r\n"
						"3\r\n 2]\r\n"
						"1\r\n}\r\n"
						"0\r\nTrailer: x\r\n\r\n",
						NULL);
	g_autofree gchar *expecting =
		g_strconcat(head, "Content-Length: 9\r\nExpect: 100-continue\r\n\r\n", NULL);
	g_autofree gchar *too_big = g_strconcat(head,
						"Transfer-Encoding: chunked\r\n\r\n"
						"A00001\r\n",
						NULL);
	g_autoptr(GSocket) socket = raw_connect(fx);
	g_autofree gchar *response = NULL;
	gchar buf[64] = {0};
	g_autoptr(GError) error = NULL;
	gssize n;

	raw_send(socket, chunked, -1);
	response = raw_read_response(socket);
	g_assert_cmpuint(status_of(response), ==, 200);
	g_assert_nonnull(strstr(response, "\"body\":{\"a\":[1,2]}"));
	g_clear_pointer(&response, g_free);

	/* Expect: 100-continue: the interim answer, then the body */
	raw_send(socket, expecting, -1);
	n = g_socket_receive(socket, buf, strlen("HTTP/1.1 100 Continue\r\n\r\n"), NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpint(n, ==, (gssize)strlen("HTTP/1.1 100 Continue\r\n\r\n"));
	g_assert_cmpstr(buf, ==, "HTTP/1.1 100 Continue\r\n\r\n");
	raw_send(socket, "{\"b\": 2}\n", -1);
	response = raw_read_response(socket);
	g_assert_cmpuint(status_of(response), ==, 200);
	g_assert_nonnull(strstr(response, "\"body\":{\"b\":2}"));
	g_clear_pointer(&response, g_free);

	/* a chunk announcing more than 10 MiB: 413 before it is sent */
	raw_send(socket, too_big, -1);
	response = raw_read_response(socket);
	g_assert_cmpuint(status_of(response), ==, 413);
	g_assert_true(raw_wait_closed(socket, 5));
}

/* A client that sends half a request and stalls holds nothing for long:
 * others are served meanwhile, and it is cut off after the request
 * timeout (1 s here). */
static void
test_slow_client(Fx *fx, gconstpointer data)
{
	g_autoptr(GSocket) slow = raw_connect(fx);
	g_autoptr(GSocket) slow_body = raw_connect(fx);
	g_autoptr(GSocket) silent = raw_connect(fx);
	gint64 start = g_get_monotonic_time();
	gint64 elapsed;

	raw_send(slow, "GET /version HTTP/1.1\r\nHo", -1);
	raw_send(slow_body, "PUT /2/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{", -1);
	for (guint i = 0; i < 5; i++) {
		g_autoptr(Reply) r = send_request(fx, "GET", "/version", NULL);
		assert_ok(r, "2\n");
	}
	g_assert_true(raw_wait_closed(slow, 10));
	g_assert_true(raw_wait_closed(slow_body, 10));
	g_assert_true(raw_wait_closed(silent, 10));
	elapsed = g_get_monotonic_time() - start;
	g_assert_cmpint(elapsed, >=, G_USEC_PER_SEC * 3 / 4);
	g_assert_cmpint(elapsed, <, 5 * G_USEC_PER_SEC);
}

/* --max-clients 2: a third connection closes the oldest idle one to get
 * in; with none idle, the oldest that has not sent a whole head. */
static void
test_max_clients(Fx *fx, gconstpointer data)
{
	g_autoptr(GSocket) a = raw_connect(fx);
	g_autoptr(GSocket) b = raw_connect(fx);
	g_autoptr(GSocket) c = NULL;
	g_autoptr(GSocket) d = NULL;
	g_autoptr(GSocket) e = NULL;
	g_autofree gchar *response = NULL;

	raw_send(a, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n", -1);
	response = raw_read_response(a);
	g_assert_cmpuint(status_of(response), ==, 200);
	g_clear_pointer(&response, g_free);
	raw_send(b, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n", -1);
	response = raw_read_response(b);
	g_clear_pointer(&response, g_free);
	/* a and b are idle now; c gets in, a (idle longest) goes */
	c = raw_connect(fx);
	raw_send(c, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n", -1);
	response = raw_read_response(c);
	g_assert_cmpuint(status_of(response), ==, 200);
	g_clear_pointer(&response, g_free);
	g_assert_true(raw_wait_closed(a, 5));
	g_clear_object(&b);
	g_clear_object(&c);

	/* two connections that never finish their heads: a new one closes
	 * the older at once, rather than wait for its request timeout */
	d = raw_connect(fx);
	raw_send(d, "GET /version HTTP/1.1\r\n", -1);
	e = raw_connect(fx);
	raw_send(e, "GET /version HTTP/1.1\r\n", -1);
	g_clear_object(&a);
	a = raw_connect(fx);
	raw_send(a, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n", -1);
	response = raw_read_response(a);
	g_assert_cmpuint(status_of(response), ==, 200);
	g_assert_true(raw_wait_closed(d, 5));
}

/* ---- gantry-rapi itself, on a cluster gnt-cluster init made ---- */

static gchar *
run_ok(const gchar *const *argv, const gchar *root)
{
	g_auto(GStrv) envp = g_environ_setenv(g_get_environ(), "GANTRY_ROOT", root, TRUE);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *err = NULL;
	gchar *out = NULL;
	gint status = 0;

	g_assert_true(g_spawn_sync(NULL, (gchar **)argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &out,
				   &err, &status, &error));
	g_assert_no_error(error);
	if (!g_spawn_check_wait_status(status, NULL))
		g_error("%s failed: %s%s", argv[0], out, err);
	return out;
}

static void
test_daemon(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *root = g_dir_make_tmp("gnt-rapid-XXXXXX", &error);
	g_autoptr(GntPaths) paths = gnt_paths_new(root);
	const gchar *cluster = g_getenv("GNT_TEST_GNT_CLUSTER");
	const gchar *daemons = g_getenv("GNT_TEST_GANTRY_DAEMONS");
	const gchar *init[] = {cluster,		  "init", "--noded-port",	 "0",
			       "--master-netdev", "lo",	  "cluster.example.com", NULL};
	const gchar *status_argv[] = {daemons, "status", NULL};
	const gchar *destroy[] = {cluster, "destroy", "--yes-do-it", NULL};
	g_autofree gchar *port_file =
		g_build_filename(gnt_paths_get_data_dir(paths), "rapi-port", NULL);
	g_autofree gchar *port = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", root);
	g_autoptr(GTlsDatabase) ca = NULL;
	g_autoptr(SoupSession) session =
		soup_session_new_with_options("proxy-resolver", NULL, "timeout", 60, NULL);
	Fx fx = {0};

	g_assert_no_error(error);
	g_free(run_ok(init, root));
	g_assert_true(g_file_get_contents(port_file, &port, NULL, &error));
	g_strstrip(port);
	out = run_ok(status_argv, root);
	g_assert_nonnull(strstr(out, "gantry-rapi: running (pid "));

	/* the certificate was made at init, for the master's names */
	ca = g_tls_file_database_new(gnt_paths_get_ca_cert(paths), &error);
	g_assert_no_error(error);
	soup_session_set_tls_database(session, ca);
	fx.session = session;
	fx.base = g_strdup_printf("https://localhost:%s", port);
	fx.users_path = g_strdup(gnt_paths_get_rapi_users(paths));
	{
		const Extra writer = {.user = "ops", .password = "s3cret"};
		g_autoptr(Reply) r = send_request(&fx, "GET", "/2/info", NULL);
		g_autoptr(JsonObject) info = NULL;
		g_autofree gchar *dir = g_path_get_dirname(fx.users_path);

		assert_ok(r, NULL);
		info = reply_object(r);
		g_assert_cmpstr(json_object_get_string_member(info, "name"), ==,
				"cluster.example.com");
		g_clear_pointer(&r, reply_free);

		/* no users file yet: writing is refused; one written is used at once */
		r = send_request(&fx, "PUT", "/2/tags?tag=rapi-test", &writer);
		assert_error(r, 401, "Unauthorized", NULL);
		g_clear_pointer(&r, reply_free);
		g_assert_cmpint(g_mkdir_with_parents(dir, 0750), ==, 0);
		write_users(&fx, "ops {cleartext}s3cret write\n");
		r = send_request(&fx, "PUT", "/2/tags?tag=rapi-test", &writer);
		assert_ok(r, NULL);
		/* the job ID, a bare integer */
		g_assert_true(g_ascii_isdigit(r->body[0]));
	}

	g_free(run_ok(destroy, root));
	{
		g_autofree gchar *pid_file = gnt_paths_dup_pid_file(paths, "gantry-rapi");

		g_assert_false(g_file_test(pid_file, G_FILE_TEST_EXISTS));
	}
	g_free(fx.base);
	g_free(fx.users_path);
	g_assert_cmpint(system(cmd), ==, 0);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/rapi/server/tls-verified", Fx, &config_tls, fx_set_up, test_tls_verified,
		   fx_tear_down);
	g_test_add("/rapi/server/auth", Fx, &config_tls, fx_set_up, test_auth, fx_tear_down);
	g_test_add("/rapi/server/require-authentication", Fx, &config_require_auth, fx_set_up,
		   test_require_authentication, fx_tear_down);
	g_test_add("/rapi/server/users-reload", Fx, &config_tls, fx_set_up, test_users_reload,
		   fx_tear_down);
	g_test_add("/rapi/server/bodies", Fx, &config_tls, fx_set_up, test_bodies, fx_tear_down);
	g_test_add("/rapi/server/too-large", Fx, &config_tls, fx_set_up, test_too_large,
		   fx_tear_down);
	g_test_add("/rapi/server/routes-and-errors", Fx, &config_tls, fx_set_up,
		   test_routes_and_errors, fx_tear_down);
	g_test_add("/rapi/server/no-master", Fx, &config_no_master, fx_set_up, test_no_master,
		   fx_tear_down);
	g_test_add("/rapi/server/odd-requests", Fx, &config_plain, fx_set_up, test_odd_requests,
		   fx_tear_down);
	g_test_add("/rapi/server/keep-alive", Fx, &config_plain, fx_set_up,
		   test_keep_alive_and_pipelining, fx_tear_down);
	g_test_add("/rapi/server/chunked-and-continue", Fx, &config_plain, fx_set_up,
		   test_chunked_and_continue, fx_tear_down);
	g_test_add("/rapi/server/slow-client", Fx, &config_plain, fx_set_up, test_slow_client,
		   fx_tear_down);
	g_test_add("/rapi/server/max-clients", Fx, &config_small, fx_set_up, test_max_clients,
		   fx_tear_down);
	g_test_add_func("/rapi/server/daemon", test_daemon);
	return g_test_run();
}
