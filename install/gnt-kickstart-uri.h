#pragma once /* install/gnt-kickstart-uri.h: the form of a kickstart template's source */

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The shipped default template's name as a source. */
#define GNT_KICKSTART_SOURCE_DEFAULT "default"

/* Whether @source has one of the forms a template source takes
 * (gnt-kickstart-source.h): file:///PATH (an absolute path, no host, no
 * ".."), http(s) with a host and no credentials, or "default".
 * GNT_ERROR_INVALID quoting it otherwise. What the opcodes' ks_template
 * asks before anything changes; the opcode tables link it, so it needs
 * nothing but GLib. */
gboolean
gnt_kickstart_source_check(const gchar *source, GError **error);

/* Whether the file:// @source (checked by gnt_kickstart_source_check())
 * names a path under @kickstart_dir, compared as written: the fetch
 * resolves symbolic links and checks again (gnt-kickstart-source.h). Any
 * other form passes. GNT_ERROR_INVALID naming both otherwise. */
gboolean
gnt_kickstart_source_check_dir(const gchar *source, const gchar *kickstart_dir, GError **error);

/* The opcode parameter's check (ks_template): a source, or "" (removes
 * the instance's own). */
gboolean
gnt_kickstart_validate_source_param(JsonNode *value, GError **error);

G_END_DECLS
