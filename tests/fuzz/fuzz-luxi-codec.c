/* libFuzzer target: the LUXI codec as the server and the client use it.
 * The input is a byte stream from a client: it is fed to the framer in
 * chunks, every message is parsed as a request and as an answer, and what
 * the server would send back is checked to frame and parse again. */
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-luxi-codec.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

/* What the server would answer to @args: it must hold exactly one 0x03, at
 * its end, and parse back. */
static void
check_answer(gboolean success, JsonNode *result)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) back = NULL;
	g_autofree gchar *wire = NULL;
	gboolean back_success = !success;
	gsize len = 0;

	wire = gnt_luxi_build_response(success, result, &len);
	if (len == 0 || wire[len - 1] != GNT_LUXI_EOM ||
	    memchr(wire, GNT_LUXI_EOM, len - 1) != NULL)
		__builtin_trap();
	if (!gnt_luxi_parse_response(wire, len - 1, &back_success, &back, &error))
		__builtin_trap();
	if (back_success != success)
		__builtin_trap();
}

static void
check_message(const gchar *msg, gsize len)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *method = NULL;
	g_autoptr(JsonArray) args = NULL;
	g_autoptr(JsonNode) result = NULL;
	gboolean success = FALSE;

	if (gnt_luxi_parse_request(msg, len, &method, &args, &error)) {
		g_autoptr(JsonNode) args_node = gnt_json_node_new_array(json_array_ref(args));
		g_autofree gchar *request = gnt_luxi_build_request(method, args_node, NULL);

		check_answer(TRUE, args_node);
		if (request == NULL)
			__builtin_trap();
	} else {
		g_autoptr(JsonNode) plain = gnt_luxi_encode_request_error(error->message);
		g_autoptr(JsonNode) encoded = gnt_luxi_encode_error(NULL, error);
		g_autoptr(GError) decoded = gnt_luxi_decode_error(encoded, NULL);

		check_answer(FALSE, plain);
		check_answer(FALSE, encoded);
		if (decoded == NULL || g_strcmp0(decoded->message, error->message) != 0)
			__builtin_trap();
	}
	/* the same bytes as an answer, as the client reads them */
	g_clear_error(&error);
	if (gnt_luxi_parse_response(msg, len, &success, &result, &error) && !success) {
		g_autofree gchar *klass = NULL;
		g_autoptr(GError) decoded = gnt_luxi_decode_error(result, &klass);

		if (decoded == NULL)
			__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	g_autoptr(GntLuxiFramer) framer = NULL;
	gsize chunk;
	gsize pos = 0;

	if (size < 1)
		return 0;
	/* the first byte picks the chunk size, so that messages straddle reads */
	chunk = (gsize)data[0] % 17 + 1;
	data++;
	size--;
	framer = gnt_luxi_framer_new(4096);
	while (pos < size) {
		gsize n = MIN(chunk, size - pos);

		gnt_luxi_framer_feed(framer, data + pos, n);
		pos += n;
		for (;;) {
			g_autoptr(GError) error = NULL;
			const gchar *msg = NULL;
			gsize len = 0;

			if (!gnt_luxi_framer_next(framer, &msg, &len, &error)) {
				if (!gnt_luxi_framer_is_overflowed(framer))
					__builtin_trap();
				return 0;
			}
			if (msg == NULL)
				break;
			if (len > 4096 || memchr(msg, GNT_LUXI_EOM, len) != NULL)
				__builtin_trap();
			check_message(msg, len);
			gnt_luxi_framer_release(framer);
		}
	}
	return 0;
}
