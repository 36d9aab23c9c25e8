#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * Typed access to JSON records. json-glib's own getters warn or quietly
 * return 0/NULL on a wrongly typed member; these fail with
 * GNT_ERROR_INVALID and a message naming the member instead. All raw
 * member access stays in gnt-json.c.
 */

/* How deep parsed JSON may nest: more is refused before json-glib sees it. */
#define GNT_JSON_MAX_NESTING 128

/* Parses @len bytes (-1: NUL-terminated) of UTF-8 JSON nesting at most
 * GNT_JSON_MAX_NESTING levels into the tree json-glib's parser builds, with
 * json-glib's leniencies (it is the fallback for anything that is not
 * strict JSON) and error messages that quote nothing. (transfer full) */
JsonNode *
gnt_json_parse(const gchar *data, gssize len, GError **error);
/* The same for data that is only read, such as a large answer: equal
 * short values (scalars, and flat lists of them like a Query answer's
 * [status, value] cells) may be one node, referenced from each place
 * (their parent is any of them), which saves most of the allocations of a
 * large answer's tree. Never change a list or a scalar of it in place;
 * objects are each their own. (transfer full) */
JsonNode *
gnt_json_parse_readonly(const gchar *data, gssize len, GError **error);

/* Whether @data nests at most @max_depth arrays/objects deep (strings are
 * skipped); GNT_ERROR_INVALID otherwise. */
gboolean
gnt_json_check_nesting(const gchar *data, gsize len, guint max_depth, GError **error);

/* Compact serialization of @node: strings with every control byte escaped,
 * numbers that read back as the same value (json-glib 1.6 writes 1e17 as
 * the invalid "1e+17.0"); a non-finite double, which JSON cannot hold, is
 * written as null. (transfer full) */
gchar *
gnt_json_to_string(JsonNode *node);

/* Appends what gnt_json_to_string() returns for @node (NULL: null). */
void
gnt_json_append(GString *out, JsonNode *node);
/* Appends @str as a JSON string, as gnt_json_to_string() writes strings. */
void
gnt_json_append_string(GString *out, const gchar *str);
/* Appends @value as a JSON integer. */
void
gnt_json_append_int(GString *out, gint64 value);

/* A double as JSON text that reads back as the same value, with a ".0" when
 * it would otherwise look like an integer ("3.0", "1e+17", "0.1"). */
gchar *
gnt_json_format_double(gdouble value);

/* Copies sharing nothing with the original. json_node_copy() shares the
 * containers and values, and json-glib's reference counts are not atomic:
 * whatever crosses threads must be deep-copied. (transfer full) */
JsonNode *
gnt_json_node_deep_copy(JsonNode *node);

/* Overwrites every string inside @node (nullable) with zeroes: a parsed
 * request or a built one held secrets in clear, and json-glib frees
 * strings without zeroing them. */
void
gnt_json_node_wipe_strings(JsonNode *node);
JsonObject *
gnt_json_object_deep_copy(JsonObject *obj);
/* Copies every member of @over (may be NULL) into @out, replacing those of
 * the same name (Ganeti's FillDict, one level). */
void
gnt_json_object_overlay(JsonObject *out, JsonObject *over);

/* Object members. @out is borrowed for get_string/get_array/get_object. */
gboolean
gnt_json_get_string(JsonObject *obj, const gchar *key, const gchar **out, GError **error);
gboolean
gnt_json_dup_string(JsonObject *obj, const gchar *key, gchar **out, GError **error);
gboolean
gnt_json_get_int(JsonObject *obj, const gchar *key, gint64 *out, GError **error);
gboolean
gnt_json_get_double(JsonObject *obj, const gchar *key, gdouble *out, GError **error);
gboolean
gnt_json_get_bool(JsonObject *obj, const gchar *key, gboolean *out, GError **error);
gboolean
gnt_json_get_array(JsonObject *obj, const gchar *key, JsonArray **out, GError **error);
gboolean
gnt_json_get_object(JsonObject *obj, const gchar *key, JsonObject **out, GError **error);
/* @key's value when it is an object (an array), else NULL: for optional
 * members, without the critical json-glib gives for a missing one. @obj
 * may be NULL. (transfer none) */
JsonObject *
gnt_json_peek_object(JsonObject *obj, const gchar *key);
JsonArray *
gnt_json_peek_array(JsonObject *obj, const gchar *key);

/* Node-level checks, for array elements and dictionary values. @what names
 * the value in the error message ("'duration'", "element 3"). */
gboolean
gnt_json_node_is_int(JsonNode *node);
gboolean
gnt_json_node_is_number(JsonNode *node);
gboolean
gnt_json_node_get_int(JsonNode *node, const gchar *what, gint64 *out, GError **error);
gboolean
gnt_json_node_get_number(JsonNode *node, const gchar *what, gdouble *out, GError **error);
gboolean
gnt_json_node_get_string(JsonNode *node, const gchar *what, const gchar **out, GError **error);

/* A JSON type name for messages: "string", "integer", "null", ... */
const gchar *
gnt_json_node_type_name(JsonNode *node);

/* New nodes (a NULL string makes a null node). (transfer full) */
JsonNode *
gnt_json_node_new_string(const gchar *value);
JsonNode *
gnt_json_node_new_int(gint64 value);
JsonNode *
gnt_json_node_new_double(gdouble value);
JsonNode *
gnt_json_node_new_bool(gboolean value);
JsonNode *
gnt_json_node_new_null(void);
/* Takes ownership of @array / @object. */
JsonNode *
gnt_json_node_new_array(JsonArray *array);
JsonNode *
gnt_json_node_new_object(JsonObject *object);

G_END_DECLS
