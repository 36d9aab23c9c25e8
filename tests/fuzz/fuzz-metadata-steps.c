/* libFuzzer target: what the install appliance's agent sends metad about
 * its in-band steps (metadata/gnt-metadata-steps.h): its catalogue, a
 * step's result and the data a result carries. The input's first byte
 * picks which (modulo 3: result, catalogue, data); a result's input is
 * split at NUL bytes into id, status, detail, reboot and the body. Whatever
 * is refused has an error; whatever parses stays within the bounds, and a
 * parsed catalogue parses again from its own serialization. */
#include <string.h>

#include "gnt-json.h"
#include "gnt-metadata.h"
#include "gnt-metadata-steps.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

static void
fuzz_catalogue(const gchar *data, gsize len)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) catalogue = gnt_metadata_catalogue_parse(data, len, &error);
	g_autoptr(JsonNode) node = NULL;
	g_autofree gchar *text = NULL;
	g_autoptr(JsonObject) again = NULL;

	if (catalogue == NULL) {
		if (error == NULL || error->message == NULL)
			__builtin_trap();
		return;
	}
	node = gnt_json_node_new_object(json_object_ref(catalogue));
	text = gnt_json_to_string(node);
	again = gnt_metadata_catalogue_parse(text, strlen(text), NULL);
	if (again == NULL)
		__builtin_trap();
}

static void
fuzz_result(const gchar *data, gsize len)
{
	const gchar *fields[4] = {NULL, NULL, NULL, NULL};
	g_autoptr(GError) error = NULL;
	g_autoptr(GntMetadataStepResult) result = NULL;
	g_autoptr(GntMetadataSteps) session = NULL;
	g_autoptr(JsonArray) steps = json_array_new();
	g_autoptr(JsonObject) step = json_object_new();
	const gchar *name = NULL, *id = NULL;
	g_autofree gchar *next = NULL;
	gsize at = 0;

	/* the query values are NUL-terminated strings in the input */
	for (guint i = 0; i < G_N_ELEMENTS(fields) && at < len; i++) {
		const gchar *end = memchr(data + at, '\0', len - at);

		if (end == NULL)
			break;
		fields[i] = data + at;
		at = (gsize)(end - data) + 1;
	}
	result = gnt_metadata_step_result_parse(fields[0], fields[1], fields[2], fields[3],
						data + at, len - at, &error);
	if (result == NULL) {
		if (error == NULL || error->message == NULL)
			__builtin_trap();
		return;
	}
	if (strlen(result->output) > 3 * GNT_METADATA_PROGRESS_OUTPUT_MAX ||
	    !g_utf8_validate(result->output, -1, NULL) ||
	    !g_utf8_validate(result->detail, -1, NULL))
		__builtin_trap();
	/* a session whose one step is the result's: taken once, then not */
	json_object_set_string_member(step, "id", result->id);
	json_object_set_string_member(step, "step", "fuzz");
	json_object_set_object_member(step, "args", json_object_new());
	json_object_set_int_member(step, "timeout", 60);
	json_array_add_object_element(steps, json_object_ref(step));
	session = gnt_metadata_steps_new(steps, NULL);
	if (session == NULL)
		__builtin_trap();
	next = gnt_metadata_steps_next(session, &name, &id);
	if (name == NULL || !gnt_metadata_steps_take_result(session, result, &name, NULL) ||
	    gnt_metadata_steps_take_result(session, result, &name, NULL))
		__builtin_trap();
}

/* A result's data: refused with an error, or its text parses again to
 * the same text. */
static void
fuzz_data(const gchar *data, gsize len)
{
	g_autofree gchar *text = g_strndup(data, len);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *parsed = gnt_metadata_step_data_parse(text, &error);
	g_autofree gchar *again = NULL;

	if (parsed == NULL) {
		if (error == NULL || error->message == NULL)
			__builtin_trap();
		return;
	}
	again = gnt_metadata_step_data_parse(parsed, NULL);
	if (again == NULL || strcmp(again, parsed) != 0)
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	if (size == 0)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_result((const gchar *)data + 1, size - 1);
		break;
	case 1:
		fuzz_catalogue((const gchar *)data + 1, size - 1);
		break;
	default:
		fuzz_data((const gchar *)data + 1, size - 1);
		break;
	}
	return 0;
}
