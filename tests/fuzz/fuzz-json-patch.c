/* libFuzzer target: the JSON Patch applier (common/gnt-json-patch.h) as
 * RAPI's PATCH of an install template runs it. The input is a patch, or a
 * document, a NUL byte and a patch; without a document (or with one that
 * does not parse) a stored template is patched. What must hold: the
 * document never changes, and a result is a document that serializes. */
#include <string.h>

#include "gnt-json-patch.h"
#include "gnt-json.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

#define TEMPLATE                                                                                   \
	"{\"uuid\":\"u\",\"name\":\"CUSTOM_A\",\"description\":\"\",\"serial_no\":1,"              \
	"\"steps\":[{\"interface\":\"deploy\",\"step\":\"write_image\",\"args\":{\"a\":[1]},"      \
	"\"priority\":0}]}"

static const gchar *const roots[] = {"name", "steps", "description", NULL};

/* @len bytes as JSON, as RAPI reads a body (nesting bounded first). */
static JsonNode *
parse(const gchar *text, gsize len)
{
	if (!gnt_json_check_nesting(text, len, GNT_JSON_MAX_NESTING, NULL))
		return NULL;
	return gnt_json_parse(text, (gssize)len, NULL);
}

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	const gchar *text = (const gchar *)data;
	const gchar *nul = memchr(text, '\0', size);
	g_autoptr(JsonNode) doc = nul != NULL ? parse(text, (gsize)(nul - text)) : NULL;
	g_autoptr(JsonNode) patch = NULL;
	g_autoptr(JsonNode) result = NULL;
	g_autofree gchar *before = NULL;
	g_autofree gchar *after = NULL;

	if (doc == NULL)
		doc = gnt_json_parse(TEMPLATE, -1, NULL);
	patch = nul != NULL ? parse(nul + 1, size - (gsize)(nul + 1 - text)) : parse(text, size);
	if (patch == NULL)
		return 0;
	before = gnt_json_to_string(doc);
	result = gnt_json_patch_apply(doc, patch, nul != NULL ? NULL : roots, NULL);
	after = gnt_json_to_string(doc);
	if (strcmp(before, after) != 0)
		__builtin_trap();
	if (result != NULL) {
		g_autofree gchar *out = gnt_json_to_string(result);

		if (out == NULL)
			__builtin_trap();
	}
	return 0;
}
