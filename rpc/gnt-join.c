#include "gnt-join.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-rpc-client-private.h"
#include "gnt-secret.h"
#include "gnt-tls.h"

#define JOIN_SECRET_BYTES   32
#define JOIN_ID_BYTES	    8
#define JOIN_PROOF_LABEL    "gantry-join-1"
#define JOIN_KEEP_EXPIRED_S (24 * 3600)

struct _GntJoinAuthority {
	GntTlsCa *ca;
	gchar *tokens_path;
};

void
gnt_join_token_free(GntJoinToken *self)
{
	if (self == NULL)
		return;
	g_free(self->node_name);
	g_free(self->id);
	gnt_secret_wipe_string(self->secret);
	g_free(self->secret);
	g_free(self->ca_fingerprint);
	g_free(self->master_name);
	g_free(self->address);
	g_free(self);
}

static gint64
now_s(void)
{
	return g_get_real_time() / G_USEC_PER_SEC;
}

/* GNT_ERROR_WRONG_STATE "join token 'ID' expired at 2026-11-21T07:00:00Z" */
static void
set_expired_error(GError **error, const gchar *id, gint64 expires)
{
	g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc(expires);
	g_autofree gchar *text = g_date_time_format_iso8601(when);

	g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE, "join token '%s' expired at %s", id,
		    text);
}

gchar *
gnt_join_token_to_string(const GntJoinToken *self)
{
	g_autoptr(JsonObject) obj = json_object_new();
	g_autoptr(JsonNode) root = NULL;
	g_autofree gchar *json = NULL;
	g_autofree gchar *b64 = NULL;

	json_object_set_member(obj, "node", gnt_json_node_new_string(self->node_name));
	json_object_set_member(obj, "id", gnt_json_node_new_string(self->id));
	json_object_set_member(obj, "secret", gnt_json_node_new_string(self->secret));
	json_object_set_member(obj, "ca", gnt_json_node_new_string(self->ca_fingerprint));
	json_object_set_member(obj, "master", gnt_json_node_new_string(self->master_name));
	json_object_set_member(obj, "address", gnt_json_node_new_string(self->address));
	json_object_set_member(obj, "port", gnt_json_node_new_int(self->port));
	json_object_set_member(obj, "expires", gnt_json_node_new_int(self->expires));
	root = gnt_json_node_new_object(g_steal_pointer(&obj));
	json = gnt_json_to_string(root);
	b64 = g_base64_encode((const guchar *)json, strlen(json));
	g_strdelimit(b64, "+", '-');
	g_strdelimit(b64, "/", '_');
	g_strdelimit(b64, "=", '\0'); /* cuts the padding */
	gnt_secret_wipe_string(json);
	return g_strconcat(GNT_JOIN_TOKEN_PREFIX, b64, NULL);
}

GntJoinToken *
gnt_join_token_parse(const gchar *text, GError **error)
{
	g_autoptr(GntJoinToken) self = g_new0(GntJoinToken, 1);
	g_autoptr(GString) b64 = NULL;
	g_autoptr(JsonNode) root = NULL;
	g_autofree guchar *json = NULL;
	JsonObject *obj;
	gint64 port = 0;
	gsize len = 0;

	if (!g_str_has_prefix(text, GNT_JOIN_TOKEN_PREFIX)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "not a join token: it must start with '%s'", GNT_JOIN_TOKEN_PREFIX);
		return NULL;
	}
	b64 = g_string_new(text + strlen(GNT_JOIN_TOKEN_PREFIX));
	for (gsize i = 0; i < b64->len; i++) {
		if (b64->str[i] == '-')
			b64->str[i] = '+';
		else if (b64->str[i] == '_')
			b64->str[i] = '/';
		else if (!g_ascii_isalnum(b64->str[i]))
			b64->len = 0; /* g_base64_decode() skips what it does not know */
	}
	while (b64->len % 4 != 0)
		g_string_append_c(b64, '=');
	if (b64->len > 0)
		json = g_base64_decode(b64->str, &len);
	if (json != NULL)
		root = gnt_json_parse((const gchar *)json, (gssize)len, NULL);
	if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "join token is damaged: copy it again, whole");
		return NULL;
	}
	obj = json_node_get_object(root);
	if (!gnt_json_dup_string(obj, "node", &self->node_name, error) ||
	    !gnt_json_dup_string(obj, "id", &self->id, error) ||
	    !gnt_json_dup_string(obj, "secret", &self->secret, error) ||
	    !gnt_json_dup_string(obj, "ca", &self->ca_fingerprint, error) ||
	    !gnt_json_dup_string(obj, "master", &self->master_name, error) ||
	    !gnt_json_dup_string(obj, "address", &self->address, error) ||
	    !gnt_json_get_int(obj, "port", &port, error) ||
	    !gnt_json_get_int(obj, "expires", &self->expires, error)) {
		g_prefix_error(error, "join token: ");
		return NULL;
	}
	if (port <= 0 || port > G_MAXUINT16) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "join token: bad port %" G_GINT64_FORMAT, port);
		return NULL;
	}
	self->port = (guint)port;
	gnt_secret_wipe(json, len);
	return g_steal_pointer(&self);
}

/* HMAC-SHA256 keyed by the secret over what the request claims. */
static gchar *
join_proof(const gchar *secret, const gchar *id, const gchar *node_name, const gchar *request_pem)
{
	g_autofree gchar *text =
		g_strjoin("\n", JOIN_PROOF_LABEL, id, node_name, request_pem, NULL);

	return g_compute_hmac_for_data(G_CHECKSUM_SHA256, (const guchar *)secret, strlen(secret),
				       (const guchar *)text, strlen(text));
}

static gboolean
equal_in_constant_time(const gchar *a, const gchar *b)
{
	gsize len = strlen(a);
	guchar diff = 0;

	if (len != strlen(b))
		return FALSE;
	for (gsize i = 0; i < len; i++)
		diff |= (guchar)(a[i] ^ b[i]);
	return diff == 0;
}

static gboolean
random_hex(gsize bytes, gchar **out, GError **error)
{
	guchar buf[64];
	GString *hex;
	int ret;

	g_assert(bytes <= sizeof(buf));
	if ((ret = gnutls_rnd(GNUTLS_RND_KEY, buf, bytes)) < 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "random numbers: %s",
			    gnutls_strerror(ret));
		return FALSE;
	}
	hex = g_string_sized_new(bytes * 2);
	for (gsize i = 0; i < bytes; i++)
		g_string_append_printf(hex, "%02x", buf[i]);
	gnt_secret_wipe(buf, sizeof(buf));
	*out = g_string_free(hex, FALSE);
	return TRUE;
}

/* The token file, locked with flock() against masterd and other threads. */
typedef struct {
	gchar *path;
	int lock_fd;
	JsonArray *tokens;
} TokenStore;

static void
token_store_clear(TokenStore *self)
{
	if (self->lock_fd >= 0)
		close(self->lock_fd); /* drops the lock */
	self->lock_fd = -1;
	g_clear_pointer(&self->tokens, json_array_unref);
	g_clear_pointer(&self->path, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(TokenStore, token_store_clear)

static gboolean
token_store_open(TokenStore *self, const gchar *path, GError **error)
{
	g_autofree gchar *lock_path = g_strconcat(path, ".lock", NULL);
	g_autofree gchar *dir = g_path_get_dirname(path);
	g_autofree gchar *data = NULL;
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) root = NULL;
	JsonArray *tokens = NULL;
	gsize len = 0;

	self->path = g_strdup(path);
	if (g_mkdir_with_parents(dir, 0700) != 0 ||
	    (self->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0 ||
	    flock(self->lock_fd, LOCK_EX) != 0) {
		g_autofree gchar *what = g_strdup_printf("locking '%s'", lock_path);
		gnt_error_set_errno(error, errno, what);
		return FALSE;
	}
	if (!g_file_get_contents(path, &data, &len, &local_error)) {
		if (!g_error_matches(local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
			g_propagate_error(error, g_steal_pointer(&local_error));
			gnt_error_convert(error);
			return FALSE;
		}
		self->tokens = json_array_new();
		return TRUE;
	}
	root = gnt_json_parse(data, (gssize)len, error);
	if (root != NULL && !JSON_NODE_HOLDS_OBJECT(root)) {
		g_clear_pointer(&root, json_node_unref);
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "not an object");
	}
	if (root == NULL ||
	    !gnt_json_get_array(json_node_get_object(root), "tokens", &tokens, error)) {
		g_prefix_error(error, "reading '%s': ", path);
		return FALSE;
	}
	self->tokens = json_array_ref(tokens);
	gnt_secret_wipe(data, len);
	return TRUE;
}

/* Writes the tokens back, leaving out those expired for a day (until then
 * a late join hears "expired", not "unknown"). */
static gboolean
token_store_save(TokenStore *self, GError **error)
{
	g_autoptr(JsonArray) kept = json_array_new();
	g_autoptr(JsonObject) obj = json_object_new();
	g_autoptr(JsonNode) root = NULL;
	g_autofree gchar *data = NULL;
	gint64 now = now_s();
	gboolean ok;

	for (guint i = 0; i < json_array_get_length(self->tokens); i++) {
		JsonObject *token = json_array_get_object_element(self->tokens, i);
		gint64 expires = 0;

		if (gnt_json_get_int(token, "expires", &expires, NULL) &&
		    expires > now - JOIN_KEEP_EXPIRED_S)
			json_array_add_object_element(kept, json_object_ref(token));
	}
	json_object_set_array_member(obj, "tokens", g_steal_pointer(&kept));
	root = gnt_json_node_new_object(g_steal_pointer(&obj));
	data = gnt_json_to_string(root);
	ok = gnt_tls_write_file(self->path, data, -1, 0600, error);
	gnt_secret_wipe_string(data);
	return ok;
}

GntJoinToken *
gnt_join_create_token(const GntPaths *paths, const gchar *node_name, const gchar *address,
		      guint port, guint ttl_s, GError **error)
{
	g_autoptr(GntJoinToken) token = g_new0(GntJoinToken, 1);
	g_autoptr(GTlsCertificate) ca = NULL;
	g_autoptr(GTlsCertificate) master = NULL;
	g_auto(TokenStore) store = {NULL, -1, NULL};
	JsonObject *entry;

	g_return_val_if_fail(node_name != NULL && address != NULL, NULL);
	ca = gnt_tls_load_ca_certificate(gnt_paths_get_ca_cert(paths), error);
	if (ca == NULL)
		return NULL;
	master = gnt_tls_load_ca_certificate(gnt_paths_get_node_cert(paths), error);
	if (master == NULL)
		return NULL;
	token->master_name = gnt_tls_certificate_dup_cn(master, error);
	if (token->master_name == NULL)
		return NULL;
	if (!random_hex(JOIN_ID_BYTES, &token->id, error) ||
	    !random_hex(JOIN_SECRET_BYTES, &token->secret, error))
		return NULL;
	token->node_name = g_strdup(node_name);
	token->ca_fingerprint = gnt_tls_certificate_dup_fingerprint(ca);
	token->address = g_strdup(address);
	token->port = port;
	token->expires = now_s() + ttl_s;

	if (!token_store_open(&store, gnt_paths_get_join_tokens(paths), error))
		return NULL;
	entry = json_object_new();
	json_object_set_member(entry, "id", gnt_json_node_new_string(token->id));
	json_object_set_member(entry, "node", gnt_json_node_new_string(token->node_name));
	json_object_set_member(entry, "secret", gnt_json_node_new_string(token->secret));
	json_object_set_member(entry, "expires", gnt_json_node_new_int(token->expires));
	json_object_set_member(entry, "used", gnt_json_node_new_bool(FALSE));
	json_array_add_object_element(store.tokens, entry);
	if (!token_store_save(&store, error))
		return NULL;
	g_message("join token '%s' made for node '%s', valid for %u s", token->id, node_name,
		  ttl_s);
	return g_steal_pointer(&token);
}

GntJoinAuthority *
gnt_join_authority_new(const GntPaths *paths, GError **error)
{
	g_autoptr(GntJoinAuthority) self = g_new0(GntJoinAuthority, 1);

	self->ca =
		gnt_tls_ca_load(gnt_paths_get_ca_cert(paths), gnt_paths_get_ca_key(paths), error);
	if (self->ca == NULL)
		return NULL;
	self->tokens_path = g_strdup(gnt_paths_get_join_tokens(paths));
	return g_steal_pointer(&self);
}

void
gnt_join_authority_free(GntJoinAuthority *self)
{
	if (self == NULL)
		return;
	g_clear_pointer(&self->ca, gnt_tls_ca_free);
	g_free(self->tokens_path);
	g_free(self);
}

/* The token @id in @store, checked against @node_name and @proof. */
static JsonObject *
find_valid_token(TokenStore *store, const gchar *id, const gchar *node_name,
		 const gchar *request_pem, const gchar *proof, GError **error)
{
	for (guint i = 0; i < json_array_get_length(store->tokens); i++) {
		JsonObject *token = json_array_get_object_element(store->tokens, i);
		const gchar *token_id = NULL;
		const gchar *token_node = NULL;
		const gchar *secret = NULL;
		g_autofree gchar *expected = NULL;
		gboolean used = FALSE;
		gint64 expires = 0;

		if (!gnt_json_get_string(token, "id", &token_id, error) ||
		    !gnt_json_get_string(token, "node", &token_node, error) ||
		    !gnt_json_get_string(token, "secret", &secret, error) ||
		    !gnt_json_get_int(token, "expires", &expires, error) ||
		    !gnt_json_get_bool(token, "used", &used, error)) {
			g_prefix_error(error, "reading '%s': ", store->path);
			return NULL;
		}
		if (g_strcmp0(token_id, id) != 0)
			continue;
		if (g_strcmp0(token_node, node_name) != 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "join token '%s' is for node '%s', not '%s'", id, token_node,
				    node_name);
			return NULL;
		}
		expected = join_proof(secret, id, node_name, request_pem);
		if (!equal_in_constant_time(expected, proof)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "join token '%s': the proof does not match its secret", id);
			return NULL;
		}
		if (used) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
				    "join token '%s' was already used", id);
			return NULL;
		}
		if (expires <= now_s()) {
			set_expired_error(error, id, expires);
			return NULL;
		}
		return token;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "unknown join token '%s'", id);
	return NULL;
}

/* join [id, node name, request PEM, proof, [address, ...]] →
 * {"certificate": PEM chain, "ca_certificate": PEM} */
static JsonNode *
join_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	GntJoinAuthority *self = user_data;
	g_auto(TokenStore) store = {NULL, -1, NULL};
	g_autoptr(GPtrArray) addresses = g_ptr_array_new_null_terminated(4, NULL, TRUE);
	g_autofree gchar *certificate = NULL;
	g_autofree gchar *ca_pem = NULL;
	const gchar *id = gnt_rpc_args_get_string(args, "token_id");
	const gchar *node_name = gnt_rpc_args_get_string(args, "node_name");
	const gchar *request_pem = gnt_rpc_args_get_string(args, "certificate_request");
	const gchar *proof = gnt_rpc_args_get_string(args, "proof");
	const gchar *const *address_list = gnt_rpc_args_get_strv(args, "addresses");
	JsonObject *token;
	JsonObject *answer;

	for (guint i = 0; address_list != NULL && address_list[i] != NULL; i++)
		g_ptr_array_add(addresses, (gpointer)address_list[i]);
	if (!token_store_open(&store, self->tokens_path, error))
		return NULL;
	token = find_valid_token(&store, id, node_name, request_pem, proof, error);
	if (token == NULL) {
		g_warning("node '%s' refused: %s", node_name, (*error)->message);
		return NULL;
	}
	certificate = gnt_tls_ca_sign_request(self->ca, request_pem, node_name,
					      (const gchar *const *)addresses->pdata, error);
	if (certificate == NULL)
		return NULL;
	json_object_set_member(token, "used", gnt_json_node_new_bool(TRUE));
	if (!token_store_save(&store, error))
		return NULL;
	g_message("node '%s' joined with token '%s'", node_name, id);
	ca_pem = gnt_tls_ca_dup_certificate_pem(self->ca);
	answer = json_object_new();
	json_object_set_member(answer, "certificate", gnt_json_node_new_string(certificate));
	json_object_set_member(answer, "ca_certificate", gnt_json_node_new_string(ca_pem));
	return gnt_json_node_new_object(answer);
}

void
gnt_join_authority_add_endpoint(GntJoinAuthority *self, GntRpcServer *server)
{
	const GntRpcProcedure procedures[] = {
		{GNT_JOIN_PROCEDURE, join_procedure},
		{NULL},
	};

	gnt_rpc_server_add_procedures(server, procedures, self);
}

/* Checks what the master sent and writes it. */
static gboolean
store_answer(const GntPaths *paths, const GntJoinToken *token, JsonNode *answer,
	     const gchar *key_pem, GError **error)
{
	g_autoptr(GTlsCertificate) ca = NULL;
	g_autoptr(GTlsCertificate) certificate = NULL;
	g_autofree gchar *fingerprint = NULL;
	const gchar *cert_pem = NULL;
	const gchar *ca_pem = NULL;

	if (!JSON_NODE_HOLDS_OBJECT(answer)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "the master's answer: not an object");
		return FALSE;
	}
	if (!gnt_json_get_string(json_node_get_object(answer), "certificate", &cert_pem, error) ||
	    !gnt_json_get_string(json_node_get_object(answer), "ca_certificate", &ca_pem, error)) {
		g_prefix_error(error, "the master's answer: ");
		return FALSE;
	}
	ca = g_tls_certificate_new_from_pem(ca_pem, -1, error);
	if (ca == NULL) {
		gnt_error_convert(error);
		g_prefix_error(error, "the master's CA certificate: ");
		return FALSE;
	}
	fingerprint = gnt_tls_certificate_dup_fingerprint(ca);
	if (g_ascii_strcasecmp(fingerprint, token->ca_fingerprint) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "the master sent CA %s, not the CA %s of the token", fingerprint,
			    token->ca_fingerprint);
		return FALSE;
	}
	certificate = g_tls_certificate_new_from_pem(cert_pem, -1, error);
	if (certificate == NULL) {
		gnt_error_convert(error);
		g_prefix_error(error, "the master's certificate for this node: ");
		return FALSE;
	}
	if (!gnt_tls_verify_peer(ca, certificate, GNT_TLS_ROLE_NODE, token->node_name, error)) {
		g_prefix_error(error, "the master's certificate for this node: ");
		return FALSE;
	}
	return gnt_tls_write_file(gnt_paths_get_node_key(paths), key_pem, -1, 0600, error) &&
	       gnt_tls_write_file(gnt_paths_get_node_cert(paths), cert_pem, -1, 0644, error) &&
	       gnt_tls_write_file(gnt_paths_get_ca_cert(paths), ca_pem, -1, 0644, error);
}

gboolean
gnt_join_cluster(const GntPaths *paths, const gchar *token_text, const gchar *const *addresses,
		 guint timeout_s, GError **error)
{
	g_autoptr(GntJoinToken) token = NULL;
	g_autoptr(GntTlsPeerDatabase) database = NULL;
	g_autoptr(JsonArray) args = NULL;
	g_autoptr(JsonNode) answer = NULL;
	g_autofree gchar *key_pem = NULL;
	g_autofree gchar *request_pem = NULL;
	g_autofree gchar *proof = NULL;
	gboolean ok;

	if (g_file_test(gnt_paths_get_node_cert(paths), G_FILE_TEST_EXISTS)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "this node has a certificate already ('%s'): remove '%s' to join again",
			    gnt_paths_get_node_cert(paths), gnt_paths_get_tls_dir(paths));
		return FALSE;
	}
	token = gnt_join_token_parse(token_text, error);
	if (token == NULL)
		return FALSE;
	if (token->expires <= now_s()) {
		set_expired_error(error, token->id, token->expires);
		return FALSE;
	}
	if (!gnt_tls_new_request(token->node_name, &key_pem, &request_pem, error))
		return FALSE;
	proof = join_proof(token->secret, token->id, token->node_name, request_pem);
	args = gnt_rpc_args_encode(gnt_rpc_procedure_def_lookup(GNT_JOIN_PROCEDURE),
				   (GntRpcValue[]){{.s = token->id},
						   {.s = token->node_name},
						   {.s = request_pem},
						   {.s = proof},
						   {.strv = addresses}},
				   5);
	database = gnt_tls_peer_database_new(NULL, token->ca_fingerprint, GNT_TLS_ROLE_NODE,
					     token->master_name);
	answer = gnt_rpc_call_with_database(G_TLS_DATABASE(database), NULL, token->master_name,
					    token->address, token->port, GNT_JOIN_PROCEDURE, args,
					    timeout_s, error);
	ok = answer != NULL && store_answer(paths, token, answer, key_pem, error);
	gnt_secret_wipe_string(key_pem);
	if (!ok)
		g_prefix_error(error, "joining as node '%s': ", token->node_name);
	return ok;
}
