#pragma once

#include "gnt-json.h"

G_BEGIN_DECLS

/* What only gnt-json.c and its tests call. */

/* gnt_json_parse() through json-glib's parser alone: the reference its
 * fast reader is checked against, and what it falls back to. */
JsonNode *
gnt_json_parse_json_glib(const gchar *data, gssize len, GError **error);

G_END_DECLS
