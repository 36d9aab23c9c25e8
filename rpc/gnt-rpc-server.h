#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gnt-paths.h"
#include "gnt-rpc-procedures.h"
#include "gnt-rpc-protocol.h"

G_BEGIN_DECLS

/*
 * The node side of node RPC (doc/node-rpc.md): an HTTPS server (Gantry's
 * http/ layer) presenting the node's certificate and answering
 * `PUT /<procedure>` only to a client whose certificate the cluster CA
 * signed for the master role, checked once per connection after the
 * handshake (anything else: 403, and a log line saying who and why). Each
 * call runs in a worker thread, so a slow procedure never holds up another;
 * the server itself lives in the thread-default main context it was created
 * in. Connections are kept alive between calls, and closed once idle;
 * silent or slow clients hold up no one (gnt-http-server.h).
 */

/*
 * A procedure: @args are the request's arguments, already checked against
 * the procedure's row of the table (gnt-rpc-procedures.h), valid during the
 * call. Returns the result (transfer full; gnt_json_node_new_null() for
 * none) or NULL with @error set, whose GNT_ERROR code the master sees as the
 * ecode. Runs in a worker thread: it must not touch main-context state.
 * When an argument may carry secrets, its strings are wiped once the
 * procedure has returned (the body already is): it keeps no reference.
 */
typedef JsonNode *(*GntRpcProcedureFunc)(const GntRpcArgs *args, gpointer user_data,
					 GError **error);

typedef struct {
	const gchar *name; /* the URL path without '/': "version" */
	GntRpcProcedureFunc func;
	/* NULL: the row of gnt_rpc_procedure_defs named @name, which must
	 * exist; a test's own procedures bring theirs */
	const GntRpcProcedureDef *def;
} GntRpcProcedure;

/* Runs @procedure with @array, decoded against its row first (the
 * decoder's GNT_ERROR_INVALID naming the argument otherwise): what the
 * server does for each request, for a procedure that calls another. */
JsonNode *
gnt_rpc_procedure_run(const GntRpcProcedure *procedure, JsonArray *array, gpointer user_data,
		      GError **error);

#define GNT_TYPE_RPC_SERVER (gnt_rpc_server_get_type())
G_DECLARE_FINAL_TYPE(GntRpcServer, gnt_rpc_server, GNT, RPC_SERVER, GObject)

/* @certificate: the node's, with its key and chain; @ca: the cluster CA,
 * whose CN names the cluster and so the master's CN. Both are referenced. */
GntRpcServer *
gnt_rpc_server_new(GTlsCertificate *certificate, GTlsCertificate *ca, GError **error);
/* Loads the node certificate, its key and the CA from @paths' TLS directory;
 * GNT_ERROR_NOT_FOUND naming the missing file. */
GntRpcServer *
gnt_rpc_server_new_from_paths(const GntPaths *paths, GError **error);

/* Registers the procedures of @table (ended by an entry with a NULL name),
 * each called with @user_data, which must outlive the server. A name
 * registered twice, or without a row, is a programmer error. Call from the
 * server's context. */
void
gnt_rpc_server_add_procedures(GntRpcServer *self, const GntRpcProcedure *table, gpointer user_data);

/* The names of the procedures registered, sorted. (transfer full) */
GStrv
gnt_rpc_server_dup_procedure_names(GntRpcServer *self);

/* Bodies larger than @max_bytes are refused with 413 (default
 * GNT_RPC_MAX_BODY_SIZE). Applies to the addresses listened on after. */
void
gnt_rpc_server_set_max_body_size(GntRpcServer *self, gsize max_bytes);

/* Listens on @address (an IPv4 or IPv6 literal) and @port (0: the kernel
 * picks one). GNT_ERROR_INVALID for a bad address, GNT_ERROR_ENVIRONMENT if
 * binding fails. */
gboolean
gnt_rpc_server_listen(GntRpcServer *self, const gchar *address, guint port, GError **error);
/* "https://127.0.0.1:40511/" once listening, else NULL. (transfer full) */
gchar *
gnt_rpc_server_dup_uri(GntRpcServer *self);
/* The bound port, 0 before listening. */
guint
gnt_rpc_server_get_port(GntRpcServer *self);
/* Procedures still running in worker threads (their answers are sent from
 * the server's context once they return). */
guint
gnt_rpc_server_get_n_running(GntRpcServer *self);
/* Connections stay open between calls; one idle for @seconds (default
 * GNT_RPC_KEEP_ALIVE_S, at least 1) after an answer is closed by the
 * server, within a second. Thread-safe. */
void
gnt_rpc_server_set_keep_alive(GntRpcServer *self, guint seconds);
/* Connections the server holds open (busy or idle); thread-safe. */
guint
gnt_rpc_server_get_n_connections(GntRpcServer *self);
/* Stops listening and closes the connections; running procedures finish
 * but their answers are dropped. */
void
gnt_rpc_server_stop(GntRpcServer *self);

/* Parses "ADDR:PORT", "[V6ADDR]:PORT" or "ADDR" (then @default_port).
 * GNT_ERROR_INVALID naming @text. */
gboolean
gnt_rpc_parse_listen_address(const gchar *text, guint default_port, gchar **address, guint *port,
			     GError **error);

G_END_DECLS
