#include "gnt-rpc-server.h"

#include <libsoup/soup.h>
#include <string.h>

#include "gnt-build-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-net.h"
#include "gnt-tls.h"

struct _GntRpcServer {
	GObject parent_instance;
	SoupServer *soup;
	GTlsCertificate *ca;
	gchar *master_cn;
	GHashTable *procedures; /* name → RpcEntry */
	gsize max_body_size;
	guint port;
	gchar *uri;
	guint n_running; /* touched in the server's context only */
	GMainContext *context;
	GHashTable *connections; /* GSocket -> RpcConnection, server's context only */
	GSource *sweep;		 /* closes idle connections while there are any */
	guint keep_alive_s;  /* atomic */
	guint n_connections; /* atomic: the size of @connections */
};

G_DEFINE_TYPE(GntRpcServer, gnt_rpc_server, G_TYPE_OBJECT)

typedef struct {
	GntRpcProcedureFunc func;
	GntRpcProcedureFlags flags;
	gpointer user_data;
} RpcEntry;

/* One call on its way through a worker thread. */
typedef struct {
	gchar *name;
	GntRpcProcedureFunc func;
	gpointer user_data;
	GBytes *body;
	SoupServerMessage *msg;
	gboolean gone; /* the client hung up (timed out) or the server stopped */
	/* set by the worker */
	guint status;
	gchar *answer;
} RpcCall;

/* A client connection, known from its first request on; closed by the
 * sweep once idle for keep_alive_s. */
typedef struct {
	GSocket *socket;
	gboolean busy; /* a request is being read, run or answered */
	gint64 idle_since;
	/* what the handshake presented: libsoup 3.2 gives it to the first
	 * message of a connection only */
	GTlsCertificate *peer_certificate;
} RpcConnection;

static void
rpc_connection_free(RpcConnection *conn)
{
	g_object_unref(conn->socket);
	g_clear_object(&conn->peer_certificate);
	g_free(conn);
}

static void
rpc_call_free(RpcCall *call)
{
	g_free(call->name);
	g_bytes_unref(call->body);
	g_signal_handlers_disconnect_by_data(call->msg, call);
	g_clear_object(&call->msg);
	g_free(call->answer);
	g_free(call);
}

static void
respond(SoupServerMessage *msg, guint status, gchar *answer /* taken */)
{
	gsize len = strlen(answer);

	soup_server_message_set_status(msg, status, NULL);
	soup_server_message_set_response(msg, GNT_RPC_CONTENT_TYPE, SOUP_MEMORY_TAKE, answer, len);
}

static void
respond_error(SoupServerMessage *msg, guint status, GntError code, const gchar *message)
{
	respond(msg, status, gnt_rpc_encode_error_literal(code, message));
}

/* In the worker: parse, run, encode. */
static void
rpc_call_run(GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
	RpcCall *call = task_data;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) args = NULL;
	g_autoptr(JsonNode) result = NULL;
	gsize len = 0;
	const gchar *data = g_bytes_get_data(call->body, &len);

	args = gnt_json_parse(data != NULL ? data : "", (gssize)len, &error);
	if (args == NULL) {
		g_prefix_error(&error, "body of '%s' is not valid JSON: ", call->name);
		call->status = SOUP_STATUS_BAD_REQUEST;
		call->answer = gnt_rpc_encode_error_literal(GNT_ERROR_INVALID, error->message);
		g_task_return_boolean(task, TRUE);
		return;
	}
	if (!JSON_NODE_HOLDS_ARRAY(args)) {
		g_autofree gchar *message = g_strdup_printf(
			"body of '%s' must be a JSON list of arguments, not %s", call->name,
			gnt_json_node_type_name(args));
		call->status = SOUP_STATUS_BAD_REQUEST;
		call->answer = gnt_rpc_encode_error_literal(GNT_ERROR_INVALID, message);
		g_task_return_boolean(task, TRUE);
		return;
	}
	result = call->func(json_node_get_array(args), call->user_data, &error);
	call->status = SOUP_STATUS_OK;
	if (result != NULL) {
		call->answer = gnt_rpc_encode_success(result);
	} else {
		if (error == NULL)
			g_set_error(&error, GNT_ERROR, GNT_ERROR_FAULT,
				    "procedure '%s' failed without saying why", call->name);
		g_debug("procedure '%s' failed: %s", call->name, error->message);
		call->answer = gnt_rpc_encode_error(error);
	}
	g_task_return_boolean(task, TRUE);
}

/* Back in the server's context: answer. */
static void
rpc_call_done(GObject *source, GAsyncResult *result, gpointer user_data)
{
	GntRpcServer *self = GNT_RPC_SERVER(source);
	RpcCall *call = g_task_get_task_data(G_TASK(result));

	self->n_running--;
	if (call->gone) {
		g_info("'%s' finished after its client had gone", call->name);
		return;
	}
	respond(call->msg, call->status, g_steal_pointer(&call->answer));
	soup_server_message_unpause(call->msg);
}

static void
call_gone_cb(SoupServerMessage *msg, gpointer user_data)
{
	RpcCall *call = user_data;

	call->gone = TRUE;
}

/* The certificate the client of @msg presented in its connection's
 * handshake, or NULL. */
static GTlsCertificate *
peer_certificate_of(GntRpcServer *self, SoupServerMessage *msg)
{
	GTlsCertificate *cert = soup_server_message_get_tls_peer_certificate(msg);
	GSocket *socket = soup_server_message_get_socket(msg);
	RpcConnection *conn =
		socket != NULL ? g_hash_table_lookup(self->connections, socket) : NULL;

	if (conn == NULL)
		return cert;
	if (cert != NULL && conn->peer_certificate == NULL)
		conn->peer_certificate = g_object_ref(cert);
	return cert != NULL ? cert : conn->peer_certificate;
}

/* Whether the client is the cluster's master; answers 403 if not. */
static gboolean
check_client(GntRpcServer *self, SoupServerMessage *msg, const gchar *path)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *message = NULL;

	if (gnt_tls_verify_peer(self->ca, peer_certificate_of(self, msg), GNT_TLS_ROLE_MASTER,
				self->master_cn, &error))
		return TRUE;
	g_warning("refused '%s' from %s: client certificate: %s", path,
		  soup_server_message_get_remote_host(msg), error->message);
	message = g_strdup_printf("this node answers only the master of its cluster: %s",
				  error->message);
	respond_error(msg, SOUP_STATUS_FORBIDDEN, GNT_ERROR_ENVIRONMENT, message);
	return FALSE;
}

static void
handle_request(SoupServer *soup, SoupServerMessage *msg, const gchar *path, GHashTable *query,
	       gpointer user_data)
{
	GntRpcServer *self = GNT_RPC_SERVER(user_data);
	const gchar *name = path[0] == '/' ? path + 1 : path;
	RpcEntry *entry = g_hash_table_lookup(self->procedures, name);
	SoupMessageBody *body = soup_server_message_get_request_body(msg);
	g_autoptr(GTask) task = NULL;
	RpcCall *call;

	if (soup_server_message_get_status(msg) != SOUP_STATUS_NONE)
		return; /* answered already (413 on the headers) */
	if ((entry == NULL || !(entry->flags & GNT_RPC_PROCEDURE_PUBLIC)) &&
	    !check_client(self, msg, path))
		return;
	if (entry == NULL) {
		g_autofree gchar *message = g_strdup_printf("unknown procedure '%s'", name);
		g_info("%s (from %s)", message, soup_server_message_get_remote_host(msg));
		respond_error(msg, SOUP_STATUS_NOT_FOUND, GNT_ERROR_NOT_FOUND, message);
		return;
	}
	if (g_strcmp0(soup_server_message_get_method(msg), SOUP_METHOD_PUT) != 0) {
		g_autofree gchar *message = g_strdup_printf(
			"procedure '%s' is called with PUT, not %s", name,
			soup_server_message_get_method(msg));
		soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Allow",
					     "PUT");
		respond_error(msg, SOUP_STATUS_METHOD_NOT_ALLOWED, GNT_ERROR_INVALID, message);
		return;
	}
	if ((gsize)body->length > self->max_body_size) {
		g_autofree gchar *message = g_strdup_printf(
			"body of '%s' is larger than %" G_GSIZE_FORMAT " bytes", name,
			self->max_body_size);
		respond_error(msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, GNT_ERROR_INVALID, message);
		return;
	}
	call = g_new0(RpcCall, 1);
	call->name = g_strdup(name);
	call->func = entry->func;
	call->user_data = entry->user_data;
	call->body = soup_message_body_flatten(body);
	call->msg = g_object_ref(msg);
	g_signal_connect(msg, "disconnected", G_CALLBACK(call_gone_cb), call);
	g_signal_connect(msg, "finished", G_CALLBACK(call_gone_cb), call);
	task = g_task_new(self, NULL, rpc_call_done, NULL);
	g_task_set_source_tag(task, handle_request);
	g_task_set_task_data(task, call, (GDestroyNotify)rpc_call_free);
	self->n_running++;
	soup_server_message_pause(msg);
	g_debug("calling '%s' for %s", name, soup_server_message_get_remote_host(msg));
	g_task_run_in_thread(task, rpc_call_run);
}

/* Shuts down the connections idle for keep_alive_s: libsoup then sees the
 * end of the stream and drops them. (shutdown, not close: libsoup still
 * polls the descriptor.) */
static gboolean
sweep_cb(gpointer user_data)
{
	GntRpcServer *self = GNT_RPC_SERVER(user_data);
	gint64 now = g_get_monotonic_time();
	guint keep_alive_s = (guint)g_atomic_int_get(&self->keep_alive_s);
	GHashTableIter iter;
	RpcConnection *conn;

	g_hash_table_iter_init(&iter, self->connections);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&conn)) {
		if (conn->busy || now - conn->idle_since < (gint64)keep_alive_s * G_USEC_PER_SEC)
			continue;
		g_debug("closing a connection idle for %u s", keep_alive_s);
		g_socket_shutdown(conn->socket, TRUE, TRUE, NULL); /* gone already: fine */
		g_hash_table_iter_remove(&iter);
	}
	g_atomic_int_set(&self->n_connections, g_hash_table_size(self->connections));
	if (g_hash_table_size(self->connections) > 0)
		return G_SOURCE_CONTINUE;
	g_clear_pointer(&self->sweep, g_source_unref);
	return G_SOURCE_REMOVE;
}

/* The connection @msg arrived on, tracked from now on; NULL when libsoup
 * does not say. */
static RpcConnection *
connection_of(GntRpcServer *self, SoupServerMessage *msg)
{
	GSocket *socket = soup_server_message_get_socket(msg);
	RpcConnection *conn;

	if (socket == NULL)
		return NULL;
	conn = g_hash_table_lookup(self->connections, socket);
	if (conn != NULL)
		return conn;
	conn = g_new0(RpcConnection, 1);
	conn->socket = g_object_ref(socket);
	conn->idle_since = g_get_monotonic_time();
	g_hash_table_insert(self->connections, socket, conn);
	g_atomic_int_set(&self->n_connections, g_hash_table_size(self->connections));
	if (self->sweep == NULL) {
		/* a few connections (one per master thread): a look each second is cheap */
		self->sweep = g_timeout_source_new_seconds(1);
		g_source_set_callback(self->sweep, sweep_cb, self, NULL);
		g_source_set_name(self->sweep, "gnt-rpc-server idle connections");
		g_source_attach(self->sweep, self->context);
	}
	return conn;
}

/* A request ended (answered, or its client went): idle from now on. */
static void
request_done_cb(SoupServer *soup, SoupServerMessage *msg, gpointer user_data)
{
	GSocket *socket = soup_server_message_get_socket(msg);
	RpcConnection *conn = socket != NULL ? g_hash_table_lookup(
						       GNT_RPC_SERVER(user_data)->connections, socket)
					     : NULL;

	if (conn != NULL) {
		conn->busy = FALSE;
		conn->idle_since = g_get_monotonic_time();
	}
}

/* Refuses an announced body that is too large before reading it. */
static void
got_headers_cb(SoupServerMessage *msg, gpointer user_data)
{
	GntRpcServer *self = GNT_RPC_SERVER(user_data);
	SoupMessageHeaders *headers = soup_server_message_get_request_headers(msg);
	RpcConnection *conn = connection_of(self, msg);

	if (conn != NULL)
		conn->busy = TRUE;

	if (soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CONTENT_LENGTH &&
	    (gsize)soup_message_headers_get_content_length(headers) > self->max_body_size) {
		g_autofree gchar *message = g_strdup_printf(
			"body of %" G_GINT64_FORMAT " bytes is larger than %" G_GSIZE_FORMAT,
			(gint64)soup_message_headers_get_content_length(headers),
			self->max_body_size);
		respond_error(msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, GNT_ERROR_INVALID, message);
	}
}

/* Lets any client certificate through the handshake: handle_request()
 * checks it against the cluster CA and answers 403, which says more than a
 * failed handshake. */
static gboolean
accept_certificate_cb(SoupServerMessage *msg, GTlsCertificate *cert,
		      GTlsCertificateFlags errors, gpointer user_data)
{
	return TRUE;
}

/* Also right after a request on a kept-alive connection: the next one may
 * never come, so the connection counts as idle until its headers arrive. */
static void
request_started_cb(SoupServer *soup, SoupServerMessage *msg, gpointer user_data)
{
	RpcConnection *conn = connection_of(GNT_RPC_SERVER(user_data), msg);

	if (conn != NULL) {
		conn->busy = FALSE;
		conn->idle_since = g_get_monotonic_time();
	}
	g_signal_connect_object(msg, "got-headers", G_CALLBACK(got_headers_cb), user_data, 0);
	g_signal_connect(msg, "accept-certificate", G_CALLBACK(accept_certificate_cb), NULL);
}

static void
gnt_rpc_server_dispose(GObject *object)
{
	GntRpcServer *self = GNT_RPC_SERVER(object);

	if (self->soup != NULL)
		soup_server_disconnect(self->soup);
	g_clear_object(&self->soup);
	if (self->sweep != NULL)
		g_source_destroy(self->sweep);
	g_clear_pointer(&self->sweep, g_source_unref);
	g_hash_table_remove_all(self->connections);
	G_OBJECT_CLASS(gnt_rpc_server_parent_class)->dispose(object);
}

static void
gnt_rpc_server_finalize(GObject *object)
{
	GntRpcServer *self = GNT_RPC_SERVER(object);

	g_clear_object(&self->ca);
	g_free(self->master_cn);
	g_free(self->uri);
	g_hash_table_unref(self->procedures);
	g_hash_table_unref(self->connections);
	g_main_context_unref(self->context);
	G_OBJECT_CLASS(gnt_rpc_server_parent_class)->finalize(object);
}

static void
gnt_rpc_server_class_init(GntRpcServerClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = gnt_rpc_server_dispose;
	object_class->finalize = gnt_rpc_server_finalize;
}

static void
gnt_rpc_server_init(GntRpcServer *self)
{
	self->procedures = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	self->max_body_size = GNT_RPC_MAX_BODY_SIZE;
	self->context = g_main_context_ref_thread_default();
	self->connections = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						  (GDestroyNotify)rpc_connection_free);
	self->keep_alive_s = GNT_RPC_KEEP_ALIVE_S;
}

GntRpcServer *
gnt_rpc_server_new(GTlsCertificate *certificate, GTlsCertificate *ca, GError **error)
{
	g_autoptr(GntRpcServer) self = NULL;
	g_autofree gchar *ca_cn = NULL;

	g_return_val_if_fail(G_IS_TLS_CERTIFICATE(certificate), NULL);
	g_return_val_if_fail(G_IS_TLS_CERTIFICATE(ca), NULL);
	ca_cn = gnt_tls_certificate_dup_cn(ca, error);
	if (ca_cn == NULL)
		return NULL;
	if (!g_str_has_prefix(ca_cn, GNT_TLS_CA_CN_PREFIX)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "CA certificate '%s' is not a Gantry cluster CA", ca_cn);
		return NULL;
	}
	self = g_object_new(GNT_TYPE_RPC_SERVER, NULL);
	self->ca = g_object_ref(ca);
	self->master_cn = gnt_tls_dup_master_cn(ca_cn + strlen(GNT_TLS_CA_CN_PREFIX));
	self->soup = soup_server_new("tls-certificate", certificate, "server-header",
				     "gantry-noded/" GNT_VERSION " ", NULL);
	soup_server_set_tls_auth_mode(self->soup, G_TLS_AUTHENTICATION_REQUESTED);
	soup_server_add_handler(self->soup, NULL, handle_request, self, NULL);
	g_signal_connect_object(self->soup, "request-started", G_CALLBACK(request_started_cb), self,
				0);
	g_signal_connect_object(self->soup, "request-finished", G_CALLBACK(request_done_cb), self,
				0);
	g_signal_connect_object(self->soup, "request-aborted", G_CALLBACK(request_done_cb), self,
				0);
	return g_steal_pointer(&self);
}

GntRpcServer *
gnt_rpc_server_new_from_paths(const GntPaths *paths, GError **error)
{
	g_autoptr(GTlsCertificate) certificate = NULL;
	g_autoptr(GTlsCertificate) ca = NULL;

	ca = gnt_tls_load_ca_certificate(gnt_paths_get_ca_cert(paths), error);
	if (ca == NULL)
		return NULL;
	certificate = gnt_tls_load_certificate(gnt_paths_get_node_cert(paths),
					       gnt_paths_get_node_key(paths), error);
	if (certificate == NULL)
		return NULL;
	return gnt_rpc_server_new(certificate, ca, error);
}

void
gnt_rpc_server_add_procedures(GntRpcServer *self, const GntRpcProcedure *table,
			      gpointer user_data)
{
	g_return_if_fail(GNT_IS_RPC_SERVER(self));
	for (const GntRpcProcedure *p = table; p->name != NULL; p++) {
		RpcEntry *entry;

		g_return_if_fail(p->func != NULL);
		g_return_if_fail(!g_hash_table_contains(self->procedures, p->name));
		entry = g_new0(RpcEntry, 1);
		entry->func = p->func;
		entry->flags = p->flags;
		entry->user_data = user_data;
		g_hash_table_insert(self->procedures, g_strdup(p->name), entry);
	}
}

void
gnt_rpc_server_set_max_body_size(GntRpcServer *self, gsize max_bytes)
{
	g_return_if_fail(GNT_IS_RPC_SERVER(self));
	self->max_body_size = max_bytes;
}

void
gnt_rpc_server_set_keep_alive(GntRpcServer *self, guint seconds)
{
	g_return_if_fail(GNT_IS_RPC_SERVER(self));
	g_atomic_int_set(&self->keep_alive_s, MAX(1, seconds));
}

guint
gnt_rpc_server_get_n_connections(GntRpcServer *self)
{
	g_return_val_if_fail(GNT_IS_RPC_SERVER(self), 0);
	return (guint)g_atomic_int_get(&self->n_connections);
}

gboolean
gnt_rpc_server_listen(GntRpcServer *self, const gchar *address, guint port, GError **error)
{
	g_autoptr(GSocket) listener = NULL;
	g_autofree gchar *uri = NULL;
	guint bound_port = 0;

	g_return_val_if_fail(GNT_IS_RPC_SERVER(self), FALSE);
	listener = gnt_net_listen(address, port, "https", &bound_port, &uri, error);
	if (listener == NULL)
		return FALSE;
	if (!soup_server_listen_socket(self->soup, listener, SOUP_SERVER_LISTEN_HTTPS, error)) {
		gnt_error_convert(error);
		g_prefix_error(error, "listening on %s port %u: ", address, port);
		return FALSE;
	}
	if (self->uri == NULL) { /* the first address listened on */
		self->port = bound_port;
		self->uri = g_steal_pointer(&uri);
	}
	return TRUE;
}

gchar *
gnt_rpc_server_dup_uri(GntRpcServer *self)
{
	return g_strdup(self->uri);
}

guint
gnt_rpc_server_get_port(GntRpcServer *self)
{
	return self->port;
}

guint
gnt_rpc_server_get_n_running(GntRpcServer *self)
{
	return self->n_running;
}

void
gnt_rpc_server_stop(GntRpcServer *self)
{
	g_return_if_fail(GNT_IS_RPC_SERVER(self));
	soup_server_disconnect(self->soup);
}

gboolean
gnt_rpc_parse_listen_address(const gchar *text, guint default_port, gchar **address,
			     guint *port, GError **error)
{
	g_autofree gchar *host = NULL;
	const gchar *port_text = NULL;
	g_autoptr(GInetAddress) inet = NULL;
	guint64 value = default_port;

	if (text[0] == '[') {
		const gchar *end = strchr(text, ']');

		if (end != NULL && (end[1] == '\0' || end[1] == ':')) {
			host = g_strndup(text + 1, (gsize)(end - text - 1));
			port_text = end[1] == ':' ? end + 2 : NULL;
		}
	} else if (strchr(text, ':') == strrchr(text, ':')) { /* at most one colon */
		const gchar *colon = strchr(text, ':');

		host = colon != NULL ? g_strndup(text, (gsize)(colon - text)) : g_strdup(text);
		port_text = colon != NULL ? colon + 1 : NULL;
	} else {
		host = g_strdup(text); /* a bare IPv6 address */
	}
	if (host != NULL)
		inet = g_inet_address_new_from_string(host);
	if (inet == NULL ||
	    (port_text != NULL &&
	     !g_ascii_string_to_unsigned(port_text, 10, 0, G_MAXUINT16, &value, NULL))) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' is not ADDRESS:PORT with an IP address and a port up to 65535",
			    text);
		return FALSE;
	}
	*address = g_steal_pointer(&host);
	*port = (guint)value;
	return TRUE;
}
