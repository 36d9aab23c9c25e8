#include "gnt-secret.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-secret-dict.h"

static void
test_value_and_copy(void)
{
	g_autoptr(GntSecret) secret = gnt_secret_new("hunter2", -1);
	g_autoptr(GntSecret) copy = gnt_secret_copy(secret);
	g_autoptr(GntSecret) partial = gnt_secret_new("abcdef", 3);

	g_assert_cmpstr(gnt_secret_get(secret), ==, "hunter2");
	g_assert_cmpuint(gnt_secret_get_length(secret), ==, 7);
	g_assert_cmpstr(gnt_secret_get(copy), ==, "hunter2");
	g_assert_true(gnt_secret_get(copy) != gnt_secret_get(secret));
	g_assert_cmpstr(gnt_secret_get(partial), ==, "abc");
}

static void
test_large_value(void)
{
	g_autofree gchar *big = g_strnfill(10000, 'k');
	g_autoptr(GntSecret) secret = gnt_secret_new(big, -1);

	g_assert_cmpuint(gnt_secret_get_length(secret), ==, 10000);
	g_assert_cmpint(memcmp(gnt_secret_get(secret), big, 10000), ==, 0);
}

static void
test_wipe_string(void)
{
	gchar buf[] = "top-secret";

	gnt_secret_wipe_string(buf);
	for (gsize i = 0; i < sizeof(buf); i++)
		g_assert_cmpint(buf[i], ==, 0);
	gnt_secret_wipe_string(NULL); /* harmless */
}

static GntSecretDict *
dict_new(const gchar *json)
{
	g_autoptr(GntSecret) text = gnt_secret_new(json, -1);
	g_autoptr(GError) error = NULL;
	GntSecretDict *dict = gnt_secret_dict_new_from_json(text, &error);

	g_assert_no_error(error);
	return dict;
}

static void
test_dict(void)
{
	g_autoptr(GntSecretDict) dict = dict_new("{\"b\": \"two\", \"a\": \"one\"}");
	g_autoptr(GPtrArray) names = gnt_secret_dict_dup_names(dict);
	static const gchar *const drop[] = {"a", NULL};
	g_autoptr(GntSecretDict) kept = gnt_secret_dict_copy_without(dict, drop);
	g_autoptr(GntSecret) not_object = gnt_secret_new("[\"x\"]", -1);
	g_autoptr(GntSecret) not_string = gnt_secret_new("{\"n\": 1}", -1);
	g_autoptr(GError) error = NULL;

	g_assert_cmpuint(names->len, ==, 2);
	g_assert_cmpstr(names->pdata[0], ==, "a");
	g_assert_cmpstr(gnt_secret_dict_lookup(dict, "b"), ==, "two");
	g_assert_null(gnt_secret_dict_lookup(dict, "c"));
	g_assert_cmpuint(gnt_secret_dict_size(kept), ==, 1);
	g_assert_false(gnt_secret_dict_contains(kept, "a"));
	gnt_secret_dict_set(kept, "b", "three");
	g_assert_cmpstr(gnt_secret_dict_lookup(kept, "b"), ==, "three");
	g_assert_cmpstr(gnt_secret_dict_lookup(dict, "b"), ==, "two");

	g_assert_null(gnt_secret_dict_new_from_json(not_object, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	g_assert_null(gnt_secret_dict_new_from_json(not_string, &error));
	g_assert_nonnull(strstr(error->message, "n"));
}

/* Placeholders in public JSON, filled: the result is the JSON the values
 * would have made, escapes included. */
static void
test_dict_fill(void)
{
	g_autoptr(GntSecretDict)
		dict = dict_new("{\"pw\": \"q\\\"\\\\\\n\\u0001\u00e9\", \"k\": \"v\"}");
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(JsonObject) params = json_object_new();
	g_autoptr(JsonNode) node = NULL;
	g_autofree gchar *text = NULL;
	g_autoptr(GntSecret) body = NULL;
	g_autoptr(GntSecret) same = NULL;
	g_autoptr(JsonNode) parsed = NULL;
	g_autoptr(GError) error = NULL;
	JsonArray *out;
	JsonObject *got;

	json_object_set_string_member(params, "public", "p");
	json_object_set_member(params, "pw", gnt_secret_dict_placeholder_value("pw"));
	json_object_set_member(params, "gone", gnt_secret_dict_placeholder_value("gone"));
	json_array_add_object_element(args, json_object_ref(params));
	json_array_add_element(args, gnt_secret_dict_placeholder_all());
	json_array_add_string_element(args, "\001gantry-secretive");
	node = gnt_json_node_new_array(json_array_ref(args));
	text = gnt_json_to_string(node);
	g_assert_null(strstr(text, "\"v\""));

	body = gnt_secret_dict_fill(dict, text, &error);
	g_assert_no_error(error);
	parsed = gnt_json_parse(gnt_secret_get(body), -1, &error);
	g_assert_no_error(error);
	out = json_node_get_array(parsed);
	got = json_array_get_object_element(out, 0);
	g_assert_cmpstr(json_object_get_string_member(got, "pw"), ==, "q\"\\\n\001\u00e9");
	g_assert_cmpstr(json_object_get_string_member(got, "public"), ==, "p");
	g_assert_true(json_object_get_null_member(got, "gone"));
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(out, 1), "k"),
			==, "v");
	g_assert_cmpuint(json_object_get_size(json_array_get_object_element(out, 1)), ==, 2);
	/* a string that only starts like a placeholder stays */
	g_assert_cmpstr(json_array_get_string_element(out, 2), ==, "\001gantry-secretive");

	same = gnt_secret_dict_fill(dict, "[1]", &error);
	g_assert_cmpstr(gnt_secret_get(same), ==, "[1]");
}

static void
test_dict_fill_refuses_bad_utf8(void)
{
	g_autoptr(GntSecretDict) dict = gnt_secret_dict_new();
	g_autoptr(GError) error = NULL;

	gnt_secret_dict_set(dict, "bad", "\xff");
	g_assert_null(gnt_secret_dict_fill(dict, "[]", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/secret/value-and-copy", test_value_and_copy);
	g_test_add_func("/secret/large-value", test_large_value);
	g_test_add_func("/secret/wipe-string", test_wipe_string);
	g_test_add_func("/secret/dict", test_dict);
	g_test_add_func("/secret/dict-fill", test_dict_fill);
	g_test_add_func("/secret/dict-fill-refuses-bad-utf8", test_dict_fill_refuses_bad_utf8);
	return g_test_run();
}
