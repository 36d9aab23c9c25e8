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
