#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * The node RPC wire format (doc/node-rpc.md), shared by the server and the
 * client: `PUT /<procedure>` over mutual TLS with a JSON list of arguments
 * as the body, answered by
 *
 *	{"success": true, "result": <any JSON>}
 *	{"success": false, "result": {"message": "...", "ecode": "wrong_input"}}
 *
 * The ecode is Ganeti's error class (gnt_error_to_ecode()). A procedure that
 * ran answers 200 either way; a request that never reached one answers 4xx
 * with the same error body (400 bad body, 403 not the master, 404 unknown
 * procedure, 405 not PUT, 413 body too large).
 */

#define GNT_RPC_DEFAULT_PORT	 1811 /* Ganeti's noded port */
#define GNT_RPC_PROTOCOL_VERSION 1
#define GNT_RPC_MAX_BODY_SIZE	 (16 * 1024 * 1024)
#define GNT_RPC_CONTENT_TYPE	 "application/json"
/* Connections are kept open between calls: the node closes one idle for
 * GNT_RPC_KEEP_ALIVE_S, and the master reuses one only while it has been
 * idle for less than GNT_RPC_CLIENT_MAX_IDLE_S, well below, so that the node
 * never closes a connection the master is about to send on. */
#define GNT_RPC_KEEP_ALIVE_S	  60
#define GNT_RPC_CLIENT_MAX_IDLE_S 30

/* The success body for @result (not taken). (transfer full) */
gchar *
gnt_rpc_encode_success(JsonNode *result);
/* The error body for @error (any domain: non-GNT_ERROR codes become
 * internal_error). (transfer full) */
gchar *
gnt_rpc_encode_error(const GError *error);
/* Same, from a code and a message. (transfer full) */
gchar *
gnt_rpc_encode_error_literal(gint code, const gchar *message);

/*
 * Reads an answer: the result of a success (transfer full), or NULL with the
 * node's error (its message, its ecode as the GNT_ERROR code). A body that is
 * not an answer fails with GNT_ERROR_ENVIRONMENT "malformed answer: ...".
 */
JsonNode *
gnt_rpc_decode_answer(const gchar *data, gsize len, GError **error);

G_END_DECLS
