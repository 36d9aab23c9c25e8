#include "gnt-rpc-client-private.h"

#include <libsoup/soup.h>
#include <string.h>

#include "gnt-build-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-tls.h"

struct _GntRpcClient {
	GObject parent_instance;
	GTlsCertificate *ca;
	GTlsCertificate *certificate;
	guint serial; /* this client in the session caches' keys; never reused */
	/* instead of the network (tests); NULL: the network */
	GntRpcTransportFunc transport;
	gpointer transport_data;
	GDestroyNotify transport_destroy;
};

/*
 * Sessions kept between calls: one per (thread, client, node name, address,
 * port, timeout), because a libsoup session is used from one thread at a
 * time and its I/O timeout is fixed once it has connected. Each has its own
 * TLS database, which checks that node, so a kept connection is always one
 * whose handshake checked the node. A session whose call failed is dropped;
 * one idle for GNT_RPC_CLIENT_MAX_IDLE_S is dropped on the thread's next call
 * (libsoup also refuses to reuse its connection by then), and a thread's
 * sessions go when it ends.
 */
typedef struct {
	SoupSession *session;
	GntTlsPeerDatabase *database;
	gint64 last_used; /* monotonic */
} CachedSession;

static void
cached_session_free(CachedSession *cached)
{
	soup_session_abort(cached->session);
	g_object_unref(cached->session);
	g_object_unref(cached->database);
	g_free(cached);
}

static GPrivate session_cache = G_PRIVATE_INIT((GDestroyNotify)g_hash_table_unref);
static guint client_serial; /* atomic */

G_DEFINE_TYPE(GntRpcClient, gnt_rpc_client, G_TYPE_OBJECT)

static void
gnt_rpc_client_finalize(GObject *object)
{
	GntRpcClient *self = GNT_RPC_CLIENT(object);

	g_clear_object(&self->ca);
	g_clear_object(&self->certificate);
	if (self->transport_destroy != NULL)
		self->transport_destroy(self->transport_data);
	G_OBJECT_CLASS(gnt_rpc_client_parent_class)->finalize(object);
}

static void
gnt_rpc_client_class_init(GntRpcClientClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = gnt_rpc_client_finalize;
}

static void
gnt_rpc_client_init(GntRpcClient *self)
{
	self->serial = (guint)g_atomic_int_add(&client_serial, 1);
}

GntRpcClient *
gnt_rpc_client_new(GTlsCertificate *ca, GTlsCertificate *certificate)
{
	GntRpcClient *self;

	g_return_val_if_fail(G_IS_TLS_CERTIFICATE(ca), NULL);
	g_return_val_if_fail(G_IS_TLS_CERTIFICATE(certificate), NULL);
	self = g_object_new(GNT_TYPE_RPC_CLIENT, NULL);
	self->ca = g_object_ref(ca);
	self->certificate = g_object_ref(certificate);
	return self;
}

GntRpcClient *
gnt_rpc_client_new_with_transport(GntRpcTransportFunc transport, gpointer user_data,
				  GDestroyNotify destroy)
{
	GntRpcClient *self;

	g_return_val_if_fail(transport != NULL, NULL);
	self = g_object_new(GNT_TYPE_RPC_CLIENT, NULL);
	self->transport = transport;
	self->transport_data = user_data;
	self->transport_destroy = destroy;
	return self;
}

GntRpcClient *
gnt_rpc_client_new_from_paths(const GntPaths *paths, GError **error)
{
	g_autoptr(GTlsCertificate) ca = NULL;
	g_autoptr(GTlsCertificate) certificate = NULL;

	ca = gnt_tls_load_ca_certificate(gnt_paths_get_ca_cert(paths), error);
	if (ca == NULL)
		return NULL;
	certificate = gnt_tls_load_certificate(gnt_paths_get_master_cert(paths),
					       gnt_paths_get_master_key(paths), error);
	if (certificate == NULL)
		return NULL;
	return gnt_rpc_client_new(ca, certificate);
}

/* Sets "node 'NAME' (ADDRESS:PORT): REASON". */
G_GNUC_PRINTF(6, 7)
static void
set_node_error(GError **error, gint code, const gchar *node_name, const gchar *address, guint port,
	       const gchar *format, ...)
{
	g_autofree gchar *reason = NULL;
	gboolean v6 = strchr(address, ':') != NULL;
	va_list args;

	va_start(args, format);
	reason = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, GNT_ERROR, code, "node '%s' (%s%s%s:%u): %s", node_name, v6 ? "[" : "",
		    address, v6 ? "]" : "", port, reason);
}

/* Why sending failed, in words for the job log. (transfer full) */
static gchar *
describe_send_error(const GError *error, GTlsDatabase *database, guint timeout_s)
{
	g_autofree gchar *failure = NULL;

	if (GNT_IS_TLS_PEER_DATABASE(database))
		failure = gnt_tls_peer_database_dup_failure(GNT_TLS_PEER_DATABASE(database));
	if (failure != NULL)
		return g_strdup_printf("certificate refused: %s", failure);
	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
		return g_strdup("connection refused");
	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
		return g_strdup_printf("no answer within %u s", timeout_s);
	if (error->domain == G_TLS_ERROR)
		return g_strdup_printf("TLS: %s", error->message);
	return g_strdup(error->message);
}

/*
 * A request body that holds secrets. libsoup copies the body through a
 * buffer on the calling thread's stack (GIO's splice), which stays there
 * while the thread waits for the answer, an hour for an OS create. The
 * splice's last read (end of stream) gets that buffer: it is wiped then.
 */
typedef struct {
	GMemoryInputStream parent;
} WipingInputStream;

typedef struct {
	GMemoryInputStreamClass parent_class;
} WipingInputStreamClass;

static GType
wiping_input_stream_get_type(void);
G_DEFINE_TYPE(WipingInputStream, wiping_input_stream, G_TYPE_MEMORY_INPUT_STREAM)

static gssize
wiping_input_stream_read(GInputStream *stream, void *buffer, gsize count, GCancellable *cancellable,
			 GError **error)
{
	gssize n = G_INPUT_STREAM_CLASS(wiping_input_stream_parent_class)
			   ->read_fn(stream, buffer, count, cancellable, error);

	if (n == 0) {
		gnt_secret_wipe(buffer, count);
		gnt_secret_wipe_registers();
	}
	return n;
}

static void
wiping_input_stream_class_init(WipingInputStreamClass *klass)
{
	G_INPUT_STREAM_CLASS(klass)->read_fn = wiping_input_stream_read;
}

static void
wiping_input_stream_init(WipingInputStream *self)
{
}

static GInputStream *
wiping_input_stream_new(GBytes *bytes)
{
	GInputStream *stream = g_object_new(wiping_input_stream_get_type(), NULL);

	g_memory_input_stream_add_bytes(G_MEMORY_INPUT_STREAM(stream), bytes);
	return stream;
}

/* The request body: @args as JSON, with @secrets (nullable) in place of
 * their placeholders. A body with secrets is built in protected memory
 * and wiped when libsoup lets it go; only the placeholders' public text is
 * ever on the heap. */
static GBytes *
encode_args(JsonArray *args, const GntSecretDict *secrets, GError **error)
{
	g_autoptr(JsonNode) node = json_node_new(JSON_NODE_ARRAY);
	g_autofree gchar *text = NULL;
	GntSecret *body;
	gsize len;

	if (args != NULL)
		json_node_set_array(node, args);
	else
		json_node_take_array(node, json_array_new());
	text = gnt_json_to_string(node);
	if (secrets == NULL) {
		len = strlen(text);
		return g_bytes_new_take(g_steal_pointer(&text), len);
	}
	body = gnt_secret_dict_fill(secrets, text, error);
	if (body == NULL)
		return NULL;
	return g_bytes_new_with_free_func(gnt_secret_get(body), gnt_secret_get_length(body),
					  (GDestroyNotify)gnt_secret_free, body);
}

/*
 * The master's certificate goes on the TLS connection before its handshake,
 * not through soup_message_set_tls_client_certificate(): that answers the
 * server's request through libsoup's TLS interaction, which the TLS
 * backend's handshake thread hands to the main context the connection was
 * made under and waits for. A caller's thread does not run that context
 * (it is the global default one, or another thread's), so when the context
 * was busy at that moment the handshake waited forever: seen with two
 * threads calling at once.
 */
static void
present_certificate_cb(SoupMessage *msg, GSocketClientEvent event, GIOStream *connection,
		       gpointer user_data)
{
	if (event == G_SOCKET_CLIENT_TLS_HANDSHAKING && G_IS_TLS_CONNECTION(connection))
		g_tls_connection_set_certificate(G_TLS_CONNECTION(connection), user_data);
}

static SoupSession *
session_new(GTlsDatabase *database, guint timeout_s)
{
	return soup_session_new_with_options("proxy-resolver", NULL, "tls-database", database,
					     "timeout", timeout_s, "idle-timeout",
					     GNT_RPC_CLIENT_MAX_IDLE_S, "user-agent",
					     "gantry-masterd/" GNT_VERSION, NULL);
}

/* One call on @session, whose TLS database is @database; @broken says
 * whether no answer came (refused, timed out, TLS, connection lost). */
static JsonNode *
call_on_session(SoupSession *session, GTlsDatabase *database, GTlsCertificate *certificate,
		const gchar *node_name, const gchar *address, guint port, const gchar *procedure,
		JsonArray *args, const GntSecretDict *secrets, guint timeout_s, gboolean *broken,
		GError **error)
{
	g_autoptr(SoupMessage) msg = NULL;
	g_autoptr(GBytes) request = NULL;
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) result = NULL;
	g_autofree gchar *uri = NULL;
	g_autofree gchar *path = g_strconcat("/", procedure, NULL);
	gconstpointer data;
	gsize len = 0;
	guint status;

	uri = g_uri_join(G_URI_FLAGS_NONE, "https", NULL, address, (gint)port, path, NULL, NULL);
	msg = soup_message_new(SOUP_METHOD_PUT, uri);
	if (msg == NULL) {
		set_node_error(error, GNT_ERROR_INVALID, node_name, address, port,
			       "'%s' is not a valid URI", uri);
		return NULL;
	}
	request = encode_args(args, secrets, &local_error);
	if (request == NULL) {
		set_node_error(error, local_error->code, node_name, address, port, "%s: %s",
			       procedure, local_error->message);
		return NULL;
	}
	if (secrets != NULL) {
		g_autoptr(GInputStream) stream = wiping_input_stream_new(request);

		soup_message_set_request_body(msg, GNT_RPC_CONTENT_TYPE, stream,
					      (gssize)g_bytes_get_size(request));
	} else {
		soup_message_set_request_body_from_bytes(msg, GNT_RPC_CONTENT_TYPE, request);
	}
	if (certificate != NULL)
		g_signal_connect(msg, "network-event", G_CALLBACK(present_certificate_cb),
				 certificate);
	answer = soup_session_send_and_read(session, msg, NULL, &local_error);
	if (secrets != NULL)
		gnt_secret_wipe_traces();
	*broken = answer == NULL;
	if (answer == NULL) {
		g_autofree gchar *reason = describe_send_error(local_error, database, timeout_s);
		set_node_error(error, GNT_ERROR_ENVIRONMENT, node_name, address, port, "%s",
			       reason);
		return NULL;
	}
	status = soup_message_get_status(msg);
	data = g_bytes_get_data(answer, &len);
	result = gnt_rpc_decode_answer(data != NULL ? data : "", len, &local_error);
	if (status != SOUP_STATUS_OK) {
		set_node_error(error,
			       local_error != NULL ? local_error->code : GNT_ERROR_ENVIRONMENT,
			       node_name, address, port, "%s: HTTP %u: %s", procedure, status,
			       local_error != NULL ? local_error->message
						   : soup_message_get_reason_phrase(msg));
		return NULL;
	}
	if (result == NULL) {
		set_node_error(error, local_error->code, node_name, address, port, "%s: %s",
			       procedure, local_error->message);
		return NULL;
	}
	return g_steal_pointer(&result);
}

JsonNode *
gnt_rpc_call_with_database(GTlsDatabase *database, GTlsCertificate *certificate,
			   const gchar *node_name, const gchar *address, guint port,
			   const gchar *procedure, JsonArray *args, guint timeout_s, GError **error)
{
	g_autoptr(SoupSession) session = NULL;
	gboolean broken = FALSE;
	JsonNode *result;

	g_return_val_if_fail(G_IS_TLS_DATABASE(database), NULL);
	g_return_val_if_fail(node_name != NULL && address != NULL && procedure != NULL, NULL);
	if (timeout_s == 0)
		timeout_s = GNT_RPC_DEFAULT_TIMEOUT_S;
	session = session_new(database, timeout_s);
	result = call_on_session(session, database, certificate, node_name, address, port,
				 procedure, args, NULL, timeout_s, &broken, error);
	soup_session_abort(session);
	return result;
}

/* This thread's session cache, without the sessions idle for too long. */
static GHashTable *
thread_sessions(void)
{
	GHashTable *sessions = g_private_get(&session_cache);
	gint64 oldest = g_get_monotonic_time() - GNT_RPC_CLIENT_MAX_IDLE_S * G_USEC_PER_SEC;
	GHashTableIter iter;
	CachedSession *cached;

	if (sessions == NULL) {
		sessions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						 (GDestroyNotify)cached_session_free);
		g_private_set(&session_cache, sessions);
	}
	g_hash_table_iter_init(&iter, sessions);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&cached)) {
		if (cached->last_used < oldest)
			g_hash_table_iter_remove(&iter);
	}
	return sessions;
}

static JsonNode *
call_on_transport(GntRpcClient *self, const gchar *node_name, const gchar *address, guint port,
		  const gchar *procedure, JsonArray *args, const GntSecretDict *secrets,
		  GError **error)
{
	g_autoptr(JsonArray) none = args == NULL ? json_array_new() : NULL;
	g_autoptr(GError) local_error = NULL;
	JsonNode *result = self->transport(node_name, procedure, args != NULL ? args : none,
					   secrets, self->transport_data, &local_error);

	if (result == NULL) {
		g_return_val_if_fail(local_error != NULL, NULL);
		set_node_error(error, local_error->code, node_name, address, port, "%s: %s",
			       procedure, local_error->message);
	}
	return result;
}

JsonNode *
gnt_rpc_client_call(GntRpcClient *self, const gchar *node_name, const gchar *address, guint port,
		    const gchar *procedure, JsonArray *args, guint timeout_s, GError **error)
{
	return gnt_rpc_client_call_with_secrets(self, node_name, address, port, procedure, args,
						NULL, timeout_s, error);
}

JsonNode *
gnt_rpc_client_call_with_secrets(GntRpcClient *self, const gchar *node_name, const gchar *address,
				 guint port, const gchar *procedure, JsonArray *args,
				 const GntSecretDict *secrets, guint timeout_s, GError **error)
{
	GHashTable *sessions;
	g_autofree gchar *key = NULL;
	CachedSession *cached;
	gboolean broken = FALSE;
	JsonNode *result;

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(self), NULL);
	g_return_val_if_fail(node_name != NULL && address != NULL && procedure != NULL, NULL);
	if (self->transport != NULL)
		return call_on_transport(self, node_name, address, port, procedure, args, secrets,
					 error);
	if (timeout_s == 0)
		timeout_s = GNT_RPC_DEFAULT_TIMEOUT_S;
	sessions = thread_sessions();
	key = g_strdup_printf("%u\n%s\n%s\n%u\n%u", self->serial, node_name, address, port,
			      timeout_s);
	cached = g_hash_table_lookup(sessions, key);
	if (cached == NULL) {
		cached = g_new0(CachedSession, 1);
		cached->database =
			gnt_tls_peer_database_new(self->ca, NULL, GNT_TLS_ROLE_NODE, node_name);
		cached->session = session_new(G_TLS_DATABASE(cached->database), timeout_s);
		g_hash_table_insert(sessions, g_strdup(key), cached);
	}
	result = call_on_session(cached->session, G_TLS_DATABASE(cached->database),
				 self->certificate, node_name, address, port, procedure, args,
				 secrets, timeout_s, &broken, error);
	cached->last_used = g_get_monotonic_time();
	if (broken) /* refused, timed out, a failed handshake: start afresh next time */
		g_hash_table_remove(sessions, key);
	return result;
}
