#include <string.h>

#include "config-test-json.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-query.h"

/* A small resource to query: machines with a name, a size, a list of tags... */
typedef struct {
	const gchar *name;
	gint64 size;
	gboolean up;
	const gchar *tags; /* comma-separated */
	gdouble ratio;
	gint64 ctime_sec;
	gint64 id;
	gboolean offline;
} Machine;

static const Machine machines[] = {
	{"alpha.example.com", 10, TRUE, "web,prod", 0.5, 1700000000, 7, FALSE},
	{"beta.example.com", 20, FALSE, "db", 1.5, 1700000100, 8, FALSE},
	{"gamma.example.org", 30, TRUE, "", 2.5, 1700000200, 9, TRUE},
};

static JsonNode *
get_name(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_string(((const Machine *)item)->name);
}

static JsonNode *
get_size(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_int(((const Machine *)item)->size);
}

static JsonNode *
get_up(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_bool(((const Machine *)item)->up);
}

static JsonNode *
get_tags(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	g_auto(GStrv) tags = g_strsplit(((const Machine *)item)->tags, ",", -1);
	JsonArray *list = json_array_new();

	for (guint i = 0; tags[i] != NULL; i++) {
		if (tags[i][0] != '\0')
			json_array_add_string_element(list, tags[i]);
	}
	return gnt_json_node_new_array(list);
}

static JsonNode *
get_ratio(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_double(((const Machine *)item)->ratio);
}

static JsonNode *
get_ctime(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonArray *pair = json_array_new();

	json_array_add_int_element(pair, ((const Machine *)item)->ctime_sec);
	json_array_add_int_element(pair, 500000);
	return gnt_json_node_new_array(pair);
}

static JsonNode *
get_id(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_int(((const Machine *)item)->id);
}

static JsonNode *
get_load(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	if (((const Machine *)item)->offline) {
		*status = GNT_QUERY_STATUS_OFFLINE;
		return NULL;
	}
	return gnt_json_node_new_int(GPOINTER_TO_INT(user_data));
}

/* Two fields also write their text directly, as a listing's fields do. */
static void
write_name(gconstpointer item, gpointer user_data, GString *out, GntQueryStatus *status)
{
	gnt_json_append_string(out, ((const Machine *)item)->name);
}

static void
write_load(gconstpointer item, gpointer user_data, GString *out, GntQueryStatus *status)
{
	if (((const Machine *)item)->offline) {
		*status = GNT_QUERY_STATUS_OFFLINE;
		return;
	}
	gnt_json_append_int(out, GPOINTER_TO_INT(user_data));
}

static const GntQueryField machine_fields[] = {
	{"name", "Name", GNT_QUERY_KIND_TEXT, GNT_QUERY_FLAG_HOSTNAME, "Machine name", get_name,
	 write_name},
	{"size", "Size", GNT_QUERY_KIND_UNIT, GNT_QUERY_FLAG_NONE, "Disk size", get_size},
	{"up", "Up", GNT_QUERY_KIND_BOOL, GNT_QUERY_FLAG_NONE, "Whether it runs", get_up},
	{"tags", "Tags", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_NONE, "Tags", get_tags},
	{"ratio", "Ratio", GNT_QUERY_KIND_FLOAT, GNT_QUERY_FLAG_NONE, "A ratio", get_ratio},
	{"ctime", "CTime", GNT_QUERY_KIND_OTHER, GNT_QUERY_FLAG_SPLIT_TIMESTAMP, "Created",
	 get_ctime},
	{"id", "ID", GNT_QUERY_KIND_NUMBER, GNT_QUERY_FLAG_JOB_ID, "Job-like ID", get_id},
	{"load", "Load", GNT_QUERY_KIND_NUMBER, GNT_QUERY_FLAG_NONE, "Live load", get_load,
	 write_load},
	{NULL},
};

static GntQuery *
query_new(const gchar *fields, const gchar *filter, GError **error)
{
	g_autoptr(JsonNode) fields_node = fields != NULL ? test_json_parse(fields) : NULL;
	g_autoptr(JsonNode) filter_node = filter != NULL ? test_json_parse(filter) : NULL;

	return gnt_query_new(machine_fields,
			     fields_node != NULL ? json_node_get_array(fields_node) : NULL,
			     filter_node, error);
}

/* Names of the machines matching @filter, comma-separated. */
static gchar *
matching(const gchar *filter)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntQuery) query = query_new("[]", filter, &error);
	g_autoptr(GString) names = g_string_new(NULL);

	g_assert_no_error(error);
	for (guint i = 0; i < G_N_ELEMENTS(machines); i++) {
		if (!gnt_query_matches(query, &machines[i], GINT_TO_POINTER(3)))
			continue;
		if (names->len > 0)
			g_string_append_c(names, ',');
		g_string_append_len(names, machines[i].name,
				    strchr(machines[i].name, '.') - machines[i].name);
	}
	return g_string_free(g_steal_pointer(&names), FALSE);
}

static void
test_kinds(void)
{
	g_assert_cmpstr(gnt_query_kind_to_string(GNT_QUERY_KIND_UNKNOWN), ==, "unknown");
	g_assert_cmpstr(gnt_query_kind_to_string(GNT_QUERY_KIND_TEXT), ==, "text");
	g_assert_cmpstr(gnt_query_kind_to_string(GNT_QUERY_KIND_BOOL), ==, "bool");
	g_assert_cmpstr(gnt_query_kind_to_string(GNT_QUERY_KIND_NUMBER), ==, "number");
	g_assert_cmpstr(gnt_query_kind_to_string(GNT_QUERY_KIND_FLOAT), ==, "float");
	g_assert_cmpstr(gnt_query_kind_to_string(GNT_QUERY_KIND_UNIT), ==, "unit");
	g_assert_cmpstr(gnt_query_kind_to_string(GNT_QUERY_KIND_TIMESTAMP), ==, "timestamp");
	g_assert_cmpstr(gnt_query_kind_to_string(GNT_QUERY_KIND_OTHER), ==, "other");
	g_assert_true(gnt_query_field_lookup(machine_fields, "size") == &machine_fields[1]);
	g_assert_null(gnt_query_field_lookup(machine_fields, "nope"));
}

static void
test_fields_response(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) names = test_json_parse("[\"size\", \"nope\", \"name\"]");
	g_autoptr(JsonNode) empty = test_json_parse("[]");
	g_autoptr(JsonNode) bad = test_json_parse("[\"size\", 3]");
	g_autoptr(JsonNode) some =
		gnt_query_fields_response(machine_fields, json_node_get_array(names), &error);
	g_autoptr(JsonNode) all = gnt_query_fields_response(machine_fields, NULL, &error);
	g_autoptr(JsonNode) all2 =
		gnt_query_fields_response(machine_fields, json_node_get_array(empty), &error);
	JsonArray *defs;

	g_assert_no_error(error);
	test_json_assert_text(some,
			      "{\"fields\": ["
			      "{\"name\": \"size\", \"title\": \"Size\", \"kind\": \"unit\","
			      " \"doc\": \"Disk size\"},"
			      "{\"name\": \"nope\", \"title\": \"nope\", \"kind\": \"unknown\","
			      " \"doc\": \"Unknown field 'nope'\"},"
			      "{\"name\": \"name\", \"title\": \"Name\", \"kind\": \"text\","
			      " \"doc\": \"Machine name\"}]}");
	defs = json_object_get_array_member(json_node_get_object(all), "fields");
	g_assert_cmpuint(json_array_get_length(defs), ==, G_N_ELEMENTS(machine_fields) - 1);
	g_assert_true(json_node_equal(all, all2));

	g_assert_null(gnt_query_fields_response(machine_fields, json_node_get_array(bad), &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "field name 1 must be a string, not integer");
}

static const struct {
	const gchar *filter;
	const gchar *expected;
} operator_cases[] = {
	{"null", "alpha,beta,gamma"},
	/* equality: "=" is the legacy alias; hostnames match by component */
	{"[\"==\", \"size\", 20]", "beta"},
	{"[\"=\", \"size\", 20]", "beta"},
	{"[\"==\", \"size\", 20.0]", "beta"}, /* an integral float is an integer */
	{"[\"==\", \"name\", \"beta.example.com\"]", "beta"},
	{"[\"==\", \"name\", \"BETA\"]", "beta"},
	{"[\"==\", \"name\", \"beta.example\"]", "beta"},
	{"[\"==\", \"name\", \"bet\"]", ""},
	{"[\"!=\", \"name\", \"alpha\"]", "beta,gamma"},
	{"[\"!=\", \"size\", 10]", "beta,gamma"},
	/* ordering: numbers with numbers, strings with strings */
	{"[\"<\", \"size\", 20]", "alpha"},
	{"[\"<=\", \"size\", 20]", "alpha,beta"},
	{"[\">\", \"size\", 20]", "gamma"},
	{"[\">=\", \"size\", 20]", "beta,gamma"},
	{"[\"<\", \"name\", \"b\"]", "alpha"},
	{"[\">=\", \"name\", \"beta.example.com\"]", "beta,gamma"},
	{"[\">\", \"ratio\", 1]", "beta,gamma"},
	{"[\"==\", \"ratio\", 0]", ""},
	/* mismatched types compare false, both ways */
	{"[\"==\", \"size\", \"20\"]", ""},
	{"[\"<\", \"name\", 5]", ""},
	{"[\">=\", \"name\", 5]", ""},
	{"[\"!=\", \"size\", \"20\"]", "alpha,beta,gamma"},
	/* split timestamps compare as seconds */
	{"[\">\", \"ctime\", 1700000100]", "beta,gamma"},
	{"[\"<\", \"ctime\", 1700000100]", "alpha"},
	{"[\"==\", \"ctime\", 1700000100]", ""},
	/* job IDs may be given as decimal strings */
	{"[\"==\", \"id\", \"8\"]", "beta"},
	{"[\"==\", \"id\", 8]", "beta"},
	/* truth, regular expressions, list membership */
	{"[\"?\", \"up\"]", "alpha,gamma"},
	{"[\"?\", \"tags\"]", "alpha,beta"},
	{"[\"?\", \"size\"]", "alpha,beta,gamma"},
	{"[\"=~\", \"name\", \"^[ab]\"]", "alpha,beta"},
	{"[\"=~\", \"name\", \"\\\\.org$\"]", "gamma"},
	{"[\"=~\", \"name\", \"example\"]", "alpha,beta,gamma"},
	{"[\"=~\", \"size\", \"1\"]", ""},
	{"[\"=[]\", \"tags\", \"db\"]", "beta"},
	{"[\"=[]\", \"tags\", \"prod\"]", "alpha"},
	{"[\"=[]\", \"tags\", \"nope\"]", ""},
	{"[\"=[]\", \"name\", \"alpha\"]", ""},
	/* a cell without data fails every condition on it */
	{"[\"==\", \"load\", 3]", "alpha,beta"},
	{"[\"!\", [\"==\", \"load\", 3]]", "gamma"},
	/* logic and nesting */
	{"[\"&\", [\"?\", \"up\"], [\">\", \"size\", 15]]", "gamma"},
	{"[\"|\", [\"==\", \"size\", 10], [\"==\", \"size\", 30]]", "alpha,gamma"},
	{"[\"!\", [\"?\", \"up\"]]", "beta"},
	{"[\"&\"]", "alpha,beta,gamma"},
	{"[\"|\"]", ""},
	{"[\"|\", [\"&\", [\"?\", \"up\"], [\"!\", [\"=[]\", \"tags\", \"web\"]]],"
	 " [\"==\", \"name\", \"beta\"]]",
	 "beta,gamma"},
};

static void
test_operators(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(operator_cases); i++) {
		g_autofree gchar *got = matching(operator_cases[i].filter);
		g_test_message("filter %s", operator_cases[i].filter);
		g_assert_cmpstr(got, ==, operator_cases[i].expected);
	}
}

static void
test_nesting_limit(void)
{
	g_autoptr(GString) deep = g_string_new(NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GntQuery) query = NULL;
	g_autofree gchar *got = NULL;

	/* nine "!" and a condition: ten levels are fine */
	for (guint i = 0; i < 9; i++)
		g_string_append(deep, "[\"!\", ");
	g_string_append(deep, "[\"?\", \"up\"]");
	for (guint i = 0; i < 9; i++)
		g_string_append(deep, "]");
	got = matching(deep->str);
	g_assert_cmpstr(got, ==, "beta");

	g_string_prepend(deep, "[\"!\", ");
	g_string_append(deep, "]");
	query = query_new(NULL, deep->str, &error);
	g_assert_null(query);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==,
			"filter nested too deep: at most 10 levels are allowed");
}

static const struct {
	const gchar *filter;
	const gchar *message;
} error_cases[] = {
	{"[]", "invalid filter at level 0: expected a non-empty list, not list"},
	{"\"name\"", "invalid filter at level 0: expected a non-empty list, not string"},
	{"[\"&\", 3]", "invalid filter at level 1: expected a non-empty list, not integer"},
	{"[3, \"name\"]", "a filter operator must be a string, not integer"},
	{"[\"~\", \"name\", \"x\"]", "unknown filter operator '~'"},
	{"[\"==\", \"nope\", 1]", "unknown field 'nope' in filter"},
	{"[\"?\", \"nope\"]", "unknown field 'nope' in filter"},
	{"[\"==\", 3, 1]", "the field name of operator '==' must be a string, not integer"},
	{"[\"==\", \"size\"]", "operator '==' expects exactly 2 operands, got 1"},
	{"[\"<\", \"size\", 1, 2]", "operator '<' expects exactly 2 operands, got 3"},
	{"[\"?\"]", "operator '?' expects exactly 1 operand, got 0"},
	{"[\"!\", [\"?\", \"up\"], [\"?\", \"up\"]]",
	 "operator '!' expects exactly 1 operand, got 2"},
	{"[\"==\", \"size\", 2.5]",
	 "filter value 2.5 for field 'size' is not an integer; fractions are not allowed"},
	{"[\"==\", \"up\", true]",
	 "filter value for field 'up' must be a string or an integer, not boolean"},
	{"[\"=[]\", \"tags\", [\"a\"]]",
	 "filter value for field 'tags' must be a string or an integer, not list"},
	{"[\"==\", \"size\", null]",
	 "filter value for field 'size' must be a string or an integer, not null"},
	{"[\"=~\", \"name\", 5]", "the regular expression for field 'name' must be a string"},
	{"[\"==\", \"id\", \"7a\"]", "filter value '7a' for field 'id' is not a job ID"},
	{"[\"==\", \"id\", \"-1\"]", "filter value '-1' for field 'id' is not a job ID"},
	{"[\"|\", [\"?\", \"up\"], [\"==\", \"nope\", 1]]", "unknown field 'nope' in filter"},
};

static void
test_errors(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(error_cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GntQuery) query = query_new(NULL, error_cases[i].filter, &error);

		g_assert_null(query);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_test_message("filter %s", error_cases[i].filter);
		g_assert_cmpstr(error->message, ==, error_cases[i].message);
	}
}

static void
test_bad_regexp(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntQuery) query = query_new(NULL, "[\"=~\", \"name\", \"a(\"]", &error);

	g_assert_null(query);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_true(g_str_has_prefix(error->message,
				       "invalid regular expression 'a(' for field 'name': "));
}

static void
test_bad_field_list(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntQuery) query = query_new("[\"name\", {}]", NULL, &error);

	g_assert_null(query);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==,
			"query fields: field name 1 must be a string, not object");
}

static void
test_rows(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntQuery) query = query_new("[\"name\", \"nope\", \"load\", \"up\"]",
					      "[\">=\", \"size\", 20]", &error);
	g_autoptr(JsonArray) rows = json_array_new();
	g_autoptr(JsonNode) response = NULL;
	g_autoptr(JsonNode) values_node = NULL;
	g_autoptr(JsonArray) values = NULL;

	g_assert_no_error(error);
	for (guint i = 0; i < G_N_ELEMENTS(machines); i++) {
		if (gnt_query_matches(query, &machines[i], GINT_TO_POINTER(3)))
			json_array_add_array_element(rows, gnt_query_build_row(query, &machines[i],
									       GINT_TO_POINTER(3)));
	}
	response = gnt_query_build_response(query, g_steal_pointer(&rows));
	test_json_assert_text(response,
			      "{\"fields\": ["
			      "{\"name\": \"name\", \"title\": \"Name\", \"kind\": \"text\","
			      " \"doc\": \"Machine name\"},"
			      "{\"name\": \"nope\", \"title\": \"nope\", \"kind\": \"unknown\","
			      " \"doc\": \"Unknown field 'nope'\"},"
			      "{\"name\": \"load\", \"title\": \"Load\", \"kind\": \"number\","
			      " \"doc\": \"Live load\"},"
			      "{\"name\": \"up\", \"title\": \"Up\", \"kind\": \"bool\","
			      " \"doc\": \"Whether it runs\"}],"
			      " \"data\": ["
			      "[[0, \"beta.example.com\"], [1, null], [0, 3], [0, false]],"
			      "[[0, \"gamma.example.org\"], [1, null], [4, null], [0, true]]]}");

	values = gnt_query_build_values(query, &machines[2], GINT_TO_POINTER(3));
	values_node = gnt_json_node_new_array(g_steal_pointer(&values));
	test_json_assert_text(values_node, "[\"gamma.example.org\", null, null, true]");
}

static void
test_all_fields(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntQuery) query = gnt_query_new(machine_fields, NULL, NULL, &error);
	g_autoptr(JsonNode) row = NULL;

	g_assert_no_error(error);
	g_assert_true(gnt_query_check_known_fields(query, &error));
	row = gnt_json_node_new_array(gnt_query_build_row(query, &machines[0], GINT_TO_POINTER(5)));
	test_json_assert_text(
		row, "[[0, \"alpha.example.com\"], [0, 10], [0, true], [0, [\"web\", \"prod\"]],"
		     " [0, 0.5], [0, [1700000000, 500000]], [0, 7], [0, 5]]");
}

static void
test_known_fields(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntQuery) query = query_new("[\"x\", \"name\", \"y\"]", NULL, &error);

	g_assert_no_error(error);
	g_assert_false(gnt_query_check_known_fields(query, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "Unknown output fields selected: x, y");
}

static void
test_uses_field(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntQuery)
		query = query_new("[\"name\", \"nope\"]", "[\"!\", [\"?\", \"up\"]]", &error);

	g_assert_no_error(error);
	g_assert_true(gnt_query_uses_field(query, "name"));
	g_assert_true(gnt_query_uses_field(query, "up"));
	g_assert_false(gnt_query_uses_field(query, "size"));
	g_assert_false(gnt_query_uses_field(query, "nope"));
}

static const struct {
	const gchar *filter;
	const gchar *hint; /* NULL: no hint */
} hint_cases[] = {
	{"null", NULL},
	{"[\"==\", \"name\", \"a\"]", "[\"a\"]"},
	{"[\"=\", \"name\", \"a\"]", "[\"a\"]"},
	{"[\"|\", [\"==\", \"name\", \"a\"], [\"==\", \"name\", \"b\"], [\"==\", \"name\", \"a\"]]",
	 "[\"a\", \"b\"]"},
	{"[\"|\", [\"==\", \"name\", \"a\"], [\"|\", [\"==\", \"name\", \"c\"]]]",
	 "[\"a\", \"c\"]"},
	{"[\"|\"]", "[]"},
	{"[\"|\", [\"==\", \"name\", \"a\"], [\"==\", \"size\", 1]]", NULL},
	{"[\"|\", [\"==\", \"name\", \"a\"], [\"=~\", \"name\", \"b\"]]", NULL},
	{"[\"&\", [\"==\", \"name\", \"a\"]]", NULL},
	{"[\"!=\", \"name\", \"a\"]", NULL},
	{"[\"!\", [\"==\", \"name\", \"a\"]]", NULL},
	{"[\"==\", \"size\", 1]", NULL},
};

static void
test_name_hint(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(hint_cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GntQuery) query = query_new(NULL, hint_cases[i].filter, &error);
		g_autoptr(JsonArray) hint = NULL;
		g_autoptr(JsonNode) hint_node = NULL;

		g_assert_no_error(error);
		hint = gnt_query_dup_name_hint(query, "name");
		g_test_message("filter %s", hint_cases[i].filter);
		if (hint_cases[i].hint == NULL) {
			g_assert_null(hint);
			continue;
		}
		g_assert_nonnull(hint);
		hint_node = gnt_json_node_new_array(g_steal_pointer(&hint));
		test_json_assert_text(hint_node, hint_cases[i].hint);
	}
}

static void
test_job_id_hint(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntQuery) query =
		query_new(NULL, "[\"|\", [\"==\", \"id\", 7], [\"==\", \"id\", \"12\"]]", &error);
	g_autoptr(JsonNode) hint = NULL;

	g_assert_no_error(error);
	hint = gnt_json_node_new_array(gnt_query_dup_name_hint(query, "id"));
	test_json_assert_text(hint, "[7, 12]");
	/* the hint holds integers, not strings */
	g_assert_true(gnt_json_node_is_int(json_array_get_element(json_node_get_array(hint), 1)));
}

/* Rows written as text are the built rows serialized, whether a field
 * writes itself or not, with unknown fields and abnormal statuses. */
static void
test_written_rows(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntQuery) query =
		query_new("[\"name\", \"load\", \"nope\", \"tags\", \"ratio\", \"ctime\", \"up\"]",
			  NULL, &error);
	g_autoptr(JsonArray) rows = json_array_new();
	g_autoptr(JsonNode) response = NULL;
	g_autoptr(GString) written = g_string_new(NULL);
	g_autofree gchar *expected = NULL;

	g_assert_no_error(error);
	gnt_query_write_response_start(query, written);
	for (guint i = 0; i < G_N_ELEMENTS(machines); i++) {
		g_autoptr(JsonArray)
			row = gnt_query_build_row(query, &machines[i], GINT_TO_POINTER(3));
		g_autoptr(JsonArray)
			values = gnt_query_build_values(query, &machines[i], GINT_TO_POINTER(3));
		g_autoptr(JsonNode) row_node = gnt_json_node_new_array(json_array_ref(row));
		g_autoptr(JsonNode) values_node = gnt_json_node_new_array(json_array_ref(values));
		g_autofree gchar *row_text = gnt_json_to_string(row_node);
		g_autofree gchar *values_text = gnt_json_to_string(values_node);
		g_autoptr(GString) text = g_string_new("x");

		gnt_query_write_row(query, &machines[i], GINT_TO_POINTER(3), text);
		g_assert_cmpstr(text->str + 1, ==, row_text); /* appended */
		g_string_truncate(text, 0);
		gnt_query_write_values(query, &machines[i], GINT_TO_POINTER(3), text);
		g_assert_cmpstr(text->str, ==, values_text);
		if (i > 0)
			g_string_append_c(written, ',');
		gnt_query_write_row(query, &machines[i], GINT_TO_POINTER(3), written);
		json_array_add_array_element(rows, g_steal_pointer(&row));
	}
	gnt_query_write_response_end(query, written);
	response = gnt_query_build_response(query, json_array_ref(rows));
	expected = gnt_json_to_string(response);
	g_assert_cmpstr(written->str, ==, expected);
	/* gamma is offline: its load cell says so, written or built */
	g_assert_nonnull(strstr(expected, "[[0,\"gamma.example.org\"],[4,null],[1,null],"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/query/kinds", test_kinds);
	g_test_add_func("/query/fields-response", test_fields_response);
	g_test_add_func("/query/operators", test_operators);
	g_test_add_func("/query/nesting-limit", test_nesting_limit);
	g_test_add_func("/query/errors", test_errors);
	g_test_add_func("/query/bad-regexp", test_bad_regexp);
	g_test_add_func("/query/bad-field-list", test_bad_field_list);
	g_test_add_func("/query/rows", test_rows);
	g_test_add_func("/query/written-rows", test_written_rows);
	g_test_add_func("/query/all-fields", test_all_fields);
	g_test_add_func("/query/known-fields", test_known_fields);
	g_test_add_func("/query/uses-field", test_uses_field);
	g_test_add_func("/query/name-hint", test_name_hint);
	g_test_add_func("/query/job-id-hint", test_job_id_hint);
	return g_test_run();
}
