/* The cluster PKI: CA, issued certificates, requests, verification. */
#include <sys/stat.h>

#include "gnt-error.h"
#include "gnt-tls.h"

typedef struct {
	gchar *dir;
	GntPaths *paths;
} TlsFx;

static void
tls_set_up(TlsFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const addresses[] = {"192.0.2.1", "2001:db8::1", "node1.example.com", NULL};

	fx->dir = g_dir_make_tmp("gnt-tls-XXXXXX", &error);
	g_assert_no_error(error);
	fx->paths = gnt_paths_new(fx->dir);
	g_assert_true(
		gnt_tls_init_cluster(fx->paths, "cluster.example.com", "node1", addresses, &error));
	g_assert_no_error(error);
}

static void
tls_tear_down(TlsFx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

	g_assert_cmpint(system(cmd), ==, 0);
	g_clear_pointer(&fx->paths, gnt_paths_free);
	g_clear_pointer(&fx->dir, g_free);
}

static guint
file_mode(const gchar *path)
{
	struct stat st;

	g_assert_cmpint(stat(path, &st), ==, 0);
	return st.st_mode & 0777;
}

static GTlsCertificate *
load_ca(TlsFx *fx)
{
	g_autoptr(GError) error = NULL;
	GTlsCertificate *ca = gnt_tls_load_ca_certificate(gnt_paths_get_ca_cert(fx->paths), &error);

	g_assert_no_error(error);
	return ca;
}

static void
test_files(TlsFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntTlsCa) ca = NULL;
	g_autoptr(GTlsCertificate) ca_cert = load_ca(fx);
	g_autoptr(GTlsCertificate) node = NULL;
	g_autofree gchar *fingerprint = NULL;
	g_autofree gchar *cn = NULL;

	g_assert_cmphex(file_mode(gnt_paths_get_ca_key(fx->paths)), ==, 0600);
	g_assert_cmphex(file_mode(gnt_paths_get_node_key(fx->paths)), ==, 0600);
	g_assert_cmphex(file_mode(gnt_paths_get_master_key(fx->paths)), ==, 0600);
	g_assert_cmphex(file_mode(gnt_paths_get_ca_cert(fx->paths)), ==, 0644);
	g_assert_cmphex(file_mode(gnt_paths_get_node_cert(fx->paths)), ==, 0644);
	g_assert_cmphex(file_mode(gnt_paths_get_tls_dir(fx->paths)), ==, 0700);

	ca = gnt_tls_ca_load(gnt_paths_get_ca_cert(fx->paths), gnt_paths_get_ca_key(fx->paths),
			     &error);
	g_assert_no_error(error);
	g_assert_cmpstr(gnt_tls_ca_get_cluster(ca), ==, "cluster.example.com");
	fingerprint = gnt_tls_ca_dup_fingerprint(ca);
	g_assert_cmpuint(strlen(fingerprint), ==, 64);
	{
		g_autofree gchar *again = gnt_tls_certificate_dup_fingerprint(ca_cert);
		g_assert_cmpstr(fingerprint, ==, again);
	}
	cn = gnt_tls_certificate_dup_cn(ca_cert, &error);
	g_assert_cmpstr(cn, ==, "gantry-ca:cluster.example.com");

	node = gnt_tls_load_certificate(gnt_paths_get_node_cert(fx->paths),
					gnt_paths_get_node_key(fx->paths), &error);
	g_assert_no_error(error);
	g_assert_nonnull(g_tls_certificate_get_issuer(node)); /* the chain is in the file */
}

static void
test_verify(TlsFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GTlsCertificate) ca = load_ca(fx);
	g_autoptr(GTlsCertificate) node = NULL;
	g_autoptr(GTlsCertificate) master = NULL;
	g_autofree gchar *fingerprint = gnt_tls_certificate_dup_fingerprint(ca);

	node = gnt_tls_load_certificate(gnt_paths_get_node_cert(fx->paths),
					gnt_paths_get_node_key(fx->paths), &error);
	master = gnt_tls_load_certificate(gnt_paths_get_master_cert(fx->paths),
					  gnt_paths_get_master_key(fx->paths), &error);
	g_assert_no_error(error);

	g_assert_true(gnt_tls_verify_peer(ca, node, GNT_TLS_ROLE_NODE, "node1", &error));
	g_assert_true(gnt_tls_verify_peer(ca, master, GNT_TLS_ROLE_MASTER,
					  "gantry-master:cluster.example.com", &error));
	g_assert_true(
		gnt_tls_verify_peer_pinned(fingerprint, node, GNT_TLS_ROLE_NODE, "node1", &error));
	g_assert_no_error(error);

	g_assert_false(gnt_tls_verify_peer(ca, node, GNT_TLS_ROLE_NODE, "node2", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "certificate CN 'node1' is not 'node2'");
	g_clear_error(&error);

	/* a node certificate is no client certificate, whatever its CN */
	g_assert_false(gnt_tls_verify_peer(ca, node, GNT_TLS_ROLE_MASTER, "node1", &error));
	g_assert_nonnull(strstr(error->message, "not accepted by the cluster CA"));
	g_clear_error(&error);

	g_assert_false(gnt_tls_verify_peer_pinned(
		"0000000000000000000000000000000000000000000000000000000000000000", node,
		GNT_TLS_ROLE_NODE, "node1", &error));
	g_assert_nonnull(strstr(error->message, "not the pinned"));
	g_clear_error(&error);

	g_assert_false(gnt_tls_verify_peer(ca, NULL, GNT_TLS_ROLE_MASTER, "x", &error));
	g_assert_cmpstr(error->message, ==, "no certificate presented");
}

static void
test_other_ca(TlsFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GTlsCertificate) ca = load_ca(fx);
	g_autoptr(GntTlsCa) other = gnt_tls_ca_new("cluster.example.com", &error);
	g_autofree gchar *cert_path = g_build_filename(fx->dir, "other.pem", NULL);
	g_autofree gchar *key_path = g_build_filename(fx->dir, "other.key", NULL);
	g_autoptr(GTlsCertificate) impostor = NULL;

	g_assert_no_error(error);
	g_assert_true(gnt_tls_ca_issue(other, GNT_TLS_ROLE_MASTER, NULL, NULL, cert_path, key_path,
				       &error));
	impostor = gnt_tls_load_certificate(cert_path, key_path, &error);
	g_assert_no_error(error);
	g_assert_false(gnt_tls_verify_peer(ca, impostor, GNT_TLS_ROLE_MASTER,
					   "gantry-master:cluster.example.com", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "not accepted by the cluster CA"));
}

static void
test_request(TlsFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GTlsCertificate) ca_cert = load_ca(fx);
	g_autoptr(GntTlsCa) ca = gnt_tls_ca_load(gnt_paths_get_ca_cert(fx->paths),
						 gnt_paths_get_ca_key(fx->paths), &error);
	g_autoptr(GTlsCertificate) issued = NULL;
	g_autofree gchar *key_pem = NULL;
	g_autofree gchar *request_pem = NULL;
	g_autofree gchar *cert_pem = NULL;
	g_autofree gchar *both = NULL;
	const gchar *const addresses[] = {"10.0.0.2", NULL};

	g_assert_true(gnt_tls_new_request("node2", &key_pem, &request_pem, &error));
	g_assert_no_error(error);
	g_assert_true(g_str_has_prefix(key_pem, "-----BEGIN PRIVATE KEY-----"));

	g_assert_null(gnt_tls_ca_sign_request(ca, request_pem, "node3", addresses, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "certificate request is not for 'node3'");
	g_clear_error(&error);
	g_assert_null(gnt_tls_ca_sign_request(ca, "garbage", "node2", addresses, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);

	cert_pem = gnt_tls_ca_sign_request(ca, request_pem, "node2", addresses, &error);
	g_assert_no_error(error);
	both = g_strconcat(cert_pem, key_pem, NULL);
	issued = g_tls_certificate_new_from_pem(both, -1, &error);
	g_assert_no_error(error);
	g_assert_true(gnt_tls_verify_peer(ca_cert, issued, GNT_TLS_ROLE_NODE, "node2", &error));
	g_assert_no_error(error);
}

static void
test_missing(TlsFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = g_build_filename(fx->dir, "nope.pem", NULL);
	g_autofree gchar *garbage = g_build_filename(fx->dir, "garbage.pem", NULL);

	g_assert_null(gnt_tls_load_certificate(path, gnt_paths_get_node_key(fx->paths), &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_nonnull(strstr(error->message, path));
	g_clear_error(&error);

	g_assert_null(gnt_tls_ca_load(path, path, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_nonnull(strstr(error->message, path));
	g_clear_error(&error);

	g_assert_true(g_file_set_contents(garbage, "not a certificate", -1, NULL));
	g_assert_null(gnt_tls_load_ca_certificate(garbage, &error));
	g_assert_nonnull(strstr(error->message, garbage));
	g_clear_error(&error);
	g_assert_null(gnt_tls_ca_load(garbage, gnt_paths_get_ca_key(fx->paths), &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, garbage));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/tls/files", TlsFx, NULL, tls_set_up, test_files, tls_tear_down);
	g_test_add("/tls/verify", TlsFx, NULL, tls_set_up, test_verify, tls_tear_down);
	g_test_add("/tls/other-ca", TlsFx, NULL, tls_set_up, test_other_ca, tls_tear_down);
	g_test_add("/tls/request", TlsFx, NULL, tls_set_up, test_request, tls_tear_down);
	g_test_add("/tls/missing", TlsFx, NULL, tls_set_up, test_missing, tls_tear_down);
	return g_test_run();
}
