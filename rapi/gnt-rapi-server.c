#include "gnt-rapi-server.h"

#include <string.h>

#include "gnt-build-config.h"
#include "gnt-error.h"
#include "gnt-http-server.h"
#include "gnt-json.h"
#include "gnt-luxi-client.h"
#include "gnt-net.h"
#include "gnt-rapi-resources.h"
#include "gnt-rapi-users.h"
#include "gnt-secret.h"

#define LUXI_PROBE_IDLE_US (1 * G_USEC_PER_SEC)
#define SERVER_HEADER	   "gantry-rapi/" GNT_VERSION

/* ---- error bodies ---- */

/* Appends @text as a JSON string literal. */
static void
append_json_string(GString *out, const gchar *text)
{
	g_autofree gchar *valid = g_utf8_make_valid(text, -1);

	g_string_append_c(out, '"');
	for (const gchar *p = valid; *p != '\0'; p++) {
		guchar c = (guchar)*p;

		if (c == '"' || c == '\\')
			g_string_append_c(out, '\\');
		if (c < 0x20)
			g_string_append_printf(out, "\\u%04x", c);
		else
			g_string_append_c(out, (gchar)c);
	}
	g_string_append_c(out, '"');
}

/* Python's html.escape(): & < > " ' */
static gchar *
html_escape(const gchar *text)
{
	GString *out = g_string_sized_new(strlen(text));

	for (const gchar *p = text; *p != '\0'; p++) {
		switch (*p) {
		case '&':
			g_string_append(out, "&amp;");
			break;
		case '<':
			g_string_append(out, "&lt;");
			break;
		case '>':
			g_string_append(out, "&gt;");
			break;
		case '"':
			g_string_append(out, "&quot;");
			break;
		case '\'':
			g_string_append(out, "&#x27;");
			break;
		default:
			g_string_append_c(out, *p);
		}
	}
	return g_string_free(out, FALSE);
}

gchar *
gnt_rapi_dup_error_body(guint status, const gchar *message)
{
	g_autofree gchar *escaped =
		html_escape(message != NULL ? message : gnt_http_status_reason(status));
	GString *out = g_string_new(NULL);

	g_string_append_printf(out, "{\"code\": %u, \"message\": ", status);
	append_json_string(out, escaped);
	g_string_append(out, ", \"explain\": ");
	append_json_string(out, gnt_http_status_explain(status));
	g_string_append(out, "}");
	return g_string_free(out, FALSE);
}

/* ---- responses ---- */

static gchar *
error_body(guint status, const gchar *message, const gchar **content_type)
{
	*content_type = "application/json";
	return gnt_rapi_dup_error_body(status, message);
}

#define WWW_AUTHENTICATE "WWW-Authenticate: Basic realm=\"" GNT_RAPI_REALM "\"\r\n"

static GBytes *
build_error_response(guint status, const gchar *message, const GntHttpReplyFlags *flags,
		     gboolean www_authenticate)
{
	g_autofree gchar *body = gnt_rapi_dup_error_body(status, message);

	return gnt_http_build_response(flags, status, "application/json",
				       www_authenticate ? WWW_AUTHENTICATE : NULL, body,
				       strlen(body));
}

/* ---- routes ---- */

typedef enum {
	SEGMENT_LITERAL,
	SEGMENT_NAME,	/* [A-Za-z0-9_.-]+ */
	SEGMENT_NUMBER, /* [0-9]+: {id}, {index} */
	SEGMENT_TAG,	/* a tag without '/': [A-Za-z0-9_.+*:@-]+, {tag} */
} SegmentKind;

typedef struct {
	const GntRapiRoute *route;
	guint n_segments;
	gchar **segments; /* the literal text, or the variable's name */
	SegmentKind *kinds;
} CompiledRoute;

static void
compiled_route_clear(CompiledRoute *self)
{
	g_strfreev(self->segments);
	g_free(self->kinds);
}

static void
compile_route(const GntRapiRoute *route, CompiledRoute *out)
{
	g_auto(GStrv) parts = g_strsplit(route->pattern + 1, "/", -1);
	guint n = g_strv_length(parts);

	out->route = route;
	out->segments = g_new0(gchar *, n + 1);
	out->kinds = g_new0(SegmentKind, n);
	for (guint i = 0; i < n; i++) {
		gsize len = strlen(parts[i]);

		if (len > 2 && parts[i][0] == '{' && parts[i][len - 1] == '}') {
			out->segments[out->n_segments] = g_strndup(parts[i] + 1, len - 2);
			const gchar *name = out->segments[out->n_segments];

			out->kinds[out->n_segments] = g_str_equal(name, "id") ||
								      g_str_equal(name, "index")
							      ? SEGMENT_NUMBER
						      : g_str_equal(name, "tag") ? SEGMENT_TAG
										 : SEGMENT_NAME;
		} else {
			out->segments[out->n_segments] = g_strdup(parts[i]);
			out->kinds[out->n_segments] = SEGMENT_LITERAL;
		}
		out->n_segments++;
	}
}

static gboolean
segment_matches(SegmentKind kind, const gchar *pattern, const gchar *segment)
{
	switch (kind) {
	case SEGMENT_LITERAL:
		return strcmp(pattern, segment) == 0;
	case SEGMENT_NUMBER:
		for (const gchar *p = segment; *p != '\0'; p++) {
			if (!g_ascii_isdigit(*p))
				return FALSE;
		}
		return segment[0] != '\0';
	case SEGMENT_NAME:
	case SEGMENT_TAG:
		for (const gchar *p = segment; *p != '\0'; p++) {
			if (!g_ascii_isalnum(*p) &&
			    strchr(kind == SEGMENT_TAG ? "_.+*:@-" : "_.-", *p) == NULL)
				return FALSE;
		}
		return segment[0] != '\0';
	default:
		return FALSE;
	}
}

static gboolean
route_matches(const CompiledRoute *route, gchar **segments, guint n)
{
	if (route->n_segments != n)
		return FALSE;
	for (guint i = 0; i < n; i++) {
		if (!segment_matches(route->kinds[i], route->segments[i], segments[i]))
			return FALSE;
	}
	return TRUE;
}

/* ---- the server ---- */

struct _GntRapiServer {
	GObject parent_instance;
	GntRapiServerOptions options;
	gchar *luxi_socket;
	GntRapiUsersFile *users;
	GTlsCertificate *certificate;
	CompiledRoute *routes;
	guint n_routes;
	GMainContext *context;

	GntHttpServer *http;
	guint listener;
	guint port;
	gchar *uri;

	guint n_running;

	GThread **workers;
	GAsyncQueue *jobs;
	GAsyncQueue *done;
	GSource *done_source;
	gboolean stopped;
};

G_DEFINE_TYPE(GntRapiServer, gnt_rapi_server, G_TYPE_OBJECT)

/* ---- requests on their way through a worker ---- */

typedef struct {
	GntHttpRequest *request; /* the request, read by the worker */
	/* the answer, written by the worker: its head (with the body when
	 * small), then the body (NULL: none or in the head) */
	GBytes *response;
	GBytes *response_body;
	guint status;
} RapiCall;

static void
rapi_call_free(RapiCall *call)
{
	g_clear_pointer(&call->request, gnt_http_request_free);
	g_clear_pointer(&call->response, g_bytes_unref);
	g_clear_pointer(&call->response_body, g_bytes_unref);
	g_free(call);
}

/* A worker's own state. */
typedef struct {
	GntRapiServer *server;
	GntLuxiClient *luxi;
	gint64 luxi_used;
} Worker;

static gboolean
is_transport_class(const gchar *exc_class)
{
	return g_strcmp0(exc_class, GNT_LUXI_EXC_TIMEOUT) == 0 ||
	       g_strcmp0(exc_class, GNT_LUXI_EXC_NO_MASTER) == 0 ||
	       g_strcmp0(exc_class, GNT_LUXI_EXC_PERMISSION) == 0 ||
	       g_strcmp0(exc_class, GNT_LUXI_EXC_CONNECTION_CLOSED) == 0 ||
	       g_strcmp0(exc_class, GNT_LUXI_EXC_PROTOCOL) == 0;
}

/* The status for a handler's failure (gnt-rapi-route.h). */
static guint
status_of_error(const GError *error, const gchar *exc_class)
{
	if (g_strcmp0(exc_class, GNT_LUXI_EXC_TIMEOUT) == 0)
		return 504;
	if (is_transport_class(exc_class))
		return 502;
	if (error->domain != GNT_ERROR)
		return 500;
	switch ((GntError)error->code) {
	case GNT_ERROR_INVALID:
	case GNT_ERROR_EXISTS:
	case GNT_ERROR_WRONG_STATE:
		return 400;
	case GNT_ERROR_NOT_FOUND:
		return 404;
	case GNT_ERROR_NO_RESOURCES:
	case GNT_ERROR_TEMP_NO_RESOURCES:
		return 503;
	case GNT_ERROR_ENVIRONMENT:
	case GNT_ERROR_FAULT:
	case GNT_ERROR_LAST:
	default:
		return 500;
	}
}

/* This worker's LUXI connection, connected (again) if need be. A
 * connection idle for a while is probed first when @probe: masterd may
 * have restarted since. */
static GntLuxiClient *
worker_get_luxi(Worker *self, gboolean probe, const gchar **exc_class, GError **error)
{
	gint64 now = g_get_monotonic_time();

	if (self->luxi != NULL && probe && now - self->luxi_used > LUXI_PROBE_IDLE_US) {
		g_autoptr(JsonNode) args = json_from_string("[[]]", NULL);
		g_autoptr(JsonNode)
			result = gnt_luxi_client_call(self->luxi, "QueryConfigValues", args, NULL);

		if (result == NULL &&
		    is_transport_class(gnt_luxi_client_get_error_class(self->luxi)))
			g_clear_object(&self->luxi);
	}
	if (self->luxi == NULL)
		self->luxi = gnt_luxi_client_new_full(self->server->luxi_socket, exc_class, error);
	self->luxi_used = now;
	return self->luxi;
}

typedef struct {
	guint status; /* 0: fine so far */
	gchar *message;
	gboolean www_authenticate;
} Refusal;

static void
refuse(Refusal *refusal, guint status, gchar *message /* taken */)
{
	refusal->status = status;
	refusal->message = message;
}

/* The authenticated user for @call (NULL: anonymous), or a refusal. */
static gchar *
authenticate(GntRapiServer *self, RapiCall *call, GntRapiAccess access, Refusal *refusal)
{
	const gchar *header = soup_message_headers_get_one(call->request->headers, "Authorization");
	gboolean required = self->options.require_authentication || access != GNT_RAPI_ACCESS_NONE;
	g_autoptr(GntRapiUsers) users = NULL;
	g_autofree guchar *decoded = NULL;
	gsize decoded_len = 0;
	const gchar *credentials;
	const gchar *colon;
	g_autofree gchar *user = NULL;
	GntRapiUserFlags flags = 0;
	gboolean ok;

	while (header != NULL && g_ascii_isspace(*header))
		header++;
	if (header == NULL || header[0] == '\0') {
		if (required) {
			refuse(refusal, 401, NULL);
			refusal->www_authenticate = TRUE;
		}
		return NULL;
	}
	if (g_ascii_strncasecmp(header, "Basic", 5) != 0 ||
	    (header[5] != '\0' && !g_ascii_isspace(header[5]))) {
		/* Digest and the rest: no usable credentials */
		refuse(refusal, 401, NULL);
		refusal->www_authenticate = TRUE;
		return NULL;
	}
	credentials = header + 5;
	while (g_ascii_isspace(*credentials))
		credentials++;
	if (credentials[0] == '\0') {
		refuse(refusal, 400, g_strdup("Basic authentication requires credentials"));
		return NULL;
	}
	decoded = g_base64_decode(credentials, &decoded_len);
	colon = decoded != NULL ? memchr(decoded, ':', decoded_len) : NULL;
	if (colon == NULL || memchr(decoded, '\0', decoded_len) != NULL) {
		if (decoded != NULL)
			gnt_secret_wipe(decoded, decoded_len);
		refuse(refusal, 401, NULL);
		refusal->www_authenticate = TRUE;
		return NULL;
	}
	user = g_strndup((const gchar *)decoded, (gsize)(colon - (const gchar *)decoded));
	users = gnt_rapi_users_file_get(self->users);
	ok = gnt_rapi_users_check(users, user, colon + 1,
				  decoded_len - (gsize)(colon + 1 - (const gchar *)decoded),
				  &flags);
	gnt_secret_wipe(decoded, decoded_len);
	if (!ok) {
		refuse(refusal, 401, NULL);
		refusal->www_authenticate = TRUE;
		return NULL;
	}
	if ((access == GNT_RAPI_ACCESS_WRITE && !(flags & GNT_RAPI_USER_WRITE)) ||
	    (access == GNT_RAPI_ACCESS_READ &&
	     !(flags & (GNT_RAPI_USER_READ | GNT_RAPI_USER_WRITE)))) {
		refuse(refusal, 403, NULL);
		return NULL;
	}
	return g_steal_pointer(&user);
}

/* Whether the Content-Type is @type (parameters allowed). */
static gboolean
is_content_type(SoupMessageHeaders *headers, const gchar *type)
{
	const gchar *value = soup_message_headers_get_one(headers, "Content-Type");
	const gchar *end;

	if (value == NULL)
		return FALSE;
	while (g_ascii_isspace(*value))
		value++;
	end = value;
	while (*end != '\0' && *end != ';')
		end++;
	while (end > value && g_ascii_isspace(end[-1]))
		end--;
	return (gsize)(end - value) == strlen(type) &&
	       g_ascii_strncasecmp(value, type, (gsize)(end - value)) == 0;
}

/* Finds the route of @path for @call->request->method; the path's variable parts
 * go to @args. */
static const CompiledRoute *
find_route(GntRapiServer *self, const gchar *method, const gchar *path, GPtrArray *args,
	   Refusal *refusal)
{
	g_auto(GStrv) segments = NULL;
	gboolean path_known = FALSE;
	guint n;

	if (path[0] != '/') {
		refuse(refusal, 400, g_strdup("Invalid path"));
		return NULL;
	}
	segments = g_strsplit(path + 1, "/", -1);
	n = g_strv_length(segments);
	if (n == 1 && segments[0][0] == '\0')
		n = 0; /* "/" */
	for (guint i = 0; i < n; i++) {
		if (g_str_equal(segments[i], ".") || g_str_equal(segments[i], "..")) {
			refuse(refusal, 400, g_strdup("Invalid path"));
			return NULL;
		}
	}
	for (guint i = 0; i < self->n_routes; i++) {
		const CompiledRoute *route = &self->routes[i];

		if (!route_matches(route, segments, n))
			continue;
		path_known = TRUE;
		if (!g_str_equal(route->route->method, method))
			continue;
		if (route->route->handler == NULL) {
			refuse(refusal, 501,
			       g_strdup_printf("Not implemented by Gantry: %s %s (Ganeti "
					       "resource %s)",
					       method, route->route->pattern,
					       route->route->resource));
			return NULL;
		}
		for (guint j = 0; j < n; j++) {
			if (route->kinds[j] != SEGMENT_LITERAL)
				g_ptr_array_add(args, g_strdup(segments[j]));
		}
		g_ptr_array_add(args, NULL);
		return route;
	}
	if (path_known)
		refuse(refusal, 501,
		       g_strdup_printf("Method %s is unsupported for path %s", method, path));
	else
		refuse(refusal, 404, NULL);
	return NULL;
}

/* Runs the handler of @route; GET requests are tried again once on a new
 * LUXI connection when the old one turned out to be broken. */
static JsonNode *
run_handler(Worker *worker, const CompiledRoute *route, GntRapiRequest *request, guint *status,
	    GError **error)
{
	gboolean is_get = g_str_equal(request->method, "GET");

	for (guint attempt = 0;; attempt++) {
		const gchar *exc_class = NULL;
		g_autoptr(GError) local = NULL;
		JsonNode *result;

		request->luxi = worker_get_luxi(worker, !is_get, &exc_class, &local);
		if (request->luxi == NULL) {
			*status = g_strcmp0(exc_class, GNT_LUXI_EXC_TIMEOUT) == 0 ? 504 : 502;
			g_propagate_error(error, g_steal_pointer(&local));
			return NULL;
		}
		request->data = route->route->data;
		result = route->route->handler(request, &local);
		if (result != NULL)
			return result;
		if (local == NULL)
			g_set_error(&local, GNT_ERROR, GNT_ERROR_FAULT,
				    "the handler of '%s' failed without saying why",
				    route->route->pattern);
		exc_class = gnt_luxi_client_get_error_class(request->luxi);
		*status = status_of_error(local, exc_class);
		if (is_transport_class(exc_class)) {
			g_clear_object(&worker->luxi);
			if (is_get && attempt == 0 &&
			    g_strcmp0(exc_class, GNT_LUXI_EXC_TIMEOUT) != 0)
				continue;
		}
		g_propagate_error(error, g_steal_pointer(&local));
		return NULL;
	}
}

/* The whole of a request in a worker: route, authenticate, decode the
 * body, run the handler, write the answer into @call->response. */
static void
handle_call(Worker *worker, RapiCall *call)
{
	GntRapiServer *self = worker->server;
	g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GHashTable) query = NULL;
	g_autoptr(JsonNode) body = NULL;
	g_autoptr(JsonNode) result = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *raw_path = NULL;
	g_autofree gchar *path = NULL;
	g_autofree gchar *user = NULL;
	const CompiledRoute *route = NULL;
	Refusal refusal = {0};
	GntRapiRequest request = {0};
	GntHttpRequest *http = call->request;
	const GntHttpReplyFlags *flags = &http->flags;
	gchar *question = strchr(http->target, '?');
	gsize body_len = http->body != NULL ? g_bytes_get_size(http->body) : 0;
	GntRapiAccess access;

	raw_path = question != NULL ? g_strndup(http->target, (gsize)(question - http->target))
				    : g_strdup(http->target);
	path = g_uri_unescape_string(raw_path, NULL);
	if (path == NULL || !g_utf8_validate(path, -1, NULL))
		refuse(&refusal, 400, g_strdup("Invalid path"));
	if (refusal.status == 0)
		route = find_route(self, http->method, path, args, &refusal);
	if (refusal.status == 0) {
		access = route->route->access;
		if (!g_str_equal(http->method, "GET"))
			access = GNT_RAPI_ACCESS_WRITE;
		user = authenticate(self, call, access, &refusal);
	}
	if (refusal.status == 0 && route->route->max_body > 0 && body_len > route->route->max_body)
		refuse(&refusal, 413, NULL);
	if (refusal.status == 0 && body_len > 0) {
		if (!is_content_type(http->headers, route->route->content_type != NULL
							    ? route->route->content_type
							    : "application/json")) {
			refuse(&refusal, 415, NULL);
		} else {
			body = gnt_json_parse(g_bytes_get_data(http->body, NULL), (gssize)body_len,
					      NULL);
			if (body == NULL)
				refuse(&refusal, 400, g_strdup("Unable to parse JSON data"));
		}
	}
	if (refusal.status == 0) {
		guint status = 500;

		request.method = http->method;
		request.path = path;
		request.args = (gchar **)args->pdata;
		request.user = user;

		if (question != NULL)
			query = gnt_http_parse_query(question + 1);
		else
			query = g_hash_table_new(g_str_hash, g_str_equal);
		request.query = query;
		request.body = body;
		result = run_handler(worker, route, &request, &status, &error);
		if (result == NULL)
			refuse(&refusal, request.status != 0 ? request.status : status,
			       g_strdup(error->message));
	}
	if (refusal.status != 0) {
		call->status = refusal.status;
		call->response = build_error_response(refusal.status, refusal.message, flags,
						      refusal.www_authenticate);
		g_free(refusal.message);
	} else {
		guint status = request.status != 0 ? request.status : 200;
		g_autoptr(GBytes) answer = status != 204 ? gnt_rapi_answer_to_bytes(result)
							 : g_bytes_new(NULL, 0);
		gsize len = g_bytes_get_size(answer);
		g_autofree gchar *location =
			request.location != NULL
				? g_strdup_printf("Location: %s\r\n", request.location)
				: NULL;
		GString *head = gnt_http_build_head(flags, status,
						    status != 204 ? "application/json" : NULL, len,
						    location, MIN(len, GNT_HTTP_MERGE_BODY_MAX));

		call->status = status;
		if (flags->head_only || len == 0)
			; /* the length only */
		else if (len <= GNT_HTTP_MERGE_BODY_MAX)
			g_string_append_len(head, g_bytes_get_data(answer, NULL), (gssize)len);
		else
			call->response_body = g_steal_pointer(&answer);
		call->response = g_string_free_to_bytes(head);
	}
	g_free(request.location);
	if (g_log_get_debug_enabled())
		g_debug("%s %s %u %s", http->method, path != NULL ? path : raw_path, call->status,
			user != NULL ? user : "-");
}

static gpointer
worker_main(gpointer data)
{
	Worker worker = {.server = data};
	GntRapiServer *self = data;

	for (;;) {
		RapiCall *call = g_async_queue_pop(self->jobs);

		if (call->request == NULL) { /* the stop sentinel */
			rapi_call_free(call);
			break;
		}
		handle_call(&worker, call);
		g_async_queue_push(self->done, call);
		g_source_set_ready_time(self->done_source, 0);
	}
	g_clear_object(&worker.luxi);
	return NULL;
}

/* A worker finished @call: write its answer. */
static void
call_done(GntRapiServer *self, RapiCall *call)
{
	self->n_running--;
	gnt_http_request_respond(g_steal_pointer(&call->request), g_steal_pointer(&call->response),
				 g_steal_pointer(&call->response_body));
	rapi_call_free(call);
}

static gboolean
done_dispatch(GSource *source, GSourceFunc callback, gpointer user_data)
{
	GntRapiServer *self = *(GntRapiServer **)(gpointer)(source + 1);
	RapiCall *call;

	g_source_set_ready_time(source, -1);
	while ((call = g_async_queue_try_pop(self->done)) != NULL)
		call_done(self, call);
	return G_SOURCE_CONTINUE;
}

static GSourceFuncs done_source_funcs = {
	.dispatch = done_dispatch,
};

/* A request read by the HTTP layer: to a worker. */
static void
request_cb(GntHttpRequest *request, gpointer user_data)
{
	GntRapiServer *self = user_data;
	RapiCall *call = g_new0(RapiCall, 1);

	call->request = request;
	self->n_running++;
	g_async_queue_push(self->jobs, call);
}

/* ---- the object ---- */

static void
gnt_rapi_server_dispose(GObject *object)
{
	gnt_rapi_server_stop(GNT_RAPI_SERVER(object));
	G_OBJECT_CLASS(gnt_rapi_server_parent_class)->dispose(object);
}

static void
gnt_rapi_server_finalize(GObject *object)
{
	GntRapiServer *self = GNT_RAPI_SERVER(object);

	for (guint i = 0; i < self->n_routes; i++)
		compiled_route_clear(&self->routes[i]);
	g_free(self->routes);
	g_free(self->luxi_socket);
	g_free(self->uri);
	g_clear_pointer(&self->users, gnt_rapi_users_file_free);
	g_clear_object(&self->certificate);
	g_clear_object(&self->http);
	g_async_queue_unref(self->jobs);
	g_async_queue_unref(self->done);
	g_main_context_unref(self->context);
	G_OBJECT_CLASS(gnt_rapi_server_parent_class)->finalize(object);
}

static void
gnt_rapi_server_class_init(GntRapiServerClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = gnt_rapi_server_dispose;
	object_class->finalize = gnt_rapi_server_finalize;
}

static void
gnt_rapi_server_init(GntRapiServer *self)
{
	self->context = g_main_context_ref_thread_default();
	self->jobs = g_async_queue_new();
	self->done = g_async_queue_new();
}

GntRapiServer *
gnt_rapi_server_new(const GntRapiRoute *routes, const gchar *luxi_socket, const gchar *users_file,
		    GTlsCertificate *certificate, const GntRapiServerOptions *options)
{
	GntRapiServer *self;
	guint n = 0;

	g_return_val_if_fail(routes != NULL && luxi_socket != NULL && users_file != NULL, NULL);
	self = g_object_new(GNT_TYPE_RAPI_SERVER, NULL);
	if (options != NULL)
		self->options = *options;
	if (self->options.max_clients == 0)
		self->options.max_clients = GNT_RAPI_DEFAULT_MAX_CLIENTS;
	if (self->options.n_workers == 0)
		self->options.n_workers = GNT_RAPI_DEFAULT_WORKERS;
	if (self->options.request_timeout_s == 0)
		self->options.request_timeout_s = GNT_RAPI_DEFAULT_REQUEST_TIMEOUT;
	if (self->options.keep_alive_s == 0)
		self->options.keep_alive_s = GNT_RAPI_DEFAULT_KEEP_ALIVE;
	if (self->options.max_body == 0)
		self->options.max_body = GNT_RAPI_MAX_BODY;
	self->luxi_socket = g_strdup(luxi_socket);
	self->users = gnt_rapi_users_file_new(users_file);
	self->certificate = certificate != NULL ? g_object_ref(certificate) : NULL;
	while (routes[n].pattern != NULL)
		n++;
	self->routes = g_new0(CompiledRoute, n);
	for (guint i = 0; i < n; i++) {
		g_return_val_if_fail(routes[i].pattern[0] == '/' && (routes[i].handler != NULL ||
								     routes[i].resource != NULL),
				     NULL);
		compile_route(&routes[i], &self->routes[i]);
	}
	self->n_routes = n;

	self->done_source = g_source_new(&done_source_funcs, sizeof(GSource) + sizeof(gpointer));
	*(GntRapiServer **)(gpointer)(self->done_source + 1) = self;
	g_source_set_name(self->done_source, "gnt-rapi-server answers");
	g_source_attach(self->done_source, self->context);
	self->http = gnt_http_server_new(
		&(const GntHttpServerOptions){
			.max_clients = self->options.max_clients,
			.request_timeout_s = self->options.request_timeout_s,
			.keep_alive_s = self->options.keep_alive_s,
			.max_body = self->options.max_body,
			.server_header = SERVER_HEADER,
			.error_body = error_body,
			.certificate = self->certificate,
		},
		request_cb, self);

	self->workers = g_new0(GThread *, self->options.n_workers);
	for (guint i = 0; i < self->options.n_workers; i++)
		self->workers[i] = g_thread_new("rapi-worker", worker_main, self);
	return self;
}

gboolean
gnt_rapi_server_listen(GntRapiServer *self, const gchar *address, guint port, GError **error)
{
	g_autoptr(GSocket) socket = NULL;

	g_return_val_if_fail(GNT_IS_RAPI_SERVER(self) && self->listener == 0, FALSE);
	socket = gnt_net_listen(address, port, self->certificate != NULL ? "https" : "http",
				&self->port, &self->uri, error);
	if (socket == NULL)
		return FALSE;
	self->listener = gnt_http_server_add_listener(self->http, socket, 0, NULL);
	return TRUE;
}

guint
gnt_rapi_server_get_port(GntRapiServer *self)
{
	g_return_val_if_fail(GNT_IS_RAPI_SERVER(self), 0);
	return self->port;
}

gchar *
gnt_rapi_server_dup_uri(GntRapiServer *self)
{
	g_return_val_if_fail(GNT_IS_RAPI_SERVER(self), NULL);
	return g_strdup(self->uri);
}

gboolean
gnt_rapi_server_reload_users(GntRapiServer *self, GError **error)
{
	g_return_val_if_fail(GNT_IS_RAPI_SERVER(self), FALSE);
	return gnt_rapi_users_file_reload(self->users, error);
}

guint
gnt_rapi_server_get_n_connections(GntRapiServer *self)
{
	g_return_val_if_fail(GNT_IS_RAPI_SERVER(self), 0);
	return gnt_http_server_get_n_connections(self->http);
}

guint
gnt_rapi_server_get_n_running(GntRapiServer *self)
{
	g_return_val_if_fail(GNT_IS_RAPI_SERVER(self), 0);
	return self->n_running;
}

void
gnt_rapi_server_stop(GntRapiServer *self)
{
	RapiCall *call;

	g_return_if_fail(GNT_IS_RAPI_SERVER(self));
	if (self->stopped)
		return;
	self->stopped = TRUE;
	gnt_http_server_stop(self->http);
	/* one sentinel per worker, after the requests already queued */
	for (guint i = 0; i < self->options.n_workers; i++)
		g_async_queue_push(self->jobs, g_new0(RapiCall, 1));
	for (guint i = 0; i < self->options.n_workers; i++)
		g_thread_join(self->workers[i]);
	g_clear_pointer(&self->workers, g_free);
	while ((call = g_async_queue_try_pop(self->done)) != NULL) {
		self->n_running--;
		rapi_call_free(call);
	}
	g_source_destroy(self->done_source);
	g_clear_pointer(&self->done_source, g_source_unref);
}
