#pragma once

#include <json-glib/json-glib.h>

#include "gnt-secret.h"

G_BEGIN_DECLS

/*
 * Named secrets ({name: value}, a secret OS parameters dictionary): each
 * value a GntSecret, so that the values stay in protected memory from the
 * opcode to the node RPC's body (doc/secrets.md).
 *
 * A request that carries secrets is built as public JSON with placeholders
 * (gnt_secret_dict_placeholder_*()), and gnt_secret_dict_fill() writes the
 * values in their place straight into protected memory.
 */

typedef struct _GntSecretDict GntSecretDict;

GntSecretDict *
gnt_secret_dict_new(void);
/* From @json, the text of a JSON object of strings (an opcode's secret
 * dictionary parameter); the parser's copies are wiped. */
GntSecretDict *
gnt_secret_dict_new_from_json(const GntSecret *json, GError **error);
GntSecretDict *
gnt_secret_dict_ref(GntSecretDict *self);
void
gnt_secret_dict_unref(GntSecretDict *self);

/* Copies @value into protected memory; replaces an earlier one. */
void
gnt_secret_dict_set(GntSecretDict *self, const gchar *name, const gchar *value);
void
gnt_secret_dict_remove(GntSecretDict *self, const gchar *name);
/* The value, or NULL; valid while the entry is. */
const gchar *
gnt_secret_dict_lookup(const GntSecretDict *self, const gchar *name);
gboolean
gnt_secret_dict_contains(const GntSecretDict *self, const gchar *name);
guint
gnt_secret_dict_size(const GntSecretDict *self);
/* The names, sorted. (transfer container) */
GPtrArray *
gnt_secret_dict_dup_names(const GntSecretDict *self);
/* A copy without @drop (NULL-terminated names; may be NULL). */
GntSecretDict *
gnt_secret_dict_copy_without(const GntSecretDict *self, const gchar *const *drop);

/* Placeholders for public JSON: the whole dictionary (as an object), or
 * the value of @name (as a string; null when the dictionary lacks it). */
JsonNode *
gnt_secret_dict_placeholder_all(void);
JsonNode *
gnt_secret_dict_placeholder_value(const gchar *name);

/* @text (JSON, as gnt_json_to_string() writes it) with each placeholder
 * replaced by what @self holds, in protected memory. A text without
 * placeholders comes back copied. GNT_ERROR_INVALID when a value is not
 * valid UTF-8. */
GntSecret *
gnt_secret_dict_fill(const GntSecretDict *self, const gchar *text, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntSecretDict, gnt_secret_dict_unref)

G_END_DECLS
