/* JSON Patch (common/gnt-json-patch.h): each case a document, a patch and
#include <string.h>

 * the result or the error; the document never changes. */
#include "gnt-error.h"
#include "gnt-json-patch.h"
#include "gnt-json.h"

#define DOC                                                                                        \
	"{\"name\":\"CUSTOM_A\",\"uuid\":\"u1\",\"description\":\"d\","                            \
	"\"steps\":[{\"interface\":\"deploy\",\"step\":\"s1\",\"args\":{},\"priority\":10},"       \
	"{\"interface\":\"deploy\",\"step\":\"s2\",\"args\":{\"a/b\":1,\"t~\":2},"                 \
	"\"priority\":20}]}"

static const gchar *const roots[] = {"name", "steps", "description", NULL};

typedef struct {
	const gchar *patch;
	const gchar *result; /* JSON text, or NULL: refused */
	const gchar *error;  /* a part of the message when refused */
} Case;

static const Case cases[] = {
	{"[]", DOC, NULL},
	{"[{\"op\":\"replace\",\"path\":\"/name\",\"value\":\"B\"}]",
	 "{\"name\":\"B\",\"uuid\":\"u1\",\"description\":\"d\",\"steps\":[{\"interface\":"
	 "\"deploy\",\"step\":\"s1\",\"args\":{},\"priority\":10},{\"interface\":\"deploy\","
	 "\"step\":\"s2\",\"args\":{\"a/b\":1,\"t~\":2},\"priority\":20}]}",
	 NULL},
	{"[{\"op\":\"remove\",\"path\":\"/description\"}]",
	 "{\"name\":\"CUSTOM_A\",\"uuid\":\"u1\",\"steps\":[{\"interface\":\"deploy\",\"step\":"
	 "\"s1\",\"args\":{},\"priority\":10},{\"interface\":\"deploy\",\"step\":\"s2\",\"args\":"
	 "{\"a/b\":1,\"t~\":2},\"priority\":20}]}",
	 NULL},
	/* insert before element 1, append with "-", replace inside, remove */
	{"[{\"op\":\"add\",\"path\":\"/steps/1\",\"value\":1},"
	 "{\"op\":\"add\",\"path\":\"/steps/-\",\"value\":3},"
	 "{\"op\":\"replace\",\"path\":\"/steps/0/priority\",\"value\":0},"
	 "{\"op\":\"remove\",\"path\":\"/steps/2/args/a~1b\"},"
	 "{\"op\":\"replace\",\"path\":\"/steps/2/args/t~0\",\"value\":5}]",
	 "{\"name\":\"CUSTOM_A\",\"uuid\":\"u1\",\"description\":\"d\",\"steps\":[{\"interface\":"
	 "\"deploy\",\"step\":\"s1\",\"args\":{},\"priority\":0},1,{\"interface\":\"deploy\","
	 "\"step\":\"s2\",\"args\":{\"t~\":5},\"priority\":20},3]}",
	 NULL},
	{"[{\"op\":\"add\",\"path\":\"/steps\",\"value\":[]}]",
	 "{\"name\":\"CUSTOM_A\",\"uuid\":\"u1\",\"description\":\"d\",\"steps\":[]}", NULL},
	{"[{\"op\":\"replace\",\"path\":\"/uuid\",\"value\":\"x\"}]", NULL, "may not be changed"},
	{"[{\"op\":\"remove\",\"path\":\"\"}]", NULL, "not a JSON pointer"},
	{"[{\"op\":\"add\",\"path\":\"/\",\"value\":1}]", NULL, "may not be changed"},
	{"[{\"op\":\"move\",\"from\":\"/name\",\"path\":\"/description\"}]", NULL,
	 "'move' is not supported"},
	{"[{\"op\":\"copy\",\"from\":\"/name\",\"path\":\"/description\"}]", NULL,
	 "'copy' is not supported"},
	{"[{\"op\":\"test\",\"path\":\"/name\",\"value\":\"CUSTOM_A\"}]", NULL,
	 "'test' is not supported"},
	{"[{\"op\":\"replace\",\"path\":\"/name\"}]", NULL, "needs a 'value'"},
	{"[{\"op\":\"replace\",\"path\":\"/steps/0/bogus\",\"value\":1}]", NULL,
	 "member 'bogus' does not exist"},
	{"[{\"op\":\"remove\",\"path\":\"/steps/2\"}]", NULL, "out of range"},
	{"[{\"op\":\"add\",\"path\":\"/steps/3\",\"value\":1}]", NULL, "out of range"},
	{"[{\"op\":\"replace\",\"path\":\"/steps/-\",\"value\":1}]", NULL, "not an array index"},
	{"[{\"op\":\"replace\",\"path\":\"/steps/01\",\"value\":1}]", NULL, "not an array index"},
	{"[{\"op\":\"replace\",\"path\":\"/steps/+1\",\"value\":1}]", NULL, "not an array index"},
	{"[{\"op\":\"add\",\"path\":\"/steps/0/priority/x\",\"value\":1}]", NULL,
	 "not a container"},
	{"[{\"op\":\"add\",\"path\":\"/steps/x/y\",\"value\":1}]", NULL, "not an array index"},
	{"[{\"op\":\"replace\",\"path\":\"/name~2\",\"value\":1}]", NULL, "'~'"},
	{"[{\"op\":\"replace\",\"path\":\"name\",\"value\":1}]", NULL, "must start with '/'"},
	{"[{\"op\":1,\"path\":\"/name\"}]", NULL, "'op' must be a string"},
	{"[{\"path\":\"/name\"}]", NULL, "'op' is missing"},
	{"[1]", NULL, "an operation is an object"},
	{"{\"op\":\"remove\",\"path\":\"/name\"}", NULL, "a list of operations"},
	/* the second operation fails: nothing of the first is kept */
	{"[{\"op\":\"replace\",\"path\":\"/name\",\"value\":\"B\"},{\"op\":\"move\","
	 "\"path\":\"/name\"}]",
	 NULL, "operation 1:"},
};

static void
test_cases(void)
{
	g_autoptr(JsonNode) doc = gnt_json_parse(DOC, -1, NULL);
	g_autofree gchar *before = gnt_json_to_string(doc);

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) patch = gnt_json_parse(cases[i].patch, -1, NULL);
		g_autoptr(JsonNode) result = NULL;
		g_autofree gchar *after = NULL;

		g_test_message("case %u: %s", i, cases[i].patch);
		g_assert_nonnull(patch);
		result = gnt_json_patch_apply(doc, patch, roots, &error);
		if (cases[i].result != NULL) {
			g_autoptr(JsonNode) want = gnt_json_parse(cases[i].result, -1, NULL);
			g_autofree gchar *want_text = gnt_json_to_string(want);
			g_autofree gchar *got_text = NULL;

			g_assert_no_error(error);
			got_text = gnt_json_to_string(result);
			g_assert_cmpstr(got_text, ==, want_text);
		} else {
			g_assert_null(result);
			g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
			g_test_message("refused: %s", error->message);
			g_assert_nonnull(strstr(error->message, cases[i].error));
		}
		after = gnt_json_to_string(doc);
		g_assert_cmpstr(after, ==, before);
	}
}

/* Without roots any member may be patched; too many operations are refused. */
static void
test_limits(void)
{
	g_autoptr(JsonNode) doc = gnt_json_parse("{\"uuid\":\"u\"}", -1, NULL);
	g_autoptr(JsonNode) patch = gnt_json_parse(
		"[{\"op\":\"replace\",\"path\":\"/uuid\",\"value\":\"v\"}]", -1, NULL);
	g_autoptr(JsonNode) result = gnt_json_patch_apply(doc, patch, NULL, NULL);
	g_autoptr(GString) many = g_string_new("[");
	g_autoptr(JsonNode) big = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_cmpstr(json_object_get_string_member(json_node_get_object(result), "uuid"), ==,
			"v");
	for (guint i = 0; i <= GNT_JSON_PATCH_MAX_OPS; i++)
		g_string_append_printf(many, "%s{\"op\":\"remove\",\"path\":\"/uuid\"}",
				       i > 0 ? "," : "");
	g_string_append(many, "]");
	big = gnt_json_parse(many->str, -1, NULL);
	g_assert_null(gnt_json_patch_apply(doc, big, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/json-patch/cases", test_cases);
	g_test_add_func("/json-patch/limits", test_limits);
	return g_test_run();
}
