#pragma once

#include <glib.h>

#include "gnt-paths.h"
#include "gnt-rpc-server.h"

G_BEGIN_DECLS

/*
 * Joining a node without ssh (doc/node-rpc.md, "Joining"). The master makes
 * a one-time token for one node name; the operator hands it to the new node
 * (`gantry-noded --join TOKEN`), which makes its own key, connects to the
 * join endpoint of the master node's gantry-noded (TLS, the server's CA
 * pinned by the fingerprint in the token, its CN the master node's name),
 * and sends a certificate request with an HMAC of it keyed by the token's
 * secret. The master checks the HMAC, that the token is unused and not
 * expired, signs the request, marks the token used and answers with the
 * certificate and the CA. The secret itself never crosses the wire.
 */

#define GNT_JOIN_TOKEN_PREFIX  "GNTJ1."
#define GNT_JOIN_PROCEDURE     "join"
#define GNT_JOIN_DEFAULT_TTL_S 3600

typedef struct {
	gchar *node_name;      /* the node this token lets join */
	gchar *id;	       /* public, names the token in logs and messages */
	gchar *secret;	       /* 256 random bits, hex */
	gchar *ca_fingerprint; /* SHA-256 of the cluster CA, hex */
	gchar *master_name;    /* CN of the master node's certificate */
	gchar *address;	       /* where the master node's gantry-noded listens */
	guint port;
	gint64 expires; /* seconds since the epoch */
} GntJoinToken;

void
gnt_join_token_free(GntJoinToken *self);
/* The one printable string: "GNTJ1." and base64url of a JSON object.
 * (transfer full) */
gchar *
gnt_join_token_to_string(const GntJoinToken *self);
/* GNT_ERROR_INVALID if @text is not a token. (transfer full) */
GntJoinToken *
gnt_join_token_parse(const gchar *text, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntJoinToken, gnt_join_token_free)

/*
 * On the master node: makes a token for @node_name valid for @ttl_s seconds
 * (0: expired at once, for tests), pointing at the join endpoint
 * @address:@port, and records it in @paths' join-tokens.json (0600, under a
 * lock, so masterd and noded may share it). Reads the CA fingerprint and the
 * master node's name from @paths' TLS files. (transfer full)
 */
GntJoinToken *
gnt_join_create_token(const GntPaths *paths, const gchar *node_name, const gchar *address,
		      guint port, guint ttl_s, GError **error);

/* The master node's side: the CA (certificate and key) and the token file. */
typedef struct _GntJoinAuthority GntJoinAuthority;

/* Loads the CA from @paths; GNT_ERROR_NOT_FOUND without ca.key (not the
 * master node). */
GntJoinAuthority *
gnt_join_authority_new(const GntPaths *paths, GError **error);
void
gnt_join_authority_free(GntJoinAuthority *self);
/* Registers the public "join" procedure on @server; @self must outlive it.
 * Its errors: GNT_ERROR_NOT_FOUND unknown token, GNT_ERROR_WRONG_STATE used
 * or expired, GNT_ERROR_INVALID wrong node, proof or request. */
void
gnt_join_authority_add_endpoint(GntJoinAuthority *self, GntRpcServer *server);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntJoinAuthority, gnt_join_authority_free)

/*
 * On the joining node: runs the protocol for @token_text and writes ca.pem,
 * node.pem and node.key under @paths. @addresses (NULL: none) go into the
 * certificate's SANs. GNT_ERROR_EXISTS if the node already has a
 * certificate; errors from the master name it ("node 'master' (ADDR:PORT):
 * join: join token '...' was already used").
 */
gboolean
gnt_join_cluster(const GntPaths *paths, const gchar *token_text, const gchar *const *addresses,
		 guint timeout_s, GError **error);

G_END_DECLS
