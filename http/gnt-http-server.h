#pragma once /* http/gnt-http-server.h: HTTP/1.1 framing of rapi, metad and noded */

#include <gio/gio.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/*
 * HTTP/1.1 servers on GIO streams, without libsoup's SoupServer (libsoup
 * 3.2's leaks the descriptor and about 24 KiB for every kept-alive
 * connection its client closes, doc/rapi.md "Why not SoupServer"): the
 * connections, their framing and their limits; what a request means is the
 * user's handler.
 *
 * One server has any number of listening sockets (TCP, unix; HTTPS when a
 * certificate is given), each with its own data handed to the handler, so
 * that a listener can say who is asking (metad's channels). Connections are
 * read and written on the thread-default main context of the thread that
 * made the server, never blocking: request heads parsed with libsoup's
 * soup_headers_parse_request(), Content-Length and chunked bodies, 100
 * Continue, keep-alive with pipelined requests answered in order (the next
 * one is read once the answer to the previous one is out), a time limit for
 * a whole request and one for an idle connection, a limit on connections
 * (an idle kept-alive one is closed to make room, else the oldest one that
 * has not sent a whole request head yet; only when every one is busy does
 * the kernel's backlog hold the rest), a limit on the connections of one
 * peer address that have not sent a whole head yet (its oldest is closed
 * for a new one), 413 before reading a body that is too large and as soon
 * as the bytes of a chunked body, its chunk sizes, extensions and trailers
 * included, go over the limit. Request heads are parsed strictly
 * (gnt-http-head.h).
 *
 * With a certificate, each TLS handshake starts once the client has sent
 * something and runs in a thread of its own, so no client, silent or slow,
 * holds up another's; the request timeout ends it. With verify_client, the
 * server asks for a client certificate and checks it once per connection;
 * a connection whose certificate passes is trusted: never counted against
 * its address, never closed to make room; the others stay unproven, head
 * or not.
 *
 * The handler gets each complete request and answers it with
 * gnt_http_request_respond(), at once or later (from the main context),
 * e.g. after a worker thread built the answer.
 */

#define GNT_HTTP_DEFAULT_MAX_CLIENTS		  100
#define GNT_HTTP_DEFAULT_REQUEST_TIMEOUT	  30 /* seconds for a request's head and body */
#define GNT_HTTP_DEFAULT_KEEP_ALIVE		  30 /* seconds an idle connection is kept */
#define GNT_HTTP_DEFAULT_MAX_BODY		  (10 * 1024 * 1024)
#define GNT_HTTP_DEFAULT_MAX_UNPROVEN_PER_ADDRESS 32

/* How an answer must be framed for the request it answers. */
typedef struct {
	gboolean keep_alive;
	gboolean http10;
	gboolean head_only;	    /* a HEAD request: the headers, no body */
	const gchar *server_header; /* "Server:" value, NULL: none (the server's, static) */
} GntHttpReplyFlags;

typedef struct _GntHttpConn GntHttpConn;

/* A complete request. Its members may be read (and stolen) by any thread;
 * it is answered, and freed, by gnt_http_request_respond(). */
typedef struct {
	gchar *method;
	gchar *target; /* origin form: path and query, as sent (not decoded) */
	SoupMessageHeaders *headers;
	GBytes *body; /* NULL: none */
	GntHttpReplyFlags flags;
	/* the listener's (gnt_http_server_add_listener()): valid while that
	 * listener exists, so only sure in the handler itself */
	gpointer listener_data;
	/* the client's IP address (NULL: a unix socket) */
	gchar *remote_address;
	/* the server's verify_client passed for the client's certificate;
	 * else, with a verify_client, client_error says why not */
	gboolean client_trusted;
	gchar *client_error;
	/* < private > */
	GntHttpConn *conn;
} GntHttpRequest;

/* Called in the main context for each request (transfer full): answer it
 * with gnt_http_request_respond(), now or later. */
typedef void (*GntHttpHandler)(GntHttpRequest *request, gpointer user_data);

/* The body of the server's own refusals (400 malformed, 408, 413, 431,
 * 505...): *@content_type static. NULL in the options: "MESSAGE\n" as
 * text/plain. (transfer full) */
typedef gchar *(*GntHttpErrorBodyFunc)(guint status, const gchar *message,
				       const gchar **content_type);

/* Whether @certificate (the client's, with its chain; NULL: it presented
 * none) may be trusted; FALSE with @error saying why. Called in a
 * handshake's thread. */
typedef gboolean (*GntHttpVerifyClientFunc)(GTlsCertificate *certificate, gpointer user_data,
					    GError **error);

typedef struct {
	/* Connections served at once over all listeners, at most the
	 * descriptor limit (RLIMIT_NOFILE) less 64. 0: default. */
	guint max_clients;
	/* Connections served at once on any one listener (one untrusted
	 * client cannot take them all); more wait in its backlog. 0: no
	 * limit but max_clients. */
	guint max_clients_per_listener;
	/* Connections of one peer IP address that have not yet sent a whole
	 * request head (with verify_client: a trusted certificate); a new
	 * one closes the oldest of them. 0: default. */
	guint max_clients_per_address;
	/* Seconds a client has to send a whole request (head and body),
	 * counted from the connection's start or the request's first byte;
	 * then the connection is closed. 0: default. */
	guint request_timeout_s;
	/* Seconds a kept-alive connection may stay idle. 0: default. */
	guint keep_alive_s;
	/* Largest request body in bytes; larger ones get 413. 0: default
	 * (a listener may have its own). */
	gsize max_body;
	/* "Server:" header of every answer (copied). NULL: none. */
	const gchar *server_header;
	GntHttpErrorBodyFunc error_body;
	/* Speak HTTPS on every listener with this certificate and key. */
	GTlsCertificate *certificate;
	/* With a certificate: ask each client for its certificate and check
	 * it with this (thread-safe, called with verify_client_data, which
	 * must outlive the server). NULL: no client certificates. */
	GntHttpVerifyClientFunc verify_client;
	gpointer verify_client_data;
} GntHttpServerOptions;

#define GNT_TYPE_HTTP_SERVER (gnt_http_server_get_type())
G_DECLARE_FINAL_TYPE(GntHttpServer, gnt_http_server, GNT, HTTP_SERVER, GObject)

/* @options: NULL for the defaults. (transfer full) */
GntHttpServer *
gnt_http_server_new(const GntHttpServerOptions *options, GntHttpHandler handler,
		    gpointer user_data);

/*
 * Accepts connections on @listener (a listening socket, made non-blocking
 * here; the server keeps a reference and closes it when the listener is
 * removed). Their requests carry @listener_data. @max_body: this
 * listener's largest body, 0: the server's. Returns the listener's id
 * (never 0).
 */
guint
gnt_http_server_add_listener(GntHttpServer *self, GSocket *listener, gsize max_body,
			     gpointer listener_data);
/*
 * Whether each connection of listener @id may carry the requests of several
 * clients one after the other (qemu's slirp guestfwd to a chardev puts all
 * of a guest's TCP connections on one unix stream): then a request's
 * "Connection: close" (busybox wget sends it) does not close the
 * connection; every answer has its Content-Length anyway, and the peer's
 * own close still ends it. Such a stream is never closed for silence
 * (before its first request or between requests: a guest booting slowly
 * speaks late, and qemu does not carry a guest's connection over to a new
 * stream) nor to make room; a request once begun has the request timeout.
 * Default: no.
 */
void
gnt_http_server_set_listener_shared_streams(GntHttpServer *self, guint id, gboolean shared);
/* Closes listener @id and every connection accepted on it (their
 * unanswered requests are answered into the void). */
void
gnt_http_server_remove_listener(GntHttpServer *self, guint id);

/* Seconds an idle kept-alive connection stays open (at least 1), also for
 * those idle now. Thread-safe: applied in the server's context. */
void
gnt_http_server_set_keep_alive(GntHttpServer *self, guint seconds);

/* Open client connections. */
guint
gnt_http_server_get_n_connections(GntHttpServer *self);

/* Closes every listener and connection. Called by dispose too. */
void
gnt_http_server_stop(GntHttpServer *self);

/*
 * Answers @request (taken: freed here) with @response, then @body (NULL:
 * none, or already in @response), written as they are. Main context only.
 * A request whose connection is gone meanwhile is just freed. The
 * connection closes after the answer when the request did not keep it
 * alive.
 */
void
gnt_http_request_respond(GntHttpRequest *request, GBytes *response, GBytes *body);
/*
 * Answers @request (taken) with @response (the head), then @length bytes
 * of the file @fd (taken: closed once sent or when the connection ends)
 * from @offset, never held in memory: sendfile(2) on plain connections,
 * pieces through TLS. Each piece written renews the request timeout, so
 * a large file goes out to any client that keeps reading. A HEAD answer
 * (request->flags.head_only) sends @response only.
 */
void
gnt_http_request_respond_file(GntHttpRequest *request, GBytes *response, gint fd, guint64 offset,
			      guint64 length);
/* Frees @request unanswered, closing its connection. */
void
gnt_http_request_free(GntHttpRequest *request);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntHttpRequest, gnt_http_request_free)

/* The reason phrase of @status ("Not Found"), and the explanation Python's
 * http.server gives for it (unknown statuses: 500's). */
const gchar *
gnt_http_status_reason(guint status);
const gchar *
gnt_http_status_explain(guint status);

/* Bodies up to this size are best copied behind the head (one write, one
 * TLS record). */
#define GNT_HTTP_MERGE_BODY_MAX (16 * 1024)

/*
 * The status line and headers of an answer with a body of @len bytes:
 * Date, Server, Content-Type (@content_type; NULL: none), Content-Length
 * (none for 204 and 304), Connection, then @extra_headers ("Name:
 * value\r\n" lines, nullable). @reserve: extra room to allocate for a body
 * appended after it. (transfer full)
 */
GString *
gnt_http_build_head(const GntHttpReplyFlags *flags, guint status, const gchar *content_type,
		    gsize len, const gchar *extra_headers, gsize reserve);
/* A whole answer: the head, then @body (@len bytes; dropped for HEAD).
 * (transfer full) */
GBytes *
gnt_http_build_response(const GntHttpReplyFlags *flags, guint status, const gchar *content_type,
			const gchar *extra_headers, gconstpointer body, gsize len);

/* Splits a query string into name -> GPtrArray of decoded values ('+' is a
 * space; undecodable pairs are dropped). (transfer full) */
GHashTable *
gnt_http_parse_query(const gchar *query);

G_END_DECLS
