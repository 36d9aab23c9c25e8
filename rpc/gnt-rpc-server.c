#include "gnt-rpc-server.h"

#include <string.h>

#include "gnt-build-config.h"
#include "gnt-error.h"
#include "gnt-http-server.h"
#include "gnt-json.h"
#include "gnt-net.h"
#include "gnt-secret.h"
#include "gnt-tls.h"

/* Connections served at once; the master keeps about one per job thread. */
#define RPC_MAX_CLIENTS 512

struct _GntRpcServer {
	GObject parent_instance;
	GntHttpServer *http;
	GTlsCertificate *ca;
	gchar *master_cn;
	GHashTable *procedures; /* name → RpcEntry */
	gsize max_body_size;
	guint port;
	gchar *uri;
	guint n_running; /* touched in the server's context only */
};

G_DEFINE_TYPE(GntRpcServer, gnt_rpc_server, G_TYPE_OBJECT)

typedef struct {
	GntRpcProcedure procedure; /* its def resolved */
	gpointer user_data;
} RpcEntry;

/* One call on its way through a worker thread. */
typedef struct {
	gchar *name;
	GntRpcProcedure procedure;
	gpointer user_data;
	GntHttpRequest *request;
	/* set by the worker */
	guint status;
	gchar *answer;
} RpcCall;

static void
rpc_call_free(RpcCall *call)
{
	g_free(call->name);
	gnt_http_request_free(call->request);
	g_free(call->answer);
	g_free(call);
}

static void
respond(GntHttpRequest *request, guint status, const gchar *extra_headers,
	gchar *answer /* taken */)
{
	gnt_http_request_respond(request,
				 gnt_http_build_response(&request->flags, status,
							 GNT_RPC_CONTENT_TYPE, extra_headers,
							 answer, strlen(answer)),
				 NULL);
	g_free(answer);
}

static void
respond_error(GntHttpRequest *request, guint status, GntError code, const gchar *message)
{
	respond(request, status, NULL, gnt_rpc_encode_error_literal(code, message));
}

/* The http layer's own refusals (400, 408, 413...) in RPC's error body. */
static gchar *
error_body(guint status, const gchar *message, const gchar **content_type)
{
	*content_type = GNT_RPC_CONTENT_TYPE;
	return gnt_rpc_encode_error_literal(
		GNT_ERROR_INVALID, message != NULL ? message : gnt_http_status_reason(status));
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
	GBytes *body = call->request->body;
	const gchar *data = body != NULL ? g_bytes_get_data(body, &len) : NULL;
	gboolean secrets = gnt_rpc_procedure_def_has_secrets(call->procedure.def);

	args = gnt_json_parse(data != NULL ? data : "", (gssize)len, &error);
	if (args == NULL) {
		g_prefix_error(&error, "body of '%s' is not valid JSON: ", call->name);
		call->status = SOUP_STATUS_BAD_REQUEST;
		call->answer = gnt_rpc_encode_error_literal(GNT_ERROR_INVALID, error->message);
		g_task_return_boolean(task, TRUE);
		return;
	}
	if (!JSON_NODE_HOLDS_ARRAY(args)) {
		g_autofree gchar *message =
			g_strdup_printf("body of '%s' must be a JSON list of arguments, not %s",
					call->name, gnt_json_node_type_name(args));
		call->status = SOUP_STATUS_BAD_REQUEST;
		call->answer = gnt_rpc_encode_error_literal(GNT_ERROR_INVALID, message);
		g_task_return_boolean(task, TRUE);
		return;
	}
	if (secrets) {
		/* the body is parsed: drop it now (its bytes are wiped), not once
		 * the procedure, which may run for an hour, has answered */
		g_clear_pointer(&call->request->body, g_bytes_unref);
	}
	result = gnt_rpc_procedure_run(&call->procedure, json_node_get_array(args), call->user_data,
				       &error);
	if (secrets) {
		gnt_json_node_wipe_strings(args);
		gnt_secret_wipe_traces();
	}
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

/* The calls' threads: GIO's own pool for tasks grows by one thread only
 * every 100 ms or so once 10 are busy, and an install session's long poll
 * (session_wait, doc/appliance.md "Sessions") keeps one busy for up to
 * 25 s: twenty of them would make every other call wait. One thread per
 * call in flight, at most one per connection served. */
static void
rpc_pool_run(gpointer data, gpointer user_data)
{
	g_autoptr(GTask) task = data;

	(void)user_data;
	rpc_call_run(task, g_task_get_source_object(task), g_task_get_task_data(task), NULL);
}

static GThreadPool *
rpc_pool_get(void)
{
	static gsize pool;

	if (g_once_init_enter(&pool)) {
		GThreadPool *made =
			g_thread_pool_new(rpc_pool_run, NULL, RPC_MAX_CLIENTS, FALSE, NULL);

		g_once_init_leave(&pool, (gsize)made);
	}
	return (GThreadPool *)pool;
}

/* Back in the server's context: answer (into the void when the client has
 * gone meanwhile). */
static void
rpc_call_done(GObject *source, GAsyncResult *result, gpointer user_data)
{
	GntRpcServer *self = GNT_RPC_SERVER(source);
	RpcCall *call = g_task_get_task_data(G_TASK(result));

	self->n_running--;
	respond(g_steal_pointer(&call->request), call->status, NULL,
		g_steal_pointer(&call->answer));
}

/* Whether the client is the cluster's master (its certificate was checked
 * in the handshake); answers 403 if not. */
static gboolean
check_client(GntHttpRequest *request, const gchar *name)
{
	g_autofree gchar *message = NULL;

	if (request->client_trusted)
		return TRUE;
	g_warning("refused '/%s' from %s: client certificate: %s", name,
		  request->remote_address != NULL ? request->remote_address : "a local client",
		  request->client_error);
	message = g_strdup_printf("this node answers only the master of its cluster: %s",
				  request->client_error);
	respond_error(request, SOUP_STATUS_FORBIDDEN, GNT_ERROR_ENVIRONMENT, message);
	return FALSE;
}

static void
handle_request(GntHttpRequest *request, gpointer user_data)
{
	GntRpcServer *self = GNT_RPC_SERVER(user_data);
	const gchar *question = strchr(request->target, '?');
	g_autofree gchar *name = g_strndup(
		request->target + 1, question != NULL ? (gsize)(question - request->target - 1)
						      : strlen(request->target + 1));
	RpcEntry *entry = g_hash_table_lookup(self->procedures, name);
	g_autoptr(GTask) task = NULL;
	RpcCall *call;

	/* only the master keeps a connection: no one else holds a place */
	if (!request->client_trusted)
		request->flags.keep_alive = FALSE;
	if ((entry == NULL || !(entry->procedure.def->flags & GNT_RPC_PROCEDURE_PUBLIC)) &&
	    !check_client(request, name))
		return;
	if (entry == NULL) {
		g_autofree gchar *message = g_strdup_printf("unknown procedure '%s'", name);
		g_info("%s (from %s)", message, request->remote_address);
		respond_error(request, SOUP_STATUS_NOT_FOUND, GNT_ERROR_NOT_FOUND, message);
		return;
	}
	if (!g_str_equal(request->method, "PUT")) {
		g_autofree gchar *message = g_strdup_printf(
			"procedure '%s' is called with PUT, not %s", name, request->method);
		respond(request, SOUP_STATUS_METHOD_NOT_ALLOWED, "Allow: PUT\r\n",
			gnt_rpc_encode_error_literal(GNT_ERROR_INVALID, message));
		return;
	}
	call = g_new0(RpcCall, 1);
	call->name = g_strdup(name);
	call->procedure = entry->procedure;
	call->user_data = entry->user_data;
	call->request = request;
	task = g_task_new(self, NULL, rpc_call_done, NULL);
	g_task_set_source_tag(task, handle_request);
	g_task_set_task_data(task, call, (GDestroyNotify)rpc_call_free);
	self->n_running++;
	g_debug("calling '%s' for %s", name, request->remote_address);
	g_thread_pool_push(rpc_pool_get(), g_object_ref(task), NULL);
}

/* The handshake's check (in its thread): the cluster CA's master. */
static gboolean
verify_master(GTlsCertificate *certificate, gpointer user_data, GError **error)
{
	GntRpcServer *self = GNT_RPC_SERVER(user_data);

	return gnt_tls_verify_peer(self->ca, certificate, GNT_TLS_ROLE_MASTER, self->master_cn,
				   error);
}

static void
gnt_rpc_server_dispose(GObject *object)
{
	GntRpcServer *self = GNT_RPC_SERVER(object);

	if (self->http != NULL)
		gnt_http_server_stop(self->http);
	g_clear_object(&self->http);
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
	self->http = gnt_http_server_new(
		&(GntHttpServerOptions){
			.max_clients = RPC_MAX_CLIENTS,
			.keep_alive_s = GNT_RPC_KEEP_ALIVE_S,
			.max_body = self->max_body_size,
			.server_header = "gantry-noded/" GNT_VERSION,
			.error_body = error_body,
			.certificate = certificate,
			.verify_client = verify_master,
			.verify_client_data = self,
		},
		handle_request, self);
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

JsonNode *
gnt_rpc_procedure_run(const GntRpcProcedure *procedure, JsonArray *array, gpointer user_data,
		      GError **error)
{
	const GntRpcProcedureDef *def;
	g_autoptr(GntRpcArgs) args = NULL;

	g_return_val_if_fail(procedure != NULL && array != NULL, NULL);
	def = procedure->def != NULL ? procedure->def
				     : gnt_rpc_procedure_def_lookup(procedure->name);
	g_return_val_if_fail(def != NULL, NULL);

	args = gnt_rpc_args_decode(def, array, error);
	if (args == NULL)
		return NULL;
	return procedure->func(args, user_data, error);
}

void
gnt_rpc_server_add_procedures(GntRpcServer *self, const GntRpcProcedure *table, gpointer user_data)
{
	g_return_if_fail(GNT_IS_RPC_SERVER(self));
	for (const GntRpcProcedure *p = table; p->name != NULL; p++) {
		RpcEntry *entry;

		const GntRpcProcedureDef *def =
			p->def != NULL ? p->def : gnt_rpc_procedure_def_lookup(p->name);

		g_return_if_fail(p->func != NULL);
		g_return_if_fail(def != NULL && g_str_equal(def->name, p->name));
		g_return_if_fail(!g_hash_table_contains(self->procedures, p->name));
		entry = g_new0(RpcEntry, 1);
		entry->procedure = *p;
		entry->procedure.def = def;
		entry->user_data = user_data;
		g_hash_table_insert(self->procedures, g_strdup(p->name), entry);
	}
}

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

GStrv
gnt_rpc_server_dup_procedure_names(GntRpcServer *self)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_null_terminated(16, g_free, TRUE);
	GHashTableIter iter;
	gpointer key;

	g_return_val_if_fail(GNT_IS_RPC_SERVER(self), NULL);

	g_hash_table_iter_init(&iter, self->procedures);
	while (g_hash_table_iter_next(&iter, &key, NULL))
		g_ptr_array_add(names, g_strdup(key));
	g_ptr_array_sort(names, compare_strings);
	return (GStrv)g_ptr_array_steal(names, NULL);
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
	gnt_http_server_set_keep_alive(self->http, seconds);
}

guint
gnt_rpc_server_get_n_connections(GntRpcServer *self)
{
	g_return_val_if_fail(GNT_IS_RPC_SERVER(self), 0);
	return gnt_http_server_get_n_connections(self->http);
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
	gnt_http_server_add_listener(self->http, listener, self->max_body_size, NULL);
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
	gnt_http_server_stop(self->http);
}

gboolean
gnt_rpc_parse_listen_address(const gchar *text, guint default_port, gchar **address, guint *port,
			     GError **error)
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
