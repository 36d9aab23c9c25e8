#include "gnt-limits.h"

#include <string.h>

#include "gnt-error.h"

gboolean
gnt_limits_check_tag(const gchar *tag, GError **error)
{
	gsize len = strlen(tag);

	if (len > GNT_MAX_TAG_LEN) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Tag too long (>%d characters): '%.20s...'", GNT_MAX_TAG_LEN, tag);
		return FALSE;
	}
	if (len == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "Tags cannot be empty");
		return FALSE;
	}
	for (gsize i = 0; i < len; i++) {
		if (!g_ascii_isalnum(tag[i]) && strchr("_.+*/:@-", tag[i]) == NULL) {
			g_autofree gchar *shown = g_strescape(tag, NULL);
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Tag contains invalid characters: '%s'", shown);
			return FALSE;
		}
	}
	return TRUE;
}

/* The table's type check ran first: @value is a list. */
static gboolean
validate_count(JsonNode *value, guint max, const gchar *what, GError **error)
{
	guint n = json_array_get_length(json_node_get_array(value));

	if (n <= max)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "lists %u %s; at most %u are allowed", n,
		    what, max);
	return FALSE;
}

gboolean
gnt_limits_validate_disks(JsonNode *value, GError **error)
{
	return validate_count(value, GNT_MAX_DISKS, "disks", error);
}

gboolean
gnt_limits_validate_nics(JsonNode *value, GError **error)
{
	return validate_count(value, GNT_MAX_NICS, "NICs", error);
}

gboolean
gnt_limits_validate_tags(JsonNode *value, GError **error)
{
	JsonArray *tags = json_node_get_array(value);

	if (!validate_count(value, GNT_MAX_TAGS_PER_OBJECT, "tags", error))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(tags); i++) {
		if (!gnt_limits_check_tag(json_array_get_string_element(tags, i), error))
			return FALSE;
	}
	return TRUE;
}
