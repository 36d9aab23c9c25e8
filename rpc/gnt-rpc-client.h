#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gnt-paths.h"
#include "gnt-rpc-protocol.h"
#include "gnt-secret-dict.h"

G_BEGIN_DECLS

/*
 * The master side of node RPC (doc/node-rpc.md). Calls block, and may be
 * made from any number of threads at once (job workers). A libsoup 3 session
 * is used by one thread at a time, so each thread keeps its own sessions,
 * one per node (and timeout), and reuses their connections across calls for
 * up to GNT_RPC_CLIENT_MAX_IDLE_S of idleness. A connection's TLS handshake
 * checks the node's certificate (chain to the cluster CA, CN the node's
 * name) before any request, which may carry secrets, is written on it.
 */

#define GNT_TYPE_RPC_CLIENT (gnt_rpc_client_get_type())
G_DECLARE_FINAL_TYPE(GntRpcClient, gnt_rpc_client, GNT, RPC_CLIENT, GObject)

/* @ca: the cluster CA; @certificate: the master role's, with its key. Both
 * are referenced. */
GntRpcClient *
gnt_rpc_client_new(GTlsCertificate *ca, GTlsCertificate *certificate);
/* Loads ca.pem, master.pem and master.key from @paths' TLS directory. */
GntRpcClient *
gnt_rpc_client_new_from_paths(const GntPaths *paths, GError **error);

/*
 * What carries a client's calls instead of the network: a test's fake node.
 * Called in the calling thread, from any number of threads at once, with
 * the call's arguments (placeholders for @secrets, nullable, as the
 * network's body would hold them before filling). Returns the result
 * (transfer full), or NULL with @error set: the client prefixes it with
 * the node and procedure, as a procedure's failure on a real node.
 */
typedef JsonNode *(*GntRpcTransportFunc)(const gchar *node_name, const gchar *procedure,
					 JsonArray *args, const GntSecretDict *secrets,
					 gpointer user_data, GError **error);

/* A client whose calls @transport answers; @destroy (nullable) frees
 * @user_data with the client. */
GntRpcClient *
gnt_rpc_client_new_with_transport(GntRpcTransportFunc transport, gpointer user_data,
				  GDestroyNotify destroy);

/*
 * Calls @procedure with @args (NULL: no arguments; not taken) on the
 * gantry-noded of @node_name at @address:@port, waiting at most @timeout_s
 * seconds (0: 60) for each step. Returns the result (transfer full), or NULL
 * with a GNT_ERROR whose message names the node and the reason:
 *
 *	node 'node2' (10.0.0.2:1811): connection refused
 *	node 'node2' (10.0.0.2:1811): no answer within 10 s
 *	node 'node2' (10.0.0.2:1811): certificate refused: certificate CN 'node3' is not 'node2'
 *	node 'node2' (10.0.0.2:1811): test_delay: 'duration' must be a number
 *
 * Codes: the node's own ecode for a procedure's failure (and 400/404),
 * GNT_ERROR_ENVIRONMENT for the network, TLS, refusals and malformed answers.
 */
JsonNode *
gnt_rpc_client_call(GntRpcClient *self, const gchar *node_name, const gchar *address, guint port,
		    const gchar *procedure, JsonArray *args, guint timeout_s, GError **error);
/* The same, @args holding placeholders for @secrets (nullable;
 * common/gnt-secret-dict.h): the body is built, sent and freed in wiped,
 * protected memory. */
JsonNode *
gnt_rpc_client_call_with_secrets(GntRpcClient *self, const gchar *node_name, const gchar *address,
				 guint port, const gchar *procedure, JsonArray *args,
				 const GntSecretDict *secrets, guint timeout_s, GError **error);

G_END_DECLS
