#include <math.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-time.h"

static void
test_typed_getters(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) root = gnt_json_parse("{\"s\":\"x\",\"i\":3,\"d\":2.5,\"b\":true,"
						  "\"l\":[1],\"o\":{}}", -1, &error);
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
	const gchar *texts[] = {"1e+17", "1e+308", "4.94065645841247e-324", "0.1", "3.0",
				"-2.5", "1234567.5"};

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
	g_test_add_func("/json/deep-copy-shares-nothing", test_deep_copy_shares_nothing);
	return g_test_run();
}
