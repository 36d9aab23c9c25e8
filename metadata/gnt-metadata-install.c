/*
 * metadata/gnt-metadata-install.c: kickstart install sessions in metad
 * (gnt-metadata-install.h): the files the installer fetches, streamed;
 * its callbacks checked against this attempt's token; what noded polls.
 */
#include "gnt-metadata-install.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metadata-tree.h"
#include "gnt-metadata.h"

#define INSTALL_PREFIX "/gantry/latest/install/"
#define STAGE2_PATH    INSTALL_PREFIX "stage2/LiveOS/squashfs.img"
#define KS_PATH	       INSTALL_PREFIX "ks.cfg"
#define CALLBACK_PATH  INSTALL_PREFIX "callback"
#define PACKAGE_PATH   INSTALL_PREFIX "package.tar.gz"
#define PACKAGE_TYPE   "application/gzip"
/* the kickstart's %post sends the token in this header (doc/kickstart.md) */
#define TOKEN_HEADER "X-Gantry-Agent-Token"
#define TEXT_TYPE    GNT_METADATA_TEXT_TYPE
#define KS_TYPE	     "text/plain; charset=utf-8"
#define BYTES_TYPE   "application/octet-stream"
/* the control body: a rendered kickstart is at most 1 MiB (doc/kickstart.md) */
#define SESSION_MAX_BODY (2 * 1024 * 1024)
#define POLL_WAIT_MAX_S	 20 /* below the control client's 30 s timeout */
/* events kept per session: an install sends a handful; a guest flooding
 * ignored reports cannot grow metad */
#define EVENTS_MAX 256

typedef enum {
	STATE_WAITING,
	STATE_STARTED,
	STATE_ENDED,
	STATE_FAILED,
} SessionState;

static const gchar *const state_names[] = {"waiting", "started", "ended", "failed"};

typedef struct _Session Session;

typedef struct {
	Session *session;
	GntHttpRequest *request;
	guint64 since;
	guint timeout_id;
} Poller;

struct _Session {
	gchar *instance;
	guint8 token_digest[32];
	GntSecret *kickstart; /* NULL once wiped */
	gchar *stage2;	      /* a path on the node, NULL: none */
	gchar *liveimg;
	gchar *liveimg_path; /* INSTALL_PREFIX + the liveimg's name */
	SessionState state;
	GPtrArray *events; /* of gchar * (JSON objects) */
	guint64 next_seq;
	GPtrArray *pollers; /* of Poller * */
};

struct _GntMetadInstalls {
	GHashTable *sessions; /* instance -> Session */
};

/* --- callbacks ----------------------------------------------------------- */

const gchar *
gnt_install_status_to_string(GntInstallStatus status)
{
	static const gchar *const names[] = {"start", "end", "error"};

	return names[status];
}

void
gnt_install_callback_clear(GntInstallCallback *self)
{
	g_clear_pointer(&self->message, g_free);
	g_clear_pointer(&self->token, gnt_secret_free);
}

gchar *
gnt_install_message_sanitise(const gchar *message, gsize len)
{
	g_autofree gchar *valid = g_utf8_make_valid(message, (gssize)len);
	GString *out = g_string_new(NULL);
	const gchar *ellipsis = "...";

	for (const gchar *p = valid; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);
		gchar buf[6];
		gint n = 0;

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || (c >= 0x80 && c < 0xa0))
			c = '?'; /* escapes would drive the terminals of those reading logs */
		n = g_unichar_to_utf8(c, buf);
		if (out->len + (gsize)n > GNT_INSTALL_MESSAGE_MAX - strlen(ellipsis)) {
			/* cut at a character's end */
			g_string_append(out, ellipsis);
			break;
		}
		g_string_append_len(out, buf, n);
	}
	return g_string_free(out, FALSE);
}

gboolean
gnt_install_callback_parse(const gchar *data, gsize len, GntInstallCallback *callback,
			   GError **error)
{
	g_autoptr(JsonNode) node = NULL;
	JsonObject *object = NULL;
	JsonNode *member = NULL;
	const gchar *status = NULL;
	const gchar *token = NULL;

	memset(callback, 0, sizeof(*callback));
	node = gnt_json_parse(data != NULL ? data : "", (gssize)len, error);
	if (node == NULL) {
		g_prefix_error(error, "the callback is not JSON: ");
		return FALSE;
	}
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the callback must be a JSON object");
		return FALSE;
	}
	object = json_node_get_object(node);
	member = json_object_get_member(object, "agent_status");
	if (member == NULL || json_node_get_value_type(member) != G_TYPE_STRING) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the callback's agent_status must be a string: start, end or error");
		return FALSE;
	}
	status = json_node_get_string(member);
	if (g_str_equal(status, "start")) {
		callback->status = GNT_INSTALL_STATUS_START;
	} else if (g_str_equal(status, "end")) {
		callback->status = GNT_INSTALL_STATUS_END;
	} else if (g_str_equal(status, "error")) {
		callback->status = GNT_INSTALL_STATUS_ERROR;
	} else {
		g_autofree gchar *shown = gnt_install_message_sanitise(status, strlen(status));

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the callback's agent_status '%.64s' is not start, end or error",
			    shown);
		return FALSE;
	}
	member = json_object_get_member(object, "agent_token");
	if (member == NULL || json_node_get_value_type(member) != G_TYPE_STRING) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the callback's agent_token must be a string");
		return FALSE;
	}
	token = json_node_get_string(member);
	member = json_object_get_member(object, "agent_status_message");
	if (member != NULL && !JSON_NODE_HOLDS_NULL(member) &&
	    json_node_get_value_type(member) != G_TYPE_STRING) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the callback's agent_status_message must be a string");
		return FALSE;
	}
	if (member != NULL && !JSON_NODE_HOLDS_NULL(member)) {
		const gchar *message = json_node_get_string(member);

		callback->message = gnt_install_message_sanitise(message, strlen(message));
	} else {
		callback->message = g_strdup("");
	}
	callback->token = gnt_secret_new(token, -1);
	/* the parsed copy of the token goes with the tree; wipe it first */
	gnt_secret_wipe_string((gchar *)token);
	return TRUE;
}

/* --- sessions ------------------------------------------------------------ */

static void
token_digest(const gchar *token, gsize len, guint8 digest[32])
{
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	gsize digest_len = 32;

	g_checksum_update(sum, (const guchar *)token, (gssize)len);
	g_checksum_get_digest(sum, digest, &digest_len);
}

/* Whether @token is the session's: SHA-256 digests (fixed length)
 * compared in constant time, so neither the time taken nor the length
 * says how much of a guess was right. */
static gboolean
token_matches(const Session *session, const GntSecret *token)
{
	guint8 digest[32];
	guint8 diff = 0;

	token_digest(gnt_secret_get(token), gnt_secret_get_length(token), digest);
	for (guint i = 0; i < sizeof(digest); i++)
		diff |= (guint8)(digest[i] ^ session->token_digest[i]);
	return diff == 0;
}

static void
poller_answer(Poller *poller);

static void
session_wipe_kickstart(Session *session)
{
	g_clear_pointer(&session->kickstart, gnt_secret_free);
}

static void
session_free(Session *session)
{
	/* pollers are answered with the final state: a session ending is news */
	while (session->pollers->len > 0)
		poller_answer(g_ptr_array_index(session->pollers, 0));
	g_ptr_array_unref(session->pollers);
	session_wipe_kickstart(session);
	gnt_secret_wipe(session->token_digest, sizeof(session->token_digest));
	g_ptr_array_unref(session->events);
	g_free(session->stage2);
	g_free(session->liveimg);
	g_free(session->liveimg_path);
	g_free(session->instance);
	g_free(session);
}

GntMetadInstalls *
gnt_metad_installs_new(void)
{
	GntMetadInstalls *self = g_new0(GntMetadInstalls, 1);

	self->sessions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       (GDestroyNotify)session_free);
	return self;
}

void
gnt_metad_installs_free(GntMetadInstalls *self)
{
	if (self == NULL)
		return;
	g_hash_table_unref(self->sessions);
	g_free(self);
}

gboolean
gnt_metad_installs_contains(GntMetadInstalls *self, const gchar *name)
{
	return g_hash_table_contains(self->sessions, name);
}

void
gnt_metad_installs_remove(GntMetadInstalls *self, const gchar *name)
{
	if (g_hash_table_remove(self->sessions, name))
		g_info("instance '%s': install session ended", name);
}

/* {"state", "next", "events": [...]} with the events from @since. */
static gchar *
session_dup_state(Session *session, guint64 since)
{
	GString *out = g_string_new("{\"state\":");
	guint64 first = session->next_seq - session->events->len;
	gboolean comma = FALSE;

	gnt_json_append_string(out, state_names[session->state]);
	g_string_append_printf(out, ",\"next\":%" G_GUINT64_FORMAT ",\"events\":[",
			       session->next_seq);
	for (guint i = 0; i < session->events->len; i++) {
		if (first + i < since)
			continue;
		if (comma)
			g_string_append_c(out, ',');
		g_string_append(out, g_ptr_array_index(session->events, i));
		comma = TRUE;
	}
	g_string_append(out, "]}");
	return g_string_free(out, FALSE);
}

static void
respond_bytes(GntHttpRequest *request, guint status, const gchar *content_type, const gchar *extra,
	      const gchar *data, gsize len)
{
	gnt_http_request_respond(request,
				 gnt_http_build_response(&request->flags, status, content_type,
							 extra, data, len),
				 NULL);
}

static void
respond_text(GntHttpRequest *request, guint status, const gchar *text)
{
	respond_bytes(request, status, TEXT_TYPE, NULL, text, strlen(text));
}

static void
poller_answer(Poller *poller)
{
	Session *session = poller->session;
	g_autofree gchar *json = session_dup_state(session, poller->since);

	g_clear_handle_id(&poller->timeout_id, g_source_remove);
	g_ptr_array_remove_fast(session->pollers, poller);
	respond_bytes(poller->request, 200, "application/json", NULL, json, strlen(json));
	g_free(poller);
}

static gboolean
poller_timeout_cb(gpointer user_data)
{
	Poller *poller = user_data;

	poller->timeout_id = 0;
	poller_answer(poller);
	return G_SOURCE_REMOVE;
}

/* Records an event and wakes the pollers; logged as metad's own line. */
static void
session_add_event(Session *session, const gchar *status, const gchar *message)
{
	GString *event = g_string_new(NULL);

	g_string_append_printf(event, "{\"seq\":%" G_GUINT64_FORMAT ",\"time\":%.6f,\"status\":",
			       session->next_seq, (gdouble)g_get_real_time() / G_USEC_PER_SEC);
	gnt_json_append_string(event, status);
	g_string_append(event, ",\"message\":");
	gnt_json_append_string(event, message);
	g_string_append_c(event, '}');
	if (session->events->len == EVENTS_MAX)
		g_ptr_array_remove_index(session->events, 0);
	g_ptr_array_add(session->events, g_string_free(event, FALSE));
	session->next_seq++;
	while (session->pollers->len > 0)
		poller_answer(g_ptr_array_index(session->pollers, 0));
}

/* Whether @name is a name the liveimg may be served under: "image" and
 * up to three extensions of lower-case letters and digits. */
static gboolean
liveimg_name_valid(const gchar *name)
{
	g_auto(GStrv) parts = g_strsplit(name, ".", 0);
	guint n = g_strv_length(parts);

	if (n < 1 || n > 4 || !g_str_equal(parts[0], "image"))
		return FALSE;
	for (guint i = 1; i < n; i++) {
		if (parts[i][0] == '\0' || strlen(parts[i]) > 8)
			return FALSE;
		for (const gchar *p = parts[i]; *p != '\0'; p++) {
			if (!g_ascii_islower(*p) && !g_ascii_isdigit(*p))
				return FALSE;
		}
	}
	return TRUE;
}

/* An optional string member that must be an absolute path. */
static gboolean
dup_optional_path(JsonObject *spec, const gchar *key, gchar **out, GError **error)
{
	JsonNode *node = json_object_get_member(spec, key);

	*out = NULL;
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (!gnt_json_dup_string(spec, key, out, error))
		return FALSE;
	if (!g_path_is_absolute(*out)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' must be an absolute path",
			    key);
		g_clear_pointer(out, g_free);
		return FALSE;
	}
	return TRUE;
}

/* A new session from the control socket's @spec (the body, wiped by the
 * caller); GNT_ERROR_INVALID naming the member. */
static Session *
session_new(const gchar *name, JsonObject *spec, GError **error)
{
	JsonNode *token = json_object_get_member(spec, "token");
	JsonNode *kickstart = json_object_get_member(spec, "kickstart");
	g_autofree gchar *stage2 = NULL;
	g_autofree gchar *liveimg = NULL;
	g_autofree gchar *liveimg_name = NULL;
	Session *session = NULL;

	if (token == NULL || json_node_get_value_type(token) != G_TYPE_STRING ||
	    strlen(json_node_get_string(token)) < 16) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'token' must be a string of at least 16 characters");
		return NULL;
	}
	/* null: no installer, only files to stream (the install appliance's
	 * payload, appliance.write_payload) */
	if (kickstart == NULL || (!JSON_NODE_HOLDS_NULL(kickstart) &&
				  json_node_get_value_type(kickstart) != G_TYPE_STRING)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'kickstart' must be a string (or null: files only)");
		return NULL;
	}
	if (!dup_optional_path(spec, "stage2", &stage2, error) ||
	    !dup_optional_path(spec, "liveimg", &liveimg, error))
		return NULL;
	if (liveimg != NULL) {
		if (!gnt_json_dup_string(spec, "liveimg_name", &liveimg_name, error))
			return NULL;
		if (!liveimg_name_valid(liveimg_name)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'liveimg_name' '%.64s' must be 'image' and up to three "
				    "extensions of lower-case letters and digits",
				    liveimg_name);
			return NULL;
		}
	}
	session = g_new0(Session, 1);
	session->instance = g_strdup(name);
	token_digest(json_node_get_string(token), strlen(json_node_get_string(token)),
		     session->token_digest);
	if (!JSON_NODE_HOLDS_NULL(kickstart))
		session->kickstart = gnt_secret_new(json_node_get_string(kickstart), -1);
	session->stage2 = g_steal_pointer(&stage2);
	session->liveimg = g_steal_pointer(&liveimg);
	if (session->liveimg != NULL)
		session->liveimg_path = g_strconcat(INSTALL_PREFIX, liveimg_name, NULL);
	session->events = g_ptr_array_new_with_free_func(g_free);
	session->pollers = g_ptr_array_new();
	return session;
}

static void
wipe_json_strings(JsonObject *object)
{
	g_autoptr(GList) members = json_object_get_members(object);

	for (GList *l = members; l != NULL; l = l->next) {
		JsonNode *node = json_object_get_member(object, l->data);

		if (json_node_get_value_type(node) == G_TYPE_STRING)
			gnt_secret_wipe_string((gchar *)json_node_get_string(node));
	}
}

static gboolean
control_put(GntMetadInstalls *self, const gchar *name, GBytes *body, GError **error)
{
	gsize len = 0;
	const gchar *data = body != NULL ? g_bytes_get_data(body, &len) : NULL;
	g_autoptr(JsonNode) node = NULL;
	Session *session = NULL;

	if (len > SESSION_MAX_BODY) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the install session of instance '%s' is too large", name);
		return FALSE;
	}
	node = gnt_json_parse(data != NULL ? data : "", (gssize)len, error);
	if (node == NULL)
		return FALSE;
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the install session of instance '%s' must be a JSON object", name);
		return FALSE;
	}
	session = session_new(name, json_node_get_object(node), error);
	/* the token and the kickstart are in the parsed tree: wipe them */
	wipe_json_strings(json_node_get_object(node));
	if (session == NULL) {
		g_prefix_error(error, "install session of instance '%s': ", name);
		return FALSE;
	}
	/* a new attempt: the old one's token is stale from now on */
	g_hash_table_replace(self->sessions, g_strdup(name), session);
	g_info("instance '%s': install session started", name);
	return TRUE;
}

void
gnt_metad_installs_control(GntMetadInstalls *self, const gchar *name, GntHttpRequest *request,
			   GHashTable *query)
{
	const gchar *method = request->method;
	g_autoptr(GError) error = NULL;
	Session *session = g_hash_table_lookup(self->sessions, name);

	if (g_str_equal(method, "PUT")) {
		if (!control_put(self, name, request->body, &error)) {
			g_autofree gchar *text = g_strconcat(error->message, "\n", NULL);

			g_warning("refusing PUT of the install session of '%s': %s", name,
				  error->message);
			respond_text(request, 400, text);
			return;
		}
		respond_bytes(request, 204, NULL, NULL, NULL, 0);
		return;
	}
	if (g_str_equal(method, "DELETE")) {
		gnt_metad_installs_remove(self, name);
		respond_bytes(request, 204, NULL, NULL, NULL, 0);
		return;
	}
	if (g_str_equal(method, "GET")) {
		GPtrArray *values = query != NULL ? g_hash_table_lookup(query, "since") : NULL;
		GPtrArray *waits = query != NULL ? g_hash_table_lookup(query, "wait") : NULL;
		guint64 since = 0;
		guint64 wait = 0;
		Poller *poller = NULL;

		if ((values != NULL && values->len > 0 &&
		     !g_ascii_string_to_unsigned(g_ptr_array_index(values, 0), 10, 0, G_MAXUINT64,
						 &since, NULL)) ||
		    (waits != NULL && waits->len > 0 &&
		     !g_ascii_string_to_unsigned(g_ptr_array_index(waits, 0), 10, 0,
						 POLL_WAIT_MAX_S, &wait, NULL))) {
			respond_text(request, 400,
				     "since must be a sequence number and wait 0 to 20 seconds\n");
			return;
		}
		if (session == NULL) {
			respond_text(request, 404, GNT_METADATA_NOT_FOUND_BODY);
			return;
		}
		poller = g_new0(Poller, 1);
		poller->session = session;
		poller->request = request;
		poller->since = since;
		g_ptr_array_add(session->pollers, poller);
		if (session->next_seq > since || wait == 0)
			poller_answer(poller);
		else
			poller->timeout_id =
				g_timeout_add_seconds((guint)wait, poller_timeout_cb, poller);
		return;
	}
	respond_bytes(request, 405, TEXT_TYPE, "Allow: PUT, GET, DELETE\r\n",
		      "Method not allowed\n", 19);
}

/* --- the guest's side ------------------------------------------------ */

/* A callback on the session: 200, or 409 for an end before start. The
 * token was checked. */
static void
session_callback(Session *session, GntHttpRequest *request, const GntInstallCallback *callback)
{
	const gchar *status = gnt_install_status_to_string(callback->status);
	SessionState before = session->state;

	if (before == STATE_ENDED || before == STATE_FAILED) {
		g_autofree gchar *note = g_strdup_printf("'%s' after '%s' ignored%s%s", status,
							 before == STATE_ENDED ? "end" : "error",
							 callback->message[0] != '\0' ? ": " : "",
							 callback->message);

		g_message("instance '%s': install callback %s", session->instance, note);
		session_add_event(session, "ignored", note);
		respond_text(request, 200, "");
		return;
	}
	if (callback->status == GNT_INSTALL_STATUS_END && before == STATE_WAITING) {
		g_message("instance '%s': install callback 'end' before 'start' refused",
			  session->instance);
		session_add_event(session, "refused", "'end' before 'start' refused");
		respond_text(request, 409, "'end' before 'start' is refused\n");
		return;
	}
	if (callback->status == GNT_INSTALL_STATUS_START)
		session->state = STATE_STARTED;
	else if (callback->status == GNT_INSTALL_STATUS_END)
		session->state = STATE_ENDED;
	else
		session->state = STATE_FAILED;
	/* the installer has read its kickstart: the token's copy in it goes */
	if (session->state != STATE_STARTED)
		session_wipe_kickstart(session);
	g_info("instance '%s': install callback '%s'", session->instance, status);
	session_add_event(session, status, callback->message);
	respond_text(request, 200, "");
}

/* The first range of a "bytes=A-B", "bytes=A-" or "bytes=-N" header for
 * a file of @size bytes: 1 with *@first and *@last set, 0 when there is
 * none or it is not one such range (the whole file is sent), -1 when it
 * cannot be satisfied (416). */
static gint
parse_range(const gchar *header, guint64 size, guint64 *first, guint64 *last)
{
	const gchar *spec = NULL;
	const gchar *dash = NULL;
	guint64 a = 0;
	guint64 b = 0;
	g_autofree gchar *left = NULL;

	if (header == NULL || !g_str_has_prefix(header, "bytes="))
		return 0;
	spec = header + strlen("bytes=");
	if (strchr(spec, ',') != NULL)
		return 0; /* several ranges: the whole file is a valid answer */
	dash = strchr(spec, '-');
	if (dash == NULL)
		return 0;
	left = g_strndup(spec, (gsize)(dash - spec));
	if (left[0] == '\0') {
		if (!g_ascii_string_to_unsigned(dash + 1, 10, 1, G_MAXUINT64, &b, NULL))
			return 0;
		if (size == 0)
			return -1;
		*first = b >= size ? 0 : size - b;
		*last = size - 1;
		return 1;
	}
	if (!g_ascii_string_to_unsigned(left, 10, 0, G_MAXUINT64, &a, NULL))
		return 0;
	if (dash[1] == '\0') {
		b = G_MAXUINT64;
	} else if (!g_ascii_string_to_unsigned(dash + 1, 10, 0, G_MAXUINT64, &b, NULL) || b < a) {
		return 0;
	}
	if (a >= size)
		return -1;
	*first = a;
	*last = MIN(b, size - 1);
	return 1;
}

/* Streams the file at @path (with Range): FALSE when it cannot be opened
 * (the caller's 404: a file gone is a miss like any other). */
static gboolean
answer_file(GntHttpRequest *request, const gchar *path)
{
	gint fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	guint64 first = 0;
	guint64 last = 0;
	gint range = 0;
	g_autofree gchar *extra = NULL;
	GString *head = NULL;

	if (fd < 0)
		return FALSE;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return FALSE;
	}
	range = parse_range(soup_message_headers_get_one(request->headers, "Range"),
			    (guint64)st.st_size, &first, &last);
	if (range < 0) {
		g_autofree gchar *unsat = g_strdup_printf(
			"Content-Range: bytes */%" G_GUINT64_FORMAT "\r\n", (guint64)st.st_size);

		close(fd);
		respond_bytes(request, 416, TEXT_TYPE, unsat, "Range not satisfiable\n", 22);
		return TRUE;
	}
	if (range == 0) {
		first = 0;
		last = st.st_size > 0 ? (guint64)st.st_size - 1 : 0;
		extra = g_strdup("Accept-Ranges: bytes\r\n");
	} else {
		extra = g_strdup_printf("Accept-Ranges: bytes\r\nContent-Range: bytes "
					"%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
					"/%" G_GUINT64_FORMAT "\r\n",
					first, last, (guint64)st.st_size);
	}
	{
		guint64 length = st.st_size > 0 ? last - first + 1 : 0;

		head = gnt_http_build_head(&request->flags, range > 0 ? 206 : 200, BYTES_TYPE,
					   (gsize)length, extra, 0);
		gnt_http_request_respond_file(request, g_string_free_to_bytes(head), fd, first,
					      length);
	}
	return TRUE;
}

/* ks.cfg: the answer built in a secret's pages, which are wiped when the
 * answer is written */
static void
answer_kickstart(GntHttpRequest *request, const GntSecret *kickstart)
{
	gsize len = request->flags.head_only ? 0 : gnt_secret_get_length(kickstart);
	g_autoptr(GString) head = gnt_http_build_head(&request->flags, 200, KS_TYPE,
						      gnt_secret_get_length(kickstart), NULL, 0);
	GntSecret *response = gnt_secret_new_zeroed(head->len + len);
	gchar *data = gnt_secret_get_data(response);

	memcpy(data, head->str, head->len);
	memcpy(data + head->len, gnt_secret_get(kickstart), len);
	gnt_http_request_respond(request,
				 g_bytes_new_with_free_func(data, head->len + len,
							    (GDestroyNotify)gnt_secret_free,
							    response),
				 NULL);
}

/* Whether @request carries the session's token in TOKEN_HEADER. */
static gboolean
request_has_token(const Session *session, GntHttpRequest *request)
{
	const gchar *given = soup_message_headers_get_one(request->headers, TOKEN_HEADER);
	g_autoptr(GntSecret) token = NULL;

	if (given == NULL)
		return FALSE;
	token = gnt_secret_new(given, -1);
	return token_matches(session, token);
}

gboolean
gnt_metad_installs_answer(GntMetadInstalls *self, const gchar *instance, const gchar *path,
			  GBytes *package, GntHttpRequest **request)
{
	Session *session = NULL;
	GntHttpRequest *req = *request;
	gboolean get = g_str_equal(req->method, "GET") || g_str_equal(req->method, "HEAD");

	if (!g_str_has_prefix(path, INSTALL_PREFIX))
		return FALSE;
	session = g_hash_table_lookup(self->sessions, instance);
	if (session == NULL)
		return FALSE;
	if (g_str_equal(path, CALLBACK_PATH) && g_str_equal(req->method, "POST")) {
		gsize len = 0;
		const gchar *data = req->body != NULL ? g_bytes_get_data(req->body, &len) : NULL;
		g_auto(GntInstallCallback) callback = {0};
		g_autoptr(GError) error = NULL;

		if (!gnt_install_callback_parse(data, len, &callback, &error)) {
			g_autofree gchar *text = g_strconcat(error->message, "\n", NULL);

			g_message("instance '%s': install callback refused: %s", instance,
				  error->message);
			respond_text(g_steal_pointer(request), 400, text);
			return TRUE;
		}
		/* a wrong, stale or other instance's token: the one 404 */
		if (!token_matches(session, callback.token)) {
			g_message("instance '%s': install callback with a wrong token", instance);
			return FALSE;
		}
		session_callback(session, g_steal_pointer(request), &callback);
		return TRUE;
	}
	if (!get)
		return FALSE;
	if (g_str_equal(path, KS_PATH) && session->kickstart != NULL) {
		answer_kickstart(g_steal_pointer(request), session->kickstart);
		return TRUE;
	}
	if (g_str_equal(path, STAGE2_PATH) && session->stage2 != NULL) {
		if (!answer_file(req, session->stage2))
			return FALSE;
		*request = NULL;
		return TRUE;
	}
	/* the personalization package: to this install's token only; a
	 * wrong or missing one gets the one 404 */
	if (g_str_equal(path, PACKAGE_PATH) && package != NULL) {
		GString *head;

		if (!request_has_token(session, req)) {
			g_message("instance '%s': package request without this install's token",
				  instance);
			return FALSE;
		}
		/* the package's bytes as they are (no copy of up to 256 MiB) */
		head = gnt_http_build_head(&req->flags, 200, PACKAGE_TYPE,
					   g_bytes_get_size(package), NULL, 0);
		gnt_http_request_respond(g_steal_pointer(request), g_string_free_to_bytes(head),
					 req->flags.head_only ? NULL : g_bytes_ref(package));
		return TRUE;
	}
	if (session->liveimg_path != NULL && g_str_equal(path, session->liveimg_path)) {
		if (!answer_file(req, session->liveimg))
			return FALSE;
		*request = NULL;
		return TRUE;
	}
	return FALSE;
}
