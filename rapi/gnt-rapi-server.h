#pragma once

#include <gio/gio.h>

#include "gnt-rapi-route.h"

G_BEGIN_DECLS

/*
 * gantry-rapi's HTTP layer (doc/rapi.md): HTTPS (or plain HTTP for
 * debugging) on one listening socket, HTTP/1.1 with keep-alive, Ganeti's
 * Basic authentication and access rules, request limits and timeouts,
 * routing to the resources' handlers (gnt-rapi-route.h), and Ganeti's error
 * bodies.
 *
 * Connections are read and written on the thread-default main context of
 * the thread that calls gnt_rapi_server_listen(), without ever blocking;
 * requests are routed, authenticated and handled on a pool of worker
 * threads, each with its own LUXI connection to masterd, and the answer
 * goes back to the main context to be written.
 *
 * HTTP framing is ours, shared with gantry-metad: http/gnt-http-server.h
 * (libsoup 3.2's SoupServer leaks the descriptor and about 24 KiB for every
 * kept-alive connection its client closes; see doc/rapi.md); request heads
 * are parsed with libsoup's soup_headers_parse_request().
 */

#define GNT_RAPI_DEFAULT_PORT		 5080
#define GNT_RAPI_DEFAULT_MAX_CLIENTS	 100
#define GNT_RAPI_DEFAULT_WORKERS	 32
#define GNT_RAPI_DEFAULT_REQUEST_TIMEOUT 30 /* seconds for a request's head and body */
#define GNT_RAPI_DEFAULT_KEEP_ALIVE	 30 /* seconds an idle connection is kept */
#define GNT_RAPI_MAX_BODY		 (10 * 1024 * 1024)

typedef struct {
	/* Connections served at once; more wait in the listen backlog (an
	 * idle kept-alive connection is closed to make room). 0: default. */
	guint max_clients;
	/* Worker threads (handlers, LUXI). 0: default. */
	guint n_workers;
	/* Seconds a client has to send a whole request (head and body),
	 * counted from the connection's start or the request's first byte;
	 * then the connection is closed. 0: default. */
	guint request_timeout_s;
	/* Seconds a kept-alive connection may stay idle. 0: default. */
	guint keep_alive_s;
	/* Largest request body in bytes; larger ones get 413. 0: default. */
	gsize max_body;
	/* GETs of public resources need a user too. */
	gboolean require_authentication;
} GntRapiServerOptions;

#define GNT_TYPE_RAPI_SERVER (gnt_rapi_server_get_type())
G_DECLARE_FINAL_TYPE(GntRapiServer, gnt_rapi_server, GNT, RAPI_SERVER, GObject)

/*
 * @routes: the route table (kept, not copied: static); @luxi_socket:
 * masterd's socket; @users_file: the users file (need not exist);
 * @certificate: the server's certificate with its key, NULL for plain HTTP;
 * @options: NULL for the defaults. The worker threads start here.
 * (transfer full)
 */
GntRapiServer *
gnt_rapi_server_new(const GntRapiRoute *routes, const gchar *luxi_socket, const gchar *users_file,
		    GTlsCertificate *certificate, const GntRapiServerOptions *options);

/* Listens on @address (an IPv4 or IPv6 literal) and @port (0: one the
 * kernel picks) with SO_REUSEADDR and a backlog of 4096. */
gboolean
gnt_rapi_server_listen(GntRapiServer *self, const gchar *address, guint port, GError **error);

/* The port listened on, and "https://ADDRESS:PORT/" (http without TLS). */
guint
gnt_rapi_server_get_port(GntRapiServer *self);
gchar *
gnt_rapi_server_dup_uri(GntRapiServer *self);

/* Reads the users file again (SIGHUP); FALSE, with the users loaded before
 * kept, when it is broken. */
gboolean
gnt_rapi_server_reload_users(GntRapiServer *self, GError **error);

/* Open client connections, and requests being handled. */
guint
gnt_rapi_server_get_n_connections(GntRapiServer *self);
guint
gnt_rapi_server_get_n_running(GntRapiServer *self);

/* Stops listening, closes every connection and waits for the handlers
 * still running (a WaitForJobChange may take its 10 s). Called by
 * dispose too. */
void
gnt_rapi_server_stop(GntRapiServer *self);

/* Ganeti's error body {"code", "message", "explain"} for @status (the
 * explain text of Python's http.server), @message HTML-escaped (NULL: the
 * status' reason phrase). (transfer full) */
gchar *
gnt_rapi_dup_error_body(guint status, const gchar *message);

G_END_DECLS
