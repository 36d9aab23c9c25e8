#include "gnt-tls.h"

#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <glib/gstdio.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "gnt-error.h"
#include "gnt-secret.h"

#define TLS_SERIAL_BYTES 16
#define TLS_CLOCK_SKEW_S 3600 /* certificates are valid from an hour ago */
#define TLS_MAX_CHAIN	 8

struct _GntTlsCa {
	gnutls_x509_crt_t crt;
	gnutls_x509_privkey_t key;
	gchar *cluster;
};

/* GNT_ERROR_ENVIRONMENT "@what: <GnuTLS's reason>". */
static void
set_gnutls_error(GError **error, int ret, const gchar *what)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "%s: %s", what, gnutls_strerror(ret));
}

static void
free_datum(gnutls_datum_t *datum)
{
	gnutls_free(datum->data);
	datum->data = NULL;
	datum->size = 0;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(gnutls_datum_t, free_datum)

static gchar *
hex_encode(const guchar *data, gsize len)
{
	GString *out = g_string_sized_new(len * 2);

	for (gsize i = 0; i < len; i++)
		g_string_append_printf(out, "%02x", data[i]);
	return g_string_free(out, FALSE);
}

static gchar *
crt_dup_fingerprint(gnutls_x509_crt_t crt)
{
	guchar digest[32];
	size_t size = sizeof(digest);

	if (gnutls_x509_crt_get_fingerprint(crt, GNUTLS_DIG_SHA256, digest, &size) < 0)
		return g_strdup("");
	return hex_encode(digest, size);
}

/* The subject CN, or NULL. (transfer full) */
static gchar *
crt_dup_cn(gnutls_x509_crt_t crt)
{
	gchar buf[256];
	size_t size = sizeof(buf);

	if (gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, buf, &size) < 0)
		return NULL;
	return g_strndup(buf, size);
}

static gchar *
crt_export_pem(gnutls_x509_crt_t crt)
{
	g_auto(gnutls_datum_t) out = {NULL, 0};

	if (gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &out) < 0)
		return g_strdup("");
	return g_strndup((const gchar *)out.data, out.size);
}

static gboolean
generate_key(gnutls_x509_privkey_t *key, GError **error)
{
	int ret = gnutls_x509_privkey_init(key);

	if (ret >= 0)
		ret = gnutls_x509_privkey_generate(
			*key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0);
	if (ret < 0) {
		set_gnutls_error(error, ret, "generating an ECDSA P-256 key");
		return FALSE;
	}
	return TRUE;
}

/* PKCS#8 PEM, the form GTlsCertificate reads. (transfer full) */
static gchar *
key_export_pem(gnutls_x509_privkey_t key, GError **error)
{
	g_auto(gnutls_datum_t) out = {NULL, 0};
	gchar *pem;
	int ret = gnutls_x509_privkey_export2_pkcs8(key, GNUTLS_X509_FMT_PEM, NULL,
						    GNUTLS_PKCS_PLAIN, &out);

	if (ret < 0) {
		set_gnutls_error(error, ret, "exporting a private key");
		return NULL;
	}
	pem = g_strndup((const gchar *)out.data, out.size);
	gnt_secret_wipe(out.data, out.size);
	return pem;
}

/* Version, serial, validity and CN: what every certificate of ours has. */
static int
crt_set_common(gnutls_x509_crt_t crt, const gchar *cn, guint days)
{
	guchar serial[TLS_SERIAL_BYTES];
	time_t now = time(NULL);
	int ret;

	if ((ret = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial))) < 0)
		return ret;
	serial[0] &= 0x7f; /* a positive integer */
	serial[0] |= 0x01; /* without a leading zero byte */
	if ((ret = gnutls_x509_crt_set_version(crt, 3)) < 0 ||
	    (ret = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial))) < 0 ||
	    (ret = gnutls_x509_crt_set_activation_time(crt, now - TLS_CLOCK_SKEW_S)) < 0 ||
	    (ret = gnutls_x509_crt_set_expiration_time(crt, now + (time_t)days * 86400)) < 0)
		return ret;
	return gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
					     (unsigned int)strlen(cn));
}

static int
crt_add_san(gnutls_x509_crt_t crt, const gchar *name)
{
	guchar ip[16];

	if (inet_pton(AF_INET, name, ip) == 1)
		return gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, 4,
							    GNUTLS_FSAN_APPEND);
	if (inet_pton(AF_INET6, name, ip) == 1)
		return gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, 16,
							    GNUTLS_FSAN_APPEND);
	return gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, name,
						    (unsigned int)strlen(name), GNUTLS_FSAN_APPEND);
}

void
gnt_tls_ca_free(GntTlsCa *self)
{
	if (self == NULL)
		return;
	if (self->crt != NULL)
		gnutls_x509_crt_deinit(self->crt);
	if (self->key != NULL)
		gnutls_x509_privkey_deinit(self->key);
	g_free(self->cluster);
	g_free(self);
}

GntTlsCa *
gnt_tls_ca_new(const gchar *cluster, GError **error)
{
	g_autoptr(GntTlsCa) self = g_new0(GntTlsCa, 1);
	g_autofree gchar *cn = NULL;
	guchar key_id[64];
	size_t key_id_size = sizeof(key_id);
	int ret;

	g_return_val_if_fail(cluster != NULL && cluster[0] != '\0', NULL);
	cn = g_strconcat(GNT_TLS_CA_CN_PREFIX, cluster, NULL);
	self->cluster = g_strdup(cluster);
	if (!generate_key(&self->key, error))
		return NULL;
	if ((ret = gnutls_x509_crt_init(&self->crt)) < 0 ||
	    (ret = crt_set_common(self->crt, cn, GNT_TLS_CA_VALIDITY_DAYS)) < 0 ||
	    (ret = gnutls_x509_crt_set_key(self->crt, self->key)) < 0 ||
	    (ret = gnutls_x509_crt_set_basic_constraints(self->crt, 1, 0)) < 0 ||
	    (ret = gnutls_x509_crt_set_key_usage(self->crt, GNUTLS_KEY_KEY_CERT_SIGN |
								    GNUTLS_KEY_CRL_SIGN)) < 0 ||
	    (ret = gnutls_x509_crt_get_key_id(self->crt, GNUTLS_KEYID_USE_SHA1, key_id,
					      &key_id_size)) < 0 ||
	    (ret = gnutls_x509_crt_set_subject_key_id(self->crt, key_id, key_id_size)) < 0 ||
	    (ret = gnutls_x509_crt_sign2(self->crt, self->crt, self->key, GNUTLS_DIG_SHA256, 0)) <
		    0) {
		set_gnutls_error(error, ret, "creating the cluster CA");
		return NULL;
	}
	return g_steal_pointer(&self);
}

/* Reads @path whole. (transfer full) */
static gboolean
read_file(const gchar *path, gnutls_datum_t *out, gchar **data, GError **error)
{
	gsize len = 0;

	if (!g_file_get_contents(path, data, &len, error)) {
		gboolean missing = g_error_matches(*error, G_FILE_ERROR, G_FILE_ERROR_NOENT);

		gnt_error_convert(error);
		if (missing)
			(*error)->code = GNT_ERROR_NOT_FOUND;
		return FALSE;
	}
	out->data = (guchar *)*data;
	out->size = (unsigned int)len;
	return TRUE;
}

GntTlsCa *
gnt_tls_ca_load(const gchar *cert_path, const gchar *key_path, GError **error)
{
	g_autoptr(GntTlsCa) self = g_new0(GntTlsCa, 1);
	g_autofree gchar *cert_data = NULL;
	g_autofree gchar *key_data = NULL;
	g_autofree gchar *cn = NULL;
	gnutls_datum_t datum = {NULL, 0};
	int ret;

	if (!read_file(cert_path, &datum, &cert_data, error))
		return NULL;
	if ((ret = gnutls_x509_crt_init(&self->crt)) < 0 ||
	    (ret = gnutls_x509_crt_import(self->crt, &datum, GNUTLS_X509_FMT_PEM)) < 0) {
		g_autofree gchar *what = g_strdup_printf("reading CA certificate '%s'", cert_path);
		set_gnutls_error(error, ret, what);
		(*error)->code = GNT_ERROR_INVALID;
		return NULL;
	}
	cn = crt_dup_cn(self->crt);
	if (cn == NULL || !g_str_has_prefix(cn, GNT_TLS_CA_CN_PREFIX)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' is not a Gantry cluster CA (CN '%s')", cert_path,
			    cn != NULL ? cn : "");
		return NULL;
	}
	self->cluster = g_strdup(cn + strlen(GNT_TLS_CA_CN_PREFIX));
	if (!read_file(key_path, &datum, &key_data, error))
		return NULL;
	ret = gnutls_x509_privkey_init(&self->key);
	if (ret >= 0)
		ret = gnutls_x509_privkey_import(self->key, &datum, GNUTLS_X509_FMT_PEM);
	gnt_secret_wipe(key_data, datum.size);
	if (ret < 0) {
		g_autofree gchar *what = g_strdup_printf("reading CA key '%s'", key_path);
		set_gnutls_error(error, ret, what);
		(*error)->code = GNT_ERROR_INVALID;
		return NULL;
	}
	return g_steal_pointer(&self);
}

gboolean
gnt_tls_write_file(const gchar *path, const gchar *data, gssize len, int mode, GError **error)
{
	g_autofree gchar *dir = g_path_get_dirname(path);

	if (g_mkdir_with_parents(dir, 0700) != 0) {
		g_autofree gchar *what = g_strdup_printf("creating '%s'", dir);
		gnt_error_set_errno(error, errno, what);
		return FALSE;
	}
	if (len < 0)
		len = (gssize)strlen(data);
	if (!g_file_set_contents_full(path, data, len, G_FILE_SET_CONTENTS_CONSISTENT, mode,
				      error)) {
		gnt_error_convert(error);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_tls_ca_save(GntTlsCa *self, const gchar *cert_path, const gchar *key_path, GError **error)
{
	g_autofree gchar *cert_pem = crt_export_pem(self->crt);
	g_autofree gchar *key_pem = key_export_pem(self->key, error);
	gboolean ok;

	if (key_pem == NULL)
		return FALSE;
	ok = gnt_tls_write_file(key_path, key_pem, -1, 0600, error) &&
	     gnt_tls_write_file(cert_path, cert_pem, -1, 0644, error);
	gnt_secret_wipe_string(key_pem);
	return ok;
}

const gchar *
gnt_tls_ca_get_cluster(const GntTlsCa *self)
{
	return self->cluster;
}

gchar *
gnt_tls_ca_dup_certificate_pem(GntTlsCa *self)
{
	return crt_export_pem(self->crt);
}

gchar *
gnt_tls_ca_dup_fingerprint(GntTlsCa *self)
{
	return crt_dup_fingerprint(self->crt);
}

gchar *
gnt_tls_dup_master_cn(const gchar *cluster)
{
	return g_strconcat(GNT_TLS_MASTER_CN_PREFIX, cluster, NULL);
}

/* Everything but the signature of a certificate for @pubkey issued by @self. */
static int
crt_fill_leaf(GntTlsCa *self, gnutls_x509_crt_t crt, gnutls_pubkey_t pubkey, GntTlsRole role,
	      const gchar *cn, const gchar *const *addresses)
{
	guchar key_id[64];
	size_t key_id_size = sizeof(key_id);
	const gchar *purpose = role == GNT_TLS_ROLE_NODE ? GNUTLS_KP_TLS_WWW_SERVER
							 : GNUTLS_KP_TLS_WWW_CLIENT;
	int ret;

	if ((ret = crt_set_common(crt, cn, GNT_TLS_CERT_VALIDITY_DAYS)) < 0 ||
	    (ret = gnutls_x509_crt_set_pubkey(crt, pubkey)) < 0 ||
	    (ret = gnutls_x509_crt_set_basic_constraints(crt, 0, -1)) < 0 ||
	    (ret = gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE)) < 0 ||
	    (ret = gnutls_x509_crt_set_key_purpose_oid(crt, purpose, 0)) < 0 ||
	    (ret = gnutls_x509_crt_get_subject_key_id(self->crt, key_id, &key_id_size, NULL)) < 0 ||
	    (ret = gnutls_x509_crt_set_authority_key_id(crt, key_id, key_id_size)) < 0)
		return ret;
	if (role == GNT_TLS_ROLE_NODE && (ret = crt_add_san(crt, cn)) < 0)
		return ret;
	for (guint i = 0; addresses != NULL && addresses[i] != NULL; i++) {
		if ((ret = crt_add_san(crt, addresses[i])) < 0)
			return ret;
	}
	return 0;
}

/* A certificate for @pubkey signed by @self: the leaf's PEM followed by the
 * CA's. (transfer full) */
static gchar *
ca_sign(GntTlsCa *self, gnutls_pubkey_t pubkey, GntTlsRole role, const gchar *cn,
	const gchar *const *addresses, GError **error)
{
	gnutls_x509_crt_t crt = NULL;
	g_autofree gchar *leaf = NULL;
	g_autofree gchar *ca = NULL;
	int ret;

	if ((ret = gnutls_x509_crt_init(&crt)) < 0 ||
	    (ret = crt_fill_leaf(self, crt, pubkey, role, cn, addresses)) < 0 ||
	    (ret = gnutls_x509_crt_sign2(crt, self->crt, self->key, GNUTLS_DIG_SHA256, 0)) < 0) {
		g_autofree gchar *what = g_strdup_printf("issuing a certificate for '%s'", cn);
		set_gnutls_error(error, ret, what);
		if (crt != NULL)
			gnutls_x509_crt_deinit(crt);
		return NULL;
	}
	leaf = crt_export_pem(crt);
	ca = crt_export_pem(self->crt);
	gnutls_x509_crt_deinit(crt);
	return g_strconcat(leaf, ca, NULL);
}

gboolean
gnt_tls_ca_issue(GntTlsCa *self, GntTlsRole role, const gchar *name, const gchar *const *addresses,
		 const gchar *cert_path, const gchar *key_path, GError **error)
{
	gnutls_x509_privkey_t x509_key = NULL;
	gnutls_privkey_t key = NULL; /* owns x509_key once imported */
	gnutls_pubkey_t pubkey = NULL;
	g_autofree gchar *key_pem = NULL;
	g_autofree gchar *cert_pem = NULL;
	g_autofree gchar *cn = NULL;
	gboolean ok;
	int ret;

	g_return_val_if_fail(role == GNT_TLS_ROLE_MASTER || name != NULL, FALSE);
	cn = role == GNT_TLS_ROLE_MASTER ? gnt_tls_dup_master_cn(self->cluster) : g_strdup(name);
	if (!generate_key(&x509_key, error))
		return FALSE;
	key_pem = key_export_pem(x509_key, error);
	if (key_pem == NULL) {
		gnutls_x509_privkey_deinit(x509_key);
		return FALSE;
	}
	ret = gnutls_privkey_init(&key);
	if (ret >= 0)
		ret = gnutls_privkey_import_x509(key, x509_key, GNUTLS_PRIVKEY_IMPORT_AUTO_RELEASE);
	if (ret < 0)
		gnutls_x509_privkey_deinit(x509_key); /* otherwise @key owns it */
	if (ret >= 0 && (ret = gnutls_pubkey_init(&pubkey)) >= 0)
		ret = gnutls_pubkey_import_privkey(pubkey, key, 0, 0);
	if (ret < 0) {
		set_gnutls_error(error, ret, "reading a new key");
		ok = FALSE;
	} else {
		cert_pem = ca_sign(self, pubkey, role, cn, addresses, error);
		ok = cert_pem != NULL && gnt_tls_write_file(key_path, key_pem, -1, 0600, error) &&
		     gnt_tls_write_file(cert_path, cert_pem, -1, 0644, error);
	}
	gnt_secret_wipe_string(key_pem);
	if (pubkey != NULL)
		gnutls_pubkey_deinit(pubkey);
	if (key != NULL)
		gnutls_privkey_deinit(key);
	return ok;
}

gboolean
gnt_tls_new_request(const gchar *name, gchar **key_pem, gchar **request_pem, GError **error)
{
	gnutls_x509_privkey_t key = NULL;
	gnutls_x509_crq_t crq = NULL;
	g_auto(gnutls_datum_t) out = {NULL, 0};
	g_autofree gchar *pem = NULL;
	int ret;

	if (!generate_key(&key, error))
		return FALSE;
	pem = key_export_pem(key, error);
	if (pem != NULL) {
		if ((ret = gnutls_x509_crq_init(&crq)) < 0 ||
		    (ret = gnutls_x509_crq_set_dn_by_oid(crq, GNUTLS_OID_X520_COMMON_NAME, 0, name,
							 (unsigned int)strlen(name))) < 0 ||
		    (ret = gnutls_x509_crq_set_key(crq, key)) < 0 ||
		    (ret = gnutls_x509_crq_sign2(crq, key, GNUTLS_DIG_SHA256, 0)) < 0 ||
		    (ret = gnutls_x509_crq_export2(crq, GNUTLS_X509_FMT_PEM, &out)) < 0) {
			set_gnutls_error(error, ret, "making a certificate request");
			gnt_secret_wipe_string(pem);
			g_clear_pointer(&pem, g_free);
		}
	}
	if (crq != NULL)
		gnutls_x509_crq_deinit(crq);
	gnutls_x509_privkey_deinit(key);
	if (pem == NULL)
		return FALSE;
	*key_pem = g_steal_pointer(&pem);
	*request_pem = g_strndup((const gchar *)out.data, out.size);
	return TRUE;
}

/* The public key of a request whose self-signature holds and whose CN is
 * @name. */
static gboolean
request_get_pubkey(const gchar *request_pem, const gchar *name, gnutls_pubkey_t *pubkey,
		   GError **error)
{
	gnutls_x509_crq_t crq = NULL;
	gnutls_datum_t datum = {(guchar *)request_pem, (unsigned int)strlen(request_pem)};
	gchar cn[256];
	size_t cn_size = sizeof(cn);
	gboolean ok = FALSE;
	int ret;

	if ((ret = gnutls_x509_crq_init(&crq)) < 0 ||
	    (ret = gnutls_x509_crq_import(crq, &datum, GNUTLS_X509_FMT_PEM)) < 0) {
		set_gnutls_error(error, ret, "reading the certificate request");
		(*error)->code = GNT_ERROR_INVALID;
	} else if ((ret = gnutls_x509_crq_verify(crq, 0)) < 0) {
		set_gnutls_error(error, ret, "certificate request not signed by its own key");
		(*error)->code = GNT_ERROR_INVALID;
	} else if (gnutls_x509_crq_get_dn_by_oid(crq, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn,
						 &cn_size) < 0 ||
		   strlen(name) != cn_size || memcmp(cn, name, cn_size) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "certificate request is not for '%s'", name);
	} else if ((ret = gnutls_pubkey_init(pubkey)) < 0 ||
		   (ret = gnutls_pubkey_import_x509_crq(*pubkey, crq, 0)) < 0) {
		set_gnutls_error(error, ret, "reading the request's public key");
	} else {
		ok = TRUE;
	}
	if (crq != NULL)
		gnutls_x509_crq_deinit(crq);
	return ok;
}

gchar *
gnt_tls_ca_sign_request(GntTlsCa *self, const gchar *request_pem, const gchar *name,
			const gchar *const *addresses, GError **error)
{
	gnutls_pubkey_t pubkey = NULL;
	gchar *pem = NULL;

	if (request_get_pubkey(request_pem, name, &pubkey, error))
		pem = ca_sign(self, pubkey, GNT_TLS_ROLE_NODE, name, addresses, error);
	if (pubkey != NULL)
		gnutls_pubkey_deinit(pubkey);
	return pem;
}

GTlsCertificate *
gnt_tls_load_certificate(const gchar *cert_path, const gchar *key_path, GError **error)
{
	GTlsCertificate *cert;

	if (!g_file_test(cert_path, G_FILE_TEST_EXISTS) ||
	    !g_file_test(key_path, G_FILE_TEST_EXISTS)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "'%s' does not exist",
			    g_file_test(cert_path, G_FILE_TEST_EXISTS) ? key_path : cert_path);
		return NULL;
	}
	cert = g_tls_certificate_new_from_files(cert_path, key_path, error);
	if (cert == NULL) {
		gnt_error_convert(error);
		g_prefix_error(error, "loading certificate '%s' with key '%s': ", cert_path,
			       key_path);
	}
	return cert;
}

GTlsCertificate *
gnt_tls_load_ca_certificate(const gchar *cert_path, GError **error)
{
	GTlsCertificate *cert;

	if (!g_file_test(cert_path, G_FILE_TEST_EXISTS)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "'%s' does not exist",
			    cert_path);
		return NULL;
	}
	cert = g_tls_certificate_new_from_file(cert_path, error);
	if (cert == NULL) {
		gnt_error_convert(error);
		g_prefix_error(error, "loading CA certificate '%s': ", cert_path);
	}
	return cert;
}

/* @cert (DER) as GnuTLS's. */
static int
crt_from_gtls(GTlsCertificate *cert, gnutls_x509_crt_t *out)
{
	g_autoptr(GByteArray) der = NULL;
	gnutls_datum_t datum;
	int ret;

	g_object_get(cert, "certificate", &der, NULL);
	if (der == NULL)
		return GNUTLS_E_CERTIFICATE_ERROR;
	datum.data = der->data;
	datum.size = der->len;
	if ((ret = gnutls_x509_crt_init(out)) < 0)
		return ret;
	ret = gnutls_x509_crt_import(*out, &datum, GNUTLS_X509_FMT_DER);
	if (ret < 0) {
		gnutls_x509_crt_deinit(*out);
		*out = NULL;
	}
	return ret;
}

gchar *
gnt_tls_certificate_dup_fingerprint(GTlsCertificate *cert)
{
	g_autoptr(GByteArray) der = NULL;

	g_object_get(cert, "certificate", &der, NULL);
	g_return_val_if_fail(der != NULL, NULL);
	return g_compute_checksum_for_data(G_CHECKSUM_SHA256, der->data, der->len);
}

gchar *
gnt_tls_certificate_dup_cn(GTlsCertificate *cert, GError **error)
{
	gnutls_x509_crt_t crt = NULL;
	gchar *cn = NULL;

	if (crt_from_gtls(cert, &crt) >= 0) {
		cn = crt_dup_cn(crt);
		gnutls_x509_crt_deinit(crt);
	}
	if (cn == NULL)
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "certificate has no common name");
	return cn;
}

/* The certificates @peer presented, leaf first. */
typedef struct {
	gnutls_x509_crt_t crts[TLS_MAX_CHAIN];
	guint len;
} TlsChain;

static void
tls_chain_clear(TlsChain *self)
{
	for (guint i = 0; i < self->len; i++)
		gnutls_x509_crt_deinit(self->crts[i]);
	self->len = 0;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(TlsChain, tls_chain_clear)

static gboolean
tls_chain_init(TlsChain *self, GTlsCertificate *peer, GError **error)
{
	for (GTlsCertificate *c = peer; c != NULL; c = g_tls_certificate_get_issuer(c)) {
		int ret;

		if (self->len == TLS_MAX_CHAIN) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "certificate chain longer than %d", TLS_MAX_CHAIN);
			return FALSE;
		}
		if ((ret = crt_from_gtls(c, &self->crts[self->len])) < 0) {
			set_gnutls_error(error, ret, "reading the peer's certificate");
			(*error)->code = GNT_ERROR_INVALID;
			return FALSE;
		}
		self->len++;
	}
	return TRUE;
}

/* Verifies @chain against the single trusted CA @ca (taken over). */
static gboolean
tls_chain_verify(TlsChain *chain, gnutls_x509_crt_t ca, GntTlsRole role, const gchar *expected_cn,
		 GError **error)
{
	gnutls_x509_trust_list_t list = NULL;
	gnutls_typed_vdata_st purpose = {
		.type = GNUTLS_DT_KEY_PURPOSE_OID,
		.data = (guchar *)(role == GNT_TLS_ROLE_NODE ? GNUTLS_KP_TLS_WWW_SERVER
							     : GNUTLS_KP_TLS_WWW_CLIENT),
	};
	g_autofree gchar *cn = NULL;
	unsigned int status = 0;
	int ret;

	if ((ret = gnutls_x509_trust_list_init(&list, 0)) < 0) {
		gnutls_x509_crt_deinit(ca);
		set_gnutls_error(error, ret, "verifying a certificate");
		return FALSE;
	}
	ret = gnutls_x509_trust_list_add_cas(list, &ca, 1, 0); /* the list owns @ca now */
	if (ret >= 0)
		ret = gnutls_x509_trust_list_verify_crt2(list, chain->crts, chain->len, &purpose, 1,
							 0, &status, NULL);
	gnutls_x509_trust_list_deinit(list, 1);
	if (ret < 0) {
		set_gnutls_error(error, ret, "verifying a certificate");
		return FALSE;
	}
	cn = crt_dup_cn(chain->crts[0]);
	if (status != 0) {
		g_auto(gnutls_datum_t) reason = {NULL, 0};

		gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &reason, 0);
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "certificate '%s' not accepted by the cluster CA: %s",
			    cn != NULL ? cn : "", reason.data != NULL ? (gchar *)reason.data : "");
		return FALSE;
	}
	if (g_strcmp0(cn, expected_cn) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "certificate CN '%s' is not '%s'",
			    cn != NULL ? cn : "", expected_cn);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_tls_verify_peer(GTlsCertificate *ca, GTlsCertificate *peer, GntTlsRole role,
		    const gchar *expected_cn, GError **error)
{
	g_auto(TlsChain) chain = {{NULL}, 0};
	gnutls_x509_crt_t ca_crt = NULL;
	int ret;

	g_return_val_if_fail(G_IS_TLS_CERTIFICATE(ca), FALSE);
	if (peer == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "no certificate presented");
		return FALSE;
	}
	if (!tls_chain_init(&chain, peer, error))
		return FALSE;
	if ((ret = crt_from_gtls(ca, &ca_crt)) < 0) {
		set_gnutls_error(error, ret, "reading the cluster CA");
		return FALSE;
	}
	return tls_chain_verify(&chain, ca_crt, role, expected_cn, error);
}

gboolean
gnt_tls_verify_peer_pinned(const gchar *ca_fingerprint, GTlsCertificate *peer, GntTlsRole role,
			   const gchar *expected_cn, GError **error)
{
	g_auto(TlsChain) chain = {{NULL}, 0};
	g_autofree gchar *fingerprint = NULL;
	GTlsCertificate *last = peer;
	gnutls_x509_crt_t ca_crt = NULL;
	int ret;

	if (peer == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "no certificate presented");
		return FALSE;
	}
	while (g_tls_certificate_get_issuer(last) != NULL)
		last = g_tls_certificate_get_issuer(last);
	fingerprint = gnt_tls_certificate_dup_fingerprint(last);
	if (g_ascii_strcasecmp(fingerprint, ca_fingerprint) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the peer's CA has fingerprint %s, not the pinned %s", fingerprint,
			    ca_fingerprint);
		return FALSE;
	}
	if (!tls_chain_init(&chain, peer, error))
		return FALSE;
	if ((ret = crt_from_gtls(last, &ca_crt)) < 0) {
		set_gnutls_error(error, ret, "reading the peer's CA");
		return FALSE;
	}
	return tls_chain_verify(&chain, ca_crt, role, expected_cn, error);
}

struct _GntTlsPeerDatabase {
	GTlsDatabase parent_instance;
	GTlsCertificate *ca;
	gchar *ca_fingerprint;
	GntTlsRole role;
	gchar *expected_cn;
	GMutex lock; /* guards failure: handshakes may run in other threads */
	gchar *failure;
};

G_DEFINE_TYPE(GntTlsPeerDatabase, gnt_tls_peer_database, G_TYPE_TLS_DATABASE)

static GTlsCertificateFlags
peer_database_verify_chain(GTlsDatabase *database, GTlsCertificate *chain, const gchar *purpose,
			   GSocketConnectable *identity, GTlsInteraction *interaction,
			   GTlsDatabaseVerifyFlags flags, GCancellable *cancellable, GError **error)
{
	GntTlsPeerDatabase *self = GNT_TLS_PEER_DATABASE(database);
	g_autoptr(GError) local_error = NULL;
	gboolean ok;

	if (self->ca != NULL)
		ok = gnt_tls_verify_peer(self->ca, chain, self->role, self->expected_cn,
					 &local_error);
	else
		ok = gnt_tls_verify_peer_pinned(self->ca_fingerprint, chain, self->role,
						self->expected_cn, &local_error);
	if (ok)
		return 0;
	g_mutex_lock(&self->lock);
	g_free(self->failure);
	self->failure = g_strdup(local_error->message);
	g_mutex_unlock(&self->lock);
	return G_TLS_CERTIFICATE_UNKNOWN_CA;
}

static GTlsCertificate *
peer_database_lookup_certificate_issuer(GTlsDatabase *database, GTlsCertificate *certificate,
					GTlsInteraction *interaction, GTlsDatabaseLookupFlags flags,
					GCancellable *cancellable, GError **error)
{
	return NULL; /* peers send their whole chain */
}

static GList *
peer_database_lookup_certificates_issued_by(GTlsDatabase *database, GByteArray *issuer,
					    GTlsInteraction *interaction,
					    GTlsDatabaseLookupFlags flags,
					    GCancellable *cancellable, GError **error)
{
	return NULL;
}

static void
gnt_tls_peer_database_finalize(GObject *object)
{
	GntTlsPeerDatabase *self = GNT_TLS_PEER_DATABASE(object);

	g_clear_object(&self->ca);
	g_free(self->ca_fingerprint);
	g_free(self->expected_cn);
	g_free(self->failure);
	g_mutex_clear(&self->lock);
	G_OBJECT_CLASS(gnt_tls_peer_database_parent_class)->finalize(object);
}

static void
gnt_tls_peer_database_class_init(GntTlsPeerDatabaseClass *klass)
{
	GTlsDatabaseClass *database_class = G_TLS_DATABASE_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = gnt_tls_peer_database_finalize;
	database_class->verify_chain = peer_database_verify_chain;
	database_class->lookup_certificate_issuer = peer_database_lookup_certificate_issuer;
	database_class->lookup_certificates_issued_by = peer_database_lookup_certificates_issued_by;
}

static void
gnt_tls_peer_database_init(GntTlsPeerDatabase *self)
{
	g_mutex_init(&self->lock);
}

GntTlsPeerDatabase *
gnt_tls_peer_database_new(GTlsCertificate *ca, const gchar *ca_fingerprint, GntTlsRole role,
			  const gchar *expected_cn)
{
	GntTlsPeerDatabase *self;

	g_return_val_if_fail((ca == NULL) != (ca_fingerprint == NULL), NULL);
	g_return_val_if_fail(expected_cn != NULL, NULL);
	self = g_object_new(GNT_TYPE_TLS_PEER_DATABASE, NULL);
	self->ca = ca != NULL ? g_object_ref(ca) : NULL;
	self->ca_fingerprint = g_strdup(ca_fingerprint);
	self->role = role;
	self->expected_cn = g_strdup(expected_cn);
	return self;
}

gchar *
gnt_tls_peer_database_dup_failure(GntTlsPeerDatabase *self)
{
	gchar *failure;

	g_mutex_lock(&self->lock);
	failure = g_strdup(self->failure);
	g_mutex_unlock(&self->lock);
	return failure;
}

/* gantry-rapi's certificate, issued by @ca (gnt_tls_issue_rapi_certificate()). */
static gboolean
ca_issue_rapi(GntTlsCa *ca, const GntPaths *paths, const gchar *node_name,
	      const gchar *const *addresses, GError **error)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new();
	const gchar *local[] = {"localhost", "127.0.0.1", "::1"};

	for (guint i = 0; i < G_N_ELEMENTS(local); i++) {
		if (g_strcmp0(local[i], node_name) != 0)
			g_ptr_array_add(names, (gpointer)local[i]);
	}
	for (guint i = 0; addresses != NULL && addresses[i] != NULL; i++)
		g_ptr_array_add(names, (gpointer)addresses[i]);
	g_ptr_array_add(names, NULL);
	if (!gnt_tls_ca_issue(ca, GNT_TLS_ROLE_NODE, node_name, (const gchar *const *)names->pdata,
			      gnt_paths_get_rapi_cert(paths), gnt_paths_get_rapi_key(paths),
			      error)) {
		g_prefix_error(error, "issuing the RAPI certificate: ");
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_tls_init_cluster(const GntPaths *paths, const gchar *cluster, const gchar *node_name,
		     const gchar *const *addresses, GError **error)
{
	g_autoptr(GntTlsCa) ca = gnt_tls_ca_new(cluster, error);

	if (ca == NULL ||
	    !gnt_tls_ca_save(ca, gnt_paths_get_ca_cert(paths), gnt_paths_get_ca_key(paths),
			     error) ||
	    !gnt_tls_ca_issue(ca, GNT_TLS_ROLE_NODE, node_name, addresses,
			      gnt_paths_get_node_cert(paths), gnt_paths_get_node_key(paths),
			      error) ||
	    !gnt_tls_ca_issue(ca, GNT_TLS_ROLE_MASTER, NULL, NULL, gnt_paths_get_master_cert(paths),
			      gnt_paths_get_master_key(paths), error) ||
	    !ca_issue_rapi(ca, paths, node_name, addresses, error)) {
		g_prefix_error(error, "creating the TLS files of cluster '%s': ", cluster);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_tls_issue_rapi_certificate(const GntPaths *paths, const gchar *node_name,
			       const gchar *const *addresses, GError **error)
{
	g_autoptr(GntTlsCa) ca = NULL;

	g_return_val_if_fail(node_name != NULL && node_name[0] != '\0', FALSE);
	ca = gnt_tls_ca_load(gnt_paths_get_ca_cert(paths), gnt_paths_get_ca_key(paths), error);
	if (ca == NULL) {
		g_prefix_error(error, "issuing the RAPI certificate: ");
		return FALSE;
	}
	return ca_issue_rapi(ca, paths, node_name, addresses, error);
}
