#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Ganeti writes every job-queue timestamp as [seconds, microseconds]. We keep
 * microseconds since the epoch in a gint64; 0 means "not set" (JSON null). */

JsonNode *
gnt_timestamp_to_json(gint64 usec);

/* Accepts [sec, usec] or null (0). */
gboolean
gnt_timestamp_from_json(JsonNode *node, gint64 *usec, GError **error);

G_END_DECLS
