#include <math.h>

#include <string.h>

#include "gnt-error.h"
#include "gnt-json-private.h"
#include "gnt-json.h"
#include "gnt-time.h"

static void
test_typed_getters(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) root = gnt_json_parse("{\"s\":\"x\",\"i\":3,\"d\":2.5,\"b\":true,"
						  "\"l\":[1],\"o\":{}}",
						  -1, &error);
	JsonObject *obj;
	const gchar *s = NULL;
	gint64 i = 0;
	gdouble d = 0;
	gboolean b = FALSE;
	JsonArray *l = NULL;
	JsonObject *o = NULL;

	g_assert_no_error(error);
	obj = json_node_get_object(root);
	g_assert_true(gnt_json_get_string(obj, "s", &s, &error));
	g_assert_cmpstr(s, ==, "x");
	g_assert_true(gnt_json_get_int(obj, "i", &i, &error));
	g_assert_cmpint(i, ==, 3);
	g_assert_true(gnt_json_get_double(obj, "i", &d, &error)); /* an integer is a number */
	g_assert_cmpfloat(d, ==, 3.0);
	g_assert_true(gnt_json_get_double(obj, "d", &d, &error));
	g_assert_cmpfloat(d, ==, 2.5);
	g_assert_true(gnt_json_get_bool(obj, "b", &b, &error));
	g_assert_true(b);
	g_assert_true(gnt_json_get_array(obj, "l", &l, &error));
	g_assert_cmpuint(json_array_get_length(l), ==, 1);
	g_assert_true(gnt_json_get_object(obj, "o", &o, &error));
	g_assert_no_error(error);
}

static void
test_wrong_types(void)
{
	g_autoptr(JsonNode) root = gnt_json_parse("{\"s\":1,\"d\":2.5}", -1, NULL);
	JsonObject *obj = json_node_get_object(root);
	const gchar *s = NULL;
	gint64 i = 0;

	{
		g_autoptr(GError) error = NULL;
		g_assert_false(gnt_json_get_string(obj, "s", &s, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_cmpstr(error->message, ==, "'s' must be a string, not integer");
	}
	{
		g_autoptr(GError) error = NULL;
		g_assert_false(gnt_json_get_int(obj, "d", &i, &error));
		g_assert_cmpstr(error->message, ==, "'d' must be an integer, not number");
	}
	{
		g_autoptr(GError) error = NULL;
		g_assert_false(gnt_json_get_int(obj, "missing", &i, &error));
		g_assert_cmpstr(error->message, ==, "'missing' is missing");
	}
}

static void
test_parse_errors(void)
{
	const gchar *bad[] = {"", "{", "[1,]", "{\"a\":}", "\xff\xfe"};

	for (guint n = 0; n < G_N_ELEMENTS(bad); n++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) node = gnt_json_parse(bad[n], -1, &error);
		g_assert_null(node);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	}
}

static void
test_control_chars_escaped(void)
{
	/* LUXI frames end with 0x03: a serialized string must never contain it */
	g_autoptr(JsonNode) node = gnt_json_node_new_string("a\003b\nc");
	g_autofree gchar *text = gnt_json_to_string(node);

	g_assert_null(strchr(text, '\003'));
	g_assert_null(strchr(text, '\n'));
}

static void
test_timestamps(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) ts = gnt_timestamp_to_json(1700000000123456);
	g_autoptr(JsonNode) none = gnt_timestamp_to_json(0);
	g_autofree gchar *text = gnt_json_to_string(ts);
	gint64 usec = 0;

	g_assert_cmpstr(text, ==, "[1700000000,123456]");
	g_assert_true(JSON_NODE_HOLDS_NULL(none));
	g_assert_true(gnt_timestamp_from_json(ts, &usec, &error));
	g_assert_cmpint(usec, ==, 1700000000123456);
	g_assert_true(gnt_timestamp_from_json(none, &usec, &error));
	g_assert_cmpint(usec, ==, 0);
}

static void
assert_serializes(JsonNode *node, const gchar *expected)
{
	g_autofree gchar *text = gnt_json_to_string(node);
	g_autoptr(JsonNode) back = gnt_json_parse(text, -1, NULL);

	g_assert_cmpstr(text, ==, expected);
	g_assert_nonnull(back); /* always valid JSON */
}

static void
test_doubles_read_back(void)
{
	const gdouble values[] = {1e17, 1e308, 5e-324, 0.1, 3.0, -2.5, 1234567.5};
	const gchar *texts[] = {"1e+17", "1e+308",   "4.94065645841247e-324", "0.1", "3.0",
				"-2.5",	 "1234567.5"};

	for (guint i = 0; i < G_N_ELEMENTS(values); i++) {
		g_autoptr(JsonNode) node = gnt_json_node_new_double(values[i]);
		g_autofree gchar *text = gnt_json_to_string(node);
		g_autoptr(JsonNode) back = gnt_json_parse(text, -1, NULL);
		g_assert_cmpstr(text, ==, texts[i]);
		g_assert_cmpfloat(json_node_get_double(back), ==, values[i]);
	}
	{
		g_autoptr(JsonNode) inf = gnt_json_node_new_double(INFINITY);
		assert_serializes(inf, "null"); /* JSON has no infinity */
	}
}

static void
test_serialize_shapes(void)
{
	g_autoptr(JsonNode) node = gnt_json_parse(
		"{\"b\": [1, true, null, \"q\\\"\\\\\\u001f\u00e9\"], \"a\": {}}", -1, NULL);

	/* members keep their order; strings escape quotes, backslashes and
	 * every control byte; UTF-8 passes through */
	assert_serializes(node, "{\"b\":[1,true,null,\"q\\\"\\\\\\u001f\u00e9\"],\"a\":{}}");
}

static void
test_parse_error_quotes_nothing(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse("{\"pw\": hunter2}", -1, &error);

	g_assert_null(node);
	g_assert_cmpstr(error->message, ==, "invalid JSON at line 1, column 14");
}

/* json-glib would cut "nul1\u0000junk" to "nul1": refused, in keys too;
 * an escaped backslash before "u0000" is no NUL */
/* Integers that do not fit 64 bits are refused, not wrapped as json-glib
 * would (2^64 + 50 would read as 50); the limits themselves, doubles and
 * long digit runs inside strings are read. */
static void
test_wide_integers_refused(void)
{
	const gchar *refused[] = {
		"[18446744073709551666]",
		"[9223372036854775808]",
		"{\"p\": -9223372036854775809}",
		"[1, \"x\\\"\", 99999999999999999999]",
	};
	const gchar *read[] = {
		"[9223372036854775807]",      "[-9223372036854775808]",
		"[\"18446744073709551666\"]", "[1.8446744073709551666e19]",
		"[18446744073709551666.0]",
	};

	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) node = gnt_json_parse(refused[i], -1, &error);

		g_assert_null(node);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_cmpstr(error->message, ==,
				"invalid JSON: an integer does not fit 64 bits");
	}
	for (guint i = 0; i < G_N_ELEMENTS(read); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) node = gnt_json_parse(read[i], -1, &error);

		g_assert_no_error(error);
		g_assert_nonnull(node);
	}
}

static void
test_nul_refused(void)
{
	const gchar *refused[] = {
		"[\"nul1\\u0000junk\"]",
		"{\"a\\u0000b\": 1}",
		"{\"k\": \"\\\\\\u0000\"}",
	};

	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) node = gnt_json_parse(refused[i], -1, &error);

		g_assert_null(node);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_cmpstr(error->message, ==,
				"invalid JSON: a string holds a NUL character (\\u0000)");
	}
	{
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) node = gnt_json_parse("[\"a\\\\u0000\"]", -1, &error);

		g_assert_no_error(error);
		g_assert_cmpstr(json_array_get_string_element(json_node_get_array(node), 0), ==,
				"a\\u0000");
	}
}

static void
test_nesting_limit(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *deep = g_strnfill(100000, '[');
	g_autoptr(JsonNode) node = gnt_json_parse(deep, -1, &error);

	g_assert_null(node);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

static void
test_deep_copy_shares_nothing(void)
{
	g_autoptr(JsonNode) node = gnt_json_parse("{\"l\": [1, {\"s\": \"x\"}]}", -1, NULL);
	g_autoptr(JsonNode) copy = gnt_json_node_deep_copy(node);
	JsonArray *orig_list = json_object_get_array_member(json_node_get_object(node), "l");
	JsonArray *copy_list = json_object_get_array_member(json_node_get_object(copy), "l");
	g_autofree gchar *a = gnt_json_to_string(node);
	g_autofree gchar *b = gnt_json_to_string(copy);

	g_assert_cmpstr(a, ==, b);
	g_assert_true(orig_list != copy_list);
	g_assert_true(json_array_get_object_element(orig_list, 1) !=
		      json_array_get_object_element(copy_list, 1));
}

/* The same tree: node and value types, values (doubles bit for bit),
 * member order, and (@parents) each child's parent its container. */
static gboolean
same_tree(JsonNode *a, JsonNode *b, gboolean parents)
{
	if (json_node_get_node_type(a) != json_node_get_node_type(b))
		return FALSE;
	switch (json_node_get_node_type(a)) {
	case JSON_NODE_NULL:
		return TRUE;
	case JSON_NODE_VALUE:
		if (json_node_get_value_type(a) != json_node_get_value_type(b))
			return FALSE;
		switch (json_node_get_value_type(a)) {
		case G_TYPE_INT64:
			return json_node_get_int(a) == json_node_get_int(b);
		case G_TYPE_BOOLEAN:
			return json_node_get_boolean(a) == json_node_get_boolean(b);
		case G_TYPE_STRING:
			return strcmp(json_node_get_string(a), json_node_get_string(b)) == 0;
		case G_TYPE_DOUBLE: {
			gdouble x = json_node_get_double(a);
			gdouble y = json_node_get_double(b);

			return memcmp(&x, &y, sizeof(x)) == 0;
		}
		default:
			return FALSE;
		}
	case JSON_NODE_ARRAY: {
		JsonArray *x = json_node_get_array(a);
		JsonArray *y = json_node_get_array(b);

		if (json_array_get_length(x) != json_array_get_length(y))
			return FALSE;
		for (guint i = 0; i < json_array_get_length(x); i++) {
			JsonNode *ea = json_array_get_element(x, i);
			JsonNode *eb = json_array_get_element(y, i);

			if (parents &&
			    (json_node_get_parent(ea) != a || json_node_get_parent(eb) != b))
				return FALSE;
			if (!same_tree(ea, eb, parents))
				return FALSE;
		}
		return TRUE;
	}
	case JSON_NODE_OBJECT: {
		JsonObjectIter ia;
		JsonObjectIter ib;
		const gchar *ka;
		const gchar *kb;
		JsonNode *ma;
		JsonNode *mb;

		json_object_iter_init_ordered(&ia, json_node_get_object(a));
		json_object_iter_init_ordered(&ib, json_node_get_object(b));
		for (;;) {
			gboolean more_a = json_object_iter_next_ordered(&ia, &ka, &ma);
			gboolean more_b = json_object_iter_next_ordered(&ib, &kb, &mb);

			if (more_a != more_b)
				return FALSE;
			if (!more_a)
				return TRUE;
			if (strcmp(ka, kb) != 0 || !same_tree(ma, mb, parents))
				return FALSE;
			if (parents &&
			    (json_node_get_parent(ma) != a || json_node_get_parent(mb) != b))
				return FALSE;
		}
	}
	default:
		return FALSE;
	}
}

/* gnt_json_parse() (and the read-only variant) answer @text exactly as
 * json-glib's parser does: the same tree or the same error. */
static void
assert_reads_like_json_glib(const gchar *text, gssize len)
{
	g_autoptr(GError) expected_error = NULL;
	g_autoptr(JsonNode) expected = gnt_json_parse_json_glib(text, len, &expected_error);

	for (guint readonly = 0; readonly < 2; readonly++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) got = readonly ? gnt_json_parse_readonly(text, len, &error)
						   : gnt_json_parse(text, len, &error);

		if (expected == NULL) {
			g_assert_null(got);
			g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
			g_assert_cmpstr(error->message, ==, expected_error->message);
			continue;
		}
		g_assert_no_error(error);
		g_assert_nonnull(got);
		if (!same_tree(got, expected, !readonly)) {
			g_autofree gchar *a = gnt_json_to_string(got);
			g_autofree gchar *b = gnt_json_to_string(expected);

			g_error("'%s' read as %s, json-glib reads %s", text, a, b);
		}
	}
}

/* The fast reader gives json-glib's tree for valid JSON and leaves the rest
 * (and json-glib's leniencies and quirks) to json-glib. */
static void
test_reader_matches_json_glib(void)
{
	static const gchar *const texts[] = {
		"5",
		"\"x\"",
		"true",
		"null",
		"[]",
		"{}",
		" [ 1 , 2 ] ",
		"\t{\"x\" : \r\n true}\n",
		"[-0]",
		"[-0.0]",
		"[1E5]",
		"[1e-7]",
		"[1.0]",
		"[-1.5E+3]",
		"[123.456e10]",
		"[2.2250738585072014e-308]",
		"[5e-324]",
		"[1.7976931348623157e308]",
		"[123456789012345678]",
		"[-123456789012345678]",
		"[1234567890123456789]",
		"[9223372036854775807]",
		"[-9223372036854775808]",
		"[9223372036854775808]",
		"[99999999999999999999]",
		"[1e400]",
		"[1.5e-400]",
		"{\"a\":1,\"a\":2}",
		"{\"a\":1,\"b\":2,\"a\":3}",
		"{\"\":1}",
		"{\"a\":{\"b\":[{},[],{\"c\":null}]}}",
		"[\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"]",
		"[\"\\u00e9\\u20ac\\u0001\\u001f\\u007f\\u0080\"]",
		"[\"\\uffff\\ufffe\\u00E9\"]",
		"[\"\\ud83d\\ude00\"]",
		"\"\\ud800\\udc00\"",
		"[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]",
		/* json-glib's leniencies and quirks: the same answer either way
		 * (not "[1][2]": json-glib keeps the first and leaks the second,
		 * which the valgrind setup would flag) */
		"[1,]",
		"{\"a\":1,}",
		"[1 2]",
		"/* c */[1]",
		"// c\n[1]",
		"[01]",
		"[.5]",
		"[1.]",
		"[+1]",
		"[- 1]",
		"[0x10]",
		"['a']",
		"{a:1}",
		"[\"\\x41\"]",
		"[\"a\nb\"]",
		"[\"tab\there\"]",
		"[\"\x7f\"]",
		"[\"a\\u0000b\"]",
		"[\"\\ud800\"]",
		"[\"\\udc00\"]",
		"[\"\\ud83dx\"]",
		"[1] x",
		"",
		"  ",
		"\f[1]",
		"[1]\v",
		"[NaN]",
		"[True]",
		"[tru]",
		"[nulll]",
		"[\"a\" \"b\"]",
		"{,}",
		"[,]",
		"{\"a\"}",
		"[-]",
		"[-a]",
		"[0e]",
		"[1e+]",
		"[\"\\u12\"]",
		"[\"\\q\"]",
		"[\"abc",
		"[",
		"{",
		"\xff\xfe",
	};
	static const gchar alphabet[] = "{}[]\",:0123456789-+.eE \\utfnrlsa\x7f\x01";
	static const gchar seed[] =
		"{\"fields\":[{\"name\":\"name\",\"kind\":\"text\"}],\"data\":[[[0,\"a\\\"b\\\\c"
		"\\u00e9\"],[2,null],[0,1.5e3],[0,-12],[0,true],[0,[1,2,{\"x\":\"y\"}]],"
		"[0,\"fake\"],[0,\"fake\"],[0,\"fake\"]]]}";
	g_autoptr(GRand) rand = g_rand_new_with_seed(3);

	for (guint i = 0; i < G_N_ELEMENTS(texts); i++)
		assert_reads_like_json_glib(texts[i], -1);
	assert_reads_like_json_glib("[1,\0002]", 6); /* a NUL byte */
	assert_reads_like_json_glib(seed, -1);
	/* and what a few random changes make of a typical answer */
	for (guint i = 0; i < 20000; i++) {
		g_autofree gchar *text = g_strdup(seed);
		guint n = (guint)g_rand_int_range(rand, 1, 4);

		for (guint m = 0; m < n; m++)
			text[g_rand_int_range(rand, 0, sizeof(seed) - 1)] =
				alphabet[g_rand_int_range(rand, 0, sizeof(alphabet) - 1)];
		assert_reads_like_json_glib(text, -1);
	}
}

/* A read-only answer shares a repeated short value from its second
 * sighting on, and nothing else. */
static void
test_readonly_shares_repeated_values(void)
{
	g_autoptr(JsonNode) root = gnt_json_parse_readonly(
		"{\"data\":[[[0,\"a\"],[0,\"fake\"]],[[0,\"b\"],[0,\"fake\"]],"
		"[[0,\"c\"],[0,\"fake\"]],[[0,\"d\"],[0,\"fake\"]]],\"o\":{},\"p\":{}}",
		-1, NULL);
	JsonObject *obj = json_node_get_object(root);
	JsonArray *data = json_object_get_array_member(obj, "data");
	JsonNode *cells[4];
	JsonNode *names[4];

	for (guint i = 0; i < 4; i++) {
		JsonArray *row = json_array_get_array_element(data, i);

		names[i] = json_array_get_element(row, 0);
		cells[i] = json_array_get_element(row, 1);
	}
	/* [0,"fake"] from the second on; each name's cell its own */
	g_assert_true(cells[1] == cells[2] && cells[2] == cells[3]);
	g_assert_true(cells[0] != cells[1]);
	g_assert_true(names[0] != names[1] && names[1] != names[2] && names[2] != names[3]);
	/* so is the 0 inside them */
	g_assert_true(json_array_get_element(json_node_get_array(names[2]), 0) ==
		      json_array_get_element(json_node_get_array(names[3]), 0));
	/* objects never are */
	g_assert_true(json_object_get_object_member(obj, "o") !=
		      json_object_get_object_member(obj, "p"));
}

/* The append functions write what gnt_json_to_string() writes. */
static void
test_append(void)
{
	const gint64 ints[] = {0, -1, 7, G_MAXINT64, G_MININT64, 1000000};
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GString) controls = g_string_new("a\"b\\c/\x7f\xc3\xa9");

	for (guint i = 0; i < G_N_ELEMENTS(ints); i++) {
		g_autoptr(JsonNode) node = gnt_json_node_new_int(ints[i]);
		g_autofree gchar *text = gnt_json_to_string(node);

		g_string_truncate(out, 0);
		gnt_json_append_int(out, ints[i]);
		g_assert_cmpstr(out->str, ==, text);
	}
	for (gchar c = 1; c < 0x20; c++)
		g_string_append_c(controls, c);
	{
		g_autoptr(JsonNode) node = gnt_json_node_new_string(controls->str);
		g_autofree gchar *text = gnt_json_to_string(node);

		g_string_truncate(out, 0);
		gnt_json_append_string(out, controls->str);
		g_assert_cmpstr(out->str, ==, text);
		g_assert_cmpstr(text, ==,
				"\"a\\\"b\\\\c/\x7f\xc3\xa9\\u0001\\u0002\\u0003\\u0004\\u0005"
				"\\u0006\\u0007\\u0008\\t\\n\\u000b\\u000c\\r\\u000e\\u000f"
				"\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018"
				"\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\"");
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/json/typed-getters", test_typed_getters);
	g_test_add_func("/json/wrong-types", test_wrong_types);
	g_test_add_func("/json/parse-errors", test_parse_errors);
	g_test_add_func("/json/control-chars-escaped", test_control_chars_escaped);
	g_test_add_func("/json/timestamps", test_timestamps);
	g_test_add_func("/json/doubles-read-back", test_doubles_read_back);
	g_test_add_func("/json/serialize-shapes", test_serialize_shapes);
	g_test_add_func("/json/parse-error-quotes-nothing", test_parse_error_quotes_nothing);
	g_test_add_func("/json/nesting-limit", test_nesting_limit);
	g_test_add_func("/json/nul-refused", test_nul_refused);
	g_test_add_func("/json/wide-integers-refused", test_wide_integers_refused);
	g_test_add_func("/json/deep-copy-shares-nothing", test_deep_copy_shares_nothing);
	g_test_add_func("/json/reader-matches-json-glib", test_reader_matches_json_glib);
	g_test_add_func("/json/readonly-shares-repeated-values",
			test_readonly_shares_repeated_values);
	g_test_add_func("/json/append", test_append);
	return g_test_run();
}
