#include "gnt-rapi-server.h"

#include <errno.h>
#include <libsoup/soup.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gnt-build-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-luxi-client.h"
#include "gnt-net.h"
#include "gnt-rapi-resources.h"
#include "gnt-rapi-users.h"
#include "gnt-secret.h"

#define READ_CHUNK	   (16 * 1024)
#define MAX_HEAD	   (64 * 1024) /* request line and headers */
#define MAX_CHUNK_LINE	   1024
#define MAX_TRAILERS	   (8 * 1024)
#define ACCEPT_BATCH	   64
#define SWEEP_INTERVAL_MS  250
#define ACCEPT_RETRY_MS	   1000 /* after accept() failed, say EMFILE */
#define DRAIN_TIMEOUT_S	   2	/* reading what a client still sends before closing */
#define DRAIN_MAX	   (64 * 1024 * 1024)
#define LUXI_PROBE_IDLE_US (1 * G_USEC_PER_SEC)
#define SERVER_HEADER	   "gantry-rapi/" GNT_VERSION

/* ---- statuses and error bodies ---- */

typedef struct {
	guint code;
	const gchar *reason;
	const gchar *explain; /* Python's http.server responses */
} StatusInfo;

static const StatusInfo statuses[] = {
	{100, "Continue", "Request received, please continue"},
	{200, "OK", "Request fulfilled, document follows"},
	{400, "Bad Request", "Bad request syntax or unsupported method"},
	{401, "Unauthorized", "No permission -- see authorization schemes"},
	{403, "Forbidden", "Request forbidden -- authorization will not help"},
	{404, "Not Found", "Nothing matches the given URI"},
	{408, "Request Timeout", "Request timed out; try again later"},
	{411, "Length Required", "Client must specify Content-Length"},
	{413, "Request Entity Too Large", "Entity is too large"},
	{414, "Request-URI Too Long", "URI is too long"},
	{415, "Unsupported Media Type", "Entity body in unsupported format"},
	{417, "Expectation Failed", "Expect condition could not be satisfied"},
	{431, "Request Header Fields Too Large",
	 "The server is unwilling to process the request because its header fields are too "
	 "large"},
	{500, "Internal Server Error", "Server got itself in trouble"},
	{501, "Not Implemented", "Server does not support this operation"},
	{502, "Bad Gateway", "Invalid responses from another server/proxy"},
	{503, "Service Unavailable", "The server cannot process the request due to a high load"},
	{504, "Gateway Timeout", "The gateway server did not receive a timely response"},
	{505, "HTTP Version Not Supported", "Cannot fulfill request"},
};

static const StatusInfo *
status_info(guint code)
{
	for (guint i = 0; i < G_N_ELEMENTS(statuses); i++) {
		if (statuses[i].code == code)
			return &statuses[i];
	}
	return status_info(500);
}

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
	const StatusInfo *info = status_info(status);
	g_autofree gchar *escaped = html_escape(message != NULL ? message : info->reason);
	GString *out = g_string_new(NULL);

	g_string_append_printf(out, "{\"code\": %u, \"message\": ", status);
	append_json_string(out, escaped);
	g_string_append(out, ", \"explain\": ");
	append_json_string(out, info->explain);
	g_string_append(out, "}");
	return g_string_free(out, FALSE);
}

/* ---- responses ---- */

/* "Date: ..." for now, formatted once a second per thread. */
static const gchar *
date_header(void)
{
	static __thread time_t cached_at;
	static __thread gchar cached[64];
	time_t now = time(NULL);

	if (now != cached_at) {
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(cached, sizeof(cached), "%a, %d %b %Y %H:%M:%S GMT", &tm);
		cached_at = now;
	}
	return cached;
}

typedef struct {
	gboolean keep_alive;
	gboolean http10;
	gboolean www_authenticate;
	gboolean head_only; /* a HEAD request: the headers, no body */
} ResponseFlags;

/* Bodies up to this size are copied behind the head: one write, one TLS
 * record. Larger ones are written after it as they are (a cached answer's
 * bytes are shared). */
#define MERGE_BODY_MAX (16 * 1024)

/* The status line and headers of a response with a body of @len bytes. */
static GString *
build_head(guint status, gsize len, const ResponseFlags *flags)
{
	GString *out = g_string_sized_new(MIN(len, MERGE_BODY_MAX) + 256);

	g_string_append_printf(out,
			       "HTTP/1.%c %u %s\r\nDate: %s\r\nServer: " SERVER_HEADER
			       "\r\nContent-Type: application/json\r\nContent-Length: "
			       "%" G_GSIZE_FORMAT "\r\n",
			       flags->http10 ? '0' : '1', status, status_info(status)->reason,
			       date_header(), len);
	if (!flags->keep_alive)
		g_string_append(out, "Connection: close\r\n");
	else if (flags->http10)
		g_string_append(out, "Connection: keep-alive\r\n");
	if (flags->www_authenticate)
		g_string_append(out, "WWW-Authenticate: Basic realm=\"" GNT_RAPI_REALM "\"\r\n");
	g_string_append(out, "\r\n");
	return out;
}

/* A whole response: status line, headers, @body (@len bytes). */
static GBytes *
build_response(guint status, const gchar *body, gsize len, const ResponseFlags *flags)
{
	GString *out = build_head(status, len, flags);

	if (!flags->head_only)
		g_string_append_len(out, body, (gssize)len);
	return g_string_free_to_bytes(out);
}

static GBytes *
build_error_response(guint status, const gchar *message, const ResponseFlags *flags)
{
	g_autofree gchar *body = gnt_rapi_dup_error_body(status, message);

	return build_response(status, body, strlen(body), flags);
}

/* ---- routes ---- */

typedef enum {
	SEGMENT_LITERAL,
	SEGMENT_NAME,	/* [A-Za-z0-9_.-]+ */
	SEGMENT_NUMBER, /* [0-9]+: {id}, {index} */
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
			out->kinds[out->n_segments] = g_str_equal(out->segments[out->n_segments], "id") ||
							      g_str_equal(out->segments[out->n_segments],
									  "index")
							      ? SEGMENT_NUMBER
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
		for (const gchar *p = segment; *p != '\0'; p++) {
			if (!g_ascii_isalnum(*p) && *p != '_' && *p != '.' && *p != '-')
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

typedef struct _RapiConn RapiConn;

struct _GntRapiServer {
	GObject parent_instance;
	GntRapiServerOptions options;
	gchar *luxi_socket;
	GntRapiUsersFile *users;
	GTlsCertificate *certificate;
	CompiledRoute *routes;
	guint n_routes;
	GMainContext *context;

	GSocket *listener;
	GSource *accept_source;
	GSource *accept_retry;
	gboolean accept_paused; /* at max_clients */
	guint port;
	gchar *uri;

	GQueue conns; /* RapiConn, oldest first */
	GSource *sweep;
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
	RapiConn *conn; /* main context only */
	/* the request, read by the worker */
	gchar *method;
	gchar *target;
	SoupMessageHeaders *headers;
	GBytes *body;
	ResponseFlags flags;
	/* the answer, written by the worker: its head (with the body when
	 * small), then the body (NULL: none or in the head) */
	GBytes *response;
	GBytes *response_body;
	guint status;
} RapiCall;

static void conn_unref(RapiConn *conn);

static void
rapi_call_free(RapiCall *call)
{
	if (call->conn != NULL)
		conn_unref(call->conn);
	g_free(call->method);
	g_free(call->target);
	if (call->headers != NULL)
		soup_message_headers_unref(call->headers);
	g_clear_pointer(&call->body, g_bytes_unref);
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
		g_autoptr(JsonNode) result =
			gnt_luxi_client_call(self->luxi, "QueryConfigValues", args, NULL);

		if (result == NULL &&
		    is_transport_class(gnt_luxi_client_get_error_class(self->luxi)))
			g_clear_object(&self->luxi);
	}
	if (self->luxi == NULL)
		self->luxi =
			gnt_luxi_client_new_full(self->server->luxi_socket, exc_class, error);
	self->luxi_used = now;
	return self->luxi;
}

/* Splits a query string into name -> GPtrArray of decoded values. */
static GHashTable *
parse_query(const gchar *query)
{
	GHashTable *table =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
	g_auto(GStrv) pairs = g_strsplit(query, "&", -1);

	for (guint i = 0; pairs[i] != NULL; i++) {
		gchar *eq = strchr(pairs[i], '=');
		g_autofree gchar *name = NULL;
		gchar *value;
		GPtrArray *values;

		if (pairs[i][0] == '\0')
			continue;
		if (eq != NULL)
			*eq = '\0';
		g_strdelimit(pairs[i], "+", ' ');
		name = g_uri_unescape_string(pairs[i], NULL);
		if (eq != NULL)
			g_strdelimit(eq + 1, "+", ' ');
		value = eq != NULL ? g_uri_unescape_string(eq + 1, NULL) : g_strdup("");
		if (name == NULL || value == NULL) {
			g_free(value);
			continue; /* undecodable (%00, bad escapes): dropped */
		}
		values = g_hash_table_lookup(table, name);
		if (values == NULL) {
			values = g_ptr_array_new_with_free_func(g_free);
			g_hash_table_insert(table, g_steal_pointer(&name), values);
		}
		g_ptr_array_add(values, value);
	}
	return table;
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
	const gchar *header = soup_message_headers_get_one(call->headers, "Authorization");
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
				  decoded_len - (gsize)(colon + 1 - (const gchar *)decoded), &flags);
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

/* Whether the Content-Type is application/json (parameters allowed). */
static gboolean
is_json_content_type(SoupMessageHeaders *headers)
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
	return (gsize)(end - value) == strlen("application/json") &&
	       g_ascii_strncasecmp(value, "application/json", (gsize)(end - value)) == 0;
}

/* Finds the route of @path for @call->method; the path's variable parts
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
run_handler(Worker *worker, const CompiledRoute *route, GntRapiRequest *request,
	    guint *status, GError **error)
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
	gchar *question = strchr(call->target, '?');
	gsize body_len = call->body != NULL ? g_bytes_get_size(call->body) : 0;
	GntRapiAccess access;

	raw_path = question != NULL ? g_strndup(call->target, (gsize)(question - call->target))
				    : g_strdup(call->target);
	path = g_uri_unescape_string(raw_path, NULL);
	if (path == NULL || !g_utf8_validate(path, -1, NULL))
		refuse(&refusal, 400, g_strdup("Invalid path"));
	if (refusal.status == 0)
		route = find_route(self, call->method, path, args, &refusal);
	if (refusal.status == 0) {
		access = route->route->access;
		if (!g_str_equal(call->method, "GET"))
			access = GNT_RAPI_ACCESS_WRITE;
		user = authenticate(self, call, access, &refusal);
	}
	if (refusal.status == 0 && body_len > 0) {
		if (!is_json_content_type(call->headers)) {
			refuse(&refusal, 415, NULL);
		} else {
			body = gnt_json_parse(g_bytes_get_data(call->body, NULL), (gssize)body_len,
					      NULL);
			if (body == NULL)
				refuse(&refusal, 400, g_strdup("Unable to parse JSON data"));
		}
	}
	if (refusal.status == 0) {
		GntRapiRequest request = {
			.method = call->method,
			.path = path,
			.args = (gchar **)args->pdata,
			.user = user,
		};
		guint status = 500;

		if (question != NULL)
			query = parse_query(question + 1);
		else
			query = g_hash_table_new(g_str_hash, g_str_equal);
		request.query = query;
		request.body = body;
		result = run_handler(worker, route, &request, &status, &error);
		if (result == NULL)
			refuse(&refusal, status, g_strdup(error->message));
	}
	if (refusal.status != 0) {
		call->flags.www_authenticate = refusal.www_authenticate;
		call->status = refusal.status;
		call->response = build_error_response(refusal.status, refusal.message, &call->flags);
		g_free(refusal.message);
	} else {
		g_autoptr(GBytes) answer = gnt_rapi_answer_to_bytes(result);
		gsize len = g_bytes_get_size(answer);
		GString *head = build_head(200, len, &call->flags);

		call->status = 200;
		if (call->flags.head_only)
			; /* the length only */
		else if (len <= MERGE_BODY_MAX)
			g_string_append_len(head, g_bytes_get_data(answer, NULL), (gssize)len);
		else
			call->response_body = g_steal_pointer(&answer);
		call->response = g_string_free_to_bytes(head);
	}
	if (g_log_get_debug_enabled())
		g_debug("%s %s %u %s", call->method, path != NULL ? path : raw_path, call->status,
			user != NULL ? user : "-");
}

static gpointer
worker_main(gpointer data)
{
	Worker worker = {.server = data};
	GntRapiServer *self = data;

	for (;;) {
		RapiCall *call = g_async_queue_pop(self->jobs);

		if (call->conn == NULL) { /* the stop sentinel */
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

/* ---- connections ---- */

typedef enum {
	CONN_READING,  /* waiting for a request, or reading one */
	CONN_HANDLING, /* a worker has the request */
	CONN_WRITING,  /* writing an answer */
	CONN_DRAINING, /* answered, shut down for writing: reading the rest until EOF */
	CONN_CLOSED,
} ConnState;

typedef enum {
	CHUNK_SIZE,
	CHUNK_DATA,
	CHUNK_DATA_END,
	CHUNK_TRAILERS,
	CHUNK_DONE,
} ChunkState;

struct _RapiConn {
	GntRapiServer *server; /* not referenced: the server outlives its connections */
	guint ref_count;
	GList link; /* in server->conns */
	GSocket *socket;
	GIOStream *stream;
	GPollableInputStream *in;
	GPollableOutputStream *out;
	GSource *source; /* waiting to read or to write */
	ConnState state;
	gint64 deadline;   /* monotonic µs; 0: none */
	gint64 idle_since; /* waiting between requests; 0 otherwise */

	guint8 *buf; /* what was read and not yet used */
	gsize len;
	gsize cap;
	gsize scan; /* where to go on looking for the end of the head */

	/* the request being read */
	gsize head_len; /* 0 until its head is parsed */
	SoupMessageHeaders *headers;
	gchar *method;
	gchar *target;
	SoupHTTPVersion version;
	SoupEncoding encoding;
	gsize content_length;
	gboolean keep_alive;
	gboolean sent_continue;    /* "100 Continue" was (or is being) sent */
	gboolean writing_continue; /* it is being written */
	ChunkState chunk_state;
	gsize chunk_left;
	gsize chunk_pos; /* in buf: where chunked decoding goes on */
	gsize trailers_len;
	GByteArray *chunked_body;

	/* writing: out_bytes, then out_body */
	GBytes *out_bytes;
	GBytes *out_body;
	gsize out_off;
	gboolean close_after;
	gsize drained;
};

static void conn_read(RapiConn *conn);
static void conn_resume(RapiConn *conn);
static void conn_write(RapiConn *conn);
static void server_resume_accept(GntRapiServer *self);

static void
conn_reset_request(RapiConn *conn)
{
	conn->head_len = 0;
	conn->scan = 0;
	g_clear_pointer(&conn->headers, soup_message_headers_unref);
	g_clear_pointer(&conn->method, g_free);
	g_clear_pointer(&conn->target, g_free);
	conn->encoding = SOUP_ENCODING_NONE;
	conn->content_length = 0;
	conn->version = SOUP_HTTP_1_1;
	conn->keep_alive = FALSE;
	conn->sent_continue = FALSE;
	conn->writing_continue = FALSE;
	conn->chunk_state = CHUNK_SIZE;
	conn->chunk_left = 0;
	conn->chunk_pos = 0;
	conn->trailers_len = 0;
	g_clear_pointer(&conn->chunked_body, g_byte_array_unref);
}

static void
conn_clear_source(RapiConn *conn)
{
	if (conn->source != NULL) {
		g_source_destroy(conn->source);
		g_source_unref(conn->source);
		conn->source = NULL;
	}
}

static void
conn_unref(RapiConn *conn)
{
	if (--conn->ref_count > 0)
		return;
	conn_reset_request(conn);
	g_clear_pointer(&conn->out_bytes, g_bytes_unref);
	g_clear_pointer(&conn->out_body, g_bytes_unref);
	g_free(conn->buf);
	g_clear_object(&conn->stream);
	g_clear_object(&conn->socket);
	g_free(conn);
}

/* Closes at once: no more reading or writing. */
static void
conn_close(RapiConn *conn)
{
	GntRapiServer *self = conn->server;

	if (conn->state == CONN_CLOSED)
		return;
	conn->state = CONN_CLOSED;
	conn_clear_source(conn);
	/* not g_io_stream_close(): a TLS close_notify could block; shut down
	 * first: it wakes a handshake blocked on the socket in another
	 * thread, which closing alone would not (and the client would not
	 * see the end) */
	g_socket_shutdown(conn->socket, TRUE, TRUE, NULL);
	g_socket_close(conn->socket, NULL);
	g_queue_unlink(&self->conns, &conn->link);
	conn_unref(conn);
	if (self->accept_paused)
		server_resume_accept(self);
}

static gboolean
conn_ready_cb(GObject *stream, gpointer user_data)
{
	RapiConn *conn = user_data;

	g_clear_pointer(&conn->source, g_source_unref);
	if (conn->state == CONN_WRITING)
		conn_write(conn);
	else
		conn_read(conn);
	return G_SOURCE_REMOVE;
}

static void
conn_wait(RapiConn *conn, gboolean for_writing)
{
	conn_clear_source(conn);
	conn->source = for_writing ? g_pollable_output_stream_create_source(conn->out, NULL)
				   : g_pollable_input_stream_create_source(conn->in, NULL);
	g_source_set_callback(conn->source, G_SOURCE_FUNC(conn_ready_cb), conn, NULL);
	g_source_attach(conn->source, conn->server->context);
}

/* Sends @response, then @body (may be NULL); the connection closes after
 * them when @close_after. */
static void
conn_send(RapiConn *conn, GBytes *response /* taken */, GBytes *body /* taken */,
	  gboolean close_after)
{
	g_clear_pointer(&conn->out_bytes, g_bytes_unref);
	g_clear_pointer(&conn->out_body, g_bytes_unref);
	conn->out_bytes = response;
	conn->out_body = body;
	conn->out_off = 0;
	conn->close_after = close_after;
	conn->state = CONN_WRITING;
	conn->idle_since = 0;
	conn->deadline = g_get_monotonic_time() +
			 (gint64)conn->server->options.request_timeout_s * G_USEC_PER_SEC;
	conn_write(conn);
}

/* An error found while reading the request: answered, then closed (the
 * rest of the request is read and dropped meanwhile). */
static void
conn_fail(RapiConn *conn, guint status, const gchar *message)
{
	ResponseFlags flags = {.keep_alive = FALSE, .http10 = conn->version == SOUP_HTTP_1_0};

	g_debug("refusing a request from a client: %u %s", status, message != NULL ? message : "");
	conn_send(conn, build_error_response(status, message, &flags), NULL, TRUE);
}

/* The answer is out and the connection is done: shut down writing (the
 * client sees the end) and read what it still sends, briefly, so that
 * closing does not reset the connection under an answer not yet read. */
static void
conn_start_drain(RapiConn *conn)
{
	conn->state = CONN_DRAINING;
	conn->drained = 0;
	conn->deadline = g_get_monotonic_time() + DRAIN_TIMEOUT_S * G_USEC_PER_SEC;
	g_socket_shutdown(conn->socket, FALSE, TRUE, NULL);
	conn_read(conn);
}

/* The connection waits for its next request. */
static void
conn_next_request(RapiConn *conn)
{
	gint64 now = g_get_monotonic_time();

	conn_reset_request(conn);
	conn->state = CONN_READING;
	if (conn->len > 0) {
		/* pipelined: the next request has begun */
		conn->idle_since = 0;
		conn->deadline = now + (gint64)conn->server->options.request_timeout_s * G_USEC_PER_SEC;
		conn_resume(conn);
	} else {
		conn->idle_since = now;
		conn->deadline = now + (gint64)conn->server->options.keep_alive_s * G_USEC_PER_SEC;
		conn_read(conn);
	}
}

static void
conn_write(RapiConn *conn)
{
	while (conn->out_bytes != NULL) {
		gsize size = g_bytes_get_size(conn->out_bytes);
		const guint8 *data = g_bytes_get_data(conn->out_bytes, NULL);
		g_autoptr(GError) error = NULL;
		gssize n;

		if (conn->out_off == size) {
			g_bytes_unref(conn->out_bytes);
			conn->out_bytes = g_steal_pointer(&conn->out_body);
			conn->out_off = 0;
			continue;
		}
		n = g_pollable_output_stream_write_nonblocking(
			conn->out, data + conn->out_off, size - conn->out_off, NULL, &error);
		if (n < 0 && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
			conn_wait(conn, TRUE);
			return;
		}
		if (n <= 0) {
			g_debug("writing an answer: %s", error != NULL ? error->message : "nothing written");
			conn_close(conn);
			return;
		}
		conn->out_off += (gsize)n;
	}
	if (conn->close_after)
		conn_start_drain(conn);
	else if (conn->writing_continue) {
		/* "100 Continue" is out: now the body */
		conn->writing_continue = FALSE;
		conn->state = CONN_READING;
		conn_resume(conn);
	} else
		conn_next_request(conn);
}

/* Drops the first @n bytes of the buffer. */
static void
conn_consume(RapiConn *conn, gsize n)
{
	memmove(conn->buf, conn->buf + n, conn->len - n);
	conn->len -= n;
}

/* Hands the complete request (head and @body) to a worker. */
static void
conn_dispatch(RapiConn *conn, GBytes *body /* taken */, gsize wire_len)
{
	GntRapiServer *self = conn->server;
	RapiCall *call = g_new0(RapiCall, 1);

	call->conn = conn;
	conn->ref_count++;
	call->method = g_steal_pointer(&conn->method);
	call->target = g_steal_pointer(&conn->target);
	call->headers = g_steal_pointer(&conn->headers);
	call->body = body;
	call->flags.keep_alive = conn->keep_alive;
	call->flags.http10 = conn->version == SOUP_HTTP_1_0;
	call->flags.head_only = g_str_equal(call->method, "HEAD");
	conn_consume(conn, wire_len);
	conn->state = CONN_HANDLING;
	conn->deadline = 0;
	conn->idle_since = 0;
	self->n_running++;
	g_async_queue_push(self->jobs, call);
}

/* Looks for the end of the head ("\r\n\r\n", or bare "\n\n"). */
static gsize
find_head_end(RapiConn *conn)
{
	for (gsize i = conn->scan; i < conn->len; i++) {
		if (conn->buf[i] != '\n')
			continue;
		if (i >= 1 && conn->buf[i - 1] == '\n')
			return i + 1;
		if (i >= 2 && conn->buf[i - 1] == '\r' && conn->buf[i - 2] == '\n')
			return i + 1;
	}
	conn->scan = conn->len;
	return 0;
}

static gboolean
parse_content_length(const gchar *text, goffset *length)
{
	guint64 value = 0;

	if (text == NULL || text[0] == '\0')
		return FALSE;
	for (const gchar *p = text; *p != '\0'; p++) {
		if (!g_ascii_isdigit(*p))
			return FALSE;
	}
	if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXINT64, &value, NULL))
		return FALSE;
	*length = (goffset)value;
	return TRUE;
}

/* Parses the head of @head_len bytes; FALSE when the request was refused. */
static gboolean
conn_parse_head(RapiConn *conn, gsize head_len)
{
	GntRapiServer *self = conn->server;
	guint status;
	const gchar *te;
	goffset length;

	conn->headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_REQUEST);
	status = soup_headers_parse_request((const gchar *)conn->buf, (int)head_len, conn->headers,
					    &conn->method, &conn->target, &conn->version);
	if (status != SOUP_STATUS_OK) {
		if (status == SOUP_STATUS_HTTP_VERSION_NOT_SUPPORTED || status == SOUP_STATUS_NOT_IMPLEMENTED)
			conn_fail(conn, 505, NULL);
		else
			conn_fail(conn, 400, "Malformed request");
		return FALSE;
	}
	conn->head_len = head_len;
	if (conn->version == SOUP_HTTP_1_1 &&
	    soup_message_headers_get_one(conn->headers, "Host") == NULL) {
		conn_fail(conn, 400, "Missing Host header");
		return FALSE;
	}
	if (conn->target[0] != '/') {
		/* absolute form: keep only the path and the query */
		g_autoptr(GUri) uri = g_uri_parse(conn->target, G_URI_FLAGS_ENCODED, NULL);

		if (uri == NULL || g_uri_get_path(uri)[0] != '/') {
			conn_fail(conn, 400, "Invalid request target");
			return FALSE;
		}
		g_free(conn->target);
		conn->target = g_uri_get_query(uri) != NULL
				       ? g_strconcat(g_uri_get_path(uri), "?", g_uri_get_query(uri), NULL)
				       : g_strdup(g_uri_get_path(uri));
	}
	conn->keep_alive =
		conn->version == SOUP_HTTP_1_1
			? !soup_message_headers_header_contains(conn->headers, "Connection", "close")
			: soup_message_headers_header_contains(conn->headers, "Connection",
							       "keep-alive");
	conn->encoding = soup_message_headers_get_encoding(conn->headers);
	te = soup_message_headers_get_list(conn->headers, "Transfer-Encoding");
	switch (conn->encoding) {
	case SOUP_ENCODING_NONE:
	case SOUP_ENCODING_EOF: /* a request has no body without a length */
		conn->encoding = SOUP_ENCODING_NONE;
		break;
	case SOUP_ENCODING_CONTENT_LENGTH:
		/* digits only, once (libsoup would take "-5" or "1, 2") */
		if (!parse_content_length(soup_message_headers_get_list(conn->headers,
									 "Content-Length"),
					  &length)) {
			conn_fail(conn, 400, "Invalid Content-Length");
			return FALSE;
		}
		if ((guint64)length > self->options.max_body) {
			g_autofree gchar *message = g_strdup_printf(
				"Request body larger than %" G_GSIZE_FORMAT " bytes",
				self->options.max_body);
			conn_fail(conn, 413, message);
			return FALSE;
		}
		conn->content_length = (gsize)length;
		break;
	case SOUP_ENCODING_CHUNKED:
		conn->chunked_body = g_byte_array_new();
		conn->chunk_pos = head_len;
		break;
	case SOUP_ENCODING_UNRECOGNIZED:
	case SOUP_ENCODING_BYTERANGES:
	default:
		if (te != NULL) {
			g_autofree gchar *message =
				g_strdup_printf("Transfer-Encoding '%s' is not supported", te);
			conn_fail(conn, 501, message);
		} else {
			conn_fail(conn, 400, "Invalid Content-Length");
		}
		return FALSE;
	}
	if (conn->encoding != SOUP_ENCODING_NONE &&
	    (soup_message_headers_get_expectations(conn->headers) & SOUP_EXPECTATION_CONTINUE) &&
	    conn->len == head_len) {
		static const gchar continue_line[] = "HTTP/1.1 100 Continue\r\n\r\n";

		conn->sent_continue = TRUE;
		conn->writing_continue = TRUE;
		conn_send(conn, g_bytes_new_static(continue_line, strlen(continue_line)), NULL,
			  FALSE);
		return FALSE; /* reading goes on once it is written */
	}
	return TRUE;
}

/* Decodes as much of a chunked body as the buffer holds. */
static gboolean
conn_decode_chunked(RapiConn *conn, gboolean *done)
{
	gsize max_body = conn->server->options.max_body;

	*done = FALSE;
	for (;;) {
		gsize avail = conn->len - conn->chunk_pos;
		const guint8 *p = conn->buf + conn->chunk_pos;
		const guint8 *nl;

		switch (conn->chunk_state) {
		case CHUNK_SIZE: {
			guint64 size = 0;
			gsize i = 0;

			nl = memchr(p, '\n', avail);
			if (nl == NULL) {
				if (avail > MAX_CHUNK_LINE) {
					conn_fail(conn, 400, "Malformed chunked body");
					return FALSE;
				}
				return TRUE;
			}
			while (i < (gsize)(nl - p) && g_ascii_isxdigit(p[i]) && size <= max_body)
				size = size * 16 + (guint64)g_ascii_xdigit_value(p[i++]);
			if (i == 0 || (p[i] != ';' && p[i] != '\r' && p[i] != '\n')) {
				conn_fail(conn, 400, "Malformed chunked body");
				return FALSE;
			}
			if (size > max_body - conn->chunked_body->len) {
				g_autofree gchar *message = g_strdup_printf(
					"Request body larger than %" G_GSIZE_FORMAT " bytes", max_body);
				conn_fail(conn, 413, message);
				return FALSE;
			}
			conn->chunk_pos += (gsize)(nl - p) + 1;
			conn->chunk_left = (gsize)size;
			conn->chunk_state = size == 0 ? CHUNK_TRAILERS : CHUNK_DATA;
			break;
		}
		case CHUNK_DATA: {
			gsize take = MIN(avail, conn->chunk_left);

			if (take == 0)
				return TRUE;
			g_byte_array_append(conn->chunked_body, p, (guint)take);
			conn->chunk_pos += take;
			conn->chunk_left -= take;
			if (conn->chunk_left == 0)
				conn->chunk_state = CHUNK_DATA_END;
			break;
		}
		case CHUNK_DATA_END:
			if (avail < 1 || (p[0] == '\r' && avail < 2))
				return TRUE;
			if (p[0] == '\n') {
				conn->chunk_pos += 1;
			} else if (p[0] == '\r' && p[1] == '\n') {
				conn->chunk_pos += 2;
			} else {
				conn_fail(conn, 400, "Malformed chunked body");
				return FALSE;
			}
			conn->chunk_state = CHUNK_SIZE;
			break;
		case CHUNK_TRAILERS:
			nl = memchr(p, '\n', avail);
			if (nl == NULL) {
				if (avail > MAX_TRAILERS) {
					conn_fail(conn, 400, "Malformed chunked body");
					return FALSE;
				}
				return TRUE;
			}
			conn->chunk_pos += (gsize)(nl - p) + 1;
			conn->trailers_len += (gsize)(nl - p) + 1;
			if (nl == p || (nl == p + 1 && p[0] == '\r')) {
				conn->chunk_state = CHUNK_DONE;
				*done = TRUE;
				return TRUE;
			}
			if (conn->trailers_len > MAX_TRAILERS) {
				conn_fail(conn, 400, "Malformed chunked body");
				return FALSE;
			}
			break;
		case CHUNK_DONE:
		default:
			*done = TRUE;
			return TRUE;
		}
	}
}

/* Makes what progress the buffer allows on the request being read; TRUE
 * when more input is needed (the caller reads), FALSE when the request
 * went to a worker, was refused, or the connection waits for something
 * else. Never reads itself: reading loops, it does not recurse. */
static gboolean
conn_process(RapiConn *conn)
{
	if (conn->state != CONN_READING)
		return FALSE;
	if (conn->head_len == 0) {
		gsize head_end;
		gsize skip = 0;

		/* empty lines before a request are allowed (RFC 9112, 2.2) */
		while (skip < conn->len && (conn->buf[skip] == '\r' || conn->buf[skip] == '\n'))
			skip++;
		if (skip > 0) {
			conn_consume(conn, skip);
			conn->scan = 0;
		}
		if (conn->len == 0)
			return TRUE;
		if (conn->idle_since != 0) {
			/* the first byte of a request: its clock starts */
			conn->idle_since = 0;
			conn->deadline = g_get_monotonic_time() +
					 (gint64)conn->server->options.request_timeout_s *
						 G_USEC_PER_SEC;
		}
		head_end = find_head_end(conn);
		if (head_end > MAX_HEAD || (head_end == 0 && conn->len > MAX_HEAD)) {
			conn_fail(conn, 431, NULL);
			return FALSE;
		}
		if (head_end == 0)
			return TRUE;
		if (!conn_parse_head(conn, head_end))
			return FALSE;
	}
	if (conn->encoding == SOUP_ENCODING_CHUNKED) {
		gboolean done = FALSE;

		if (!conn_decode_chunked(conn, &done))
			return FALSE;
		if (!done)
			return TRUE;
		conn_dispatch(conn, g_byte_array_free_to_bytes(g_steal_pointer(&conn->chunked_body)),
			      conn->chunk_pos);
		return FALSE;
	}
	if (conn->len < conn->head_len + conn->content_length)
		return TRUE;
	conn_dispatch(conn,
		      conn->content_length > 0
			      ? g_bytes_new(conn->buf + conn->head_len, conn->content_length)
			      : NULL,
		      conn->head_len + conn->content_length);
	return FALSE;
}

/* Reads what there is, going on with the request as it comes, until the
 * request is complete or reading would block (then it waits). */
static void
conn_read(RapiConn *conn)
{
	/* what a closing connection still sends is dropped here (main context only) */
	static guint8 scratch[READ_CHUNK];

	for (;;) {
		g_autoptr(GError) error = NULL;
		gboolean draining = conn->state == CONN_DRAINING;
		gssize n;

		if (!draining && conn->cap - conn->len < READ_CHUNK) {
			conn->cap = MAX(conn->cap * 2, conn->len + READ_CHUNK);
			conn->buf = g_realloc(conn->buf, conn->cap);
		}
		n = g_pollable_input_stream_read_nonblocking(
			conn->in, draining ? scratch : conn->buf + conn->len,
			draining ? sizeof(scratch) : conn->cap - conn->len, NULL, &error);
		if (n < 0 && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) {
			conn_wait(conn, FALSE);
			return;
		}
		if (n <= 0) {
			if (n < 0 && !draining)
				g_debug("reading a request: %s", error->message);
			conn_close(conn);
			return;
		}
		if (draining) {
			conn->drained += (gsize)n;
			if (conn->drained > DRAIN_MAX) {
				conn_close(conn);
				return;
			}
			continue;
		}
		conn->len += (gsize)n;
		if (!conn_process(conn))
			return;
	}
}

/* Goes on with what is buffered, reading more if the request needs it. */
static void
conn_resume(RapiConn *conn)
{
	if (conn_process(conn))
		conn_read(conn);
}

/* A worker finished @call: write its answer. */
static void
call_done(GntRapiServer *self, RapiCall *call)
{
	RapiConn *conn = call->conn;

	self->n_running--;
	if (conn->state != CONN_HANDLING) {
		rapi_call_free(call); /* closed meanwhile: timed out, or the server stops */
		return;
	}
	conn_send(conn, g_steal_pointer(&call->response), g_steal_pointer(&call->response_body),
		  !call->flags.keep_alive);
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

/* Closes the connection idle for longest to make room; FALSE if none is. */
static gboolean
close_oldest_idle(GntRapiServer *self)
{
	RapiConn *oldest = NULL;

	for (GList *l = self->conns.head; l != NULL; l = l->next) {
		RapiConn *conn = l->data;

		if (conn->idle_since != 0 && (oldest == NULL || conn->idle_since < oldest->idle_since))
			oldest = conn;
	}
	if (oldest == NULL)
		return FALSE;
	g_debug("closing a kept-alive connection to make room for a new one");
	conn_close(oldest);
	return TRUE;
}

static void
handshake_done_cb(GObject *stream, GAsyncResult *result, gpointer user_data)
{
	RapiConn *conn = user_data;
	g_autoptr(GError) error = NULL;

	if (!g_tls_connection_handshake_finish(G_TLS_CONNECTION(stream), result, &error)) {
		g_debug("TLS handshake with a client: %s", error->message);
		conn_close(conn);
	} else if (conn->state == CONN_READING) {
		conn_read(conn);
	}
	conn_unref(conn);
}

static void
conn_new(GntRapiServer *self, GSocket *socket)
{
	g_autoptr(GSocketConnection) base = g_socket_connection_factory_create_connection(socket);
	g_autoptr(GError) error = NULL;
	RapiConn *conn;
	GIOStream *stream;

	g_socket_set_blocking(socket, FALSE);
	(void)g_socket_set_option(socket, IPPROTO_TCP, TCP_NODELAY, 1, NULL);
	if (self->certificate != NULL) {
		/* no database, rather than the default one: clients present no
		 * certificate, and loading the system's trust store costs
		 * megabytes per handshake */
		stream = g_initable_new(g_tls_backend_get_server_connection_type(
						g_tls_backend_get_default()),
					NULL, &error, "base-io-stream", base, "certificate",
					self->certificate, "database", NULL, "authentication-mode",
					G_TLS_AUTHENTICATION_NONE, "require-close-notify", FALSE, NULL);
		if (stream == NULL) {
			g_warning("cannot start TLS on a new connection: %s", error->message);
			return;
		}
	} else {
		stream = G_IO_STREAM(g_object_ref(base));
	}
	conn = g_new0(RapiConn, 1);
	conn->server = self;
	conn->ref_count = 1;
	conn->link.data = conn;
	conn->socket = g_object_ref(socket);
	conn->stream = stream;
	conn->in = G_POLLABLE_INPUT_STREAM(g_io_stream_get_input_stream(stream));
	conn->out = G_POLLABLE_OUTPUT_STREAM(g_io_stream_get_output_stream(stream));
	conn->state = CONN_READING;
	conn->version = SOUP_HTTP_1_1;
	/* the TLS handshake and the first request count as one request */
	conn->deadline = g_get_monotonic_time() +
			 (gint64)self->options.request_timeout_s * G_USEC_PER_SEC;
	g_queue_push_tail_link(&self->conns, &conn->link);
	if (self->certificate != NULL) {
		/* explicitly: glib-networking's implicit handshake in a
		 * non-blocking read costs far more (memory and time) */
		conn->ref_count++;
		g_tls_connection_handshake_async(G_TLS_CONNECTION(stream), G_PRIORITY_DEFAULT, NULL,
						 handshake_done_cb, conn);
	} else {
		conn_read(conn);
	}
}

static void server_pause_accept(GntRapiServer *self, guint retry_ms);

static gboolean
accept_cb(GSocket *listener, GIOCondition condition, gpointer user_data)
{
	GntRapiServer *self = user_data;

	for (guint i = 0; i < ACCEPT_BATCH; i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GSocket) socket = NULL;

		if (self->conns.length >= self->options.max_clients && !close_oldest_idle(self)) {
			/* the kernel's backlog holds the rest until one closes */
			server_pause_accept(self, 0);
			return G_SOURCE_REMOVE;
		}
		socket = g_socket_accept(listener, NULL, &error);
		if (socket == NULL) {
			if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
				break;
			g_warning("accepting a connection: %s; trying again in %u ms",
				  error->message, ACCEPT_RETRY_MS);
			server_pause_accept(self, ACCEPT_RETRY_MS);
			return G_SOURCE_REMOVE;
		}
		conn_new(self, socket);
	}
	return G_SOURCE_CONTINUE;
}

static void
server_start_accept(GntRapiServer *self)
{
	self->accept_paused = FALSE;
	self->accept_source = g_socket_create_source(self->listener, G_IO_IN, NULL);
	g_source_set_callback(self->accept_source, G_SOURCE_FUNC(accept_cb), self, NULL);
	g_source_attach(self->accept_source, self->context);
}

static gboolean
accept_retry_cb(gpointer user_data)
{
	GntRapiServer *self = user_data;

	g_clear_pointer(&self->accept_retry, g_source_unref);
	server_start_accept(self);
	return G_SOURCE_REMOVE;
}

/* Stops accepting: until a connection closes (@retry_ms 0), or for
 * @retry_ms. The source is destroyed by its own callback's return. */
static void
server_pause_accept(GntRapiServer *self, guint retry_ms)
{
	g_clear_pointer(&self->accept_source, g_source_unref);
	if (retry_ms == 0) {
		self->accept_paused = TRUE;
		return;
	}
	self->accept_retry = g_timeout_source_new(retry_ms);
	g_source_set_callback(self->accept_retry, accept_retry_cb, self, NULL);
	g_source_attach(self->accept_retry, self->context);
}

static void
server_resume_accept(GntRapiServer *self)
{
	if (self->stopped || self->listener == NULL ||
	    self->conns.length >= self->options.max_clients)
		return;
	server_start_accept(self);
}

/* Closes the connections whose time is up. */
static gboolean
sweep_cb(gpointer user_data)
{
	GntRapiServer *self = user_data;
	gint64 now = g_get_monotonic_time();
	GList *next;

	for (GList *l = self->conns.head; l != NULL; l = next) {
		RapiConn *conn = l->data;

		next = l->next;
		if (conn->deadline == 0 || now < conn->deadline)
			continue;
		if (conn->state != CONN_DRAINING)
			g_debug("closing a connection: %s", conn->idle_since != 0
								   ? "idle too long"
								   : "request not complete in time");
		conn_close(conn);
	}
	return G_SOURCE_CONTINUE;
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
	g_queue_init(&self->conns);
}

GntRapiServer *
gnt_rapi_server_new(const GntRapiRoute *routes, const gchar *luxi_socket,
		    const gchar *users_file, GTlsCertificate *certificate,
		    const GntRapiServerOptions *options)
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
		g_return_val_if_fail(routes[i].pattern[0] == '/' && routes[i].handler != NULL, NULL);
		compile_route(&routes[i], &self->routes[i]);
	}
	self->n_routes = n;

	self->done_source = g_source_new(&done_source_funcs, sizeof(GSource) + sizeof(gpointer));
	*(GntRapiServer **)(gpointer)(self->done_source + 1) = self;
	g_source_set_name(self->done_source, "gnt-rapi-server answers");
	g_source_attach(self->done_source, self->context);
	self->sweep = g_timeout_source_new(SWEEP_INTERVAL_MS);
	g_source_set_callback(self->sweep, sweep_cb, self, NULL);
	g_source_set_name(self->sweep, "gnt-rapi-server timeouts");
	g_source_attach(self->sweep, self->context);

	self->workers = g_new0(GThread *, self->options.n_workers);
	for (guint i = 0; i < self->options.n_workers; i++)
		self->workers[i] = g_thread_new("rapi-worker", worker_main, self);
	return self;
}

gboolean
gnt_rapi_server_listen(GntRapiServer *self, const gchar *address, guint port, GError **error)
{
	g_return_val_if_fail(GNT_IS_RAPI_SERVER(self) && self->listener == NULL, FALSE);
	self->listener = gnt_net_listen(address, port, self->certificate != NULL ? "https" : "http",
					&self->port, &self->uri, error);
	if (self->listener == NULL)
		return FALSE;
	server_start_accept(self);
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
	return self->conns.length;
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
	if (self->accept_source != NULL)
		g_source_destroy(self->accept_source);
	g_clear_pointer(&self->accept_source, g_source_unref);
	if (self->accept_retry != NULL)
		g_source_destroy(self->accept_retry);
	g_clear_pointer(&self->accept_retry, g_source_unref);
	if (self->listener != NULL)
		g_socket_close(self->listener, NULL);
	g_clear_object(&self->listener);
	while (self->conns.head != NULL)
		conn_close(self->conns.head->data);
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
	g_source_destroy(self->sweep);
	g_clear_pointer(&self->sweep, g_source_unref);
}
