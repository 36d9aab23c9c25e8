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

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/json/typed-getters", test_typed_getters);
	g_test_add_func("/json/wrong-types", test_wrong_types);
	g_test_add_func("/json/parse-errors", test_parse_errors);
	g_test_add_func("/json/control-chars-escaped", test_control_chars_escaped);
	g_test_add_func("/json/timestamps", test_timestamps);
	return g_test_run();
}
