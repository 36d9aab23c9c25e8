#include "gnt-time.h"

#include "gnt-error.h"
#include "gnt-json.h"

JsonNode *
gnt_timestamp_to_json(gint64 usec)
{
	JsonArray *pair;

	if (usec <= 0)
		return gnt_json_node_new_null();
	pair = json_array_sized_new(2);
	json_array_add_int_element(pair, usec / G_USEC_PER_SEC);
	json_array_add_int_element(pair, usec % G_USEC_PER_SEC);
	return gnt_json_node_new_array(pair);
}

gboolean
gnt_timestamp_from_json(JsonNode *node, gint64 *usec, GError **error)
{
	JsonArray *pair;
	gint64 sec, frac;

	if (node == NULL || JSON_NODE_HOLDS_NULL(node)) {
		*usec = 0;
		return TRUE;
	}
	if (!JSON_NODE_HOLDS_ARRAY(node) || json_array_get_length(json_node_get_array(node)) != 2) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "a timestamp must be [seconds, microseconds]");
		return FALSE;
	}
	pair = json_node_get_array(node);
	if (!gnt_json_node_get_int(json_array_get_element(pair, 0), "timestamp seconds", &sec,
				   error) ||
	    !gnt_json_node_get_int(json_array_get_element(pair, 1), "timestamp microseconds", &frac,
				   error))
		return FALSE;
	*usec = sec * G_USEC_PER_SEC + frac;
	return TRUE;
}
