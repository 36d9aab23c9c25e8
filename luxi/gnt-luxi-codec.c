#include "gnt-luxi-codec.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-secret.h"

#define FRAMER_MIN_ALLOC 4096

struct _GntLuxiFramer {
	guint8 *buf;
	gsize alloc;
	gsize start;	  /* first byte not yet handed out */
	gsize end;	  /* one past the last byte held */
	gsize partial;	  /* bytes of the unterminated message at the tail */
	gsize n_complete; /* terminated messages held */
	gsize handed_out; /* length (terminator included) of the message next() gave */
	gsize max_message;
	gboolean overflow; /* a message over the limit follows the complete ones */
};

GntLuxiFramer *
gnt_luxi_framer_new(gsize max_message)
{
	GntLuxiFramer *self = g_new0(GntLuxiFramer, 1);

	self->max_message = max_message > 0 ? max_message : GNT_LUXI_DEFAULT_MAX_MESSAGE;
	return self;
}

void
gnt_luxi_framer_free(GntLuxiFramer *self)
{
	if (self == NULL)
		return;
	gnt_secret_wipe(self->buf, self->alloc);
	g_free(self->buf);
	g_free(self);
}

/* Makes room for @extra more bytes without ever leaving a copy of request
 * bytes behind in memory that is moved or freed. */
static void
framer_reserve(GntLuxiFramer *self, gsize extra)
{
	gsize held = self->end - self->start;
	gsize want = held + extra;
	gsize alloc;
	guint8 *buf;

	if (self->end + extra <= self->alloc)
		return;
	if (want <= self->alloc) {
		memmove(self->buf, self->buf + self->start, held);
		gnt_secret_wipe(self->buf + held, self->end - held);
		self->start = 0;
		self->end = held;
		return;
	}
	alloc = MAX(self->alloc, FRAMER_MIN_ALLOC);
	while (alloc < want)
		alloc *= 2;
	buf = g_malloc(alloc);
	if (held > 0)
		memcpy(buf, self->buf + self->start, held);
	gnt_secret_wipe(self->buf, self->alloc);
	g_free(self->buf);
	self->buf = buf;
	self->alloc = alloc;
	self->start = 0;
	self->end = held;
}

static void
framer_append(GntLuxiFramer *self, const guint8 *data, gsize len)
{
	framer_reserve(self, len);
	memcpy(self->buf + self->end, data, len);
	self->end += len;
}

void
gnt_luxi_framer_feed(GntLuxiFramer *self, const guint8 *data, gsize len)
{
	gsize pos = 0;

	g_return_if_fail(self != NULL);
	g_return_if_fail(data != NULL || len == 0);

	while (pos < len && !self->overflow) {
		const guint8 *eom = memchr(data + pos, GNT_LUXI_EOM, len - pos);
		gsize body = eom != NULL ? (gsize)(eom - (data + pos)) : len - pos;

		if (body > self->max_message - self->partial) {
			/* drop the start of the oversized message right away */
			self->end -= self->partial;
			gnt_secret_wipe(self->buf + self->end, self->partial);
			self->partial = 0;
			self->overflow = TRUE;
			break;
		}
		if (eom != NULL) {
			framer_append(self, data + pos, body + 1);
			self->partial = 0;
			self->n_complete++;
			pos += body + 1;
		} else {
			framer_append(self, data + pos, body);
			self->partial += body;
			pos += body;
		}
	}
}

static gboolean
is_json_space(gchar c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

gboolean
gnt_luxi_framer_next(GntLuxiFramer *self, const gchar **msg, gsize *len, GError **error)
{
	const gchar *begin;
	const gchar *stop;
	const guint8 *eom;

	g_return_val_if_fail(self != NULL, FALSE);
	g_return_val_if_fail(msg != NULL && len != NULL, FALSE);

	gnt_luxi_framer_release(self);
	*msg = NULL;
	*len = 0;
	if (self->n_complete == 0) {
		if (!self->overflow)
			return TRUE;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "LUXI message exceeds the limit of %" G_GSIZE_FORMAT " bytes",
			    self->max_message);
		return FALSE;
	}
	eom = memchr(self->buf + self->start, GNT_LUXI_EOM, self->end - self->start);
	g_assert(eom != NULL);
	self->handed_out = (gsize)(eom - (self->buf + self->start)) + 1;
	begin = (const gchar *)self->buf + self->start;
	stop = (const gchar *)eom;
	while (begin < stop && is_json_space(*begin))
		begin++;
	while (stop > begin && is_json_space(stop[-1]))
		stop--;
	*msg = begin;
	*len = (gsize)(stop - begin);
	return TRUE;
}

void
gnt_luxi_framer_release(GntLuxiFramer *self)
{
	g_return_if_fail(self != NULL);

	if (self->handed_out == 0)
		return;
	gnt_secret_wipe(self->buf + self->start, self->handed_out);
	self->start += self->handed_out;
	self->handed_out = 0;
	self->n_complete--;
	if (self->start == self->end)
		self->start = self->end = 0;
}

gsize
gnt_luxi_framer_get_buffered(GntLuxiFramer *self)
{
	g_return_val_if_fail(self != NULL, 0);
	return self->end - self->start;
}

gboolean
gnt_luxi_framer_has_message(GntLuxiFramer *self)
{
	g_return_val_if_fail(self != NULL, FALSE);
	return self->n_complete > 0 || self->overflow;
}

gsize
gnt_luxi_framer_get_partial(GntLuxiFramer *self)
{
	g_return_val_if_fail(self != NULL, 0);
	return self->partial;
}

gboolean
gnt_luxi_framer_is_overflowed(GntLuxiFramer *self)
{
	g_return_val_if_fail(self != NULL, FALSE);
	return self->overflow;
}

/* Parses a message that must be a JSON object; @readonly: with
 * gnt_json_parse_readonly(). (transfer full) */
static JsonObject *
parse_object(const gchar *data, gsize len, gboolean readonly, GError **error)
{
	g_autoptr(JsonNode) root = readonly ? gnt_json_parse_readonly(data, (gssize)len, error)
					    : gnt_json_parse(data, (gssize)len, error);

	if (root == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(root)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "expected an object, not %s",
			    gnt_json_node_type_name(root));
		return NULL;
	}
	return json_object_ref(json_node_get_object(root));
}

gboolean
gnt_luxi_parse_request(const gchar *data, gsize len, gchar **method, JsonArray **args,
		       GError **error)
{
	g_autoptr(JsonObject) obj = NULL;
	const gchar *name = NULL;
	JsonArray *list = NULL;

	g_return_val_if_fail(data != NULL || len == 0, FALSE);
	g_return_val_if_fail(method != NULL && args != NULL, FALSE);

	obj = parse_object(data != NULL ? data : "", len, FALSE, error);
	if (obj == NULL) {
		g_prefix_error(error, "parsing top-level JSON message: ");
		return FALSE;
	}
	if (!gnt_json_get_string(obj, "method", &name, error) ||
	    !gnt_json_get_array(obj, "args", &list, error))
		return FALSE;
	*method = g_strdup(name);
	*args = json_array_ref(list);
	return TRUE;
}

/* Serializes @obj (control bytes escaped, so no 0x03 can reach the wire)
 * and appends the terminator; wipes the intermediate text, which may hold
 * secrets. */
static gchar *
build_message(JsonObject *obj, gsize *len)
{
	g_autoptr(JsonNode) root = json_node_init_object(json_node_alloc(), obj);
	g_autofree gchar *text = gnt_json_to_string(root);
	gsize n = strlen(text);
	gchar *out = g_malloc(n + 2);

	memcpy(out, text, n);
	out[n] = GNT_LUXI_EOM;
	out[n + 1] = '\0';
	gnt_secret_wipe(text, n);
	if (len != NULL)
		*len = n + 1;
	return out;
}

gchar *
gnt_luxi_build_request(const gchar *method, JsonNode *args, gsize *len)
{
	g_autoptr(JsonObject) obj = json_object_new();

	g_return_val_if_fail(method != NULL, NULL);
	g_return_val_if_fail(args != NULL && JSON_NODE_HOLDS_ARRAY(args), NULL);

	json_object_set_string_member(obj, "method", method);
	json_object_set_member(obj, "args", json_node_copy(args));
	return build_message(obj, len);
}

GString *
gnt_luxi_response_begin(gboolean success)
{
	GString *message = g_string_sized_new(256);

	g_string_append(message, success ? "{\"success\":true,\"result\":"
					 : "{\"success\":false,\"result\":");
	return message;
}

gchar *
gnt_luxi_response_finish(GString *message, gsize *len)
{
	g_return_val_if_fail(message != NULL, NULL);

	g_string_append_c(message, '}');
	g_string_append_c(message, GNT_LUXI_EOM);
	if (len != NULL)
		*len = message->len;
	return g_string_free(message, FALSE);
}

gchar *
gnt_luxi_build_response(gboolean success, JsonNode *result, gsize *len)
{
	GString *message = gnt_luxi_response_begin(success);

	/* the same text as the {"success", "result"} object serialized */
	gnt_json_append(message, result);
	return gnt_luxi_response_finish(message, len);
}

gboolean
gnt_luxi_parse_response(const gchar *data, gsize len, gboolean *success, JsonNode **result,
			GError **error)
{
	g_autoptr(JsonObject) obj = NULL;
	JsonNode *node;

	g_return_val_if_fail(data != NULL || len == 0, FALSE);
	g_return_val_if_fail(success != NULL && result != NULL, FALSE);

	/* answers are only read, and can be large (a Query of every instance) */
	obj = parse_object(data != NULL ? data : "", len, TRUE, error);
	if (obj == NULL || !gnt_json_get_bool(obj, "success", success, error)) {
		g_prefix_error(error, "parsing LUXI answer: ");
		return FALSE;
	}
	node = json_object_get_member(obj, "result");
	if (node == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "parsing LUXI answer: 'result' is missing");
		return FALSE;
	}
	*result = json_node_copy(node);
	return TRUE;
}

JsonNode *
gnt_luxi_encode_error(const gchar *exc_class, const GError *error)
{
	JsonArray *outer = json_array_new();
	JsonArray *args = json_array_new();

	g_return_val_if_fail(error != NULL, NULL);

	json_array_add_string_element(args, error->message);
	if (exc_class == NULL) {
		GntError code = GNT_ERROR_FAULT;

		if (error->domain == GNT_ERROR && error->code >= 0 && error->code < GNT_ERROR_LAST)
			code = (GntError)error->code;
		exc_class = GNT_LUXI_EXC_OP_PREREQ;
		json_array_add_string_element(args, gnt_error_to_ecode(code));
	}
	json_array_add_string_element(outer, exc_class);
	json_array_add_array_element(outer, args);
	return gnt_json_node_new_array(outer);
}

JsonNode *
gnt_luxi_encode_request_error(const gchar *message)
{
	g_autofree gchar *text = g_strconcat(GNT_LUXI_REQUEST_ERROR_PREFIX, message, NULL);

	return gnt_json_node_new_string(text);
}

/* The message of an exception's argument list, as Ganeti's clients show it. */
static gchar *
exception_message(const gchar *exc_class, JsonArray *args)
{
	JsonNode *first;

	if (args == NULL || json_array_get_length(args) == 0)
		return g_strdup(exc_class);
	first = json_array_get_element(args, 0);
	if (json_array_get_length(args) == 1 || g_strcmp0(exc_class, GNT_LUXI_EXC_OP_PREREQ) == 0) {
		const gchar *text = NULL;

		if (gnt_json_node_get_string(first, "message", &text, NULL))
			return g_strdup(text);
	}
	{
		g_autoptr(JsonNode) node = json_node_init_array(json_node_alloc(), args);

		return gnt_json_to_string(node);
	}
}

GError *
gnt_luxi_decode_error(JsonNode *result, gchar **exc_class)
{
	const gchar *klass = NULL;
	g_autofree gchar *message = NULL;
	JsonArray *outer;
	JsonArray *args = NULL;
	GntError code = GNT_ERROR_FAULT;

	if (exc_class != NULL)
		*exc_class = NULL;
	if (result != NULL && gnt_json_node_get_string(result, "result", &klass, NULL))
		return g_error_new_literal(GNT_ERROR, GNT_ERROR_INVALID, klass);

	outer = result != NULL && JSON_NODE_HOLDS_ARRAY(result) ? json_node_get_array(result)
								: NULL;
	if (outer == NULL || json_array_get_length(outer) != 2 ||
	    !gnt_json_node_get_string(json_array_get_element(outer, 0), "class", &klass, NULL) ||
	    !JSON_NODE_HOLDS_ARRAY(json_array_get_element(outer, 1))) {
		g_autofree gchar *text = result != NULL ? gnt_json_to_string(result) : NULL;

		return g_error_new(GNT_ERROR, GNT_ERROR_FAULT,
				   "unexpected error answer from the master daemon: %s",
				   text != NULL ? text : "null");
	}
	args = json_array_get_array_element(outer, 1);
	if (g_strcmp0(klass, GNT_LUXI_EXC_OP_PREREQ) == 0) {
		const gchar *ecode = NULL;

		/* without an error class it is still a refused request */
		code = GNT_ERROR_INVALID;
		if (json_array_get_length(args) >= 2 &&
		    gnt_json_node_get_string(json_array_get_element(args, 1), "ecode", &ecode,
					     NULL))
			code = gnt_error_from_ecode(ecode);
	}
	message = exception_message(klass, args);
	if (exc_class != NULL)
		*exc_class = g_strdup(klass);
	return g_error_new_literal(GNT_ERROR, code, message);
}
