#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * JSON Patch (RFC 6902) with JSON Pointers (RFC 6901), the operations
 * "add", "replace" and "remove": what RAPI's PATCH of an install template
 * applies (doc/templates.md).
 */

/* At most this many operations in one patch. */
#define GNT_JSON_PATCH_MAX_OPS 1000

/*
 * Applies @patch (a list of {"op", "path", "value"}) to a copy of @doc,
 * operation by operation, and returns the copy (transfer full); @doc never
 * changes. @roots (NULL-terminated; NULL: any) are the members of @doc a
 * path may start at: "/steps/0/priority" needs "steps". An operation other
 * than add, replace and remove (move, copy, test), a path outside @roots
 * or that does not exist ("replace" and "remove" need their target, "add"
 * its parent), an array index that is not a plain decimal (or "-", the end,
 * for "add") or out of range, a missing "value", or a patch that is not a
 * list of objects fail with GNT_ERROR_INVALID naming the operation by its
 * position.
 */
JsonNode *
gnt_json_patch_apply(JsonNode *doc, JsonNode *patch, const gchar *const *roots, GError **error);

G_END_DECLS
