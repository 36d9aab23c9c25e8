#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-luxi-codec.h"

static void
feed_str(GntLuxiFramer *framer, const gchar *text)
{
	gnt_luxi_framer_feed(framer, (const guint8 *)text, strlen(text));
}

/* The next message as a string, "" for an empty one, NULL for none yet. */
static gchar *
next_str(GntLuxiFramer *framer)
{
	g_autoptr(GError) error = NULL;
	const gchar *msg = NULL;
	gsize len = 0;
	gchar *out;

	g_assert_true(gnt_luxi_framer_next(framer, &msg, &len, &error));
	g_assert_no_error(error);
	if (msg == NULL)
		return NULL;
	out = g_strndup(msg, len);
	gnt_luxi_framer_release(framer);
	return out;
}

static void
assert_next(GntLuxiFramer *framer, const gchar *expected)
{
	g_autofree gchar *got = next_str(framer);

	g_assert_cmpstr(got, ==, expected);
}

static void
test_framer_byte_by_byte(void)
{
	g_autoptr(GntLuxiFramer) framer = gnt_luxi_framer_new(0);
	const gchar *wire = "{\"method\":\"QueryClusterInfo\",\"args\":[]}\n\x03";

	for (const gchar *p = wire; *p != '\0'; p++) {
		g_assert_false(gnt_luxi_framer_has_message(framer));
		assert_next(framer, NULL);
		gnt_luxi_framer_feed(framer, (const guint8 *)p, 1);
	}
	g_assert_true(gnt_luxi_framer_has_message(framer));
	assert_next(framer, "{\"method\":\"QueryClusterInfo\",\"args\":[]}");
	assert_next(framer, NULL);
	g_assert_cmpuint(gnt_luxi_framer_get_buffered(framer), ==, 0);
}

static void
test_framer_chunk_boundaries(void)
{
	g_autoptr(GntLuxiFramer) framer = gnt_luxi_framer_new(0);

	/* a terminator at the very start and at the very end of chunks */
	feed_str(framer, "[1");
	feed_str(framer, "]\n");
	feed_str(framer, "\x03[2]");
	assert_next(framer, "[1]");
	assert_next(framer, NULL);
	g_assert_cmpuint(gnt_luxi_framer_get_partial(framer), ==, 3);
	feed_str(framer, "\x03");
	assert_next(framer, "[2]");
	assert_next(framer, NULL);
	g_assert_cmpuint(gnt_luxi_framer_get_partial(framer), ==, 0);
}

static void
test_framer_many_in_one_chunk(void)
{
	g_autoptr(GntLuxiFramer) framer = gnt_luxi_framer_new(0);

	feed_str(framer, "[1]\x03  [2] \r\n\t\x03\n[3]\n\x03\x03[4");
	assert_next(framer, "[1]");
	assert_next(framer, "[2]");
	assert_next(framer, "[3]");
	assert_next(framer, ""); /* an empty message: the parser refuses it */
	assert_next(framer, NULL);
	g_assert_cmpuint(gnt_luxi_framer_get_partial(framer), ==, 2);
	feed_str(framer, "]\x03");
	assert_next(framer, "[4]");
}

static void
test_framer_growth(void)
{
	g_autoptr(GntLuxiFramer) framer = gnt_luxi_framer_new(0);
	g_autoptr(GString) big = g_string_new("\"");
	g_autofree gchar *got = NULL;

	/* several buffer growths and compactions with messages in flight */
	feed_str(framer, "[0]\x03");
	for (guint i = 0; i < 100000; i++)
		g_string_append_c(big, (gchar)('a' + i % 26));
	g_string_append_c(big, '"');
	gnt_luxi_framer_feed(framer, (const guint8 *)big->str, 50000);
	assert_next(framer, "[0]");
	gnt_luxi_framer_feed(framer, (const guint8 *)big->str + 50000, big->len - 50000);
	feed_str(framer, "\x03[1]\x03");
	got = next_str(framer);
	g_assert_cmpstr(got, ==, big->str);
	assert_next(framer, "[1]");
	assert_next(framer, NULL);
}

static void
test_framer_release_wipes(void)
{
	g_autoptr(GntLuxiFramer) framer = gnt_luxi_framer_new(0);
	g_autoptr(GError) error = NULL;
	const gchar *msg = NULL;
	gsize len = 0;

	feed_str(framer, "{\"osparams_secret\":{\"pw\":\"hunter2\"}}\x03[1]");
	g_assert_true(gnt_luxi_framer_next(framer, &msg, &len, &error));
	g_assert_nonnull(msg);
	gnt_luxi_framer_release(framer);
	/* white box: the buffer is still allocated, the message bytes zeroed */
	for (gsize i = 0; i < len; i++)
		g_assert_cmpint(msg[i], ==, 0);
	g_assert_cmpuint(gnt_luxi_framer_get_buffered(framer), ==, 3);
}

/* The next message is the size-limit failure (of a framer limited to 8). */
static void
assert_overflow(GntLuxiFramer *framer)
{
	g_autoptr(GError) error = NULL;
	const gchar *msg = NULL;
	gsize len = 0;

	g_assert_true(gnt_luxi_framer_has_message(framer));
	g_assert_false(gnt_luxi_framer_next(framer, &msg, &len, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "LUXI message exceeds the limit of 8 bytes");
	g_assert_null(msg);
}

static void
test_framer_size_limit(void)
{
	g_autoptr(GntLuxiFramer) framer = gnt_luxi_framer_new(8);

	/* exactly at the limit is fine, whitespace counts */
	feed_str(framer, "[1234,6]\x03[12345,7]\x03[1]\x03");
	assert_next(framer, "[1234,6]");
	assert_overflow(framer);
	/* final: what follows is dropped */
	feed_str(framer, "[2]\x03");
	assert_overflow(framer);
	g_assert_cmpuint(gnt_luxi_framer_get_buffered(framer), ==, 0);
}

static void
test_framer_size_limit_unterminated(void)
{
	g_autoptr(GntLuxiFramer) framer = gnt_luxi_framer_new(8);

	feed_str(framer, "[1]\x03[1,2");
	feed_str(framer, ",3,4");
	g_assert_false(gnt_luxi_framer_is_overflowed(framer));
	feed_str(framer, "5"); /* the ninth byte, no terminator in sight */
	g_assert_true(gnt_luxi_framer_is_overflowed(framer));
	g_assert_cmpuint(gnt_luxi_framer_get_buffered(framer), ==, 4);
	assert_next(framer, "[1]");
	assert_overflow(framer);
}

static void
test_nesting(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) deep = g_string_new(NULL);
	const gchar *tricky = "[\"[[[[\\\"[[\", {\"a\":\"}}}\\\\\"}]";

	g_assert_true(gnt_json_check_nesting(tricky, strlen(tricky), 2, &error));
	g_assert_no_error(error);
	g_assert_false(gnt_json_check_nesting("[[[]]]", 6, 2, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "JSON nests deeper than 2 levels");
	g_clear_error(&error);

	/* deep enough to crash json-glib's recursive parser */
	for (guint i = 0; i < 1000000; i++)
		g_string_append_c(deep, '[');
	{
		g_autofree gchar *method = NULL;
		g_autoptr(JsonArray) args = NULL;

		g_assert_false(
			gnt_luxi_parse_request(deep->str, deep->len, &method, &args, &error));
		g_assert_cmpstr(
			error->message, ==,
			"parsing top-level JSON message: JSON nests deeper than 128 levels");
	}
}

static void
test_parse_request(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *method = NULL;
	g_autoptr(JsonArray) args = NULL;
	const gchar *text =
		"{\"method\": \"CancelJob\", \"args\": [17, false], \"version\": 3000000}";

	g_assert_true(gnt_luxi_parse_request(text, strlen(text), &method, &args, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(method, ==, "CancelJob");
	g_assert_cmpuint(json_array_get_length(args), ==, 2);
	g_assert_cmpint(json_array_get_int_element(args, 0), ==, 17);
}

static void
assert_request_error(const gchar *text, gssize len, const gchar *expected)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *method = NULL;
	g_autoptr(JsonArray) args = NULL;

	if (len < 0)
		len = (gssize)strlen(text);
	g_assert_false(gnt_luxi_parse_request(text, (gsize)len, &method, &args, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	if (g_str_has_suffix(expected, "*")) { /* json-glib's own words vary */
		g_autofree gchar *prefix = g_strndup(expected, strlen(expected) - 1);

		g_assert_true(g_str_has_prefix(error->message, prefix));
	} else {
		g_assert_cmpstr(error->message, ==, expected);
	}
	g_assert_null(method);
	g_assert_null(args);
}

static void
test_parse_request_errors(void)
{
	assert_request_error("", -1,
			     "parsing top-level JSON message: invalid JSON: empty document");
	assert_request_error("{\"method\":", -1,
			     "parsing top-level JSON message: invalid JSON at line 1, column *");
	/* json-glib names the bad token; the answer must not (it may be secret) */
	assert_request_error("{\"secret_value\": HUNTERX9}", -1,
			     "parsing top-level JSON message: invalid JSON at line 1, column 25");
	assert_request_error("[\"SubmitJob\", []]", -1,
			     "parsing top-level JSON message: expected an object, not list");
	assert_request_error("{\"args\": []}", -1, "'method' is missing");
	assert_request_error("{\"method\": 3, \"args\": []}", -1,
			     "'method' must be a string, not integer");
	assert_request_error("{\"method\": \"QueryJobs\"}", -1, "'args' is missing");
	assert_request_error("{\"method\": \"QueryJobs\", \"args\": {\"ids\": null}}", -1,
			     "'args' must be a list, not object");
	assert_request_error("{\"method\": \"\xff\", \"args\": []}", -1,
			     "parsing top-level JSON message: JSON text is not valid UTF-8");
	assert_request_error("{\"method\": \"a\0b\", \"args\": []}", 25,
			     "parsing top-level JSON message: JSON text is not valid UTF-8");
}

/* Serializes @text's JSON as an answer and checks the wire form. */
static gchar *
response_wire(gboolean success, const gchar *result_json, gsize *len)
{
	g_autoptr(JsonNode) result = gnt_json_parse(result_json, -1, NULL);

	g_assert_nonnull(result);
	return gnt_luxi_build_response(success, result, len);
}

static void
test_build_response(void)
{
	gsize len = 0;
	g_autofree gchar *ok = response_wire(TRUE, "{\"x\": [1, \"two\"]}", &len);
	g_autofree gchar *failed = NULL;

	g_assert_cmpstr(ok, ==, "{\"success\":true,\"result\":{\"x\":[1,\"two\"]}}\x03");
	g_assert_cmpuint(len, ==, strlen(ok));
	failed = response_wire(FALSE, "[\"JobLost\", [\"job 3 not found\"]]", &len);
	g_assert_cmpstr(failed, ==,
			"{\"success\":false,\"result\":[\"JobLost\",[\"job 3 not found\"]]}\x03");
	g_assert_null(strstr(ok, "version"));
}

static void
test_control_characters_escaped(void)
{
	g_autoptr(JsonObject) obj = json_object_new();
	g_autoptr(JsonNode) result = NULL;
	g_autoptr(JsonNode) args = NULL;
	g_autofree gchar *wire = NULL;
	g_autofree gchar *request = NULL;
	g_autoptr(GntLuxiFramer) framer = gnt_luxi_framer_new(0);
	g_autoptr(GError) error = NULL;
	gboolean success = FALSE;
	g_autoptr(JsonNode) back = NULL;
	const gchar *msg = NULL;
	gsize len = 0;
	gchar all[32];

	for (guint i = 1; i < 32; i++)
		all[i - 1] = (gchar)i;
	all[31] = '\0';
	json_object_set_string_member(obj, "log\x03key", all);
	json_object_set_string_member(obj, "eom", "\x03");
	result = gnt_json_node_new_object(json_object_ref(obj));
	wire = gnt_luxi_build_response(TRUE, result, &len);
	/* the only 0x03 is the terminator */
	g_assert_true(memchr(wire, GNT_LUXI_EOM, len) == wire + len - 1);
	g_assert_nonnull(strstr(wire, "\\u0003"));
	for (gsize i = 0; i + 1 < len; i++)
		g_assert_cmpint((guchar)wire[i], >=, 0x20);

	args = gnt_json_node_new_array(json_array_new());
	json_array_add_string_element(json_node_get_array(args), all);
	request = gnt_luxi_build_request("SubmitJob", args, &len);
	g_assert_true(memchr(request, GNT_LUXI_EOM, len) == request + len - 1);

	/* and it survives the round trip */
	gnt_luxi_framer_feed(framer, (const guint8 *)wire, strlen(wire));
	g_assert_true(gnt_luxi_framer_next(framer, &msg, &len, &error));
	g_assert_true(gnt_luxi_parse_response(msg, len, &success, &back, &error));
	g_assert_no_error(error);
	g_assert_true(success);
	g_assert_true(json_node_equal(back, result));
}

static void
test_request_round_trip(void)
{
	g_autoptr(JsonNode) args =
		gnt_json_parse("[[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0.5}]]", -1, NULL);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *wire = NULL;
	g_autofree gchar *method = NULL;
	g_autoptr(JsonArray) back = NULL;
	g_autoptr(JsonNode) back_node = NULL;
	gsize len = 0;

	wire = gnt_luxi_build_request("SubmitJob", args, &len);
	g_assert_cmpint(wire[len - 1], ==, GNT_LUXI_EOM);
	g_assert_true(gnt_luxi_parse_request(wire, len - 1, &method, &back, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(method, ==, "SubmitJob");
	back_node = gnt_json_node_new_array(g_steal_pointer(&back));
	g_assert_true(json_node_equal(back_node, args));
}

static void
assert_response_error(const gchar *text, const gchar *expected)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) result = NULL;
	gboolean success = FALSE;

	g_assert_false(gnt_luxi_parse_response(text, strlen(text), &success, &result, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, expected);
}

static void
test_parse_response(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) result = NULL;
	gboolean success = FALSE;
	const gchar *text = "{\"success\": true, \"result\": \"nochange\", \"version\": 3000000}";

	g_assert_true(gnt_luxi_parse_response(text, strlen(text), &success, &result, &error));
	g_assert_true(success);
	g_assert_cmpstr(json_node_get_string(result), ==, "nochange");

	assert_response_error("{\"result\": 1}", "parsing LUXI answer: 'success' is missing");
	assert_response_error("{\"success\": 1, \"result\": 1}",
			      "parsing LUXI answer: 'success' must be a boolean, not integer");
	assert_response_error("{\"success\": true}", "parsing LUXI answer: 'result' is missing");
	assert_response_error("7", "parsing LUXI answer: expected an object, not integer");
}

static gchar *
encode_to_string(const gchar *exc_class, GError *error)
{
	g_autoptr(JsonNode) node = gnt_luxi_encode_error(exc_class, error);

	return gnt_json_to_string(node);
}

static void
test_encode_error(void)
{
	static const struct {
		GntError code;
		const gchar *ecode;
	} codes[] = {
		{GNT_ERROR_INVALID, "wrong_input"},
		{GNT_ERROR_NOT_FOUND, "unknown_entity"},
		{GNT_ERROR_EXISTS, "already_exists"},
		{GNT_ERROR_WRONG_STATE, "wrong_state"},
		{GNT_ERROR_NO_RESOURCES, "insufficient_resources"},
		{GNT_ERROR_TEMP_NO_RESOURCES, "temp_insufficient_resources"},
		{GNT_ERROR_ENVIRONMENT, "environment_error"},
		{GNT_ERROR_FAULT, "internal_error"},
	};
	G_STATIC_ASSERT(G_N_ELEMENTS(codes) == GNT_ERROR_LAST);

	for (guint i = 0; i < G_N_ELEMENTS(codes); i++) {
		g_autoptr(GError)
			error = g_error_new(GNT_ERROR, codes[i].code, "node '%s' is offline", "n1");
		g_autofree gchar *text = encode_to_string(NULL, error);
		g_autofree gchar *expected = g_strdup_printf(
			"[\"OpPrereqError\",[\"node 'n1' is offline\",\"%s\"]]", codes[i].ecode);

		g_assert_cmpstr(text, ==, expected);
	}
	{
		g_autoptr(GError)
			error = g_error_new_literal(G_IO_ERROR, G_IO_ERROR_FAILED, "boom");
		g_autofree gchar *text = encode_to_string(NULL, error);

		g_assert_cmpstr(text, ==, "[\"OpPrereqError\",[\"boom\",\"internal_error\"]]");
	}
	{
		g_autoptr(GError) error =
			g_error_new_literal(GNT_ERROR, GNT_ERROR_NOT_FOUND, "job 5 not found");
		g_autofree gchar *lost = encode_to_string(GNT_LUXI_EXC_JOB_LOST, error);
		g_autofree gchar *exec = encode_to_string(GNT_LUXI_EXC_OP_EXEC, error);
		g_autofree gchar *generic = encode_to_string(GNT_LUXI_EXC_GENERIC, error);

		g_assert_cmpstr(lost, ==, "[\"JobLost\",[\"job 5 not found\"]]");
		g_assert_cmpstr(exec, ==, "[\"OpExecError\",[\"job 5 not found\"]]");
		g_assert_cmpstr(generic, ==, "[\"GenericError\",[\"job 5 not found\"]]");
	}
	{
		g_autoptr(JsonNode) node = gnt_luxi_encode_request_error("'args' is missing");

		g_assert_cmpstr(json_node_get_string(node), ==,
				"Failed to parse request: 'args' is missing");
	}
}

static void
assert_decoded(const gchar *json, GntError code, const gchar *message, const gchar *exc_class)
{
	g_autoptr(JsonNode) node = gnt_json_parse(json, -1, NULL);
	g_autofree gchar *klass = NULL;
	g_autoptr(GError) error = gnt_luxi_decode_error(node, &klass);

	g_assert_error(error, GNT_ERROR, (gint)code);
	g_assert_cmpstr(error->message, ==, message);
	g_assert_cmpstr(klass, ==, exc_class);
}

static void
test_decode_error(void)
{
	assert_decoded("[\"OpPrereqError\", [\"Instance name foo not found\", \"unknown_entity\"]]",
		       GNT_ERROR_NOT_FOUND, "Instance name foo not found", "OpPrereqError");
	assert_decoded("[\"OpPrereqError\", [\"no ecode\"]]", GNT_ERROR_INVALID, "no ecode",
		       "OpPrereqError");
	assert_decoded("[\"OpPrereqError\", [\"odd\", \"resolver_error\"]]", GNT_ERROR_FAULT, "odd",
		       "OpPrereqError");
	assert_decoded("[\"JobLost\", [\"Can't load job file\"]]", GNT_ERROR_FAULT,
		       "Can't load job file", "JobLost");
	assert_decoded("[\"GenericError\", [\"Queue drained\"]]", GNT_ERROR_FAULT, "Queue drained",
		       "GenericError");
	assert_decoded("[\"OpExecError\", [\"Preceding opcode failed\"]]", GNT_ERROR_FAULT,
		       "Preceding opcode failed", "OpExecError");
	assert_decoded("[\"JobQueueFull\", []]", GNT_ERROR_FAULT, "JobQueueFull", "JobQueueFull");
	assert_decoded("[\"HypervisorError\", [\"a\", 2]]", GNT_ERROR_FAULT, "[\"a\",2]",
		       "HypervisorError");
	assert_decoded("\"Failed to parse request: 'args' is missing\"", GNT_ERROR_INVALID,
		       "Failed to parse request: 'args' is missing", NULL);
	assert_decoded("[1, 2]", GNT_ERROR_FAULT,
		       "unexpected error answer from the master daemon: [1,2]", NULL);
	assert_decoded("{\"a\": 1}", GNT_ERROR_FAULT,
		       "unexpected error answer from the master daemon: {\"a\":1}", NULL);

	/* and what the server encodes comes back the same */
	for (gint code = 0; code < GNT_ERROR_LAST; code++) {
		g_autoptr(GError) error = g_error_new(GNT_ERROR, code, "message %d", code);
		g_autoptr(JsonNode) node = gnt_luxi_encode_error(NULL, error);
		g_autoptr(GError) back = gnt_luxi_decode_error(node, NULL);

		g_assert_error(back, GNT_ERROR, code);
		g_assert_cmpstr(back->message, ==, error->message);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/luxi/framer/byte-by-byte", test_framer_byte_by_byte);
	g_test_add_func("/luxi/framer/chunk-boundaries", test_framer_chunk_boundaries);
	g_test_add_func("/luxi/framer/many-in-one-chunk", test_framer_many_in_one_chunk);
	g_test_add_func("/luxi/framer/growth", test_framer_growth);
	g_test_add_func("/luxi/framer/release-wipes", test_framer_release_wipes);
	g_test_add_func("/luxi/framer/size-limit", test_framer_size_limit);
	g_test_add_func("/luxi/framer/size-limit-unterminated",
			test_framer_size_limit_unterminated);
	g_test_add_func("/luxi/codec/nesting", test_nesting);
	g_test_add_func("/luxi/codec/parse-request", test_parse_request);
	g_test_add_func("/luxi/codec/parse-request-errors", test_parse_request_errors);
	g_test_add_func("/luxi/codec/build-response", test_build_response);
	g_test_add_func("/luxi/codec/control-characters-escaped", test_control_characters_escaped);
	g_test_add_func("/luxi/codec/request-round-trip", test_request_round_trip);
	g_test_add_func("/luxi/codec/parse-response", test_parse_response);
	g_test_add_func("/luxi/codec/encode-error", test_encode_error);
	g_test_add_func("/luxi/codec/decode-error", test_decode_error);
	return g_test_run();
}
