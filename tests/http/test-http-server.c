/* tests/http/test-http-server.c: the HTTP/1.1 server's limits, in a thread
 * of its own, driven over raw loopback sockets */
#include <stdlib.h>
#include <string.h>

#include "gnt-http-server.h"
#include "gnt-net.h"
#include "gnt-tls.h"

typedef struct {
	GntHttpServerOptions options;
	gboolean tls;	 /* a certificate from a new CA */
	gboolean shared; /* the listener's streams are shared (slirp's guestfwd) */
} FxConfig;

typedef struct {
	GntHttpServerOptions options;
	gboolean shared;
	gchar *dir; /* the certificate's, with TLS */
	GThread *thread;
	GMainContext *context;
	GMainLoop *loop;
	GntHttpServer *server;
	GMutex lock;
	GCond cond;
	guint port;
} Fx;

/* Answers "200 OK" with the length of the body. */
static void
handle(GntHttpRequest *request, gpointer user_data)
{
	gsize len = request->body != NULL ? g_bytes_get_size(request->body) : 0;
	g_autofree gchar *text = g_strdup_printf("%" G_GSIZE_FORMAT "\n", len);

	gnt_http_request_respond(request,
				 gnt_http_build_response(&request->flags, 200, "text/plain", NULL,
							 text, strlen(text)),
				 NULL);
}

static gpointer
server_thread(gpointer data)
{
	Fx *fx = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) listener = NULL;
	g_autofree gchar *uri = NULL;
	guint port = 0;

	g_main_context_push_thread_default(fx->context);
	fx->server = gnt_http_server_new(&fx->options, handle, fx);
	listener = gnt_net_listen("127.0.0.1", 0, "http", &port, &uri, &error);
	g_assert_no_error(error);
	gnt_http_server_set_listener_shared_streams(
		fx->server, gnt_http_server_add_listener(fx->server, listener, 0, NULL),
		fx->shared);
	g_mutex_lock(&fx->lock);
	fx->port = port;
	g_cond_signal(&fx->cond);
	g_mutex_unlock(&fx->lock);
	g_main_loop_run(fx->loop);
	g_clear_object(&fx->server);
	g_main_context_pop_thread_default(fx->context);
	return NULL;
}

/* Gives the server a certificate of a new CA (in a new temporary dir). */
static void
fx_make_certificate(Fx *fx)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *cert = NULL;
	g_autofree gchar *key = NULL;
	GntTlsCa *ca = gnt_tls_ca_new("http.example.com", &error);

	g_assert_no_error(error);
	fx->dir = g_dir_make_tmp("gnt-http-XXXXXX", &error);
	g_assert_no_error(error);
	cert = g_build_filename(fx->dir, "server.pem", NULL);
	key = g_build_filename(fx->dir, "server.key", NULL);
	g_assert_true(
		gnt_tls_ca_issue(ca, GNT_TLS_ROLE_NODE, "localhost", NULL, cert, key, &error));
	g_assert_no_error(error);
	gnt_tls_ca_free(ca);
	fx->options.certificate = gnt_tls_load_certificate(cert, key, &error);
	g_assert_no_error(error);
}

static void
fx_set_up(Fx *fx, gconstpointer data)
{
	const FxConfig *config = data;

	fx->options = config->options;
	fx->shared = config->shared;
	if (config->tls)
		fx_make_certificate(fx);
	g_mutex_init(&fx->lock);
	g_cond_init(&fx->cond);
	fx->context = g_main_context_new();
	fx->loop = g_main_loop_new(fx->context, FALSE);
	fx->thread = g_thread_new("http-server", server_thread, fx);
	g_mutex_lock(&fx->lock);
	while (fx->port == 0)
		g_cond_wait(&fx->cond, &fx->lock);
	g_mutex_unlock(&fx->lock);
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
	g_main_context_invoke(fx->context, quit_cb, fx->loop);
	g_thread_join(fx->thread);
	g_main_loop_unref(fx->loop);
	g_main_context_unref(fx->context);
	g_mutex_clear(&fx->lock);
	g_cond_clear(&fx->cond);
	g_clear_object(&fx->options.certificate);
	if (fx->dir != NULL) {
		g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

		g_assert_cmpint(system(cmd), ==, 0);
		g_free(fx->dir);
	}
}

/* A blocking connection whose reads give up after 10 s. */
static GSocket *
connect_raw(Fx *fx)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, (guint16)fx->port);
	g_autoptr(GSocket) socket = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
						 G_SOCKET_PROTOCOL_TCP, &error);

	g_assert_no_error(error);
	g_assert_true(g_socket_connect(socket, address, NULL, &error));
	g_socket_set_timeout(socket, 10);
	return g_steal_pointer(&socket);
}

static gboolean
send_all(GSocket *socket, const gchar *data, gsize len)
{
	while (len > 0) {
		gssize n = g_socket_send(socket, data, len, NULL, NULL);

		if (n <= 0)
			return FALSE;
		data += n;
		len -= (gsize)n;
	}
	return TRUE;
}

/* What the server sends until it closes or 10 s pass. (transfer full) */
static gchar *
read_answer(GSocket *socket)
{
	GString *answer = g_string_new(NULL);
	gchar buf[4096];
	gssize n;

	while ((n = g_socket_receive(socket, buf, sizeof(buf), NULL, NULL)) > 0) {
		g_string_append_len(answer, buf, n);
		if (strstr(answer->str, "\r\n\r\n") != NULL &&
		    g_str_has_suffix(answer->str, "\n") &&
		    !g_str_has_suffix(answer->str, "\r\n\r\n"))
			break; /* head and a one-line body */
	}
	return g_string_free(answer, FALSE);
}

static const FxConfig defaults = {{0}, FALSE};
static const FxConfig small_body = {{.max_body = 64 * 1024}, FALSE};

/* One data byte behind a kilobyte of chunk extension, a thousand times:
 * refused with 413 once the bytes received pass the limit, though the
 * decoded body is a thousand bytes (they were kept in memory until the
 * body ended, and only decoded bytes were counted). */
static void
test_chunk_extensions(Fx *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = connect_raw(fx);
	g_autofree gchar *ext = g_strnfill(1000, 'e');
	g_autofree gchar *chunk = g_strdup_printf("1;%s\r\nA\r\n", ext);
	g_autofree gchar *answer = NULL;
	static const gchar head[] =
		"PUT /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";

	g_assert_true(send_all(socket, head, strlen(head)));
	for (guint i = 0; i < 1000; i++) {
		if (!send_all(socket, chunk, strlen(chunk)))
			break; /* the server closed after its answer */
	}
	(void)send_all(socket, "0\r\n\r\n", 5);
	answer = read_answer(socket);
	g_assert_true(g_str_has_prefix(answer, "HTTP/1.1 413 "));
}

/* The same body with plain chunks under the limit is taken whole. */
static void
test_chunked_ok(Fx *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = connect_raw(fx);
	g_autofree gchar *answer = NULL;
	static const gchar request[] =
		"PUT /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
		"\r\n3;a=b\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";

	g_assert_true(send_all(socket, request, strlen(request)));
	answer = read_answer(socket);
	g_assert_true(g_str_has_prefix(answer, "HTTP/1.1 200 "));
	g_assert_true(g_str_has_suffix(answer, "\r\n\r\n5\n"));
}

/* A hundred silent connections (the default max_clients) deny no one: a
 * client that sends its request is answered while they stay open (the
 * server used to stop accepting until their request timeout, 30 s), and
 * one address keeps at most its cap of them. */
static void
test_silent_connections(Fx *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) silent = g_ptr_array_new_with_free_func(g_object_unref);
	static const gchar request[] = "GET /x HTTP/1.1\r\nHost: x\r\n\r\n";
	guint closed = 0;

	for (guint i = 0; i < GNT_HTTP_DEFAULT_MAX_CLIENTS; i++)
		g_ptr_array_add(silent, connect_raw(fx));
	for (guint i = 0; i < 3; i++) {
		g_autoptr(GSocket) socket = connect_raw(fx);
		g_autofree gchar *answer = NULL;

		g_assert_true(send_all(socket, request, strlen(request)));
		answer = read_answer(socket);
		g_assert_true(g_str_has_prefix(answer, "HTTP/1.1 200 "));
	}
	/* the oldest silent ones were closed for the newer: reading gives EOF */
	for (guint i = 0; i < silent->len; i++) {
		GSocket *socket = g_ptr_array_index(silent, i);
		gchar byte;

		g_socket_set_timeout(socket, 1);
		if (g_socket_receive(socket, &byte, 1, NULL, NULL) == 0)
			closed++;
		else
			break; /* the rest are open */
	}
	g_assert_cmpuint(closed, >=,
			 GNT_HTTP_DEFAULT_MAX_CLIENTS - GNT_HTTP_DEFAULT_MAX_UNPROVEN_PER_ADDRESS);
}

static gboolean
accept_any_cb(GTlsConnection *tls, GTlsCertificate *cert, GTlsCertificateFlags errors,
	      gpointer user_data)
{
	return TRUE;
}

/* GET over TLS on a new connection; the answer's status line. */
static gchar *
tls_get(Fx *fx)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) socket = connect_raw(fx);
	g_autoptr(GSocketConnection) base = g_socket_connection_factory_create_connection(socket);
	g_autoptr(GIOStream) tls = g_tls_client_connection_new(G_IO_STREAM(base), NULL, &error);
	static const gchar request[] = "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	gchar answer[64] = {0};
	gsize n = 0;

	g_assert_no_error(error);
	g_signal_connect(tls, "accept-certificate", G_CALLBACK(accept_any_cb), NULL);
	if (!g_output_stream_write_all(g_io_stream_get_output_stream(tls), request,
				       sizeof(request) - 1, NULL, NULL, &error) ||
	    !g_input_stream_read_all(g_io_stream_get_input_stream(tls), answer, 15, &n, NULL,
				     &error))
		return g_strdup(error->message);
	return g_strndup(answer, n);
}

static const FxConfig with_tls = {{.max_clients = 1000}, TRUE};
static const FxConfig short_timeouts = {{.request_timeout_s = 1, .keep_alive_s = 1}, FALSE};
static const FxConfig short_timeouts_shared = {{.request_timeout_s = 1, .keep_alive_s = 1},
					       FALSE,
					       TRUE};

/* Whether the server closed @socket within 1 s (EOF), rather than keeping
 * it open with nothing to say. */
static gboolean
closed_by_server(GSocket *socket)
{
	gchar byte;

	g_socket_set_timeout(socket, 1);
	return g_socket_receive(socket, &byte, 1, NULL, NULL) == 0;
}

/* A connection silent past the request and keep-alive timeouts is closed,
 * unless its listener's streams are shared (qemu's slirp guestfwd: a guest
 * booting slowly under load sends its first request late, and qemu does not
 * carry a guest's connection over to a new stream); a shared stream answers
 * however late the request comes, "Connection: close" or not. */
static void
test_silence(Fx *fx, gconstpointer data)
{
	static const gchar request[] = "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	g_autoptr(GSocket) socket = connect_raw(fx);

	/* past the request timeout (1 s) and two sweeps */
	g_usleep(2 * G_USEC_PER_SEC);
	if (!fx->shared) {
		g_assert_true(closed_by_server(socket));
		return;
	}
	for (guint i = 0; i < 2; i++) {
		g_autofree gchar *answer = NULL;

		g_socket_set_timeout(socket, 10);
		g_assert_true(send_all(socket, request, strlen(request)));
		answer = read_answer(socket);
		g_assert_true(g_str_has_prefix(answer, "HTTP/1.1 200 "));
		/* past the keep-alive timeout too */
		g_usleep(2 * G_USEC_PER_SEC);
	}
	g_assert_false(closed_by_server(socket));
}

/* A hundred clients that start a TLS handshake (a record header announcing
 * a hello) and stall hold up no other client's handshake (glib-networking's
 * asynchronous handshakes blocked GTask's shared threads until the request
 * timeout), and the server never takes more than its per-address share of
 * them. */
static void
test_slow_handshakes(Fx *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) slow = g_ptr_array_new_with_free_func(g_object_unref);
	static const gchar hello_start[] = "\x16\x03\x01\x02\x00";

	for (guint i = 0; i < 100; i++) {
		GSocket *socket = connect_raw(fx);

		g_assert_true(send_all(socket, hello_start, sizeof(hello_start) - 1));
		g_ptr_array_add(slow, socket);
	}
	for (guint i = 0; i < 3; i++) {
		g_autofree gchar *answer = tls_get(fx);

		g_assert_cmpstr(answer, ==, "HTTP/1.1 200 OK");
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/http/server/chunk-extensions", Fx, &small_body, fx_set_up,
		   test_chunk_extensions, fx_tear_down);
	g_test_add("/http/server/chunked-ok", Fx, &small_body, fx_set_up, test_chunked_ok,
		   fx_tear_down);
	g_test_add("/http/server/silent-connections", Fx, &defaults, fx_set_up,
		   test_silent_connections, fx_tear_down);
	g_test_add("/http/server/silence-closes", Fx, &short_timeouts, fx_set_up, test_silence,
		   fx_tear_down);
	g_test_add("/http/server/silence-keeps-shared-streams", Fx, &short_timeouts_shared,
		   fx_set_up, test_silence, fx_tear_down);
	g_test_add("/http/server/slow-handshakes", Fx, &with_tls, fx_set_up, test_slow_handshakes,
		   fx_tear_down);
	return g_test_run();
}
