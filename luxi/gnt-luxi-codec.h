#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * The LUXI codec: pure functions, no I/O. A message is UTF-8 JSON followed
 * by one 0x03 byte (Ganeti's LUXI_EOM); Python clients put "\n" before it.
 * Requests are {"method", "args": [...], "version"?}; answers are
 * {"success", "result"}, never with a "version".
 */

#define GNT_LUXI_EOM 0x03
/* the largest message a peer may send */
#define GNT_LUXI_DEFAULT_MAX_MESSAGE (64 * 1024 * 1024)
/* WaitForJobChange waits at most this long (Ganeti's WFJC_TIMEOUT) */
#define GNT_LUXI_WFJC_MAX_TIMEOUT 89
/* the plain-string answer to a request that could not be parsed */
#define GNT_LUXI_REQUEST_ERROR_PREFIX "Failed to parse request: "

/* Ganeti's exception classes, as encoded in failure answers */
#define GNT_LUXI_EXC_OP_PREREQ "OpPrereqError"
#define GNT_LUXI_EXC_OP_EXEC   "OpExecError"
#define GNT_LUXI_EXC_JOB_LOST  "JobLost"
#define GNT_LUXI_EXC_GENERIC   "GenericError"

/*
 * The framer splits a byte stream into messages. It keeps request bytes
 * (which may hold secrets) in one buffer that it wipes whenever bytes are
 * handed back, moved or freed.
 */
typedef struct _GntLuxiFramer GntLuxiFramer;

/* @max_message: 0 for GNT_LUXI_DEFAULT_MAX_MESSAGE. */
GntLuxiFramer *
gnt_luxi_framer_new(gsize max_message);
void
gnt_luxi_framer_free(GntLuxiFramer *self);
/* Takes bytes as they arrive. Once a message grows over the limit, the
 * rest of the stream is ignored: the framing is lost. */
void
gnt_luxi_framer_feed(GntLuxiFramer *self, const guint8 *data, gsize len);
/*
 * Hands out the next complete message, without its terminator and the
 * whitespace before it; *@msg is NULL when there is none yet. The bytes
 * stay valid until the next call or gnt_luxi_framer_release(), which
 * wipes them. Fails (GNT_ERROR_INVALID) once the over-size message is
 * reached.
 */
gboolean
gnt_luxi_framer_next(GntLuxiFramer *self, const gchar **msg, gsize *len, GError **error);
/* Wipes and drops the message next() handed out. */
void
gnt_luxi_framer_release(GntLuxiFramer *self);
/* Bytes held, complete messages and the unterminated tail together. */
gsize
gnt_luxi_framer_get_buffered(GntLuxiFramer *self);
/* A complete message (or the over-size error) is waiting. */
gboolean
gnt_luxi_framer_has_message(GntLuxiFramer *self);
/* Bytes of the unterminated message at the tail. */
gsize
gnt_luxi_framer_get_partial(GntLuxiFramer *self);
gboolean
gnt_luxi_framer_is_overflowed(GntLuxiFramer *self);

/*
 * Parses one request message. On failure the GNT_ERROR_INVALID message is
 * what follows GNT_LUXI_REQUEST_ERROR_PREFIX in the answer. @method and
 * @args are (transfer full). The request text itself is not modified; the
 * caller wipes it.
 */
gboolean
gnt_luxi_parse_request(const gchar *data, gsize len, gchar **method, JsonArray **args,
		       GError **error);

/*
 * Serializes a request or an answer, terminator included; *@len excludes
 * the trailing NUL. A request holds secrets: wipe it (gnt_secret_wipe)
 * once sent. (transfer full)
 */
gchar *
gnt_luxi_build_request(const gchar *method, JsonNode *args, gsize *len);
gchar *
gnt_luxi_build_response(gboolean success, JsonNode *result, gsize *len);

/*
 * An answer whose result is written as JSON text, for results too big to
 * build as a tree first: gnt_luxi_response_begin() gives the envelope's
 * start ({"success":...,"result":), the caller appends the result's text
 * (gnt_json_append() and friends: control bytes escaped, so no 0x03), and
 * gnt_luxi_response_finish() closes it, terminator included, as
 * gnt_luxi_build_response() does. (transfer full: both)
 */
GString *
gnt_luxi_response_begin(gboolean success);
gchar *
gnt_luxi_response_finish(GString *message, gsize *len);

/* Parses an answer message. *@result is (transfer full), read with
 * gnt_json_parse_readonly(): equal scalars in it may be one node, so never
 * change one in place (json_node_set_*()). */
gboolean
gnt_luxi_parse_response(const gchar *data, gsize len, gboolean *success, JsonNode **result,
			GError **error);

/*
 * Encodes a failure as a Ganeti exception. @exc_class NULL means
 * OpPrereqError: [msg, ecode] with the ecode of @error's GNT_ERROR code
 * (internal_error for a foreign domain). Any other class gets [msg].
 * (transfer full)
 */
JsonNode *
gnt_luxi_encode_error(const gchar *exc_class, const GError *error);
/* The plain-string answer to an unparsable request: the prefix + @message. */
JsonNode *
gnt_luxi_encode_request_error(const gchar *message);

/*
 * Decodes a failure answer's result into a GNT_ERROR: OpPrereqError
 * [msg, ecode] takes the code of its ecode; a plain string (a request the
 * server could not parse) is GNT_ERROR_INVALID; any other class is
 * GNT_ERROR_FAULT. The message is the exception's message (its single
 * string argument, else its arguments as JSON, else its class name).
 * *@exc_class gets the class name, or NULL for a plain string.
 * (transfer full: the result and *@exc_class)
 */
GError *
gnt_luxi_decode_error(JsonNode *result, gchar **exc_class);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntLuxiFramer, gnt_luxi_framer_free)

G_END_DECLS
