#pragma once

/* JSON helpers shared by the config and query tests. */

#include "gnt-json.h"

static inline JsonNode *
test_json_parse(const gchar *text)
{
	g_autoptr(GError) error = NULL;
	JsonNode *node = gnt_json_parse(text, -1, &error);

	g_assert_no_error(error);
	return node;
}

/* tests/data/@name, parsed. */
static inline JsonNode *
test_json_load(const gchar *name)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "data", name, NULL);
	g_autofree gchar *text = NULL;

	g_file_get_contents(path, &text, NULL, &error);
	g_assert_no_error(error);
	return test_json_parse(text);
}

/* Equal as JSON values (member order and 1 versus 1.0 do not count). */
static inline void
test_json_assert_equal(JsonNode *got, JsonNode *expected)
{
	g_autofree gchar *got_text = gnt_json_to_string(got);
	g_autofree gchar *expected_text = gnt_json_to_string(expected);

	if (!json_node_equal(got, expected))
		g_assert_cmpstr(got_text, ==, expected_text);
}

static inline void
test_json_assert_text(JsonNode *got, const gchar *expected)
{
	g_autoptr(JsonNode) want = test_json_parse(expected);

	test_json_assert_equal(got, want);
}

/* Exactly the same text: member order and number types count. */
static inline void
test_json_assert_same(JsonNode *got, JsonNode *expected)
{
	g_autofree gchar *got_text = gnt_json_to_string(got);
	g_autofree gchar *expected_text = gnt_json_to_string(expected);

	g_assert_cmpstr(got_text, ==, expected_text);
}

/* Object @node laid out as tests/data's larger JSON files are: one member a
 * line, in @node's order, each value on its line (for
 * gnt_test_golden_update()). */
static inline gchar *
test_json_golden_text(JsonNode *node)
{
	JsonObject *object = json_node_get_object(node);
	g_autoptr(GList) names = json_object_get_members(object); /* in order, unlike an iter */
	GString *text = g_string_new("{");

	for (GList *l = names; l != NULL; l = l->next) {
		g_autofree gchar *value =
			gnt_json_to_string(json_object_get_member(object, l->data));

		g_string_append_printf(text, "%s\n  \"%s\": %s", l == names ? "" : ",",
				       (const gchar *)l->data, value);
	}
	g_string_append(text, "\n}\n");
	return g_string_free(text, FALSE);
}
