/* The CLI library's output formats, against what Ganeti 3.0's Python prints
 * for the same data (the expected strings come from running cli.py). */
#include "gnt-cli.h"
#include "gnt-json.h"

static JsonNode *
parse(const gchar *text)
{
	g_autoptr(GError) error = NULL;
	JsonNode *node = gnt_json_parse(text, -1, &error);

	g_assert_no_error(error);
	return node;
}

static void
assert_py_str(const gchar *json, const gchar *expected)
{
	g_autoptr(JsonNode) node = parse(json);
	g_autofree gchar *text = gnt_cli_py_str(node);

	g_assert_cmpstr(text, ==, expected);
}

static void
test_py_str(void)
{
	assert_py_str("null", "None");
	assert_py_str("true", "True");
	assert_py_str("\"plain\"", "plain");
	assert_py_str("42", "42");
	assert_py_str("[\"a\", \"b'c\", 1.0, null, true, {\"x\": [1]}]",
		      "['a', \"b'c\", 1.0, None, True, {'x': [1]}]");
	assert_py_str("{\"k\": \"v\\n\"}", "{'k': 'v\\n'}");
	/* repr(float) */
	assert_py_str("1e-05", "1e-05");
	assert_py_str("1e16", "1e+16");
	assert_py_str("123456789012345678.0", "1.2345678901234568e+17");
	assert_py_str("0.1", "0.1");
	assert_py_str("2.5", "2.5");
	assert_py_str("1e22", "1e+22");
	assert_py_str("1.5e-07", "1.5e-07");
	assert_py_str("100.0", "100.0");
	assert_py_str("3.14159", "3.14159");
	assert_py_str("-0.5", "-0.5");
}

static void
test_time(void)
{
	g_autoptr(JsonNode) ts = parse("[1700000000, 500000]");
	g_autoptr(JsonNode) bad = parse("\"soon\"");
	g_autofree gchar *ctime = gnt_cli_format_ctime(ts);
	g_autofree gchar *stamp = gnt_cli_format_timestamp(ts);
	g_autofree gchar *plain = gnt_cli_format_time(1700000000, -1);
	g_autofree gchar *unknown = gnt_cli_format_timestamp(bad);

	/* TZ=UTC from the test environment */
	g_assert_cmpstr(ctime, ==, "Tue Nov 14 22:13:20 2023");
	g_assert_cmpstr(stamp, ==, "2023-11-14 22:13:20.500000");
	g_assert_cmpstr(plain, ==, "2023-11-14 22:13:20");
	g_assert_cmpstr(unknown, ==, "?");
}

static void
test_log_message(void)
{
	g_autoptr(JsonNode) text = parse("\"tab\\tnew\\nline \\u00e9\\u20ac\\u0007\"");
	g_autoptr(JsonNode) structured = parse("{\"a\": 1}");
	g_autofree gchar *safe = gnt_cli_format_log_message("message", text);
	g_autofree gchar *other = gnt_cli_format_log_message("remote-import", structured);

	g_assert_cmpstr(safe, ==, "tab\\tnew\\nline \\xe9\\u20ac\\x07");
	g_assert_cmpstr(other, ==, "{'a': 1}");
}

static void
test_timespec(void)
{
	const struct {
		const gchar *text;
		gint64 seconds;
	} good[] = {{"30", 30},	  {"30s", 30},	 {"5m", 300},
		    {"2h", 7200}, {"1d", 86400}, {"4w", 2419200}};
	const gchar *bad[] = {"", "s", "x", "1x", "1.5h"};

	for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
		g_autoptr(GError) error = NULL;
		gint64 seconds = 0;

		g_assert_true(gnt_cli_parse_timespec(good[i].text, &seconds, &error));
		g_assert_no_error(error);
		g_assert_cmpint(seconds, ==, good[i].seconds);
	}
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;
		gint64 seconds = 0;

		g_assert_false(gnt_cli_parse_timespec(bad[i], &seconds, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	}
}

static void
test_fields(void)
{
	const gchar *const defaults[] = {"id", "status", "summary", NULL};
	g_auto(GStrv) same = gnt_cli_parse_fields(NULL, defaults);
	g_auto(GStrv) more = gnt_cli_parse_fields("+priority,ops", defaults);
	g_auto(GStrv) other = gnt_cli_parse_fields("id,priority", defaults);
	g_autofree gchar *a = g_strjoinv(",", same);
	g_autofree gchar *b = g_strjoinv(",", more);
	g_autofree gchar *c = g_strjoinv(",", other);

	g_assert_cmpstr(a, ==, "id,status,summary");
	g_assert_cmpstr(b, ==, "id,status,summary,priority,ops");
	g_assert_cmpstr(c, ==, "id,priority");
}

static void
test_unit(void)
{
	const struct {
		gdouble mib;
		gchar unit;
		const gchar *text;
	} cases[] = {{512, 'h', "512M"},
		     {1536, 'h', "1.5G"},
		     {3 * 1048576.0, 'h', "3.0T"},
		     {1536, 'm', "1536"},
		     {1536, 'g', "1.5"}};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *text = gnt_cli_format_unit(cases[i].mib, cases[i].unit);
		g_assert_cmpstr(text, ==, cases[i].text);
	}
}

static gchar *
join_lines(GPtrArray *lines)
{
	g_ptr_array_add(lines, NULL);
	return g_strjoinv("\n", (gchar **)lines->pdata);
}

static GPtrArray *
two_rows(void)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);

	g_ptr_array_add(rows, g_strsplit("1|success|TEST_DELAY(1)", "|", -1));
	g_ptr_array_add(rows, g_strsplit("12|error|TEST_DUMMY", "|", -1));
	return rows;
}

static void
test_table(void)
{
	const GntCliColumn columns[] = {{"ID", TRUE}, {"Status", FALSE}, {"Summary", FALSE}};
	g_autoptr(GPtrArray) rows = two_rows();
	g_autoptr(GPtrArray) padded = gnt_cli_format_table(columns, 3, rows, TRUE, NULL);
	g_autoptr(GPtrArray) separated = gnt_cli_format_table(columns, 3, rows, FALSE, ":");
	g_autofree gchar *a = join_lines(padded);
	g_autofree gchar *b = join_lines(separated);

	/* FormatTable: numbers right-aligned, the last text column not padded */
	g_assert_cmpstr(a, ==,
			"ID Status  Summary\n"
			" 1 success TEST_DELAY(1)\n"
			"12 error   TEST_DUMMY");
	g_assert_cmpstr(b, ==, "1:success:TEST_DELAY(1)\n12:error:TEST_DUMMY");
}

static void
test_query_result(void)
{
	g_autoptr(JsonNode) response = parse(
		"{\"fields\": ["
		"{\"name\": \"id\", \"title\": \"ID\", \"kind\": \"number\", \"doc\": \"Job ID\"},"
		"{\"name\": \"archived\", \"title\": \"Archived\", \"kind\": \"bool\", \"doc\": \"\"},"
		"{\"name\": \"bogus\", \"title\": \"bogus\", \"kind\": \"unknown\", \"doc\": \"\"}],"
		"\"data\": [[[0, 7], [0, false], [1, null]], [[0, 8], [3, null], [1, null]]]}");
	g_autoptr(GError) error = NULL;
	gboolean unknown = FALSE;
	g_autoptr(GPtrArray) lines = gnt_cli_format_query_result(
		json_node_get_object(response), NULL, TRUE, NULL, &unknown, &error);
	g_autofree gchar *text = NULL;

	g_assert_no_error(error);
	g_assert_true(unknown);
	text = join_lines(lines);
	g_assert_cmpstr(text, ==, "ID Archived bogus\n 7 N        ??\n 8 -        ??");
}

static void
test_generic_info(void)
{
	g_autoptr(GntCliInfo) top = gnt_cli_info_new_dict();
	GntCliInfo *a = gnt_cli_info_new_dict();
	GntCliInfo *list = gnt_cli_info_new_list();
	g_autoptr(JsonNode) keys = parse("[\"p\", \"q\"]");
	g_autoptr(JsonNode)
		nested = parse("[\"e1\", [\"n1\", \"n2\"], {\"k\": \"v\", \"a\": null}]");
	g_autoptr(JsonNode) number = parse("2.0");
	g_autofree gchar *text = NULL;

	gnt_cli_info_add(a, "x", "g", gnt_cli_info_new_text("1"));
	gnt_cli_info_add(a, "long key", "g", gnt_cli_info_new_json(keys));
	gnt_cli_info_add(top, "a", NULL, a);
	gnt_cli_info_add(top, "b", NULL, gnt_cli_info_new_dict());
	gnt_cli_info_add(top, "c", NULL, gnt_cli_info_new_json(nested));
	gnt_cli_info_add_text(top, "d", "[1, message, hi]");
	gnt_cli_info_add(top, "e", NULL, gnt_cli_info_new_json(number));
	gnt_cli_info_add(top, "f", NULL, list);
	text = gnt_cli_info_format(top);
	/* cli.PrintGenericInfo of the same structure */
	g_assert_cmpstr(text, ==,
			"a: \n"
			"  x:        1\n"
			"  long key: \n"
			"    - p\n"
			"    - q\n"
			"b: \n"
			"c: \n"
			"  - e1\n"
			"  - - n1\n"
			"    - n2\n"
			"  - a: None\n"
			"    k: v\n"
			"d: [1, message, hi]\n"
			"e: 2.0\n"
			"f: "); /* rstrip("\n") keeps the blank after the key */
}

static void
assert_exception(const gchar *cls, const gchar *args_json, const gchar *expected,
		 gint expected_code)
{
	g_autoptr(JsonNode) args = parse(args_json);
	gint code = -1;
	g_autofree gchar *text = gnt_cli_format_exception(cls, json_node_get_array(args), &code);

	g_assert_cmpstr(text, ==, expected);
	g_assert_cmpint(code, ==, expected_code);
}

static void
test_format_error(void)
{
	assert_exception("OpPrereqError", "[\"boom\", \"wrong_input\"]",
			 "Failure: prerequisites not met for this operation:\n"
			 "error type: wrong_input, error details:\nboom",
			 1);
	assert_exception("OpPrereqError", "[\"boom\"]",
			 "Failure: prerequisites not met for this operation:\nboom", 1);
	assert_exception("OpExecError", "[\"boom\", \"x\"]",
			 "Failure: command execution error:\n('boom', 'x')", 1);
	assert_exception("JobLost", "[\"Job with id 5 lost\"]",
			 "Error checking job status: Job with id 5 lost", 1);
	assert_exception("JobCanceled", "[\"Job was canceled\"]",
			 "Unhandled Ganeti error: Job was canceled", 1);
	assert_exception("JobQueueFull", "[]",
			 "Failure: the job queue is full and doesn't accept new job submissions "
			 "until old jobs are archived",
			 1);
	assert_exception("ConfigurationError", "[\"bad\"]",
			 "Corrupt configuration file: bad\nAborting.", 2);
	assert_exception("HooksAbort",
			 "[[[\"node1\", \"hook\", \"\"], [\"node2\", \"h\", \"out\"]]]",
			 "Failure: hooks execution failed:\n"
			 "  node: node1, script: hook (no output)\n"
			 "  node: node2, script: h, output: out",
			 1);
	assert_exception("JobSubmittedException", "[17]", "JobID: 17", 0);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/cli-format/py-str", test_py_str);
	g_test_add_func("/cli-format/time", test_time);
	g_test_add_func("/cli-format/log-message", test_log_message);
	g_test_add_func("/cli-format/timespec", test_timespec);
	g_test_add_func("/cli-format/fields", test_fields);
	g_test_add_func("/cli-format/unit", test_unit);
	g_test_add_func("/cli-format/table", test_table);
	g_test_add_func("/cli-format/query-result", test_query_result);
	g_test_add_func("/cli-format/generic-info", test_generic_info);
	g_test_add_func("/cli-format/format-error", test_format_error);
	return g_test_run();
}
