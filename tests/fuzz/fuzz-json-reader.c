/* libFuzzer target: our JSON reader (gnt_json_parse(), which every request
 * and answer goes through) against json-glib's parser on the same bytes:
 * both refuse, or both read the same document (compared as our writer's
 * text). A crash or a difference is a bug in the reader. */
#include <string.h>

#include "gnt-json-private.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	g_autoptr(JsonNode) ours = NULL;
	g_autoptr(JsonNode) theirs = NULL;
	g_autoptr(JsonNode) readonly = NULL;
	g_autofree gchar *ours_text = NULL;
	g_autofree gchar *theirs_text = NULL;
	g_autofree gchar *readonly_text = NULL;

	/* json-glib recurses per level; both parsers refuse deep nesting
	 * first, so the comparison stays meaningful */
	if (!gnt_json_check_nesting((const gchar *)data, size, GNT_JSON_MAX_NESTING, NULL))
		return 0;
	ours = gnt_json_parse((const gchar *)data, (gssize)size, NULL);
	theirs = gnt_json_parse_json_glib((const gchar *)data, (gssize)size, NULL);
	readonly = gnt_json_parse_readonly((const gchar *)data, (gssize)size, NULL);
	if ((ours == NULL) != (theirs == NULL) || (ours == NULL) != (readonly == NULL))
		__builtin_trap();
	if (ours == NULL)
		return 0;
	ours_text = gnt_json_to_string(ours);
	theirs_text = gnt_json_to_string(theirs);
	readonly_text = gnt_json_to_string(readonly);
	if (strcmp(ours_text, theirs_text) != 0 || strcmp(ours_text, readonly_text) != 0)
		__builtin_trap();
	return 0;
}
