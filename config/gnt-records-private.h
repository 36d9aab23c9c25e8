#pragma once /* config/gnt-records-private.h: shared by gnt-records.c and gnt-instance-spec.c */

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* A string member that may be missing or null (*@out NULL then). */
gboolean
gnt_records_dup_optional_string(JsonObject *obj, const gchar *key, gchar **out, GError **error);
/* A list of strings; missing or null gives NULL. */
gboolean
gnt_records_dup_optional_strv(JsonObject *obj, const gchar *key, GStrv *out, GError **error);

G_END_DECLS
