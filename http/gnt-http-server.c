/*
 * http/gnt-http-server.c: HTTP/1.1 connections on GIO streams for
 * gantry-rapi, gantry-metad and gantry-noded (gnt-http-server.h): reading,
 * parsing, writing, keep-alive, timeouts and limits; requests go to the
 * user's handler.
 */
#include "gnt-http-server.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gnt-error.h"
#include "gnt-http-chunked.h"
#include "gnt-http-head.h"
#include "gnt-secret.h"

#define READ_CHUNK	  (16 * 1024)
#define MAX_HEAD	  (64 * 1024) /* request line and headers */
#define ACCEPT_BATCH	  64
#define SWEEP_INTERVAL_MS 250
#define ACCEPT_RETRY_MS	  1000 /* after accept() failed, say EMFILE */
#define DRAIN_TIMEOUT_S	  2    /* reading what a client still sends before closing */
#define DRAIN_MAX	  (64 * 1024 * 1024)
/* descriptors left for all but connections: GLib aborts when it cannot
 * make a wakeup descriptor (a thread's main context, a handshake's) */
#define FD_RESERVE 64
/* a file body goes out in pieces of at most this: the main context (other
 * clients) gets its turn between them */
#define FILE_CHUNK (1024 * 1024)
/* the most a turn of the main context sends of a file while the socket
 * takes it all (nginx's sendfile_max_chunk is 2 MiB) */
#define FILE_TURN (2 * 1024 * 1024)

/* ---- statuses ---- */

typedef struct {
	guint code;
	const gchar *reason;
	const gchar *explain; /* Python's http.server responses */
} StatusInfo;

static const StatusInfo statuses[] = {
	{100, "Continue", "Request received, please continue"},
	{200, "OK", "Request fulfilled, document follows"},
	{201, "Created", "Document created, URL follows"},
	{204, "No Content", "Request fulfilled, nothing follows"},
	{400, "Bad Request", "Bad request syntax or unsupported method"},
	{401, "Unauthorized", "No permission -- see authorization schemes"},
	{403, "Forbidden", "Request forbidden -- authorization will not help"},
	{404, "Not Found", "Nothing matches the given URI"},
	{405, "Method Not Allowed", "Specified method is invalid for this resource"},
	{408, "Request Timeout", "Request timed out; try again later"},
	{409, "Conflict", "Request conflict"},
	{411, "Length Required", "Client must specify Content-Length"},
	{413, "Request Entity Too Large", "Entity is too large"},
	{414, "Request-URI Too Long", "URI is too long"},
	{415, "Unsupported Media Type", "Entity body in unsupported format"},
	{417, "Expectation Failed", "Expect condition could not be satisfied"},
	{431, "Request Header Fields Too Large",
	 "The server is unwilling to process the request because its header fields are too "
	 "large"},
	{500, "Internal Server Error", "Server got itself in trouble"},
	{501, "Not Implemented", "Server does not support this operation"},
	{502, "Bad Gateway", "Invalid responses from another server/proxy"},
	{503, "Service Unavailable", "The server cannot process the request due to a high load"},
	{504, "Gateway Timeout", "The gateway server did not receive a timely response"},
	{505, "HTTP Version Not Supported", "Cannot fulfill request"},
};

static const StatusInfo *
status_info(guint code)
{
	for (guint i = 0; i < G_N_ELEMENTS(statuses); i++) {
		if (statuses[i].code == code)
			return &statuses[i];
	}
	return status_info(500);
}

const gchar *
gnt_http_status_reason(guint status)
{
	return status_info(status)->reason;
}

const gchar *
gnt_http_status_explain(guint status)
{
	return status_info(status)->explain;
}

/* "Date: ..." for now, formatted once a second per thread. */
static const gchar *
date_header(void)
{
	static __thread time_t cached_at;
	static __thread gchar cached[64];
	time_t now = time(NULL);

	if (now != cached_at) {
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(cached, sizeof(cached), "%a, %d %b %Y %H:%M:%S GMT", &tm);
		cached_at = now;
	}
	return cached;
}

GHashTable *
gnt_http_parse_query(const gchar *query)
{
	GHashTable *table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						  (GDestroyNotify)g_ptr_array_unref);
	g_auto(GStrv) pairs = g_strsplit(query, "&", -1);

	for (guint i = 0; pairs[i] != NULL; i++) {
		gchar *eq = strchr(pairs[i], '=');
		g_autofree gchar *name = NULL;
		gchar *value;
		GPtrArray *values;

		if (pairs[i][0] == '\0')
			continue;
		if (eq != NULL)
			*eq = '\0';
		g_strdelimit(pairs[i], "+", ' ');
		name = g_uri_unescape_string(pairs[i], NULL);
		if (eq != NULL)
			g_strdelimit(eq + 1, "+", ' ');
		value = eq != NULL ? g_uri_unescape_string(eq + 1, NULL) : g_strdup("");
		if (name == NULL || value == NULL) {
			g_free(value);
			continue; /* undecodable (%00, bad escapes): dropped */
		}
		values = g_hash_table_lookup(table, name);
		if (values == NULL) {
			values = g_ptr_array_new_with_free_func(g_free);
			g_hash_table_insert(table, g_steal_pointer(&name), values);
		}
		g_ptr_array_add(values, value);
	}
	return table;
}

/* ---- answers ---- */

GString *
gnt_http_build_head(const GntHttpReplyFlags *flags, guint status, const gchar *content_type,
		    gsize len, const gchar *extra_headers, gsize reserve)
{
	GString *out = g_string_sized_new(reserve + 256);

	g_string_append_printf(out, "HTTP/1.%c %u %s\r\nDate: %s\r\n", flags->http10 ? '0' : '1',
			       status, status_info(status)->reason, date_header());
	if (flags->server_header != NULL)
		g_string_append_printf(out, "Server: %s\r\n", flags->server_header);
	if (content_type != NULL)
		g_string_append_printf(out, "Content-Type: %s\r\n", content_type);
	if (status != 204 && status != 304)
		g_string_append_printf(out, "Content-Length: %" G_GSIZE_FORMAT "\r\n", len);
	if (!flags->keep_alive)
		g_string_append(out, "Connection: close\r\n");
	else if (flags->http10)
		g_string_append(out, "Connection: keep-alive\r\n");
	if (extra_headers != NULL)
		g_string_append(out, extra_headers);
	g_string_append(out, "\r\n");
	return out;
}

GBytes *
gnt_http_build_response(const GntHttpReplyFlags *flags, guint status, const gchar *content_type,
			const gchar *extra_headers, gconstpointer body, gsize len)
{
	GString *out = gnt_http_build_head(flags, status, content_type, len, extra_headers,
					   flags->head_only ? 0 : len);

	if (!flags->head_only && len > 0)
		g_string_append_len(out, body, (gssize)len);
	return g_string_free_to_bytes(out);
}

/* ---- the server ---- */

typedef struct {
	GntHttpServer *server; /* not referenced: the server owns its listeners */
	guint id;
	GSocket *socket;
	GSource *accept_source;
	gsize max_body;
	gpointer data;
	guint n_conns;
	gboolean removed;
	gboolean shared_streams; /* gnt_http_server_set_listener_shared_streams() */
} Listener;

struct _GntHttpServer {
	GObject parent_instance;
	GntHttpServerOptions options;
	gchar *server_header;
	GntHttpHandler handler;
	gpointer user_data;
	GMainContext *context;

	GPtrArray *listeners; /* Listener */
	guint last_listener_id;
	GSource *accept_retry;
	gboolean accept_paused; /* at max_clients, or accept() failed */

	GQueue conns;	      /* GntHttpConn, oldest first */
	GHashTable *unproven; /* peer address → its unproven connections (GUINT_TO_POINTER) */
	guint n_handshakes;   /* handshake threads whose end is not yet back */
	GSource *sweep;
	gboolean stopped;
};

G_DEFINE_TYPE(GntHttpServer, gnt_http_server, G_TYPE_OBJECT)

/* ---- connections ---- */

typedef enum {
	CONN_READING,  /* waiting for a request, or reading one */
	CONN_HANDLING, /* the handler has the request */
	CONN_WRITING,  /* writing an answer */
	CONN_DRAINING, /* answered, shut down for writing: reading the rest until EOF */
	CONN_CLOSED,
} ConnState;

struct _GntHttpConn {
	GntHttpServer *server; /* not referenced: the server outlives its open connections */
	Listener *listener;    /* NULL once closed */
	guint ref_count;
	GList link; /* in server->conns */
	GSocket *socket;
	GIOStream *stream;
	GPollableInputStream *in;
	GPollableOutputStream *out;
	GSource *source;	/* waiting to read or to write */
	gboolean source_writes; /* @source waits to write */
	gboolean source_kept;	/* conn_wait() kept @source in this run */
	ConnState state;
	gboolean dispatching; /* in the handler: an answer now is written by conn_run() */
	gint64 deadline;      /* monotonic µs; 0: none */
	gint64 idle_since;    /* waiting between requests; 0 otherwise */
	gsize max_body;

	guint8 *buf; /* what was read and not yet used */
	gsize len;
	gsize cap;
	gsize scan; /* where to go on looking for the end of the head */

	/* the request being read */
	gsize head_len; /* 0 until its head is parsed */
	SoupMessageHeaders *headers;
	gchar *method;
	gchar *target;
	SoupHTTPVersion version;
	SoupEncoding encoding;
	gsize content_length;
	gboolean keep_alive;
	gboolean sent_continue;	   /* "100 Continue" was (or is being) sent */
	gboolean writing_continue; /* it is being written */
	GntHttpChunked chunked;
	gsize chunk_pos; /* in buf: where chunked decoding goes on */
	GByteArray *chunked_body;

	/* who is asking */
	gchar *address;	     /* the peer's IP address; NULL: a unix socket */
	gboolean proven;     /* a whole request head arrived (or the client is trusted) */
	gboolean trusted;    /* verify_client passed */
	gchar *client_error; /* why not, when a verify_client is set */
	GCancellable *handshake_cancel; /* while the TLS handshake runs */

	/* writing: out_bytes, then out_body */
	GBytes *out_bytes;
	GBytes *out_body;
	gsize out_off;
	/* then a file's bytes (gnt_http_request_respond_file()) */
	gint out_fd; /* -1: none */
	guint64 out_fd_off;
	guint64 out_fd_left;
	gboolean close_after;
	gsize drained;
};

static void
conn_run(GntHttpConn *conn);
static void
server_resume_accept(GntHttpServer *self);
static void
listener_start_accept(Listener *listener);
static void
listener_stop_accept(Listener *listener);

/* Whether @listener may have one more connection. */
static gboolean
listener_has_room(Listener *listener)
{
	guint max = listener->server->options.max_clients_per_listener;

	return max == 0 || listener->n_conns < max;
}

static guint
unproven_count(GntHttpServer *self, const gchar *address)
{
	return address != NULL ? GPOINTER_TO_UINT(g_hash_table_lookup(self->unproven, address)) : 0;
}

static gint64
request_deadline(GntHttpConn *conn)
{
	return g_get_monotonic_time() +
	       (gint64)conn->server->options.request_timeout_s * G_USEC_PER_SEC;
}

/* A stream that carries the requests of several clients, one after the
 * other: qemu's slirp guestfwd, one per guest on a root-only unix socket.
 * It is as quiet as the guest is (a boot under load, a guest that asks
 * nothing for hours) and qemu does not carry a guest's connection over to
 * a new stream, so it is never closed for silence nor to make room. */
static gboolean
conn_is_shared_stream(GntHttpConn *conn)
{
	return conn->listener != NULL && conn->listener->shared_streams;
}

/* When a connection waiting (since @since) for its next request is closed:
 * the keep-alive timeout; never for a shared stream (0). */
static gint64
idle_deadline(GntHttpConn *conn, gint64 since)
{
	if (conn_is_shared_stream(conn))
		return 0;
	return since + (gint64)conn->server->options.keep_alive_s * G_USEC_PER_SEC;
}

static void
conn_reset_request(GntHttpConn *conn)
{
	conn->head_len = 0;
	conn->scan = 0;
	g_clear_pointer(&conn->headers, soup_message_headers_unref);
	g_clear_pointer(&conn->method, g_free);
	g_clear_pointer(&conn->target, g_free);
	conn->encoding = SOUP_ENCODING_NONE;
	conn->content_length = 0;
	conn->version = SOUP_HTTP_1_1;
	conn->keep_alive = FALSE;
	conn->sent_continue = FALSE;
	conn->writing_continue = FALSE;
	conn->chunk_pos = 0;
	g_clear_pointer(&conn->chunked_body, g_byte_array_unref);
}

static void
conn_clear_source(GntHttpConn *conn)
{
	if (conn->source != NULL) {
		g_source_destroy(conn->source);
		g_source_unref(conn->source);
		conn->source = NULL;
	}
}

static void
conn_unref(GntHttpConn *conn)
{
	if (--conn->ref_count > 0)
		return;
	conn_reset_request(conn);
	g_clear_pointer(&conn->out_bytes, g_bytes_unref);
	g_clear_pointer(&conn->out_body, g_bytes_unref);
	if (conn->out_fd >= 0)
		close(conn->out_fd);
	g_free(conn->buf);
	g_clear_object(&conn->stream);
	g_clear_object(&conn->socket);
	g_clear_object(&conn->handshake_cancel);
	g_free(conn->address);
	g_free(conn->client_error);
	g_free(conn);
}

static void
unproven_add(GntHttpServer *self, const gchar *address)
{
	if (address != NULL)
		g_hash_table_insert(self->unproven, g_strdup(address),
				    GUINT_TO_POINTER(unproven_count(self, address) + 1));
}

static void
unproven_remove(GntHttpServer *self, const gchar *address)
{
	guint n = unproven_count(self, address);

	if (n > 1)
		g_hash_table_insert(self->unproven, g_strdup(address), GUINT_TO_POINTER(n - 1));
	else if (address != NULL)
		g_hash_table_remove(self->unproven, address);
}

/* The client has shown it speaks HTTP (a whole request head) or who it is
 * (a trusted certificate): it no longer counts against its address's
 * unproven connections, and is closed to make room only once idle. */
static void
conn_set_proven(GntHttpConn *conn)
{
	if (conn->proven)
		return;
	conn->proven = TRUE;
	unproven_remove(conn->server, conn->address);
}

/* Closes at once: no more reading or writing. */
static void
conn_close(GntHttpConn *conn)
{
	GntHttpServer *self = conn->server;

	Listener *listener = conn->listener;

	if (conn->state == CONN_CLOSED)
		return;
	conn->state = CONN_CLOSED;
	conn->listener = NULL;
	listener->n_conns--;
	if (!conn->proven)
		unproven_remove(self, conn->address);
	conn_clear_source(conn);
	/* not g_io_stream_close(): a TLS close_notify could block; shut down
	 * first: it wakes a handshake blocked on the socket in its thread,
	 * which closing alone would not (and the client would not see the
	 * end). A handshake's end closes the descriptor then
	 * (handshake_done_cb()): closed under the thread, its number could
	 * be reused by the next accept. */
	g_socket_shutdown(conn->socket, TRUE, TRUE, NULL);
	if (conn->handshake_cancel != NULL)
		g_cancellable_cancel(conn->handshake_cancel);
	else
		g_socket_close(conn->socket, NULL);
	g_queue_unlink(&self->conns, &conn->link);
	conn_unref(conn);
	if (self->accept_paused)
		server_resume_accept(self);
	else if (listener->accept_source == NULL && self->accept_retry == NULL && !self->stopped &&
		 !listener->removed && listener_has_room(listener))
		listener_start_accept(listener); /* it was at its own limit */
}

/* The source stays when the connection waits the same way again (a file
 * streamed piece by piece): no new source, attach and wakeup a piece. */
static gboolean
conn_ready_cb(GObject *stream, gpointer user_data)
{
	GntHttpConn *conn = user_data;
	GSource *source = conn->source;
	gboolean keep;

	conn->ref_count++;
	conn->source_kept = FALSE;
	conn_run(conn);
	keep = source != NULL && conn->source == source && conn->source_kept;
	/* not waited on again (an answer to come, or closed): it goes */
	if (!keep && conn->source == source)
		g_clear_pointer(&conn->source, g_source_unref);
	conn_unref(conn);
	return keep ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
conn_wait(GntHttpConn *conn, gboolean for_writing)
{
	if (conn->source != NULL && conn->source_writes == for_writing &&
	    !g_source_is_destroyed(conn->source)) {
		conn->source_kept = TRUE;
		return;
	}
	conn_clear_source(conn);
	conn->source = for_writing ? g_pollable_output_stream_create_source(conn->out, NULL)
				   : g_pollable_input_stream_create_source(conn->in, NULL);
	conn->source_writes = for_writing;
	g_source_set_callback(conn->source, G_SOURCE_FUNC(conn_ready_cb), conn, NULL);
	g_source_attach(conn->source, conn->server->context);
}

/* Queues @response, then @body (may be NULL), for conn_run() to write; the
 * connection closes after them when @close_after. */
static void
conn_send(GntHttpConn *conn, GBytes *response /* taken */, GBytes *body /* taken */,
	  gboolean close_after)
{
	g_clear_pointer(&conn->out_bytes, g_bytes_unref);
	g_clear_pointer(&conn->out_body, g_bytes_unref);
	conn->out_bytes = response;
	conn->out_body = body;
	conn->out_off = 0;
	if (conn->out_fd >= 0)
		close(conn->out_fd);
	conn->out_fd = -1;
	conn->out_fd_left = 0;
	conn->close_after = close_after;
	conn->state = CONN_WRITING;
	conn->idle_since = 0;
	conn->deadline = request_deadline(conn);
}

/* An error found while reading the request: answered, then closed (the
 * rest of the request is read and dropped meanwhile). */
static void
conn_fail(GntHttpConn *conn, guint status, const gchar *message)
{
	GntHttpServer *self = conn->server;
	GntHttpReplyFlags flags = {
		.keep_alive = FALSE,
		.http10 = conn->version == SOUP_HTTP_1_0,
		.server_header = self->server_header,
	};
	const gchar *content_type = "text/plain; charset=utf-8";
	g_autofree gchar *body = NULL;

	g_debug("refusing a request from a client: %u %s", status, message != NULL ? message : "");
	if (self->options.error_body != NULL)
		body = self->options.error_body(status, message, &content_type);
	else
		body = g_strconcat(message != NULL ? message : status_info(status)->reason, "\n",
				   NULL);
	conn_send(conn,
		  gnt_http_build_response(&flags, status, content_type, NULL, body, strlen(body)),
		  NULL, TRUE);
}

/* The answer is out and the connection is done: shut down writing (the
 * client sees the end) and read what it still sends, briefly, so that
 * closing does not reset the connection under an answer not yet read. */
static void
conn_start_drain(GntHttpConn *conn)
{
	conn->state = CONN_DRAINING;
	conn->drained = 0;
	conn->deadline = g_get_monotonic_time() + DRAIN_TIMEOUT_S * G_USEC_PER_SEC;
	g_socket_shutdown(conn->socket, FALSE, TRUE, NULL);
}

/* The connection waits for its next request (or has it already). */
static void
conn_next_request(GntHttpConn *conn)
{
	gint64 now = g_get_monotonic_time();

	conn_reset_request(conn);
	conn->state = CONN_READING;
	if (conn->len > 0) {
		/* pipelined: the next request has begun */
		conn->idle_since = 0;
		conn->deadline = request_deadline(conn);
	} else {
		conn->idle_since = now;
		conn->deadline = idle_deadline(conn, now);
	}
}

/* Writes the file body from conn->out_fd; TRUE once all is out, FALSE
 * when it waits or was closed. Each piece written moves the deadline: a
 * large file to a slow reader is fine as long as it keeps reading. */
static gboolean
conn_write_file(GntHttpConn *conn)
{
	g_autofree guint8 *buf = NULL;
	gsize turn = 0; /* bytes sent in this turn */

	while (conn->out_fd_left > 0) {
		gsize want = (gsize)MIN(conn->out_fd_left, (guint64)FILE_CHUNK);
		gssize n = -1;
		g_autoptr(GError) error = NULL;

		if (!G_IS_TLS_CONNECTION(conn->stream)) {
			off_t off = (off_t)conn->out_fd_off;

			n = sendfile(g_socket_get_fd(conn->socket), conn->out_fd, &off, want);
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				conn_wait(conn, TRUE);
				return FALSE;
			}
			if (n < 0)
				g_debug("sending a file: %s", g_strerror(errno));
		} else {
			gssize got = 0;

			want = MIN(want, (gsize)READ_CHUNK * 4);
			if (buf == NULL)
				buf = g_malloc(READ_CHUNK * 4);
			got = pread(conn->out_fd, buf, want, (off_t)conn->out_fd_off);
			n = got <= 0 ? -1
				     : g_pollable_output_stream_write_nonblocking(
					       conn->out, buf, (gsize)got, NULL, &error);
			if (n < 0 && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
				conn_wait(conn, TRUE);
				return FALSE;
			}
		}
		if (n <= 0) {
			/* the file shrank or the client went: the length promised
			 * cannot be kept, so the connection ends */
			conn_close(conn);
			return FALSE;
		}
		conn->out_fd_off += (guint64)n;
		conn->out_fd_left -= (guint64)n;
		conn->deadline = request_deadline(conn);
		turn += (gsize)n;
		if (conn->out_fd_left > 0 && ((gsize)n < want || turn >= FILE_TURN)) {
			/* the socket is full, or this turn sent its share: the
			 * main context serves the other clients before the next
			 * piece (the source stays: conn_wait()), and first
			 * when both are ready (a small answer waits on no file) */
			conn_wait(conn, TRUE);
			if (g_source_get_priority(conn->source) != G_PRIORITY_LOW)
				g_source_set_priority(conn->source, G_PRIORITY_LOW);
			return FALSE;
		}
	}
	close(conn->out_fd);
	conn->out_fd = -1;
	return TRUE;
}

/* Writes what is queued; TRUE once all is out (the connection has moved
 * on: next request, body after 100 Continue, or draining), FALSE when it
 * waits or was closed. */
static gboolean
conn_write(GntHttpConn *conn)
{
	while (conn->out_bytes != NULL) {
		gsize size = g_bytes_get_size(conn->out_bytes);
		const guint8 *data = g_bytes_get_data(conn->out_bytes, NULL);
		g_autoptr(GError) error = NULL;
		gssize n;

		if (conn->out_off == size) {
			g_bytes_unref(conn->out_bytes);
			conn->out_bytes = g_steal_pointer(&conn->out_body);
			conn->out_off = 0;
			continue;
		}
		n = g_pollable_output_stream_write_nonblocking(conn->out, data + conn->out_off,
							       size - conn->out_off, NULL, &error);
		if (n < 0 && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
			conn_wait(conn, TRUE);
			return FALSE;
		}
		if (n <= 0) {
			g_debug("writing an answer: %s",
				error != NULL ? error->message : "nothing written");
			conn_close(conn);
			return FALSE;
		}
		conn->out_off += (gsize)n;
	}
	if (conn->out_fd >= 0 && !conn_write_file(conn))
		return FALSE;
	if (conn->close_after) {
		conn_start_drain(conn);
	} else if (conn->writing_continue) {
		/* "100 Continue" is out: now the body */
		conn->writing_continue = FALSE;
		conn->state = CONN_READING;
	} else {
		conn_next_request(conn);
	}
	return TRUE;
}

/* Drops @n bytes at @offset in the buffer (conn_consume(): the first
 * ones), leaving no copy behind (bodies may hold secrets). */
static void
conn_drop(GntHttpConn *conn, gsize offset, gsize n)
{
	if (n == 0)
		return;
	memmove(conn->buf + offset, conn->buf + offset + n, conn->len - offset - n);
	gnt_secret_wipe(conn->buf + conn->len - n, n);
	conn->len -= n;
}

static void
conn_consume(GntHttpConn *conn, gsize n)
{
	conn_drop(conn, 0, n);
}

typedef struct {
	gpointer data;
	gsize len;
} WipedBuffer;

static void
wiped_buffer_free(gpointer user_data)
{
	WipedBuffer *self = user_data;

	gnt_secret_wipe(self->data, self->len);
	g_free(self->data);
	g_free(self);
}

/* A GBytes owning @data (@len bytes), wiped when freed. */
static GBytes *
bytes_new_wiped(gpointer data /* taken */, gsize len)
{
	WipedBuffer *buffer = g_new(WipedBuffer, 1);

	buffer->data = data;
	buffer->len = len;
	return g_bytes_new_with_free_func(data, len, wiped_buffer_free, buffer);
}

/* The body of @len bytes at @offset in the buffer (wiped when freed): a
 * large one that ends the buffer takes the buffer instead of a copy. */
static GBytes *
conn_take_body(GntHttpConn *conn, gsize offset, gsize len)
{
	g_autoptr(GBytes) whole = NULL;

	if (len < READ_CHUNK * 4 || offset + len != conn->len)
		return bytes_new_wiped(g_memdup2(conn->buf + offset, len), len);
	whole = bytes_new_wiped(g_steal_pointer(&conn->buf), conn->cap);
	conn->len = 0;
	conn->cap = 0;
	return g_bytes_new_from_bytes(whole, offset, len);
}

/* Hands the complete request (head and @body) to the handler. */
static void
conn_dispatch(GntHttpConn *conn, GBytes *body /* taken */, gsize wire_len)
{
	GntHttpServer *self = conn->server;
	GntHttpRequest *request = g_new0(GntHttpRequest, 1);

	request->conn = conn;
	conn->ref_count++;
	request->method = g_steal_pointer(&conn->method);
	request->target = g_steal_pointer(&conn->target);
	request->headers = g_steal_pointer(&conn->headers);
	request->body = body;
	request->flags.keep_alive = conn->keep_alive;
	request->flags.http10 = conn->version == SOUP_HTTP_1_0;
	request->flags.head_only = g_str_equal(request->method, "HEAD");
	request->flags.server_header = self->server_header;
	request->listener_data = conn->listener->data;
	request->remote_address = g_strdup(conn->address);
	request->client_trusted = conn->trusted;
	request->client_error = g_strdup(conn->client_error);
	conn_consume(conn, wire_len);
	/* bodies may hold secrets: copying them (TLS, buffer, body) leaves
	 * pieces in this thread's registers, which a core would show */
	if (body != NULL)
		gnt_secret_wipe_registers();
	conn->state = CONN_HANDLING;
	conn->deadline = 0;
	conn->idle_since = 0;
	conn->dispatching = TRUE;
	self->handler(request, self->user_data);
	conn->dispatching = FALSE;
}

/* Looks for the end of the head ("\r\n\r\n", or bare "\n\n"). */
static gsize
find_head_end(GntHttpConn *conn)
{
	for (gsize i = conn->scan; i < conn->len; i++) {
		if (conn->buf[i] != '\n')
			continue;
		if (i >= 1 && conn->buf[i - 1] == '\n')
			return i + 1;
		if (i >= 2 && conn->buf[i - 1] == '\r' && conn->buf[i - 2] == '\n')
			return i + 1;
	}
	conn->scan = conn->len;
	return 0;
}

static void
conn_fail_too_large(GntHttpConn *conn)
{
	g_autofree gchar *message = g_strdup_printf(
		"Request body larger than %" G_GSIZE_FORMAT " bytes", conn->max_body);

	conn_fail(conn, 413, message);
}

/* Parses the head of @head_len bytes; FALSE when the request was refused
 * (or 100 Continue is being sent). */
static gboolean
conn_parse_head(GntHttpConn *conn, gsize head_len)
{
	g_autoptr(GError) error = NULL;
	GntHttpHead head;
	guint status;

	status = gnt_http_head_parse(conn->buf, head_len, &head, &error);
	if (status != 0) {
		conn_fail(conn, status, error->message);
		return FALSE;
	}
	conn->method = g_steal_pointer(&head.method);
	conn->target = g_steal_pointer(&head.target);
	conn->headers = g_steal_pointer(&head.headers);
	conn->version = head.version;
	conn->head_len = head_len;
	/* where clients are to show a certificate, only that proves them */
	if (conn->server->options.verify_client == NULL)
		conn_set_proven(conn);
	conn->keep_alive = conn->version == SOUP_HTTP_1_1
				   ? !soup_message_headers_header_contains(conn->headers,
									   "Connection", "close")
				   : soup_message_headers_header_contains(
					     conn->headers, "Connection", "keep-alive");
	/* one client's "close" must not end the stream the others share */
	if (conn_is_shared_stream(conn))
		conn->keep_alive = TRUE;
	switch (head.framing) {
	case GNT_HTTP_BODY_LENGTH:
		if (head.content_length > conn->max_body) {
			conn_fail_too_large(conn);
			return FALSE;
		}
		conn->encoding = SOUP_ENCODING_CONTENT_LENGTH;
		conn->content_length = (gsize)head.content_length;
		break;
	case GNT_HTTP_BODY_CHUNKED:
		conn->encoding = SOUP_ENCODING_CHUNKED;
		conn->chunked_body = g_byte_array_new();
		conn->chunk_pos = head_len;
		gnt_http_chunked_init(&conn->chunked, conn->max_body);
		break;
	case GNT_HTTP_BODY_NONE:
	default:
		conn->encoding = SOUP_ENCODING_NONE;
		break;
	}
	if (conn->encoding != SOUP_ENCODING_NONE &&
	    (soup_message_headers_get_expectations(conn->headers) & SOUP_EXPECTATION_CONTINUE) &&
	    conn->len == head_len) {
		static const gchar continue_line[] = "HTTP/1.1 100 Continue\r\n\r\n";

		conn->sent_continue = TRUE;
		conn->writing_continue = TRUE;
		conn_send(conn, g_bytes_new_static(continue_line, strlen(continue_line)), NULL,
			  FALSE);
		return FALSE; /* reading goes on once it is written */
	}
	return TRUE;
}

/* Decodes as much of a chunked body as the buffer holds, dropping the
 * encoded bytes once decoded: the buffer keeps the head and at most an
 * unfinished line, whatever the client sends. */
static gboolean
conn_decode_chunked(GntHttpConn *conn, gboolean *done)
{
	gsize consumed = 0;
	GntHttpChunkedResult result =
		gnt_http_chunked_decode(&conn->chunked, conn->buf + conn->chunk_pos,
					conn->len - conn->chunk_pos, conn->chunked_body, &consumed);

	conn_drop(conn, conn->chunk_pos, consumed);
	*done = result == GNT_HTTP_CHUNKED_DONE;
	switch (result) {
	case GNT_HTTP_CHUNKED_MALFORMED:
		conn_fail(conn, 400, "Malformed chunked body");
		return FALSE;
	case GNT_HTTP_CHUNKED_TOO_LARGE:
		conn_fail_too_large(conn);
		return FALSE;
	case GNT_HTTP_CHUNKED_MORE:
	case GNT_HTTP_CHUNKED_DONE:
	default:
		return TRUE;
	}
}

/* Makes what progress the buffer allows on the request being read; TRUE
 * when more input is needed (the caller reads), FALSE when the request
 * went to the handler or was refused (the state says what next). */
static gboolean
conn_process(GntHttpConn *conn)
{
	if (conn->head_len == 0) {
		gsize head_end;
		gsize skip = 0;

		/* empty lines before a request are allowed (RFC 9112, 2.2) */
		while (skip < conn->len && (conn->buf[skip] == '\r' || conn->buf[skip] == '\n'))
			skip++;
		if (skip > 0) {
			conn_consume(conn, skip);
			conn->scan = 0;
		}
		if (conn->len == 0)
			return TRUE;
		if (conn->idle_since != 0) {
			/* the first byte of a request: its clock starts */
			conn->idle_since = 0;
			conn->deadline = request_deadline(conn);
		}
		head_end = find_head_end(conn);
		if (head_end > MAX_HEAD || (head_end == 0 && conn->len > MAX_HEAD)) {
			conn_fail(conn, 431, NULL);
			return FALSE;
		}
		if (head_end == 0)
			return TRUE;
		if (!conn_parse_head(conn, head_end))
			return FALSE;
	}
	if (conn->encoding == SOUP_ENCODING_CHUNKED) {
		gboolean done = FALSE;

		if (!conn_decode_chunked(conn, &done))
			return FALSE;
		if (!done)
			return TRUE;
		conn_dispatch(conn,
			      g_byte_array_free_to_bytes(g_steal_pointer(&conn->chunked_body)),
			      conn->chunk_pos);
		return FALSE;
	}
	if (conn->len < conn->head_len + conn->content_length)
		return TRUE;
	if (conn->content_length == 0) {
		conn_dispatch(conn, NULL, conn->head_len);
	} else {
		gsize wire_len = conn->head_len + conn->content_length;
		GBytes *body = conn_take_body(conn, conn->head_len, conn->content_length);

		/* the buffer may be gone with the body */
		conn_dispatch(conn, body, conn->len > 0 ? wire_len : 0);
	}
	return FALSE;
}

/* Reads what there is into the buffer (or, draining, drops it); TRUE when
 * something was read, FALSE when the connection waits or was closed. */
static gboolean
conn_fill(GntHttpConn *conn)
{
	/* what a closing connection still sends is dropped here (main context only) */
	static guint8 scratch[READ_CHUNK];
	g_autoptr(GError) error = NULL;
	gboolean draining = conn->state == CONN_DRAINING;
	gssize n;

	if (!draining && conn->cap - conn->len < READ_CHUNK) {
		/* not g_realloc(): bodies may hold secrets, and the old buffer
		 * is wiped before it is freed */
		gsize cap = MAX(conn->cap * 2, conn->len + READ_CHUNK);
		guint8 *grown = g_malloc(cap);

		if (conn->len > 0)
			memcpy(grown, conn->buf, conn->len);
		gnt_secret_wipe(conn->buf, conn->cap);
		g_free(conn->buf);
		conn->buf = grown;
		conn->cap = cap;
	}
	n = g_pollable_input_stream_read_nonblocking(
		conn->in, draining ? scratch : conn->buf + conn->len,
		draining ? sizeof(scratch) : conn->cap - conn->len, NULL, &error);
	if (n < 0 && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
		conn_wait(conn, FALSE);
		return FALSE;
	}
	if (n <= 0) {
		if (n < 0 && !draining)
			g_debug("reading a request: %s", error->message);
		conn_close(conn);
		return FALSE;
	}
	if (draining) {
		conn->drained += (gsize)n;
		if (conn->drained > DRAIN_MAX) {
			conn_close(conn);
			return FALSE;
		}
		return TRUE;
	}
	conn->len += (gsize)n;
	return TRUE;
}

/* Goes on with the connection as far as it can without waiting: reads and
 * parses requests, hands them to the handler, writes answers. A loop, not
 * recursion, however many requests a client pipelines. */
static void
conn_run(GntHttpConn *conn)
{
	conn->ref_count++;
	for (;;) {
		if (conn->state == CONN_WRITING) {
			if (!conn_write(conn))
				break;
			if (conn->len == 0 && conn->state != CONN_WRITING) {
				/* a client that waited for the answer has sent
				 * nothing more yet: wait rather than try a read
				 * that would block (a syscall a request) */
				conn_wait(conn, FALSE);
				break;
			}
		} else if (conn->state == CONN_READING) {
			if (conn_process(conn) && !conn_fill(conn))
				break;
		} else if (conn->state == CONN_DRAINING) {
			if (!conn_fill(conn))
				break;
		} else {
			break; /* handling, closed */
		}
	}
	conn_unref(conn);
}

/* Closes the connection idle for longest to make room; FALSE if none is.
 * A trusted client's (the master's) is never closed for another. */
static gboolean
close_oldest_idle(GntHttpServer *self)
{
	GntHttpConn *oldest = NULL;

	for (GList *l = self->conns.head; l != NULL; l = l->next) {
		GntHttpConn *conn = l->data;

		if (conn->idle_since != 0 && !conn->trusted && !conn_is_shared_stream(conn) &&
		    (oldest == NULL || conn->idle_since < oldest->idle_since))
			oldest = conn;
	}
	if (oldest == NULL)
		return FALSE;
	g_debug("closing a kept-alive connection to make room for a new one");
	conn_close(oldest);
	return TRUE;
}

/* Closes the oldest connection (of @address; NULL: of any) that has not
 * yet sent a whole request head nor proved who it is: silent or slow, it
 * must not keep a client that talks out. FALSE if there is none. */
static gboolean
close_oldest_unproven(GntHttpServer *self, const gchar *address)
{
	for (GList *l = self->conns.head; l != NULL; l = l->next) {
		GntHttpConn *conn = l->data;

		if (conn->proven || conn_is_shared_stream(conn) ||
		    (address != NULL && g_strcmp0(conn->address, address) != 0))
			continue;
		g_debug("closing a connection from %s that sent no request yet, to make room",
			conn->address != NULL ? conn->address : "a local client");
		conn_close(conn);
		return TRUE;
	}
	return FALSE;
}

/* A TLS handshake, run in a thread of its own: glib-networking's
 * asynchronous handshake blocks a thread of GTask's shared pool for as
 * long as the client keeps quiet, and a few dozen quiet clients would
 * hold up every other handshake (and any GTask) until the pool grows. */
typedef struct {
	GntHttpConn *conn; /* referenced; touched in the main context only */
	GTlsConnection *tls;
	GCancellable *cancel;
	GntHttpVerifyClientFunc verify_client;
	gpointer verify_client_data;
	GMainContext *context;
	/* results */
	GError *error;
	gboolean trusted;
	gchar *client_error;
} Handshake;

static void
handshake_free(Handshake *hs)
{
	g_object_unref(hs->tls);
	g_object_unref(hs->cancel);
	g_main_context_unref(hs->context);
	g_clear_error(&hs->error);
	g_free(hs->client_error);
	g_free(hs);
}

/* Back in the main context. */
static gboolean
handshake_done_cb(gpointer user_data)
{
	Handshake *hs = user_data;
	GntHttpConn *conn = hs->conn;

	conn->server->n_handshakes--;
	g_clear_object(&conn->handshake_cancel);
	if (conn->state == CONN_CLOSED) {
		g_socket_close(conn->socket, NULL); /* conn_close() left it to us */
	} else if (hs->error != NULL) {
		g_debug("TLS handshake with %s: %s",
			conn->address != NULL ? conn->address : "a client", hs->error->message);
		conn_close(conn);
	} else {
		conn->trusted = hs->trusted;
		conn->client_error = g_steal_pointer(&hs->client_error);
		if (conn->trusted)
			conn_set_proven(conn);
		if (conn->state == CONN_READING)
			conn_run(conn);
	}
	conn_unref(conn);
	handshake_free(hs);
	return G_SOURCE_REMOVE;
}

static gpointer
handshake_thread(gpointer user_data)
{
	Handshake *hs = user_data;
	/* our own reference, dropped after the source's: once attached, the
	 * source may run, free @hs and with it the last other reference to
	 * the context (the server stopped, its owner gone); unreferencing an
	 * attached source locks its context, which must still exist */
	g_autoptr(GMainContext) context = g_main_context_ref(hs->context);
	g_autoptr(GSource) done = g_idle_source_new();

	if (g_tls_connection_handshake(hs->tls, hs->cancel, &hs->error) &&
	    hs->verify_client != NULL) {
		GTlsCertificate *peer = g_tls_connection_get_peer_certificate(hs->tls);
		g_autoptr(GError) error = NULL;

		if (hs->verify_client(peer, hs->verify_client_data, &error))
			hs->trusted = TRUE;
		else
			hs->client_error = g_strdup(error->message);
	}
	g_source_set_callback(done, handshake_done_cb, hs, NULL);
	g_source_attach(done, context);
	return NULL; /* done is unreferenced before context: declared after it */
}

/* Lets any client certificate through the handshake: the server's
 * verify_client says what it is worth, and the handler can then say more
 * than a failed handshake would. */
static gboolean
accept_certificate_cb(GTlsConnection *tls, GTlsCertificate *cert, GTlsCertificateFlags errors,
		      gpointer user_data)
{
	return TRUE;
}

/* The client has sent something (its hello, or its end): only now does the
 * handshake take a thread. */
static gboolean
handshake_start_cb(GSocket *socket, GIOCondition condition, gpointer user_data)
{
	GntHttpConn *conn = user_data;
	GntHttpServer *self = conn->server;
	g_autoptr(GError) error = NULL;
	Handshake *hs = g_new0(Handshake, 1);
	GThread *thread;

	g_clear_pointer(&conn->source, g_source_unref);
	hs->conn = conn;
	hs->tls = G_TLS_CONNECTION(g_object_ref(conn->stream));
	conn->handshake_cancel = g_cancellable_new();
	hs->cancel = g_object_ref(conn->handshake_cancel);
	hs->verify_client = self->options.verify_client;
	hs->verify_client_data = self->options.verify_client_data;
	hs->context = g_main_context_ref(self->context);
	conn->ref_count++;
	self->n_handshakes++;
	thread = g_thread_try_new("gnt-http-tls", handshake_thread, hs, &error);
	if (thread == NULL) {
		self->n_handshakes--;
		g_warning("cannot start a TLS handshake: %s", error->message);
		g_clear_object(&conn->handshake_cancel);
		handshake_free(hs);
		conn_close(conn);
		conn_unref(conn);
		return G_SOURCE_REMOVE;
	}
	g_thread_unref(thread);
	return G_SOURCE_REMOVE;
}

/* The peer's IP address, NULL for a unix socket. (transfer full) */
static gchar *
peer_address(GSocket *socket)
{
	g_autoptr(GSocketAddress) address = g_socket_get_remote_address(socket, NULL);

	if (address == NULL || !G_IS_INET_SOCKET_ADDRESS(address))
		return NULL;
	return g_inet_address_to_string(
		g_inet_socket_address_get_address(G_INET_SOCKET_ADDRESS(address)));
}

static void
conn_new(Listener *listener, GSocket *socket)
{
	GntHttpServer *self = listener->server;
	g_autoptr(GSocketConnection) base = g_socket_connection_factory_create_connection(socket);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *address = peer_address(socket);
	GntHttpConn *conn;
	GIOStream *stream;

	g_socket_set_blocking(socket, FALSE);
	if (g_socket_get_family(socket) != G_SOCKET_FAMILY_UNIX)
		(void)g_socket_set_option(socket, IPPROTO_TCP, TCP_NODELAY, 1, NULL);
	if (address != NULL &&
	    unproven_count(self, address) >= self->options.max_clients_per_address &&
	    !close_oldest_unproven(self, address)) {
		g_socket_close(socket, NULL);
		return;
	}
	if (self->options.certificate != NULL) {
		/* no database, rather than the default one: the system's
		 * trust store says nothing about a client, and loading it
		 * costs megabytes per handshake; verify_client checks */
		stream = g_initable_new(
			g_tls_backend_get_server_connection_type(g_tls_backend_get_default()), NULL,
			&error, "base-io-stream", base, "certificate", self->options.certificate,
			"database", NULL, "authentication-mode",
			self->options.verify_client != NULL ? G_TLS_AUTHENTICATION_REQUESTED
							    : G_TLS_AUTHENTICATION_NONE,
			"require-close-notify", FALSE, NULL);
		if (stream == NULL) {
			g_warning("cannot start TLS on a new connection: %s", error->message);
			g_socket_close(socket, NULL);
			return;
		}
		g_signal_connect(stream, "accept-certificate", G_CALLBACK(accept_certificate_cb),
				 NULL);
	} else {
		stream = G_IO_STREAM(g_object_ref(base));
	}
	conn = g_new0(GntHttpConn, 1);
	conn->out_fd = -1;
	conn->server = self;
	conn->listener = listener;
	listener->n_conns++;
	conn->max_body = listener->max_body;
	conn->ref_count = 1;
	conn->link.data = conn;
	conn->socket = g_object_ref(socket);
	conn->stream = stream;
	conn->in = G_POLLABLE_INPUT_STREAM(g_io_stream_get_input_stream(stream));
	conn->out = G_POLLABLE_OUTPUT_STREAM(g_io_stream_get_output_stream(stream));
	conn->state = CONN_READING;
	conn->version = SOUP_HTTP_1_1;
	conn->address = g_steal_pointer(&address);
	unproven_add(self, conn->address);
	/* the TLS handshake and the first request count as one request; a
	 * shared stream waits, idle, for its first */
	if (conn_is_shared_stream(conn)) {
		conn->idle_since = g_get_monotonic_time();
		conn->deadline = 0;
	} else {
		conn->deadline = request_deadline(conn);
	}
	g_queue_push_tail_link(&self->conns, &conn->link);
	if (self->options.certificate != NULL) {
		/* explicitly: glib-networking's implicit handshake in a
		 * non-blocking read costs far more (memory and time) */
		conn->source = g_socket_create_source(socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
		g_source_set_callback(conn->source, G_SOURCE_FUNC(handshake_start_cb), conn, NULL);
		g_source_attach(conn->source, self->context);
	} else {
		conn_run(conn);
	}
}

/* ---- requests ---- */

void
gnt_http_request_free(GntHttpRequest *request)
{
	if (request == NULL)
		return;
	if (request->conn != NULL) {
		if (request->conn->state == CONN_HANDLING)
			conn_close(request->conn);
		conn_unref(request->conn);
	}
	g_free(request->method);
	g_free(request->target);
	g_free(request->remote_address);
	g_free(request->client_error);
	if (request->headers != NULL)
		soup_message_headers_unref(request->headers);
	g_clear_pointer(&request->body, g_bytes_unref);
	g_free(request);
}

void
gnt_http_request_respond(GntHttpRequest *request, GBytes *response, GBytes *body)
{
	GntHttpConn *conn;

	g_return_if_fail(request != NULL && response != NULL);
	conn = g_steal_pointer(&request->conn);
	if (conn->state != CONN_HANDLING) {
		/* closed meanwhile: timed out, its listener removed, the server stopped */
		g_bytes_unref(response);
		g_clear_pointer(&body, g_bytes_unref);
	} else {
		conn_send(conn, response, body, !request->flags.keep_alive);
		if (!conn->dispatching)
			conn_run(conn);
	}
	conn_unref(conn);
	gnt_http_request_free(request);
}

void
gnt_http_request_respond_file(GntHttpRequest *request, GBytes *response, gint fd, guint64 offset,
			      guint64 length)
{
	GntHttpConn *conn;

	g_return_if_fail(request != NULL && response != NULL && fd >= 0);
	conn = g_steal_pointer(&request->conn);
	if (conn->state != CONN_HANDLING) {
		g_bytes_unref(response);
		close(fd);
	} else {
		conn_send(conn, response, NULL, !request->flags.keep_alive);
		if (!request->flags.head_only && length > 0) {
			conn->out_fd = fd;
			conn->out_fd_off = offset;
			conn->out_fd_left = length;
		} else {
			close(fd);
		}
		if (!conn->dispatching)
			conn_run(conn);
	}
	conn_unref(conn);
	gnt_http_request_free(request);
}

/* ---- listening ---- */

static void
server_pause_accept(GntHttpServer *self, guint retry_ms);

static gboolean
accept_cb(GSocket *socket, GIOCondition condition, gpointer user_data)
{
	Listener *listener = user_data;
	GntHttpServer *self = listener->server;

	for (guint i = 0; i < ACCEPT_BATCH; i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GSocket) accepted = NULL;

		if (!listener_has_room(listener)) {
			/* this listener's share is taken: its own backlog waits */
			listener_stop_accept(listener);
			return G_SOURCE_CONTINUE; /* destroyed already */
		}
		if (self->conns.length >= self->options.max_clients) {
			/* make room only for a connection known to wait: the
			 * first of a batch (the source fired for it); the
			 * source fires again for the next */
			if (i > 0)
				return G_SOURCE_CONTINUE;
			if (!close_oldest_idle(self) && !close_oldest_unproven(self, NULL)) {
				/* the kernel's backlog holds the rest until one closes */
				server_pause_accept(self, 0);
				return G_SOURCE_CONTINUE; /* destroyed already */
			}
		}
		accepted = g_socket_accept(socket, NULL, &error);
		if (accepted == NULL) {
			if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
				break;
			if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES) &&
			    (close_oldest_unproven(self, NULL) || close_oldest_idle(self))) {
				/* out of descriptors: a silent client must not
				 * keep out one that talks (the master); the
				 * source fires again once this one is back */
				g_debug("accepting a connection: %s; closed another to make room",
					error->message);
				return G_SOURCE_CONTINUE;
			}
			g_warning("accepting a connection: %s; trying again in %u ms",
				  error->message, ACCEPT_RETRY_MS);
			server_pause_accept(self, ACCEPT_RETRY_MS);
			return G_SOURCE_CONTINUE; /* destroyed already */
		}
		conn_new(listener, accepted);
	}
	return G_SOURCE_CONTINUE;
}

static void
listener_start_accept(Listener *listener)
{
	listener->accept_source = g_socket_create_source(listener->socket, G_IO_IN, NULL);
	g_source_set_callback(listener->accept_source, G_SOURCE_FUNC(accept_cb), listener, NULL);
	g_source_attach(listener->accept_source, listener->server->context);
}

static void
listener_stop_accept(Listener *listener)
{
	if (listener->accept_source != NULL) {
		g_source_destroy(listener->accept_source);
		g_clear_pointer(&listener->accept_source, g_source_unref);
	}
}

static void
listener_free(Listener *listener)
{
	listener_stop_accept(listener);
	g_socket_close(listener->socket, NULL);
	g_object_unref(listener->socket);
	g_free(listener);
}

static gboolean
accept_retry_cb(gpointer user_data)
{
	GntHttpServer *self = user_data;

	g_clear_pointer(&self->accept_retry, g_source_unref);
	self->accept_paused = FALSE;
	server_resume_accept(self);
	return G_SOURCE_REMOVE;
}

/* Stops accepting on every listener: until a connection closes (@retry_ms
 * 0), or for @retry_ms. */
static void
server_pause_accept(GntHttpServer *self, guint retry_ms)
{
	for (guint i = 0; i < self->listeners->len; i++)
		listener_stop_accept(g_ptr_array_index(self->listeners, i));
	if (retry_ms == 0) {
		self->accept_paused = TRUE;
		return;
	}
	if (self->accept_retry == NULL) {
		self->accept_retry = g_timeout_source_new(retry_ms);
		g_source_set_callback(self->accept_retry, accept_retry_cb, self, NULL);
		g_source_attach(self->accept_retry, self->context);
	}
}

static void
server_resume_accept(GntHttpServer *self)
{
	if (self->stopped || self->accept_retry != NULL ||
	    self->conns.length >= self->options.max_clients)
		return;
	self->accept_paused = FALSE;
	for (guint i = 0; i < self->listeners->len; i++) {
		Listener *listener = g_ptr_array_index(self->listeners, i);

		if (listener->accept_source == NULL && listener_has_room(listener))
			listener_start_accept(listener);
	}
}

/* Closes the connections whose time is up. */
static gboolean
sweep_cb(gpointer user_data)
{
	GntHttpServer *self = user_data;
	gint64 now = g_get_monotonic_time();
	GList *next;

	for (GList *l = self->conns.head; l != NULL; l = next) {
		GntHttpConn *conn = l->data;

		next = l->next;
		if (conn->deadline == 0 || now < conn->deadline)
			continue;
		if (conn->state != CONN_DRAINING)
			g_debug("closing a connection: %s",
				conn->idle_since != 0 ? "idle too long"
						      : "request not complete in time");
		conn_close(conn);
	}
	return G_SOURCE_CONTINUE;
}

guint
gnt_http_server_add_listener(GntHttpServer *self, GSocket *socket, gsize max_body,
			     gpointer listener_data)
{
	Listener *listener;

	g_return_val_if_fail(GNT_IS_HTTP_SERVER(self) && G_IS_SOCKET(socket), 0);
	g_return_val_if_fail(!self->stopped, 0);
	listener = g_new0(Listener, 1);
	listener->server = self;
	listener->id = ++self->last_listener_id;
	listener->socket = g_object_ref(socket);
	listener->max_body = max_body != 0 ? max_body : self->options.max_body;
	listener->data = listener_data;
	g_socket_set_blocking(socket, FALSE);
	g_ptr_array_add(self->listeners, listener);
	if (!self->accept_paused && self->accept_retry == NULL)
		listener_start_accept(listener);
	return listener->id;
}

void
gnt_http_server_set_listener_shared_streams(GntHttpServer *self, guint id, gboolean shared)
{
	g_return_if_fail(GNT_IS_HTTP_SERVER(self));
	for (guint i = 0; i < self->listeners->len; i++) {
		Listener *listener = g_ptr_array_index(self->listeners, i);

		if (listener->id == id)
			listener->shared_streams = shared;
	}
}

void
gnt_http_server_remove_listener(GntHttpServer *self, guint id)
{
	Listener *listener = NULL;
	GList *next;

	g_return_if_fail(GNT_IS_HTTP_SERVER(self));
	for (guint i = 0; i < self->listeners->len; i++) {
		if (((Listener *)g_ptr_array_index(self->listeners, i))->id == id)
			listener = g_ptr_array_steal_index(self->listeners, i);
	}
	g_return_if_fail(listener != NULL);
	listener->removed = TRUE;
	listener_stop_accept(listener);
	for (GList *l = self->conns.head; l != NULL; l = next) {
		GntHttpConn *conn = l->data;

		next = l->next;
		if (conn->listener == listener)
			conn_close(conn);
	}
	listener_free(listener);
}

typedef struct {
	GntHttpServer *server;
	guint seconds;
} KeepAliveUpdate;

static void
keep_alive_update_free(gpointer data)
{
	KeepAliveUpdate *update = data;

	g_object_unref(update->server);
	g_free(update);
}

static gboolean
keep_alive_update_cb(gpointer data)
{
	KeepAliveUpdate *update = data;
	GntHttpServer *self = update->server;

	self->options.keep_alive_s = update->seconds;
	for (GList *l = self->conns.head; l != NULL; l = l->next) {
		GntHttpConn *conn = l->data;

		if (conn->idle_since != 0)
			conn->deadline = idle_deadline(conn, conn->idle_since);
	}
	return G_SOURCE_REMOVE;
}

void
gnt_http_server_set_keep_alive(GntHttpServer *self, guint seconds)
{
	KeepAliveUpdate *update;

	g_return_if_fail(GNT_IS_HTTP_SERVER(self));
	update = g_new0(KeepAliveUpdate, 1);
	update->server = g_object_ref(self);
	update->seconds = MAX(1, seconds);
	g_main_context_invoke_full(self->context, G_PRIORITY_DEFAULT, keep_alive_update_cb, update,
				   keep_alive_update_free);
}

guint
gnt_http_server_get_n_connections(GntHttpServer *self)
{
	g_return_val_if_fail(GNT_IS_HTTP_SERVER(self), 0);
	return self->conns.length;
}

void
gnt_http_server_stop(GntHttpServer *self)
{
	g_return_if_fail(GNT_IS_HTTP_SERVER(self));
	if (self->stopped)
		return;
	self->stopped = TRUE;
	if (self->accept_retry != NULL)
		g_source_destroy(self->accept_retry);
	g_clear_pointer(&self->accept_retry, g_source_unref);
	while (self->conns.head != NULL)
		conn_close(self->conns.head->data);
	/* closed, their handshakes end at once; what they hold is freed
	 * when their ends come back here */
	while (self->n_handshakes > 0)
		g_main_context_iteration(self->context, TRUE);
	g_ptr_array_set_size(self->listeners, 0);
	g_source_destroy(self->sweep);
	g_clear_pointer(&self->sweep, g_source_unref);
}

/* ---- the object ---- */

static void
gnt_http_server_dispose(GObject *object)
{
	gnt_http_server_stop(GNT_HTTP_SERVER(object));
	G_OBJECT_CLASS(gnt_http_server_parent_class)->dispose(object);
}

static void
gnt_http_server_finalize(GObject *object)
{
	GntHttpServer *self = GNT_HTTP_SERVER(object);

	g_ptr_array_unref(self->listeners);
	g_hash_table_unref(self->unproven);
	g_clear_object(&self->options.certificate);
	g_free(self->server_header);
	g_main_context_unref(self->context);
	G_OBJECT_CLASS(gnt_http_server_parent_class)->finalize(object);
}

static void
gnt_http_server_class_init(GntHttpServerClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = gnt_http_server_dispose;
	object_class->finalize = gnt_http_server_finalize;
}

static void
gnt_http_server_init(GntHttpServer *self)
{
	self->context = g_main_context_ref_thread_default();
	self->listeners = g_ptr_array_new_with_free_func((GDestroyNotify)listener_free);
	self->unproven = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_queue_init(&self->conns);
}

GntHttpServer *
gnt_http_server_new(const GntHttpServerOptions *options, GntHttpHandler handler, gpointer user_data)
{
	GntHttpServer *self;
	struct rlimit limit;

	g_return_val_if_fail(handler != NULL, NULL);
	self = g_object_new(GNT_TYPE_HTTP_SERVER, NULL);
	if (options != NULL)
		self->options = *options;
	if (self->options.max_clients == 0)
		self->options.max_clients = GNT_HTTP_DEFAULT_MAX_CLIENTS;
	if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
	    limit.rlim_cur >= 2 * FD_RESERVE &&
	    self->options.max_clients > limit.rlim_cur - FD_RESERVE)
		self->options.max_clients = (guint)(limit.rlim_cur - FD_RESERVE);
	if (self->options.max_clients_per_address == 0)
		self->options.max_clients_per_address = GNT_HTTP_DEFAULT_MAX_UNPROVEN_PER_ADDRESS;
	if (self->options.request_timeout_s == 0)
		self->options.request_timeout_s = GNT_HTTP_DEFAULT_REQUEST_TIMEOUT;
	if (self->options.keep_alive_s == 0)
		self->options.keep_alive_s = GNT_HTTP_DEFAULT_KEEP_ALIVE;
	if (self->options.max_body == 0)
		self->options.max_body = GNT_HTTP_DEFAULT_MAX_BODY;
	if (self->options.certificate != NULL)
		g_object_ref(self->options.certificate);
	self->server_header = g_strdup(self->options.server_header);
	self->options.server_header = NULL; /* self->server_header */
	self->handler = handler;
	self->user_data = user_data;
	self->sweep = g_timeout_source_new(SWEEP_INTERVAL_MS);
	g_source_set_callback(self->sweep, sweep_cb, self, NULL);
	g_source_set_name(self->sweep, "gnt-http-server timeouts");
	g_source_attach(self->sweep, self->context);
	return self;
}
