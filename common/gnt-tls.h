#pragma once

#include <gio/gio.h>

#include "gnt-paths.h"

G_BEGIN_DECLS

/*
 * The cluster's public key infrastructure (doc/node-rpc.md): one CA per
 * cluster ("gantry-ca:<cluster>", ECDSA P-256, ten years) that signs
 *
 *  - one server certificate per node (CN the node name, SANs the name and its
 *    addresses), which its gantry-noded presents, and
 *  - the master role's client certificate (CN "gantry-master:<cluster>"),
 *    which the master presents to every node.
 *
 * Peers are checked against the CA with GnuTLS, not with the system's trust
 * store, and by their CN: a certificate from any other CA, or one of ours for
 * another name or role, is refused. Keys are written 0600, certificates 0644,
 * each atomically (a temporary file renamed into place). Every error names the
 * file or the certificate it is about; codes are GNT_ERROR_ENVIRONMENT for
 * files and GnuTLS failures, GNT_ERROR_INVALID for unparsable input and
 * refused certificates, GNT_ERROR_NOT_FOUND for missing files.
 */

typedef enum {
	GNT_TLS_ROLE_NODE,   /* server certificate of a gantry-noded */
	GNT_TLS_ROLE_MASTER, /* client certificate of the master role */
} GntTlsRole;

#define GNT_TLS_CA_CN_PREFIX	   "gantry-ca:"
#define GNT_TLS_MASTER_CN_PREFIX   "gantry-master:"
#define GNT_TLS_CA_VALIDITY_DAYS   (10 * 365)
#define GNT_TLS_CERT_VALIDITY_DAYS (10 * 365)

/* The cluster CA: certificate and private key, in memory. */
typedef struct _GntTlsCa GntTlsCa;

/* A new self-signed CA for @cluster. */
GntTlsCa *
gnt_tls_ca_new(const gchar *cluster, GError **error);
/* Loads a CA written by gnt_tls_ca_save(). */
GntTlsCa *
gnt_tls_ca_load(const gchar *cert_path, const gchar *key_path, GError **error);
void
gnt_tls_ca_free(GntTlsCa *self);
/* Writes the certificate (0644) and the key (0600). */
gboolean
gnt_tls_ca_save(GntTlsCa *self, const gchar *cert_path, const gchar *key_path, GError **error);
/* The cluster name from the CA's CN. */
const gchar *
gnt_tls_ca_get_cluster(const GntTlsCa *self);
/* PEM of the CA certificate. (transfer full) */
gchar *
gnt_tls_ca_dup_certificate_pem(GntTlsCa *self);
/* SHA-256 of the CA certificate, lowercase hex (64 characters). (transfer full) */
gchar *
gnt_tls_ca_dup_fingerprint(GntTlsCa *self);

/*
 * Makes a new key and a certificate signed by @self for @role: CN @name
 * (for GNT_TLS_ROLE_MASTER the master CN of the CA's cluster, @name
 * ignored), SANs @name and @addresses (IPv4/IPv6 literals become IP SANs,
 * anything else a DNS name; NULL for none). Writes @cert_path (the
 * certificate followed by the CA's, so a peer gets the whole chain, 0644)
 * and @key_path (0600).
 */
gboolean
gnt_tls_ca_issue(GntTlsCa *self, GntTlsRole role, const gchar *name, const gchar *const *addresses,
		 const gchar *cert_path, const gchar *key_path, GError **error);

/*
 * Signs a certificate request (PEM, made by gnt_tls_new_request()): checks its
 * self-signature (the requester holds the key) and that its CN is @name, then
 * issues a node certificate for its public key with the SANs @name and
 * @addresses. Returns the certificate followed by the CA's, PEM.
 * (transfer full)
 */
gchar *
gnt_tls_ca_sign_request(GntTlsCa *self, const gchar *request_pem, const gchar *name,
			const gchar *const *addresses, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntTlsCa, gnt_tls_ca_free)

/* A new ECDSA key (PKCS#8 PEM, *@key_pem) and a request for CN @name signed
 * by it (PKCS#10 PEM, *@request_pem). (transfer full) */
gboolean
gnt_tls_new_request(const gchar *name, gchar **key_pem, gchar **request_pem, GError **error);

/* The master's CN for @cluster. (transfer full) */
gchar *
gnt_tls_dup_master_cn(const gchar *cluster);

/* Writes @len bytes (-1: NUL-terminated) to @path atomically with @mode,
 * creating its directory (0700) if needed. */
gboolean
gnt_tls_write_file(const gchar *path, const gchar *data, gssize len, int mode, GError **error);

/* A certificate (with the chain that follows it in the file) and its key.
 * (transfer full) */
GTlsCertificate *
gnt_tls_load_certificate(const gchar *cert_path, const gchar *key_path, GError **error);
/* A certificate without a key (the CA, for verification). (transfer full) */
GTlsCertificate *
gnt_tls_load_ca_certificate(const gchar *cert_path, GError **error);

/* SHA-256 of @cert's DER encoding, lowercase hex. (transfer full) */
gchar *
gnt_tls_certificate_dup_fingerprint(GTlsCertificate *cert);
/* The subject CN of @cert; NULL (with GNT_ERROR_INVALID) if it has none.
 * (transfer full) */
gchar *
gnt_tls_certificate_dup_cn(GTlsCertificate *cert, GError **error);

/*
 * Whether @peer (with the issuers it presented) chains to the CA @ca, is
 * valid now, is meant for @role (TLS server for nodes, TLS client for the
 * master) and has the CN @expected_cn. GNT_ERROR_INVALID with the reason
 * ("certificate CN 'node3' is not 'node2'", "certificate not signed by the
 * cluster CA: ...") otherwise.
 */
gboolean
gnt_tls_verify_peer(GTlsCertificate *ca, GTlsCertificate *peer, GntTlsRole role,
		    const gchar *expected_cn, GError **error);

/*
 * As gnt_tls_verify_peer(), for a peer whose CA is known only by its
 * SHA-256 fingerprint @ca_fingerprint (a joining node): the CA must be the
 * last certificate of the chain @peer presented.
 */
gboolean
gnt_tls_verify_peer_pinned(const gchar *ca_fingerprint, GTlsCertificate *peer, GntTlsRole role,
			   const gchar *expected_cn, GError **error);

/*
 * A GTlsDatabase that accepts exactly the peers gnt_tls_verify_peer() (or,
 * with a fingerprint instead of a CA, gnt_tls_verify_peer_pinned()) accepts:
 * set on a TLS connection or a SoupSession, the handshake fails before any
 * request is sent to a peer it refuses. The reason of the last refusal is
 * kept for the error message. Usable from any thread.
 */
#define GNT_TYPE_TLS_PEER_DATABASE (gnt_tls_peer_database_get_type())
G_DECLARE_FINAL_TYPE(GntTlsPeerDatabase, gnt_tls_peer_database, GNT, TLS_PEER_DATABASE,
		     GTlsDatabase)

/* Exactly one of @ca and @ca_fingerprint is non-NULL. */
GntTlsPeerDatabase *
gnt_tls_peer_database_new(GTlsCertificate *ca, const gchar *ca_fingerprint, GntTlsRole role,
			  const gchar *expected_cn);
/* Why the last peer was refused; NULL if none was. (transfer full) */
gchar *
gnt_tls_peer_database_dup_failure(GntTlsPeerDatabase *self);

/*
 * Creates the TLS files of a new cluster's master node under @paths'
 * TLS directory: the CA (ca.pem, ca.key), the node certificate of
 * @node_name with @addresses (node.pem, node.key), the master role's
 * client certificate (master.pem, master.key) and gantry-rapi's
 * (gnt_tls_issue_rapi_certificate()). Existing files are replaced.
 */
gboolean
gnt_tls_init_cluster(const GntPaths *paths, const gchar *cluster, const gchar *node_name,
		     const gchar *const *addresses, GError **error);

/*
 * Issues gantry-rapi's HTTPS certificate (rapi.pem, rapi.key) with the
 * cluster CA (ca.pem, ca.key, so on the master only): a TLS server
 * certificate with CN @node_name and the SANs @node_name, "localhost",
 * "127.0.0.1", "::1" and @addresses (may be NULL), so a client verifying
 * with ca.pem accepts it under any of those names. Replaces existing files.
 */
gboolean
gnt_tls_issue_rapi_certificate(const GntPaths *paths, const gchar *node_name,
			       const gchar *const *addresses, GError **error);

G_END_DECLS
